"""The protocol floor: a server that speaks just enough of Cardhall's protocol for the peers'
load generator, with no game, no store and no rooms' bookkeeping.

It answers ``hello`` (``welcome``), ``create_room`` (``room_created``) and ``join``
(``joined``), and takes ``act`` frames for a four-seat table whose turn goes round: the acting
seat gets ``ok`` plus an ``update`` (in one write, as Cardhall does), every other seat an
``update``; the seat whose turn comes gets ``legal_actions`` in its delta. Frames are packed
with a reused msgpack packer as Cardhall's are, and written the way Cardhall writes them
(:func:`cardhall.server.connection.binary_header` before each payload, one
``transport.writelines`` per call); frames are read the way Cardhall reads them
(``async for frame in ws``, then ``msgpack`` decoding), or with ``--sync`` in websockets'
protocol callback (:class:`SyncReading`).

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

Bounded: it runs until SIGINT/SIGTERM. Listens on 127.0.0.1 unless told otherwise.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import signal
from collections.abc import AsyncIterable
from typing import Any, cast

import msgpack
from websockets.asyncio.server import ServerConnection, serve
from websockets.frames import Opcode

from .. import protocol as p
from ..games.errors import GameError
from ..games.skipper import Skipper
from ..server.connection import binary_header

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
        """Write ``frames`` at once in one ``writelines``, as Cardhall's ``_write_now``."""
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


class SyncReading(ServerConnection):
    """``--sync``: a complete binary frame is handled in the protocol callback that parsed
    it (websockets' Sans-I/O events), instead of going through the message queue to the
    connection's task (``async for frame in ws``): what that hop costs per action."""

    handler: Any = None

    def process_event(self, event: Any) -> None:
        """Hand a whole binary frame to ``handler`` at once; anything else as websockets does."""
        if self.handler is not None and event.opcode is Opcode.BINARY and event.fin:
            self.handler(bytes(event.data))
            return
        super().process_event(event)


async def main(host: str, port: int, sync: bool, game: str | None = None) -> None:
    """Serve until SIGINT or SIGTERM; ``game``: see :attr:`Floor.game`."""
    Floor.game = game
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)

    async def handle(ws: ServerConnection) -> None:
        floor = Floor(ws)
        if isinstance(ws, SyncReading):
            ws.handler = floor.handle
        await floor.run()

    async with serve(handle, host, port, compression=None, max_size=65536,
                     create_connection=SyncReading if sync else ServerConnection):
        await stop.wait()


def cli() -> None:
    """Command line: ``--host``, ``--port``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8770)
    parser.add_argument("--sync", action="store_true",
                        help="handle frames in the protocol callback (see SyncReading)")
    parser.add_argument("--game", choices=["skipper"], default=None,
                        help="play real Skipper multi games (EngineTable)")
    args = parser.parse_args()
    try:
        import uvloop
    except ImportError:
        asyncio.run(main(args.host, args.port, args.sync, args.game))
    else:
        uvloop.run(main(args.host, args.port, args.sync, args.game))


if __name__ == "__main__":
    cli()
