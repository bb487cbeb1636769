// @ts-check
// Rated play in the web client (issue #45): the lobby's "Play rated" panel (queue_join and
// queue_leave), the seat the queue gives (an unasked `joined`, then `matched`), the players'
// ratings at a rated table (the banner, and each seat's on the seat list: SeatRating; read
// by the seated players' keys, GET /ratings?key=K, whatever their rank on the list), and
// the player's rated games with each rating before -> after (GET /ratings/history), in the
// panel and in My games (loadChanges(), change()). app.js calls onMessage(), panel() and
// banner(); room.js seatRatingOf() (drawn by SeatRating); account.js
// loadChanges() and change(). The Rated class holds the state and the actions; the Preact
// components at the end (RatedPanel, RatedBoard, RatingChange, SeatRating, RatedBanner) only
// draw it.
import { html } from "./ui.js";

const GAME = "skipper";
const MODES = [["multi", "Skipper multi"], ["race", "Skipper race"]];
const SIZES = [["2,3,4", "2\u20134 players"], ["2", "2 players"], ["3", "3 players"],
  ["4", "4 players"]];
/** Players the rated board shows at most. */
const BOARD_SIZE = 10;
/** Milliseconds after a rated game's end before its ratings are read again (the server
 * rates it in the background). */
const RATED_AFTER_MS = 600;

/** Rated games of each mode My games reads (the newest). */
const CHANGES_LIMIT = 100;
/** A new player's rating: a seated player's who has none. */
const NEW_PLAYER = Object.freeze({ rating: 1500, provisional: true });

/** "1523", or "1523?" while provisional (lichess's mark). */
/**
 * @typedef {{ rating: number, provisional: boolean }} Rating  a player's rating
 * @typedef {{ room: string, before: Rating, after: Rating }} RatedGame
 *   a /ratings/history entry
 * @typedef {{ name: string, rating: number, provisional: boolean, key?: string }} ListEntry
 *   a /ratings entry
 * @typedef {{ waiting: number, rating: number, provisional: boolean }} Queued
 *   the `queued` reply
 * @typedef {{ epoch: number, found: Map<string, ListEntry> | null | false }} Seated
 *   a rated table's seated players' ratings (Rated.seatedOf): rating key -> entry (a key
 *   with no rating absent), null while first read, false when they could not be read
 */

/** @param {Rating} rating */
function shown(rating) {
  return `${rating.rating}${rating.provisional ? "?" : ""}`;
}

/** "1523" or "1523, provisional": a rating in words (for screen readers).
 * @param {Rating} rating */
function spoken(rating) {
  return `rating ${rating.rating}${rating.provisional ? ", provisional" : ""}`;
}

async function getJson(path) {
  const answer = await fetch(path, { cache: "no-store" });
  if (!answer.ok) throw new Error(`${answer.status}`);
  return answer.json();
}

/** Rated play's state and actions (the queue, ratings, rated games); its components draw
 * them. `app`: the App (app.js): its session, account, room, render(), enterRoom(). */
export class Rated {
  constructor(app) {
    this.app = app;
    this.mode = "multi";
    this.sizes = "2,3,4";
    this.waiting = null; // the `queued` reply while in the queue
    this.room = null; // the rated room the queue seated this player in
    this.mine = null; // { rating, provisional } for this.mode
    this.games = []; // /ratings/history entries, newest first
    this.changes = new Map(); // room id -> its newest /ratings/history entry (My games)
    this.entries = []; // this.mode's list (GET /ratings entries, best first)
    this.lists = new Map(); // other modes' lists (tables without keys): mode -> entries
    /** @type {Map<string, Seated>} the shown table's: "room mode keys" -> its ratings */
    this.seated = new Map();
    this.epoch = 0; // rated games ended: a table's ratings read before are read again
    this.error = "";
  }

  /** Handle an unasked message; true when it was rated play's alone. */
  onMessage(msg) {
    if (msg.t === "matched") {
      this.waiting = null;
      this.room = msg.room;
      this.loadTable();
      this.app.render();
      return true;
    }
    if (msg.t === "joined" && this.waiting && !this.app.room) {
      this.room = msg.room; // the queue seated us: its `matched` follows
      this.app.enterRoom(msg, msg.token);
      return true;
    }
    if (msg.t === "game_over" && (msg.room === this.room || this.isRated(this.app.room))) {
      setTimeout(() => {
        this.lists.clear();
        this.epoch += 1;
        this.refresh();
      }, RATED_AFTER_MS);
    }
    return false;
  }

