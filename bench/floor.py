"""The protocol floor: a server that speaks just enough of Cardhall's protocol for the peers'
load generator, with no game, no store and no rooms' bookkeeping.

It answers ``hello`` (``welcome``), ``create_room`` (``room_created``) and ``join``
(``joined``), and takes ``act`` frames for a four-seat table whose turn goes round: the acting
seat gets ``ok`` plus an ``update`` (in one write, as Cardhall does), every other seat an
``update``; the seat whose turn comes gets ``legal_actions`` in its delta. Frames are packed
with a reused msgpack packer as Cardhall's are. With ``--sync`` the floor runs on
Cardhall's own socket driver (:mod:`cardhall.server.driver`, issue #43: each frame handled
in the callback that read it, one ``writelines`` per socket per loop pass;
:class:`DriverFloor`); without, on websockets' asyncio server (``async for frame in ws``,
frames written with :func:`~cardhall.server.driver.binary_header` before each payload, one
``transport.writelines`` per call), the way Cardhall ran before issue #43.

So whatever this server costs per action is what the stack (asyncio or uvloop, websockets,
msgpack, the kernel's loopback TCP) costs for the workload before any game runs: the floor
under Cardhall's own figure in :mod:`cardhall.bench.peers`.

With ``--game skipper`` each table plays a real 4-seat Skipper ``multi`` game instead
(:class:`EngineTable`): the engine applies the action and reports every seat's delta
(:meth:`Skipper.deltas`), and the frames are packed as a room packs them
(:func:`cardhall.protocol.update_parts`, :func:`~cardhall.protocol.update_frame`), but with
no room, store, clocks, checks or metrics. Between this and the bare floor is what Skipper's
rules cost; between this and Cardhall, what its rooms cost.

    python -m cardhall.bench.floor --port 8770
    python -m cardhall.bench.floor --port 8770 --game skipper

The echo floor (issue #43; ``cardhall bench --floor``, :func:`compare`): what one request
costs the server in CPU when it is one 120-byte binary frame in and four out (a four-seat
fan-out's frames), over 50 connections in a closed loop, on each way of driving a
WebSocket behind the same interface (:class:`Echo`: a message in, ``send(frames)`` out):
websockets' asyncio server (``async for`` and four ``await send``, what the server used
before issue #43), Cardhall's driver on websockets' Sans-I/O core (:mod:`cardhall.server.driver`)
and picows (when it is installed; it is not a dependency). Each server is a child process
(pinned to one CPU, the load generator on another); the windows take turns.

    python -m cardhall.bench.floor --echo driver --port 8771

Bounded: it runs until SIGINT/SIGTERM. Listens on 127.0.0.1 unless told otherwise.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import os
import signal
import sys
from collections.abc import AsyncIterable, Callable, Coroutine
from typing import Any, cast

import msgpack
from websockets.asyncio.server import ServerConnection, serve

from .. import protocol as p
from ..games.errors import GameError
from ..games.skipper import Skipper
from .procs import Child, children, cpu_seconds, free_port, pinned
from ..server.driver import binary_header

_packer = msgpack.Packer()
_pack = _packer.pack
SEATS = 4
#: What the seat to act may do (the load generator picks one at random, never "resign").
LEGAL = [["play", "AS", "S"], ["discard", "AS"], ["end"]]


class Table:
    """A room of the floor server: four seats in turn, a state id, the seats' connections."""

    def __init__(self, room: str) -> None:
        self.room = room
        self.state_id = 1
        self.turn = 0
        self.conns: list[Floor | None] = [None] * SEATS


