// @ts-check
// Card codes (protocol/README.md "Card codes") drawn as CSS cards, with words for screen
// readers: "8D1" -> a red "8♦" card labelled "8 of diamonds, deck 1". Two forms of each:
// Preact components (Card, Pile: what the renderers draw with, renderers.js) and the old
// DOM helpers (cardElement, pileElement, h), kept while a renderer still uses them.
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
 * A card element. With `onClick`, a focusable <button> (Enter/Space activate it);
 * otherwise a <span role="img">. `label` adds to the aria-label ("… , on the ♦ stack").
 * Options: selected, highlight, faceDown, small.
 * @param {string | null} code  a card code, or null for a card back
 * @param {{ onClick?: (e: Event) => void, label?: string, selected?: boolean,
 *           highlight?: boolean, faceDown?: boolean, small?: boolean, where?: string }} [opts]
 * @returns {HTMLElement}
 */
export function cardElement(
  code,
  { onClick, label, selected, highlight, faceDown, small, where } = {},
) {
  const el = document.createElement(onClick ? "button" : "span");
  el.className = "card";
  if (small) el.classList.add("small");
  if (faceDown || !code) {
    el.classList.add("back");
    el.setAttribute("aria-label", label || "face-down card");
    if (!onClick) el.setAttribute("role", "img");
  } else {
    const { rank, suit, deck } = parseCard(code);
    el.classList.add(suit === "D" || suit === "H" ? "red" : "black");
    el.dataset.card = code;
    const rankText = RANK_TEXT[rank] || rank;
    el.innerHTML =
      `<span class="corner" aria-hidden="true">${rankText}<br>${suitSymbol(suit)}</span>` +
      `<span class="pip" aria-hidden="true">${suitSymbol(suit)}</span>` +
      (deck ? `<span class="deck" aria-hidden="true">${deck}</span>` : "");
    const name = cardName(code) + (where ? `, ${where}` : "");
    el.setAttribute("aria-label", label ? `${name}, ${label}` : name);
    if (!onClick) el.setAttribute("role", "img");
  }
  if (onClick) {
    /** @type {HTMLButtonElement} */ (el).type = "button";
    el.classList.add("clickable");
    el.addEventListener("click", onClick);
  }
  if (selected) {
    el.classList.add("selected");
    el.setAttribute("aria-pressed", "true");
  } else if (onClick) el.setAttribute("aria-pressed", "false");
  if (highlight) el.classList.add("highlight");
  return el;
}

/** An element helper: h("div", {class: "x"}, child, "text"). */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "class") el.className = value;
    else if (key === "text") el.textContent = value;
    else if (key.startsWith("on")) el.addEventListener(key.slice(2).toLowerCase(), value);
    else if (key === "dataset") Object.assign(el.dataset, value);
    else el.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

/**
 * A pile drawn as a card back (or an empty slot) with a count.
 * @param {number} count
 * @param {string} label
 * @param {{ onClick?: (e: Event) => void }} [opts]
 */
export function pileElement(count, label, { onClick } = {}) {
  const el = count
    ? cardElement(null, { faceDown: true, label: `${label}: ${count} cards`, onClick })
    : h("span", { class: "card empty", role: "img", "aria-label": `${label}: empty` });
  const wrap = h(
    "span",
    { class: "pile" },
    el,
    h("span", { class: "count", "aria-hidden": "true" }, `${label} ${count}`),
  );
  return wrap;
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
 * A card as a Preact element (the component form of cardElement, same props as its
 * options, `code` among them; `dataKey` sets data-key, `extra` adds attributes such as
 * {"data-seat": 2}): a <button> (aria-pressed) with
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
 * A pile as a Preact element (the component form of pileElement): a card back (or an
 * empty slot) with its count.
 * @param {{ count: number, label: string, onClick?: (e: Event) => void }} props
 */
export function Pile({ count, label, onClick }) {
  return html`<span class="pile">${count
    ? html`<${Card} faceDown=${true} label=${`${label}: ${count} cards`} onClick=${onClick} />`
    : html`<span class="card empty" role="img" aria-label=${`${label}: empty`} />`}<span
    class="count" aria-hidden="true">${`${label} ${count}`}</span></span>`;
}
