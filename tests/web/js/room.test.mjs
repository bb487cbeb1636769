// Unit tests of the table screen's components on Preact (room_views.js, chat.js, links.js,
// help.js; issue #44 "The web client") under `node --test`: what each draws from its props
// and which action each control calls, without a DOM (vnodes.mjs).
import { test } from "node:test";
import assert from "node:assert/strict";
import { html } from "../../../server/static/js/ui.js";
import {
  SeatsPanel, TurnLine, Question, GameOverPanel, LogPanel, RoomScreen,
} from "../../../server/static/js/room_views.js";
import { ChatPanel, countOf, MAX_LEN } from "../../../server/static/js/chat.js";
import { CopyLink, SpectatorsPanel } from "../../../server/static/js/links.js";
import { AuctionHelp } from "../../../server/static/js/help.js";
import { expand, findAll, textOf } from "./vnodes.mjs";

const byId = (tree, id) => findAll(tree, (n) => n.props.id === id)[0];
const seat = (over) => ({ name: "Bob", status: "connected", acting: false, me: false,
  host: false, toAct: false, deadline: null, rating: null, ...over });

test("the seat list: each seat's status, the one to act, its timer, the host", () => {
  const seats = [seat({ name: "Ann (you)", me: true, acting: true, toAct: true, deadline: 99 }),
    seat({ name: "seat 1: free", status: "free", host: false }),
    seat({ name: "Bot 2", status: "bot", host: true })];
  const tree = expand(html`<${SeatsPanel} seats=${seats} offline=${false} />`);
  const items = findAll(tree, (n) => n.type === "li");
  assert.deepEqual(items.map((li) => [li.props["data-seat"], li.props["data-status"]]),
    [[0, "connected"], [1, "free"], [2, "bot"]]);
  assert.equal(items[0].props.class, "seat-item connected acting me");
  assert.match(textOf(items[0]), /^Ann \(you\)connectedto act$/);
  const timer = findAll(items[0], (n) => n.props["data-deadline"] !== undefined)[0];
  assert.equal(timer.props["data-deadline"], 99);
  assert.equal(timer.props["aria-label"], "time left for Ann (you)");
  assert.equal(textOf(items[1]), "seat 1: free");
  assert.equal(findAll(items[2], (n) => n.props.class === "host").length, 1);
  assert.equal(findAll(tree, (n) => n.props.class === "note").length, 0);
  const lost = expand(html`<${SeatsPanel} seats=${[seat({ status: "unknown" })]} offline=${true} />`);
  assert.match(textOf(lost), /Connection lost: reconnecting/);
  assert.match(textOf(findAll(lost, (n) => n.type === "li")), /Bob\?$/);
});

/** TurnLine's props, with the calls made recorded in `calls`. */
function turnProps(calls, over = {}) {
  return { turn: "Your turn", mine: true, myDeadline: null, code: null, canStart: false,
    watching: false, link: { url: "http://x/r/ab", status: "" }, game: "skipper",
    gameTitle: "Skipper", onStart: () => calls.push("start"), onLeave: () => calls.push("leave"),
    onCopy: () => calls.push("copy"), ...over };
}

test("the turn line: whose turn, Start for the host of a waiting room, Leave or Stop watching", () => {
  const calls = [];
  const tree = expand(html`<${TurnLine} ...${turnProps(calls)} />`);
  assert.equal(textOf(byId(tree, "turn")), "Your turn");
  assert.equal(byId(tree, "turn").props.class, "mine");
  assert.equal(byId(tree, "start"), undefined);
  assert.equal(textOf(byId(tree, "leave")), "Leave");
  byId(tree, "leave").props.onClick();
  byId(tree, "copy-link").props.onClick();
  assert.ok(byId(tree, "how-to-play"));
  const host = expand(html`<${TurnLine} ...${turnProps(calls, { canStart: true, code: "K7Q",
    watching: true, myDeadline: 50 })} />`);
  byId(host, "start").props.onClick();
  assert.equal(textOf(byId(host, "room-code")), "K7Q");
  assert.equal(textOf(byId(host, "leave")), "Stop watching");
  assert.equal(findAll(host, (n) => n.props.class === "timer big").length, 1);
  assert.deepEqual(calls, ["leave", "copy", "start"]);
});