class EngineTable(Table):
    """``--game skipper``: a table with a real Skipper ``multi`` game (seeded by its number)
    whose engine decides what is legal and reports the deltas."""

    def __init__(self, room: str, seed: int) -> None:
        super().__init__(room)
        self.game = Skipper({"mode": "multi", "seed": seed}, SEATS)
        self.game.deltas(range(SEATS))  # the engine marks this state: deltas from the next
        self.state_id = self.game.state_id

    def start(self) -> None:
        """Every seat's full view, as a room's start sends it."""
        parts = p.update_parts(self.room, self.state_id, [])
        for s, conn in enumerate(self.conns):
            assert conn is not None
            conn.write(p.update_frame(parts, view=self.game.view(s)))

    def act(self, conn: Floor, seat: int, msg: dict[str, Any]) -> None:
        """Apply the action; the acting seat's ``ok`` and update, then the others'."""
        game = self.game
        if msg["state_id"] != game.state_id:
            conn.reply({"t": "error", "code": "action/stale_state", "message": "stale"},
                       msg.get("id"))
            return
        try:
            events = game.apply(seat, msg["action"])
        except GameError as exc:
            conn.reply({"t": "error", "code": exc.code, "message": str(exc)}, msg.get("id"))
            return
        self.state_id = game.state_id
        deltas = game.deltas(range(SEATS))
        assert deltas is not None  # asked at every state
        parts = p.update_parts(self.room, self.state_id, events)
        frames: dict[int, bytes] = {}  # id(delta) -> frame: equal deltas are one dict

        def frame_of(s: int) -> bytes:
            delta = deltas[s]
            frame = frames.get(id(delta))
            if frame is None:
                frame = frames[id(delta)] = p.update_frame(parts, delta=delta)
            return frame

        conn.write(p.ok_frame(msg.get("id")), frame_of(seat))
        for s, other in enumerate(self.conns):
            if other is not None and s != seat:
                other.write(frame_of(s))
        if game.over:
            over = _pack({"t": "game_over", "room": self.room})
            for other in self.conns:
                if other is not None:
                    other.write(over)


class Floor:
    """One client connection of the floor server."""

    tables: dict[str, Table] = {}
    ids = itertools.count(1)
    #: ``--game``: None (the bare floor's table) or ``"skipper"`` (:class:`EngineTable`).
    game: str | None = None

    def __init__(self, ws: ServerConnection) -> None:
        self.ws = ws
        self.seat: dict[str, int] = {}

    def write(self, *frames: bytes) -> None:
        """Write ``frames`` at once in one ``writelines`` (Cardhall's way before issue #43)."""
        protocol = self.ws.protocol
        out = protocol.data_to_send() if protocol.writes else []
        for data in frames:
            out.append(binary_header(len(data)))
            out.append(data)
        self.ws.transport.writelines(out)

    def reply(self, msg: dict[str, Any], re: Any) -> None:
        """Send ``msg`` with ``re`` set."""
        msg["re"] = re
        self.write(_pack(msg))

    async def run(self) -> None:
        """Serve the connection until it closes."""
        # cast once, not per frame: the bench's clients send binary frames only (bytes)
        async for frame in cast("AsyncIterable[bytes]", self.ws):
            self.handle(frame)

    def handle(self, frame: bytes) -> None:
        """Answer one frame."""
        msg = msgpack.unpackb(frame)
        kind, re = msg.get("t"), msg.get("id")
        if kind == "act":
            self.act(msg)
        elif kind == "hello":
            self.reply({"t": "welcome", "v": 1, "server": "floor", "session": "x",
                        "max_frame": 65536}, re)
        elif kind == "create_room":
            n = next(self.ids)
            room = f"f{n:07d}"
            self.tables[room] = Table(room) if self.game is None else EngineTable(room, n)
            self.reply({"t": "room_created", "room": room}, re)
        elif kind == "join":
            table = self.tables[msg["room"]]
            seat = table.conns.index(None)
            table.conns[seat] = self
            self.seat[table.room] = seat
            if isinstance(table, EngineTable):
                view = table.game.view(seat)
            else:
                view = {"state_id": table.state_id, "seat": seat,
                        "legal_actions": LEGAL if seat == table.turn else []}
            self.reply({"t": "joined", "room": table.room, "seat": seat, "view": view}, re)
            if seat == SEATS - 1 and isinstance(table, EngineTable):
                table.start()
            elif seat == SEATS - 1:  # the table is full: everyone's view, as a start does
                for s, conn in enumerate(table.conns):
                    assert conn is not None
                    conn.write(_pack({"t": "update", "room": table.room,
                                      "state_id": table.state_id,
                                      "delta": {"legal_actions":
                                                LEGAL if s == table.turn else []},
                                      "events": []}))
        else:
            self.reply({"t": "error", "code": "protocol/unknown_type", "message": kind}, re)

    def act(self, msg: dict[str, Any]) -> None:
        """The acting seat's ``ok`` and ``update``, then the other seats' updates."""
        table = self.tables.get(msg["room"])
        seat = self.seat.get(msg["room"])
        if isinstance(table, EngineTable) and seat is not None:
            table.act(self, seat, msg)
            return
        if table is None or seat != table.turn or msg["state_id"] != table.state_id:
            self.reply({"t": "error", "code": "action/stale_state", "message": "stale"},
                       msg.get("id"))
            return
        table.state_id += 1
        table.turn = nxt = (seat + 1) % SEATS
        head = {"t": "update", "room": table.room, "state_id": table.state_id}
        event = [{"type": "play", "seat": seat, "card": "AS"}]
        self.write(_pack({"t": "ok", "re": msg.get("id")}),
                   _pack({**head, "delta": {"/seats/0/hand": 4, "legal_actions": []},
                          "events": event}))
        for s, conn in enumerate(table.conns):
            if conn is not None and s != seat:
                delta: dict[str, Any] = {"/seats/0/hand": 4}
                if s == nxt:
                    delta["legal_actions"] = LEGAL
                conn.write(_pack({**head, "delta": delta, "events": event}))


