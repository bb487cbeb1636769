// @ts-check
// The page's chrome as Preact components (ui.js): the header (Cardhall, what the page shows,
// the sound toggle, the account menu), the connection's state while it is not open, the
// notice with its dismiss button, and the rated table's banner. The App (app.js) holds the
// state (connection, notice, the screen) and draws these above the screen; they only show it.
import { html } from "./ui.js";

/**
 * @typedef {"connecting" | "open" | "reconnecting"} ConnState  the App's connection state
 */

/**
 * The header: the Cardhall link (onHome: back to the lobby's first page), what the page
 * shows (`title`: "Lobby" or the room's title), then `sound` and `account` (elements).
 * @param {{ title: string, onHome: () => void, sound: any, account: any }} p
 */
export function Header({ title, onHome, sound, account }) {
  /** @param {Event} event */
  const home = (event) => {
    event.preventDefault();
    onHome();
  };
  return html`<header>
    <h1><a href="#" onClick=${home}>Cardhall</a></h1>
    <span class="sub">${title}</span>
    ${sound}
    ${account}
  </header>`;
}

/**
 * The connection's state while it is not open ("Connecting…", "Reconnecting…"), else nothing.
 * @param {{ state: ConnState }} p
 */
export function ConnBanner({ state }) {
  if (state === "open") return null;
  return html`<div class="banner" role="status" id="conn-status">
    ${state === "reconnecting" ? "Reconnecting\u2026" : "Connecting\u2026"}</div>`;
}

/**
 * The page's notice (what just went wrong or happened) with a dismiss button; nothing when
 * `text` is empty.
 * @param {{ text: string, onDismiss: () => void }} p
 */
export function Notice({ text, onDismiss }) {
  if (!text) return null;
  return html`<div class="notice" role="status" id="notice">${text}<button type="button"
    class="link" aria-label="dismiss" onClick=${onDismiss}>\u00d7</button></div>`;
}

/**
 * @typedef {{ title: string, conn: ConnState, notice: string, onHome: () => void,
 *   onDismiss: () => void, sound: any, account: any, rated: any }} ChromeProps
 */

/**
 * Everything above the screen, in order: the header, the connection's state, the notice,
 * the rated table's banner (`rated`: an element or null).
 * @param {ChromeProps} p
 */
export function Chrome(p) {
  return html`<${Header} title=${p.title} onHome=${p.onHome} sound=${p.sound}
      account=${p.account} />
    <${ConnBanner} state=${p.conn} />
    <${Notice} text=${p.notice} onDismiss=${p.onDismiss} />
    ${p.rated}`;
}
