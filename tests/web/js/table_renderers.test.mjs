// Unit tests of the renderers on Preact (games/skipper.js, games/shop.js, games/generic.js;
// renderers.js's contract) under `node --test`: each returns a Preact element, draws its
// cards and the places they go, acts through `ui`, and marks as handled every action it
// draws (the page gives the rest plain buttons).
import { test } from "node:test";
import assert from "node:assert/strict";
import { isValidElement } from "../../../server/static/js/ui.js";
import * as skipper from "../../../server/static/js/games/skipper.js";
import * as shop from "../../../server/static/js/games/shop.js";
import * as generic from "../../../server/static/js/games/generic.js";
import { expand, findAll, textOf } from "./vnodes.mjs";
import { fakeUi, keys } from "./table_ui.mjs";

const stack = (suit, cards, values) => ({ suit, cards, values, complete: false });
/** A Skipper multi view for seat 0 of 2, its hand `hand`, an auction when given. */
function skipperView(hand, auction = null) {
  const seat = (deck) => ({
    stacks: ["C", "D", "H", "S"].map((s) => stack(s, [`A${s}${deck}`], [1])),
    discard_top: null, discard: 0, stock: 43, hand: 5, trash: 0, turns: 0, phase: "start",
    status: "active", auto_trash: true,
  });
  return { game: "skipper", mode: "multi", state_id: 0, to_act: [0], over: false,
    seat: 0, seats: [seat(""), seat("1")], auction, hand,
    room: { status: "playing", players: [{}, {}] } };
}
const byAttr = (tree, name, value) =>
  findAll(tree, (n) => n.props[name] !== undefined && (value === undefined || n.props[name] === value));

test("Skipper: a Preact table, hand cards that play select themselves, End turn and Resign", () => {
  const legal = [["play", "2C", "C"], ["discard", "2C"], ["discard", "9D"], ["end"], ["resign"]];
  const { ui, done } = fakeUi(legal);
  const drawn = skipper.render(skipperView(["2C", "9D"]), ui);
  assert.ok(isValidElement(drawn));
  const tree = expand(drawn);
  const hand = findAll(tree, (n) => n.props.id === "hand")[0];
  const cards = byAttr(hand, "data-card");
  assert.deepEqual(cards.map((c) => [c.type, c.props["data-key"]]),
    [["button", "h:2C"], ["button", "h:9D"]]);
  cards[0].props.onClick();
  assert.deepEqual(done.selected, ["2C"]);
  const buttons = findAll(hand, (n) => n.props.class && /\baction\b/.test(n.props.class));
  assert.deepEqual(buttons.map(textOf), ["End turn", "Resign"]);
  // Everything is drawn: plays, discards (by selecting), End turn and Resign.
  assert.deepEqual(keys(done.handled), keys(legal));
  // Both seats drawn, the own first, each with four stacks.
  const seats = findAll(tree, (n) => n.type === "section" && /\bseat\b/.test(n.props.class));
  assert.deepEqual(seats.map((s) => s.props["data-seat"]), [0, 1]);
  assert.equal(byAttr(seats[1], "data-stack").length, 4);
});

test("Skipper: the selected card lights the stacks it plays on; a click plays it there", () => {
  const legal = [["play", "2C", "C"], ["discard", "2C"], ["end"]];
  const { ui, done } = fakeUi(legal, "2C");
  const tree = expand(skipper.render(skipperView(["2C"]), ui));
  const lit = findAll(tree, (n) => n.props["data-stack"] && /highlight/.test(n.props.class));
  assert.deepEqual(lit.map((n) => [n.props["data-seat"], n.props["data-stack"]]), [[0, "C"]]);
  lit[0].props.onClick();
  assert.deepEqual(done.acted, [["play", "2C", "C"]]);
  const bar = findAll(tree, (n) => n.props.class === "selection")[0];
  assert.match(textOf(bar), /2 of clubs: choose a highlighted stack, or /);
  assert.deepEqual(findAll(bar, (n) => n.type === "button").map(textOf), ["Discard it", "Cancel"]);
});

