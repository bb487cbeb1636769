// @ts-check
// The table screen's parts as Preact components (ui.js): the seat list, the turn line, the
// give-up and leave questions, the game-over panel, the event log, the other actions, and
// the screen that puts them together with the game's table (renderers.js embed), the
// spectators (links.js) and the chat (chat.js). RoomView (room.js) keeps the state and the
// actions and hands these plain props; they only draw them (state flows one way).
import { html } from "./ui.js";
import { prettyCards } from "./cards.js";
import { embed } from "./renderers.js";
import { CopyLink, SpectatorsPanel } from "./links.js";
import { AuctionHelp, HelpButton } from "./help.js";
import { ChatPanel } from "./chat.js";
import { SeatRating } from "./rated.js";

/**
 * A countdown: room.js's ticker writes the time left into every [data-deadline] element
 * (unix seconds) four times a second; the component only places it.
 * @param {{ deadline: number, label: string, big?: boolean }} props
 */
export function Timer({ deadline, label, big }) {
  return html`<span class=${big ? "timer big" : "timer"} data-deadline=${deadline}
    aria-label=${label} />`;
}

/**
 * @typedef {{ name: string, status: string, acting: boolean, me: boolean, host: boolean,
 *   toAct: boolean, deadline: number | null, rating: any }} SeatFacts
 *   One seat as the seat list shows it: status is free | bot | connected | away | unknown
 *   (unknown while the connection is lost); `toAct` shows "to act"; `rating` the seat's
 *   rating at a rated table (rated.js seatRatingOf: {rating, provisional}) or null.
 */

/**
 * One seat of the seat list (li.seat-item, data-seat, data-status).
 * @param {{ seat: number, s: SeatFacts }} props
 */
function SeatItem({ seat, s }) {
  const classes = ["seat-item", s.status, s.acting ? "acting" : "", s.me ? "me" : ""]
    .filter(Boolean).join(" ");
  const said = s.status === "free" ? "" : s.status === "unknown" ? "?" : s.status;
  return html`<li class=${classes} data-seat=${seat} data-status=${s.status}>
    <span class="dot" aria-hidden="true" />
    <span class="seat-name">${s.name}</span>
    ${s.rating ? html`<${SeatRating} rating=${s.rating} />` : null}
    ${s.host ? html`<small class="host">host</small>` : null}
    <span class="seat-status">${said}</span>
    ${s.toAct ? html`<span class="to-act">to act</span>` : null}
    ${s.deadline ? html`<${Timer} deadline=${s.deadline} label=${`time left for ${s.name}`} />`
      : null}
  </li>`;
}

/**
 * The seat list panel ("Seats"), with a note while the connection is lost.
 * @param {{ seats: SeatFacts[], offline: boolean }} props
 */
export function SeatsPanel({ seats, offline }) {
  return html`<section class="panel seats" aria-labelledby="seats-title">
    <h2 id="seats-title">Seats</h2>
    ${offline ? html`<p class="note">Connection lost: reconnecting\u2026</p>` : null}
    <ul>${seats.map((s, i) => html`<${SeatItem} key=${i} seat=${i} s=${s} />`)}</ul>
  </section>`;
}

/**
 * @typedef {{ turn: string, mine: boolean, myDeadline: number | null, code: string | null,
 *   canStart: boolean, watching: boolean, link: { url: string, status: string },
 *   game: string, gameTitle: string, onStart: () => void, onLeave: () => void,
 *   onCopy: () => void }} TurnProps
 */

/**
 * The turn line: whose turn (#turn), the page's own timer, the join code, Start, Leave (or
 * Stop watching), Copy link and How to play.
 * @param {TurnProps} p
 */
export function TurnLine(p) {
  return html`<div class="turn-line">
    <strong id="turn" aria-live="polite" class=${p.mine ? "mine" : ""}>${p.turn}</strong>
    ${p.myDeadline ? html`<${Timer} big=${true} deadline=${p.myDeadline}
      label="your time left" />` : null}
    ${p.code ? html`<span class="code">Join code: <code id="room-code">${p.code}</code></span>`
      : null}
    ${p.canStart ? html`<button type="button" id="start" onClick=${p.onStart}>
      Start game (bots fill empty seats)</button>` : null}
    <button type="button" id="leave" class="secondary" onClick=${p.onLeave}>${
      p.watching ? "Stop watching" : "Leave"}</button>
    <${CopyLink} url=${p.link.url} status=${p.link.status} onCopy=${p.onCopy} />
    <${HelpButton} game=${p.game} title=${p.gameTitle} />
  </div>`;
}

/**
 * A question with a yes and a no (role alertdialog): `id` names the bar, and its parts
 * are `${prefix}-q`, `${prefix}-yes` and `${prefix}-no`.
 * @param {{ id: string, prefix: string, question: string, yes: string, no: string,
 *   onYes: () => void, onNo: () => void }} p
 */
