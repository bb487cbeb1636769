// Thirty-Six (docs/rules/thirtysix.md): the two ENEMY cards against the player's row.
// Click row cards to pick them, then "Commit"; take and surrender by clicking the card.
import { h, cardElement, cardName } from "../cards.js";
import { describeEvent as genericEvent, describeAction as genericAction } from "./generic.js";

export function describeAction(a) {
  const [verb, ...cards] = a;
  if (verb === "commit")
    return cards.length ? `commit ${cards.join(" ")}` : "Commit nothing (concede the turn)";
  if (verb === "take") return `take ${cards.join(" ")} into your collection`;
  if (verb === "surrender") return `give ${cards.join(" ")} to the ENEMY`;
  if (verb === "resign") return "Resign";
  return genericAction(a);
}

export function describeEvent(ev, who) {
  switch (ev.type) {
    case "reveal":
      return (
        `Turn ${ev.turn}: the ENEMY shows ${ev.cards.map(cardName).join(" and ")} ` +
        `(total ${ev.enemy_total}).`
      );
    case "take":
      return (
        `Took ${cardName(ev.card)}` +
        (ev.to_enemy && ev.to_enemy.length
          ? `; the ENEMY takes ${ev.to_enemy.map(cardName).join(", ")}`
          : "") +
        "."
      );
    case "surrender":
      return `Gave ${cardName(ev.card)} to the ENEMY.`;
    case "commit": {
      const cards = ev.cards && ev.cards.length ? ev.cards.map(cardName).join(", ") : "nothing";
      const result = { won: "won", lost: "lost", tie: "tied" }[ev.result] || ev.result;
      return (
        `Committed ${cards} (total ${ev.total}) against the ENEMY's ${ev.enemy_total}: ` +
        `${result}.`
      );
    }
    case "draw":
      return `Drew ${ev.count} card${ev.count === 1 ? "" : "s"}.`;
    default:
      return genericEvent(ev, who);
  }
}

/** "You won: scored 40 points, more than 36." (the engine's reason is words already). */
export function describeOutcome(outcome) {
  const reason = String(outcome.reason || "").replace(/_/g, " ");
  const verdict = outcome.winner === 0 ? "You won" : "You lost";
  const score = outcome.score ?? (outcome.scores || [])[0];
  return reason ? `${verdict}: ${reason}.` : `${verdict} with ${score ?? 0} points.`;
}

/** What the player does in each phase (the view's `phase`). */
const PHASE = { commit: "commit cards", take: "take or give a card", over: "game over" };

const same = (a, b) => a.length === b.length && a.every((x) => b.includes(x));

/** A card of the row: taken or given with a click (take, surrender), picked for a commit,
 * or shown only. */
function rowCard(view, c, i, ui, committable) {
  const legal = ui.legal;
  const direct = legal.find((a) => (a[0] === "take" || a[0] === "surrender") && a[1] === c);
  if (direct) {
    ui.handled(direct);
    const el = cardElement(c, {
      where: `row ${i + 1}`,
      label: describeAction(direct).replace(c, "it"),
      highlight: true,
      onClick: () => ui.act(direct),
    });
    el.dataset.key = `r:${c}`;
    return el;
  }
  const picked = ui.marks.includes(c);
  const el = cardElement(c, {
    where: `row ${i + 1}${(view.committed || []).includes(c) ? ", committed" : ""}`,
    selected: picked,
    onClick: committable.has(c) ? () => ui.toggle(c) : undefined,
    label: committable.has(c) ? (picked ? "picked" : "pick to commit") : undefined,
  });
  if (committable.has(c)) el.dataset.key = `r:${c}`;
  return el;
}

/** The Commit button of the cards picked (disabled while no commit has them). */
function commitButton(commits, chosen, ui) {
  return commits.length
    ? h(
        "button",
        {
          type: "button",
          id: "commit",
          class: "action",
          "data-key": "commit",
          disabled: chosen ? undefined : true,
          onclick: () => chosen && ui.act(chosen),
        },
        ui.marks.length
          ? `Commit ${ui.marks.length} card${ui.marks.length === 1 ? "" : "s"}`
          : "Commit nothing (concede)",
      )
    : null;
}

/** The ENEMY's row: its show of strength (with its total) and its stacks. */
function enemyRow(view) {
  return h(
      "div",
      { class: "row" },
      h(
        "span",
        { class: "row-label" },
        view.enemy_total === null || view.enemy_total === undefined
          ? "ENEMY"
          : `ENEMY (${view.enemy_total})`,
      ),
      h(
        "div",
        { class: "cards" },
        (view.enemy || []).map((c) => cardElement(c, { where: "ENEMY card" })),
      ),
      h("small", {}, `stacks ${(view.enemy_stacks || []).join(" / ")}`),
    );
}

/** The two collections: the player's and the ENEMY's. */
function collections(view) {
  return [
    h(
      "div",
      { class: "row" },
      h("span", { class: "row-label" }, "Your collection"),
      h(
        "div",
        { class: "cards" },
        (view.collection || []).map((c) =>
          cardElement(c, { small: true, where: "your collection" }),
        ),
      ),
    ),
    h(
      "div",
      { class: "row" },
      h("span", { class: "row-label" }, "ENEMY collection"),
      h(
        "div",
        { class: "cards" },
        (view.enemy_collection || []).map((c) =>
          cardElement(c, { small: true, where: "ENEMY collection" }),
        ),
      ),
    ),
  ];
}

export function render(view, ui) {
  const legal = ui.legal;
  const commits = legal.filter((a) => a[0] === "commit");
  commits.forEach((a) => ui.handled(a));
  const committable = new Set(commits.flatMap((a) => a.slice(1)));
  const row = (view.row || []).map((c, i) => rowCard(view, c, i, ui, committable));
  const chosen = commits.find((a) => same(a.slice(1), ui.marks));
  const commit = commitButton(commits, chosen, ui);
  return h(
    "div",
    { class: "thirtysix" },
    h(
      "p",
      { class: "facts" },
      [
        `turn ${view.turn} of ${view.turns}`,
        PHASE[view.phase] || String(view.phase || "").replace(/_/g, " "),
        `score ${view.score} (${view.target + 1} to win)`,
        `${view.player_stack} cards in your stack`,
      ].join(" \u00b7 "),
    ),
    enemyRow(view),
    h(
      "div",
      { class: "row", id: "row" },
      h("span", { class: "row-label" }, "Your row"),
      h("div", { class: "cards" }, row),
    ),
    commit
      ? h(
          "div",
          { class: "selection" },
          commit,
          ui.marks.length && !chosen ? h("small", {}, "this set cannot be committed") : null,
        )
      : null,
    collections(view),
  );
}