class DriverFloor(Floor):
    """``--sync``: the floor on Cardhall's socket driver (:class:`~cardhall.server.driver.
    Socket`): each frame handled in the callback that read it, frames written once per
    socket per loop pass, as Cardhall's connections are."""

    def __init__(self, socket: Any) -> None:
        self.socket = socket
        self.seat = {}

    def write(self, *frames: bytes) -> None:
        """Queue ``frames`` on the socket (written at the end of the pass)."""
        self.socket.send(frames)

    def message(self, data: bytes | str) -> None:
        """One frame from the socket."""
        self.handle(data if isinstance(data, bytes) else data.encode())

    def lost(self) -> None:
        """The socket closed."""


class _FloorEndpoint:
    """The driver's server side of the floor: every request is an upgrade."""

    async def http(self, socket: Any, request: Any) -> None:
        return None

    def opened(self, socket: Any) -> DriverFloor:
        return DriverFloor(socket)


# -- the echo floor (issue #43) ---------------------------------------------------------

#: The echo servers, in the order of the table.
ECHO_KINDS = ("asyncio", "driver", "picows")
#: Bytes of the payload of every frame of the echo floor.
ECHO_PAYLOAD = 120
#: Frames out per frame in.
ECHO_OUT = 4


class Echo:
    """The echo's handler, the same behind every driver: each message goes back
    :data:`ECHO_OUT` times, in one ``send``.

    Args:
        sink: Anything with ``send(frames)`` (a :class:`~cardhall.server.driver.Socket`, or
            the picows adapter).
    """

    def __init__(self, sink: Any) -> None:
        self.sink = sink

    def message(self, data: bytes | str) -> None:
        """Send ``data`` back four times (binary)."""
        frame = data if isinstance(data, bytes) else data.encode()
        self.sink.send((frame,) * ECHO_OUT)

    def lost(self) -> None:
        """Nothing to forget."""


class _DriverEndpoint:
    """The driver's server side of the echo: every request is an upgrade."""

    async def http(self, socket: Any, request: Any) -> None:
        return None

    def opened(self, socket: Any) -> Echo:
        return Echo(socket)


async def serve_echo(kind: str, host: str, port: int, stop: asyncio.Event) -> None:
    """Serve the echo with ``kind`` (one of :data:`ECHO_KINDS`) until ``stop`` is set.

    Raises:
        ImportError: ``picows`` is asked for and not installed.
    """
    if kind == "asyncio":
        async def handler(ws: ServerConnection) -> None:
            async for frame in ws:
                for _ in range(ECHO_OUT):
                    await ws.send(frame)

        async with serve(handler, host, port, compression=None, max_size=65536,
                         ping_interval=None):
            await stop.wait()
        return
    if kind == "driver":
        server = await _driver_server(_DriverEndpoint(), host, port)
    elif kind == "picows":
        server = await _picows_server(host, port)
    else:
        raise ValueError(f"no echo server {kind!r}")
    async with server:
        await stop.wait()


async def _driver_server(endpoint: Any, host: str, port: int) -> asyncio.Server:
    """A listener whose sockets are Cardhall's driver (no pings, no per-address cap)."""
    from ..server.admission import Gate
    from ..server.config import Settings
    from ..server.driver import Flusher, Socket

    gate = Gate(Settings(max_connections_per_address=None), 1 << 20)
    flusher = Flusher()

    def accept() -> asyncio.Protocol:  # a Socket: an asyncio protocol by its methods
        return cast("asyncio.Protocol", Socket(endpoint, gate, flusher, ping_interval=None))

    return await asyncio.get_running_loop().create_server(accept, host, port)


