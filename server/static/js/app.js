// @ts-check
// The Cardhall web client: one session, a lobby view and a room view.
// Seat tokens live in localStorage ("cardhall.seat"), so a reload resumes the seat; the page
// signs in on every connection (account.js: its access token, else this browser's guest).
// The chrome above the screen (header, connection state, notice) is Preact (chrome.js).
import { AccountMenu } from "./account.js";
import { Session, RequestError, RequestTimeout, applyDelta, defaultUrl } from "./protocol.js";
import { Lobby } from "./lobby.js";
import { RoomView } from "./room.js";
import { loadRenderers } from "./renderers.js";
import { openLink, syncAddress } from "./links.js";
import { measure, animate } from "./motion.js";
import { afterMessage, soundToggle } from "./sound.js";
import { Rated } from "./rated.js";
import { addLobbyAction } from "./lobby_views.js";
import { html, render } from "./ui.js";
import { Chrome } from "./chrome.js";

const SEAT_KEY = "cardhall.seat";
const HOST_KEY = "cardhall.hosted";
const MAX_BACKOFF_MS = 5000;
/** Refusals that mean "not now" (the store fails over, a replica is in its first sync; the
 * message rate is spent): a create, join, resume or spectate so answered is asked again
 * (App.patient). */
const BUSY = new Set(["server/unavailable", "rate/limited"]);
/** The pauses before each new try of a refused-for-now request (App.patient), in ms (4 more
 * tries, 7.5 s in all; the shape of the client library's, client/connection.py `patiently`). */
const BUSY_PAUSES_MS = [500, 1000, 2000, 4000];
/** How long taking a seat back (App.takeSeatBack) waits for the `resume`'s answer, in ms. */
const RETAKE_MS = 10000;
/** How long one try of a resume or a spectate waits for its answer before it is asked again
 * (App.patient with `unanswered`), in ms: the room's server may stall while another takes
 * its room over, and a request sent to the stalled one is never answered (the client
 * library's `resume_timeout`). */
const REPLY_MS = 10000;

function loadJson(key, fallback) {
  try {
    const value = JSON.parse(localStorage.getItem(key) ?? "null");
    return value === null ? fallback : value;
  } catch {
    return fallback;
  }
}

class App {
  constructor(root) {
    this.root = root;
    /** @type {any} the protocol session (protocol.js Session), once connected */
    this.session = null;
    /** @type {any} the replay viewer (replay.js) while it is open */
    this.replay = null;
    this.games = null;
    this.roomOptions = [];
    this.lobby = new Lobby(this);
    this.room = null; // RoomView while in a room
    /** @type {string | null} a room whose seat another tab or device took from this page */
    this.ceded = null;
    /** @type {Promise<boolean> | null} the seat being taken back (takeSeatBack), if one is */
    this.retaking = null;
    /** @type {number} REPLY_MS (tests shorten it) */
    this.replyMs = REPLY_MS;
    this.connState = "connecting"; // connecting | open | reconnecting
    this.backoff = 500;
    this.notice = "";
    this.created = new Map(); // room id -> the create_room message that made it ("play again")
    this.account = new AccountMenu(this);
    this.rated = new Rated(this); // rated play (rated.js): its panel in Play now
    addLobbyAction(() => this.rated.panel());
    // The chrome above the screen (chrome.js): one element Preact draws into, kept across
    // renders (so the account form keeps its focus); `display: contents` lays its children
    // out as the root's own.
    this.chrome = document.createElement("div");
    this.chrome.className = "chrome";
    this.chrome.style.display = "contents";
  }

  /** The player's name: the signed-in account's display name. */
  get playerName() {
    return this.account.name;
  }

  /** Take `name` as the account's display name (what seats and leaderboards show). */
  async setPlayerName(name) {
    await this.account.setName(name);
  }

  // --- connection --------------------------------------------------------------------------

