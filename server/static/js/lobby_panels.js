// @ts-check
// The lobby's smaller panels as Preact components (ui.js): "My games" (the games this
// browser finished, each with Replay) and "How to play" (a rules button per game).
import { html } from "./ui.js";

/**
 * @typedef {{ room: string, at: number, title: string, outcome: string }} KeptGame
 *   a "My games" entry (replay.js myGames: kept in localStorage)
 */

/**
 * My games: the ten newest finished games with Replay, or what will be listed here.
 * @param {{ games: KeptGame[], onReplay: (g: KeptGame) => void }} p
 */
export function MyGamesPanel({ games, onReplay }) {
  return html`<section class="panel my-games" id="my-games" aria-labelledby="my-games-title">
    <h2 id="my-games-title">My games</h2>
    ${games.length
      ? html`<ul>${games.slice(0, 10).map((g) => html`<li data-room=${g.room}>
          <span class="when">${new Date(g.at).toLocaleString()}</span>${" "}
          <strong>${g.title}</strong><span class="outcome">${` ${g.outcome}`}</span>
          <button type="button" class="secondary replay-open"
            onClick=${() => onReplay(g)}>Replay</button></li>`)}</ul>`
      : html`<p class="none">Games you finish in this browser are listed here.</p>`}
  </section>`;
}

/**
 * How to play: a button per game that opens its rules page.
 * @param {{ games: { game: string, title: string }[],
 *           onRules: (game: string, title: string) => void }} p
 */
export function RulesPanel({ games, onRules }) {
  return html`<section class="panel rules-panel" id="rules-panel"
      aria-labelledby="rules-panel-title">
    <h2 id="rules-panel-title">How to play</h2>
    <div class="filters">${games.map((g) => html`<button type="button" class="secondary"
      data-game=${g.game} onClick=${() => onRules(g.game, g.title)}>${g.title}</button>`)}
    </div>
  </section>`;
}
