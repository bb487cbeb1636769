// Unit tests of the table's drawing parts on Preact (renderers.js's contract, issue #44 "The
// web client"): cards.js's Card and Pile, games/generic.js's SelectableCard, SelectionBar and
// CardRow, and renderers.js's embed, expanded without a DOM (vnodes.mjs).
import { test } from "node:test";
import assert from "node:assert/strict";
import { html } from "../../../server/static/js/ui.js";
import { Card, Pile } from "../../../server/static/js/cards.js";
import { SelectableCard, SelectionBar, CardRow } from "../../../server/static/js/games/generic.js";
import { embed } from "../../../server/static/js/renderers.js";
import { expand, findAll, textOf } from "./vnodes.mjs";
import { fakeUi } from "./table_ui.mjs";

test("Card: a red face card in words, a button only when it can be clicked", () => {
  const [plain] = expand(html`<${Card} code="8D1" where="hand 1" />`);
  assert.equal(plain.type, "span");
  assert.equal(plain.props.role, "img");
  assert.equal(plain.props["data-card"], "8D1");
  assert.match(plain.props.class, /\bcard\b.*\bred\b/);
  assert.equal(plain.props["aria-label"], "8 of diamonds, deck 1, hand 1");
  assert.equal(textOf(plain), "8\u2666\u26661");
  let clicked = 0;
  const [button] = expand(html`<${Card} code="KS" selected=${true} onClick=${() => clicked++} />`);
  assert.equal(button.type, "button");
  assert.match(button.props.class, /black.*clickable.*selected/);
  assert.equal(button.props["aria-pressed"], "true");
  button.props.onClick();
  assert.equal(clicked, 1);
  const [back] = expand(html`<${Card} code=${null} label="stock" />`);
  assert.match(back.props.class, /\bback\b/);
  assert.equal(back.props["aria-label"], "stock");
  assert.equal(back.props["data-card"], undefined);
});

test("Pile: a back with its count, or an empty slot", () => {
  const full = expand(html`<${Pile} count=${12} label="stock" />`);
  assert.equal(findAll(full, (n) => /\bback\b/.test(n.props.class || ""))[0].props["aria-label"],
    "stock: 12 cards");
  assert.equal(textOf(full), "stock 12");
  const empty = expand(html`<${Pile} count=${0} label="waste" />`);
  assert.equal(findAll(empty, (n) => /empty/.test(n.props.class || ""))[0].props["aria-label"],
    "waste: empty");
});

test("SelectableCard selects a card legal actions use; others are plain", () => {
  const { ui, done } = fakeUi([["discard", "5D"]]);
  const [usable] = expand(html`<${SelectableCard} code="5D" ui=${ui} where="hand 2" />`);
  assert.equal(usable.type, "button");
  assert.equal(usable.props["data-key"], "c:5D:hand 2");
  assert.equal(usable.props["aria-label"], "5 of diamonds, hand 2, select");
  usable.props.onClick();
  assert.deepEqual(done.selected, ["5D"]);
  const [other] = expand(html`<${SelectableCard} code="6D" ui=${ui} where="hand 3" />`);
  assert.equal(other.type, "span");
  assert.equal(other.props["data-key"], undefined);
});

test("SelectionBar: one handled button per action with the selected card, and Cancel", () => {
  const legal = [["discard", "5D"], ["play", "5D", "H"], ["play", "7C", "H"], ["resign"]];
  const { ui, done } = fakeUi(legal, "5D");
  const bar = expand(html`<${SelectionBar} ui=${ui} />`);
  const buttons = findAll(bar, (n) => n.type === "button");
  assert.deepEqual(buttons.map(textOf), ["discard 5\u2666", "play 5\u2666 H", "Cancel"]);
  assert.deepEqual(done.handled, [["discard", "5D"], ["play", "5D", "H"]]);
  buttons[2].props.onClick();
  assert.deepEqual(done.selected, [null]);
  assert.deepEqual(expand(html`<${SelectionBar} ui=${fakeUi(legal).ui} />`), []);
});

test("CardRow: labelled, its cards numbered by place, an empty row says so", () => {
  const { ui } = fakeUi([["play", "AS"]]);
  const row = expand(html`<${CardRow} label="hand" codes=${["AS", "2S"]} ui=${ui} id="hand" />`);
  assert.equal(row[0].props.id, "hand");
  const cards = findAll(row, (n) => n.props["data-card"]);
  assert.deepEqual(cards.map((c) => c.props["aria-label"]),
    ["ace of spades, hand 1, select", "2 of spades, hand 2"]);
  const empty = expand(html`<${CardRow} label="waste" codes=${[]} ui=${ui} />`);
  assert.equal(findAll(empty, (n) => n.props.role === "img")[0].props["aria-label"],
    "waste: empty");
});

test("embed: a Preact element as it is, nothing for anything else", () => {
  const el = html`<p>table</p>`;
  assert.equal(embed(el), el);
  assert.equal(embed(null), null);
  assert.equal(embed("text"), null);
});