  async connect() {
    const session = new Session(defaultUrl(), {
      name: this.playerName,
      onMessage: (msg) => this.onMessage(msg),
      onClose: () => this.onClose(session),
    });
    this.session = session;
    try {
      await session.connect();
      await this.account.signIn(session);
      this.backoff = 500;
      this.connState = "open";
      const games = await session.request({ t: "list_games" });
      await loadRenderers(games.games.map((g) => g.game)); // one per game hosted
      this.games = games.games;
      this.roomOptions = games.room_options;
      this.rated.refresh();
    } catch {
      return; // lost again: onClose schedules the next try
    }
    const saved = loadJson(SEAT_KEY, null);
    if (await openLink(this, saved)) return; // the address named a room (links.js)
    if (this.room && this.room.seat === null) {
      await this.spectate(this.room.roomId);
    } else if (saved && saved.room && (saved.token || saved.account)
        && saved.room !== this.ceded) {
      await this.resume(saved);
    } else {
      this.room = null;
      this.render();
      await this.lobby.refresh();
    }
  }

  onClose(session) {
    if (session !== this.session) return;
    this.connState = "reconnecting";
    this.render();
    const delay = this.backoff;
    this.backoff = Math.min(MAX_BACKOFF_MS, this.backoff * 2);
    setTimeout(() => this.connect(), delay);
  }

  async resume(saved) {
    try {
      // No token: the seat is the account's (taken back from My games on this device).
      const msg = saved.token ? { t: "resume", room: saved.room, token: saved.token }
        : { t: "resume", room: saved.room };
      const joined = await this.patient(msg, "give your seat back", true); // a failover
      this.enterRoom(joined, saved.token || null, undefined, !saved.token);
    } catch (/** @type {any} */ err) {
      if (
        err instanceof RequestError &&
        (err.code.startsWith("room/") || err.code === "protocol/bad_value")
      ) {
        localStorage.removeItem(SEAT_KEY);
        this.toLobby("That room is gone (or your seat expired): back to the lobby.");
      } else if (!(err instanceof RequestError)) {
        // connection lost again: onClose retries
      } else {
        this.notify(err.message);
      }
    }
  }

  /**
   * Take this page's seat in `roomId` back on the open session after the server took the
   * page for gone while its socket stayed open (protocol/README.md "Reconnection", step 6:
   * a `seat_event dropped` for our own seat, or a request refused `room/not_seated`): a
   * `resume` with the saved seat token (or the account's seat), as after a reconnection.
   * One at a time: a second call while one runs gets the same promise. Resolves with
   * whether the page sits in `roomId` again; false at once when no seat of it is saved, and
   * false after RETAKE_MS without an answer (the next call tries again).
   * @param {string} roomId
   * @returns {Promise<boolean>}
   */
  takeSeatBack(roomId) {
    if (this.retaking) return this.retaking;
    const saved = loadJson(SEAT_KEY, null);
    if (!saved || saved.room !== roomId || !(saved.token || saved.account)) {
      return Promise.resolve(false);
    }
    const back = async () => {
      await this.resume(saved);
      return Boolean(this.room && this.room.roomId === roomId && this.room.seat !== null);
    };
    /** @type {number | undefined} */
    let timer;
    const late = new Promise((resolve) => {
      timer = setTimeout(() => resolve(false), RETAKE_MS); // no answer: let a later try go
    });
    this.retaking = Promise.race([back(), late]).finally(() => {
      clearTimeout(timer);
      this.retaking = null;
    });
    return this.retaking;
  }

  /**
   * Send `msg`, a request for the room `msg.room` that needs this page's seat or place in
   * it (an act, a chat line), and return the reply. Refused `room/not_seated` (the server
   * took the page for gone and its notice was lost: protocol/README.md "Reconnection",
   * step 6), take the seat back (takeSeatBack) and send it once more. Throws what
   * Session.request throws (RequestError: the refusal).
   * @param {{ t: string, room: string }} msg
   */
  async seated(msg) {
    try {
      return await this.session.request(msg);
    } catch (/** @type {any} */ err) {
      if (!(err instanceof RequestError) || err.code !== "room/not_seated" ||
          !(await this.takeSeatBack(msg.room))) throw err;
      return await this.session.request(msg);
    }
  }

  // --- lobby actions -----------------------------------------------------------------------

