// Accounts in the browser (protocol/README.md "Accounts"): the page signs in on every
// connection, with its access token (refreshed when it expired), else as this browser's
// guest (a device secret made once and kept in localStorage). The account menu signs in,
// registers (a guest keeps its games), signs out, and shows the account's games from every
// device (`get_my_games`): Resume takes a running seat back here; a finished game this
// browser kept (replay.js, the lobby's "My games") opens in the replay viewer. A password
// sign-in's remembered-device token is kept per username and sent with the next login of
// that username (`login.device`): guesses from elsewhere never lock this browser out.
import { h } from "./cards.js";
import { RequestError } from "./protocol.js";
import { myGames, openReplay, serverRecord } from "./replay.js";

const DEVICE_KEY = "cardhall.device"; // the guest device secret: 32 random bytes, base64url
const TOKENS_KEY = "cardhall.session"; // {token, refresh, expires}: the sign-in (key kept as stored)
const REMEMBERED_KEY = "cardhall.remembered"; // {username: remembered-device token}
const REMEMBERED_MAX = 10; // accounts whose device tokens one browser keeps

function base64url(bytes) {
  let text = "";
  for (const b of bytes) text += String.fromCharCode(b);
  return btoa(text).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** This browser's guest device secret (made the first time). */
export function deviceSecret() {
  let secret = localStorage.getItem(DEVICE_KEY);
  if (!secret || secret.length < 22) {
    secret = base64url(crypto.getRandomValues(new Uint8Array(32)));
    localStorage.setItem(DEVICE_KEY, secret);
  }
  return secret;
}

function savedTokens() {
  try {
    const saved = JSON.parse(localStorage.getItem(TOKENS_KEY));
    return saved && typeof saved.token === "string" ? saved : null;
  } catch {
    return null;
  }
}

function rememberedTokens() {
  try {
    const saved = JSON.parse(localStorage.getItem(REMEMBERED_KEY));
    return saved && typeof saved === "object" && !Array.isArray(saved) ? saved : {};
  } catch {
    return {};
  }
}

/** The username as the server keeps it, near enough to find a kept device token (the
 * server ignores a token of another account). */
function usernameKey(username) {
  return username.normalize("NFKC").toLowerCase().trim();
}

/** Keep `device` (a remembered-device token) for `username`, the newest last. */
function remember(username, device) {
  const kept = rememberedTokens();
  delete kept[username];
  kept[username] = device;
  const names = Object.keys(kept);
  for (const old of names.slice(0, Math.max(0, names.length - REMEMBERED_MAX))) delete kept[old];
  localStorage.setItem(REMEMBERED_KEY, JSON.stringify(kept));
}

function when(seconds) {
  return new Date(seconds * 1000).toLocaleString([], { dateStyle: "short", timeStyle: "short" });
}

/** Who the page is signed in as, and the account menu. */
export class AccountMenu {
  constructor(app) {
    this.app = app;
    this.info = null; // the last `account` reply (without its tokens)
    this.panel = null; // the open panel: "signin", "register", "games" or null
    this.error = "";
    this.games = null; // the last `my_games` reply
    this.draft = { username: "", password: "" }; // what the form holds across redraws
    // An open panel closes with Escape and with a click outside the account menu.
    document.addEventListener("keydown", (event) => {
      if (event.key === "Escape" && this.panel) this.close(true);
    });
    document.addEventListener("click", (event) => {
      // The path as it was at the click: the menu may have been redrawn since.
      const inside = event.composedPath().some((el) => el && el.id === "account");
      if (this.panel && !inside) this.close(false);
    });
  }

  /** Close the open panel; `refocus`: give the focus back to the button that opened it. */
  close(refocus) {
    const opener = this.panel ? `account-${this.panel}` : null; // the button's id
    this.panel = null;
    this.error = "";
    this.app.render();
    const button = refocus && opener ? document.getElementById(opener) : null;
    if (button) button.focus();
  }

  get name() {
    return this.info ? this.info.name : "";
  }

  _keep(reply) {
    const { token, refresh, expires, device, re, t, ...info } = reply;
    if (token) localStorage.setItem(TOKENS_KEY, JSON.stringify({ token, refresh, expires }));
    if (device) remember(info.username, device);
    this.info = info;
    if (this.app.session) this.app.session.name = info.name;
  }

  /** Sign `session` in: restore the kept sign-in, refresh it, or sign in as this browser's
   * guest. A connection that cannot sign in goes on unsigned (the notice says why). */
  async signIn(session) {
    const saved = savedTokens();
    const tries = [];
    if (saved) tries.push({ t: "restore", token: saved.token });
    if (saved && saved.refresh) tries.push({ t: "refresh", token: saved.refresh });
    tries.push({ t: "guest", secret: deviceSecret() });
    for (const msg of tries) {
      try {
        this._keep(await session.request(msg));
        return;
      } catch (err) {
        if (!(err instanceof RequestError)) throw err; // the connection was lost
        if (msg.t === "guest") this.app.notice = `Not signed in: ${err.message}`;
        else localStorage.removeItem(TOKENS_KEY);
      }
    }
  }

  /** Take the display name `name` (the lobby's "Your name"). */
  async setName(name) {
    const clean = name.trim().replace(/\s+/g, " ");
    if (!clean || clean === this.name) return;
    try {
      this._keep(await this.app.session.request({ t: "set_name", name: clean }));
      this.app.notify("");
    } catch (err) {
      this.app.notify(`That name cannot be yours: ${err.message}`);
    }
  }

  async _submit(kind) {
    const { username, password } = this.draft;
    const msg = { t: kind, username, password };
    const device = kind === "login" ? rememberedTokens()[usernameKey(username)] : undefined;
    if (typeof device === "string" && device) msg.device = device;
    try {
      const reply = await this.app.session.request(msg);
      this._keep(reply);
      this.draft = { username: "", password: "" };
      this.panel = null;
      this.error = "";
    } catch (err) {
      this.error = err.message;
    }
    this.app.render();
  }

  /** Sign out: the sign-in ends, and the page signs in as this browser's guest again. */
  async signOut() {
    try {
      await this.app.session.request({ t: "logout" });
    } catch {
      /* a lost connection: the tokens are forgotten all the same */
    }
    localStorage.removeItem(TOKENS_KEY);
    this.info = null;
    this.panel = null;
    await this.signIn(this.app.session);
    this.app.render();
  }

  async showGames() {
    this.panel = "games";
    this.error = "";
    try {
      const [games] = await Promise.all([
        this.app.session.request({ t: "get_my_games", limit: 20 }),
        this.app.rated ? this.app.rated.loadChanges() : null,
      ]);
      this.games = games;
    } catch (err) {
      this.error = err.message;
    }
    this.app.render();
  }

  toggle(panel) {
    this.panel = this.panel === panel ? null : panel;
    this.error = "";
    if (this.panel === "games") this.showGames();
    else this.app.render();
  }

  _form(kind) {
    const user = h("input", {
      type: "text",
      id: "account-username",
      maxlength: 64,
      autocomplete: "username",
      value: this.draft.username,
    });
    const pass = h("input", {
      type: "password",
      id: "account-password",
      maxlength: 1024,
      autocomplete: kind === "register" ? "new-password" : "current-password",
      value: this.draft.password,
    });
    user.addEventListener("input", () => (this.draft.username = user.value));
    pass.addEventListener("input", () => (this.draft.password = pass.value));
    const form = h(
      "form",
      { class: "account-form", id: `${kind}-form` },
      h("label", { for: "account-username" }, "Username"),
      user,
      h("label", { for: "account-password" }, "Password"),
      pass,
      kind === "register"
        ? h("p", { class: "doc" }, "8 characters at least. Your games and scores as a guest stay yours.")
        : null,
      h(
        "button",
        { type: "submit", id: `${kind}-submit` },
        kind === "register" ? "Register" : "Sign in",
      ),
    );
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      this._submit(kind === "register" ? "register" : "login");
    });
    return form;
  }

  _gamesPanel() {
    const games = this.games;
    if (!games) return h("p", { class: "doc" }, this.error || "Loading\u2026");
    const running = games.running.map((g) =>
      h(
        "li",
        { dataset: { room: g.room } },
        `${g.name} (${g.game}, seat ${g.seat}, ${g.status}) `,
        h(
          "button",
          { type: "button", class: "resume", onclick: () => this.app.resumeAccount(g.room) },
          "Resume",
        ),
      ),
    );
    const kept = new Map(myGames().map((record) => [record.room, record]));
    const finished = games.finished.map((g) =>
      h(
        "li",
        { dataset: { room: g.room } },
        `${when(g.finished)}: ${g.name} (${g.game}) \u2014 ${g.result}` +
          (g.score === null ? "" : `, ${g.score}`),
        this.app.rated ? this.app.rated.change(g.room) : null,
        h(
          "button",
          {
            type: "button",
            class: "secondary replay-open",
            onclick: () => {
              this.panel = null;
              openReplay(this.app, kept.get(g.room) || serverRecord(g));
            },
          },
          "Replay",
        ),
      ),
    );
    return h(
      "div",
      { id: "account-history" },
      h("h3", {}, "Playing now"),
      running.length ? h("ul", { id: "my-running" }, running) : h("p", { class: "none" }, "No seat."),
      h("h3", {}, `Finished (${games.total})`),
      finished.length ? h("ul", { id: "my-finished" }, finished) : h("p", { class: "none" }, "None yet."),
    );
  }

  render() {
    const info = this.info;
    const label = info ? `${info.name}${info.guest ? " (guest)" : ""}` : "not signed in";
    const buttons = [];
    const button = (id, text, onclick) =>
      buttons.push(h("button", { type: "button", id, class: "link", onclick }, text));
    if (!info || info.guest) button("account-signin", "Sign in", () => this.toggle("signin"));
    if (info && info.guest) button("account-register", "Register", () => this.toggle("register"));
    if (info) button("account-games", "My games", () => this.toggle("games"));
    if (info && !info.guest) button("account-signout", "Sign out", () => this.signOut());
    let panel = null;
    if (this.panel === "signin" || this.panel === "register") {
      panel = this._form(this.panel);
    } else if (this.panel === "games") {
      panel = this._gamesPanel();
    }
    return h(
      "div",
      { class: "account", id: "account" },
      h("span", { id: "account-name", dataset: { guest: info && info.guest ? "1" : "0" } }, label),
      buttons,
      panel
        ? h(
            "div",
            { class: "account-drawer" },
            h(
              "div",
              { class: "panel account-panel", id: "account-panel" },
              panel,
              this.error ? h("p", { class: "error", id: "account-error" }, this.error) : null,
            ),
          )
        : null,
    );
  }
}
