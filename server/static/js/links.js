// @ts-check
// Room links: the address names the room the page is in, so that it can be shared, and
// opening it (or reloading) brings the page back to that room.
//   /r/ROOM      a room (the server serves the app there; #/r/ROOM works too)
//   /join/CODE   a private room, by its join code (#/join/CODE too)
// Opening a link joins the room, or watches it when no seat can be taken (full or started);
// a page that holds the room's seat token resumes the seat instead (app.js), as does any
// reload of a page that holds a seat; a page that was watching the room (sessionStorage)
// watches again.
import { html } from "./ui.js";

const WATCH_KEY = "cardhall.watching"; // sessionStorage: the room this tab watches
const LINK_RE = /^\/(r|join)\/([A-Za-z0-9_-]{1,64})\/?$/;

/** The room a location names: {room} or {code}, or null. */
export function parseLink(loc = window.location) {
  for (const path of [loc.pathname, (loc.hash || "").replace(/^#/, "")]) {
    const m = LINK_RE.exec(path || "");
    if (m) return m[1] === "r" ? { room: m[2] } : { code: m[2] };
  }
  return null;
}

/** The path of a room's link: its join code for a private room, else its id. */
export function linkPath(roomId, code) {
  return code ? `/join/${encodeURIComponent(code)}` : `/r/${encodeURIComponent(roomId)}`;
}

/** The whole URL of a room's link, for sharing. */
export function linkUrl(roomId, code, loc = window.location) {
  return `${loc.protocol}//${loc.host}${linkPath(roomId, code)}`;
}

// What the address named when the page was opened (used once; none outside a browser).
let target = typeof window === "undefined" ? null : parseLink();

/** Remember that this tab watches `roomId` (null: no room), for a reload. */
export function rememberWatching(roomId) {
  try {
    if (roomId) sessionStorage.setItem(WATCH_KEY, roomId);
    else sessionStorage.removeItem(WATCH_KEY);
  } catch {
    /* storage off: a reload joins or watches afresh */
  }
}

function watching() {
  try {
    return sessionStorage.getItem(WATCH_KEY);
  } catch {
    return null;
  }
}

/**
 * Open the room the page's address named when it was loaded (once per page): resume its
 * seat when `saved` holds its token (returns false: app.js resumes), watch it when this tab
 * watched it, else join it, or watch it when no seat can be taken. Returns true when it
 * took the page somewhere (the caller then does nothing more).
 */
export async function openLink(app, saved) {
  const want = target;
  target = null;
  if (!want) return false;
  if (saved && ((want.room && saved.room === want.room) || (want.code && saved.code === want.code)))
    return false; // our seat: app.js resumes it
  const nav = /** @type {PerformanceNavigationTiming | undefined} */ (
    performance.getEntriesByType("navigation")[0]);
  if (saved && saved.room && (saved.token || saved.account) && nav && nav.type === "reload")
    return false; // a reload takes the page's seat back first (app.js), wherever it was
  if (want.room && watching() === want.room) {
    await app.spectate(want.room);
    return true;
  }
  try {
    const joined = await app.patient({ t: "join", ...want });
    app.enterRoom(joined, joined.token, want.code);
    return true;
  } catch (/** @type {any} */ err) {
    if (err.code === "room/already_seated" && want.room) {
      await app.resumeAccount(want.room); // the account sits there (another device): take it
      return true;
    }
    const full = err.code === "room/full" || err.code === "room/already_started";
    if (full && want.room) {
      await app.spectate(want.room);
      return true;
    }
    app.toLobby(
      full
        ? "That private room is full or has started: it cannot be watched without a seat."
        : `That room link does not open: ${err.message}`,
    );
    return true;
  }
}

/** Keep the address in step with the page: the room's link while in a room, "/" in the
 * lobby (history.replaceState: no new history entries). */
export function syncAddress(app) {
  const room = app.room;
  const path = room ? linkPath(room.roomId, room.code) : "/";
  if (room) rememberWatching(room.seat === null ? room.roomId : null);
  else if (app.session && app.session.open && !target) rememberWatching(null);
  if (target) return; // not opened yet: keep what the address names
  if (window.location.pathname !== path || window.location.hash) {
    window.history.replaceState(null, "", path);
  }
}

/**
 * The "Copy link" button of a table and what became of a copy (`status`: "" before, "copied"
 * when the clipboard took the link, "shown" when it could not: the link is shown in a
 * selected input to copy by hand). RoomView.copyLink does the copying.
 * @param {{ url: string, status: string, onCopy: () => void }} props
 */
export function CopyLink({ url, status, onCopy }) {
  /** @param {HTMLInputElement | null} el */
  const selectIt = (el) => el && el.select();
  return html`<span class="copy-link" data-link=${url}>
    <button type="button" id="copy-link" class="secondary" data-key="copy-link"
      aria-label=${`Copy the link to this room: ${url}`} onClick=${onCopy}>Copy link</button>
    <span class="link-status" role="status" id="link-status">${status === "copied"
      ? "Link copied" : status === "shown" ? html`<input type="text" readonly value=${url}
        aria-label="room link" ref=${selectIt} />` : null}</span>
  </span>`;
}

/**
 * The spectators of a table (view.room.spectators: {count, names}), listed by name.
 * @param {{ view: any }} props
 */
export function SpectatorsPanel({ view }) {
  const facts = (view.room && view.room.spectators) || { count: 0, names: [] };
  const more = facts.count - facts.names.length;
  return html`<section class="panel spectators" aria-labelledby="spectators-title"
    id="spectators">
    <h2 id="spectators-title">Watching (${facts.count})</h2>
    ${facts.count ? html`<ul>
        ${facts.names.map((/** @type {string} */ n) => html`<li key=${n}>${n}</li>`)}
        ${more > 0 ? html`<li class="more">and ${more} more</li>` : null}
      </ul>` : html`<p class="none">Nobody is watching.</p>`}
  </section>`;
}
