// The chat of a room (protocol/README.md, `chat` and `chat_lines`): the players' lines and
// the spectators' lines shown apart, quick emotes, a line of at most 300 code points, and
// names muted for oneself (kept in localStorage; the lines still arrive, they are not shown).
// Every line is put on the page as text (textContent), never as markup.
//
// One Chat per room for the page's life (chatFor), owning its DOM: the app redraws the
// table on every update, and the chat panel is moved into the new table as it is, so the
// line being typed, its caret and the scroll position stay.
import { h } from "./cards.js";

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

function loadMuted() {
  try {
    const names = JSON.parse(localStorage.getItem(MUTED_KEY));
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

export class Chat {
  constructor(app, roomId) {
    this.app = app;
    this.roomId = roomId;
    this.lines = []; // every line received, oldest first
    this.last = 0; // highest line number seen (history after a resume repeats some)
    this.muted = loadMuted();
    this.error = h("p", { class: "error chat-error", role: "alert", id: "chat-error" });
    this.players = h("ol", { class: "chat-lines", id: "chat-players", "aria-live": "polite" });
    this.watchers = h("ol", { class: "chat-lines", id: "chat-spectators", "aria-live": "off" });
    this.mutedList = h("p", { class: "muted-list", id: "chat-muted" });
    // No maxlength: a longer line (pasted) is kept whole and shown too long, never cut
    // without a word; the count says how much room is left as the player types.
    this.input = h("input", {
      type: "text",
      id: "chat-input",
      autocomplete: "off",
      placeholder: "Say something\u2026",
      "aria-label": "chat message",
      "aria-describedby": "chat-count",
      "data-key": "chat-input",
    });
    this.count = h("small", { class: "chat-count", id: "chat-count", "aria-live": "polite" });
    this.sendButton = h("button", { type: "submit", id: "chat-send" }, "Send");
    this.input.addEventListener("input", () => this.countChars());
    const form = h(
      "form",
      { class: "chat-form", id: "chat-form" },
      this.input,
      this.sendButton,
      this.count,
    );
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      this.send({ text: this.input.value });
    });
    const emotes = h(
      "div",
      { class: "emotes", role: "group", "aria-label": "quick emotes" },
      Object.entries(EMOTES).map(([word, label]) =>
        h(
          "button",
          {
            type: "button",
            class: "emote",
            dataset: { emote: word },
            "data-key": `emote:${word}`,
            onclick: () => this.send({ emote: word }),
          },
          label,
        ),
      ),
    );
    this.element = h(
      "section",
      { class: "panel chat", id: "chat", "aria-labelledby": "chat-title" },
      h("h2", { id: "chat-title" }, "Chat"),
      h("h3", {}, "Table"),
      this.players,
      h("h3", {}, "Spectators"),
      this.watchers,
      this.mutedList,
      emotes,
      form,
      this.error,
    );
    this.countChars();
    this.draw();
  }

  /** Show the characters typed against the limit ("12/300"; over it: marked, Send off). */
  countChars() {
    const n = [...this.input.value.trim()].length;
    const over = n > MAX_LEN;
    this.count.textContent = over
      ? `${n}/${MAX_LEN}: ${n - MAX_LEN} too many`
      : `${n}/${MAX_LEN}`;
    this.count.classList.toggle("over", over);
    this.count.classList.toggle("near", !over && n > MAX_LEN - 30);
    this.sendButton.disabled = over;
  }

  /** Take a `chat_lines` message: new lines (or the history after joined) by number. */
  receive(msg) {
    for (const line of msg.lines || []) {
      if (typeof line.n !== "number" || line.n <= this.last) continue;
      this.last = line.n;
      this.lines.push(line);
    }
    if (this.lines.length > 2 * KEEP) this.lines.splice(0, this.lines.length - 2 * KEEP);
    this.draw();
  }

  async send(what) {
    this.error.textContent = "";
    if (what.text !== undefined) {
      const text = what.text.trim();
      if (!text) return;
      if ([...text].length > MAX_LEN) {
        this.error.textContent = `At most ${MAX_LEN} characters.`;
        return;
      }
      what = { text };
    }
    try {
      await this.app.session.request({ t: "chat", room: this.roomId, ...what });
      if (what.text !== undefined) {
        this.input.value = "";
        this.countChars();
      }
    } catch (err) {
      this.error.textContent =
        err.code === "chat/muted"
          ? "An operator muted you in this room."
          : err.code === "rate/limited"
            ? "Slow down: too many lines at once."
            : `Not sent: ${err.message}`;
    }
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
    for (const chat of chats.values()) {
      chat.muted = this.muted;
      chat.draw();
    }
  }

  lineElement(line) {
    const me = this.app.playerName || this.app.session?.name;
    const self = line.seat !== null && line.seat === this.app.room?.seat;
    const name = h("span", { class: "chat-name", text: line.name });
    const words = h("span", {
      class: line.emote ? "chat-text emote" : "chat-text",
      text: line.emote ? EMOTES[line.emote] || line.emote : line.text,
    });
    const mute =
      self || line.name === me
        ? null
        : h(
            "button",
            {
              type: "button",
              class: "link mute",
              "aria-label": `mute ${line.name}`,
              title: `Hide ${line.name}'s lines (for you only)`,
              onclick: () => this.toggleMute(line.name),
            },
            "mute",
          );
    return h("li", { dataset: { n: line.n, seat: line.seat ?? "" } }, name, ": ", words, mute);
  }

  /** Redraw the two lists (the panel's other parts stay as they are). */
  draw() {
    const shown = this.lines.filter((l) => !this.muted.has(l.name));
    for (const [list, lines] of [
      [this.players, shown.filter((l) => l.seat !== null)],
      [this.watchers, shown.filter((l) => l.seat === null)],
    ]) {
      const stick = list.scrollTop + list.clientHeight >= list.scrollHeight - 4;
      list.replaceChildren(
        ...(lines.length
          ? lines.slice(-KEEP).map((l) => this.lineElement(l))
          : [h("li", { class: "none" }, "Nothing said yet.")]),
      );
      if (stick) list.scrollTop = list.scrollHeight;
    }
    this.mutedList.replaceChildren(
      ...(this.muted.size
        ? [
            "Muted: ",
            ...[...this.muted].map((n) =>
              h(
                "button",
                {
                  type: "button",
                  class: "link unmute",
                  "aria-label": `unmute ${n}`,
                  onclick: () => this.toggleMute(n),
                },
                n,
              ),
            ),
          ]
        : []),
    );
  }
}
