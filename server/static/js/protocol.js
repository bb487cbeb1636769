// @ts-check
// Cardhall wire protocol v2 for browsers (protocol/README.md): one binary WebSocket frame
// holds one MessagePack map; hello/welcome handshake; request ids echoed as `re`; views kept
// up to date by applying `delta`s exactly as the spec says (protocol/delta.py). Version 2's
// deltas carry no "state_id" (the update's is the view's): Session puts it back into each
// delta it hands on (withStateId), so a view keeper applies deltas as in version 1.
import { encode, decode } from "../vendor/msgpack/index.mjs";

export const PROTOCOL_VERSION = 2;
export const CLIENT_NAME = "cardhall-web/0.1";
/** Liveness (protocol `ping`): a session that hears nothing from the server for
 * `timeoutMs` is taken for lost (a stopped server keeps its socket open); while it hears
 * nothing for `everyMs` it sends a `ping`. `connectMs`: the most a connection and its
 * hello/welcome may take. */
export const LIVENESS = { everyMs: 3000, timeoutMs: 7000, connectMs: 5000 };
const TICK_MS = 1000;

/** A refused request: `code` is the namespaced error code (e.g. "room/full"). */
export class RequestError extends Error {
  constructor(code, message) {
    super(message || code);
    this.code = code;
  }
}

/** No reply came within the wait the request was sent with (Session.request's `waitMs`):
 * the server may still get it. */
export class RequestTimeout extends RequestError {
  constructor(/** @type {string} */ t, /** @type {number} */ waitMs) {
    super("request/timeout", `no answer to ${t} within ${(waitMs / 1000).toFixed(1)} s`);
  }
}

/** The connection was lost before the reply came. */
export class ConnectionLost extends Error {
  constructor() {
    super("connection lost");
    this.code = "connection/lost";
  }
}

function untoken(token) {
  return token.replace(/~1/g, "/").replace(/~0/g, "~");
}

/**
 * Apply a delta to a view in place and return it (the spec's "Views and deltas").
 * A key without a leading "/" replaces a top-level value whole; a key with one is a JSON
 * Pointer (RFC 6901) whose target is replaced whole. Throws when a pointer leads nowhere
 * (the delta is not for this view: ask for the full view with get_view).
 */
export function applyDelta(view, delta) {
  for (const [key, value] of Object.entries(delta)) {
    if (!key.startsWith("/")) {
      view[key] = value;
      continue;
    }
    const tokens = key.slice(1).split("/").map(untoken);
    let target = view;
    for (const token of tokens.slice(0, -1)) {
      target = Array.isArray(target) ? target[Number(token)] : target[token];
      if (target === undefined || target === null || typeof target !== "object") {
        throw new Error(`delta pointer ${key} leads nowhere`);
      }
    }
    const last = tokens[tokens.length - 1];
    if (Array.isArray(target)) {
      const index = Number(last);
      if (!Number.isInteger(index) || index < 0 || index >= target.length) {
        throw new Error(`delta pointer ${key}: index out of range`);
      }
      target[index] = value;
    } else {
      target[last] = value;
    }
  }
  return view;
}

/**
 * A version 2 `update` as version 1 sent it: its `delta` (when it has one and the delta has
 * no "state_id") gets the update's `state_id` as its "state_id" key, so that applying the
 * delta (applyDelta) moves the view's state_id too. Returns `msg` (changed in place); any
 * other message is returned as it is.
 * @param {any} msg  a decoded server message
 * @returns {any}
 */
export function withStateId(msg) {
  const delta = msg.t === "update" ? msg.delta : null;
  if (delta !== null && typeof delta === "object" && !("state_id" in delta)) {
    delta.state_id = msg.state_id;
  }
  return msg;
}

/**
 * Integers the decoder read from 64-bit MessagePack formats come as BigInt (useBigInt64):
 * back to numbers where a number holds them exactly; larger ones (a deal seed of 63 bits,
 * in game_over and log) stay BigInt, so that their decimal digits are exact (the deal check
 * hashes them: protocol/README.md "Fair deals").
 */
export function exactInts(value) {
  if (typeof value === "bigint") {
    return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER)
      ? Number(value)
      : value;
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) value[i] = exactInts(value[i]);
  } else if (value !== null && typeof value === "object" && !(value instanceof Uint8Array)) {
    for (const key of Object.keys(value)) value[key] = exactInts(value[key]);
  }
  return value;
}

/** The WebSocket URL of the server that served this page (wss:// under https://). */
export function defaultUrl(loc = window.location) {
  const scheme = loc.protocol === "https:" ? "wss:" : "ws:";
  return `${scheme}//${loc.host}/`;
}

/**
 * One session with a Cardhall server. `request(msg)` sends a message with a fresh id and
 * resolves with its reply (rejects with RequestError on an `error` reply). Unsolicited
 * messages (update, seat_event, game_over, started, left) go to `onMessage`.
 */
