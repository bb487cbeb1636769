// Unit tests of the lobby's components (server/static/js/lobby_views.js, new_room.js)
// under `node --test`: what the room list, Play now and the New-room form show for the
// state the Lobby holds, and what their controls hand back.
import { test } from "node:test";
import assert from "node:assert/strict";
import { html } from "../../../server/static/js/ui.js";
import { RoomsPanel, PlayNowPanel, initialValue } from "../../../server/static/js/lobby_views.js";
import { NewRoomPanel, freshFields, seatsFor } from "../../../server/static/js/new_room.js";
import { expand, findAll, textOf } from "./vnodes.mjs";

const SKIPPER = {
  game: "skipper", title: "Skipper", min_seats: 1, max_seats: 6, modes: ["solo", "multi"],
  options: [
    { name: "mode", kind: "str", default: "solo", choices: ["solo", "multi"] },
    { name: "seed", kind: "int", default: null, doc: "deal seed" },
    { name: "skip_draws", kind: "bool", default: null },
    { name: "no_trashing", kind: "bool", default: false },
  ],
};
const SHOP = { game: "shop", title: "Shop Solitaire", min_seats: 1, max_seats: 1, modes: [], options: [] };
const byId = (tree, id) => findAll(tree, (n) => n.props.id === id)[0];

test("a mode's seats: the least in solo, else four within the game's range", () => {
  assert.equal(seatsFor(SKIPPER, "solo"), 1);
  assert.equal(seatsFor(SKIPPER, "multi"), 4);
  assert.equal(seatsFor(SHOP, null), 1);
  assert.deepEqual(freshFields(SKIPPER), { "create-seats": "1", "create-mode": "solo" });
  assert.deepEqual(freshFields(SHOP), { "create-seats": "1" });
  assert.equal(initialValue({ name: "x", kind: "bool", default: true }), true);
  assert.equal(initialValue({ name: "x", kind: "int", default: null }), "");
});

test("the New-room form shows the state it is given, options by kind, mode apart", () => {
  const set = [];
  const tree = expand(html`<${NewRoomPanel} games=${[SKIPPER, SHOP]} roomOptions=${[]}
    game="skipper" fields=${{ "create-seats": "4", "create-mode": "multi", "opt-seed": "7" }}
    error="seats: too many" setGame=${() => {}} set=${(id, v) => set.push([id, v])}
    onSubmit=${() => {}} />`);
  assert.equal(byId(tree, "create-seats").props.value, "4");
  assert.equal(byId(tree, "create-mode").props.value, "multi");
  assert.equal(byId(tree, "opt-seed").props.value, "7");
  assert.equal(byId(tree, "opt-seed").props["data-kind"], "int");
  assert.equal(byId(tree, "opt-skip_draws").type, "select"); // no fixed default: three ways
  assert.equal(byId(tree, "opt-skip_draws").props["data-kind"], "tristate");
  assert.equal(byId(tree, "opt-no_trashing").props.type, "checkbox");
  assert.equal(byId(tree, "opt-mode"), undefined); // the mode has its own field
  assert.equal(textOf(byId(tree, "create-error")), "seats: too many");
  byId(tree, "create-mode").props.onChange({ currentTarget: { value: "solo" } });
  assert.deepEqual(set, [["create-seats", "1"], ["create-mode", "solo"]]);
  const shop = expand(html`<${NewRoomPanel} games=${[SKIPPER, SHOP]} roomOptions=${[]}
    game="shop" fields=${freshFields(SHOP)} error="" setGame=${() => {}} set=${() => {}}
    onSubmit=${() => {}} />`);
  assert.equal(byId(shop, "create-mode"), undefined);
});

test("the room list: a row per room, Join only where a seat is free, Watch on each", () => {
  const rooms = [
    { room: "r1", name: "Ann's", game: "skipper", mode: "multi", seats: 4, taken: 1,
      status: "waiting", spectators: 0 },
    { room: "r2", game: "shop", seats: 1, taken: 1, status: "playing", spectators: 2 },
    { room: "r3", game: "skipper", seats: 2, taken: 1, status: "waiting", spectators: 0,
      private: true },
  ];
  const joined = [];
  const tree = expand(html`<${RoomsPanel} games=${[SKIPPER, SHOP]} rooms=${rooms} more=${true}
    filters=${{ game: "", status: "", free: false, text: "", finished: false }}
    setFilter=${() => {}} onRefresh=${() => {}} onMore=${() => {}}
    onJoin=${(r) => joined.push(r)} onWatch=${() => {}} />`);
  const rows = findAll(tree, (n) => n.type === "tr" && n.props["data-room"]);
  assert.deepEqual(rows.map((r) => r.props["data-room"]), ["r1", "r2", "r3"]);
  assert.match(textOf(rows[0]), /Ann's.*Skipper \(multi\).*1\/4.*waiting/);
  const joins = findAll(tree, (n) => n.props.class === "join");
  assert.equal(joins.length, 1);
  joins[0].props.onClick();
  assert.deepEqual(joined, ["r1"]);
  assert.equal(findAll(rows[2], (n) => n.type === "button").length, 0); // private: a tag
  assert.ok(byId(tree, "more-rooms"));
  const empty = expand(html`<${RoomsPanel} games=${[]} rooms=${[]} more=${false}
    filters=${{ game: "", status: "", free: false, text: "", finished: false }}
    setFilter=${() => {}} onRefresh=${() => {}} onMore=${() => {}} onJoin=${() => {}}
    onWatch=${() => {}} />`);
  assert.match(textOf(empty), /No rooms yet: create one\./);
});

test("Play now: Enter in the name field applies the name, not a page load", () => {
  const calls = [];
  const tree = expand(html`<${PlayNowPanel} games=${[SKIPPER]} name="Dee" quickGame="skipper"
    code="" set=${(k, v) => calls.push([k, v])} onName=${() => calls.push(["apply"])}
    onQuick=${() => {}} onCode=${() => {}} />`);
  assert.equal(byId(tree, "player-name").props.value, "Dee");
  let prevented = false;
  byId(tree, "name-form").props.onSubmit({ preventDefault: () => { prevented = true; } });
  byId(tree, "player-name").props.onInput({ currentTarget: { value: "Eve" } });
  assert.ok(prevented);
  assert.deepEqual(calls, [["apply"], ["name", "Eve"]]);
});

test("another module's lobby action shows in Play now, under Quick join", async () => {
  const { addLobbyAction, lobbyActions } = await import("../../../server/static/js/lobby_views.js");
  addLobbyAction(() => html`<button id="play-rated">Play rated</button>`);
  addLobbyAction(() => null);
  try {
    const tree = expand(html`<${PlayNowPanel} games=${[SKIPPER]} name="" quickGame="skipper"
      code="" set=${() => {}} onName=${() => {}} onQuick=${() => {}} onCode=${() => {}} />`);
    const extra = findAll(tree, (n) => n.props.class === "filters lobby-action");
    assert.equal(extra.length, 1);
    assert.equal(textOf(byId(extra, "play-rated")), "Play rated");
  } finally {
    lobbyActions.length = 0;
  }
});
