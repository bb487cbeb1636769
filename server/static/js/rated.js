// Rated play in the web client (issue #45): the lobby's "Play rated" panel (queue_join and
// queue_leave), the seat the queue gives (an unasked `joined`, then `matched`), the players'
// ratings at a rated table (the banner, and each seat's on the seat list: seatRating()), and
// the player's rated games with each rating before -> after (GET /ratings/history), in the
// panel and in My games (loadChanges(), change()). app.js calls onMessage(), panel() and
// banner(); room.js seatRating(); account.js loadChanges() and change().
import { h } from "./cards.js";

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

/** "1523", or "1523?" while provisional (lichess's mark). */
function shown(rating) {
  return `${rating.rating}${rating.provisional ? "?" : ""}`;
}

/** "1523" or "1523, provisional": a rating in words (for screen readers). */
function spoken(rating) {
  return `rating ${rating.rating}${rating.provisional ? ", provisional" : ""}`;
}

async function getJson(path) {
  const answer = await fetch(path, { cache: "no-store" });
  if (!answer.ok) throw new Error(`${answer.status}`);
  return answer.json();
}

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
    this.lists = new Map(); // other modes' lists for rated tables' seats: mode -> entries
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
        this.refresh();
      }, RATED_AFTER_MS);
    }
    return false;
  }

  async play() {
    this.error = "";
    try {
      const seats = this.sizes.split(",").map(Number);
      this.waiting = await this.app.session.request({ t: "queue_join", game: GAME,
        mode: this.mode, seats });
      this.mine = { rating: this.waiting.rating, provisional: this.waiting.provisional };
    } catch (err) {
      this.error = `Could not join the queue: ${err.message}`;
    }
    this.app.render();
  }

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

  async loadTable() {
    try {
      const list = await getJson(`/ratings?game=${GAME}&mode=${this.mode}&limit=1000`);
      this.entries = list.entries;
    } catch {
      this.entries = [];
    }
    this.app.render();
  }

  /** The lobby's "Play rated" panel. */
  panel() {
    const select = (id, options, value, set) => {
      const el = h("select", { id }, options.map(([v, text]) => h("option", { value: v, text })));
      el.value = value;
      el.disabled = Boolean(this.waiting);
      el.addEventListener("change", () => {
        set(el.value);
        this.refresh();
      });
      return el;
    };
    const mine = this.mine
      ? h("p", { id: "rated-mine" }, `Your rating: ${shown(this.mine)}` +
          (this.mine.provisional ? " (provisional)" : ""))
      : null;
    const action = this.waiting
      ? [h("p", { id: "rated-status", role: "status" },
          `Waiting for players (${this.waiting.waiting} in the queue)\u2026`),
        h("button", { type: "button", id: "rated-leave", onclick: () => this.leave() },
          "Leave the queue")]
      : [h("button", { type: "button", id: "rated-play", class: "primary",
          onclick: () => this.play() }, "Play rated")];
    const games = this.games.length
      ? h("ul", { id: "rated-games", class: "rated-games" }, this.games.map((g) =>
          h("li", { "data-room": g.room }, `${g.room}: ${shown(g.before)} \u2192 ` +
            `${shown(g.after)}`)))
      : null;
    return h(
      "section",
      { class: "panel", id: "rated", "aria-labelledby": "rated-title" },
      h("h2", { id: "rated-title" }, "Play rated"),
      h("div", { class: "row" },
        h("label", { for: "rated-mode" }, "Game"),
        select("rated-mode", MODES, this.mode, (v) => { this.mode = v; })),
      h("div", { class: "row" },
        h("label", { for: "rated-seats" }, "Table"),
        select("rated-seats", SIZES, this.sizes, (v) => { this.sizes = v; })),
      ...action,
      this.error ? h("p", { class: "error", role: "alert" }, this.error) : null,
      mine,
      games,
      this.board(),
    );
  }

  /** The rated board of this.mode: the established ratings (not provisional), highest
   * first (the server leaves guests out when its operator asks for registered players). */
  board() {
    const rows = this.entries.filter((e) => !e.provisional).slice(0, BOARD_SIZE);
    return h(
      "div",
      { class: "rated-board" },
      h("h3", { id: "rated-board-title" }, "Rated board (established ratings)"),
      h("table", { id: "rated-board", "aria-labelledby": "rated-board-title" },
        rows.length
          ? rows.map((e, k) => h("tr", { "data-name": e.name },
              h("td", {}, String(k + 1)), h("td", {}, e.name), h("td", {}, String(e.rating))))
          : h("tr", {}, h("td", { class: "none", colspan: "3" },
              "Nobody yet: a rating is established after about 12 games."))),
    );
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

  /** My games' "rating 1500? -> 1523?" of finished room `roomId`, or null (not rated). */
  change(roomId) {
    const e = this.changes.get(roomId);
    if (!e) return null;
    return h("span", { class: "rating-change", dataset: { before: e.before.rating,
      after: e.after.rating }, "aria-label": `${spoken(e.before)} before, ${spoken(e.after)}` +
      " after" }, ` · rating ${shown(e.before)} → ${shown(e.after)}`);
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

  /** The rating of player `p` (a `room.players` entry) in `entries`: by its rating key in
   * a rated room's facts, else by name; a new player's (1500, provisional) when unrated. */
  ratingOf(entries, p) {
    const found = entries.find((e) => ("key" in p ? e.key === p.key : e.name === p.name));
    return found || { rating: 1500, provisional: true };
  }

  /** The rating of seat `i` of `room` (a room.js Room) for its seat list when the room is
   * rated (isRated): "1523" or "1523?" (provisional), or null. */
  seatRating(room, i) {
    if (!this.isRated(room)) return null;
    const players = (room.view.room && room.view.room.players) || [];
    const p = players[i];
    if (!p) return null;
    const r = this.ratingOf(this.listOf(room.view.room.mode || this.mode), p);
    return h("small", { class: `seat-rating${r.provisional ? " provisional" : ""}`,
      dataset: { rating: r.rating }, "aria-label": spoken(r),
      title: r.provisional ? "provisional rating" : "rating" }, shown(r));
  }

  /** The line above a rated table: each player's rating (from the list). */
  banner() {
    const room = this.app.room;
    if (!room || room.roomId !== this.room) return null;
    const players = (room.view.room && room.view.room.players) || [];
    const items = players.filter(Boolean).map((p) => {
      const r = this.ratingOf(this.entries, p);
      return h("span", { class: "rated-seat", "data-name": p.name }, `${p.name} ${shown(r)}`);
    });
    return h("div", { class: "banner rated-banner", id: "rated-banner", role: "status" },
      "Rated game \u00b7 ", ...items.flatMap((el, k) => (k ? [", ", el] : [el])));
  }
}

