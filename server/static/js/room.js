// The room view: seat list with connected/bot status, countdown timers, the game's table
// (one renderer per game, in games/: renderers.js), the legal actions not tied to a card as buttons,
// the event log in words, and the game-over panel with "play again".
import { applyDelta, RequestError } from "./protocol.js";
import { h, prettyCards, cardName, isCard } from "./cards.js";
import * as generic from "./games/generic.js";
import { rendererFor } from "./renderers.js";
import { html, render as draw, isValidElement } from "./ui.js";
import { chatFor } from "./chat.js";
import { copyLinkButton, spectatorsPanel } from "./links.js";
import { auctionHelp, explainEnd, helpButton } from "./help.js";
import { openReplay, recordGame } from "./replay.js";

const LOG_LINES = 200;
/** Verbs that give the game up: asked for again before they are sent. */
const GIVE_UP = new Set(["resign", "close_shop", "concede"]);
/** A hello name that names client software, not a person ("cardhall-web/0.1"). */
const SOFTWARE_NAME = /^[\w.-]+\/[\w.-]+$/;
/** A server bot's name (server/names.py `bot_name`), and the one servers gave before. */
const BOT_NAME = /^Bot \d+$/;
const LEGACY_BOT = /^bot-(\d+)$/;
/** A seat event in words, after the seat's name; the page's own seat has its own words. */
const SEAT_WORDS = {
  joined: ["sat down", "sat down"],
  left: ["left", "left"],
  dropped: ["lost the connection (seat held)", "lost the connection (seat held)"],
  resumed: ["is back", "are back"],
  bot: ["is now played by a bot", "are now played by a bot"],
  forfeit: ["forfeited", "forfeited"],
  host: ["is now the host (and may start the game)", "are now the host (and may start the game)"],
  timeout: [
    "ran out of time: the server played the default move for them",
    "ran out of time: the server played the default move for you",
  ],
};

/** A stable key for an action (for "already drawn" bookkeeping and focus). */
export function actionKey(action) {
  return JSON.stringify(action);
}

let ticker = null;
/** Refresh every countdown on the page (elements with data-deadline = unix seconds). */
function tick() {
  const now = Date.now() / 1000;
  for (const el of document.querySelectorAll("[data-deadline]")) {
    const left = Math.max(0, Number(el.dataset.deadline) - now);
    const text =
      left >= 60
        ? `${Math.floor(left / 60)}:${String(Math.floor(left % 60)).padStart(2, "0")}`
        : `${left.toFixed(0)} s`;
    el.textContent = `\u23f1 ${text}`;
    el.classList.toggle("urgent", left < 10);
  }
}

export class RoomView {
  constructor(app, joined, { code, log } = {}) {
    this.app = app;
    this.roomId = joined.room;
    this.seat = joined.seat;
    this.view = joined.view;
    this.code = code || null;
    this.log = log && log.length ? log : RoomView.loadLog(joined.room);
    this.selected = null;
    this.marks = []; // several cards or positions picked at once (Thirty-Six, ShuffleJack)
    this.error = "";
    this.pending = false;
    this.confirming = null; // a give-up action waiting for "yes"
    this.confirmingLeave = false; // Leave waiting for "yes" (a bot would take the seat)
    this.game = this.view.game; // every view names its game (protocol/README.md "Views")
    this.outEvents = []; // the events that put seats out (their reasons: help.js)
    this.gameOver = null; // the game_over message, once it came
    this.addLog(
      this.seat === null ? "You are watching this room." : `You sit at seat ${this.seat}.`,
    );
    if (!ticker) ticker = setInterval(tick, 250);
  }

  get renderer() {
    return rendererFor(this.game);
  }

  title() {
    const game = (this.app.games || []).find((g) => g.game === this.game);
    const mode =
      this.view.mode && this.view.mode !== (game && game.modes[0]) ? ` ${this.view.mode}` : "";
    return `${game ? game.title : this.game}${mode} \u2014 room ${this.roomId}`;
  }

