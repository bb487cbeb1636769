// @ts-check
// Thirty-Six (docs/rules/thirtysix.md): the two ENEMY cards against the player's row.
// Click row cards to pick them, then "Commit"; take and surrender by clicking the card.
// render() returns a Preact element (renderers.js, the renderers' contract).
import { Card, cardName } from "../cards.js";
import { html } from "../ui.js";
import { describeEvent as genericEvent, describeAction as genericAction } from "./generic.js";

/** A legal action of Thirty-Six as a button label ("commit 5H QD"). */
export function describeAction(a) {
  const [verb, ...cards] = a;
  if (verb === "commit")
    return cards.length ? `commit ${cards.join(" ")}` : "Commit nothing (concede the turn)";
  if (verb === "take") return `take ${cards.join(" ")} into your collection`;
  if (verb === "surrender") return `give ${cards.join(" ")} to the ENEMY`;
  if (verb === "resign") return "Resign";
  return genericAction(a);
}

/** An event of Thirty-Six in words (`who(seat)`: a seat's name). */
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

/** A card of the row: taken or given with a click (take, surrender: handled), picked for a
 * commit (data-key "r:CODE"), or shown only. */
function rowCard(view, c, i, ui, committable) {
  const direct = ui.legal.find((a) => (a[0] === "take" || a[0] === "surrender") && a[1] === c);
  if (direct) {
    ui.handled(direct);
    return html`<${Card} key=${c} code=${c} where=${`row ${i + 1}`} highlight=${true}
      label=${describeAction(direct).replace(c, "it")} onClick=${() => ui.act(direct)}
      dataKey=${`r:${c}`} />`;
  }
  const picked = ui.marks.includes(c);
  const can = committable.has(c);
  return html`<${Card} key=${c} code=${c} selected=${picked}
    where=${`row ${i + 1}${(view.committed || []).includes(c) ? ", committed" : ""}`}
    onClick=${can ? () => ui.toggle(c) : undefined}
    label=${can ? (picked ? "picked" : "pick to commit") : undefined}
    dataKey=${can ? `r:${c}` : undefined} />`;
}

/** The Commit bar: the button of the cards picked (disabled while no commit has them) and
 * why when the set cannot be committed; nothing without a commit to make. */
function commitBar(commits, chosen, ui) {
  if (!commits.length) return null;
  const n = ui.marks.length;
  return html`<div class="selection">
    <button type="button" id="commit" class="action" data-key="commit" disabled=${!chosen}
      onClick=${() => chosen && ui.act(chosen)}>${n
      ? `Commit ${n} card${n === 1 ? "" : "s"}` : "Commit nothing (concede)"}</button>
    ${n && !chosen ? html`<small>this set cannot be committed</small>` : null}
  </div>`;
}

/** A labelled row of cards shown only (`small`, each named `where`), `id` when given. */
function shownRow(label, codes, where, small, id = undefined) {
  return html`<div class="row" id=${id}>
    <span class="row-label">${label}</span>
    <div class="cards">${codes.map((c, i) => html`<${Card} key=${c ?? i} code=${c}
      small=${small} where=${where} />`)}</div>
  </div>`;
}

/** The ENEMY's row: its show of strength (with its total) and its stacks. */
function enemyRow(view) {
  const total = view.enemy_total === null || view.enemy_total === undefined
    ? "ENEMY" : `ENEMY (${view.enemy_total})`;
  return html`<div class="row">
    <span class="row-label">${total}</span>
    <div class="cards">${(view.enemy || []).map((c) => html`<${Card} key=${c} code=${c}
      where="ENEMY card" />`)}</div>
    <small>${`stacks ${(view.enemy_stacks || []).join(" / ")}`}</small>
  </div>`;
}

/**
 * The table of Thirty-Six (a Preact element): the facts line, the ENEMY's row, the
 * player's row (cards to pick, take or give), the Commit bar, the two collections.
 * @param {any} view  the player's view (games/thirtysix/rules.py)
 * @param {any} ui  the table's ui (renderers.js)
 */
export function render(view, ui) {
  const commits = ui.legal.filter((a) => a[0] === "commit");
  commits.forEach((a) => ui.handled(a));
  const committable = new Set(commits.flatMap((a) => a.slice(1)));
  const row = (view.row || []).map((c, i) => rowCard(view, c, i, ui, committable));
  const chosen = commits.find((a) => same(a.slice(1), ui.marks));
  const facts = [
    `turn ${view.turn} of ${view.turns}`,
    PHASE[view.phase] || String(view.phase || "").replace(/_/g, " "),
    `score ${view.score} (${view.target + 1} to win)`,
    `${view.player_stack} cards in your stack`,
  ].join(" \u00b7 ");
  return html`<div class="thirtysix">
    <p class="facts">${facts}</p>
    ${enemyRow(view)}
    <div class="row" id="row">
      <span class="row-label">Your row</span>
      <div class="cards">${row}</div>
    </div>
    ${commitBar(commits, chosen, ui)}
    ${shownRow("Your collection", view.collection || [], "your collection", true)}
    ${shownRow("ENEMY collection", view.enemy_collection || [], "ENEMY collection", true)}
  </div>`;
}
