// ShuffleJack (docs/rules/shufflejack.md): the 5 x 5 tableau by position (1..25). Click
// cards to pick the positions of a hand, then "Score hand"; deal and next as buttons.
import { h, cardElement, cardName } from "../cards.js";
import { describeEvent as genericEvent, describeAction as genericAction } from "./generic.js";

export function describeAction(a) {
  const [verb, ...args] = a;
  if (verb === "hand") return `hand at ${args.join(", ")}`;
  if (verb === "deal") return "Deal: close the gaps and fill them";
  if (verb === "next") return "Next round";
  if (verb === "resign") return "Resign";
  return genericAction(a);
}

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

export function render(view, ui) {
  const hands = ui.legal.filter((a) => a[0] === "hand");
  hands.forEach((a) => ui.handled(a));
  const usable = new Set(hands.flatMap((a) => a.slice(1)));
  const locked = new Set(view.locks_active ? view.locked || [] : []);
  const cells = (view.tableau || []).map((c, i) => {
    const pos = i + 1;
    const where = `position ${pos}${locked.has(pos) ? ", locked" : ""}`;
    if (!c)
      return h(
        "span",
        { class: "card empty", role: "img", "aria-label": `${where}: empty` },
        String(pos),
      );
    const picked = ui.marks.includes(pos);
    const el = cardElement(c, {
      where,
      selected: picked,
      onClick: usable.has(pos) ? () => ui.toggle(pos) : undefined,
      label: usable.has(pos) ? (picked ? "picked" : "pick for a hand") : undefined,
    });
    el.dataset.pos = pos;
    if (usable.has(pos)) el.dataset.key = `p:${pos}`;
    return el;
  });
  const chosen = hands.find((a) => same(a.slice(1), ui.marks));
  return h(
    "div",
    { class: "shufflejack" },
    h(
      "p",
      { class: "facts" },
      [
        `round ${view.round}/${view.rounds}`,
        `deck ${view.deck}`,
        `hands ${view.hands}/${view.total_hands}`,
        `cards left ${view.cards_left}`,
        `score ${view.score}`,
      ].join(" \u00b7 "),
    ),
    h(
      "div",
      { class: "tableau", id: "tableau", role: "grid", "aria-label": "tableau, 5 by 5" },
      cells,
    ),
    hands.length
      ? h(
          "div",
          { class: "selection" },
          h(
            "button",
            {
              type: "button",
              id: "score-hand",
              class: "action",
              "data-key": "score-hand",
              disabled: chosen ? undefined : true,
              onclick: () => chosen && ui.act(chosen),
            },
            ui.marks.length ? `Score hand (${ui.marks.length} cards)` : "Pick the cards of a hand",
          ),
          h("small", {}, `${hands.length} hand${hands.length === 1 ? "" : "s"} possible`),
        )
      : null,
  );
}