  /** The create_room message that makes a room like this one ("play again"). */
  againMessage() {
    const players = (this.view.room && this.view.room.players) || [];
    const msg = {
      t: "create_room",
      game: this.game,
      seats: Math.max(1, players.length),
      options: {},
      private: false,
    };
    if (this.view.mode) msg.mode = this.view.mode;
    return msg;
  }

  /** The player's name of seat `i` ("Bob", a server bot's "Bot 2": server/names.py), or
   * "seat i" when it has none of its own (a client software name); another seat's namesake
   * gets its seat number. */
  playerName(i) {
    const players = (this.view.room && this.view.room.players) || [];
    const name = (q) => (q && q.name ? q.name.replace(LEGACY_BOT, "Bot $1") : "");
    const own = (q) => Boolean(name(q)) && !SOFTWARE_NAME.test(q.name);
    const p = players[i];
    if (!own(p)) return `seat ${i}`;
    const twins = players.filter((q) => own(q) && name(q) === name(p)).length;
    return twins > 1 ? `${name(p)} (seat ${i})` : name(p);
  }

  /** "Bob", "Bob (you)", "Bot 2", "Bob (bot)": who sits at seat `i`, for the table. */
  seatName(i) {
    const players = (this.view.room && this.view.room.players) || [];
    const p = players[i];
    let name = this.playerName(i);
    if (i === this.seat) name += " (you)";
    else if (p && p.bot && !BOT_NAME.test(name)) name += " (bot)";
    return name;
  }

  /** Who did something, for the event log and the outcome: "You" for this page's seat,
   * else the table's name ("Bob", "Bot 2"). */
  logName(i) {
    return i === this.seat ? "You" : this.seatName(i);
  }

  /** True when this page's player is the room's host (may start it): its seat holds the
   * role (`room.players[i].host`); before servers said so, the room was created here. */
  isHost() {
    const players = (this.view.room && this.view.room.players) || [];
    if (!players.some((p) => p && "host" in p)) return this.app.isHost(this.roomId);
    const me = this.seat === null ? null : players[this.seat];
    return Boolean(me && me.host);
  }

  /** True while the connection is lost: the page shows the last view it had, and nothing
   * can be sent. */
  get offline() {
    return this.app.connState !== "open";
  }

  /** The event log of a room kept in sessionStorage (so a reload keeps it). */
  static loadLog(roomId) {
    try {
      return JSON.parse(sessionStorage.getItem(`cardhall.log.${roomId}`)) || [];
    } catch {
      return [];
    }
  }

  addLog(text) {
    if (!text) return;
    this.log.push({ text });
    if (this.log.length > LOG_LINES) this.log.splice(0, this.log.length - LOG_LINES);
    try {
      sessionStorage.setItem(`cardhall.log.${this.roomId}`, JSON.stringify(this.log));
    } catch {
      /* storage full or off: the log stays in memory */
    }
  }

  describeEvent(ev) {
    const who = (s) => this.logName(s);
    const text = (this.renderer.describeEvent || generic.describeEvent)(ev, who);
    return text ?? generic.describeEvent(ev, who);
  }

