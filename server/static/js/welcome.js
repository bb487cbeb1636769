// @ts-check
// The lobby's welcome (issue #44 item 11): what Cardhall is, and each game hosted with a
// picture (inline SVG drawn here) and one Play that starts it at once. A Preact component
// (ui.js); the lobby mounts it and hands it the games of `list_games`.
import { html, DomSlot } from "./ui.js";

/**
 * @typedef {{ game: string, title: string, min_seats: number, max_seats: number,
 *             modes: string[] }} GameInfo  one game of `list_games` (protocol/README.md)
 * @typedef {(game: GameInfo) => (Node | object | null)} GameAction  an extra control for
 *   a game's card: a DOM node or a Preact element, or null for none
 */

/** One sentence per game, in the rules pages' own words (server/rules/*.md). */
export const BLURBS = {
  skipper:
    "Build four suit stacks up from the ace; queens and kings skip the cards you lack. " +
    "Alone, around a table with auctions, or as a race.",
  shop: "Run a small shop: every candle must burn, then the scales must balance, and only " +
    "then may the ledger be written up.",
  shah: "A two-pack patience laid out as a star: a king in the middle, eight aces round " +
    "him, eight rays pointing outwards.",
  thirtysix: "Seventeen turns against two ENEMY stacks: match their strength with the " +
    "cards of your row, and keep more than 36 points.",
  shufflejack: "Pull Blackjack hands out of a five-by-five grid of cards, across as many " +
    "as seven rounds, each harder than the one before.",
};

/** Extra controls other modules put on every game's card (after Play), in order. */
export const gameActions = /** @type {GameAction[]} */ ([]);

/**
 * Add a control to every game's card of the welcome (e.g. a "Play rated" button).
 * @param {GameAction} action  called at each render with the game; returns a DOM node, a
 *   Preact element or null
 */
export function addGameAction(action) {
  gameActions.push(action);
}

/**
 * "1 player" or "1–6 players".
 * @param {GameInfo} g
 * @returns {string}
 */
export function playersText(g) {
  if (g.min_seats === g.max_seats) return `${g.min_seats} player${g.min_seats === 1 ? "" : "s"}`;
  return `${g.min_seats}\u2013${g.max_seats} players`;
}

/**
 * The `create_room` message of a game's Play: a room for one, in the solo mode when the
 * game has modes (the player starts at once; tables with others are the form's and Quick
 * join's).
 * @param {GameInfo} g
 * @returns {{ t: string, game: string, seats: number, options: object, private: boolean,
 *             mode?: string }}
 */
export function playMessage(g) {
  /** @type {{ t: string, game: string, seats: number, options: object, private: boolean,
   *           mode?: string }} */
  const msg = { t: "create_room", game: g.game, seats: 1, options: {}, private: false };
  if (g.modes && g.modes.length) msg.mode = g.modes.includes("solo") ? "solo" : g.modes[0];
  return msg;
}

/**
 * A card drawn in SVG: a rounded rectangle, face up with `text` (red for ♦ ♥) or face down.
 * @param {{ x: number, y: number, text?: string, w?: number, hi?: boolean }} p
 */
function SvgCard({ x, y, text, w = 22, hi = false }) {
  const hgt = Math.round(w * 1.4);
  const red = text !== undefined && /[\u2666\u2665]/.test(text);
  return html`<g>
    <rect x=${x} y=${y} width=${w} height=${hgt} rx="3"
      fill=${text === undefined ? "#2b4c8c" : "#fffdf7"}
      stroke=${hi ? "#f2b632" : "#555"} stroke-width=${hi ? 2 : 0.8} />
    ${text === undefined ? null : html`<text x=${x + w / 2} y=${y + hgt / 2 + 4}
      text-anchor="middle" font-size=${w * 0.42} font-weight="bold"
      fill=${red ? "#c0142b" : "#111"}>${text}</text>`}
  </g>`;
}

