// Unit tests of the account menu (server/static/js/account.js) under `node --test`: what
// AccountBar, AccountForm and GamesPanel draw for the state the AccountMenu holds, what their
// controls hand back, and the menu's own state: a pop-over closes with Escape and with a
// click outside the menu, not with one inside (issue #44 item 6).
import { test } from "node:test";
import assert from "node:assert/strict";
import { html } from "../../../server/static/js/ui.js";
import { AccountBar, AccountForm, AccountMenu, GamesPanel } from "../../../server/static/js/account.js";
import { expand, findAll, textOf } from "./vnodes.mjs";

const byId = (tree, id) => findAll(tree, (n) => n.props.id === id)[0];
const buttons = (tree) => findAll(tree, (n) => n.type === "button").map((b) => b.props.id);
const noop = () => {};
const GUEST = { account: "g1", name: "Zed", guest: true };
const ANN = { account: "a1", name: "Ann", username: "ann", guest: false };

function bar(props) {
  const p = { info: null, panel: null, error: "", games: null,
    draft: { username: "", password: "" }, change: () => null, onToggle: noop,
    onSignOut: noop, onDraft: noop, onSubmit: noop, onResume: noop, onReplay: noop, ...props };
  return expand(html`<${AccountBar} ...${p} />`);
}

test("the bar: a guest may sign in or register, an account may sign out; no panel closed", () => {
  const guest = bar({ info: GUEST });
  assert.equal(textOf(byId(guest, "account-name")), "Zed (guest)");
  assert.equal(byId(guest, "account-name").props["data-guest"], "1");
  assert.deepEqual(buttons(guest), ["account-signin", "account-register", "account-games"]);
  assert.equal(byId(guest, "account-panel"), undefined);
  const ann = bar({ info: ANN });
  assert.equal(textOf(byId(ann, "account-name")), "Ann");
  assert.deepEqual(buttons(ann), ["account-games", "account-signout"]);
  const none = bar({});
  assert.equal(textOf(byId(none, "account-name")), "not signed in");
  assert.deepEqual(buttons(none), ["account-signin"]);
});

test("the bar's buttons hand the panel to open back; the open one is marked expanded", () => {
  const toggled = [];
  const tree = bar({ info: GUEST, panel: "register", onToggle: (p) => toggled.push(p) });
  for (const id of ["account-signin", "account-register", "account-games"]) {
    byId(tree, id).props.onClick();
  }
  assert.deepEqual(toggled, ["signin", "register", "games"]);
  assert.equal(byId(tree, "account-register").props["aria-expanded"], "true");
  assert.equal(byId(tree, "account-signin").props["aria-expanded"], undefined);
  assert.ok(byId(tree, "register-form"), "the open panel shows its form");
  assert.equal(byId(bar({ info: GUEST, panel: "signin", error: "bad password" }),
    "account-error").children[0], "bad password");
});

test("the form shows the draft, hands each keystroke and the submit back", () => {
  const typed = [];
  const sent = [];
  const form = expand(html`<${AccountForm} kind="signin" draft=${{ username: "ann", password: "pw" }}
    onDraft=${(k, v) => typed.push([k, v])} onSubmit=${(k) => sent.push(k)} />`);
  assert.equal(byId(form, "account-username").props.value, "ann");
  assert.equal(byId(form, "account-password").props.autocomplete, "current-password");
  assert.equal(textOf(byId(form, "signin-submit")), "Sign in");
  byId(form, "account-username").props.onInput({ currentTarget: { value: "anna" } });
  byId(form, "account-password").props.onInput({ currentTarget: { value: "secret" } });
  let prevented = false;
  byId(form, "signin-form").props.onSubmit({ preventDefault: () => (prevented = true) });
  assert.deepEqual(typed, [["username", "anna"], ["password", "secret"]]);
  assert.deepEqual(sent, ["login"]);
  assert.ok(prevented);
  const reg = expand(html`<${AccountForm} kind="register" draft=${{ username: "", password: "" }}
    onDraft=${noop} onSubmit=${(k) => sent.push(k)} />`);
  assert.equal(byId(reg, "account-password").props.autocomplete, "new-password");
  assert.match(textOf(reg), /8 characters at least\. Your games and scores as a guest stay yours\./);
  byId(reg, "register-form").props.onSubmit({ preventDefault: noop });
  assert.deepEqual(sent, ["login", "register"]);
});