  onMessage(msg) {
    switch (msg.t) {
      case "update": {
        // Updates of one room come in order, each a state_id at most one past the last
        // (protocol/README.md "Views and deltas"). An older one is stale (say, from a server
        // process that lost the room): ignored. A delta past a gap would apply to a view it
        // was not made for: the full view is asked for instead.
        const have = this.view.state_id;
        if (typeof have === "number" && msg.state_id < have) return;
        if (msg.view) this.view = msg.view;
        else if (typeof have === "number" && msg.state_id > have + 1) {
          this.refetch();
          return;
        } else {
          try {
            applyDelta(this.view, msg.delta);
          } catch {
            this.refetch();
            return;
          }
        }
        if (msg.re === undefined) {
          this.selected = this.keepSelection();
          this.marks = [];
        }
        for (const ev of msg.events || []) this.addLog(this.describeEvent(ev));
        this.outEvents.push(...(msg.events || []).filter((e) => e && e.type === "unwinnable"));
        break;
      }
      case "chat_lines":
        chatFor(this.app, this.roomId).receive(msg);
        break;
      case "seat_event": {
        // Named as the event says (a player who sat down), else as the seat was before it
        // (a player who left a waiting room: the seat is free once patched).
        const before = this.logName(msg.seat);
        this.patchPlayer(msg.seat, msg.event, msg.name);
        const who = msg.name && msg.seat !== this.seat ? this.logName(msg.seat) : before;
        const words = SEAT_WORDS[msg.event] || [msg.event, msg.event];
        this.addLog(`${who} ${words[msg.seat === this.seat ? 1 : 0]}.`);
        this.refetch(); // the server's own facts for the seat list
        break;
      }
      case "started":
        this.addLog("The game has started.");
        break;
      case "game_over":
        this.addLog(`Game over. ${this.outcomeText(msg.outcome)}`);
        this.gameOver = msg;
        recordGame(this, msg); // "My games" (replay.js)
        break;
      default:
        break;
    }
  }

  /** Keep `room.players` in step with a seat event (`name`: the seat's player, when the
   * server said) until the full view comes back. */
  patchPlayer(seat, event, name) {
    const players = this.view.room && this.view.room.players;
    if (!players || seat >= players.length) return;
    const p = players[seat] || { seat, name: name || `seat ${seat}`, connected: true, bot: false };
    if (name && event !== "left") p.name = name;
    if (event === "left" && this.view.room.status === "waiting") players[seat] = null;
    else {
      if (event === "joined" || event === "resumed")
        Object.assign(p, { connected: true, bot: false });
      if (event === "dropped") p.connected = false;
      if (event === "bot") p.bot = true;
      if (event === "host") players.forEach((q) => q && (q.host = q === p));
      players[seat] = p;
    }
  }

  keepSelection() {
    const sel = this.selected;
    if (sel === null) return null;
    const still = (this.view.legal_actions || []).some((a) => a.slice(1).includes(sel));
    return still ? sel : null;
  }

  async refetch() {
    try {
      await this.app.session.request({ t: "get_view", room: this.roomId });
    } catch {
      /* reconnect handles it */
    }
  }

  select(code) {
    this.selected = this.selected === code ? null : code;
    this.app.render();
  }

  async act(action) {
    if (GIVE_UP.has(action[0]) && this.confirming !== action) {
      this.confirming = action; // asked first: see confirmBar()
      this.app.render();
      const no = document.getElementById("confirm-no");
      if (no) no.focus();
      return;
    }
    this.confirming = null;
    if (this.pending) return;
    this.pending = true;
    this.error = "";
    const stateId = this.view.state_id;
    this.selected = null;
    this.marks = [];
    try {
      await this.app.session.request({ t: "act", room: this.roomId, state_id: stateId, action });
    } catch (err) {
      this.error = err instanceof RequestError ? `${err.message}` : "not sent: connection lost";
      if (err instanceof RequestError && err.code === "action/stale_state") {
        this.error = "";
        this.refetch();
      }
    } finally {
      this.pending = false;
      this.app.render();
    }
  }

  async start() {
    try {
      await this.app.session.request({ t: "start", room: this.roomId });
    } catch (err) {
      this.error = err.message;
      this.app.render();
    }
  }

  outcomeText(outcome) {
    if (!outcome) return "";
    const text = (this.renderer.describeOutcome || generic.describeOutcome)(
      outcome,
      (s) => this.logName(s),
      this.view,
    );
    return text;
  }

  /** Why the game ended (help.js), or "" when it only repeats `outcomeText`. */
  whyText(outcome) {
    if (!outcome) return "";
    const why = explainEnd(this.game, outcome, this.seat, this.outEvents, (s) => this.seatName(s));
    return why === this.outcomeText(outcome) ? "" : why;
  }