test("Skipper: no card plays: the hint says discard, and the discardable cards are lit", () => {
  const legal = [["discard", "9D"], ["discard", "KS"], ["auction", "9D"], ["resign"]];
  const { ui } = fakeUi(legal);
  const tree = expand(skipper.render(skipperView(["9D", "KS"]), ui));
  const hint = findAll(tree, (n) => n.props.id === "no-play-hint")[0];
  assert.match(textOf(hint), /No card can be played.*auction/);
  const lit = findAll(tree, (n) => n.props["data-card"] && /highlight/.test(n.props.class));
  assert.deepEqual(lit.map((n) => n.props["data-card"]).sort(), ["9D", "KS"]);
});

test("Skipper: bidding in an auction: hand cards bid, Pass is a handled button", () => {
  const auction = { seller: 1, card: "7H", bids: [[1, null]], bidder: 0 };
  const legal = [["bid", "8H"], ["pass"]];
  const { ui, done } = fakeUi(legal);
  const tree = expand(skipper.render(skipperView(["8H"], auction), ui));
  const section = findAll(tree, (n) => n.props.id === "auction")[0];
  assert.match(textOf(section), /Auction: Seat1 sells.*Your bid/);
  const bid = byAttr(tree, "data-bid", "1")[0];
  bid.props.onClick();
  assert.deepEqual(done.acted, [["bid", "8H"]]);
  assert.deepEqual(keys(done.handled), keys(legal));
});

/** A Shop view in the play phase with `inPlay` in play. */
function shopView(inPlay) {
  return { game: "shop", state_id: 3, to_act: [0], over: false, phase: "play",
    candles: [["3C"], [], []], lit: [false, false, false], lit_needed: 7,
    trays: [[], ["4S", "5S"]], sides: ["S", null], weights: [4, 0], balanced: false,
    ledger_suit: "H", ledger: ["2H"], shelves: [{ shelf: "QD", purchase: [] }],
    in_play: inPlay, stock_count: 40, shortcut_cards: [], moves: 3, max_moves: 2000 };
}

test("Shop: the card in play selects itself; then its places are highlighted buttons", () => {
  const legal = [["candle", "9S", 1], ["tray", "9S", 0], ["ledger", "9S"], ["close_shop"]];
  const first = fakeUi(legal);
  const drawn = shop.render(shopView(["9S"]), first.ui);
  assert.ok(isValidElement(drawn));
  const tree = expand(drawn);
  assert.match(textOf(findAll(tree, (n) => n.props.class === "facts")[0]),
    /^Play · 40 cards in the stock · move 3 of 2000 · 7 candles to light$/);
  const inPlay = findAll(tree, (n) => n.props.id === "in-play")[0];
  byAttr(inPlay, "data-card", "9S")[0].props.onClick();
  assert.deepEqual(first.done.selected, ["9S"]);
  assert.equal(byAttr(tree, "data-target").length, 0);
  const { ui, done } = fakeUi(legal, "9S");
  const lit = byAttr(expand(shop.render(shopView(["9S"]), ui)), "data-target");
  assert.deepEqual(lit.map((n) => n.props["data-target"]), ["candle:1", "tray:0", "ledger:"]);
  lit[1].props.onClick();
  assert.deepEqual(done.acted, [["tray", "9S", 0]]);
  // Placing is drawn; closing the shop is left to the page's other actions.
  assert.deepEqual(keys(done.handled), keys(legal.slice(0, 3)));
});

test("the generic table: a row per card field, other fields as facts, the selection bar", () => {
  const view = { game: "newgame", state_id: 1, to_act: [0], over: false, legal_actions: [],
    hand: ["AS", "KD"], pot: "7C", piles: [["2C"], ["3C", "4C"]], round: 2, stage: "bid_now" };
  const legal = [["throw", "AS"], ["resign"]];
  const { ui, done } = fakeUi(legal, "AS");
  const tree = expand(generic.render(view, ui));
  const labels = findAll(tree, (n) => n.props.class === "row-label").map(textOf);
  assert.deepEqual(labels, ["hand", "pot", "piles 1", "piles 2"]);
  assert.equal(textOf(findAll(tree, (n) => n.props.class === "facts")[0]),
    "round: 2 \u00b7 stage: bid_now");
  const bar = findAll(tree, (n) => n.props.class === "selection")[0];
  assert.deepEqual(findAll(bar, (n) => n.type === "button").map(textOf), ["throw A\u2660", "Cancel"]);
  assert.deepEqual(keys(done.handled), keys([["throw", "AS"]]));
});
