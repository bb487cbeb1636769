// @ts-check
// The room view: seat list with connected/bot status, countdown timers, the game's table
// (one renderer per game, in games/: renderers.js), the legal actions not tied to a card as
// buttons, the event log in words, and the game-over panel with "play again". A Preact
// screen (ui.js): RoomView holds the state (the protocol's view, the selection, the questions
// asked) and the actions; room_views.js's components draw it, from screenProps().
import { applyDelta, RequestError } from "./protocol.js";
import { prettyCards, cardName, isCard } from "./cards.js";
import * as generic from "./games/generic.js";
import { rendererFor } from "./renderers.js";
import { html, render as draw } from "./ui.js";
import { chatFor } from "./chat.js";
import { linkUrl } from "./links.js";
import { auctionText, explainEnd } from "./help.js";
import { RoomScreen } from "./room_views.js";
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
  const timers = /** @type {NodeListOf<HTMLElement>} */ (
    document.querySelectorAll("[data-deadline]"));
  for (const el of timers) {
    const left = Math.max(0, Number(el.dataset.deadline) - now);
    const text =
      left >= 60
        ? `${Math.floor(left / 60)}:${String(Math.floor(left % 60)).padStart(2, "0")}`
        : `${left.toFixed(0)} s`;
    el.textContent = `\u23f1 ${text}`;
    el.classList.toggle("urgent", left < 10);
  }
}

/** A room this page is in: its view, seat, log and the page's choices (selection, marks,
 * questions asked), the actions on it, and its screen (room_views.js RoomScreen). */