  deadlineOf(seat) {
    const deadlines = (this.view.room && this.view.room.deadlines) || [];
    const hit = deadlines.find((d) => d[0] === seat);
    return hit ? hit[1] : null;
  }

  /** True when this page plays a seat of a game of several seats under way: leaving it
   * gives the seat to a server bot (a solo game is kept for its player instead). */
  leavingGivesSeat() {
    const v = this.view || {};
    const players = (v.room && v.room.players) || [];
    return this.seat !== null && !v.over && Boolean(v.room) && v.room.status === "playing" &&
      players.length > 1;
  }

  /** Leave, after "a bot takes your seat: leave? yes / no" where that is so (#44 item 1). */
  askLeave() {
    if (!this.leavingGivesSeat()) return this.app.leave();
    this.confirmingLeave = true;
    this.app.render();
  }

  /** The bar that asks before a seat of a game under way is given to a bot. */
  leaveBar() {
    if (!this.confirmingLeave) return null;
    return h(
      "div",
      { class: "confirm", id: "leave-confirm", role: "alertdialog", "aria-labelledby": "leave-q" },
      h("p", { id: "leave-q" },
        "Leave this game? A server bot takes your seat and plays on for you."),
      h("button", { type: "button", id: "leave-yes", class: "danger",
        onclick: () => this.app.leave() }, "Yes, leave"),
      h("button", { type: "button", id: "leave-no", class: "secondary", onclick: () => {
        this.confirmingLeave = false;
        this.app.render();
      } }, "No, stay"),
    );
  }

  /** "Resign? yes / no": the bar that asks before a give-up action is sent. */
  confirmBar() {
    const action = this.confirming;
    if (!action) return null;
    const describe = this.renderer.describeAction || generic.describeAction;
    return h(
      "div",
      { class: "confirm", id: "confirm", role: "alertdialog", "aria-labelledby": "confirm-q" },
      h(
        "p",
        { id: "confirm-q" },
        `${prettyCards(describe(action))}: give up this game? ` +
          "You lose it, and it cannot be undone.",
      ),
      h(
        "button",
        { type: "button", id: "confirm-yes", class: "danger", onclick: () => this.act(action) },
        "Yes, give up",
      ),
      h(
        "button",
        {
          type: "button",
          id: "confirm-no",
          class: "secondary",
          "data-key": "confirm-no",
          onclick: () => {
            this.confirming = null;
            this.app.render();
          },
        },
        "No, play on",
      ),
    );
  }

  renderSeats() {
    const players = (this.view.room && this.view.room.players) || [];
    const playing = this.view.room && this.view.room.status === "playing";
    const toAct = playing ? this.view.to_act || [] : [];
    const offline = this.offline;
    const items = players.map((p, i) => {
      let status = p === null ? "free" : p.bot ? "bot" : p.connected ? "connected" : "away";
      if (offline && p !== null) status = "unknown"; // nothing is known while we are cut off
      const deadline = this.deadlineOf(i);
      return h(
        "li",
        {
          class: [
            "seat-item",
            status,
            toAct.includes(i) ? "acting" : "",
            i === this.seat ? "me" : "",
          ]
            .join(" ")
            .trim(),
          dataset: { seat: i, status },
        },
        h("span", { class: "dot", "aria-hidden": "true" }),
        h("span", { class: "seat-name" }, p === null ? `seat ${i}: free` : this.seatName(i)),
        this.app.rated ? this.app.rated.seatRating(this, i) : null,
        p && p.host && this.view.room.status === "waiting"
          ? h("small", { class: "host" }, "host")
          : null,
        h(
          "span",
          { class: "seat-status" },
          status === "free" ? "" : status === "unknown" ? "?" : status,
        ),
        toAct.includes(i) && !this.view.over ? h("span", { class: "to-act" }, "to act") : null,
        deadline
          ? h("span", {
              class: "timer",
              dataset: { deadline },
              "aria-label": `time left for ${this.seatName(i)}`,
            })
          : null,
      );
    });
    return h(
      "section",
      { class: "panel seats", "aria-labelledby": "seats-title" },
      h("h2", { id: "seats-title" }, "Seats"),
      offline ? h("p", { class: "note" }, "Connection lost: reconnecting\u2026") : null,
      h("ul", {}, items),
    );
  }

