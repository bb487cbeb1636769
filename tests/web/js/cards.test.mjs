// Unit tests of the card words (server/static/js/cards.js) under `node --test`: card codes
// (protocol/README.md "Card codes") to the words screen readers say and the short text.
import { test } from "node:test";
import assert from "node:assert/strict";
import { cardName, cardText, isCard, prettyCards, suitSymbol } from "../../../server/static/js/cards.js";

test("card codes are recognised, with or without a deck number", () => {
  for (const code of ["AS", "TD", "8D1", "KH2"]) assert.ok(isCard(code), code);
  for (const code of ["1S", "AX", "ASS", "", null, 7]) assert.ok(!isCard(code), String(code));
});

test("a card's words and short text", () => {
  assert.equal(cardName("8D1"), "8 of diamonds, deck 1");
  assert.equal(cardName("AS"), "ace of spades");
  assert.equal(cardName("TH"), "10 of hearts");
  assert.equal(cardText("TH"), "10\u2665");
  assert.equal(suitSymbol("C"), "\u2663");
  assert.equal(cardName("joker"), "joker");
});

test("card codes in a sentence become short text, other words stay", () => {
  assert.equal(prettyCards("Ann played QS on the KH2 stack."), "Ann played Q\u2660 on the K\u2665 stack.");
  assert.equal(prettyCards("AS-IS stays"), "A\u2660-IS stays");
  assert.equal(prettyCards("nothing here"), "nothing here");
});
