// A complete Cardhall bot in JavaScript (Node 18+), speaking the wire protocol directly
// (protocol/README.md): one MessagePack map per binary WebSocket frame.
//
//   cd examples && npm install
//   node js_bot.mjs --url ws://127.0.0.1:8765 --game shop
//   node js_bot.mjs --url ws://127.0.0.1:8765 --join ROOM
//
// It signs in to a guest account (the device secret in $CARDHALL_BOT_SECRET: the same secret
// is the same account next time; without it, a new guest each run), creates a one-seat room
// of GAME (or takes a free seat in ROOM), plays it to the end with choose() and prints the
// outcome as one JSON line. Exit status 0 when the game ended.
import { randomBytes } from "node:crypto";
import { decode, encode } from "@msgpack/msgpack";
import WebSocket from "ws";

const GIVE_UP = new Set(["resign", "close_shop", "concede"]);

/** Pick an action: any legal one at random, but never give up while there is a choice. */
function choose(view) {
  const legal = view.legal_actions;
  const keep = legal.filter((a) => !GIVE_UP.has(a[0]));
  const pool = keep.length ? keep : legal;
  return pool[Math.floor(Math.random() * pool.length)];
}

/** Apply an update's delta to a view (protocol/README.md "Views and deltas"). */
function applyDelta(view, delta) {
  for (const [key, value] of Object.entries(delta)) {
    if (!key.startsWith("/")) {
      view[key] = value;
      continue;
    }
    const tokens = key.slice(1).split("/").map((t) => t.replace(/~1/g, "/").replace(/~0/g, "~"));
    let node = view;
    for (const token of tokens.slice(0, -1)) node = node[token];
    node[tokens[tokens.length - 1]] = value;
  }
}

function parseArgs(argv) {
  const args = { url: "ws://127.0.0.1:8765", game: "shop", join: null };
  for (let i = 0; i < argv.length; i += 2) {
    const name = argv[i].replace(/^--/, "");
    if (!(name in args) || argv[i + 1] === undefined) {
      console.error(`usage: node js_bot.mjs [--url URL] [--game GAME] [--join ROOM]`);
      process.exit(2);
    }
    args[name] = argv[i + 1];
  }
  return args;
}

const args = parseArgs(process.argv.slice(2));
const ws = new WebSocket(args.url);
let nextId = 1;
let room = args.join;
let view = null;
let actedOn = -1;

function send(msg) {
  msg.id = nextId++;
  ws.send(encode(msg));
}

function maybeAct() {
  if (!view || view.over || !view.legal_actions.length || view.state_id <= actedOn) return;
  actedOn = view.state_id;
  // state_id: the view the action was chosen from; a stale one is refused, never applied twice
  send({ t: "act", room, state_id: view.state_id, action: choose(view) });
}

// Protocol version 2 (protocol/README.md "Version 2"): a delta carries no state_id (the
// update's own is the view's), and an accepted act is answered by our own update.
ws.on("open", () => send({ t: "hello", v: 2, client: "cardhall-js-example/0.2" }));
ws.on("error", (err) => {
  console.error(`cannot reach ${args.url}: ${err.message}`);
  process.exit(1);
});
ws.on("message", (data) => {
  const msg = decode(data);
  switch (msg.t) {
    case "welcome": { // sign in: a device secret of at least 128 random bits
      const secret = process.env.CARDHALL_BOT_SECRET || randomBytes(32).toString("base64url");
      send({ t: "guest", secret });
      break;
    }
    case "account": // signed in (msg.name is what the table shows)
      if (room) send({ t: "join", room });
      else send({ t: "create_room", game: args.game, seats: 1, options: {}, private: false });
      break;
    case "room_created":
      room = msg.room;
      send({ t: "join", room });
      break;
    case "joined":
      view = msg.view;
      maybeAct();
      break;
    case "update":
      if (msg.room !== room) break;
      if (msg.view) view = msg.view;
      else applyDelta(view, msg.delta);
      view.state_id = msg.state_id;
      maybeAct();
      break;
    case "game_over":
      if (msg.room !== room) break;
      console.log(JSON.stringify({ room, state_id: msg.state_id, ...msg.outcome }));
      ws.close();
      process.exit(0);
      break;
    case "error":
      if (msg.code === "action/stale_state") break; // an update is on its way: act on it
      if (msg.code === "rate/limited") { // over the server's message rate: slow down, retry
        setTimeout(() => { actedOn = -1; maybeAct(); }, 1000);
        break;
      }
      console.error(`server error ${msg.code}: ${msg.message}`);
      process.exit(1);
      break;
    default: // ok, started, seat_event, ...: nothing to do
  }
});
