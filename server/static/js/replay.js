// @ts-check
// Game history and replay: "My games" (the games this browser finished, kept in
// localStorage), a replay viewer that steps through a finished room forwards and backwards
// with the server's `get_replay` (the engine replays the log: the page needs no rules of its
// own), and the deal check of `cardhall verify` in the browser: SHA-256 of the revealed seed
// and salt (WebCrypto) against the commitment the page saw at the start (docs/fair-deals.md).
// The viewer's screen is drawn by Preact components (replay_view.js); the table in it by the
// game's renderer (games/*.js: a Preact element, renderers.js).
import { prettyCards } from "./cards.js";
import { explainEnd } from "./help.js";
import * as generic from "./games/generic.js";
import { rendererFor } from "./renderers.js";
import { html, render } from "./ui.js";
import { ReplayScreen, GoneScreen } from "./replay_view.js";

const GAMES_KEY = "cardhall.games";
const KEEP_GAMES = 50;

/** The finished games kept in this browser, newest first. */
export function myGames() {
  try {
    const games = JSON.parse(localStorage.getItem(GAMES_KEY) ?? "null");
    return Array.isArray(games) ? games : [];
  } catch {
    return [];
  }
}

/** A view as canonical JSON (keys sorted; the room facts and legal actions left out): the
 * same game state gives the same text however the view was built (deltas or afresh). */
export function canonicalView(view) {
  const sort = (v) =>
    Array.isArray(v)
      ? v.map(sort)
      : v !== null && typeof v === "object"
        ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, sort(v[k])]))
        : v;
  const { room, legal_actions: _legal, ...rest } = view;
  return JSON.stringify(sort(rest));
}

/** SHA-256 of a text as lowercase hex (WebCrypto; null where the page is not a secure
 * context and crypto.subtle is missing, e.g. plain http to another machine). */
