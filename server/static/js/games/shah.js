// @ts-check
// The Shah (docs/rules/shah.md): the Shah and its eight foundations, the star of eight
// rays (inner, middle, outer circle), the turned card and the talon. Select an available
// card, then click a highlighted foundation (play) or ray (marry, grace). render() returns a
// Preact element (renderers.js, the renderers' contract).
import { Card, cardName } from "../cards.js";
import { html } from "../ui.js";
import {
  describeEvent as genericEvent,
  describeAction as genericAction,
  SelectableCard,
} from "./generic.js";

const CIRCLES = ["inner", "middle", "outer"];

/** A legal action of The Shah as a button label ("play 5H to foundation 2"). */
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

/** An event of The Shah in words (`who(seat)`: a seat's name). */
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

/** The end of a game of The Shah in words: won or lost, why, cards built. */
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

/** The move of the selected card onto place `index` by one of `verbs`, or null. */
function targetFor(ui, verbs, index) {
  if (!ui.selected) return null;
  return (
    ui.legal.find((a) => verbs.includes(a[0]) && a[1] === ui.selected && a[2] === index) || null
  );
}

/** `el` as it is, or (when `act` moves the selected card there) inside a highlighted target
 * button that makes the move (`act` handled: no plain button for it). */
function wrap(ui, act, el, label) {
  if (!act) return el;
  ui.handled(act);
  return html`<button type="button" class="target highlight" data-key=${`t:${act[0]}:${act[2]}`}
    aria-label=${`${label}: ${describeAction(act).replace(act[1], cardName(act[1]))}`}
    onClick=${() => ui.act(act)}>${el}</button>`;
}

/** An empty place: a card-sized slot named for screen readers. */
function empty(label, small = false) {
  return html`<span class=${small ? "card empty small" : "card empty"} role="img"
    aria-label=${`${label}: empty`} />`;
}

/** A foundation: its top card (or an empty slot), a target when the selection plays there. */
function foundationSlot(view, ui, c, i) {
  const size = (view.foundation_sizes || [])[i];
  const card = c ? html`<${Card} code=${c} small=${true}
      where=${`foundation ${i + 1}, ${size} cards`} />` : empty(`foundation ${i + 1}`, true);
  return html`<div class="slot" key=${`f${i}`}>
    ${wrap(ui, targetFor(ui, ["play"], i), card, `foundation ${i + 1}`)}
    <small>${`${i + 1} (${size ?? 0})`}</small>
  </div>`;
}

/** A card of the star or the talon: selectable when it is available, else shown. */
function pickable(code, ui, available, where, small = false) {
  return available.has(code)
    ? html`<${SelectableCard} code=${code} ui=${ui} where=${where} small=${small} />`
    : html`<${Card} code=${code} where=${where} small=${small} />`;
}

/** A ray of the star: its three circles' piles, the outer one a target to marry or grace. */
function rayElement(ui, available, ray, r) {
  const piles = ray.map((pile, c) => {
    const where = `ray ${r + 1}, ${CIRCLES[c]} circle`;
    const top = pile.length ? pile[pile.length - 1] : null;
    let el = top ? pickable(top, ui, available, where, true) : empty(where, true);
    if (pile.length > 1) {
      el = html`<span class="married">${pile.slice(0, -1).map((x) => html`<${Card} key=${x}
        code=${x} small=${true} where=${`${where}, under`} />`)}${el}</span>`;
    }
    return c === 2 ? wrap(ui, targetFor(ui, ["marry", "grace"], r), el, `ray ${r + 1}`) : el;
  });
  return html`<div class="ray" role="group" aria-label=${`ray ${r + 1}`} key=${`r${r}`}>
    <small class="ray-label">${`ray ${r + 1}`}</small>${piles}</div>`;
}

/**
 * The table of The Shah (a Preact element): the facts line, the Shah with its foundations,
 * the star, the turned card and the talon, and what to do with a selected card.
 * @param {any} view  the player's view (games/shah/rules.py)
 * @param {any} ui  the table's ui (renderers.js)
 */
export function render(view, ui) {
  const available = new Set((view.available || []).map((a) => a[0]));
  // Moves of a card are made by selecting it, then its target: not repeated as buttons.
  ui.legal.filter((a) => ["play", "marry", "grace"].includes(a[0])).forEach((a) => ui.handled(a));
  const foundations = (view.foundations || []).map((c, i) => foundationSlot(view, ui, c, i));
  const rays = (view.star || []).map((ray, r) => rayElement(ui, available, ray, r));
  const talon = view.talon || [];
  const talonTop = talon.length ? talon[talon.length - 1] : null;
  const facts = [
    PHASE[view.phase] || String(view.phase || "").replace(/_/g, " "),
    `${view.stock_count} cards in the pack`,
    `move ${view.moves} of ${view.max_moves}`,
  ].join(" \u00b7 ");
  return html`<div class="shah">
    <p class="facts">${facts}</p>
    <div class="row">
      <span class="row-label">Shah</span>
      <${Card} code=${view.shah} where="the Shah" />
      <div class="slots">${foundations}</div>
    </div>
    <div class="star">${rays}</div>
    <div class="row">
      <span class="row-label">Turned / talon</span>
      ${view.up ? pickable(view.up, ui, available, "turned card") : null}
      ${talonTop ? pickable(talonTop, ui, available,
        available.has(talonTop) ? `talon top, ${talon.length} cards` : "talon top")
        : empty("talon")}
      <small>${`talon ${talon.length}`}</small>
    </div>
    ${ui.selected ? html`<p class="note">${`${cardName(ui.selected)} selected: click a ` +
      "highlighted foundation or ray."}</p>` : null}
  </div>`;
}