  /** Join the rated queue of this.mode and this.sizes (`queue_join`); an error is shown. */
  async play() {
    this.error = "";
    try {
      const seats = this.sizes.split(",").map(Number);
      this.waiting = await this.app.session.request({ t: "queue_join", game: GAME,
        mode: this.mode, seats });
      this.mine = { rating: this.waiting.rating, provisional: this.waiting.provisional };
    } catch (/** @type {any} */ err) {
      this.error = `Could not join the queue: ${err.message}`;
    }
    this.app.render();
  }

  /** Leave the rated queue (`queue_leave`). */
  async leave() {
    try {
      await this.app.session.request({ t: "queue_leave" });
    } catch {
      // the connection went: the server dropped the ticket with it
    }
    this.waiting = null;
    this.app.render();
  }

  /** Read this player's rated games and the list of this.mode again. */
  async refresh() {
    const info = this.app.account.info;
    if (!info || !info.account) {
      await this.loadTable();
      return;
    }
    try {
      const q = `game=${GAME}&mode=${this.mode}&account=${encodeURIComponent(info.account)}`;
      const history = await getJson(`/ratings/history?${q}&limit=10`);
      this.games = history.entries;
      if (this.games.length) this.mine = this.games[0].after;
    } catch {
      this.games = [];
    }
    await this.loadTable();
  }

  /** Read this.mode's rating list (GET /ratings) and draw the page again. */
  async loadTable() {
    try {
      const list = await getJson(`/ratings?game=${GAME}&mode=${this.mode}&limit=1000`);
      this.entries = list.entries;
    } catch {
      this.entries = [];
    }
    this.app.render();
  }

  /** The lobby's "Play rated" panel: a Preact element (RatedPanel with this state). */
  panel() {
    return html`<${RatedPanel} mode=${this.mode} sizes=${this.sizes} waiting=${this.waiting}
      error=${this.error} mine=${this.mine} games=${this.games} entries=${this.entries}
      onMode=${(/** @type {string} */ v) => this.choose("mode", v)}
      onSizes=${(/** @type {string} */ v) => this.choose("sizes", v)}
      onPlay=${() => this.play()} onLeave=${() => this.leave()} />`;
  }

  /** The panel's Game (`key` "mode") or Table ("sizes") select changed to `value`. */
  choose(key, value) {
    if (key === "mode") this.mode = value;
    else this.sizes = value;
    this.refresh();
  }

  /** Read this player's rated games of every mode (room id -> before and after), for My
   * games; nothing when not signed in or when the server cannot say. */
  async loadChanges() {
    const info = this.app.account.info;
    const changes = new Map();
    if (info && info.account) {
      const who = `account=${encodeURIComponent(info.account)}&limit=${CHANGES_LIMIT}`;
      await Promise.all(MODES.map(async ([mode]) => {
        try {
          const got = await getJson(`/ratings/history?game=${GAME}&mode=${mode}&${who}`);
          for (const e of got.entries) if (!changes.has(e.room)) changes.set(e.room, e);
        } catch {
          // no ratings of this mode to show
        }
      }));
    }
    this.changes = changes;
  }

  /** My games' "rating 1500? -> 1523?" of finished room `roomId` (a Preact element), or
   * null (not rated). */
  change(roomId) {
    const e = this.changes.get(roomId);
    return e ? html`<${RatingChange} before=${e.before} after=${e.after} />` : null;
  }

  /** True when `room` (a room.js Room, or null) is rated: its facts say so (`room.rated`),
   * or the queue seated this player in it. */
  isRated(room) {
    if (!room) return false;
    return room.roomId === this.room || Boolean(room.view.room && room.view.room.rated);
  }

  /** The rating list (entries) of `mode`: this.mode's, else read once, on demand. */
  listOf(mode) {
    if (mode === this.mode) return this.entries;
    if (!this.lists.has(mode)) {
      this.lists.set(mode, null);
      getJson(`/ratings?game=${GAME}&mode=${mode}&limit=1000`)
        .then((list) => this.lists.set(mode, list.entries))
        .catch(() => this.lists.set(mode, []))
        .then(() => this.app.render());
    }
    return this.lists.get(mode) || [];
  }

