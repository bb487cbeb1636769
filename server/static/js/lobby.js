// The lobby: the room list (filters, paging when the server pages), create-room form built
// from `list_games` (descriptions, defaults, validation), join by code, quick-join, spectate.
import { h } from "./cards.js";
import { Leaderboards } from "./leaderboard.js";
import { myGamesPanel } from "./replay.js";
import { rulesPanel } from "./help.js";

const PAGE_FIELDS = ["cursor", "more"];

/** Options of a game as form fields: a <div> per option with label, input and its doc. */
function optionField(option, prefix) {
  const id = `${prefix}-${option.name}`;
  const doc = option.doc || "";
  let input;
  if (option.kind === "bool") {
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
  input.dataset.kind = option.kind;
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
    this.cursor = null;
    this.more = false;
    this.filters = { game: "", status: "", free: false, text: "" };
    this.boards = new Leaderboards(app);
  }

  /** Fetch the first page of rooms (or, with `append`, the next one). */
  async refresh(append = false) {
    const msg = { t: "list_rooms" };
    if (this.filters.game) msg.game = this.filters.game;
    // "free seats": the server's `waiting` filter (public, waiting, a seat free), so that
    // pages hold only such rooms; the page filters what it holds too (older servers).
    if (this.filters.free) msg.waiting = true;
    if (append && this.cursor !== null) msg.cursor = this.cursor;
    if (!append) this.boards.load(); // the leaderboard is fresh whenever the list is
    try {
      const reply = await this.app.session.request(msg);
      this.rooms = append ? this.rooms.concat(reply.rooms) : reply.rooms;
      // Paging, when the server pages: `more` says another page exists, `cursor` fetches it.
      this.more = Boolean(reply.more) && reply.cursor !== undefined && reply.cursor !== null;
      this.cursor = this.more ? reply.cursor : null;
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
        (!f.free || (r.status === "waiting" && r.taken < r.seats)) &&
        (!f.text || `${r.name} ${r.room} ${r.game}`.toLowerCase().includes(f.text.toLowerCase())),
    );
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
        h("td", {}, `${r.taken}/${r.seats}`),
        h("td", {}, r.status),
        h("td", {}, String(r.spectators)),
        h(
          "td",
          {},
          r.private
            ? h("span", { class: "tag" }, "private")
            : [
                r.status === "waiting" && r.taken < r.seats
                  ? h(
                      "button",
                      { type: "button", class: "join", onclick: () => app.join({ room: r.room }) },
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
        await app.create(msg);
      } catch (err) {
        error.textContent = err.message;
      }
    });
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
      value: app.playerName,
    });
    const quick = h(
      "section",
      { class: "panel", "aria-labelledby": "quick-title" },
      h("h2", { id: "quick-title" }, "Play now"),
      h(
        "div",
        { class: "filters" },
        h("label", { for: "player-name" }, "Your name"),
        playerName,
        h(
          "button",
          { type: "button", id: "set-name", onclick: () => app.setPlayerName(playerName.value) },
          "Use this name",
        ),
      ),
      h(
        "div",
        { class: "filters" },
        h("label", { for: "quick-game" }, "Game"),
        quickGame,
        h(
          "button",
          { type: "button", id: "quick-join", onclick: () => app.quickJoin(quickGame.value) },
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
            onclick: () => code.value.trim() && app.join({ code: code.value.trim() }),
          },
          "Join by code",
        ),
      ),
    );

    return h(
      "main",
      { id: "lobby", class: "lobby" },
      h("div", { class: "lobby-side" }, quick, create, this.boards.render(), myGamesPanel(app),
        rulesPanel(games)),
      list,
    );
  }
}

export { PAGE_FIELDS, readOptions };
