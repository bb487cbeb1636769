// @ts-check
// Rules and help: the "How to play" panel of each game (the server's /rules/GAME.html, which
// is docs/rules/GAME.md rendered: one text for the repository and the players), the auction
// explained where you bid (its paragraph of the same page), and every end of a game said in
// words with its reason, from the engine's outcome and events (docs/rules, RULINGS ids).
import { suitName } from "./cards.js";
import { html, render } from "./ui.js";

const pages = new Map(); // game -> Promise of the rules page's HTML ("" when it has none)

/** The rules page of `game` as HTML (fetched once per page). */
export function rulesOf(game) {
  if (!pages.has(game)) {
    const page = fetch(`/rules/${encodeURIComponent(game)}.html`)
      .then((r) => (r.ok ? r.text() : ""))
      .catch(() => "");
    pages.set(game, page);
  }
  return pages.get(game);
}

/** The rules page as a detached element (the server renders it with raw HTML off). */
async function rulesElement(game) {
  const page = await rulesOf(game);
  const doc = new DOMParser().parseFromString(`<div>${page}</div>`, "text/html");
  return doc.body.firstElementChild;
}

/**
 * A "How to play" button that opens the game's rules in a dialog (openRules).
 * @param {{ game: string, title: string }} props
 */
export function HelpButton({ game, title }) {
  return html`<button type="button" class="secondary help" id="how-to-play"
    data-key="how-to-play" onClick=${() => openRules(game, title)}>How to play</button>`;
}

/**
 * The rules dialog (dialog#rules): the title, Close, and the rules page (`page`: the
 * server's HTML of docs/rules/GAME.md, rendered with raw HTML off; "" when the game has
 * none). `onClose` runs once the dialog closed (Escape or Close).
 * @param {{ title: string, page: string, onClose: () => void }} props
 */
export function RulesDialog({ title, page, onClose }) {
  /** @param {Event} e */
  const close = (e) => {
    const dialog = /** @type {HTMLElement} */ (e.currentTarget).closest("dialog");
    if (dialog) dialog.close();
  };
  return html`<dialog class="rules" id="rules" aria-labelledby="rules-title" onClose=${onClose}>
    <div class="rules-head"><h2 id="rules-title">${`How to play ${title}`}</h2><button
      type="button" id="rules-close" autofocus onClick=${close}>Close</button></div>
    ${page ? html`<div class="rules-body" dangerouslySetInnerHTML=${{ __html: page }} />`
      : html`<div class="rules-body"><p>No rules page for this game.</p></div>`}
  </dialog>`;
}

/** Show the rules of `game` in a modal dialog (Escape or "Close" shut it and take it off
 * the page). */
export async function openRules(game, title) {
  const page = await rulesOf(game);
  const host = document.createElement("div");
  document.body.append(host);
  const onClose = () => {
    render(null, host);
    host.remove();
  };
  render(html`<${RulesDialog} title=${title} page=${page} onClose=${onClose} />`, host);
  const dialog = host.querySelector("dialog");
  if (dialog) dialog.showModal();
}

let auction = null; // the auction paragraph's text: a Promise, fetched once per page

/** The auction explained: the text of the rules page's paragraph that begins "In an
 * auction" (Skipper's), "" when there is none. Fetched once per page. */
export function auctionText() {
  if (!auction) {
    auction = rulesElement("skipper").then((page) => {
      const item = page && [...page.querySelectorAll("li")].find((li) =>
        (li.textContent || "").trim().startsWith("In an auction"));
      return item ? (item.textContent || "").replace(/\s+/g, " ").trim() : "";
    });
  }
  return auction;
}

/**
 * The auction explained, for the place where a player bids (details#auction-help; it stays
 * open across renders: Preact keeps the element). `text`: auctionText()'s, "" until it came.
 * @param {{ text: string }} props
 */
export function AuctionHelp({ text }) {
  return html`<details class="auction-help" id="auction-help">
    <summary>How does an auction work?</summary>
    ${text ? html`<p>${text}</p>` : null}
  </details>`;
}

const SKIPPER_WHY = {
  gone: (stack) =>
    `every card that could finish ${suitName(stack)} is gone, so ${suitName(stack)} can never finish`,
  unreachable: (stack) =>
    `no card that could finish ${suitName(stack)} can be reached any more, so ${suitName(stack)} can never finish`,
  cards: () => "too few cards are left to finish every stack",
};

/** Why a Skipper seat went out, from its `unwinnable` event (K7, K14). */
export function unwinnableText(event) {
  const why = SKIPPER_WHY[event.why];
  return why ? why(event.stack) : "the position can no longer be won";
}

/**
 * The end of the game said for the page's seat, with its reason: "You lost: every card
 * that could finish hearts is gone, so hearts can never finish". `events` are the room's
 * last events (the ones that ended it); `outcome` the engine's outcome.
 */
export function explainEnd(game, outcome, seat, events = [], name = (s) => `seat ${s}`) {
  if (!outcome) return "";
  const reason = String(outcome.reason ?? "");
  const you = seat !== null && seat !== undefined;
  const won = outcome.winner !== null && outcome.winner !== undefined;
  const mine = won && you && outcome.winner === seat;
  const solo = (outcome.scores || []).length === 1;
  const verdict = won
    ? mine
      ? "You won"
      : you
        ? `You lost, ${name(outcome.winner)} won`
        : `${name(outcome.winner)} won`
    : you && solo
      ? "You lost"
      : "Nobody won";
  const out = events.filter((e) => e && e.type === "unwinnable");
  const ownOut = out.find((e) => e.seat === seat) || (seat === null ? out[0] : undefined);
  let why;
  if (game === "skipper") {
    why = {
      won: "all four stacks are complete",
      completed: mine ? "you completed all four stacks first" : `${name(outcome.winner)} completed all four stacks first`,
      last_standing: mine ? "everyone else is out of the game" : "every other player is out of the game",
      turn_limit: "the turn limit was reached (K7)",
      all_out: "every player is out of the game",
      resigned: you ? "you resigned" : "the game was resigned",
      unwinnable: ownOut ? `${unwinnableText(ownOut)} (K7)` : "no seat can finish any more (K7)",
    }[reason];
  }
  if (why === undefined) why = reason.replace(/_/g, " ");
  return why ? `${verdict}: ${why}.` : `${verdict}.`;
}

/** Words for a seat event, the timeout's reason included (a timer ran out). */
export function timeoutText(name) {
  return `${name} ran out of time: the server played the default move for them.`;
}
