// Unit tests of the lobby's smaller panels (server/static/js/leaderboard.js,
// lobby_panels.js) under `node --test`: a board as the `leaderboard` reply gives it, My
// games with Replay, How to play.
import { test } from "node:test";
import assert from "node:assert/strict";
import { html } from "../../../server/static/js/ui.js";
import { LeaderboardPanel } from "../../../server/static/js/leaderboard.js";
import { MyGamesPanel, RulesPanel } from "../../../server/static/js/lobby_panels.js";
import { expand, findAll, textOf } from "./vnodes.mjs";

const byId = (tree, id) => findAll(tree, (n) => n.props.id === id)[0];
const GAMES = [{ game: "skipper", title: "Skipper" }, { game: "thirtysix", title: "Thirty-Six" }];

test("a board: caption, ranks, the player's place and the server's words for getting on it", () => {
  const board = { game: "skipper", mode: "solo", order: "asc", total: 2, how: "Win a solo game.",
    entries: [{ rank: 1, name: "Ann", score: 31 }, { rank: 2, name: "Bob", score: 40 }],
    you: { rank: 2, name: "Bob", score: 40 } };
  const tree = expand(html`<${LeaderboardPanel} games=${GAMES} game="skipper" board=${board}
    message="" onGame=${() => {}} onRefresh=${() => {}} />`);
  assert.equal(textOf(byId(tree, "board-caption")), "solo: fewest turns first (2 players)");
  const rows = findAll(byId(tree, "board-table"), (n) => n.type === "tr" && n.props["data-name"]);
  const cells = rows.map((r) => findAll(r, (n) => n.type === "td").map((td) => textOf(td)));
  assert.deepEqual(cells, [["1", "Ann", "31"], ["2", "Bob", "40"]]);
  assert.equal(textOf(byId(tree, "board-you")), "You: #2 with 40");
  assert.equal(textOf(byId(tree, "board-how")), "Win a solo game.");
});

test("an empty board says nobody yet; no board says why (or that it is loading)", () => {
  const board = { game: "thirtysix", mode: "solo", order: "desc", total: 0, entries: [] };
  const tree = expand(html`<${LeaderboardPanel} games=${GAMES} game="thirtysix" board=${board}
    message="" onGame=${() => {}} onRefresh=${() => {}} />`);
  assert.equal(textOf(byId(tree, "board-empty")), "Nobody yet.");
  assert.match(textOf(byId(tree, "board-caption")), /most points first \(0 players\)/);
  assert.equal(byId(tree, "board-you"), undefined);
  const none = expand(html`<${LeaderboardPanel} games=${GAMES} game="shop" board=${null}
    message="This game keeps no leaderboard." onGame=${() => {}} onRefresh=${() => {}} />`);
  assert.equal(textOf(byId(none, "board-caption")), "This game keeps no leaderboard.");
});

test("My games: the newest ten with Replay; How to play: a button per game", () => {
  const kept = Array.from({ length: 12 }, (_, i) => ({ room: `r${i}`, at: 0, title: "Skipper",
    outcome: `won, ${i}` }));
  const replayed = [];
  const tree = expand(html`<${MyGamesPanel} games=${kept} onReplay=${(g) => replayed.push(g.room)} />`);
  const items = findAll(tree, (n) => n.type === "li");
  assert.equal(items.length, 10);
  findAll(items[3], (n) => n.type === "button")[0].props.onClick();
  assert.deepEqual(replayed, ["r3"]);
  assert.match(textOf(expand(html`<${MyGamesPanel} games=${[]} onReplay=${() => {}} />`)),
    /Games you finish in this browser are listed here\./);
  const opened = [];
  const rules = expand(html`<${RulesPanel} games=${GAMES} onRules=${(g, t) => opened.push([g, t])} />`);
  const buttons = findAll(rules, (n) => n.type === "button");
  assert.deepEqual(buttons.map((b) => textOf(b)), ["Skipper", "Thirty-Six"]);
  buttons[1].props.onClick();
  assert.deepEqual(opened, [["thirtysix", "Thirty-Six"]]);
});