  turnText() {
    const v = this.view;
    const status = v.room && v.room.status;
    if (v.over) return "Game over";
    if (status === "waiting") return "Waiting for players";
    const toAct = v.to_act || [];
    if (this.seat !== null && toAct.includes(this.seat)) {
      return v.auction && v.auction.bidder === this.seat ? "Your bid" : "Your turn";
    }
    if (!toAct.length) return "Waiting";
    return `Waiting for ${toAct.map((s) => this.seatName(s)).join(", ")}`;
  }

  /** What a game renderer is handed (games/*.js render(view, ui)): the view, the seat,
   * the selection and marks, and the means to act; each action it draws goes in
   * `handled` (the rest get plain buttons). */
  tableUi(handled) {
    const v = this.view;
    return {
      seat: this.seat,
      view: v,
      selected: this.selected,
      select: (code) => this.select(code),
      marks: this.marks,
      toggle: (value) => {
        const at = this.marks.indexOf(value);
        if (at >= 0) this.marks.splice(at, 1);
        else this.marks.push(value);
        this.app.render();
      },
      act: (action) => this.act(action),
      seatName: (s) => this.seatName(s),
      handled: (action) => handled.add(actionKey(action)),
      legal: v.legal_actions || [],
      actionButton: (action, label, extra = {}) => {
        handled.add(actionKey(action));
        return h(
          "button",
          {
            type: "button",
            class: `action ${extra.class || ""}`,
            "data-key": `a:${actionKey(action)}`,
            dataset: { action: actionKey(action) },
            onclick: () => this.act(action),
            "aria-label": extra.label,
          },
          label,
        );
      },
      button: (action, label, extra = {}) => {
        handled.add(actionKey(action));
        const key = actionKey(action);
        return html`<button type="button" class=${`action ${extra.class || ""}`.trim()}
          key=${key} data-key=${`a:${key}`} data-action=${key} onClick=${() => this.act(action)}
          aria-label=${extra.label}>${label}</button>`;
      },
    };
  }

  /** The turn line: whose turn, the timer, the join code, Start, Leave, the link, rules. */
  turnLine(mine, status) {
    const myDeadline = mine ? this.deadlineOf(this.seat) : null;
    return h(
      "div",
      { class: "turn-line" },
      h(
        "strong",
        { id: "turn", "aria-live": "polite", class: mine ? "mine" : "" },
        this.turnText(),
      ),
      myDeadline
        ? h("span", {
            class: "timer big",
            dataset: { deadline: myDeadline },
            "aria-label": "your time left",
          })
        : null,
      this.code
        ? h("span", { class: "code" }, "Join code: ", h("code", { id: "room-code" }, this.code))
        : null,
      status === "waiting" && this.isHost()
        ? h(
            "button",
            { type: "button", id: "start", onclick: () => this.start() },
            "Start game (bots fill empty seats)",
          )
        : null,
      h(
        "button",
        { type: "button", id: "leave", class: "secondary", onclick: () => this.askLeave() },
        this.seat === null ? "Stop watching" : "Leave",
      ),
      copyLinkButton(this),
      helpButton(this.game, this.title().split(" \u2014 ")[0]),
    );
  }