/** @type {Record<string, () => object>} each game's picture: SVG children, viewBox 120×80 */
const PICTURES = {
  skipper: () => html`${["A\u2663", "A\u2666", "A\u2665", "A\u2660"].map(
    (t, i) => html`<${SvgCard} x=${8 + i * 27} y=${14} text=${t} />
      <${SvgCard} x=${8 + i * 27} y=${24} text=${["7", "Q", "3", "K"][i] + t.slice(1)} />`,
  )}`,
  shop: () => html`${[0, 1, 2].map(
    (i) => html`<${SvgCard} x=${8} y=${6 + i * 12} text=${["2\u2660", "5\u2660", "9\u2660"][i]} />`,
  )}
    <path d="M58 70 L90 70 M74 70 L74 18 M52 24 L96 24" stroke="#f2b632" stroke-width="3"
      fill="none" />
    <path d="M52 24 L46 44 L58 44 Z M96 24 L90 44 L102 44 Z" fill="#f2b632" />`,
  shah: () => html`${[0, 1, 2, 3, 4, 5, 6, 7].map((i) => {
    const a = (i * Math.PI) / 4;
    return html`<line x1="60" y1="40" x2=${60 + 44 * Math.cos(a)} y2=${40 + 34 * Math.sin(a)}
      stroke="#f2b632" stroke-width="2" />`;
  })}
    <${SvgCard} x=${49} y=${24} text="K\u2665" hi=${true} />`,
  thirtysix: () => html`<${SvgCard} x=${10} y=${4} /><${SvgCard} x=${36} y=${4} />
    <text x="92" y="28" text-anchor="middle" font-size="20" font-weight="bold"
      fill="#f2b632">36</text>
    ${[0, 1, 2, 3].map(
      (i) => html`<${SvgCard} x=${10 + i * 26} y=${44} w=${20}
        text=${["9\u2663", "J\u2666", "4\u2660", "8\u2665"][i]} />`,
    )}`,
  shufflejack: () => html`${[0, 1, 2, 3, 4].map((r) =>
    [0, 1, 2, 3, 4].map(
      (c) => html`<rect x=${22 + c * 16} y=${3 + r * 15} width="13" height="13" rx="2"
        fill=${r === 2 ? "#fffdf7" : "#ffffff55"} stroke=${r === 2 ? "#f2b632" : "none"} />`,
    ),
  )}
    <text x="110" y="41" text-anchor="middle" font-size="14" font-weight="bold"
      fill="#f2b632">21</text>`,
};

/**
 * A game's picture: an SVG of 120×80 (a fan of three cards for a game without one).
 * @param {{ game: string, title: string }} p
 */
export function GamePicture({ game, title }) {
  const draw = PICTURES[game];
  const body = draw
    ? draw()
    : html`<${SvgCard} x=${30} y=${20} text="A\u2660" /><${SvgCard} x=${49} y=${16}
        text="K\u2665" /><${SvgCard} x=${68} y=${20} text="Q\u2666" />`;
  return html`<svg class="game-picture" viewBox="0 0 120 80" role="img"
    aria-label=${`${title}: a picture`} data-game=${game}>
    <rect width="120" height="80" rx="8" fill="#1f5f3a" />${body}</svg>`;
}

/**
 * True for a DOM node (false where there is no DOM, e.g. under `node --test`).
 * @param {unknown} x
 * @returns {x is Node}
 */
function isDomNode(x) {
  return typeof Node !== "undefined" && x instanceof Node;
}

/**
 * One game's card: picture, title, players, one sentence, Play, and the extra actions.
 * @param {{ g: GameInfo, onPlay: (g: GameInfo) => void }} p
 */
export function GameCard({ g, onPlay }) {
  const extras = gameActions.map((action) => action(g)).filter((x) => x);
  return html`<li class="game-card" data-game=${g.game}>
    <${GamePicture} game=${g.game} title=${g.title} />
    <h3>${g.title}</h3>
    <p class="game-players">${playersText(g)}</p>
    <p class="game-blurb">${BLURBS[g.game] || ""}</p>
    <div class="game-actions">
      <button type="button" class="play" id=${`play-${g.game}`}
        aria-label=${`Play ${g.title}`} onClick=${() => onPlay(g)}>Play</button>
      ${extras.map((x) => (isDomNode(x) ? html`<${DomSlot} node=${x} />` : x))}
    </div>
  </li>`;
}

/**
 * The welcome panel: what Cardhall is, then a card per game.
 * @param {{ games: GameInfo[], onPlay: (g: GameInfo) => void }} p
 */
export function Welcome({ games, onPlay }) {
  return html`<section class="panel welcome" id="welcome" aria-labelledby="welcome-title">
    <h2 id="welcome-title">Welcome to Cardhall</h2>
    <p class="welcome-what">Card games to play in the browser: patiences alone, or a table
      with friends and bots. Press <b>Play</b> under a game to start one now; its rules are
      under \u201cHow to play\u201d at the table.</p>
    <ul class="game-cards">
      ${games.map((g) => html`<${GameCard} key=${g.game} g=${g} onPlay=${onPlay} />`)}
    </ul>
  </section>`;
}
