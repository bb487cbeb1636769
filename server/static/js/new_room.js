// @ts-check
// The lobby's New-room form (a Preact component, ui.js), built from `list_games`: the
// game, its mode, seats, room name, privacy, then the game's options and the room's
// (timers, grace, bots) folded away. Its values live in the Lobby (lobby.js `form`); the
// options that differ from their defaults are read at submit (lobby.js readOptions).
import { html } from "./ui.js";
import { GameSelect, OptionField } from "./lobby_views.js";

/**
 * @typedef {import("./lobby_views.js").GameSpec} GameSpec
 * @typedef {import("./lobby_views.js").OptionSpec} OptionSpec
 * @typedef {import("./lobby_views.js").Fields} Fields
 */

/**
 * A mode's usual seat count: the game's least in solo, else four within the game's range
 * (one for a game of one seat).
 * @param {GameSpec | undefined} spec
 * @param {string | null} mode
 * @returns {number}
 */
export function seatsFor(spec, mode) {
  if (!spec) return 1;
  if (mode === "solo") return spec.min_seats;
  return Math.min(spec.max_seats, Math.max(spec.min_seats, spec.max_seats >= 4 ? 4 : 1));
}

/**
 * The form's values for `spec` when nothing was changed: its first mode and that mode's
 * seats.
 * @param {GameSpec | undefined} spec
 * @returns {Fields}
 */
export function freshFields(spec) {
  const mode = spec && spec.modes.length ? spec.modes[0] : null;
  /** @type {Fields} */
  const fields = { "create-seats": String(seatsFor(spec, mode)) };
  if (mode) fields["create-mode"] = mode;
  return fields;
}

/**
 * The New-room panel.
 * @param {{ games: GameSpec[], roomOptions: OptionSpec[], game: string, fields: Fields,
 *   error: string, setGame: (game: string) => void,
 *   set: (id: string, value: string | boolean) => void,
 *   onSubmit: (form: HTMLFormElement) => void }} p
 */
export function NewRoomPanel(p) {
  const spec = p.games.find((g) => g.game === p.game);
  const f = p.fields;
  const value = (/** @type {any} */ e) => e.currentTarget.value;
  const setMode = (/** @type {string} */ mode) => {
    p.set("create-seats", String(seatsFor(spec, mode))); // before the mode, which redraws
    p.set("create-mode", mode);
  };
  const options = spec ? spec.options.filter((o) => o.name !== "mode") : [];
  return html`<section class="panel" aria-labelledby="create-title">
    <h2 id="create-title">New room</h2>
    <form id="create-form" novalidate aria-labelledby="create-title" data-game=${p.game}
        onSubmit=${(/** @type {any} */ e) => { e.preventDefault(); p.onSubmit(e.currentTarget); }}>
      <div class="option"><label for="create-game">game</label>
        <${GameSelect} id="create-game" games=${p.games} value=${p.game} onChange=${p.setGame} />
      </div>
      ${spec && spec.modes.length ? html`<div class="option">
        <label for="create-mode">mode</label>
        <select id="create-mode" name="mode" value=${f["create-mode"]}
            onChange=${(/** @type {any} */ e) => setMode(value(e))}>
          ${spec.modes.map((m) => html`<option value=${m}>${m}</option>`)}
        </select></div>` : null}
      <div class="option"><label for="create-seats">seats</label>
        <input type="number" id="create-seats" name="seats" required step="1"
          min=${spec ? spec.min_seats : 1} max=${spec ? spec.max_seats : 6}
          value=${f["create-seats"]}
          onInput=${(/** @type {any} */ e) => p.set("create-seats", value(e))} />
        <small class="doc">${spec
          ? `${spec.min_seats} to ${spec.max_seats}; empty seats get bots at start` : ""}</small>
      </div>
      <div class="option"><label for="create-name">room name</label>
        <input type="text" id="create-name" maxlength="64" placeholder="chosen by the server"
          value=${f["create-name"] ?? ""}
          onInput=${(/** @type {any} */ e) => p.set("create-name", value(e))} /></div>
      <div class="option"><label for="create-private"><input type="checkbox"
          id="create-private" checked=${f["create-private"] === true}
          onChange=${(/** @type {any} */ e) => p.set("create-private", e.currentTarget.checked)} />
        ${" private (joined by code)"}</label></div>
      <details key=${`g:${p.game}`}><summary>Game options</summary>
        <div class="options" data-options="game">
        ${options.map((o) => html`<${OptionField} key=${`${p.game}:${o.name}`} option=${o}
          prefix="opt" fields=${f} set=${p.set} />`)}
      </div></details>
      <details key=${`r:${p.game}`}><summary>Room options (timers, grace, bots)</summary>
        <div class="options" data-options="room">
          ${p.roomOptions.map((o) => html`<${OptionField} key=${o.name} option=${o}
            prefix="ropt" fields=${f} set=${p.set} />`)}
        </div></details>
      <p class="error" role="alert" id="create-error">${p.error}</p>
      <button type="submit" id="create-submit">Create and sit down</button>
    </form>
  </section>`;
}
