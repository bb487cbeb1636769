// @ts-check
// Accounts in the browser (protocol/README.md "Accounts"): the page signs in on every
// connection, with its access token (refreshed when it expired), else as this browser's
// guest (a device secret made once and kept in localStorage). The account menu signs in,
// registers (a guest keeps its games), signs out, and shows the account's games from every
// device (`get_my_games`): Resume takes a running seat back here; a finished game this
// browser kept (replay.js, the lobby's "My games") opens in the replay viewer. A password
// sign-in's remembered-device token is kept per username and sent with the next login of
// that username (`login.device`): guesses from elsewhere never lock this browser out.
// The AccountMenu holds the state and the actions; the Preact components below (AccountBar,
// AccountForm, GamesPanel) only draw it (issue #44: the pop-overs close with Escape and a
// click outside: AccountMenu's document listeners).
import { html } from "./ui.js";
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
    const saved = JSON.parse(localStorage.getItem(TOKENS_KEY) || "null");
    return saved && typeof saved.token === "string" ? saved : null;
  } catch {
    return null;
  }
}

function rememberedTokens() {
  try {
    const saved = JSON.parse(localStorage.getItem(REMEMBERED_KEY) || "null");
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
/** Who the page is signed in as, and the account menu's state and actions (AccountBar
 * draws them). `app`: the App (app.js): its session, render(), rated, resumeAccount(). */
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
      const inside = event.composedPath()
        .some((el) => el instanceof Element && el.id === "account");
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

  /** The display name signed in as ("" before the first sign-in). */
  get name() {
    return this.info ? this.info.name : "";
  }

  /** Keep an `account` reply: its tokens in localStorage, the rest as `info`. */
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
      } catch (/** @type {any} */ err) {
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
    } catch (/** @type {any} */ err) {
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
    } catch (/** @type {any} */ err) {
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

  /** Open My games and read the account's games (`get_my_games`) and rating changes. */
  async showGames() {
    this.panel = "games";
    this.error = "";
    try {
      const [games] = await Promise.all([
        this.app.session.request({ t: "get_my_games", limit: 20 }),
        this.app.rated ? this.app.rated.loadChanges() : null,
      ]);
      this.games = games;
    } catch (/** @type {any} */ err) {
      this.error = err.message;
    }
    this.app.render();
  }

  /** Open `panel` ("signin", "register", "games"), or close it when it is open. */
  toggle(panel) {
    this.panel = this.panel === panel ? null : panel;
    this.error = "";
    if (this.panel === "games") this.showGames();
    else this.app.render();
  }

  /** The menu's state and actions for AccountBar (what the components draw). */
  props() {
    return {
      info: this.info,
      panel: this.panel,
      error: this.error,
      games: this.games,
      draft: this.draft,
      change: (/** @type {string} */ room) => (this.app.rated ? this.app.rated.change(room) : null),
      onToggle: (/** @type {string} */ panel) => this.toggle(panel),
      onSignOut: () => this.signOut(),
      onDraft: (/** @type {"username" | "password"} */ key, /** @type {string} */ value) => {
        this.draft[key] = value;
      },
      onSubmit: (/** @type {string} */ kind) => this._submit(kind),
      onResume: (/** @type {string} */ room) => this.app.resumeAccount(room),
      onReplay: (/** @type {MyGame} */ g) => {
        const kept = myGames().find((/** @type {any} */ r) => r.room === g.room);
        this.panel = null;
        openReplay(this.app, kept || serverRecord(g));
      },
    };
  }

  /** The account menu as a Preact element (AccountBar with this menu's state). */
  render() {
    return html`<${AccountBar} ...${this.props()} />`;
  }
}

/**
 * @typedef {{ account?: string, name: string, username?: string, guest: boolean }} AccountInfo
 *   an `account` reply without its tokens (protocol/README.md "Accounts")
 * @typedef {{ room: string, name: string, game: string, seat: number, status: string }} Running
 *   a `my_games` running seat
 * @typedef {{ room: string, name: string, game: string, finished: number, result: string,
 *   score: number | null }} MyGame  a `my_games` finished game
 * @typedef {{ running: Running[], finished: MyGame[], total: number }} MyGames
 *   the `my_games` reply
 * @typedef {{ username: string, password: string }} Draft  what the form holds
 * @typedef {{ info: AccountInfo | null, panel: string | null, error: string,
 *   games: MyGames | null, draft: Draft, change: (room: string) => any,
 *   onToggle: (panel: string) => void, onSignOut: () => void,
 *   onDraft: (key: "username" | "password", value: string) => void,
 *   onSubmit: (kind: string) => void, onResume: (room: string) => void,
 *   onReplay: (g: MyGame) => void }} AccountProps  AccountMenu.props()
 */

/** @param {any} event  an input event @returns {string} its input's value */
const valueOf = (event) => event.currentTarget.value;

/**
 * The Register or Sign in form (`kind`: "register" or "signin"); sends with onSubmit
 * ("register" or "login"), each keystroke kept by onDraft.
 * @param {{ kind: string, draft: Draft, onDraft: AccountProps["onDraft"],
 *   onSubmit: (kind: string) => void }} p
 */
export function AccountForm({ kind, draft, onDraft, onSubmit }) {
  const register = kind === "register";
  /** @param {Event} event */
  const send = (event) => {
    event.preventDefault();
    onSubmit(register ? "register" : "login");
  };
  return html`<form class="account-form" id=${`${kind}-form`} onSubmit=${send}>
    <label for="account-username">Username</label>
    <input type="text" id="account-username" maxlength="64" autocomplete="username"
      value=${draft.username}
      onInput=${(/** @type {any} */ e) => onDraft("username", valueOf(e))} />
    <label for="account-password">Password</label>
    <input type="password" id="account-password" maxlength="1024"
      autocomplete=${register ? "new-password" : "current-password"} value=${draft.password}
      onInput=${(/** @type {any} */ e) => onDraft("password", valueOf(e))} />
    ${register ? html`<p class="doc">${"8 characters at least. Your games and scores " +
      "as a guest stay yours."}</p>` : null}
    <button type="submit" id=${`${kind}-submit`}>${register ? "Register" : "Sign in"}</button>
  </form>`;
}

/**
 * My games of the account (`get_my_games`): the seats it holds (Resume) and its finished
 * games (Replay, with the rating change of a rated one); "Loading…" (or the error) before.
 * @param {{ games: MyGames | null, error: string, change: (room: string) => any,
 *   onResume: (room: string) => void, onReplay: (g: MyGame) => void }} p
 */
export function GamesPanel({ games, error, change, onResume, onReplay }) {
  if (!games) return html`<p class="doc">${error || "Loading\u2026"}</p>`;
  const running = games.running.map((g) => html`<li key=${g.room} data-room=${g.room}>
    ${`${g.name} (${g.game}, seat ${g.seat}, ${g.status}) `}
    <button type="button" class="resume" onClick=${() => onResume(g.room)}>Resume</button>
  </li>`);
  const finished = games.finished.map((g) => html`<li key=${g.room} data-room=${g.room}>
    ${`${when(g.finished)}: ${g.name} (${g.game}) \u2014 ${g.result}` +
      (g.score === null ? "" : `, ${g.score}`)}
    ${change(g.room)}
    <button type="button" class="secondary replay-open" onClick=${() => onReplay(g)}>
      Replay</button>
  </li>`);
  return html`<div id="account-history">
    <h3>Playing now</h3>
    ${running.length ? html`<ul id="my-running">${running}</ul>`
      : html`<p class="none">No seat.</p>`}
    <h3>Finished (${games.total})</h3>
    ${finished.length ? html`<ul id="my-finished">${finished}</ul>`
      : html`<p class="none">None yet.</p>`}
  </div>`;
}

/**
 * The account menu of the header: who the page is signed in as, the buttons the account
 * allows (Sign in and Register for a guest, My games, Sign out when registered), and the
 * open pop-over (a form or My games) with its error.
 * @param {AccountProps} p
 */
export function AccountBar(p) {
  const info = p.info;
  const label = info ? `${info.name}${info.guest ? " (guest)" : ""}` : "not signed in";
  /** @param {string} id @param {string} text @param {() => void} onClick */
  const button = (id, text, onClick) => html`<button type="button" id=${id} class="link"
    aria-expanded=${id === `account-${p.panel}` ? "true" : undefined}
    onClick=${onClick}>${text}</button>`;
  const guest = Boolean(info && info.guest);
  let panel = null;
  if (p.panel === "signin" || p.panel === "register") {
    panel = html`<${AccountForm} kind=${p.panel} draft=${p.draft} onDraft=${p.onDraft}
      onSubmit=${p.onSubmit} />`;
  } else if (p.panel === "games") {
    panel = html`<${GamesPanel} games=${p.games} error=${p.error} change=${p.change}
      onResume=${p.onResume} onReplay=${p.onReplay} />`;
  }
  return html`<div class="account" id="account">
    <span id="account-name" data-guest=${guest ? "1" : "0"}>${label}</span>
    ${!info || guest ? button("account-signin", "Sign in", () => p.onToggle("signin")) : null}
    ${guest ? button("account-register", "Register", () => p.onToggle("register")) : null}
    ${info ? button("account-games", "My games", () => p.onToggle("games")) : null}
    ${info && !guest ? button("account-signout", "Sign out", p.onSignOut) : null}
    ${panel ? html`<div class="account-drawer">
      <div class="panel account-panel" id="account-panel">
        ${panel}
        ${p.error ? html`<p class="error" id="account-error">${p.error}</p>` : null}
      </div></div>` : null}
  </div>`;
}
