// Shop Solitaire (docs/rules/shop.md): candles, the scales' two sides, trays, ledger,
// shelves with purchases, and the card in play. Select the card in play, then click the
// candle, tray, ledger or shelf (highlighted) it may go to.
import { h, cardElement, cardName, suitName } from "../cards.js";
import {
  describeEvent as genericEvent,
  describeOutcome,
  describeAction as genericAction,
  selectableCard,
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

/** A place a selected card may go to: [verb, card, index] (index undefined: ledger). */
function target(ui, verb, index, content, label) {
  const act = ui.selected
    ? ui.legal.find(
        (a) => a[0] === verb && a[1] === ui.selected && (index === undefined || a[2] === index),
      )
    : null;
  if (!act) return content;
  ui.handled(act);
  const b = h(
    "button",
    {
      type: "button",
      class: "target highlight",
      "data-key": `t:${verb}:${index}`,
      dataset: { target: `${verb}:${index ?? ""}` },
      "aria-label": `${label}: put the ${cardName(ui.selected)} here`,
      onclick: () => ui.act(act),
    },
    content,
  );
  return b;
}

function pile(cards, where) {
  return cards && cards.length
    ? cardElement(cards[cards.length - 1], {
        where: `${where}${cards.length > 1 ? `, ${cards.length} cards` : ""}`,
        small: true,
      })
    : h("span", { class: "card empty small", role: "img", "aria-label": `${where}: empty` });
}

/** A candle: every card of it, overlapping upwards (its height shows: the shortest candle
 * and the five-card limit depend on it), the top card whole. */
function candle(cards, where) {
  if (!cards || !cards.length) return pile(cards, where);
  return h(
    "span",
    { class: "candle", role: "img", "aria-label": `${where}: ${cards.length} high` },
    cards.map((c, k) =>
      cardElement(c, {
        small: true,
        where: k === cards.length - 1 ? `${where}, top card` : `${where}, card ${k + 1}`,
      }),
    ),
  );
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
  return h(
    "div",
    { class: `slot${lit ? " lit" : ""}` },
    target(
      ui,
      "candle",
      i,
      candle(c, `candle ${i + 1}${lit ? " (lit)" : ""}`),
      `candle ${i + 1}`,
    ),
    h(
      "small",
      { class: "height" },
      `${i + 1}${lit ? " lit" : ""} \u00b7 ${height ? `${height} high` : "empty"}`,
    ),
  );
}

/** A shelf: its card (played with a click, or a target to shelve on) and its purchase. */
function shelfSlot(ui, s, k) {
  const play = ui.legal.find((a) => a[0] === "play_shelf" && a[1] === k);
  let card = s.shelf
    ? cardElement(s.shelf, {
        where: `shelf ${k + 1}`,
        small: true,
        onClick: play ? () => ui.act(play) : undefined,
        label: play ? "play it" : undefined,
      })
    : h("span", {
        class: "card empty small",
        role: "img",
        "aria-label": `shelf ${k + 1}: empty`,
      });
  if (play) {
    ui.handled(play);
    card.dataset.key = `shelf:${k}`;
  }
  card = target(ui, "shelve", k, card, `shelf ${k + 1}`);
  const purchase = target(
    ui,
    "purchase",
    k,
    h(
      "span",
      { class: "cards" },
      (s.purchase || []).map((c) =>
        cardElement(c, { small: true, where: `purchase of shelf ${k + 1}` }),
      ),
      (s.purchase || []).length ? null : h("small", {}, "no purchase"),
    ),
    `purchase of shelf ${k + 1}`,
  );
  return h("div", { class: "slot" }, h("small", {}, `shelf ${k + 1}`), card, purchase);
}

/** A short-cut card: lights a candle with a click when it can. */
function lightCard(ui, c) {
  const act = ui.legal.find((a) => a[0] === "light" && a[1] === c);
  if (act) ui.handled(act);
  const el = cardElement(c, {
    where: "short-cut card",
    onClick: act ? () => ui.act(act) : undefined,
    label: act ? "light a candle with it" : undefined,
  });
  if (act) el.dataset.key = `light:${c}`;
  return el;
}

/** A labelled row of the shop (its label, then its content). */
function shopRow(label, content, id) {
  return h("div", { class: "row", id }, h("span", { class: "row-label" }, label), content);
}

export function render(view, ui) {
  const candles = (view.candles || []).map((c, i) => candleSlot(view, ui, c, i));
  const trays = (view.trays || []).map((t, i) =>
    h(
      "div",
      { class: "slot" },
      target(ui, "tray", i, pile(t, `tray ${i + 1}`), `tray ${i + 1}`),
      h("small", {}, `tray ${i + 1}`),
    ),
  );
  const sides = (view.sides || []).map((s, i) =>
    h(
      "span",
      { class: "side" },
      `side ${i + 1}: ${s ? suitName(s) : "empty"}, weight ${(view.weights || [])[i] ?? 0}`,
    ),
  );
  const shelves = (view.shelves || []).map((sh, k) => shelfSlot(ui, sh, k));
  const inPlay = (view.in_play || []).map((c) => selectableCard(c, ui, "in play"));
  // Placing a card is done by selecting it, then a place: not repeated as buttons.
  ui.legal
    .filter((a) => a[0] in PLACES && (view.in_play || []).includes(a[1]))
    .forEach((a) => ui.handled(a));
  const light = (view.shortcut_cards || []).map((c) => lightCard(ui, c));
  const ledger = target(
    ui,
    "ledger",
    undefined,
    h(
      "span",
      { class: "cards" },
      (view.ledger || []).map((c) => cardElement(c, { small: true, where: "ledger" })),
      (view.ledger || []).length ? null : h("small", {}, "empty"),
    ),
    "the ledger",
  );
  return h(
    "div",
    { class: "shop" },
    h(
      "p",
      { class: "facts" },
      [
        PHASE[view.phase] || String(view.phase || "").replace(/_/g, " "),
        `${view.stock_count} cards in the stock`,
        `move ${view.moves} of ${view.max_moves}`,
        `${view.lit_needed} candles to light`,
      ].join(" \u00b7 "),
    ),
    light.length ? shopRow("Short-cut", h("div", { class: "cards" }, light)) : null,
    shopRow("Candles", h("div", { class: "slots" }, candles)),
    shopRow(
      "Scales",
      h("div", { class: "facts sides" }, sides, view.balanced ? " \u2696 balanced" : ""),
    ),
    shopRow("Trays", h("div", { class: "slots" }, trays)),
    shopRow(`Ledger (${view.ledger_suit ? suitName(view.ledger_suit) : "-"})`, ledger),
    shopRow("Shelves", h("div", { class: "slots" }, shelves)),
    shopRow(
      "In play",
      h("div", { class: "cards" }, inPlay.length ? inPlay : h("small", {}, "nothing: draw a card")),
      "in-play",
    ),
    ui.selected
      ? h("p", { class: "note" }, `${cardName(ui.selected)} selected: click a highlighted place.`)
      : null,
  );
}
