// @ts-check
// Shop Solitaire (docs/rules/shop.md): candles, the scales' two sides, trays, ledger,
// shelves with purchases, and the card in play. Select the card in play, then click the
// candle, tray, ledger or shelf (highlighted) it may go to.
import { cardName, suitName, Card } from "../cards.js";
import { html } from "../ui.js";
import {
  describeEvent as genericEvent,
  describeOutcome,
  describeAction as genericAction,
  SelectableCard,
} from "./generic.js";

export { describeOutcome };

const PLACES = {
  candle: "candle",
  tray: "tray",
  ledger: "the ledger",
  shelve: "shelf",
  purchase: "the purchase of shelf",
};

export function describeAction(a) {
  const [verb, x, y] = a;
  switch (verb) {
    case "light":
      return `light a candle with ${x}`;
    case "no_shortcut":
      return "play without the short-cut";
    case "draw":
      return "Draw the next card";
    case "candle":
      return `put ${x} on candle ${y + 1}`;
    case "tray":
      return `put ${x} on tray ${y + 1}`;
    case "ledger":
      return `enter ${x} in the ledger`;
    case "shelve":
      return `shelve ${x} on shelf ${y + 1}`;
    case "purchase":
      return `reserve ${x} in the purchase of shelf ${y + 1}`;
    case "trim":
      return `trim candle ${x + 1}`;
    case "recalibrate":
      return "recalibrate the scales";
    case "scrap":
      return "scrap the ledger";
    case "play_shelf":
      return `play the card on shelf ${x + 1}`;
    case "play_purchase":
      return `play the purchase of shelf ${x + 1}`;
    case "close_shop":
      return "close shop (give up)";
    default:
      return genericAction(a);
  }
}

export function describeEvent(ev, who) {
  switch (ev.type) {
    case "draw":
      return `Drew ${cardName(ev.card)}.`;
    case "place":
      return (
        `Put ${cardName(ev.card)} on ${PLACES[ev.to] || ev.to}` +
        `${ev.index !== undefined ? ` ${ev.index + 1}` : ""}.`
      );
    case "light":
      return `Lit candle ${ev.candle + 1} with ${cardName(ev.card)}.`;
    default:
      return genericEvent(ev, who);
  }
}

/** A place a selected card may go to: [verb, card, index] (index undefined: ledger); a
 * highlighted button around `content` when the selected card may go there, else `content`. */
function target(ui, verb, index, content, label) {
  const act = ui.selected
    ? ui.legal.find(
        (a) => a[0] === verb && a[1] === ui.selected && (index === undefined || a[2] === index),
      )
    : null;
  if (!act) return content;
  ui.handled(act);
  return html`<button type="button" class="target highlight" data-key=${`t:${verb}:${index}`}
    data-target=${`${verb}:${index ?? ""}`}
    aria-label=${`${label}: put the ${cardName(ui.selected)} here`}
    onClick=${() => ui.act(act)}>${content}</button>`;
}

/** The top card of a pile (its count in words), or an empty slot. */
function pile(cards, where) {
  return cards && cards.length
    ? html`<${Card} code=${cards[cards.length - 1]} small=${true}
        where=${`${where}${cards.length > 1 ? `, ${cards.length} cards` : ""}`} />`
    : html`<span class="card empty small" role="img" aria-label=${`${where}: empty`} />`;
}

/** A candle: every card of it, overlapping upwards (its height shows: the shortest candle
 * and the five-card limit depend on it), the top card whole. */
function candle(cards, where) {
  if (!cards || !cards.length) return pile(cards, where);
  return html`<span class="candle" role="img" aria-label=${`${where}: ${cards.length} high`}>${
    cards.map((c, k) => html`<${Card} key=${c} code=${c} small=${true}
      where=${k === cards.length - 1 ? `${where}, top card` : `${where}, card ${k + 1}`} />`)
  }</span>`;
}

/** What the player does in each phase (the view's `phase`). */
const PHASE = {
  shortcut: "Short-cut: pick red cards to light candles",
  play: "Play",
  over: "Game over",
};

/** A candle's slot: the candle (a target when the selection goes there) and its height. */
function candleSlot(view, ui, c, i) {
  const lit = view.lit && view.lit[i];
  const height = (c || []).length;
  return html`<div key=${i} class=${`slot${lit ? " lit" : ""}`}>
    ${target(ui, "candle", i, candle(c, `candle ${i + 1}${lit ? " (lit)" : ""}`),
      `candle ${i + 1}`)}
    <small class="height">${
      `${i + 1}${lit ? " lit" : ""} \u00b7 ${height ? `${height} high` : "empty"}`}</small>
  </div>`;
}

