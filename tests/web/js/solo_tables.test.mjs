// Unit tests of three game renderers on Preact (renderers.js's contract, issue #44 "The web
// client"): games/shah.js, games/thirtysix.js and games/shufflejack.js return Preact
// elements; what they draw for a view, what they mark handled, what their controls do.
import { test } from "node:test";
import assert from "node:assert/strict";
import { html, isValidElement } from "../../../server/static/js/ui.js";
import * as shah from "../../../server/static/js/games/shah.js";
import * as thirtysix from "../../../server/static/js/games/thirtysix.js";
import * as shufflejack from "../../../server/static/js/games/shufflejack.js";
import { expand, findAll, textOf } from "./vnodes.mjs";

/** A table ui as RoomView.tableUi gives it (selection, marks), recording what is done. */
function fakeUi(legal, { selected = null, marks = [] } = {}) {
  const done = { selected: [], acted: [], handled: [], toggled: [] };
  const ui = {
    seat: 0, legal, selected, marks,
    select: (c) => done.selected.push(c),
    toggle: (v) => done.toggled.push(v),
    act: (a) => done.acted.push(a),
    handled: (a) => done.handled.push(a),
    button: (a, label) => {
      done.handled.push(a);
      return html`<button type="button" class="action" onClick=${() => done.acted.push(a)}>
        ${label}</button>`;
    },
  };
  return { ui, done };
}

const byId = (tree, id) => findAll(tree, (n) => n.props.id === id)[0];
const cards = (tree) => findAll(tree, (n) => n.props["data-card"]).map((n) => n.props["data-card"]);
const byKey = (tree, key) => findAll(tree, (n) => n.props["data-key"] === key)[0];
const facts = (tree) => textOf(findAll(tree, (n) => n.props.class === "facts"));

const SHAH = {
  phase: "play", stock_count: 20, moves: 3, max_moves: 500, shah: "KH",
  foundations: ["AH", null, null, null, null, null, null, null],
  foundation_sizes: [1, 0, 0, 0, 0, 0, 0, 0],
  star: Array.from({ length: 8 }, (_, r) => [[`${r + 2}C`], [], r === 0 ? ["9D", "8S"] : []]),
  available: [["2H", "up"], ["8S", "star"]], up: "2H", talon: ["5S", "6S"],
};

test("The Shah: a Preact table with the Shah, foundations, star and talon", () => {
  const { ui, done } = fakeUi([["play", "2H", 0], ["marry", "8S", 3], ["turn"]]);
  const drawn = shah.render(SHAH, ui);
  assert.ok(isValidElement(drawn));
  const tree = expand(drawn);
  assert.equal(facts(tree), "Play \u00b7 20 cards in the pack \u00b7 move 3 of 500");
  assert.deepEqual(cards(tree).slice(0, 2), ["KH", "AH"]);
  assert.equal(findAll(tree, (n) => n.props.class === "ray").length, 8);
  const married = findAll(tree, (n) => n.props.class === "married");
  assert.equal(married.length, 1);
  assert.deepEqual(cards(married), ["9D", "8S"]);
  assert.equal(findAll(tree, (n) => n.props.class === "slot").length, 8);
  assert.ok(findAll(tree, (n) => n.props["aria-label"] === "foundation 2: empty").length);
  // Card moves are made by selecting, then the target: none becomes a plain button.
  assert.deepEqual(done.handled.map((a) => a[0]), ["play", "marry"]);
  assert.equal(findAll(tree, (n) => n.props.class === "target highlight").length, 0);
  byKey(tree, "c:2H:turned card").props.onClick();
  assert.deepEqual(done.selected, ["2H"]);
  assert.match(textOf(tree), /talon 2/);
});

test("The Shah with a card selected: its targets highlighted, a click there plays it", () => {
  const play = ["play", "2H", 0];
  const { ui, done } = fakeUi([play, ["play", "8S", 0], ["marry", "2H", 2]], { selected: "2H" });
  const tree = expand(shah.render(SHAH, ui));
  const targets = findAll(tree, (n) => n.props.class === "target highlight");
  assert.deepEqual(targets.map((t) => t.props["data-key"]), ["t:play:0", "t:marry:2"]);
  assert.equal(targets[0].props["aria-label"], "foundation 1: play 2 of hearts to foundation 1");
  targets[0].props.onClick();
  assert.deepEqual(done.acted, [play]);
  assert.match(textOf(tree), /2 of hearts selected: click a highlighted foundation or ray\./);
});

const THIRTYSIX = {
  turn: 2, turns: 9, phase: "commit", score: 12, target: 36, player_stack: 14,
  enemy: ["9C", "TD"], enemy_total: 19, enemy_stacks: [5, 6], row: ["5H", "7S", "QD"],
  committed: [], collection: ["2C"], enemy_collection: [],
};

