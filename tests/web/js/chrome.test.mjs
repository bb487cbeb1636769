// Unit tests of the page's chrome (server/static/js/chrome.js), the rated-play components
// (rated.js) and the sound toggle (sound.js) under `node --test`: what they draw for the
// state given, and what their controls hand back.
import { test } from "node:test";
import assert from "node:assert/strict";
import { html } from "../../../server/static/js/ui.js";
import { Chrome, ConnBanner, Notice } from "../../../server/static/js/chrome.js";
import { Rated, RatedPanel, RatedBoard, RatingChange, SeatRating, RatedBanner }
  from "../../../server/static/js/rated.js";
import { SoundToggle, soundToggle, soundOn } from "../../../server/static/js/sound.js";
import { expand, findAll, textOf } from "./vnodes.mjs";

const byId = (tree, id) => findAll(tree, (n) => n.props.id === id)[0];
const noop = () => {};

function chrome(props) {
  return expand(html`<${Chrome} title="Lobby" conn="open" notice="" onHome=${noop}
    onDismiss=${noop} sound=${null} account=${null} rated=${null} ...${props} />`);
}

test("the header: Cardhall goes home (no navigation), the title, sound and account in it", () => {
  let home = 0;
  let prevented = false;
  const tree = chrome({ title: "Skipper \u2014 r1", onHome: () => home++,
    sound: html`<button id="sound-toggle" />`, account: html`<div id="account" />` });
  const header = findAll(tree, (n) => n.type === "header")[0];
  assert.equal(textOf(findAll(header, (n) => n.props.class === "sub")), "Skipper \u2014 r1");
  assert.ok(byId(header, "sound-toggle") && byId(header, "account"));
  findAll(header, (n) => n.type === "a")[0].props.onClick({ preventDefault: () => (prevented = true) });
  assert.deepEqual([home, prevented], [1, true]);
  assert.equal(byId(tree, "conn-status"), undefined);
  assert.equal(byId(tree, "notice"), undefined);
});

test("the connection's state shows until it is open; the notice shows and dismisses", () => {
  assert.equal(textOf(expand(html`<${ConnBanner} state="connecting" />`)), "Connecting\u2026");
  assert.equal(textOf(expand(html`<${ConnBanner} state="reconnecting" />`)), "Reconnecting\u2026");
  assert.deepEqual(expand(html`<${ConnBanner} state="open" />`), []);
  let dismissed = 0;
  const notice = expand(html`<${Notice} text="Could not join: full" onDismiss=${() => dismissed++} />`);
  assert.equal(textOf(byId(notice, "notice")), "Could not join: full\u00d7");
  findAll(notice, (n) => n.type === "button")[0].props.onClick();
  assert.equal(dismissed, 1);
  assert.deepEqual(expand(html`<${Notice} text="" onDismiss=${noop} />`), []);
  const all = chrome({ conn: "reconnecting", notice: "Back to the lobby.",
    rated: html`<div id="rated-banner" />` });
  const ids = findAll(all, (n) => n.props.id).map((n) => n.props.id);
  assert.deepEqual(ids, ["conn-status", "notice", "rated-banner"]);
});

function panel(props) {
  return expand(html`<${RatedPanel} mode="multi" sizes="2,3,4" waiting=${null} error=""
    mine=${null} games=${[]} entries=${[]} onMode=${noop} onSizes=${noop} onPlay=${noop}
    onLeave=${noop} ...${props} />`);
}

