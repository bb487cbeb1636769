// @ts-check
// Card codes (protocol/README.md "Card codes") drawn as CSS cards, with words for screen
// readers: "8D1" -> a red "8♦" card labelled "8 of diamonds, deck 1": Preact components
// (Card, Pile), what the renderers draw tables with (renderers.js).
import { html } from "./ui.js";
const RANKS = { A: "ace", T: "10", J: "jack", Q: "queen", K: "king" };
const RANK_TEXT = { T: "10" };
const SUITS = {
  C: ["clubs", "\u2663"],
  D: ["diamonds", "\u2666"],
  H: ["hearts", "\u2665"],
  S: ["spades", "\u2660"],
};
export const CARD_RE = /^[A2-9TJQK][CDHS][1-9]?$/;

/** True when `value` is a card code. */
export function isCard(value) {
  return typeof value === "string" && CARD_RE.test(value);
}

/** { rank, suit, deck } of a card code. */
export function parseCard(code) {
  return { rank: code[0], suit: code[1], deck: code.length > 2 ? Number(code.slice(2)) : 0 };
}

/** The suit symbol of a suit letter ("D" -> "♦"). */
export function suitSymbol(letter) {
  return (SUITS[letter] || [letter, letter])[1];
}

/** The suit name of a suit letter ("D" -> "diamonds"). */
export function suitName(letter) {
  return (SUITS[letter] || [letter, letter])[0];
}

/** Words for a card: "8 of diamonds, deck 1"; "ace of spades". */
export function cardName(code) {
  if (!isCard(code)) return String(code);
  const { rank, suit, deck } = parseCard(code);
  const words = `${RANKS[rank] || rank} of ${suitName(suit)}`;
  return deck ? `${words}, deck ${deck}` : words;
}

/** Short text for a card: "8♦", "10♥". */
export function cardText(code) {
  if (!isCard(code)) return String(code);
  const { rank, suit } = parseCard(code);
  return `${RANK_TEXT[rank] || rank}${suitSymbol(suit)}`;
}

/** Replace every card code in a sentence by its short text. */
export function prettyCards(text) {
  return String(text).replace(/\b[A2-9TJQK][CDHS][1-9]?\b/g, (c) => cardText(c));
}

/**
 * @typedef {{ code?: string | null, onClick?: (e: Event) => void, label?: string,
 *   selected?: boolean, highlight?: boolean, faceDown?: boolean, small?: boolean,
 *   where?: string, dataKey?: string, extra?: Record<string, any> }} CardProps
 */

/** The aria-label of a card: its name (and place), then `label`; a back's own words. */
function cardLabel(code, faceDown, label, where) {
  if (faceDown || !code) return label || "face-down card";
  const name = cardName(code) + (where ? `, ${where}` : "");
  return label ? `${name}, ${label}` : name;
}

/**
 * A card as a Preact element: `code` (null: a card back), `where` its place and `label`
 * more words for its aria-label ("5 of diamonds, hand 2, select"), selected, highlight,
 * faceDown, small; `dataKey` sets data-key, `extra` adds attributes such as
 * {"data-seat": 2}. A <button> (aria-pressed) with
 * `onClick`, else a <span role="img">; a face-down card or a null code is a card back.
 * @param {CardProps} props
 */
export function Card({ code, onClick, label, selected, highlight, faceDown, small, where,
  dataKey, extra }) {
  const back = Boolean(faceDown || !code);
  const { rank, suit, deck } = back ? { rank: "", suit: "", deck: 0 } : parseCard(String(code));
  const classes = ["card", small ? "small" : "", back ? "back" : suit === "D" || suit === "H"
    ? "red" : "black", onClick ? "clickable" : "", selected ? "selected" : "",
  highlight ? "highlight" : ""].filter(Boolean).join(" ");
  const props = {
    ...extra,
    class: classes, "aria-label": cardLabel(code, back, label, where),
    "data-card": back ? undefined : code, "data-key": dataKey,
    role: onClick ? undefined : "img",
    "aria-pressed": selected ? "true" : onClick ? "false" : undefined,
  };
  const face = back ? null : html`<span class="corner" aria-hidden="true">${RANK_TEXT[rank]
    || rank}<br />${suitSymbol(suit)}</span><span class="pip" aria-hidden="true">${
    suitSymbol(suit)}</span>${deck ? html`<span class="deck" aria-hidden="true">${deck}</span>`
    : null}`;
  return onClick
    ? html`<button type="button" ...${props} onClick=${onClick}>${face}</button>`
    : html`<span ...${props}>${face}</span>`;
}

/**
 * A pile as a Preact element: a card back (or an empty slot) with its count.
 * @param {{ count: number, label: string, onClick?: (e: Event) => void }} props
 */
export function Pile({ count, label, onClick }) {
  return html`<span class="pile">${count
    ? html`<${Card} faceDown=${true} label=${`${label}: ${count} cards`} onClick=${onClick} />`
    : html`<span class="card empty" role="img" aria-label=${`${label}: empty`} />`}<span
    class="count" aria-hidden="true">${`${label} ${count}`}</span></span>`;
}