async def _picows_server(host: str, port: int) -> asyncio.Server:
    """picows behind the same interface: a listener that hands each binary frame to
    :class:`Echo` and offers it ``send(frames)``."""
    import picows  # type: ignore[import-not-found,unused-ignore]

    class Listener(picows.WSListener):  # type: ignore[misc,unused-ignore]
        def on_ws_connected(self, transport: Any) -> None:
            self.transport = transport
            self.echo = Echo(self)

        def on_ws_frame(self, transport: Any, frame: Any) -> None:
            if frame.msg_type == picows.WSMsgType.BINARY:
                self.echo.message(frame.get_payload_as_bytes())
            elif frame.msg_type == picows.WSMsgType.CLOSE:
                transport.send_close(frame.get_close_code())
                transport.disconnect()

        def send(self, frames: tuple[bytes, ...]) -> None:
            for data in frames:
                self.transport.send(picows.WSMsgType.BINARY, data)

    server = await picows.ws_create_server(lambda request: Listener(), host, port)
    return cast("asyncio.Server", server)


class _EchoClient(asyncio.Protocol):
    """One closed-loop client of the echo floor on a raw socket (cheap: no WebSocket
    library): the upgrade, then one masked frame out and its four frames back, again."""

    def __init__(self, frame: bytes, want: int) -> None:
        self.frame, self.want = frame, want
        self.transport: asyncio.Transport | None = None
        self.upgraded = asyncio.get_running_loop().create_future()
        self.buffer = b""
        self.got = 0
        self.count = 0
        self.running = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        import base64

        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        key = base64.b64encode(os.urandom(16)).decode()
        transport.write(f"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n"
                        f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                        "Sec-WebSocket-Version: 13\r\n\r\n".encode())

    def data_received(self, data: bytes) -> None:
        if not self.upgraded.done():
            self.buffer += data
            end = self.buffer.find(b"\r\n\r\n")
            if end >= 0:
                assert self.buffer.startswith(b"HTTP/1.1 101"), self.buffer[:40]
                self.got = len(self.buffer) - end - 4
                self.upgraded.set_result(None)
            return
        self.got += len(data)
        while self.got >= self.want:
            self.got -= self.want
            self.count += 1
            if self.running and self.transport is not None:
                self.transport.write(self.frame)

    def go(self) -> None:
        """Start the loop: the first request."""
        self.running = True
        assert self.transport is not None
        self.transport.write(self.frame)

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.upgraded.done():
            self.upgraded.set_exception(ConnectionError("closed before the upgrade"))


def _client_frame(payload: bytes) -> bytes:
    """``payload`` as a client's masked, final binary frame (payload < 126 bytes)."""
    mask = os.urandom(4)
    masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
    return bytes((0x82, 0x80 | len(payload))) + mask + masked


async def echo_window(port: int, pid: int, connections: int, seconds: float,
                      limit: int) -> dict[str, float]:
    """One measured window against the echo server on ``port`` (process ``pid``): the
    clients connect, run 0.3 s unmeasured, then ``seconds`` (or until ``limit`` requests)
    measured.

    Returns:
        ``{"requests", "cpu_s", "us_per_request", "requests_per_s"}`` of the window.
    """
    loop = asyncio.get_running_loop()
    frame = _client_frame(bytes(range(ECHO_PAYLOAD)))
    want = ECHO_OUT * (2 + ECHO_PAYLOAD)
    clients: list[_EchoClient] = []
    try:
        for _ in range(connections):
            _, client = await loop.create_connection(lambda: _EchoClient(frame, want),
                                                     "127.0.0.1", port)
            clients.append(client)
        async with asyncio.timeout(10):
            await asyncio.gather(*(c.upgraded for c in clients))
        for c in clients:
            c.go()
        await asyncio.sleep(0.3)
        count0, cpu0, t0 = sum(c.count for c in clients), cpu_seconds(pid), loop.time()
        while loop.time() - t0 < seconds and sum(c.count for c in clients) - count0 < limit:
            await asyncio.sleep(0.05)
        count1, cpu1, t1 = sum(c.count for c in clients), cpu_seconds(pid), loop.time()
    finally:
        for c in clients:
            c.running = False
            if c.transport is not None:
                c.transport.abort()
    n = max(1, count1 - count0)
    return {"requests": n, "cpu_s": cpu1 - cpu0, "us_per_request": (cpu1 - cpu0) / n * 1e6,
            "requests_per_s": n / max(t1 - t0, 1e-9)}