  /** Send `msg` (a create, join, resume or spectate) and return the reply; while the
   * server answers it with a "not now" code (BUSY), or, with `unanswered` (a request the
   * server may get twice: a resume, a spectate), leaves it unanswered for `replyMs`, say so
   * in the notice and ask again after each of BUSY_PAUSES_MS. Throws the last refusal (a
   * busy one or a timeout with a plain sentence saying the server cannot `what` right now),
   * or any other error at once. */
  async patient(msg, what = "take new players", unanswered = false) {
    const tries = BUSY_PAUSES_MS.length + 1;
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.session.request(msg, unanswered ? this.replyMs : 0);
      } catch (/** @type {any} */ err) {
        if (!(err instanceof RequestError) ||
            !(BUSY.has(err.code) || (unanswered && err instanceof RequestTimeout))) throw err;
        if (attempt >= tries) {
          throw new RequestError(err.code, `The server cannot ${what} right now ` +
            `(${err.code}, ${tries} tries): please try again in a minute.`);
        }
        const pause = BUSY_PAUSES_MS[attempt - 1];
        const why = err instanceof RequestTimeout ? "did not answer" : "is busy for a moment";
        this.notify(`The server ${why} (${err.code}): trying again in ` +
          `${(pause / 1000).toFixed(1)} s (try ${attempt + 1} of ${tries})\u2026`);
        await new Promise((resolve) => setTimeout(resolve, pause));
      }
    }
  }

  async create(msg) {
    const created = await this.patient(msg);
    const hosted = loadJson(HOST_KEY, []);
    hosted.push(created.room);
    localStorage.setItem(HOST_KEY, JSON.stringify(hosted.slice(-20)));
    this.created.set(created.room, msg);
    await this.join(created.code ? { code: created.code } : { room: created.room }, created.code);
  }

  async join(where, code) {
    try {
      const joined = await this.patient({ t: "join", ...where });
      this.enterRoom(joined, joined.token, code || where.code);
    } catch (/** @type {any} */ err) {
      this.notify(`Could not join: ${err.message}`);
    }
  }

  async quickJoin(game) {
    try {
      const joined = await this.patient({ t: "quick_join", game });
      this.enterRoom(joined, joined.token);
    } catch (/** @type {any} */ err) {
      this.notify(`Could not quick-join: ${err.message}`);
    }
  }

  async spectate(room) {
    try {
      const joined = await this.patient({ t: "spectate", room }, "let you watch", true);
      this.enterRoom(joined, null);
    } catch (/** @type {any} */ err) {
      this.toLobby(`Could not watch: ${err.message}`);
    }
  }

  /** Take back the seat the account holds in `room` (My games), from this device. */
  async resumeAccount(room) {
    this.account.panel = null;
    await this.resume({ room, account: true });
  }

  isHost(roomId) {
    return loadJson(HOST_KEY, []).includes(roomId);
  }

  enterRoom(joined, token, code, byAccount = false) {
    if (byAccount && joined.seat !== null) {
      localStorage.setItem(SEAT_KEY, JSON.stringify({ room: joined.room, seat: joined.seat,
        account: true }));
    }
    if (token) {
      const saved = { room: joined.room, token, seat: joined.seat };
      if (code) saved.code = code;
      else if (this.room && this.room.roomId === joined.room && this.room.code)
        saved.code = this.room.code;
      else {
        const old = loadJson(SEAT_KEY, null);
        if (old && old.room === joined.room && old.code) saved.code = old.code;
      }
      localStorage.setItem(SEAT_KEY, JSON.stringify(saved));
      code = saved.code;
    }
    this.ceded = null;
    const same = this.room && this.room.roomId === joined.room;
    const log = same ? this.room.log : [];
    this.room = new RoomView(this, joined, { code, log });
    this.notice = "";
    this.render();
  }

  /** Leave the current room (forget its seat token, tell the server); returns that room. */
  async quitRoom() {
    const room = this.room;
    localStorage.removeItem(SEAT_KEY);
    this.room = null;
    if (room && this.session.open) {
      try {
        await this.session.request({ t: "leave", room: room.roomId });
      } catch {
        /* gone */
      }
    }
    return room;
  }

  /**
   * Leave the room (a seat of a game of several seats under way is asked about first:
   * Room.askLeave). A solo game under way is kept for the player, paused, and resumed from
   * My games on any device of the account (issue #44 item 1): the lobby says so.
   */
  async leave() {
    const room = this.room;
    const v = (room && room.view) || {};
    const playing = room && room.seat !== null && !v.over &&
      v.room && v.room.status === "playing";
    const solo = ((v.room && v.room.players) || []).length === 1;
    await this.quitRoom();
    this.toLobby(playing && solo
      ? "Your game is kept for you, paused: resume it from My games on any device." : "");
  }

  async playAgain() {
    const room = this.room;
    const again = room && (this.created.get(room.roomId) || room.againMessage());
    await this.quitRoom();
    if (again) {
      try {
        await this.create(again);
        return;
      } catch (/** @type {any} */ err) {
        this.notify(`Could not start a new room: ${err.message}`);
      }
    }
    this.toLobby("");
  }

  toLobby(notice) {
    this.room = null;
    this.notice = notice;
    this.render();
    if (this.session && this.session.open) this.lobby.refresh();
  }

  notify(text) {
    this.notice = text;
    this.render();
  }

  // --- server messages ---------------------------------------------------------------------

  onMessage(msg) {
    if (this.rated.onMessage(msg)) return;
    const room = this.room;
    if (msg.t === "error") {
      // Unasked errors tell why a `left` follows (protocol/README.md "Reconnection" 8).
      this.removal = msg.code;
      return;
    }
    if (!room || msg.room !== room.roomId) return;
    if (msg.t === "left") {
      const why = {
        "room/kicked": "An operator removed you from your seat; it cannot be taken back.",
        "room/closed": "An operator closed the room.",
      };
      const gone = why[this.removal];
      this.removal = null;
      if (gone) {
        localStorage.removeItem(SEAT_KEY); // kicked or closed (an error came first)
      } else {
        // The seat was taken back elsewhere (another tab or device resumed it): the saved
        // token is kept, for it is that tab's too (tabs share localStorage), and this page
        // does not take the seat back when it reconnects (connect).
        this.ceded = room.roomId;
      }
      this.toLobby(
        gone ||
          "You are no longer in that room (it closed, or your seat was taken back elsewhere).",
      );
      return;
    }
    room.onMessage(msg);
    this.render();
    afterMessage(room, msg);
  }

  // --- drawing -----------------------------------------------------------------------------

  /** Draw the page: the chrome (chrome.js, Preact, into `this.chrome`, kept across
   * renders) above the screen (the replay, the room or the lobby). Every part is drawn by
   * Preact in place, so an element keeps its focus across renders: none is put back by hand. */
  render() {
    // Where each card is before anything is drawn (motion.js): a Preact screen (the room)
    // is updated in place by the render below.
    const before = measure(this.root);
    let body;
    if (this.replay) body = this.replay.render();
    else if (this.room) body = this.room.render();
    else if (this.games) body = this.lobby.render();
    else {
      // Before the games are known: one line, in an element kept for it.
      if (!this.waiting) this.waiting = document.createElement("div");
      render(html`<main class="lobby"><p>Connecting to the server\u2026</p></main>`,
        this.waiting);
      body = this.waiting;
    }
    this.drawChrome();
    if (body.parentNode === this.root) {
      // The same screen element (a Preact screen, drawn in place): kept where it is, so
      // that its inputs keep their focus; the chrome stays before it.
      for (const child of [...this.root.childNodes]) {
        if (child !== body && child !== this.chrome) child.remove();
      }
      if (this.chrome.nextSibling !== body) this.root.insertBefore(this.chrome, body);
    } else {
      this.root.replaceChildren(this.chrome, body);
    }
    animate(this.root, before);
    syncAddress(this);
    document.body.dataset.conn = this.connState;
  }

  /** The header, connection state, notice and rated banner, drawn by Preact (chrome.js). */
  drawChrome() {
    render(html`<${Chrome} title=${this.room ? this.room.title() : "Lobby"}
      conn=${this.connState} notice=${this.notice} onDismiss=${() => this.notify("")}
      onHome=${() => { if (!this.room) this.lobby.refresh(); }}
      sound=${soundToggle(this)} account=${this.account.render()}
      rated=${this.rated.banner()} />`, this.chrome);
  }
}

const app = new App(document.getElementById("app"));
/** @type {any} */ (window).cardhall = app; // for debugging and the browser tests
app.render();
app.connect();
export { app, applyDelta };