test("Thirty-Six: facts, the ENEMY's row, the player's row to pick, Commit", () => {
  const commit = ["commit", "5H", "QD"];
  const { ui, done } = fakeUi([commit, ["commit", "7S"], ["commit"]], { marks: ["QD", "5H"] });
  const drawn = thirtysix.render(THIRTYSIX, ui);
  assert.ok(isValidElement(drawn));
  const tree = expand(drawn);
  assert.equal(facts(tree),
    "turn 2 of 9 \u00b7 commit cards \u00b7 score 12 (37 to win) \u00b7 14 cards in your stack");
  assert.match(textOf(tree), /ENEMY \(19\)/);
  assert.match(textOf(tree), /stacks 5 \/ 6/);
  assert.deepEqual(cards(byId(tree, "row")), ["5H", "7S", "QD"]);
  const picked = byKey(tree, "r:QD");
  assert.equal(picked.props["aria-pressed"], "true");
  picked.props.onClick();
  assert.deepEqual(done.toggled, ["QD"]);
  assert.equal(done.handled.length, 3, "every commit is drawn by the table");
  const button = byId(tree, "commit");
  assert.equal(textOf(button), "Commit 2 cards");
  assert.equal(button.props.disabled, false);
  button.props.onClick();
  assert.deepEqual(done.acted, [commit]);
  assert.match(textOf(tree), /Your collection/);
});

test("Thirty-Six: a set no commit has is refused; take and give are a click on the card", () => {
  const { ui } = fakeUi([["commit", "5H"], ["commit"]], { marks: ["5H", "7S"] });
  const tree = expand(thirtysix.render(THIRTYSIX, ui));
  assert.equal(byId(tree, "commit").props.disabled, true);
  assert.match(textOf(tree), /this set cannot be committed/);
  const take = ["take", "7S"];
  const { ui: ui2, done } = fakeUi([take, ["surrender", "7S"]]);
  const over = { ...THIRTYSIX, phase: "take", enemy_total: null };
  const tree2 = expand(thirtysix.render(over, ui2));
  assert.equal(byId(tree2, "commit"), undefined);
  assert.doesNotMatch(textOf(tree2), /null/);
  const card = byKey(tree2, "r:7S");
  assert.equal(card.props["aria-label"], "7 of spades, row 2, take it into your collection");
  card.props.onClick();
  assert.deepEqual(done.acted, [take]);
  assert.deepEqual(done.handled, [take]);
});

const SHUFFLEJACK = {
  round: 1, rounds: 3, deck: 27, hands: 2, total_hands: 12, cards_left: 25, score: 40,
  locks_active: true, locked: [3],
  tableau: Array.from({ length: 25 },
    (_, i) => (i === 4 ? null : `${"A23456789TJQK"[i % 13]}${"CDHS"[Math.floor(i / 13)]}`)),
};

test("ShuffleJack: the 5 x 5 tableau, positions picked for a hand, Score hand", () => {
  const hand = ["hand", 1, 2, 3];
  const { ui, done } = fakeUi([hand, ["hand", 1, 6], ["deal"]], { marks: [3, 1, 2] });
  const drawn = shufflejack.render(SHUFFLEJACK, ui);
  assert.ok(isValidElement(drawn));
  const tree = expand(drawn);
  assert.equal(facts(tree),
    "round 1/3 \u00b7 deck 27 \u00b7 hands 2/12 \u00b7 cards left 25 \u00b7 score 40");
  const tableau = byId(tree, "tableau");
  assert.equal(tableau.children.length, 25);
  assert.equal(cards(tableau).length, 24);
  assert.equal(textOf(tableau.children[4]), "5");
  assert.equal(tableau.children[4].props["aria-label"], "position 5: empty");
  assert.equal(tableau.children[2].props["aria-label"], "3 of clubs, position 3, locked, picked");
  byKey(tree, "p:6").props.onClick();
  assert.deepEqual(done.toggled, [6]);
  assert.equal(byKey(tree, "p:7"), undefined, "a position no hand uses is shown only");
  const score = byId(tree, "score-hand");
  assert.equal(textOf(score), "Score hand (3 cards)");
  score.props.onClick();
  assert.deepEqual(done.acted, [hand]);
  assert.match(textOf(tree), /2 hands possible/);
  assert.equal(done.handled.length, 2);
  const { ui: none } = fakeUi([["deal"]]);
  assert.equal(byId(expand(shufflejack.render(SHUFFLEJACK, none)), "score-hand"), undefined);
  const { ui: one } = fakeUi([hand]);
  const waiting = byId(expand(shufflejack.render(SHUFFLEJACK, one)), "score-hand");
  assert.deepEqual([textOf(waiting), waiting.props.disabled], ["Pick the cards of a hand", true]);
});