def compare(rounds: int = 3, seconds: float = 3.0, connections: int = 50,
            limit: int = 200_000, pin: bool = True,
            say: Callable[[str], None] | None = None) -> dict[str, Any]:
    """The echo floor: each kind of :data:`ECHO_KINDS` (picows when installed) in its own
    child process, ``rounds`` windows each by turns.

    Returns:
        ``{"kinds": {kind: {"us_per_request": median, "requests_per_s": median, "runs":
        [...]}}, "ratio_to_asyncio": {kind: median of the per-round ratios}, "skipped":
        {kind: why}}``.
    """
    import importlib.util
    import statistics

    kinds = [k for k in ECHO_KINDS if k != "picows" or importlib.util.find_spec("picows")]
    skipped = {} if "picows" in kinds else {"picows": "not installed"}
    runs: dict[str, list[dict[str, float]]] = {k: [] for k in kinds}
    with children() as kids, pinned(pin) as cpus:
        servers = {}
        for kind in kinds:
            port = free_port()
            kids.append(Child(f"echo {kind}", [sys.executable, "-m", "cardhall.bench.floor",
                                               "--echo", kind, "--port", str(port)],
                              port, None, cpus))
            servers[kind] = kids[-1]
        for r in range(rounds):
            for kind in kinds:
                if say is not None:
                    say(f"echo floor: round {r + 1}/{rounds}, {kind}")
                child = servers[kind]
                runs[kind].append(asyncio.run(echo_window(child.port, child.pid,
                                                          connections, seconds, limit)))
    ratios = {k: statistics.median(run["us_per_request"] / base["us_per_request"]
                                   for run, base in zip(runs[k], runs["asyncio"]))
              for k in kinds}
    return {"kinds": {k: {"us_per_request": statistics.median(x["us_per_request"]
                                                              for x in runs[k]),
                          "requests_per_s": statistics.median(x["requests_per_s"]
                                                              for x in runs[k]),
                          "runs": runs[k]} for k in kinds},
            "ratio_to_asyncio": ratios, "skipped": skipped,
            "connections": connections, "rounds": rounds, "seconds": seconds}


def render_echo(result: dict[str, Any]) -> str:
    """The table of :func:`compare`'s result."""
    lines = ["| server | us CPU per request (median) | x asyncio | requests/s |",
             "|---|---|---|---|"]
    for kind, row in result["kinds"].items():
        lines.append(f"| {kind} | {row['us_per_request']:.1f} | "
                     f"{result['ratio_to_asyncio'][kind]:.2f}x | {row['requests_per_s']:,.0f} |")
    for kind, why in result["skipped"].items():
        lines.append(f"| {kind} | ({why}) | | |")
    return "\n".join(lines)


async def main(host: str, port: int, sync: bool, game: str | None = None) -> None:
    """Serve until SIGINT or SIGTERM; ``game``: see :attr:`Floor.game`."""
    Floor.game = game
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)

    if sync:
        server = await _driver_server(_FloorEndpoint(), host, port)
        async with server:
            await stop.wait()
        return

    async def handle(ws: ServerConnection) -> None:
        await Floor(ws).run()

    async with serve(handle, host, port, compression=None, max_size=65536):
        await stop.wait()


def cli() -> None:
    """Command line: ``--host``, ``--port``, ``--sync``, ``--game``; ``--echo KIND`` serves
    the echo floor's server of that kind instead (:func:`serve_echo`)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8770)
    parser.add_argument("--sync", action="store_true",
                        help="run on Cardhall's socket driver (see DriverFloor)")
    parser.add_argument("--game", choices=["skipper"], default=None,
                        help="play real Skipper multi games (EngineTable)")
    parser.add_argument("--echo", choices=ECHO_KINDS, default=None,
                        help="serve the echo floor with this driver (see compare)")
    args = parser.parse_args()
    run: Callable[[Coroutine[Any, Any, None]], None]
    try:
        import uvloop
    except ImportError:
        run = asyncio.run
    else:
        run = uvloop.run
    if args.echo is not None:
        run(_echo_main(args.echo, args.host, args.port))
    else:
        run(main(args.host, args.port, args.sync, args.game))


async def _echo_main(kind: str, host: str, port: int) -> None:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    await serve_echo(kind, host, port, stop)


if __name__ == "__main__":
    cli()