export function Question(p) {
  return html`<div class="confirm" id=${p.id} role="alertdialog"
    aria-labelledby=${`${p.prefix}-q`}>
    <p id=${`${p.prefix}-q`}>${p.question}</p>
    <button type="button" id=${`${p.prefix}-yes`} class="danger" onClick=${p.onYes}>${p.yes}
    </button>
    <button type="button" id=${`${p.prefix}-no`} class="secondary" data-key=${`${p.prefix}-no`}
      onClick=${p.onNo}>${p.no}</button>
  </div>`;
}

/**
 * The game-over panel (#game-over): the outcome, why, Replay (once the game_over message
 * came), Play again, Back to the lobby.
 * @param {{ outcome: string, why: string, canReplay: boolean, onReplay: () => void,
 *   onAgain: () => void, onLobby: () => void }} p
 */
export function GameOverPanel(p) {
  return html`<section class="panel game-over" id="game-over" role="status">
    <h2>Game over</h2>
    <p id="outcome">${p.outcome}</p>
    ${p.why ? html`<p id="outcome-why" class="outcome-why">${p.why}</p>` : null}
    ${p.canReplay ? html`<button type="button" id="replay-open" class="secondary"
      onClick=${p.onReplay}>Replay</button>` : null}
    <button type="button" id="play-again" onClick=${p.onAgain}>Play again</button>
    <button type="button" class="secondary" onClick=${p.onLobby}>Back to the lobby</button>
  </section>`;
}

/** Scroll a list to its end (a ref: called after each render that draws it). */
const toEnd = (/** @type {HTMLElement | null} */ el) => {
  if (el) el.scrollTop = el.scrollHeight;
};

/**
 * The event log panel ("What happened"): `lines` (texts, card codes shown as cards' short
 * text), scrolled to the newest.
 * @param {{ lines: string[] }} props
 */
export function LogPanel({ lines }) {
  return html`<section class="panel" aria-labelledby="log-title">
    <h2 id="log-title">What happened</h2>
    <ol class="log" id="log" aria-live="polite" ref=${(el) => toEnd(el)}>
      ${lines.map((text) => html`<li>${prettyCards(text)}</li>`)}
    </ol>
  </section>`;
}

/**
 * The legal actions the table did not draw, as buttons (ui.button's), or nothing. `others`
 * gives them when called: it is called here, as Preact draws this part, after the table
 * before it (whose components say which actions they drew while they are drawn).
 * @param {{ others: () => any[] }} props
 */
export function OtherActions({ others }) {
  const buttons = others();
  return buttons.length
    ? html`<div class="other-actions" role="group" aria-label="other actions">${buttons}</div>`
    : null;
}

/**
 * @typedef {{ room: string, seat: number | null, stateId: any, mine: boolean, over: boolean,
 *   status: string, turn: TurnProps, error: string, confirm: any, leave: any, gameOver: any,
 *   auction: string | null, table: any, others: () => any[], seats: SeatFacts[], offline: boolean,
 *   solo: boolean, view: any, chat: any, log: string[] }} RoomProps
 *   What RoomView.screenProps gives the screen: `confirm` and `leave` are Question props (or
 *   null), `gameOver` GameOverPanel props (or null), `auction` the auction paragraph
 *   (null: no help shown), `table` what the renderer drew, `chat` ChatPanel props.
 */

/**
 * The table screen (main#room, its data-* the page's facts for tests and CSS): the table
 * area on the left, the seats, spectators, chat and log aside.
 * @param {RoomProps} p
 */
export function RoomScreen(p) {
  return html`<main id="room" class="room" data-room=${p.room} data-seat=${p.seat ?? ""}
    data-state-id=${p.stateId} data-mine=${p.mine ? "1" : "0"} data-over=${p.over ? "1" : "0"}
    data-status=${p.status}>
    <div class="table-area">
      <${TurnLine} ...${p.turn} />
      ${p.error ? html`<p class="error" role="alert" id="act-error">${prettyCards(p.error)}</p>`
        : null}
      ${p.confirm ? html`<${Question} ...${p.confirm} />` : null}
      ${p.leave ? html`<${Question} ...${p.leave} />` : null}
      ${p.gameOver ? html`<${GameOverPanel} ...${p.gameOver} />` : null}
      ${p.auction !== null ? html`<${AuctionHelp} text=${p.auction} />` : null}
      <section class="table" aria-label="table">${embed(p.table)}</section>
      <${OtherActions} others=${p.others} />
    </div>
    <aside>
      <${SeatsPanel} seats=${p.seats} offline=${p.offline} />
      ${p.solo ? null : html`<${SpectatorsPanel} view=${p.view} />`}
      ${p.solo ? null : html`<${ChatPanel} ...${p.chat} />`}
      <${LogPanel} lines=${p.log} />
    </aside>
  </main>`;
}
