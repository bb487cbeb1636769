// @ts-check
// The chat of a room (protocol/README.md, `chat` and `chat_lines`): the players' lines and
// the spectators' lines shown apart, quick emotes, a line of at most 300 code points, and
// names muted for oneself (kept in localStorage; the lines still arrive, they are not shown).
// Every line is put on the page as text, never as markup (Preact sets text, not HTML).
//
// One Chat per room for the page's life (chatFor): it keeps the lines, the muted names, the
// line being typed and the last refusal; ChatPanel (a Preact component) draws them, and
// Preact's diff keeps the input element (its focus and caret) across the table's updates.
import { html } from "./ui.js";

const MUTED_KEY = "cardhall.muted";
export const MAX_LEN = 300;
const KEEP = 200; // lines kept per list
/** The protocol's emotes, as the page draws them. */
export const EMOTES = {
  hello: "\u{1F44B} Hello",
  good_luck: "\u{1F340} Good luck",
  well_played: "\u{1F44F} Well played",
  thanks: "\u{1F64F} Thanks",
  oops: "\u{1F605} Oops",
  hurry: "\u23F3 Your turn\u2026",
  good_game: "\u{1F91D} Good game",
};

/** The names muted in this browser (localStorage), as a Set. */
function loadMuted() {
  try {
    const names = JSON.parse(localStorage.getItem(MUTED_KEY) || "null");
    return new Set(Array.isArray(names) ? names : []);
  } catch {
    return new Set();
  }
}

const chats = new Map(); // room id -> Chat

/** The Chat of `roomId` (made on first use; kept while the page lives). */
export function chatFor(app, roomId) {
  let chat = chats.get(roomId);
  if (!chat) {
    chat = new Chat(app, roomId);
    chats.set(roomId, chat);
  }
  chat.app = app;
  return chat;
}

/** What a refusal of a line says to its writer. */
function refusal(err) {
  return err.code === "chat/muted"
    ? "An operator muted you in this room."
    : err.code === "rate/limited"
      ? "Slow down: too many lines at once."
      : `Not sent: ${err.message}`;
}

/** The state of one room's chat and its actions (drawn by ChatPanel: props()). */
export class Chat {
  /** @param {any} app  the App (session, render, room) @param {string} roomId */
  constructor(app, roomId) {
    this.app = app;
    this.roomId = roomId;
    /** @type {any[]} every line received, oldest first */
    this.lines = [];
    this.last = 0; // highest line number seen (history after a resume repeats some)
    this.muted = loadMuted();
    this.draft = ""; // the line being typed
    this.error = ""; // why the last line was not sent
    /** Whether each list is scrolled to its end (then it stays there as lines come). */
    this.stick = { players: true, watchers: true };
  }

  /** Draw the room again (the chat is part of its screen). */
  redraw() {
    if (this.app.room && this.app.room.roomId === this.roomId) this.app.render();
  }

  /** Take a `chat_lines` message: new lines (or the history after joined) by number. The
   * caller redraws (App.onMessage). */
  receive(msg) {
    for (const line of msg.lines || []) {
      if (typeof line.n !== "number" || line.n <= this.last) continue;
      this.last = line.n;
      this.lines.push(line);
    }
    if (this.lines.length > 2 * KEEP) this.lines.splice(0, this.lines.length - 2 * KEEP);
  }

  /** Send a line ({text}) or an emote ({emote}); a text over MAX_LEN is refused here. */
  async send(what) {
    this.error = "";
    if (what.text !== undefined) {
      const text = what.text.trim();
      if (!text) return this.redraw();
      if ([...text].length > MAX_LEN) {
        this.error = `At most ${MAX_LEN} characters.`;
        return this.redraw();
      }
      what = { text };
    }
    try {
      await this.app.seated({ t: "chat", room: this.roomId, ...what });
      if (what.text !== undefined) this.draft = "";
    } catch (/** @type {any} */ err) {
      this.error = refusal(err);
    }
    this.redraw();
  }

  /** Hide (or show again) the lines of `name`, for this browser only. */
  toggleMute(name) {
    if (this.muted.has(name)) this.muted.delete(name);
    else this.muted.add(name);
    try {
      localStorage.setItem(MUTED_KEY, JSON.stringify([...this.muted]));
    } catch {
      /* storage off: muted for this page only */
    }
    for (const chat of chats.values()) chat.muted = this.muted;
    this.redraw();
  }

  /** The ChatPanel's props: the lines shown (muted names left out), split by who said them. */
  props() {
    const shown = this.lines.filter((l) => !this.muted.has(l.name));
    return {
      players: shown.filter((l) => l.seat !== null).slice(-KEEP),
      watchers: shown.filter((l) => l.seat === null).slice(-KEEP),
      muted: [...this.muted],
      draft: this.draft,
      error: this.error,
      me: this.app.playerName || (this.app.session && this.app.session.name) || "",
      mySeat: this.app.room ? this.app.room.seat : null,
      stick: this.stick,
      onDraft: (/** @type {string} */ text) => {
        this.draft = text;
        this.redraw();
      },
      onSend: () => this.send({ text: this.draft }),
      onEmote: (/** @type {string} */ word) => this.send({ emote: word }),
      onMute: (/** @type {string} */ name) => this.toggleMute(name),
    };
  }
}