export class Session {
  /**
   * @param {string} url  the server's WebSocket address
   * @param {{ name?: string, onMessage?: (msg: any) => void, onClose?: () => void,
   *           liveness?: typeof LIVENESS }} [opts]
   */
  constructor(
    url,
    { name = "", onMessage = (_msg) => {}, onClose = () => {}, liveness = LIVENESS } = {},
  ) {
    this.url = url;
    this.name = name; // the display name the server gave this session (set once signed in)
    this.onMessage = onMessage;
    this.onClose = onClose;
    this.liveness = liveness;
    this.nextId = 1;
    /** @type {Map<number, { resolve: (msg: any) => void, reject: (err: Error) => void }>} */
    this.pending = new Map();
    /** @type {WebSocket | null} */
    this.ws = null;
    this.welcome = null;
    this.ended = false; // lost or closed: onClose was called (once)
    /** @type {ReturnType<typeof setInterval> | undefined} */
    this.timer = undefined;
    /** @type {((lost: ConnectionLost) => void) | null} */
    this._failConnect = null;
    this.heard = 0;
  }

  /** Open the socket and do the hello/welcome handshake; resolves with `welcome`. A
   * handshake not done within `liveness.connectMs` fails (a stopped server accepts the TCP
   * connection and answers nothing). Then the session checks liveness (see LIVENESS). */
  connect() {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(this.url);
      ws.binaryType = "arraybuffer";
      this.ws = ws;
      this.heard = performance.now();
      const slow = setTimeout(() => this._lost(), this.liveness.connectMs);
      ws.onopen = () => {
        // act_reply "update" (version 2's default, said anyway): an accepted act is answered
        // by our update carrying its id. hello.client names the software; players are named
        // by their accounts.
        const hello = { t: "hello", v: PROTOCOL_VERSION, client: CLIENT_NAME, act_reply: "update" };
        this.request(hello).then((welcome) => {
          clearTimeout(slow);
          this.welcome = welcome;
          this._watch();
          resolve(welcome);
        }, reject);
      };
      ws.onmessage = (event) => {
        this.heard = performance.now();
        this._receive(event.data);
      };
      ws.onclose = () => this._lost();
      ws.onerror = () => {};
      this._failConnect = (lost) => {
        clearTimeout(slow);
        reject(lost);
      };
    });
  }

  /** Check liveness every second: ping when the server has been quiet for `everyMs`,
   * give the session up when it has been quiet for `timeoutMs`. A tick that comes late
   * (timers of a background tab are throttled) judges nothing: it pings and waits. */
  _watch() {
    let last = performance.now();
    let pinged = 0;
    this.timer = setInterval(() => {
      const now = performance.now();
      if (now - last > 3 * TICK_MS) this.heard = Math.max(this.heard, now - TICK_MS);
      last = now;
      const quiet = now - this.heard;
      if (quiet > this.liveness.timeoutMs) {
        this._lost();
      } else if (quiet >= this.liveness.everyMs && now - pinged >= this.liveness.everyMs) {
        pinged = now;
        this.request({ t: "ping" }).catch(() => {});
      }
    }, TICK_MS);
  }

  /** The connection is lost (closed, or the server stopped answering): fail every pending
   * request, stop listening to the socket (a server that wakes up later must not reach
   * this page through it), and tell `onClose` once. */
  _lost() {
    if (this.ended) return;
    this.ended = true;
    clearInterval(this.timer);
    const ws = this.ws;
    if (ws) {
      ws.onmessage = ws.onclose = ws.onopen = null;
      if (ws.readyState === WebSocket.OPEN || ws.readyState === WebSocket.CONNECTING) ws.close();
    }
    const lost = new ConnectionLost();
    for (const { reject: fail } of this.pending.values()) fail(lost);
    this.pending.clear();
    if (this._failConnect) this._failConnect(lost);
    this.onClose();
  }

  get open() {
    return !this.ended && this.ws !== null && this.ws.readyState === WebSocket.OPEN;
  }

  close() {
    if (this.ws) this.ws.close(1000);
  }

  /** Send `msg` (a plain object with `t`) with a fresh request id; resolves with the reply.
   * With `waitMs` (> 0), rejects with RequestTimeout when no reply came within that many
   * ms (a late reply is then ignored); else it waits as long as the connection lasts. */
  request(msg, waitMs = 0) {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      if (!this.open) {
        reject(new ConnectionLost());
        return;
      }
      if (waitMs > 0) {
        const timer = setTimeout(() => {
          if (this.pending.delete(id)) reject(new RequestTimeout(msg.t, waitMs));
        }, waitMs);
        const settle = (/** @type {Function} */ f) => (/** @type {any} */ v) => {
          clearTimeout(timer);
          f(v);
        };
        this.pending.set(id, { resolve: settle(resolve), reject: settle(reject) });
      } else {
        this.pending.set(id, { resolve, reject });
      }
      /** @type {WebSocket} */ (this.ws).send(encode({ ...msg, id }));
    });
  }

  _receive(data) {
    let msg;
    try {
      msg = exactInts(decode(new Uint8Array(data), { useBigInt64: true }));
    } catch (err) {
      console.error("undecodable frame", err);
      return;
    }
    if (msg === null || typeof msg !== "object" || typeof msg.t !== "string") return;
    withStateId(msg);
    if (msg.re !== undefined && msg.re !== null && this.pending.has(msg.re)) {
      const { resolve, reject } = /** @type {{ resolve: Function, reject: Function }} */ (
        this.pending.get(msg.re));
      this.pending.delete(msg.re);
      if (msg.t === "error") reject(new RequestError(msg.code, msg.message));
      else resolve(msg);
      // A get_view reply is also an update: the room view applies it.
      if (msg.t === "update" || msg.t === "started") this.onMessage(msg);
      return;
    }
    this.onMessage(msg);
  }
}
