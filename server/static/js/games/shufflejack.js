// @ts-check
// ShuffleJack (docs/rules/shufflejack.md): the 5 x 5 tableau by position (1..25). Click
// cards to pick the positions of a hand, then "Score hand"; deal and next as buttons.
// render() returns a Preact element (renderers.js, the renderers' contract).
import { Card, cardName } from "../cards.js";
import { html } from "../ui.js";
import { describeEvent as genericEvent, describeAction as genericAction } from "./generic.js";

/** A legal action of ShuffleJack as a button label ("hand at 1, 2, 3"). */
export function describeAction(a) {
  const [verb, ...args] = a;
  if (verb === "hand") return `hand at ${args.join(", ")}`;
  if (verb === "deal") return "Deal: close the gaps and fill them";
  if (verb === "next") return "Next round";
  if (verb === "resign") return "Resign";
  return genericAction(a);
}

/** An event of ShuffleJack in words (`who(seat)`: a seat's name). */
export function describeEvent(ev, who) {
  switch (ev.type) {
    case "hand":
      return (
        `Scored a hand: ${ev.cards.map(cardName).join(", ")} ` +
        `(positions ${ev.positions.join(", ")}).`
      );
    case "deal":
      return `Dealt ${ev.dealt} card${ev.dealt === 1 ? "" : "s"}; ${ev.deck} left in the deck.`;
    case "round":
      return `Round ${ev.round} begins.`;
    default:
      return genericEvent(ev, who);
  }
}

/** "You lost: resigned in round 1. Score 0." (the engine's reason is words already). */
export function describeOutcome(outcome) {
  const reason = String(outcome.reason || "").replace(/_/g, " ");
  const verdict = outcome.winner === 0 ? "You won" : "You lost";
  const score = outcome.score ?? (outcome.scores || [])[0] ?? 0;
  return `${verdict}${reason ? `: ${reason}` : ""}. Score ${score}.`;
}

const same = (a, b) => a.length === b.length && a.every((x) => b.includes(x));

/** A place of the tableau (`pos` 1..25): its card, picked for a hand with a click when a
 * hand may use it (data-key "p:POS"), or an empty slot showing the position. */
function cell(c, pos, ui, usable, locked) {
  const where = `position ${pos}${locked.has(pos) ? ", locked" : ""}`;
  if (!c) {
    return html`<span key=${`e${pos}`} class="card empty" role="img" data-pos=${pos}
      aria-label=${`${where}: empty`}>${String(pos)}</span>`;
  }
  const picked = ui.marks.includes(pos);
  const can = usable.has(pos);
  return html`<${Card} key=${c} code=${c} where=${where} selected=${picked}
    onClick=${can ? () => ui.toggle(pos) : undefined}
    label=${can ? (picked ? "picked" : "pick for a hand") : undefined}
    dataKey=${can ? `p:${pos}` : undefined} extra=${{ "data-pos": pos }} />`;
}

/** The Score-hand bar (disabled until the picked cards make a hand) and how many hands
 * are possible; nothing without one. */
function handBar(hands, chosen, ui) {
  if (!hands.length) return null;
  const n = ui.marks.length;
  return html`<div class="selection">
    <button type="button" id="score-hand" class="action" data-key="score-hand"
      disabled=${!chosen} onClick=${() => chosen && ui.act(chosen)}>${n
      ? `Score hand (${n} cards)` : "Pick the cards of a hand"}</button>
    <small>${`${hands.length} hand${hands.length === 1 ? "" : "s"} possible`}</small>
  </div>`;
}

/**
 * The table of ShuffleJack (a Preact element): the facts line, the 5 x 5 tableau (cards
 * picked for a hand), the Score-hand bar.
 * @param {any} view  the player's view (games/shufflejack/rules.py)
 * @param {any} ui  the table's ui (renderers.js)
 */
export function render(view, ui) {
  const hands = ui.legal.filter((a) => a[0] === "hand");
  hands.forEach((a) => ui.handled(a));
  const usable = new Set(hands.flatMap((a) => a.slice(1)));
  const locked = new Set(view.locks_active ? view.locked || [] : []);
  const cells = (view.tableau || []).map((c, i) => cell(c, i + 1, ui, usable, locked));
  const chosen = hands.find((a) => same(a.slice(1), ui.marks));
  const facts = [
    `round ${view.round}/${view.rounds}`,
    `deck ${view.deck}`,
    `hands ${view.hands}/${view.total_hands}`,
    `cards left ${view.cards_left}`,
    `score ${view.score}`,
  ].join(" \u00b7 ");
  return html`<div class="shufflejack">
    <p class="facts">${facts}</p>
    <div class="tableau" id="tableau" role="grid" aria-label="tableau, 5 by 5">${cells}</div>
    ${handBar(hands, chosen, ui)}
  </div>`;
}