test("Play rated: the choices, Play; queued: the queue's size, Leave, the choices fixed", () => {
  const played = [];
  const idle = panel({ onPlay: () => played.push("play"), onMode: (v) => played.push(v) });
  assert.equal(byId(idle, "rated-mode").props.value, "multi");
  assert.equal(byId(idle, "rated-mode").props.disabled, false);
  assert.deepEqual(findAll(byId(idle, "rated-seats"), (n) => n.type === "option")
    .map((o) => o.props.value), ["2,3,4", "2", "3", "4"]);
  byId(idle, "rated-play").props.onClick();
  byId(idle, "rated-mode").props.onChange({ currentTarget: { value: "race" } });
  assert.deepEqual(played, ["play", "race"]);
  assert.equal(byId(idle, "rated-leave"), undefined);
  const queued = panel({ waiting: { waiting: 3, rating: 1500, provisional: true },
    mine: { rating: 1500, provisional: true }, onLeave: () => played.push("leave") });
  assert.equal(textOf(byId(queued, "rated-status")), "Waiting for players (3 in the queue)\u2026");
  assert.equal(byId(queued, "rated-seats").props.disabled, true);
  assert.equal(byId(queued, "rated-play"), undefined);
  byId(queued, "rated-leave").props.onClick();
  assert.equal(played.at(-1), "leave");
  assert.equal(textOf(byId(queued, "rated-mine")), "Your rating: 1500? (provisional)");
  const games = panel({ games: [{ room: "r9", before: { rating: 1500, provisional: true },
    after: { rating: 1523, provisional: false } }], error: "Could not join the queue: x" });
  assert.equal(textOf(byId(games, "rated-games")), "r9: 1500? \u2192 1523");
  assert.match(textOf(games), /Could not join the queue: x/);
});

test("the rated board: established ratings only, ten at most, or who gets on it", () => {
  const entries = Array.from({ length: 14 }, (_, i) => ({ name: `p${i}`, rating: 1700 - i,
    provisional: i === 0 }));
  const rows = findAll(expand(html`<${RatedBoard} entries=${entries} />`),
    (n) => n.type === "tr" && n.props["data-name"]);
  assert.equal(rows.length, 10);
  assert.deepEqual(findAll(rows[0], (n) => n.type === "td").map((td) => textOf(td)),
    ["1", "p1", "1699"]);
  assert.match(textOf(expand(html`<${RatedBoard} entries=${[]} />`)),
    /^Rated board \(established ratings\)Nobody yet: a rating is established after about 12 games\.$/);
});

test("ratings drawn: a change, a seat's (provisional marked), the rated table's banner", () => {
  const [change] = expand(html`<${RatingChange} before=${{ rating: 1500, provisional: true }}
    after=${{ rating: 1523, provisional: false }} />`);
  assert.equal(textOf(change), " \u00b7 rating 1500? \u2192 1523");
  assert.deepEqual([change.props["data-before"], change.props["data-after"]], [1500, 1523]);
  assert.equal(change.props["aria-label"], "rating 1500, provisional before, rating 1523 after");
  const [seat] = expand(html`<${SeatRating} rating=${{ rating: 1480, provisional: true }} />`);
  assert.deepEqual([seat.props.class, textOf(seat), seat.props.title],
    ["seat-rating provisional", "1480?", "provisional rating"]);
  const [banner] = expand(html`<${RatedBanner} seats=${[
    { name: "Ann", rating: { rating: 1523, provisional: false } },
    { name: "Bob", rating: { rating: 1500, provisional: true } }]} />`);
  assert.equal(textOf(banner), "Rated game \u00b7 Ann 1523, Bob 1500?");
});

/** A fetch() answering `answers(url)` (a JSON body, or a thrown error: status 500);
 * `asked` gets each url. */
function fakeFetch(asked, answers) {
  return async (url) => {
    asked.push(url);
    try {
      const body = answers(url);
      return { ok: true, status: 200, json: async () => body };
    } catch {
      return { ok: false, status: 500, json: async () => ({}) };
    }
  };
}

/** Wait until the promises already made have settled (the Rated reads). */
const settled = () => new Promise((done) => setTimeout(done, 0));

