// Unit tests of the game renderers' words (server/static/js/games/*.js) under `node --test`:
// what the log and the game-over box say for a game's events and outcomes (issue #44
// items 3 and 4: no raw codes, no "(null)", the score shown, names said as names).
import { test } from "node:test";
import assert from "node:assert/strict";
import * as skipper from "../../../server/static/js/games/skipper.js";
import * as thirtysix from "../../../server/static/js/games/thirtysix.js";
import * as shufflejack from "../../../server/static/js/games/shufflejack.js";
import * as generic from "../../../server/static/js/games/generic.js";

const who = (seat) => ["You", "Bob", "Bot 2"][seat];

test("Skipper's events name the seat and say cards in words", () => {
  assert.equal(
    skipper.describeEvent({ type: "play", seat: 1, card: "7H", stack: "H", values: [7] }, who),
    "Bob played 7 of hearts on the hearts stack (now 7).",
  );
  assert.equal(skipper.describeEvent({ type: "discard", seat: 0, card: "QS2" }, who),
    "You discarded queen of spades, deck 2.");
  assert.equal(skipper.describeEvent({ type: "draw", seat: 2, count: 1 }, who),
    "Bot 2 drew 1 card.");
  assert.deepEqual(skipper.autoTrashAction(false), ["auto_trash", "off"]);
});

test("Skipper's outcome: solo in turns, multi with the winner's name and every stack", () => {
  assert.equal(
    skipper.describeOutcome({ winner: 0, reason: "won", scores: [31] }, who, { mode: "solo" }),
    "You won (all four stacks are complete) after 31 turns.",
  );
  const multi = skipper.describeOutcome({ winner: 1, reason: "resigned", scores: [2, 4, 0] }, who,
    { mode: "multi" });
  assert.match(multi, /^Bob won: every other player resigned\. Complete stacks: You 2, Bob 4, Bot 2 0\.$/);
  assert.doesNotMatch(multi, /null|undefined|seat \d/);
  assert.equal(
    skipper.describeOutcome({ winner: 2, reason: "last_standing", scores: [1, 0, 3] }, who,
      { mode: "multi" }),
    "Bot 2 won: every other player is out of the game. Complete stacks: You 1, Bob 0, Bot 2 3.",
  );
});

test("Thirty-Six and ShuffleJack say the verdict and the score, never an empty number", () => {
  assert.equal(thirtysix.describeOutcome({ winner: 0, score: 40 }), "You won with 40 points.");
  assert.equal(thirtysix.describeOutcome({ winner: null, reason: "resigned" }), "You lost: resigned.");
  assert.equal(shufflejack.describeOutcome({ winner: null, reason: "resigned in round 1", scores: [0] }),
    "You lost: resigned in round 1. Score 0.");
  assert.equal(shufflejack.describeOutcome({ winner: null }), "You lost. Score 0.");
  const commit = thirtysix.describeEvent(
    { type: "commit", cards: ["9C", "JD"], total: 12, enemy_total: 9, result: "won" }, who);
  assert.equal(commit, "Committed 9 of clubs, jack of diamonds (total 12) against the ENEMY's 9: won.");
});

test("the generic renderer's words: actions in words, values without underscores", () => {
  assert.equal(generic.words("close_shop"), "close shop");
  assert.match(generic.describeAction(["resign"]), /^Resign$/i);
});

test("the solitaires' events and actions in words, places counted from 1", async () => {
  const shop = await import("../../../server/static/js/games/shop.js");
  const shah = await import("../../../server/static/js/games/shah.js");
  assert.equal(shop.describeEvent({ type: "place", card: "9S", to: "candle", index: 2 }, who),
    "Put 9 of spades on candle 3.");
  assert.equal(shop.describeEvent({ type: "place", card: "KC", to: "ledger" }, who),
    "Put king of clubs on the ledger.");
  assert.equal(shop.describeEvent({ type: "light", card: "4H", candle: 0 }, who),
    "Lit candle 1 with 4 of hearts.");
  assert.equal(shop.describeAction(["close_shop"]), "close shop (give up)");
  assert.equal(shop.describeAction(["shelve", "QD", 1]), "shelve QD on shelf 2");
  assert.equal(shah.describeEvent({ type: "play", card: "AH2", foundation: 7 }, who),
    "Played ace of hearts, deck 2 to foundation 8.");
  assert.equal(shah.describeEvent({ type: "turn" }, who), "Turned the pack.");
  assert.equal(shah.describeAction(["marry", "5C", 0]), "marry 5C onto ray 1");
  assert.equal(shah.describeOutcome({ winner: 0, reason: "all_built", scores: 96 }),
    "You won (all built), built 96.");
  assert.equal(shufflejack.describeEvent({ type: "deal", dealt: 1, deck: 26 }, who),
    "Dealt 1 card; 26 left in the deck.");
  assert.equal(shufflejack.describeAction(["hand", 1, 2, 7]), "hand at 1, 2, 7");
});
