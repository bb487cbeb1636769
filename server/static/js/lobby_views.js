// @ts-check
// The lobby's panels as Preact components (ui.js): the room list with its filters, Play
// now (name, quick join, join by code) and the New-room form built from `list_games`. Each
// draws what the Lobby (lobby.js) holds and hands every change back to it: the state lives
// in the Lobby, the components only show it.
import { html, DomSlot } from "./ui.js";

/**
 * @typedef {() => (Node | object | null)} LobbyAction  an extra control for the Play now
 *   panel: a DOM node or a Preact element, or null for none
 */

/** Extra controls other modules put in the Play now panel (e.g. "Play rated"), in order. */
export const lobbyActions = /** @type {LobbyAction[]} */ ([]);

/**
 * Add a control to the lobby's Play now panel, under Quick join (drawn at every render of
 * the lobby; the lobby is drawn again after every message, so the control may show state).
 * @param {LobbyAction} action  returns a DOM node, a Preact element or null
 */
export function addLobbyAction(action) {
  lobbyActions.push(action);
}

/**
 * @typedef {{ name: string, kind: string, default?: any, doc?: string, choices?: any[],
 *             min?: number, max?: number }} OptionSpec  one option of `list_games`
 * @typedef {{ game: string, title: string, min_seats: number, max_seats: number,
 *             modes: string[], options: OptionSpec[] }} GameSpec
 * @typedef {{ room: string, name?: string, game: string, mode?: string, seats: number,
 *             taken: number, status: string, spectators: number, private?: boolean }} RoomInfo
 * @typedef {Record<string, string | boolean>} Fields  form values by input id
 */

/**
 * A <select> of the games (with "all games" first when `all`).
 * @param {{ id: string, games: GameSpec[], value: string, all?: boolean,
 *           onChange: (value: string) => void }} p
 */
export function GameSelect({ id, games, value, all = false, onChange }) {
  return html`<select id=${id} name="game" value=${value}
      onChange=${(/** @type {any} */ e) => onChange(e.currentTarget.value)}>
    ${all ? html`<option value="">all games</option>` : null}
    ${games.map((g) => html`<option value=${g.game}>${g.title}</option>`)}
  </select>`;
}

const has = (/** @type {any} */ v) => v !== null && v !== undefined;

/**
 * The value an option's input starts with: its default as the input shows it.
 * @param {OptionSpec} option
 * @returns {string | boolean}
 */
export function initialValue(option) {
  if (option.kind === "bool") return has(option.default) ? option.default === true : "";
  return has(option.default) ? String(option.default) : "";
}

/**
 * The input of one option, by kind: a three-way select for a bool without a fixed default
 * (its default depends on the mode, e.g. Skipper's skip_draws: "game default" sends
 * nothing), a checkbox, a select of choices, a number, a card list, or text. Each carries
 * `data-kind` and `data-default` for readOptions (lobby.js).
 * @param {{ option: OptionSpec, id: string, value: string | boolean,
 *           set: (value: string | boolean) => void }} p
 */
function OptionInput({ option, id, value, set }) {
  const kind = option.kind === "bool" && !has(option.default) ? "tristate" : option.kind;
  const common = { id, name: option.name, "data-kind": kind,
    "data-default": JSON.stringify(option.default ?? null), "aria-describedby": `${id}-doc` };
  const onInput = (/** @type {any} */ e) => set(e.currentTarget.value);
  const placeholder = has(option.default) ? String(option.default) : "not set";
  if (kind === "tristate")
    return html`<select ...${common} value=${value} onChange=${onInput}>
      <option value="">game default</option><option value="true">on</option>
      <option value="false">off</option></select>`;
  if (kind === "bool")
    return html`<input type="checkbox" ...${common} checked=${value === true}
      onChange=${(/** @type {any} */ e) => set(e.currentTarget.checked)} />`;
  if (option.choices && option.choices.length)
    return html`<select ...${common} value=${value} onChange=${onInput}>
      ${option.choices.map((c) => html`<option value=${String(c)}>${String(c)}</option>`)}
    </select>`;
  if (kind === "int" || kind === "float")
    return html`<input type="number" ...${common} value=${value} onInput=${onInput}
      step=${kind === "int" ? "1" : "any"} min=${option.min ?? (kind === "float" ? "0" : undefined)}
      max=${option.max ?? undefined} placeholder=${placeholder} />`;
  if (kind === "list")
    return html`<input type="text" ...${common} value=${value} onInput=${onInput}
      placeholder="card codes, e.g. AS 2D 3H"
      pattern="^\\s*([A2-9TJQKa2-9tjqk][CDHScdhs][1-9]?[\\s,]*)*$" />`;
  return html`<input type="text" ...${common} value=${value} onInput=${onInput}
    placeholder=${has(option.default) ? "" : "not set"} />`;
}