test("the Rated state: its panel element draws it; a rated table reads its seats' ratings " +
     "by key, whatever their rank", async (t) => {
  const app = { render: noop, room: null, account: { info: null } };
  const rated = new Rated(app);
  rated.waiting = { waiting: 2, rating: 1500, provisional: true };
  assert.match(textOf(byId(expand(rated.panel()), "rated-status")), /2 in the queue/);
  rated.changes.set("r1", { room: "r1", before: { rating: 1500, provisional: true },
    after: { rating: 1510, provisional: true } });
  assert.equal(textOf(expand(rated.change("r1"))), " \u00b7 rating 1500? \u2192 1510?");
  assert.equal(rated.change("r2"), null);
  // Ann is on the list; Cy is beyond it (or a guest off a registered-only list): the
  // table's read by key answers both; Bob has no rating; the fourth seat no account.
  rated.entries = [{ name: "Ann", rating: 1610, provisional: false, key: "k1" }];
  const byKey = { k1: rated.entries[0], k3: { name: "Cy", rating: 1234, provisional: false,
    key: "k3" } };
  const asked = [];
  let failing = false;
  t.mock.method(globalThis, "fetch", fakeFetch(asked, (url) => {
    if (failing) throw new Error("down");
    const keys = new URL(url, "http://x").searchParams.getAll("key");
    return { entries: keys.filter((k) => k in byKey).map((k) => byKey[k]) };
  }));
  const room = { roomId: "r5", view: { room: { rated: true, mode: "multi", players: [
    { name: "Ann", key: "k1" }, { name: "Bob", key: "k2" }, { name: "Cy", key: "k3" },
    { name: "Dee", key: null }] } } };
  assert.equal(rated.seatRatingOf(room, 0), null, "nothing shown while being read");
  await settled();
  assert.deepEqual(asked, ["/ratings?game=skipper&mode=multi&key=k1&key=k2&key=k3"]);
  assert.deepEqual([0, 1, 2, 3].map((i) => rated.seatRatingOf(room, i)), [byKey.k1,
    { rating: 1500, provisional: true }, byKey.k3, { rating: 1500, provisional: true }]);
  assert.equal(rated.seatRatingOf({ ...room, view: { room: { players: [] } } }, 0), null);
  assert.equal(rated.banner(), null, "no banner outside the queue's room");
  rated.room = "r5";
  app.room = room;
  assert.equal(textOf(expand(rated.banner())),
    "Rated game \u00b7 Ann 1610, Bob 1500?, Cy 1234, Dee 1500?");
  assert.equal(asked.length, 1, "read once per table");
  // The game ends: read again; the ratings read before stay shown meanwhile.
  byKey.k3 = { ...byKey.k3, rating: 1250 };
  rated.epoch += 1;
  assert.equal(rated.seatRatingOf(room, 2).rating, 1234);
  await settled();
  assert.equal(rated.seatRatingOf(room, 2).rating, 1250);
  assert.equal(asked.length, 2);
  // A table whose read fails falls back on the list.
  failing = true;
  const other = { roomId: "r6", view: { room: { rated: true, mode: "multi", players: [
    { name: "Ann", key: "k1" }, { name: "Cy", key: "k3" }] } } };
  assert.equal(rated.seatRatingOf(other, 0), null);
  await settled();
  assert.deepEqual([rated.seatRatingOf(other, 0), rated.seatRatingOf(other, 1)],
    [byKey.k1, { rating: 1500, provisional: true }]);
});

test("the sound toggle: a switch showing the setting; pressing it flips the kept one", () => {
  const store = new Map();
  globalThis.localStorage = { getItem: (k) => store.get(k) ?? null,
    setItem: (k, v) => store.set(k, v) };
  let toggled = 0;
  const [off] = expand(html`<${SoundToggle} on=${false} onToggle=${() => toggled++} />`);
  assert.deepEqual([off.props.id, off.props.role, off.props["aria-checked"]],
    ["sound-toggle", "switch", "false"]);
  assert.match(textOf(off), /Sounds off$/);
  off.props.onClick();
  assert.equal(toggled, 1);
  let renders = 0;
  const app = { render: () => renders++ };
  const [now] = expand(soundToggle(app));
  assert.equal(now.props["aria-checked"], "false");
  store.set("cardhall.sound", "on"); // turned on (without playing: no audio under node)
  const [on] = expand(soundToggle(app));
  assert.equal(on.props["aria-checked"], "true");
  assert.match(textOf(on), /Sounds on$/);
  on.props.onClick();
  assert.deepEqual([soundOn(), renders], [false, 1]);
});