  /** The ratings of the players seated at rated `room` (a room.js Room) in `mode`, read
   * by their rating keys (GET /ratings?key=K..., whatever their rank on the list) once per
   * table (its room, mode and seated keys) and again after a rated game's end (this.epoch;
   * the answer read before is kept meanwhile): a Seated's `found`. */
  seatedOf(room, mode) {
    const players = (room.view.room && room.view.room.players) || [];
    const keys = [...new Set(players.filter((p) => p && p.key).map((p) => String(p.key)))];
    if (!keys.length) return new Map();
    const id = `${room.roomId} ${mode} ${keys.sort().join(" ")}`;
    let got = this.seated.get(id);
    if (!got || got.epoch !== this.epoch) {
      if (!got) this.seated.clear(); // one table is shown at a time
      got = { epoch: this.epoch, found: got ? got.found : null };
      this.seated.set(id, got);
      this.readSeated(mode, keys, got);
    }
    return got.found;
  }

  /** Read the ratings of rating `keys` in `mode` into `into` (a Seated) and draw the page
   * again; `into.found` false when they cannot be read (an answer read before is kept).
   * @param {string} mode @param {string[]} keys @param {Seated} into */
  async readSeated(mode, keys, into) {
    const asked = keys.map((k) => `&key=${encodeURIComponent(k)}`).join("");
    try {
      const got = await getJson(`/ratings?game=${GAME}&mode=${mode}${asked}`);
      into.found = new Map(got.entries.map((/** @type {ListEntry} */ e) => [e.key, e]));
    } catch {
      if (!into.found) into.found = false;
    }
    this.app.render();
  }

  /** The rating of player `p` (a `room.players` entry) at a rated table of `mode`, given
   * the table's `found` (seatedOf): by its rating key (a rated room's facts) in `found`; in
   * the mode's list when `found` could not be read or the facts give no key (then by
   * name); a new player's (1500, provisional) when it has none (a seat without account has
   * none); null while `found` is first read.
   * @returns {Rating | null} */
  ratingOf(found, p, mode) {
    if ("key" in p && !p.key) return NEW_PLAYER;
    if ("key" in p && found) return found.get(p.key) || NEW_PLAYER;
    if ("key" in p && found === null) return null;
    const listed = this.listOf(mode).find((e) => ("key" in p ? e.key === p.key
      : e.name === p.name));
    return listed || NEW_PLAYER;
  }

  /** The rating of seat `i` of `room` (a room.js Room) when the room is rated (isRated):
   * { rating, provisional }, or null (no player, or its rating is being read). */
  seatRatingOf(room, i) {
    if (!this.isRated(room)) return null;
    const players = (room.view.room && room.view.room.players) || [];
    const p = players[i];
    if (!p) return null;
    const mode = room.view.room.mode || this.mode;
    return this.ratingOf(this.seatedOf(room, mode), p, mode);
  }

  /** The line above a rated table (a Preact element: RatedBanner), or null elsewhere and
   * while its players' ratings are first read. */
  banner() {
    const room = this.app.room;
    if (!room || room.roomId !== this.room) return null;
    const players = ((room.view.room && room.view.room.players) || []).filter(Boolean);
    const mode = (room.view.room && room.view.room.mode) || this.mode;
    const found = this.seatedOf(room, mode);
    const seats = players.map((/** @type {{ name: string }} */ p) =>
      ({ name: p.name, rating: this.ratingOf(found, p, mode) }));
    if (seats.some((s) => !s.rating)) return null;
    return html`<${RatedBanner} seats=${seats} />`;
  }
}


/** @param {any} event  a change event @returns {string} its select's value */
const valueOf = (event) => event.currentTarget.value;

/**
 * A <select> of `options` ([value, text] pairs), `value` chosen, disabled while `locked`.
 * @param {{ id: string, options: string[][], value: string, locked: boolean,
 *   onChange: (value: string) => void }} p
 */
function Choice({ id, options, value, locked, onChange }) {
  return html`<select id=${id} value=${value} disabled=${locked}
      onChange=${(/** @type {any} */ e) => onChange(valueOf(e))}>
    ${options.map(([v, text]) => html`<option value=${v}>${text}</option>`)}
  </select>`;
}

/**
 * The rated board of one mode: the established ratings (not provisional) of `entries`
 * (best first), BOARD_SIZE at most, or who gets on it.
 * @param {{ entries: ListEntry[] }} p
 */
