"""Rooms without sockets for tests: stand-in connections that record what a room writes, and
a started Skipper room seated with them; a room rebuilt from what a server's store holds
(:func:`replay_room`); a store that refuses its first writes for a moment (:class:`Flaky`),
and a server that refuses a spectate once (:class:`SpectateRefusal`)."""

from __future__ import annotations

from typing import Any

import msgpack

from cardhall import protocol as p
from cardhall.games import get, replay
from cardhall.games.skipper import Skipper
from cardhall.server import session
from cardhall.server.app import Server
from cardhall.server.phases import RoomError
from cardhall.server.room import Room
from cardhall.server.store.memory_store import MemoryStore
from cardhall.server.store.ports import Lease, StoreError

#: What a stand-in connection records: ``(its name, [the "t" of each frame of one write])``.
WriteLog = list[tuple[str, list[str]]]


class Recorder:
    """A stand-in connection that records every write: ``(name, [frame types])``."""

    def __init__(self, name: str, log: WriteLog) -> None:
        self.name, self.session_id, self.process = name, name, "test"
        self.account = ""  # signed in to no account
        self.act_reply = "ok"
        self.rooms: dict[str, Room] = {}
        self._log = log

    def send(self, msg: p.Message) -> None:
        """Encode ``msg`` and record it."""
        self.send_raw(p.encode(msg))

    def send_raw(self, *frames: bytes) -> None:
        """Record one write of ``frames``."""
        self._log.append((self.name, [msgpack.unpackb(f)["t"] for f in frames]))

    def send_later(self, frame: bytes) -> None:
        """Record the write of ``frame`` (at once)."""
        self.send_raw(frame)

    def push(self) -> None:
        """Nothing waits here: every write is recorded at once."""

    def send_error(self, code: str, message: str, re: Any = None) -> None:
        """Record an ``error`` reply."""
        self.send(p.Error(code=code, message=message, re=re))


async def started_room(seats: int, options: dict[str, Any], store: MemoryStore | None = None,
                 **settings: Any) -> tuple[Room, Skipper, list[Recorder], WriteLog]:
    """A Skipper ``multi`` room ``"r1"`` of ``seats`` seats (engine ``options``, room
    ``settings`` over no clocks, a 60 s grace, bots for abandoned seats), every seat taken
    by a :class:`Recorder` named ``seat<i>``, started; the log holds what came after the
    start. Returns the room, its game, the stand-ins and their write log."""
    game = Skipper({"mode": "multi", **options}, seats)
    room = Room(id="r1", name="r1", game_name="skipper", game=game,
                settings={"turn_seconds": None, "bid_seconds": None, "grace_seconds": 60.0,
                          "on_abandon": "bot", **settings}, store=store or MemoryStore())
    log: WriteLog = []
    conns = [Recorder(f"seat{i}", log) for i in range(seats)]
    for i, conn in enumerate(conns):
        await room.apply(room.table.join(conn, i, reply=False))  # type: ignore[arg-type]
    await room.apply(room.table.start(None))
    log.clear()
    return room, game, conns, log


async def replay_room(server: Server, room_id: str) -> Any:
    """The engine rebuilt from the store's record and log of the room."""
    loaded = await server.store.load(room_id)
    assert loaded is not None
    record = loaded.record
    entries = await server.store.log(room_id)
    return record, entries, replay(get(record["game"]), record["options"], record["seats"],
                                   entries)


class Flaky(MemoryStore):
    """A memory store that refuses its first room creations and seat writes (as a Redis
    store does while Sentinel promotes a replica, or the replica is in its first sync).

    Args:
        creates: How many ``save_room`` calls to refuse (:class:`StoreError`) first.
        seats: How many ``save_state`` calls (a join's seat) to refuse first.
    """

    def __init__(self, creates: int = 1, seats: int = 1) -> None:
        super().__init__()
        self.creates, self.seats = creates, seats

    async def save_room(self, room_id: str, record: dict[str, Any], state: dict[str, Any],
                        summary: dict[str, Any]) -> Lease:
        if self.creates > 0:
            self.creates -= 1
            raise StoreError("store down for a moment (test)")
        return await super().save_room(room_id, record, state, summary)

    async def save_state(self, room_id: str, state: dict[str, Any],
                         summary: dict[str, Any], *, lease: Lease | None = None) -> None:
        if self.seats > 0:
            self.seats -= 1
            raise StoreError("store down for a moment (test)")
        await super().save_state(room_id, state, summary, lease=lease)


class Hiccup:
    """The server's handler of one kind of request (``kind``: its message class, e.g.
    ``p.Spectate``) replaced (in ``session.HANDLERS``, through ``monkeypatch``) by one that
    fails the first such request of a session not in :attr:`before`, as a room moving
    between servers does: refused with ``server/unavailable``, or, with ``unanswered``,
    never answered (the room's stalled server, whose room another server took over); the
    others are handled as always. A test fills :attr:`before` with the sessions open before
    its reconnection.

    Attributes:
        before: Session ids whose requests are never failed (none is while it is empty).
        hits: How many requests were failed (0 or 1).
    """

    def __init__(self, monkeypatch: Any, kind: type,
                 unanswered: bool = False) -> None:
        self.before: set[str] = set()
        self.hits = 0
        handle = session.HANDLERS[kind]

        async def failing_once(conn: Any, msg: Any) -> None:
            if self.hits == 0 and self.before and conn.session_id not in self.before:
                self.hits += 1
                if unanswered:
                    return
                raise RoomError("server/unavailable", "the room is moving (test)")
            await handle(conn, msg)

        monkeypatch.setitem(session.HANDLERS, kind, failing_once)