test("My games: seats with Resume, finished games with the rating change and Replay", () => {
  const games = {
    running: [{ room: "r1", name: "Skipper table", game: "skipper", seat: 0, status: "playing" }],
    finished: [{ room: "r2", name: "Solo", game: "shop", finished: 0, result: "won", score: 27 },
      { room: "r3", name: "Duel", game: "skipper", finished: 0, result: "lost", score: null }],
    total: 7,
  };
  const resumed = [];
  const replayed = [];
  const tree = expand(html`<${GamesPanel} games=${games} error=""
    change=${(room) => (room === "r3" ? html`<span class="rating-change">R</span>` : null)}
    onResume=${(r) => resumed.push(r)} onReplay=${(g) => replayed.push(g.room)} />`);
  const running = findAll(byId(tree, "my-running"), (n) => n.type === "li");
  assert.equal(running.length, 1);
  assert.match(textOf(running[0]), /^Skipper table \(skipper, seat 0, playing\) Resume$/);
  findAll(running[0], (n) => n.type === "button")[0].props.onClick();
  const finished = findAll(byId(tree, "my-finished"), (n) => n.type === "li");
  assert.deepEqual(finished.map((li) => li.props["data-room"]), ["r2", "r3"]);
  assert.match(textOf(finished[0]), /: Solo \(shop\) \u2014 won, 27/);
  assert.doesNotMatch(textOf(finished[1]), /null/);
  assert.equal(findAll(finished[0], (n) => n.props.class === "rating-change").length, 0);
  assert.equal(findAll(finished[1], (n) => n.props.class === "rating-change").length, 1);
  findAll(finished[1], (n) => n.type === "button")[0].props.onClick();
  assert.deepEqual([resumed, replayed], [["r1"], ["r3"]]);
  assert.match(textOf(tree), /Finished \(7\)/);
  const empty = expand(html`<${GamesPanel} games=${{ running: [], finished: [], total: 0 }}
    error="" change=${() => null} onResume=${noop} onReplay=${noop} />`);
  assert.match(textOf(empty), /No seat\..*None yet\./);
  const loading = expand(html`<${GamesPanel} games=${null} error="" change=${() => null}
    onResume=${noop} onReplay=${noop} />`);
  assert.equal(textOf(loading), "Loading\u2026");
});

/** A document with listeners and buttons by id, enough for AccountMenu. */
function fakeDocument() {
  const listeners = {};
  const focused = [];
  globalThis.Element = class Element {};
  globalThis.document = {
    addEventListener: (type, fn) => (listeners[type] = fn),
    getElementById: (id) => ({ focus: () => focused.push(id) }),
  };
  const element = (id) => Object.assign(new globalThis.Element(), { id });
  return { listeners, focused, element };
}

test("an open pop-over closes with Escape (focus back on its button) and a click outside", () => {
  const doc = fakeDocument();
  let renders = 0;
  const menu = new AccountMenu({ render: () => renders++ });
  menu.toggle("signin");
  assert.equal(menu.panel, "signin");
  doc.listeners.keydown({ key: "Enter" });
  assert.equal(menu.panel, "signin");
  doc.listeners.keydown({ key: "Escape" });
  assert.equal(menu.panel, null);
  assert.deepEqual(doc.focused, ["account-signin"]);
  menu.toggle("register");
  const inside = [doc.element("account-username"), doc.element("account"), {}];
  doc.listeners.click({ composedPath: () => inside });
  assert.equal(menu.panel, "register", "a click inside the menu keeps it open");
  doc.listeners.click({ composedPath: () => [doc.element("rooms"), {}] });
  assert.equal(menu.panel, null);
  assert.deepEqual(doc.focused, ["account-signin"], "a click outside moves no focus");
  assert.ok(renders >= 4);
  menu.toggle("register");
  menu.toggle("register");
  assert.equal(menu.panel, null, "its button again closes it");
});

test("the menu's element draws its state and its actions change it", async () => {
  fakeDocument();
  const asked = [];
  const app = { render: noop, rated: null, session: {
    request: async (msg) => {
      asked.push(msg.t);
      return { running: [], finished: [], total: 0 };
    } } };
  const menu = new AccountMenu(app);
  menu.info = GUEST;
  const tree = expand(menu.render());
  byId(tree, "account-games").props.onClick();
  await new Promise((resolve) => setTimeout(resolve, 0));
  assert.equal(menu.panel, "games");
  assert.deepEqual(asked, ["get_my_games"]);
  const open = expand(menu.render());
  assert.match(textOf(byId(open, "account-panel")), /No seat\./);
  const form = new AccountMenu(app);
  form.info = GUEST;
  form.toggle("signin");
  byId(expand(form.render()), "account-username").props.onInput({ currentTarget: { value: "x" } });
  assert.equal(form.draft.username, "x");
  assert.equal(byId(expand(form.render()), "account-username").props.value, "x");
});
