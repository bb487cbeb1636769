// @ts-check
// The component library of the web client: Preact (vendor/preact, MIT) with htm's tagged
// templates (vendor/htm, Apache-2.0) in the place of JSX, so that nothing is built. Every
// screen moved off the hand-written `h()` of cards.js renders through this module.
import { h, render, Component, Fragment, isValidElement } from "../vendor/preact/preact.mjs";
import htm from "../vendor/htm/htm.mjs";

/** `html\`<div class=${c}>…</div>\`` → a Preact element (htm bound to Preact's `h`). */
export const html = htm.bind(h);

/**
 * A Preact child that shows a DOM node made elsewhere (the old `h()` of cards.js, or a
 * module hooked into a screen): the node is moved into a <span class="dom-slot"> after
 * each render. Props: `node` (a DOM Node, or null for nothing).
 * @param {{ node: Node | null }} props
 */
export function DomSlot({ node }) {
  /** @param {HTMLElement | null} el */
  const put = (el) => {
    if (el && node && el.firstChild !== node) el.replaceChildren(node);
  };
  return node ? h("span", { class: "dom-slot", ref: put }) : null;
}

export { h, render, Component, Fragment, isValidElement };
