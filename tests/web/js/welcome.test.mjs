// Unit tests of the lobby's welcome (server/static/js/welcome.js, issue #44 item 11) under
// `node --test`: each game of `list_games` has a card with a picture, its name, its
// players and one Play, whose message makes a room for one that starts at once.
import { test } from "node:test";
import assert from "node:assert/strict";
import { html } from "../../../server/static/js/ui.js";
import {
  Welcome, addGameAction, gameActions, playMessage, playersText,
} from "../../../server/static/js/welcome.js";
import { expand, findAll, textOf } from "./vnodes.mjs";

const GAMES = [
  { game: "skipper", title: "Skipper", min_seats: 1, max_seats: 6, modes: ["solo", "multi", "race"] },
  { game: "shop", title: "Shop Solitaire", min_seats: 1, max_seats: 1, modes: [] },
  { game: "newgame", title: "New Game", min_seats: 2, max_seats: 2, modes: ["duel"] },
];

const cardsOf = (tree) => findAll(tree, (n) => n.type === "li" && n.props.class === "game-card");

test("every game has a card with a picture, its title, its players and one Play", () => {
  const played = [];
  const tree = expand(html`<${Welcome} games=${GAMES} onPlay=${(g) => played.push(g.game)} />`);
  assert.match(textOf(findAll(tree, (n) => n.type === "h2")), /Welcome to Cardhall/);
  const cards = cardsOf(tree);
  assert.deepEqual(cards.map((c) => c.props["data-game"]), ["skipper", "shop", "newgame"]);
  for (const card of cards) {
    const svg = findAll(card, (n) => n.type === "svg");
    assert.equal(svg.length, 1);
    assert.ok(findAll(svg, (n) => ["rect", "text", "line", "path"].includes(n.type)).length >= 3);
    const plays = findAll(card, (n) => n.type === "button" && textOf(n) === "Play");
    assert.equal(plays.length, 1);
    plays[0].props.onClick();
  }
  assert.deepEqual(played, ["skipper", "shop", "newgame"]);
  assert.match(textOf(cards[0]), /Skipper.*1\u20136 players/);
  assert.match(textOf(cards[1]), /ledger/); // the blurb
});

test("Play makes a room for one, in the solo mode when the game has modes", () => {
  assert.deepEqual(playMessage(GAMES[0]), {
    t: "create_room", game: "skipper", seats: 1, options: {}, private: false, mode: "solo",
  });
  assert.equal(playMessage(GAMES[1]).mode, undefined);
  assert.equal(playMessage(GAMES[2]).mode, "duel");
  assert.equal(playersText(GAMES[1]), "1 player");
  assert.equal(playersText(GAMES[2]), "2 players");
});

test("another module's action shows on every game's card after Play", () => {
  addGameAction((g) => (g.max_seats > 1 ? html`<button class="rated">Play rated</button>` : null));
  try {
    const cards = cardsOf(expand(html`<${Welcome} games=${GAMES} onPlay=${() => {}} />`));
    const rated = cards.map((c) => findAll(c, (n) => n.props.class === "rated").length);
    assert.deepEqual(rated, [1, 0, 1]);
  } finally {
    gameActions.length = 0;
  }
});