/**
 * One option as a form row: its label, its input and its doc.
 * @param {{ option: OptionSpec, prefix: string, fields: Fields,
 *           set: (id: string, value: string | boolean) => void }} p
 */
export function OptionField({ option, prefix, fields, set }) {
  const id = `${prefix}-${option.name}`;
  const value = id in fields ? fields[id] : initialValue(option);
  return html`<div class="option">
    <label for=${id}>${option.name.replace(/_/g, " ")}</label>
    <${OptionInput} option=${option} id=${id} value=${value} set=${(v) => set(id, v)} />
    <small id=${`${id}-doc`} class="doc">${option.doc || ""}</small>
  </div>`;
}

/**
 * One room of the list: name, game (mode), seats, status, spectators, Join and Watch.
 * @param {{ r: RoomInfo, games: GameSpec[], onJoin: (room: string) => void,
 *           onWatch: (room: string) => void }} p
 */
function RoomRow({ r, games, onJoin, onWatch }) {
  const title = (games.find((g) => g.game === r.game) || { title: r.game }).title;
  const open = r.status === "waiting" && r.taken < r.seats;
  return html`<tr data-room=${r.room}>
    <td>${r.name || r.room}</td>
    <td>${title}${r.mode ? ` (${r.mode})` : ""}</td>
    <td data-label="seats">${`${r.taken}/${r.seats}`}</td>
    <td>${r.status}</td>
    <td data-label="watching">${String(r.spectators)}</td>
    <td>${r.private ? html`<span class="tag">private</span>` : html`
      ${open ? html`<button type="button" class="join" onClick=${() => onJoin(r.room)}>Join</button>`
        : null}
      <button type="button" class="spectate" onClick=${() => onWatch(r.room)}>Watch</button>`}
    </td>
  </tr>`;
}

/**
 * The room list's filters (the search text applies on Enter or leaving the field; what is
 * typed before is its `draft`).
 * @param {{ games: GameSpec[], filters: { game: string, status: string, free: boolean,
 *   text: string, finished: boolean, draft?: string }, setFilter: (key: string, value: any)
 *   => void, onRefresh: () => void }} p
 */
function RoomFilters({ games, filters, setFilter, onRefresh }) {
  const value = (/** @type {any} */ e) => e.currentTarget.value;
  const checked = (/** @type {any} */ e) => e.currentTarget.checked;
  // Each label stays on one line with its control (a phone wraps the filters).
  return html`<div class="filters">
    <span class="filter"><label for="filter-game">Game</label>
    <${GameSelect} id="filter-game" games=${games} value=${filters.game} all=${true}
      onChange=${(v) => setFilter("game", v)} /></span>
    <span class="filter"><label for="filter-status">Status</label>
    <select id="filter-status" value=${filters.status}
        onChange=${(/** @type {any} */ e) => setFilter("status", value(e))}>
      ${["", "waiting", "playing", "finished"].map(
        (s) => html`<option value=${s}>${s || "any status"}</option>`)}
    </select></span>
    <label for="filter-free"><input type="checkbox" id="filter-free" checked=${filters.free}
      onChange=${(/** @type {any} */ e) => setFilter("free", checked(e))} /> free seats</label>
    <label for="filter-finished"><input type="checkbox" id="filter-finished"
      checked=${filters.finished}
      onChange=${(/** @type {any} */ e) => setFilter("finished", checked(e))} /> show finished</label>
    <span class="filter"><label for="filter-text">Search</label>
    <input type="search" id="filter-text" placeholder="name or id"
      value=${filters.draft ?? filters.text}
      onInput=${(/** @type {any} */ e) => setFilter("draft", value(e))}
      onChange=${(/** @type {any} */ e) => setFilter("text", value(e))} /></span>
    <button type="button" id="refresh" onClick=${onRefresh}>Refresh</button>
  </div>`;
}