  /** The game-over panel (null while the game goes on): outcome, why, Replay, Play again. */
  gameOverPanel() {
    const v = this.view;
    return v.over
      ? h(
          "section",
          { class: "panel game-over", id: "game-over", role: "status" },
          h("h2", {}, "Game over"),
          h("p", { id: "outcome" }, this.outcomeText(v.outcome)),
          this.whyText(v.outcome)
            ? h("p", { id: "outcome-why", class: "outcome-why" }, this.whyText(v.outcome))
            : null,
          this.gameOver
            ? h(
                "button",
                {
                  type: "button",
                  id: "replay-open",
                  class: "secondary",
                  onclick: async () =>
                    openReplay(this.app, await recordGame(this, this.gameOver)),
                },
                "Replay",
              )
            : null,
          h(
            "button",
            { type: "button", id: "play-again", onclick: () => this.app.playAgain() },
            "Play again",
          ),
          h(
            "button",
            { type: "button", class: "secondary", onclick: () => this.app.leave() },
            "Back to the lobby",
          ),
        )
      : null;
  }

  /** The event log panel (the last 60 lines) and its list (scrolled to the end). */
  logPanel() {
    const logList = h(
      "ol",
      { class: "log", id: "log", "aria-live": "polite" },
      this.log.slice(-60).map((l) => h("li", {}, prettyCards(l.text))),
    );
    const log = h(
      "section",
      { class: "panel", "aria-labelledby": "log-title" },
      h("h2", { id: "log-title" }, "What happened"),
      logList,
    );
    return [log, logList];
  }

  render() {
    const v = this.view;
    const status = v.room && v.room.status;
    const handled = new Set();
    const ui = this.tableUi(handled);
    let table;
    try {
      table = this.renderer.render(v, ui);
    } catch (err) {
      console.error(err);
      table = generic.render(v, ui);
    }
    if (isValidElement(table)) {
      // A Preact renderer (renderers.js): drawn into one element kept across renders.
      if (!this.tableHost) {
        this.tableHost = document.createElement("div");
        this.tableHost.style.display = "contents";
      }
      draw(table, this.tableHost);
      table = this.tableHost;
    }
    const describe = this.renderer.describeAction || generic.describeAction;
    const rest = (v.legal_actions || []).filter((a) => !handled.has(actionKey(a)));
    const others = rest.length
      ? h(
          "div",
          { class: "other-actions", role: "group", "aria-label": "other actions" },
          rest.map((a) => ui.actionButton(a, prettyCards(describe(a)))),
        )
      : null;

    const mine = this.seat !== null && (v.to_act || []).includes(this.seat) && !v.over;
    const top = this.turnLine(mine, status);
    const over = this.gameOverPanel();
    const [log, logList] = this.logPanel();
    const solo = ((v.room && v.room.players) || []).length === 1;
    const main = h(
      "main",
      {
        id: "room",
        class: "room",
        dataset: {
          room: this.roomId,
          seat: this.seat ?? "",
          stateId: v.state_id,
          mine: mine ? "1" : "0",
          over: v.over ? "1" : "0",
          status: status || "",
        },
      },
      h(
        "div",
        { class: "table-area" },
        top,
        this.error
          ? h("p", { class: "error", role: "alert", id: "act-error" }, prettyCards(this.error))
          : null,
        this.confirmBar(),
        this.leaveBar(),
        over,
        v.auction && this.seat !== null && !v.over ? auctionHelp() : null,
        h("section", { class: "table", "aria-label": "table" }, table),
        others,
      ),
      h(
        "aside",
        {},
        this.renderSeats(),
        // A solo game: nobody to talk to, nobody watching worth a panel (issue #44 item 10).
        solo ? null : spectatorsPanel(v),
        solo ? null : chatFor(this.app, this.roomId).element,
        log,
      ),
    );
    if (this.offline) {
      // Nothing can be sent while the connection is lost: every control but Leave waits.
      for (const el of main.querySelectorAll("button, input, select")) {
        if (el.id !== "leave") el.disabled = true;
      }
    }
    queueMicrotask(() => {
      tick();
      logList.scrollTop = logList.scrollHeight;
    });
    return main;
  }
}

export { cardName, isCard };