/**
 * The count of a line typed against the limit: {text: "12/300" (over it: "310/300: 10 too
 * many"), state: "" | "near" | "over"}.
 * @param {string} draft
 */
export function countOf(draft) {
  const n = [...draft.trim()].length;
  if (n > MAX_LEN) return { text: `${n}/${MAX_LEN}: ${n - MAX_LEN} too many`, state: "over" };
  return { text: `${n}/${MAX_LEN}`, state: n > MAX_LEN - 30 ? "near" : "" };
}

/**
 * One line: who said it, the words (an emote as the page draws it), and "mute" for lines of
 * others.
 * @param {{ line: any, self: boolean, onMute: (name: string) => void }} props
 */
function ChatLine({ line, self, onMute }) {
  return html`<li data-n=${line.n} data-seat=${line.seat ?? ""}>
    <span class="chat-name">${line.name}</span>: <span class=${line.emote ? "chat-text emote"
      : "chat-text"}>${line.emote ? EMOTES[line.emote] || line.emote : line.text}</span>
    ${self ? null : html`<button type="button" class="link mute"
      aria-label=${`mute ${line.name}`} title=${`Hide ${line.name}'s lines (for you only)`}
      onClick=${() => onMute(line.name)}>mute</button>`}
  </li>`;
}

/**
 * A list of lines (ol.chat-lines) that stays at its end as lines come while it is there.
 * @param {{ id: string, live: string, lines: any[], p: any, which: "players" | "watchers" }}
 *   props
 */
function ChatList({ id, live, lines, p, which }) {
  /** @param {HTMLElement | null} el */
  const follow = (el) => {
    if (el && p.stick[which]) el.scrollTop = el.scrollHeight;
  };
  /** @param {Event} e */
  const onScroll = (e) => {
    const el = /** @type {HTMLElement} */ (e.currentTarget);
    p.stick[which] = el.scrollTop + el.clientHeight >= el.scrollHeight - 4;
  };
  return html`<ol class="chat-lines" id=${id} aria-live=${live} ref=${follow}
    onScroll=${onScroll}>${lines.length ? lines.map((l) => html`<${ChatLine} key=${l.n}
      line=${l} self=${(l.seat !== null && l.seat === p.mySeat) || l.name === p.me}
      onMute=${p.onMute} />`) : html`<li class="none">Nothing said yet.</li>`}</ol>`;
}

/**
 * The chat panel (section#chat): the table's lines, the spectators', the muted names (each
 * a button that unmutes), the emotes, the line being typed with its count, the refusal.
 * @param {ReturnType<Chat["props"]>} p
 */
export function ChatPanel(p) {
  const count = countOf(p.draft);
  /** @param {Event} e */
  const submit = (e) => {
    e.preventDefault();
    p.onSend();
  };
  return html`<section class="panel chat" id="chat" aria-labelledby="chat-title">
    <h2 id="chat-title">Chat</h2>
    <h3>Table</h3>
    <${ChatList} id="chat-players" live="polite" lines=${p.players} p=${p} which="players" />
    <h3>Spectators</h3>
    <${ChatList} id="chat-spectators" live="off" lines=${p.watchers} p=${p} which="watchers" />
    <p class="muted-list" id="chat-muted">${p.muted.length ? ["Muted: ", ...p.muted.map((n) =>
      html`<button type="button" class="link unmute" aria-label=${`unmute ${n}`}
        onClick=${() => p.onMute(n)}>${n}</button>`)] : null}</p>
    <div class="emotes" role="group" aria-label="quick emotes">${Object.entries(EMOTES).map(
      ([word, label]) => html`<button type="button" class="emote" data-emote=${word}
        data-key=${`emote:${word}`} onClick=${() => p.onEmote(word)}>${label}</button>`)}</div>
    <form class="chat-form" id="chat-form" onSubmit=${submit}>
      <input type="text" id="chat-input" autocomplete="off" placeholder="Say something…"
        aria-label="chat message" aria-describedby="chat-count" data-key="chat-input"
        value=${p.draft} onInput=${(/** @type {any} */ e) => p.onDraft(e.currentTarget.value)} />
      <button type="submit" id="chat-send" disabled=${count.state === "over"}>Send</button>
      <small class=${`chat-count ${count.state}`.trim()} id="chat-count" aria-live="polite">${
        count.text}</small>
    </form>
    <p class="error chat-error" role="alert" id="chat-error">${p.error}</p>
  </section>`;
}
