// The lobby: the room list (filters, paging when the server pages), create-room form built
// from `list_games` (descriptions, defaults, validation), join by code, quick-join, spectate.
import { h } from "./cards.js";
import { Leaderboards } from "./leaderboard.js";
import { myGamesPanel } from "./replay.js";
import { rulesPanel } from "./help.js";
import { html, render } from "./ui.js";
import { Welcome, playMessage } from "./welcome.js";

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

/** What the player set in a form built for one game (`form.dataset.game`): each field's
 * value (or checked) by id, and which of its <details> are open. */
function formState(form) {
  const fields = {};
  for (const el of form.querySelectorAll("input[id], select[id]"))
    fields[el.id] = el.type === "checkbox" ? el.checked : el.value;
  const open = [...form.querySelectorAll("details")].map((d) => d.open);
  return { game: form.dataset.game, fields, open };
}

/** Put a formState() back into a form built afresh for the same game. */
function restoreForm(form, state) {
  for (const [id, value] of Object.entries(state.fields)) {
    const el = form.querySelector(`#${CSS.escape(id)}`);
    if (!el) continue;
    if (el.type === "checkbox") el.checked = value;
    else el.value = value;
  }
  form.querySelectorAll("details").forEach((d, i) => {
    d.open = Boolean(state.open[i]);
  });
}

