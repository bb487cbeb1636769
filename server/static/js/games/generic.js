// @ts-check
// Shared drawing helpers and the fallback renderer for any game: every card (or list of
// cards) in the view is drawn; a card named by legal actions is a button that selects it,
// and the actions that use the selected card are offered next to the table.
import { cardName, isCard, prettyCards, Card } from "../cards.js";
import { html } from "../ui.js";

const STANDARD = new Set([
  "state_id",
  "to_act",
  "over",
  "outcome",
  "legal_actions",
  "room",
  "seat",
  "game",
  "mode",
  "options",
  "rules",
]);

/** "Bob ", "You ": who did an event. */
function whoOf(ev, who) {
  return ev.seat === undefined || ev.seat === null ? "" : `${who(ev.seat)} `;
}

/** An event in words from its fields (cards named), e.g. "seat 0 discard: 5 of diamonds". */
export function describeEvent(ev, who) {
  // The end of a game: the room's game_over message says it in words (describeOutcome).
  if (ev.type === "game_over" || ev.type === "over") return "";
  const verb = String(ev.type || "event").replace(/_/g, " ");
  const parts = [];
  for (const [key, value] of Object.entries(ev)) {
    if (key === "type" || key === "seat") continue;
    parts.push(`${key.replace(/_/g, " ")} ${words(value)}`);
  }
  return `${whoOf(ev, who)}${verb}${parts.length ? ": " + parts.join(", ") : ""}`.trim();
}

/** A value in words: card codes named, lists joined. */
export function words(value) {
  if (Array.isArray(value)) return value.length ? value.map(words).join(", ") : "none";
  if (isCard(value)) return cardName(value);
  if (value === null || value === undefined) return "none";
  if (typeof value === "object")
    return Object.entries(value)
      .map(([k, v]) => `${k} ${words(v)}`)
      .join(", ");
  return String(value).replace(/_/g, " ");
}

/** An action as a button label: "discard 5♦", "hand 1, 16, 21". */
export function describeAction(action) {
  const [verb, ...args] = action;
  const words = args.map((a) => prettyCards(a)).join(" ");
  return `${String(verb).replace(/_/g, " ")}${args.length ? " " + words : ""}`;
}

/** The outcome in words: winner, reason, score(s). */
export function describeOutcome(outcome, who) {
  const parts = [];
  if ("winner" in outcome)
    parts.push(outcome.winner === null ? "nobody won" : `${who(outcome.winner)} won`);
  if (outcome.won !== undefined) parts.push(outcome.won ? "won" : "lost");
  if (outcome.reason) parts.push(`(${String(outcome.reason).replace(/_/g, " ")})`);
  if (outcome.score !== undefined) parts.push(`score ${outcome.score}`);
  if (Array.isArray(outcome.scores)) parts.push(`scores ${outcome.scores.join(", ")}`);
  return parts.join(" ") || words(outcome);
}

/** Legal actions whose arguments include `code`. */
export function actionsWith(legal, code) {
  return legal.filter((a) => a.slice(1).includes(code));
}

/**
 * A card that selects itself when legal actions use it (a focusable toggle button, keyed
 * data-key "c:CODE:WHERE"); otherwise a plain card; a null code is a card back. Props:
 * code, ui (the table's ui), where (its place, for screen readers: "tray 2"), small.
 * @param {{ code: string | null, ui: any, where: string, small?: boolean }} props
 */
export function SelectableCard({ code, ui, where, small }) {
  if (!code) return html`<${Card} faceDown=${true} label=${where} small=${small} />`;
  const usable = actionsWith(ui.legal, code).length > 0;
  const selected = ui.selected === code;
  return html`<${Card} code=${code} where=${where} small=${small} selected=${selected}
    onClick=${usable ? () => ui.select(code) : undefined}
    label=${usable ? (selected ? "selected" : "select") : undefined}
    dataKey=${usable ? `c:${code}:${where}` : undefined} />`;
}

/**
 * The buttons of the actions using the selected card (ui.button: handled) and Cancel, or
 * nothing with no card selected. Props: ui, describe (an action in words; describeAction
 * when left out).
 * @param {{ ui: any, describe?: (action: any[]) => string }} props
 */
export function SelectionBar({ ui, describe = describeAction }) {
  if (!ui.selected) return null;
  const using = actionsWith(ui.legal, ui.selected);
  if (!using.length) return null;
  return html`<div class="selection" role="group"
    aria-label=${`actions with ${cardName(ui.selected)}`}>
    <span>${cardName(ui.selected)}: </span>
    ${using.map((a) => ui.button(a, prettyCards(describe(a))))}
    <button type="button" class="secondary" onClick=${() => ui.select(null)}>Cancel</button>
  </div>`;
}

/**
 * A labelled row of cards (each a SelectableCard; an empty slot when there are none).
 * Props: label, codes (card codes or nulls), ui, where (the cards'
 * place; `label` when left out: "hand 2"), small, id.
 * @param {{ label: string, codes: (string | null)[], ui: any, where?: string,
 *   small?: boolean, id?: string }} props
 */
export function CardRow({ label, codes, ui, where = label, small, id }) {
  const many = codes.length > 1;
  return html`<div class="row" id=${id}>
    <span class="row-label">${label}</span>
    <div class="cards">${codes.length
      ? codes.map((c, i) => html`<${SelectableCard} key=${c ?? `back:${i}`} code=${c} ui=${ui}
          where=${`${where}${many ? ` ${i + 1}` : ""}`} small=${small} />`)
      : html`<span class="card empty" role="img" aria-label=${`${label}: empty`} />`}</div>
  </div>`;
}

function cardsIn(value) {
  if (isCard(value)) return [value];
  if (Array.isArray(value) && value.every((v) => v === null || isCard(v))) return value;
  return null;
}

/** The fallback table (a Preact element, renderers.js): every card field as a row (CardRow),
 * other plain fields as a line of facts, the selected card's actions (SelectionBar). */
export function render(view, ui) {
  const rows = [];
  const facts = [];
  for (const [key, value] of Object.entries(view)) {
    if (STANDARD.has(key) || (key === "hand" && value === null)) continue;
    const name = key.replace(/_/g, " ");
    const cards = cardsIn(value);
    if (cards && cards.length)
      rows.push(html`<${CardRow} key=${key} label=${name} codes=${cards} ui=${ui} />`);
    else if (Array.isArray(value) && value.some((v) => cardsIn(v))) {
      value.forEach((v, i) => {
        const c = cardsIn(v);
        if (c) rows.push(html`<${CardRow} key=${`${key}:${i}`} label=${`${name} ${i + 1}`}
          codes=${c} ui=${ui} />`);
      });
    } else if (value !== null && typeof value !== "object") facts.push(`${name}: ${value}`);
  }
  return html`<div class="generic">
    <p class="facts">${facts.join(" \u00b7 ")}</p>
    ${rows}
    <${SelectionBar} ui=${ui} />
  </div>`;
}

export { cardName, isCard, prettyCards };