export class RoomView {
  /**
   * @param {any} app  the App
   * @param {any} joined  the joined (or resumed, spectate) reply: {room, seat, view}
   * @param {{ code?: string | null, log?: { text: string }[] }} [opts]  the join code; the
   *   log kept from before (a seat taken back)
   */
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
    this.linkStatus = ""; // what became of Copy link: "" | "copied" | "shown" (links.js)
    this.auctionText = undefined; // the auction help's paragraph (help.js), once asked for
    // Preact draws the table screen into this one element, kept across renders.
    this.host = document.createElement("div");
    this.host.className = "room-host";
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
      return JSON.parse(sessionStorage.getItem(`cardhall.log.${roomId}`) || "null") || [];
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
        if (msg.event === "dropped" && msg.seat === this.seat && this.seat !== null) {
          // The server took this page for gone while its socket stayed open: sit again.
          this.app.takeSeatBack(this.roomId).then((back) => back || this.refetch());
          break;
        }
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
      this.confirming = action; // asked first: see giveUpQuestion()
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
      await this.app.seated({ t: "act", room: this.roomId, state_id: stateId, action });
    } catch (err) {
      // the page's view of this room now (a seat taken back is a new RoomView)
      const room = this.app.room && this.app.room.roomId === this.roomId ? this.app.room : this;
      room.error = err instanceof RequestError ? `${err.message}` : "not sent: connection lost";
      if (err instanceof RequestError && err.code === "action/stale_state") {
        room.error = "";
        room.refetch();
      }
    } finally {
      this.pending = false;
      this.app.render();
    }
  }

  async start() {
    try {
      await this.app.session.request({ t: "start", room: this.roomId });
    } catch (/** @type {any} */ err) {
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

  /** The props of the leave question (null while not asked): Question's. */
  leaveQuestion() {
    if (!this.confirmingLeave) return null;
    return {
      id: "leave-confirm", prefix: "leave",
      question: "Leave this game? A server bot takes your seat and plays on for you.",
      yes: "Yes, leave", no: "No, stay",
      onYes: () => this.app.leave(),
      onNo: () => {
        this.confirmingLeave = false;
        this.app.render();
      },
    };
  }

  /** The props of "Resign? yes / no", asked before a give-up action is sent (null while
   * none waits): Question's. */
  giveUpQuestion() {
    const action = this.confirming;
    if (!action) return null;
    const describe = this.renderer.describeAction || generic.describeAction;
    return {
      id: "confirm", prefix: "confirm",
      question: `${prettyCards(describe(action))}: give up this game? ` +
        "You lose it, and it cannot be undone.",
      yes: "Yes, give up", no: "No, play on",
      onYes: () => this.act(action),
      onNo: () => {
        this.confirming = null;
        this.app.render();
      },
    };
  }

  /** Each seat as the seat list shows it (room_views.js SeatFacts). */
  seatFacts() {
    const room = this.view.room || {};
    const players = room.players || [];
    const toAct = room.status === "playing" ? this.view.to_act || [] : [];
    return players.map((p, i) => {
      let status = p === null ? "free" : p.bot ? "bot" : p.connected ? "connected" : "away";
      if (this.offline && p !== null) status = "unknown"; // nothing is known while cut off
      return {
        name: p === null ? `seat ${i}: free` : this.seatName(i),
        status,
        acting: toAct.includes(i),
        me: i === this.seat,
        host: Boolean(p && p.host && room.status === "waiting"),
        toAct: toAct.includes(i) && !this.view.over,
        deadline: this.deadlineOf(i),
        rating: this.app.rated ? this.app.rated.seatRatingOf(this, i) : null,
      };
    });
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
      button: (action, label, extra = {}) => {
        handled.add(actionKey(action));
        const key = actionKey(action);
        return html`<button type="button" class=${`action ${extra.class || ""}`.trim()}
          key=${key} data-key=${`a:${key}`} data-action=${key} onClick=${() => this.act(action)}
          aria-label=${extra.label}>${label}</button>`;
      },
    };
  }

  /** The turn line's props (room_views.js TurnProps). */
  turnProps(mine, status) {
    const url = linkUrl(this.roomId, this.code);
    return {
      turn: this.turnText(),
      mine,
      myDeadline: mine ? this.deadlineOf(this.seat) : null,
      code: this.code,
      canStart: status === "waiting" && this.isHost(),
      watching: this.seat === null,
      link: { url, status: this.linkStatus },
      game: this.game,
      gameTitle: this.title().split(" \u2014 ")[0],
      onStart: () => this.start(),
      onLeave: () => this.askLeave(),
      onCopy: () => this.copyLink(url),
    };
  }

  /** Copy the room's link to the clipboard ("Link copied"), or show it to copy by hand. */
  async copyLink(url) {
    try {
      await navigator.clipboard.writeText(url);
      this.linkStatus = "copied";
    } catch {
      this.linkStatus = "shown";
    }
    this.app.render();
  }

  /** The game-over panel's props (null while the game goes on): GameOverPanel's. */
  gameOverProps() {
    const v = this.view;
    if (!v.over) return null;
    return {
      outcome: this.outcomeText(v.outcome),
      why: this.whyText(v.outcome),
      canReplay: Boolean(this.gameOver),
      onReplay: async () => openReplay(this.app, await recordGame(this, this.gameOver)),
      onAgain: () => this.app.playAgain(),
      onLobby: () => this.app.leave(),
    };
  }

  /** The table drawn by the game's renderer (the generic one when it fails), and the other
   * actions: a function that gives buttons for the legal actions the table did not draw (the
   * OtherActions component calls it, after Preact drew the table: renderers.js). */
  drawTable() {
    const handled = new Set();
    const ui = this.tableUi(handled);
    let table;
    try {
      table = this.renderer.render(this.view, ui);
    } catch (err) {
      console.error(err);
      handled.clear();
      table = generic.render(this.view, ui);
    }
    const describe = this.renderer.describeAction || generic.describeAction;
    const others = () => (this.view.legal_actions || [])
      .filter((a) => !handled.has(actionKey(a)))
      .map((a) => ui.button(a, prettyCards(describe(a))));
    return { table, others };
  }

  /** The auction help's text while this page bids (null: not shown); "" until it came. */
  auctionProps() {
    const v = this.view;
    if (!(v.auction && this.seat !== null && !v.over)) return null;
    if (this.auctionText === undefined) {
      this.auctionText = "";
      auctionText().then((text) => {
        this.auctionText = text;
        if (this.app.room === this) this.app.render();
      });
    }
    return this.auctionText;
  }

  /** Everything the table screen shows (room_views.js RoomProps). */
  screenProps() {
    const v = this.view;
    const status = (v.room && v.room.status) || "";
    const mine = this.seat !== null && (v.to_act || []).includes(this.seat) && !v.over;
    const { table, others } = this.drawTable();
    // A solo game: nobody to talk to, nobody watching worth a panel (issue #44 item 10).
    const solo = ((v.room && v.room.players) || []).length === 1;
    return {
      room: this.roomId, seat: this.seat, stateId: v.state_id, mine, over: Boolean(v.over),
      status, turn: this.turnProps(mine, status), error: this.error,
      confirm: this.giveUpQuestion(), leave: this.leaveQuestion(),
      gameOver: this.gameOverProps(), auction: this.auctionProps(), table, others,
      seats: this.seatFacts(), offline: this.offline, solo, view: v,
      chat: solo ? null : chatFor(this.app, this.roomId).props(),
      log: this.log.slice(-60).map((l) => l.text),
    };
  }

  /** Draw the table screen (Preact, into `this.host`, kept across renders); returns it. */
  render() {
    draw(html`<${RoomScreen} ...${this.screenProps()} />`, this.host);
    offlineControls(this.host, this.offline);
    tick();
    return this.host;
  }
}

/** While the connection is lost nothing can be sent: every control of `root` but Leave
 * waits (disabled, marked data-offline); once back, the ones so marked are enabled again. */
function offlineControls(root, offline) {
  for (const el of root.querySelectorAll("button, input, select")) {
    const control = /** @type {HTMLButtonElement} */ (el);
    if (offline && control.id !== "leave" && !control.disabled) {
      control.disabled = true;
      control.dataset.offline = "1";
    } else if (!offline && control.dataset.offline) {
      control.disabled = false;
      delete control.dataset.offline;
    }
  }
}

export { cardName, isCard };