export function RatedBoard({ entries }) {
  const rows = entries.filter((e) => !e.provisional).slice(0, BOARD_SIZE);
  return html`<div class="rated-board">
    <h3 id="rated-board-title">Rated board (established ratings)</h3>
    <table id="rated-board" aria-labelledby="rated-board-title"><tbody>
      ${rows.length ? rows.map((e, k) => html`<tr key=${e.name} data-name=${e.name}>
          <td>${String(k + 1)}</td><td>${e.name}</td><td>${String(e.rating)}</td></tr>`)
        : html`<tr><td class="none" colspan="3">${"Nobody yet: a rating is " +
          "established after about 12 games."}</td></tr>`}
    </tbody></table>
  </div>`;
}

/**
 * @typedef {{ mode: string, sizes: string, waiting: Queued | null, error: string,
 *   mine: Rating | null, games: RatedGame[], entries: ListEntry[],
 *   onMode: (v: string) => void, onSizes: (v: string) => void, onPlay: () => void,
 *   onLeave: () => void }} RatedProps  Rated.panel()'s
 */

/**
 * The lobby's "Play rated" panel: the mode and table size (fixed while queued), Play rated
 * or the queue's state with Leave, the player's rating and rated games, the board.
 * @param {RatedProps} p
 */
export function RatedPanel(p) {
  const locked = Boolean(p.waiting);
  return html`<section class="panel" id="rated" aria-labelledby="rated-title">
    <h2 id="rated-title">Play rated</h2>
    <div class="row"><label for="rated-mode">Game</label>
      <${Choice} id="rated-mode" options=${MODES} value=${p.mode} locked=${locked}
        onChange=${p.onMode} /></div>
    <div class="row"><label for="rated-seats">Table</label>
      <${Choice} id="rated-seats" options=${SIZES} value=${p.sizes} locked=${locked}
        onChange=${p.onSizes} /></div>
    ${p.waiting ? html`<p id="rated-status" role="status">${
        `Waiting for players (${p.waiting.waiting} in the queue)\u2026`}</p>
      <button type="button" id="rated-leave" onClick=${p.onLeave}>Leave the queue</button>`
      : html`<button type="button" id="rated-play" class="primary" onClick=${p.onPlay}>
        Play rated</button>`}
    ${p.error ? html`<p class="error" role="alert">${p.error}</p>` : null}
    ${p.mine ? html`<p id="rated-mine">${`Your rating: ${shown(p.mine)}` +
      (p.mine.provisional ? " (provisional)" : "")}</p>` : null}
    ${p.games.length ? html`<ul id="rated-games" class="rated-games">${p.games.map((g) =>
      html`<li key=${g.room} data-room=${g.room}>${`${g.room}: ${shown(g.before)} \u2192 ` +
        `${shown(g.after)}`}</li>`)}</ul>` : null}
    <${RatedBoard} entries=${p.entries} />
  </section>`;
}

/**
 * My games' " · rating 1500? → 1523?" of a rated game (data-before, data-after: the
 * numbers).
 * @param {{ before: Rating, after: Rating }} p
 */
export function RatingChange({ before, after }) {
  return html`<span class="rating-change" data-before=${before.rating}
    data-after=${after.rating} aria-label=${`${spoken(before)} before, ${spoken(after)} after`}
    >${` \u00b7 rating ${shown(before)} \u2192 ${shown(after)}`}</span>`;
}

/**
 * A seat's rating on a rated table's seat list: "1523", or "1523?" while provisional.
 * @param {{ rating: Rating }} p
 */
export function SeatRating({ rating }) {
  return html`<small class=${`seat-rating${rating.provisional ? " provisional" : ""}`}
    data-rating=${rating.rating} aria-label=${spoken(rating)}
    title=${rating.provisional ? "provisional rating" : "rating"}>${shown(rating)}</small>`;
}

/**
 * The line above a rated table: "Rated game · Ann 1523, Bob 1500?".
 * @param {{ seats: { name: string, rating: Rating }[] }} p
 */
export function RatedBanner({ seats }) {
  return html`<div class="banner rated-banner" id="rated-banner" role="status">
    ${"Rated game \u00b7 "}${seats.map((s, k) => html`${k ? ", " : ""}<span key=${s.name}
      class="rated-seat" data-name=${s.name}>${`${s.name} ${shown(s.rating)}`}</span>`)}
  </div>`;
}
