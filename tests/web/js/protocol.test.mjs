// Unit tests of the web client's protocol module (server/static/js/protocol.js) under
// `node --test`: deltas applied to views (protocol/README.md "Views and deltas"), 64-bit
// integers, the server's address, version 2's updates handed on as version 1's.
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  applyDelta, exactInts, defaultUrl, withStateId, Session, PROTOCOL_VERSION,
} from "../../../server/static/js/protocol.js";
import { encode } from "../../../server/static/vendor/msgpack/index.mjs";

test("a top-level key replaces the value whole", () => {
  const view = { hand: ["AS", "2D"], stock: 40 };
  assert.deepEqual(applyDelta(view, { hand: ["3C"] }), { hand: ["3C"], stock: 40 });
});

test("a JSON Pointer replaces the value it names, escapes and array indexes included", () => {
  const view = { seats: [{ stock: 40 }, { stock: 39 }], "a/b": { "c~d": 1 } };
  applyDelta(view, { "/seats/1/stock": 38, "/a~1b/c~0d": 2 });
  assert.equal(view.seats[1].stock, 38);
  assert.equal(view.seats[0].stock, 40);
  assert.equal(view["a/b"]["c~d"], 2);
});

test("a pointer that leads nowhere or out of an array throws, naming the pointer", () => {
  assert.throws(() => applyDelta({ seats: [] }, { "/seats/3/stock": 1 }), /\/seats\/3\/stock/);
  assert.throws(() => applyDelta({ seats: [1] }, { "/seats/5": 1 }), /index out of range/);
  assert.throws(() => applyDelta({ n: 3 }, { "/n/x": 1 }), /leads nowhere/);
});

test("64-bit integers become numbers when exact, and stay BigInt when not", () => {
  const big = 2n ** 62n;
  const value = exactInts({ seed: big, turn: 7n, list: [1n, { x: 2n }], raw: new Uint8Array(2) });
  assert.equal(value.seed, big);
  assert.equal(value.turn, 7);
  assert.deepEqual(value.list, [1, { x: 2 }]);
  assert.ok(value.raw instanceof Uint8Array);
});

test("the server's WebSocket address follows the page's scheme and host", () => {
  assert.equal(defaultUrl({ protocol: "http:", host: "127.0.0.1:8765" }), "ws://127.0.0.1:8765/");
  assert.equal(defaultUrl({ protocol: "https:", host: "cards.example" }), "wss://cards.example/");
  assert.equal(PROTOCOL_VERSION, 2);
});

test("a version 2 delta gets its update's state_id, so applying it moves the view's", () => {
  const update = { t: "update", room: "r1", state_id: 8, delta: { to_act: [1] }, events: [] };
  assert.equal(withStateId(update), update);
  assert.deepEqual(update.delta, { to_act: [1], state_id: 8 });
  const view = applyDelta({ state_id: 7, to_act: [0] }, update.delta);
  assert.deepEqual(view, { state_id: 8, to_act: [1] });
  // a version 1 delta (state_id inside), a full view and other messages are left alone
  const v1 = { t: "update", room: "r1", state_id: 8, delta: { state_id: 8 }, events: [] };
  assert.deepEqual(withStateId(v1).delta, { state_id: 8 });
  const full = { t: "update", room: "r1", state_id: 8, view: { state_id: 8 }, events: [] };
  assert.deepEqual(withStateId(full), { ...full });
  assert.deepEqual(withStateId({ t: "ok", re: 3 }), { t: "ok", re: 3 });
});

test("Session hands the room view version 2 updates it can apply as before", () => {
  const got = [];
  const session = new Session("ws://127.0.0.1:1/", { onMessage: (msg) => got.push(msg) });
  const frame = (msg) => encode(msg).slice().buffer;
  session._receive(frame({ t: "update", room: "r1", state_id: 5, delta: { turn: 2 }, events: [] }));
  let answered = null;
  session.pending.set(4, { resolve: (msg) => { answered = msg; }, reject: () => {} });
  session._receive(frame({ t: "update", room: "r1", state_id: 6, delta: {}, events: [], re: 4 }));
  assert.deepEqual(got.map((m) => m.delta), [{ turn: 2, state_id: 5 }, { state_id: 6 }]);
  assert.equal(answered, got[1]); // the act's reply is the update the room view applies
});