test("a question: its ids from the prefix, yes and no call their actions", () => {
  const calls = [];
  const tree = expand(html`<${Question} id="confirm" prefix="confirm" question="Resign?"
    yes="Yes, give up" no="No, play on" onYes=${() => calls.push("yes")}
    onNo=${() => calls.push("no")} />`);
  assert.equal(tree[0].props.role, "alertdialog");
  assert.equal(tree[0].props["aria-labelledby"], "confirm-q");
  assert.equal(textOf(byId(tree, "confirm-q")), "Resign?");
  byId(tree, "confirm-yes").props.onClick();
  byId(tree, "confirm-no").props.onClick();
  assert.deepEqual(calls, ["yes", "no"]);
});

test("the game-over panel: the outcome, why, Replay once the game_over came", () => {
  const props = { outcome: "You won.", why: "", canReplay: false, onReplay() {}, onAgain() {},
    onLobby() {} };
  const before = expand(html`<${GameOverPanel} ...${props} />`);
  assert.equal(textOf(byId(before, "outcome")), "You won.");
  assert.equal(byId(before, "outcome-why"), undefined);
  assert.equal(byId(before, "replay-open"), undefined);
  const after = expand(html`<${GameOverPanel} ...${{ ...props, why: "all four stacks",
    canReplay: true }} />`);
  assert.equal(textOf(byId(after, "outcome-why")), "all four stacks");
  assert.ok(byId(after, "replay-open") && byId(after, "play-again"));
});

test("the log shows its lines with card codes as cards", () => {
  const tree = expand(html`<${LogPanel} lines=${["You played 7H.", "Bob left."]} />`);
  assert.deepEqual(findAll(byId(tree, "log"), (n) => n.type === "li").map(textOf),
    ["You played 7\u2665.", "Bob left."]);
});

/** ChatPanel's props: `lines` of the table and of the spectators. */
function chatProps(over = {}) {
  const calls = [];
  return { calls, props: { players: [{ n: 1, seat: 0, name: "Ann", text: "hi" },
    { n: 2, seat: 1, name: "Bob", emote: "good_luck" }],
  watchers: [], muted: ["Eve"], draft: "", error: "", me: "Ann", mySeat: 0,
  stick: { players: true, watchers: true }, onDraft: (t) => calls.push(["draft", t]),
  onSend: () => calls.push(["send"]), onEmote: (w) => calls.push(["emote", w]),
  onMute: (n) => calls.push(["mute", n]), ...over } };
}

test("the chat: lines as text, emotes drawn, mute for others only, the muted listed", () => {
  const { calls, props } = chatProps();
  const tree = expand(html`<${ChatPanel} ...${props} />`);
  const lines = findAll(byId(tree, "chat-players"), (n) => n.props["data-n"] !== undefined);
  assert.deepEqual(lines.map(textOf), ["Ann: hi", "Bob: \u{1F340} Good luckmute"]);
  findAll(lines[1], (n) => n.props.class === "link mute")[0].props.onClick();
  assert.match(textOf(byId(tree, "chat-spectators")), /Nothing said yet/);
  assert.equal(textOf(byId(tree, "chat-muted")), "Muted: Eve");
  findAll(tree, (n) => n.props["data-emote"] === "hello")[0].props.onClick();
  byId(tree, "chat-input").props.onInput({ currentTarget: { value: "typed" } });
  let prevented = false;
  byId(tree, "chat-form").props.onSubmit({ preventDefault: () => (prevented = true) });
  assert.ok(prevented);
  assert.deepEqual(calls, [["mute", "Bob"], ["emote", "hello"], ["draft", "typed"], ["send"]]);
});