/** A shelf: its card (played with a click, or a target to shelve on) and its purchase. */
function shelfSlot(ui, s, k) {
  const play = ui.legal.find((a) => a[0] === "play_shelf" && a[1] === k);
  if (play) ui.handled(play);
  const card = s.shelf
    ? html`<${Card} code=${s.shelf} where=${`shelf ${k + 1}`} small=${true}
        onClick=${play ? () => ui.act(play) : undefined} label=${play ? "play it" : undefined}
        dataKey=${play ? `shelf:${k}` : undefined} />`
    : html`<span class="card empty small" role="img" aria-label=${`shelf ${k + 1}: empty`} />`;
  const bought = s.purchase || [];
  const purchase = html`<span class="cards">${bought.map((c) => html`<${Card} key=${c} code=${c}
    small=${true} where=${`purchase of shelf ${k + 1}`} />`)}${bought.length ? null
    : html`<small>no purchase</small>`}</span>`;
  return html`<div key=${k} class="slot"><small>${`shelf ${k + 1}`}</small>${
    target(ui, "shelve", k, card, `shelf ${k + 1}`)}${
    target(ui, "purchase", k, purchase, `purchase of shelf ${k + 1}`)}</div>`;
}

/** A short-cut card: lights a candle with a click when it can. */
function lightCard(ui, c) {
  const act = ui.legal.find((a) => a[0] === "light" && a[1] === c);
  if (act) ui.handled(act);
  return html`<${Card} key=${c} code=${c} where="short-cut card"
    onClick=${act ? () => ui.act(act) : undefined}
    label=${act ? "light a candle with it" : undefined} dataKey=${act ? `light:${c}` : undefined}
  />`;
}

/** A labelled row of the shop (its label, then its content). */
function shopRow(label, content, id) {
  return html`<div class="row" id=${id}><span class="row-label">${label}</span>${content}</div>`;
}

/** The shop's status line: the phase, the stock, the moves, the candles to light. */
function facts(view) {
  return [
    PHASE[view.phase] || String(view.phase || "").replace(/_/g, " "),
    `${view.stock_count} cards in the stock`,
    `move ${view.moves} of ${view.max_moves}`,
    `${view.lit_needed} candles to light`,
  ].join(" \u00b7 ");
}

/** The rows of the table that take no action: the scales and the ledger's cards. */
function scales(view) {
  const sides = (view.sides || []).map((s, i) => html`<span class="side">${
    `side ${i + 1}: ${s ? suitName(s) : "empty"}, weight ${(view.weights || [])[i] ?? 0}`
  }</span>`);
  return html`<div class="facts sides">${sides}${view.balanced ? " \u2696 balanced" : ""}</div>`;
}

/** The Shop table (a Preact element, renderers.js): the short-cut cards, candles, scales,
 * trays, ledger, shelves and the card in play; a selected card's places are highlighted. */
export function render(view, ui) {
  const candles = (view.candles || []).map((c, i) => candleSlot(view, ui, c, i));
  const trays = (view.trays || []).map((t, i) => html`<div key=${i} class="slot">${
    target(ui, "tray", i, pile(t, `tray ${i + 1}`), `tray ${i + 1}`)}<small>${
    `tray ${i + 1}`}</small></div>`);
  const shelves = (view.shelves || []).map((sh, k) => shelfSlot(ui, sh, k));
  const inPlay = (view.in_play || []).map((c) => html`<${SelectableCard} key=${c} code=${c}
    ui=${ui} where="in play" />`);
  // Placing a card is done by selecting it, then a place: not repeated as buttons.
  ui.legal
    .filter((a) => a[0] in PLACES && (view.in_play || []).includes(a[1]))
    .forEach((a) => ui.handled(a));
  const light = (view.shortcut_cards || []).map((c) => lightCard(ui, c));
  const ledgerCards = view.ledger || [];
  const ledger = target(ui, "ledger", undefined, html`<span class="cards">${ledgerCards.map(
    (c) => html`<${Card} key=${c} code=${c} small=${true} where="ledger" />`)}${
    ledgerCards.length ? null : html`<small>empty</small>`}</span>`, "the ledger");
  return html`<div class="shop">
    <p class="facts">${facts(view)}</p>
    ${light.length ? shopRow("Short-cut", html`<div class="cards">${light}</div>`) : null}
    ${shopRow("Candles", html`<div class="slots">${candles}</div>`)}
    ${shopRow("Scales", scales(view))}
    ${shopRow("Trays", html`<div class="slots">${trays}</div>`)}
    ${shopRow(`Ledger (${view.ledger_suit ? suitName(view.ledger_suit) : "-"})`, ledger)}
    ${shopRow("Shelves", html`<div class="slots">${shelves}</div>`)}
    ${shopRow("In play", html`<div class="cards">${inPlay.length ? inPlay
      : html`<small>nothing: draw a card</small>`}</div>`, "in-play")}
    ${ui.selected ? html`<p class="note">${
      `${cardName(ui.selected)} selected: click a highlighted place.`}</p>` : null}
  </div>`;
}
