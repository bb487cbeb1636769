// @ts-check
// The lobby: the welcome, the room list (filters, paging when the server pages), the
// create-room form built from `list_games` (descriptions, defaults, validation), join by
// code, quick-join, spectate, the leaderboards, My games, How to play. A Preact screen
// (ui.js): the Lobby holds the state and the actions, its components (welcome.js,
// lobby_views.js, new_room.js, lobby_panels.js, leaderboard.js) draw it.
import { Leaderboards } from "./leaderboard.js";
import { myGames, openReplay } from "./replay.js";
import { openRules } from "./help.js";
import { html, render } from "./ui.js";
import { MyGamesPanel, RulesPanel } from "./lobby_panels.js";
import { Welcome, playMessage } from "./welcome.js";
import { RoomsPanel, PlayNowPanel } from "./lobby_views.js";
import { NewRoomPanel, freshFields } from "./new_room.js";

const PAGE_FIELDS = ["cursor", "more"];

/** True for a room anyone may join now: public, waiting, a seat free. */
function joinable(r) {
  return r.status === "waiting" && !r.private && r.taken < r.seats;
}

/** Lobby order: rooms to join first, then the others waiting, then games being played, then
 * finished ones; newest first within each (by `created`; the room id when unknown). */
function lobbyOrder(a, b) {
  const rank = (r) =>
    joinable(r) ? 0 : r.status === "waiting" ? 1 : r.status === "playing" ? 2 : 3;
  return (
    rank(a) - rank(b) || (b.created || 0) - (a.created || 0) || (a.room < b.room ? -1 : 1)
  );
}

/** Read the option inputs of a form into an options map: only values that differ from the
 * default are sent. Throws an Error naming the option when a value is invalid. */
function readOptions(container) {
  const options = {};
  for (const input of container.querySelectorAll("[data-kind]")) {
    const kind = input.dataset.kind;
    const def = JSON.parse(input.dataset.default);
    if (!input.checkValidity()) {
      throw new Error(`${input.name}: ${input.validationMessage}`);
    }
    let value;
    if (kind === "bool") value = input.checked;
    else if (input.value.trim() === "") continue;
    else if (kind === "tristate") value = input.value === "true";
    else if (kind === "int") value = Number.parseInt(input.value, 10);
    else if (kind === "float") value = Number(input.value);
    else if (kind === "list")
      value = input.value
        .trim()
        .toUpperCase()
        .split(/[\s,]+/);
    else value = input.value;
    if ((kind === "int" || kind === "float") && !Number.isFinite(value)) {
      throw new Error(`${input.name}: not a number`);
    }
    if (JSON.stringify(value) === JSON.stringify(def)) continue;
    options[input.name] = value;
  }
  return options;
}

export class Lobby {
  constructor(app) {
    this.app = app;
    this.rooms = [];
    this.cursors = {}; // listing ("open", "all") -> the cursor of its next page
    this.more = false;
    this.filters = { game: "", status: "", free: false, text: "", finished: false };
    this.boards = new Leaderboards(app);
    this.nameDraft = null; // a name typed into "Your name" and not applied yet
    this.quickGame = ""; // Play now's game ("": the default game)
    this.code = ""; // a join code typed
    // The New-room form: its game (null until the games are known) and each input's value
    // by id, kept while the game stays the same.
    this.form = { game: null, fields: {} };
    this.createError = "";
    // Preact draws the lobby into this one element, kept across renders (updated in place).
    this.host = document.createElement("div");
    this.host.className = "lobby-host";
  }

  /** Fetch the first page of rooms (or, with `append`, the next one). The server lists
   * rooms in id order (protocol/README.md `rooms`, "Order"): so that the rooms a player
   * can join come first in a lobby of many pages, they are asked for on their own
   * (`waiting: true`, the "open" listing) besides every room (the "all" listing, left out
   * with the "free seats" filter); the page orders the rooms it holds (lobbyOrder). */
  async refresh(append = false) {
    const base = { t: "list_rooms" };
    if (this.filters.game) base.game = this.filters.game;
    const listings = this.filters.free ? ["open"] : ["open", "all"];
    if (!append) {
      this.boards.load(); // the leaderboard is fresh whenever the list is
      this.cursors = Object.fromEntries(listings.map((name) => [name, ""]));
    }
    const asks = Object.entries(this.cursors).filter(([name]) => listings.includes(name));
    try {
      const replies = await Promise.all(
        asks.map(([name, cursor]) =>
          this.app.session.request({
            ...base,
            ...(name === "open" ? { waiting: true } : {}),
            ...(cursor ? { cursor } : {}),
          }),
        ),
      );
      const byId = new Map(append ? this.rooms.map((r) => [r.room, r]) : []);
      this.cursors = {};
      asks.forEach(([name], i) => {
        const reply = replies[i];
        for (const r of reply.rooms) byId.set(r.room, r);
        // Paging, when the server pages: `more` says another page exists, `cursor` gets it.
        if (reply.more && reply.cursor) this.cursors[name] = reply.cursor;
      });
      this.rooms = [...byId.values()].sort(lobbyOrder);
      this.more = Object.keys(this.cursors).length > 0;
    } catch (/** @type {any} */ err) {
      this.app.notify(`Could not list rooms: ${err.message}`);
    }
    this.app.render();
  }