test("the chat's count: the characters typed against the limit; over it, Send is off", () => {
  assert.deepEqual(countOf(" hello "), { text: `5/${MAX_LEN}`, state: "" });
  assert.equal(countOf("x".repeat(MAX_LEN - 10)).state, "near");
  const long = "y".repeat(MAX_LEN + 4);
  assert.deepEqual(countOf(long), { text: `${MAX_LEN + 4}/${MAX_LEN}: 4 too many`, state: "over" });
  const tree = expand(html`<${ChatPanel} ...${chatProps({ draft: long }).props} />`);
  assert.equal(byId(tree, "chat-send").props.disabled, true);
  assert.equal(byId(tree, "chat-input").props.value, long);
  assert.equal(byId(tree, "chat-count").props.class, "chat-count over");
});

test("Copy link says what became of a copy; the spectators are listed by name", () => {
  const url = "http://h/r/ab";
  assert.equal(textOf(byId(expand(html`<${CopyLink} url=${url} status="copied"
    onCopy=${() => {}} />`), "link-status")), "Link copied");
  const shown = expand(html`<${CopyLink} url=${url} status="shown" onCopy=${() => {}} />`);
  assert.equal(findAll(byId(shown, "link-status"), (n) => n.type === "input")[0].props.value, url);
  const view = { room: { spectators: { count: 3, names: ["Cy", "Di"] } } };
  const tree = expand(html`<${SpectatorsPanel} view=${view} />`);
  assert.equal(textOf(findAll(tree, (n) => n.type === "h2")), "Watching (3)");
  assert.deepEqual(findAll(tree, (n) => n.type === "li").map(textOf), ["Cy", "Di", "and 1 more"]);
  assert.match(textOf(expand(html`<${SpectatorsPanel} view=${{}} />`)), /Nobody is watching/);
  assert.match(textOf(expand(html`<${AuctionHelp} text="In an auction, bid." />`)),
    /How does an auction work\?In an auction, bid\./);
});

/** RoomScreen's props for a game of `players` seats; `others` gives the other actions. */
function screenProps(players, others) {
  return { room: "ab", seat: 0, stateId: 4, mine: true, over: false, status: "playing",
    turn: turnProps([]), error: "", confirm: null, leave: null, gameOver: null,
    auction: null, table: html`<p id="probe">table</p>`, others,
    seats: players.map((i) => seat({ name: `P${i}` })), offline: false, solo: players.length === 1,
    view: { room: {} }, chat: players.length === 1 ? null : chatProps().props, log: ["x"] };
}

test("the room screen: its facts as data-*, the table, chat and spectators but in solo", () => {
  const multi = expand(html`<${RoomScreen} ...${screenProps([0, 1], () => [])} />`);
  const main = byId(multi, "room");
  assert.equal(main.props["data-state-id"], 4);
  assert.equal(main.props["data-mine"], "1");
  assert.ok(byId(multi, "probe") && byId(multi, "chat") && byId(multi, "spectators"));
  const solo = expand(html`<${RoomScreen} ...${screenProps([0], () => [])} />`);
  assert.equal(byId(solo, "chat"), undefined);
  assert.equal(byId(solo, "spectators"), undefined);
  assert.equal(findAll(solo, (n) => n.props.class === "other-actions").length, 0);
});

test("the other actions are asked for after the table is drawn (what it handled is known)", () => {
  const order = [];
  const Table = () => {
    order.push("table");
    return html`<p>cards</p>`;
  };
  const others = () => {
    order.push("others");
    return [html`<button class="action">Resign</button>`];
  };
  const props = { ...screenProps([0], others), table: html`<${Table} />` };
  const tree = expand(html`<${RoomScreen} ...${props} />`);
  assert.deepEqual(order, ["table", "others"]);
  assert.equal(textOf(findAll(tree, (n) => n.props.class === "other-actions")), "Resign");
});