/** Options of a game as form fields: a <div> per option with label, input and its doc. */
function optionField(option, prefix) {
  const id = `${prefix}-${option.name}`;
  const doc = option.doc || "";
  let input;
  let kind = option.kind;
  if (option.kind === "bool" && (option.default === null || option.default === undefined)) {
    // No fixed default (it depends on the mode, e.g. Skipper's skip_draws): a checkbox
    // cannot say "the game's default", so three choices, the default sending nothing.
    kind = "tristate";
    input = h(
      "select",
      { id, name: option.name },
      [
        ["", "game default"],
        ["true", "on"],
        ["false", "off"],
      ].map(([value, text]) => h("option", { value, text })),
    );
  } else if (option.kind === "bool") {
    input = h("input", { type: "checkbox", id, name: option.name });
    input.checked = option.default === true;
  } else if (option.choices && option.choices.length) {
    input = h(
      "select",
      { id, name: option.name },
      option.choices.map((c) => h("option", { value: c, text: String(c) })),
    );
    if (option.default !== null && option.default !== undefined) input.value = option.default;
  } else if (option.kind === "int" || option.kind === "float") {
    input = h("input", {
      type: "number",
      id,
      name: option.name,
      step: option.kind === "int" ? "1" : "any",
      min: option.min ?? (option.kind === "float" ? "0" : undefined),
      max: option.max ?? undefined,
      placeholder:
        option.default === null || option.default === undefined
          ? "not set"
          : String(option.default),
    });
    if (option.default !== null && option.default !== undefined) input.value = option.default;
  } else if (option.kind === "list") {
    input = h("input", {
      type: "text",
      id,
      name: option.name,
      placeholder: "card codes, e.g. AS 2D 3H",
      pattern: "^\\s*([A2-9TJQKa2-9tjqk][CDHScdhs][1-9]?[\\s,]*)*$",
    });
  } else {
    input = h("input", {
      type: "text",
      id,
      name: option.name,
      placeholder: option.default === null || option.default === undefined ? "not set" : "",
    });
    if (option.default !== null && option.default !== undefined) input.value = option.default;
  }
  input.dataset.kind = kind;
  input.dataset.default = JSON.stringify(option.default ?? null);
  input.setAttribute("aria-describedby", `${id}-doc`);
  return h(
    "div",
    { class: "option" },
    h("label", { for: id }, option.name.replace(/_/g, " ")),
    input,
    h("small", { id: `${id}-doc`, class: "doc" }, doc),
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
    this.formState = null; // what the New-room form held when last shown (formState())
    // The welcome (welcome.js, a Preact component): one host kept across renders, so
    // that Preact updates it in place.
    this.welcomeHost = document.createElement("div");
    this.welcomeHost.className = "welcome-host";
  }

  /** The welcome's Play: a room for one of `game` (welcome.js playMessage), sat in. */
  async play(game) {
    await this.applyName();
    try {
      await this.app.create(playMessage(game));
    } catch (err) {
      this.app.notify(`Could not start ${game.title}: ${err.message}`);
    }
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
    } catch (err) {
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

  render() {
    const app = this.app;
    const games = app.games || [];
    const gameSelect = (id, withAll) =>
      h(
        "select",
        { id, name: "game" },
        withAll ? h("option", { value: "", text: "all games" }) : null,
        games.map((g) => h("option", { value: g.game, text: g.title })),
      );

    // Filters and list
    const filterGame = gameSelect("filter-game", true);
    filterGame.value = this.filters.game;
    filterGame.addEventListener("change", () => {
      this.filters.game = filterGame.value;
      this.refresh();
    });
    const status = h(
      "select",
      { id: "filter-status" },
      ["", "waiting", "playing", "finished"].map((s) =>
        h("option", { value: s, text: s || "any status" }),
      ),
    );
    status.value = this.filters.status;
    status.addEventListener("change", () => {
      this.filters.status = status.value;
      app.render();
    });
    const free = h("input", { type: "checkbox", id: "filter-free" });
    free.checked = this.filters.free;
    free.addEventListener("change", () => {
      this.filters.free = free.checked;
      this.refresh();
    });
    const finished = h("input", { type: "checkbox", id: "filter-finished" });
    finished.checked = this.filters.finished;
    finished.addEventListener("change", () => {
      this.filters.finished = finished.checked;
      app.render();
    });
    const text = h("input", {
      type: "search",
      id: "filter-text",
      placeholder: "name or id",
      value: this.filters.text,
    });
    text.addEventListener("change", () => {
      this.filters.text = text.value;
      app.render();
    });

    const rows = this.visibleRooms().map((r) =>
      h(
        "tr",
        { dataset: { room: r.room } },
        h("td", {}, r.name || r.room),
        h(
          "td",
          {},
          (games.find((g) => g.game === r.game) || {}).title || r.game,
          r.mode ? ` (${r.mode})` : "",
        ),
        h("td", { "data-label": "seats" }, `${r.taken}/${r.seats}`),
        h("td", {}, r.status),
        h("td", { "data-label": "watching" }, String(r.spectators)),
        h(
          "td",
          {},
          r.private
            ? h("span", { class: "tag" }, "private")
            : [
                r.status === "waiting" && r.taken < r.seats
                  ? h(
                      "button",
                      {
                        type: "button",
                        class: "join",
                        onclick: async () => {
                          await this.applyName();
                          await app.join({ room: r.room });
                        },
                      },
                      "Join",
                    )
                  : null,
                h(
                  "button",
                  { type: "button", class: "spectate", onclick: () => app.spectate(r.room) },
                  "Watch",
                ),
              ],
        ),
      ),
    );
    const table = h(
      "table",
      { class: "rooms", "aria-label": "rooms" },
      h(
        "thead",
        {},
        h(
          "tr",
          {},
          ["Room", "Game", "Seats", "Status", "Watching", ""].map((c) =>
            h("th", { scope: "col" }, c),
          ),
        ),
      ),
      h(
        "tbody",
        {},
        rows.length
          ? rows
          : h("tr", {}, h("td", { colspan: 6, class: "none" }, "No rooms yet: create one.")),
      ),
    );

    const list = h(
      "section",
      { class: "panel rooms-panel", "aria-labelledby": "rooms-title" },
      h("h2", { id: "rooms-title" }, "Rooms"),
      h(
        "div",
        { class: "filters" },
        h("label", { for: "filter-game" }, "Game"),
        filterGame,
        h("label", { for: "filter-status" }, "Status"),
        status,
        h("label", { for: "filter-free" }, free, " free seats"),
        h("label", { for: "filter-finished" }, finished, " show finished"),
        h("label", { for: "filter-text" }, "Search"),
        text,
        h("button", { type: "button", id: "refresh", onclick: () => this.refresh() }, "Refresh"),
      ),
      table,
      this.more
        ? h(
            "button",
            { type: "button", id: "more-rooms", onclick: () => this.refresh(true) },
            "More rooms",
          )
        : null,
    );

    // Create
    // What the player chose in the form stays when the lobby is drawn again (a reconnection
    // with a new name, a refreshed room list), as long as the game is the same.
    const shown = document.getElementById("create-form");
    if (shown) this.formState = formState(shown);
    const createGame = gameSelect("create-game", false);
    createGame.value = this.createGame || this.defaultGame();
    const spec = games.find((g) => g.game === createGame.value);
    createGame.addEventListener("change", () => {
      this.createGame = createGame.value;
      app.render();
    });
    // A mode's usual seat count: one seat in solo, else four (within the game's range).
    const seatsFor = (mode) =>
      !spec
        ? 1
        : mode === "solo"
          ? spec.min_seats
          : Math.min(spec.max_seats, Math.max(spec.min_seats, spec.max_seats >= 4 ? 4 : 1));
    const seats = h("input", {
      type: "number",
      id: "create-seats",
      name: "seats",
      required: true,
      min: spec ? spec.min_seats : 1,
      max: spec ? spec.max_seats : 6,
      step: 1,
      value: seatsFor(spec && spec.modes.length ? spec.modes[0] : null),
    });
    const modeField =
      spec && spec.modes.length
        ? h(
            "div",
            { class: "option" },
            h("label", { for: "create-mode" }, "mode"),
            h(
              "select",
              {
                id: "create-mode",
                name: "mode",
                onchange: (event) => {
                  seats.value = seatsFor(event.target.value);
                },
              },
              spec.modes.map((m) => h("option", { value: m, text: m })),
            ),
          )
        : null;
    const name = h("input", {
      type: "text",
      id: "create-name",
      maxlength: 64,
      placeholder: "chosen by the server",
    });
    const priv = h("input", { type: "checkbox", id: "create-private" });
    const gameOptions = h(
      "div",
      { class: "options" },
      (spec ? spec.options : []).filter((o) => o.name !== "mode").map((o) => optionField(o, "opt")),
    );
    const roomOptions = h(
      "div",
      { class: "options" },
      (app.roomOptions || []).map((o) => optionField(o, "ropt")),
    );
    const error = h("p", { class: "error", role: "alert", id: "create-error" });
    const form = h(
      "form",
      { id: "create-form", novalidate: true, "aria-labelledby": "create-title" },
      h("div", { class: "option" }, h("label", { for: "create-game" }, "game"), createGame),
      modeField,
      h(
        "div",
        { class: "option" },
        h("label", { for: "create-seats" }, "seats"),
        seats,
        h(
          "small",
          { class: "doc" },
          spec ? `${spec.min_seats} to ${spec.max_seats}; empty seats get bots at start` : "",
        ),
      ),
      h("div", { class: "option" }, h("label", { for: "create-name" }, "room name"), name),
      h(
        "div",
        { class: "option" },
        h("label", { for: "create-private" }, priv, " private (joined by code)"),
      ),
      h("details", {}, h("summary", {}, "Game options"), gameOptions),
      h("details", {}, h("summary", {}, "Room options (timers, grace, bots)"), roomOptions),
      error,
      h("button", { type: "submit", id: "create-submit" }, "Create and sit down"),
    );
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      error.textContent = "";
      try {
        if (!seats.checkValidity()) throw new Error(`seats: ${seats.validationMessage}`);
        const options = { ...readOptions(gameOptions), ...readOptions(roomOptions) };
        const msg = {
          t: "create_room",
          game: createGame.value,
          seats: Number(seats.value),
          options,
          private: priv.checked,
        };
        const mode = form.querySelector("#create-mode");
        if (mode) msg.mode = mode.value;
        if (name.value.trim()) msg.name = name.value.trim();
        await this.applyName();
        await app.create(msg);
      } catch (err) {
        error.textContent = err.message;
        if (!error.isConnected) app.notify(err.message); // the lobby was drawn again meanwhile
      }
    });
    form.dataset.game = createGame.value;
    if (this.formState && this.formState.game === createGame.value)
      restoreForm(form, this.formState);
    const create = h(
      "section",
      { class: "panel", "aria-labelledby": "create-title" },
      h("h2", { id: "create-title" }, "New room"),
      form,
    );

    // Quick join and code
    const quickGame = gameSelect("quick-game", false);
    quickGame.value = this.defaultGame();
    const code = h("input", {
      type: "text",
      id: "join-code",
      maxlength: 64,
      placeholder: "join code",
    });
    // The player's name: what other seats and the leaderboards show (the hello name).
    const playerName = h("input", {
      type: "text",
      id: "player-name",
      maxlength: 32,
      placeholder: "anonymous",
      autocomplete: "nickname",
      value: this.nameDraft ?? app.playerName,
    });
    playerName.addEventListener("input", () => {
      this.nameDraft = playerName.value;
    });
    // A form, so that Enter in the field applies the name as the button does.
    const nameForm = h(
      "form",
      { class: "filters", id: "name-form" },
      h("label", { for: "player-name" }, "Your name"),
      playerName,
      h("button", { type: "submit", id: "set-name" }, "Use this name"),
    );
    nameForm.addEventListener("submit", (event) => {
      event.preventDefault();
      this.nameDraft = playerName.value;
      this.applyName();
    });
    const quick = h(
      "section",
      { class: "panel", "aria-labelledby": "quick-title" },
      h("h2", { id: "quick-title" }, "Play now"),
      nameForm,
      h(
        "div",
        { class: "filters" },
        h("label", { for: "quick-game" }, "Game"),
        quickGame,
        h(
          "button",
          {
            type: "button",
            id: "quick-join",
            onclick: async () => {
              await this.applyName();
              await app.quickJoin(quickGame.value);
            },
          },
          "Quick join",
        ),
      ),
      h(
        "div",
        { class: "filters" },
        h("label", { for: "join-code" }, "Private room"),
        code,
        h(
          "button",
          {
            type: "button",
            id: "join-by-code",
            onclick: async () => {
              if (!code.value.trim()) return;
              await this.applyName();
              await app.join({ code: code.value.trim() });
            },
          },
          "Join by code",
        ),
      ),
    );

    render(html`<${Welcome} games=${games} onPlay=${(g) => this.play(g)} />`, this.welcomeHost);
    return h(
      "main",
      { id: "lobby", class: "lobby" },
      this.welcomeHost,
      h("div", { class: "lobby-side" }, quick, create, this.boards.render(), myGamesPanel(app),
        rulesPanel(games)),
      list,
    );
  }
}

export { PAGE_FIELDS, readOptions };