export async function sha256Hex(text) {
  if (!globalThis.crypto || !crypto.subtle) return null;
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** The deal check: does SHA-256 of "cardhall-deal/1:SEED:SALT" equal the commitment?
 * Returns {ok, computed} (ok null: cannot be checked here). */
export async function checkDeal(commitment, seed, salt) {
  if (!commitment || seed === undefined || seed === null || !salt) return { ok: null };
  const computed = await sha256Hex(`cardhall-deal/1:${String(seed)}:${salt}`);
  return { ok: computed === null ? null : computed === commitment, computed };
}

/** Keep a finished game of the room view `room` (its game_over `msg`) in "My games". */
export async function recordGame(room, msg) {
  const view = room.view;
  const players = (view.room && view.room.players) || [];
  const record = {
    room: room.roomId,
    game: room.game,
    mode: view.room ? view.room.mode : null,
    seat: room.seat,
    title: room.title(),
    at: Date.now(),
    players: players.map((p, i) => (p ? room.playerName(i) : `seat ${i}`)),
    outcome: explainEnd(room.game, msg.outcome, room.seat, room.outEvents || [], (s) =>
      room.seatName(s),
    ),
    state_id: msg.state_id,
    commitment: room.commitment || (view.room && view.room.commitment) || null,
    seed: msg.seed === undefined ? null : String(msg.seed),
    salt: msg.salt || null,
    final: await sha256Hex(canonicalView(view)),
  };
  const games = myGames().filter((g) => g.room !== record.room);
  games.unshift(record);
  try {
    localStorage.setItem(GAMES_KEY, JSON.stringify(games.slice(0, KEEP_GAMES)));
  } catch {
    /* storage full or off */
  }
  return record;
}

/** Show the replay viewer of `record` (a "My games" entry, one made at game over, or one
 * of the account's finished games the server lists: `serverRecord`). */
export function openReplay(app, record) {
  app.replay = new ReplayView(app, record);
  app.render();
  app.replay.start();
}

/** What the replay viewer needs of an account's finished game the server listed
 * (`get_my_games`: its room, seat, name, game, result) but this browser did not keep: the
 * final state, the names and the deal are asked of the server (its games archive). */
export function serverRecord(g) {
  return {
    room: g.room,
    game: g.game,
    mode: g.mode,
    seat: g.seat,
    title: g.name,
    at: g.finished * 1000,
    players: [],
    outcome: g.result,
    state_id: null,
    commitment: null,
    seed: null,
    salt: null,
    final: null,
    mine: true,
  };
}

/** What the page says of a game the server no longer keeps (room/not_found). */
export const NOT_KEPT =
  "This game is no longer kept on the server, so it cannot be replayed or checked " +
  "(the server's operator decides how long finished games are kept).";

export class ReplayView {
  constructor(app, record) {
    this.app = app;
    this.record = record;
    this.stateId = null; // shown
    this.final = record.state_id ?? 0;
    this.view = null;
    this.events = [];
    this.error = "";
    this.deal = "Checking the deal\u2026";
    this.match = "";
    this.want = null; // the state asked for while a request runs
    this.busy = false;
    this.gone = false; // the server no longer keeps the game
    // Preact draws the viewer into this one element, kept across renders.
    this.host = document.createElement("div");
    this.host.className = "replay-host";
  }

  /** Load the final state (asked first when the record does not know it), then check the
   * deal. */
  async start() {
    const known = this.record.state_id;
    await this.load(known ?? 0);
    if ((known === null || known === undefined) && !this.gone && this.final > 0) {
      await this.load(this.final);
    }
    await this.verify();
  }

  /** Ask the server for the view at `stateId` (the latest ask wins). */
  async load(stateId) {
    this.want = Math.max(0, Math.min(stateId, this.final));
    if (this.busy) return;
    this.busy = true;
    try {
      while (this.want !== null && this.want !== this.stateId) {
        const sid = this.want;
        const reply = await this.ask(sid);
        this.final = reply.final;
        this.view = reply.view;
        this.events = reply.events || [];
        this.stateId = reply.state_id;
        this.error = "";
        if (sid === this.final) await this.compareFinal(reply.seat);
      }
    } catch (/** @type {any} */ err) {
      if (err.code === "room/not_found") {
        this.gone = true;
        this.view = null;
        this.error = NOT_KEPT;
        this.deal = "";
        this.dealOk = null;
      } else {
        this.error = `Could not replay: ${err.message}`;
      }
    } finally {
      this.busy = false;
      this.want = null;
      if (this.app.replay === this) this.app.render();
    }
  }

  async ask(stateId) {
    const rec = this.record;
    const room = this.app.room;
    const mine =
      rec.mine ||
      (rec.seat !== null && room && room.roomId === rec.room && room.seat === rec.seat);
    const msg = { t: "get_replay", room: rec.room, state_id: stateId };
    if (mine) msg.seat = rec.seat;
    return this.app.session.request(msg);
  }

  /** At the last state: is the replayed view the one the page was shown at the end? (Said
   * only when the replay shows the same seat's view the record kept.) */
  async compareFinal(seat) {
    if (!this.record.final || (seat ?? null) !== (this.record.seat ?? null)) {
      this.match = "";
      return;
    }
    const same = (await sha256Hex(canonicalView(this.view))) === this.record.final;
    this.match = same
      ? "The replay ends at the view you saw."
      : "The replay does NOT end at the view you saw.";
  }

  /** The deal as the server's log reveals it, for a record that did not keep it (a game
   * listed by the server): its commitment, seed and salt (null when the game is gone). */
  async fetchDeal() {
    const rec = this.record;
    if (rec.seed !== null && rec.seed !== undefined) return;
    try {
      const log = await this.app.session.request({ t: "get_log", room: rec.room });
      rec.commitment = log.commitment || null;
      rec.seed = log.options && log.options.seed !== undefined ? String(log.options.seed) : null;
      rec.salt = log.salt || null;
      this.fromServer = true;
    } catch (/** @type {any} */ err) {
      if (err.code === "room/not_found") this.gone = true;
    }
  }

  async verify() {
    const rec = this.record;
    if (!this.gone) await this.fetchDeal();
    if (this.gone) {
      this.deal = "";
      this.dealOk = null;
      if (this.app.replay === this) this.app.render();
      return;
    }
    const { ok, computed } = await checkDeal(rec.commitment, rec.seed, rec.salt);
    const shown = this.fromServer ? "the server reports" : "shown at the start";
    this.deal =
      ok === null
        ? rec.commitment
          ? "The deal cannot be checked here (no seed revealed, or no WebCrypto: use https)."
          : "This room published no commitment."
        : ok
          ? `Deal verified: SHA-256 of the seed and salt is the commitment ${shown} (${rec.commitment.slice(0, 16)}\u2026).`
          : `Deal check FAILED: SHA-256 of the seed and salt is ${(computed || "").slice(0, 16)}\u2026, not the commitment ${rec.commitment.slice(0, 16)}\u2026.`;
    this.dealOk = ok;
    if (this.app.replay === this) this.app.render();
  }

  close() {
    this.app.replay = null;
    this.app.render();
    if (!this.app.room && this.app.session && this.app.session.open) this.app.lobby.refresh();
  }

  /** The table at the state shown, drawn by the game's renderer with nothing to click
   * (null until the state comes). */
  tableAt(drawer, who) {
    if (!this.view) return null;
    const ui = {
      seat: this.view.seat ?? null,
      view: this.view,
      selected: null,
      select: () => {},
      marks: [],
      toggle: () => {},
      act: () => {},
      seatName: who,
      handled: () => {},
      legal: [],
      button: (action, label) => html`<span class="action">${label}</span>`,
    };
    try {
      return drawer.render(this.view, ui);
    } catch (/** @type {any} */ err) {
      console.error(err);
      return generic.render(this.view, ui);
    }
  }

  /** What happened at the state shown, in words ("The deal." at the start). */
  saidAt(drawer, doer) {
    const describe = drawer.describeEvent || generic.describeEvent;
    const said = this.events
      .map((ev) => describe(ev, doer) ?? generic.describeEvent(ev, doer))
      .filter((text) => text);
    if (said.length) return prettyCards(said.join(" \u00b7 "));
    return (this.stateId ?? 0) === 0 ? "The deal." : "";
  }

  /** The viewer drawn (Preact, replay_view.js, into `this.host`); returns the host. */
  render() {
    const rec = this.record;
    const onClose = () => this.close();
    if (this.gone) {
      render(html`<${GoneScreen} rec=${rec} error=${this.error} onClose=${onClose} />`,
        this.host);
      return this.host;
    }
    const drawer = rendererFor(rec.game);
    const facts = (this.view && this.view.room && this.view.room.players) || [];
    const names =
      rec.players && rec.players.length
        ? rec.players
        : facts.map((p, i) => (p ? p.name : `seat ${i}`));
    const named = (s) => (names[s] || `seat ${s}`).replace(/^bot-(\d+)$/, "Bot $1");
    const who = (s) => (s === rec.seat ? `${named(s)} (you)` : named(s));
    const doer = (s) => (s === rec.seat ? "You" : named(s)); // the log's "You played ..."
    render(html`<${ReplayScreen} rec=${rec} sid=${this.stateId ?? 0} final=${this.final}
      stateId=${this.stateId} said=${this.saidAt(drawer, doer)} error=${this.error}
      table=${this.tableAt(drawer, who)} loading=${!this.error} deal=${this.deal}
      dealOk=${this.dealOk} match=${this.match} onStep=${(sid) => this.load(sid)}
      onClose=${onClose} />`, this.host);
    return this.host;
  }
}
