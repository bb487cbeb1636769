// The Shah (docs/rules/shah.md): the Shah and its eight foundations, the star of eight
// rays (inner, middle, outer circle), the turned card and the talon. Select an available
// card, then click a highlighted foundation (play) or ray (marry, grace).
import { h, cardElement, cardName } from "../cards.js";
import {
  describeEvent as genericEvent,
  describeAction as genericAction,
  selectableCard,
} from "./generic.js";

const CIRCLES = ["inner", "middle", "outer"];

export function describeAction(a) {
  const [verb, x, y] = a;
  switch (verb) {
    case "deal":
      return "Deal the next circle";
    case "play":
      return `play ${x} to foundation ${y + 1}`;
    case "marry":
      return `marry ${x} onto ray ${y + 1}`;
    case "grace":
      return `grace: move ${x} into the empty ray ${y + 1}`;
    case "fill":
      return `Refill the next place from the ${x}`;
    case "turn":
      return "Turn the next card of the pack";
    case "resign":
      return "Resign";
    default:
      return genericAction(a);
  }
}

export function describeEvent(ev, who) {
  switch (ev.type) {
    case "play":
      return `Played ${cardName(ev.card)} to foundation ${ev.foundation + 1}.`;
    case "marry":
      return `Married ${cardName(ev.card)} onto ray ${ev.ray + 1}.`;
    case "grace":
      return `Moved ${cardName(ev.card)} into the empty ray ${ev.ray + 1}.`;
    case "turn":
      return ev.card ? `Turned ${cardName(ev.card)}.` : "Turned the pack.";
    case "fill":
      return (
        `Filled ray ${ev.ray + 1}, ${CIRCLES[ev.circle] || ev.circle} circle, ` +
        `with ${cardName(ev.card)}.`
      );
    default:
      return genericEvent(ev, who);
  }
}

export function describeOutcome(outcome) {
  const reason = String(outcome.reason || "").replace(/_/g, " ");
  const built = outcome.scores ? `, built ${outcome.scores}` : "";
  return `${outcome.winner === 0 ? "You won" : "You lost"} (${reason})${built}.`;
}

/** What the player does in each phase (the view's `phase`: games/shah/rules.py). */
const PHASE = {
  deal: "Deal: play dealt cards to the foundations, or deal the next circle",
  play: "Play",
  refill: "Refill the vacancies",
  grace: "Refill the emptied ray",
  over: "Game over",
};

function targetFor(ui, verbs, index) {
  if (!ui.selected) return null;
  return (
    ui.legal.find((a) => verbs.includes(a[0]) && a[1] === ui.selected && a[2] === index) || null
  );
}

function wrap(ui, act, el, label) {
  if (!act) return el;
  ui.handled(act);
  return h(
    "button",
    {
      type: "button",
      class: "target highlight",
      "data-key": `t:${act[0]}:${act[2]}`,
      "aria-label": `${label}: ${describeAction(act).replace(act[1], cardName(act[1]))}`,
      onclick: () => ui.act(act),
    },
    el,
  );
}

/** A foundation: its top card (or an empty slot), a target when the selection plays there. */
function foundationSlot(view, ui, c, i) {
  return h(
    "div",
    { class: "slot" },
    wrap(
      ui,
      targetFor(ui, ["play"], i),
      c
        ? cardElement(c, {
            small: true,
            where: `foundation ${i + 1}, ${(view.foundation_sizes || [])[i]} cards`,
          })
        : h("span", {
            class: "card empty small",
            role: "img",
            "aria-label": `foundation ${i + 1}: empty`,
          }),
      `foundation ${i + 1}`,
    ),
    h("small", {}, `${i + 1} (${(view.foundation_sizes || [])[i] ?? 0})`),
  );
}

/** A ray of the star: its three circles' piles, the outer one a target to marry or grace. */
function rayElement(ui, available, ray, r) {
  return h(
    "div",
    { class: "ray", role: "group", "aria-label": `ray ${r + 1}` },
    h("small", { class: "ray-label" }, `ray ${r + 1}`),
    ray.map((pile, c) => {
      const where = `ray ${r + 1}, ${CIRCLES[c]} circle`;
      const top = pile.length ? pile[pile.length - 1] : null;
      let el = top
        ? available.has(top)
          ? selectableCard(top, ui, where, { small: true })
          : cardElement(top, { small: true, where })
        : h("span", { class: "card empty small", role: "img", "aria-label": `${where}: empty` });
      if (pile.length > 1)
        el = h(
          "span",
          { class: "married" },
          pile.slice(0, -1).map((x) => cardElement(x, { small: true, where: `${where}, under` })),
          el,
        );
      if (c === 2) el = wrap(ui, targetFor(ui, ["marry", "grace"], r), el, `ray ${r + 1}`);
      return el;
    }),
  );
}

export function render(view, ui) {
  const available = new Set((view.available || []).map((a) => a[0]));
  // Moves of a card are made by selecting it, then its target: not repeated as buttons.
  ui.legal.filter((a) => ["play", "marry", "grace"].includes(a[0])).forEach((a) => ui.handled(a));
  const foundations = (view.foundations || []).map((c, i) => foundationSlot(view, ui, c, i));
  const rays = (view.star || []).map((ray, r) => rayElement(ui, available, ray, r));
  const talon = view.talon || [];
  const talonTop = talon.length ? talon[talon.length - 1] : null;
  return h(
    "div",
    { class: "shah" },
    h(
      "p",
      { class: "facts" },
      [
        PHASE[view.phase] || String(view.phase || "").replace(/_/g, " "),
        `${view.stock_count} cards in the pack`,
        `move ${view.moves} of ${view.max_moves}`,
      ].join(" \u00b7 "),
    ),
    h(
      "div",
      { class: "row" },
      h("span", { class: "row-label" }, "Shah"),
      cardElement(view.shah, { where: "the Shah" }),
      h("div", { class: "slots" }, foundations),
    ),
    h("div", { class: "star" }, rays),
    h(
      "div",
      { class: "row" },
      h("span", { class: "row-label" }, "Turned / talon"),
      view.up
        ? available.has(view.up)
          ? selectableCard(view.up, ui, "turned card")
          : cardElement(view.up, { where: "turned card" })
        : null,
      talonTop
        ? available.has(talonTop)
          ? selectableCard(talonTop, ui, `talon top, ${talon.length} cards`)
          : cardElement(talonTop, { where: "talon top" })
        : h("span", { class: "card empty", role: "img", "aria-label": "talon: empty" }),
      h("small", {}, `talon ${talon.length}`),
    ),
    ui.selected
      ? h(
          "p",
          { class: "note" },
          `${cardName(ui.selected)} selected: click a highlighted foundation or ray.`,
        )
      : null,
  );
}
