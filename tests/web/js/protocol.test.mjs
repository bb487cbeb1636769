// Unit tests of the web client's protocol module (server/static/js/protocol.js) under
// `node --test`: deltas applied to views (protocol/README.md "Views and deltas"), 64-bit
// integers, the server's address.
import { test } from "node:test";
import assert from "node:assert/strict";
import { applyDelta, exactInts, defaultUrl, PROTOCOL_VERSION } from "../../../server/static/js/protocol.js";

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
  assert.equal(PROTOCOL_VERSION, 1);
});