  visibleRooms() {
    const f = this.filters;
    return this.rooms.filter(
      (r) =>
        (!f.status || r.status === f.status) &&
        (f.finished || f.status === "finished" || r.status !== "finished") &&
        (!f.free || joinable(r)) &&
        (!f.text || `${r.name} ${r.room} ${r.game}`.toLowerCase().includes(f.text.toLowerCase())),
    );
  }

  /** Before a join or a new room: a name typed into "Your name" but not applied (no Enter,
   * no "Use this name") is applied first, so that the seat shows it. */
  async applyName() {
    if (this.nameDraft !== null) {
      const draft = this.nameDraft;
      this.nameDraft = null;
      await this.app.setPlayerName(draft);
    }
  }

  /** Skipper (the multiplayer game) when the server has it, else the first game. */
  defaultGame() {
    const games = this.app.games || [];
    return (games.find((g) => g.game === "skipper") || games[0] || { game: "" }).game;
  }

  /** The welcome's Play: a room for one of `game` (welcome.js playMessage), sat in. */
  async play(game) {
    await this.applyName();
    try {
      await this.app.create(playMessage(game));
    } catch (/** @type {any} */ err) {
      this.app.notify(`Could not start ${game.title}: ${err.message}`);
    }
  }

  /** A filter of the room list changed: the game and "free seats" ask the server again;
   * the search text typed (its draft) is only kept until it applies. */
  setFilter(key, value) {
    this.filters[key] = value;
    if (key === "draft") return;
    if (key === "text") this.filters.draft = undefined;
    if (key === "game" || key === "free") this.refresh();
    else this.app.render();
  }

  /** The New-room form's game changed: its fields start afresh. */
  setGame(game) {
    const spec = (this.app.games || []).find((g) => g.game === game);
    this.form = { game, fields: freshFields(spec) };
    this.app.render();
  }

  /** An input of the New-room form changed (a mode drawn again: its seats follow it). */
  setField(id, value) {
    this.form.fields[id] = value;
    if (id === "create-mode") this.app.render();
  }

  /** Play now's fields: the name draft, the quick-join game, the join code. */
  setPlayNow(key, value) {
    if (key === "name") this.nameDraft = value;
    else if (key === "quickGame") this.quickGame = value;
    else this.code = value;
  }

  async quickJoin() {
    await this.applyName();
    await this.app.quickJoin(this.quickGame || this.defaultGame());
  }

  async joinByCode() {
    const code = this.code.trim();
    if (!code) return;
    await this.applyName();
    await this.app.join({ code });
  }

  /** Create the room the New-room form describes and sit down (its error shown under it,
   * or as the page's notice once the lobby is gone). */
  async submit(form) {
    this.createError = "";
    const fields = this.form.fields;
    try {
      const seats = form.querySelector("#create-seats");
      if (!seats.checkValidity()) throw new Error(`seats: ${seats.validationMessage}`);
      const msg = {
        t: "create_room",
        game: this.form.game,
        seats: Number(seats.value),
        options: {
          ...readOptions(form.querySelector("[data-options='game']")),
          ...readOptions(form.querySelector("[data-options='room']")),
        },
        private: fields["create-private"] === true,
      };
      if (fields["create-mode"]) msg.mode = fields["create-mode"];
      const name = String(fields["create-name"] || "").trim();
      if (name) msg.name = name;
      await this.applyName();
      await this.app.create(msg);
    } catch (/** @type {any} */ err) {
      this.createError = err.message;
      if (this.app.room) this.app.notify(err.message); // the lobby was left meanwhile
      else this.app.render();
    }
  }

  /** The lobby drawn (Preact, into `this.host`); returns the host. */
  render() {
    const games = this.app.games || [];
    if (this.form.game === null || !games.some((g) => g.game === this.form.game)) {
      const game = this.defaultGame();
      this.form = { game, fields: freshFields(games.find((g) => g.game === game)) };
    }
    render(this.screen(games), this.host);
    return this.host;
  }

  /** The lobby's element tree: the welcome across the top, the side panels, the rooms. */
  screen(games) {
    const app = this.app;
    return html`<main id="lobby" class="lobby">
      <${Welcome} games=${games} onPlay=${(g) => this.play(g)} />
      <div class="lobby-side">
        <${PlayNowPanel} games=${games} name=${this.nameDraft ?? app.playerName}
          quickGame=${this.quickGame || this.defaultGame()} code=${this.code}
          set=${(k, v) => this.setPlayNow(k, v)} onName=${() => this.applyName()}
          onQuick=${() => this.quickJoin()} onCode=${() => this.joinByCode()} />
        <${NewRoomPanel} games=${games} roomOptions=${app.roomOptions || []}
          game=${this.form.game} fields=${this.form.fields} error=${this.createError}
          setGame=${(g) => this.setGame(g)} set=${(id, v) => this.setField(id, v)}
          onSubmit=${(form) => this.submit(form)} />
        ${this.boards.render()}
        <${MyGamesPanel} games=${myGames()} onReplay=${(g) => openReplay(app, g)} />
        <${RulesPanel} games=${games} onRules=${openRules} />
      </div>
      <${RoomsPanel} games=${games} rooms=${this.visibleRooms()} more=${this.more}
        filters=${this.filters} setFilter=${(k, v) => this.setFilter(k, v)}
        onRefresh=${() => this.refresh()} onMore=${() => this.refresh(true)}
        onJoin=${(room) => this.join(room)} onWatch=${(room) => app.spectate(room)} />
    </main>`;
  }

  async join(room) {
    await this.applyName();
    await this.app.join({ room });
  }
}

export { PAGE_FIELDS, readOptions };