/**
 * The Rooms panel: filters, the rooms shown, "More rooms" when the server has more.
 * @param {{ games: GameSpec[], rooms: RoomInfo[], more: boolean, filters: any,
 *   setFilter: (key: string, value: any) => void, onRefresh: () => void,
 *   onMore: () => void, onJoin: (room: string) => void, onWatch: (room: string) => void }} p
 */
export function RoomsPanel(p) {
  return html`<section class="panel rooms-panel" aria-labelledby="rooms-title">
    <h2 id="rooms-title">Rooms</h2>
    <${RoomFilters} games=${p.games} filters=${p.filters} setFilter=${p.setFilter}
      onRefresh=${p.onRefresh} />
    <table class="rooms" aria-label="rooms">
      <thead><tr>
        ${["Room", "Game", "Seats", "Status", "Watching", ""].map(
          (c) => html`<th scope="col">${c}</th>`)}
      </tr></thead>
      <tbody>
        ${p.rooms.length
          ? p.rooms.map((r) => html`<${RoomRow} key=${r.room} r=${r} games=${p.games}
              onJoin=${p.onJoin} onWatch=${p.onWatch} />`)
          : html`<tr><td colspan="6" class="none">No rooms yet: create one.</td></tr>`}
      </tbody>
    </table>
    ${p.more ? html`<button type="button" id="more-rooms" onClick=${p.onMore}>More rooms</button>`
      : null}
  </section>`;
}

/**
 * Play now: the player's name (Enter applies it), quick join of a game, join by code.
 * @param {{ games: GameSpec[], name: string, quickGame: string, code: string,
 *   set: (key: string, value: string) => void, onName: () => void,
 *   onQuick: () => void, onCode: () => void }} p
 */
export function PlayNowPanel(p) {
  const value = (/** @type {any} */ e) => e.currentTarget.value;
  return html`<section class="panel" aria-labelledby="quick-title">
    <h2 id="quick-title">Play now</h2>
    <form class="filters" id="name-form"
        onSubmit=${(/** @type {Event} */ e) => { e.preventDefault(); p.onName(); }}>
      <label for="player-name">Your name</label>
      <input type="text" id="player-name" maxlength="32" placeholder="anonymous"
        autocomplete="nickname" value=${p.name}
        onInput=${(/** @type {any} */ e) => p.set("name", value(e))} />
      <button type="submit" id="set-name">Use this name</button>
    </form>
    <div class="filters">
      <label for="quick-game">Game</label>
      <${GameSelect} id="quick-game" games=${p.games} value=${p.quickGame}
        onChange=${(v) => p.set("quickGame", v)} />
      <button type="button" id="quick-join" onClick=${p.onQuick}>Quick join</button>
    </div>
    ${lobbyActions.map((action) => action()).filter((x) => x).map((x) => html`<div
      class="filters lobby-action">${typeof Node !== "undefined" && x instanceof Node
        ? html`<${DomSlot} node=${x} />` : x}</div>`)}
    <div class="filters">
      <label for="join-code">Private room</label>
      <input type="text" id="join-code" maxlength="64" placeholder="join code" value=${p.code}
        onInput=${(/** @type {any} */ e) => p.set("code", value(e))} />
      <button type="button" id="join-by-code" onClick=${p.onCode}>Join by code</button>
    </div>
  </section>`;
}
