"""The bench's load generator: lean clients that speak the protocol directly (msgpack over
``websockets``), one asyncio loop, many connections, in tables of four.

A Cardhall :class:`Table` plays real Skipper ``multi`` rooms: the first connection creates
the room, all four join (the room starts when full), and a seat acts as soon as an update
tells it that it may (a non-empty ``legal_actions``), with a random legal action other than
``resign``. When the game ends the table opens a new room. An :class:`EchoTable` passes one
frame round its four connections on the echo baseline. Each table has one request in flight
at a time; :class:`Load` paces them (``rate`` actions/s over all tables, or a closed loop),
pauses and resumes them, and collects the current :class:`Stats`.
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
import random
import time
from collections.abc import AsyncIterable, Awaitable, Callable
from typing import Any, cast

import msgpack
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from .config import BenchConfig
from .procs import rss_bytes
from .servers import MAX_FRAME

#: Rooms a load generator creates at the same time (see :class:`Load`).
CREATE_PARALLEL = 10

_pack = msgpack.Packer(use_bin_type=True).pack


def _unpack(frame: bytes) -> Any:
    return msgpack.unpackb(frame, raw=False, strict_map_key=False)


@dataclasses.dataclass
class Stats:
    """Counters of one measured phase (the generator writes into the current one)."""

    rtts: list[float] = dataclasses.field(default_factory=list)  # to the socket read
    rtts_task: list[float] = dataclasses.field(default_factory=list)  # to the reader task
    actions: int = 0          # accepted (``ok``, or an update carrying the act's id), or echoes
    refused: int = 0          # ``error`` replies to ``act``
    update_frames: int = 0    # ``update`` frames received (or echoes)
    update_sizes: list[int] = dataclasses.field(default_factory=list)
    frames_in: int = 0        # every frame received
    bytes_in: int = 0         # their bytes
    games: int = 0            # games finished

    def merge(self, other: Stats) -> None:
        """Add ``other``'s counters and samples to these."""
        for f in dataclasses.fields(self):
            mine = getattr(self, f.name)
            if isinstance(mine, list):
                mine.extend(getattr(other, f.name))
            else:
                setattr(self, f.name, mine + getattr(other, f.name))

    def rtts_us(self) -> list[float]:
        """The round trips to the socket read, in µs, sorted."""
        return sorted(r * 1e6 for r in self.rtts)

    def figures(self, seconds: float) -> dict[str, Any]:
        """The phase's figures over ``seconds``."""
        us = self.rtts_us()
        task = sorted(r * 1e6 for r in self.rtts_task)
        sizes = sorted(self.update_sizes)
        return {
            "seconds": round(seconds, 3),
            "actions": self.actions,
            "refused": self.refused,
            "games": self.games,
            "rtt_p50_us": percentile(us, 0.50),
            "rtt_p99_us": percentile(us, 0.99),
            "rtt_max_us": us[-1] if us else None,
            "rtt_samples": len(us),
            "rtt_task_p50_us": percentile(task, 0.50),
            "rtt_task_p99_us": percentile(task, 0.99),
            "actions_per_s": self.actions / seconds if seconds else 0.0,
            "update_frames_per_s": self.update_frames / seconds if seconds else 0.0,
            "update_bytes_p50": percentile(sizes, 0.50),
            "update_bytes_p99": percentile(sizes, 0.99),
            "bytes_per_action": self.bytes_in / self.actions if self.actions else None,
            "frames_per_action": self.frames_in / self.actions if self.actions else None,
        }


def percentile(values: list[float] | list[int], q: float) -> float | None:
    """The ``q`` quantile of sorted ``values`` (nearest rank), None when empty."""
    if not values:
        return None
    return float(values[min(len(values) - 1, int(len(values) * q))])


# -- the load generator: Cardhall tables ---------------------------------------------------


class Load:
    """Shared state of the generator: the current :class:`Stats`, pacing, stop flag."""

    def __init__(self, rooms: int, seed: int) -> None:
        self.rooms = rooms
        self.stats = Stats()
        self.interval = 0.0      # seconds between two actions of one table (0: closed loop)
        self.running = True
        self.rng = random.Random(seed)
        self.errors: list[str] = []
        #: Rooms being created at once. A burst of 100 create+join at the same instant
        #: exhausts the Redis store's connection pool (redis-py's default of 100); real
        #: tables do not all open in the same millisecond.
        self.creating = asyncio.Semaphore(CREATE_PARALLEL)
        #: Set while the tables may act (:meth:`pause`, :meth:`resume`).
        self.go = asyncio.Event()
        self.go.set()
        self.tables: list[Table | EchoTable] = []

    def pause(self) -> None:
        """Stop the tables: a request in flight is answered, and no table sends another
        until :meth:`resume` (:meth:`ready`)."""
        self.go.clear()

    def resume(self) -> None:
        """Let the tables act again, each at a random phase of its interval (all at once,
        every overdue table would act in the same instant)."""
        now = time.perf_counter()
        for table in self.tables:
            table.next_at = now + self.rng.uniform(0, self.interval)
        self.go.set()

    async def ready(self, table: Table | EchoTable) -> bool:
        """Wait until ``table`` may send its next request: the load is not paused and, when
        paced, the table's slot (``table.next_at``) has come. A pause that falls during the
        wait for the slot starts the wait over (no request leaves a paused load). Returns
        False when the load stopped meanwhile."""
        while True:
            if not self.go.is_set():
                await self.go.wait()
            if not self.running:
                return False
            delay = table.next_at - time.perf_counter() if self.interval else 0.0
            if delay > 0:
                await asyncio.sleep(delay)
            if self.go.is_set():
                return self.running

    def pace(self, rate: float) -> None:
        """Pace every table so that all together make ``rate`` actions/s (0: no pause)."""
        self.interval = self.rooms / rate if rate > 0 else 0.0

    def measure(self) -> None:
        """Start a fresh :class:`Stats` (the previous one is returned by :meth:`take`)."""
        self.stats = Stats()

    def take(self) -> Stats:
        """The current stats; later frames go to a throwaway one."""
        stats, self.stats = self.stats, Stats()
        return stats


def next_slot(previous: float, now: float, interval: float) -> float:
    """When a paced table may act next (``time.perf_counter()`` seconds): one ``interval``
    after its previous slot, not after the moment it acted. A table whose reply came late
    keeps its phase; were it to count from ``now``, the tables that all waited out one slow
    moment would act together from then on, and the latency phase would time the bursts the
    generator made. A table more than an interval behind starts again from ``now``."""
    return max(previous + interval, now)


class StampedConnection(ClientConnection):
    """A client connection that notes when bytes last came in from its socket.

    ``received_at`` (``time.perf_counter()`` seconds) is when the data holding the frames
    now being read reached this process, before the load generator got round to the task
    that reads them. With the four seats of a room in one process, the updates the server
    sends the other seats right after the acting seat's would otherwise be parsed in
    between and counted as the server's time. A later chunk moves the stamp on, so it is
    never earlier than the arrival of the frame being read (if anything, late).
    """

    received_at = 0.0

    def data_received(self, data: bytes) -> None:
        """Stamp, then hand ``data`` to websockets."""
        self.received_at = time.perf_counter()
        super().data_received(data)


async def _connect(url: str) -> StampedConnection:
    ws = await connect(url, compression=None, max_size=MAX_FRAME, ping_interval=None,
                       open_timeout=30, close_timeout=2, create_connection=StampedConnection)
    assert isinstance(ws, StampedConnection)
    return ws


class Seat:
    """One client connection of a Cardhall table."""

    __slots__ = (
        "act_ids",
        "acted_on",
        "legal",
        "next_id",
        "pending",
        "sent_sid",
        "t_sent",
        "table",
        "task",
        "ws",
    )

    def __init__(self, table: Table, ws: StampedConnection) -> None:
        self.table = table
        self.ws = ws
        self.legal: list[Any] = []
        self.acted_on = -1          # state_id of the view the last act was chosen from
        self.sent_sid = -1
        self.t_sent = 0.0
        self.next_id = 1
        self.pending: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self.act_ids: set[int] = set()
        self.task: asyncio.Task[None] | None = None

    async def request(self, msg: dict[str, Any]) -> dict[str, Any]:
        """Send ``msg`` with a fresh id and wait for its reply (setup requests only)."""
        rid = self.next_id
        self.next_id += 1
        fut: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self.pending[rid] = fut
        await self.ws.send(_pack({**msg, "id": rid}))
        async with asyncio.timeout(30):
            reply = await fut
        if reply.get("t") == "error":
            raise RuntimeError(f"{msg['t']} refused: {reply.get('code')}: {reply.get('message')}")
        return reply

    async def read(self) -> None:
        """Read every frame; act when an update says this seat may."""
        table, load = self.table, self.table.load
        try:
            # cast once, not per frame: the server sends binary frames only (bytes)
            async for frame in cast("AsyncIterable[bytes]", self.ws):
                now = time.perf_counter()
                stats = load.stats
                n = len(frame)
                stats.frames_in += 1
                stats.bytes_in += n
                msg = _unpack(frame)
                t = msg.get("t")
                if t == "update":
                    if msg.get("room") != table.room:
                        continue
                    stats.update_frames += 1
                    stats.update_sizes.append(n)
                    re = msg.get("re")
                    if re is not None and re in self.act_ids:  # version 2: the act's reply
                        stats.actions += 1
                        self.act_ids.discard(re)
                    body = msg["view"] if "view" in msg else msg.get("delta") or {}
                    if "legal_actions" in body:
                        self.legal = body["legal_actions"]
                    sid = msg["state_id"]
                    if self.t_sent and sid > self.sent_sid:
                        stats.rtts.append(self.ws.received_at - self.t_sent)
                        stats.rtts_task.append(now - self.t_sent)
                        self.t_sent = 0.0
                    if self.legal and sid > self.acted_on and load.running and table.playing:
                        await self.act(sid)
                elif t == "ok":
                    stats.actions += 1
                    self.act_ids.discard(msg.get("re", -1))
                elif t == "error" and msg.get("re") in self.act_ids:
                    self.act_ids.discard(msg["re"])
                    stats.refused += 1
                    self.t_sent = 0.0
                    self.acted_on = -1
                    if load.running and table.playing:  # resynchronise: the full view
                        await self.ws.send(_pack({"t": "get_view", "room": table.room}))
                elif t == "game_over":
                    if msg.get("room") == table.room:
                        table.game_over(self)
                else:
                    fut = self.pending.pop(msg.get("re", -1), None)
                    if fut is not None and not fut.done():
                        fut.set_result(msg)
        except ConnectionClosed as exc:
            if load.running:
                load.errors.append(f"connection closed: {exc}")

    async def act(self, sid: int) -> None:
        """Send a random legal action chosen from the view at ``sid`` (after the table's
        pause, in the paced phase)."""
        table, load = self.table, self.table.load
        self.acted_on = sid
        if not await load.ready(table) or not table.playing:
            return
        choices = [a for a in self.legal if a[0] != "resign"] or self.legal
        action = load.rng.choice(choices)
        rid = self.next_id
        self.next_id += 1
        self.act_ids.add(rid)
        frame = _pack({"t": "act", "id": rid, "room": table.room, "state_id": sid,
                       "action": action})
        self.sent_sid = sid
        self.t_sent = now = time.perf_counter()
        table.next_at = next_slot(table.next_at, now, load.interval)
        await self.ws.send(frame)


class Table:
    """Four connections playing Skipper ``multi`` rooms one after another."""

    def __init__(self, load: Load, seats: list[StampedConnection]) -> None:
        self.load = load
        self.seats = [Seat(self, ws) for ws in seats]
        self.room = ""
        self.playing = False
        self.next_at = 0.0
        self._new: asyncio.Task[None] | None = None
        load.tables.append(self)
        for s in self.seats:
            s.task = asyncio.get_running_loop().create_task(s.read())

    async def start(self) -> None:
        """Begin playing: the first room (:meth:`new_room`)."""
        await self.new_room()

    async def new_room(self) -> None:
        """Create a room, seat all four connections (the room starts when full)."""
        self.playing = False
        for s in self.seats:
            s.legal, s.acted_on, s.t_sent = [], -1, 0.0
        async with self.load.creating:
            await self._open()

    async def _open(self) -> None:
        host = self.seats[0]
        created = await host.request({"t": "create_room", "game": "skipper", "mode": "multi",
                                      "seats": 4, "options": {}, "private": False})
        self.room = created["room"]
        self.next_at = time.perf_counter() + self.load.rng.uniform(0, self.load.interval)
        self.playing = True
        for s in self.seats:
            await s.request({"t": "join", "room": self.room})

    def game_over(self, seat: Seat) -> None:
        """This seat's game ended: count it and start the table's next room."""
        if seat is not self.seats[0]:
            return
        self.load.stats.games += 1
        self.playing = False
        if self.load.running:
            self._new = asyncio.get_running_loop().create_task(self._renew())

    async def _renew(self) -> None:
        for _ in range(5):
            try:
                await self.new_room()
                return
            except (RuntimeError, TimeoutError) as exc:
                if not self.load.running:
                    return
                self.load.errors.append(f"new room: {exc}")
                await asyncio.sleep(0.2)
            except ConnectionClosed:
                return

    async def close(self) -> None:
        """Close every connection of the table."""
        self.load.running = False
        for s in self.seats:
            await s.ws.close()
        tasks = [s.task for s in self.seats if s.task is not None]
        if self._new is not None:
            tasks.append(self._new)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


async def hello(ws: ClientConnection, name: str = "cardhall-bench", v: int = 1) -> None:
    """Protocol handshake on ``ws`` in protocol version ``v`` (waits for ``welcome``). In
    version 2 an accepted ``act`` is answered by the acting seat's update carrying its id
    (no ``ok``) and deltas carry no ``state_id``; :class:`Seat` reads both versions."""
    await ws.send(_pack({"t": "hello", "v": v, "client": name, "id": 0}))
    async with asyncio.timeout(30):
        reply = _unpack(await ws.recv(decode=False))
    if reply.get("t") != "welcome":
        raise RuntimeError(f"hello refused: {reply}")


async def open_many(url: str, n: int, handshake: Callable[[ClientConnection], Awaitable[None]],
                    parallel: int = 100) -> list[StampedConnection]:
    """Open ``n`` connections to ``url`` (at most ``parallel`` handshakes at once), each
    through ``handshake``."""
    sem = asyncio.Semaphore(parallel)

    async def one() -> StampedConnection:
        async with sem:
            ws = await _connect(url)
            await handshake(ws)
            return ws

    return list(await asyncio.gather(*(one() for _ in range(n))))


# -- the load generator: echo tables ---------------------------------------------------------


class EchoTable:
    """Four connections to the echo server passing one frame round (one in flight)."""

    def __init__(self, load: Load, seats: list[StampedConnection], payload: bytes) -> None:
        self.load = load
        self.ws = seats
        self.payload = payload
        self.t_sent = 0.0
        self.next_at = 0.0
        loop = asyncio.get_running_loop()
        self.tasks = [loop.create_task(self._read(k)) for k in range(len(seats))]
        load.tables.append(self)

    async def start(self) -> None:
        """Send the table's first frame, at a random phase of its interval when paced (the
        connections are open already)."""
        self.next_at = time.perf_counter() + self.load.rng.uniform(0, self.load.interval)
        await self._send(0)

    async def _send(self, k: int) -> None:
        load = self.load
        if not await load.ready(self):
            return
        self.t_sent = now = time.perf_counter()
        self.next_at = next_slot(self.next_at, now, load.interval)
        await self.ws[k].send(self.payload)

    async def _read(self, k: int) -> None:
        load = self.load
        try:
            async for frame in self.ws[k]:
                now = time.perf_counter()
                stats = load.stats
                n = len(frame)
                stats.frames_in += 1
                stats.bytes_in += n
                stats.update_frames += 1
                stats.update_sizes.append(n)
                stats.actions += 1
                stats.rtts.append(self.ws[k].received_at - self.t_sent)
                stats.rtts_task.append(now - self.t_sent)
                if load.running:
                    await self._send((k + 1) % len(self.ws))
        except ConnectionClosed as exc:
            if load.running:
                load.errors.append(f"echo connection closed: {exc}")

    async def close(self) -> None:
        """Close every connection of the table."""
        for ws in self.ws:
            await ws.close()
        for t in self.tasks:
            t.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)


async def echo_hello(ws: ClientConnection) -> None:
    """The echo server's "handshake": one frame of a hello's size, echoed."""
    frame = _pack({"t": "hello", "v": 1, "client": "cardhall-bench", "id": 0})
    await ws.send(frame)
    async with asyncio.timeout(30):
        await ws.recv()

# -- tables opened against a server ------------------------------------------------------


async def settle(seconds: float = 0.5) -> None:
    """Wait ``seconds`` for a server to settle (its RSS after connections opened)."""
    await asyncio.sleep(seconds)


async def close_load(load: Load) -> None:
    """Stop the generator and close every table of ``load``."""
    load.running = False
    load.go.set()
    await asyncio.gather(*(t.close() for t in load.tables), return_exceptions=True)


async def open_tables(url: str, pid: int | None, cfg: BenchConfig,
                      handshake: Callable[[ClientConnection], Awaitable[None]],
                      table: Callable[[Load, list[StampedConnection]], Table | EchoTable],
                      out: dict[str, Any]) -> Load:
    """Connect ``4 * cfg.rooms`` clients to ``url`` (each through ``handshake``), make a
    ``table`` of every four and start them playing at ``cfg.rate``; ``out`` gets
    ``rss_before`` and ``rss_connected`` (server RSS in bytes, None without ``pid``).

    Raises:
        What ``handshake``, a table's start or a connection raises. Once the tables are
        made, a failure closes them all.
    """
    load = Load(cfg.rooms, cfg.seed)
    out["rss_before"] = rss_bytes(pid) if pid else None
    conns = await open_many(url, 4 * cfg.rooms, handshake)
    await settle()
    out["rss_connected"] = rss_bytes(pid) if pid else None
    tables = [table(load, conns[4 * i:4 * i + 4]) for i in range(cfg.rooms)]
    load.pace(cfg.rate)
    try:
        await asyncio.gather(*(t.start() for t in tables))
    except BaseException:
        await close_load(load)
        raise
    return load


async def open_cardhall(url: str, pid: int | None, cfg: BenchConfig) -> tuple[Load, dict[str, Any]]:
    """Connect ``4 * cfg.rooms`` players to the Cardhall server at ``url`` and seat them in
    rooms, playing at ``cfg.rate``, speaking protocol version ``cfg.protocol``.

    Returns:
        The load, and ``{"rooms", "protocol", "rss_before", "rss_connected"}`` (RSS in bytes, None
        without ``pid``), for the bench to complete with the figures of the play.

    Raises:
        RuntimeError: the server refused a room or a join; TimeoutError: it did not answer
            in 30 s; OSError, websockets' errors: a connection failed. Once the tables
            are made, a failure closes them all.
    """
    out: dict[str, Any] = {"rooms": cfg.rooms, "protocol": cfg.protocol}

    async def handshake(ws: ClientConnection) -> None:
        await hello(ws, v=cfg.protocol)

    return await open_tables(url, pid, cfg, handshake, Table, out), out


async def open_echo(url: str, pid: int, cfg: BenchConfig, size: int) -> tuple[Load, dict[str, Any]]:
    """The echo baseline's counterpart of :func:`open_cardhall`: frames of ``size`` bytes
    (returns the same shapes; ``out`` also has ``frame_bytes``).

    Raises:
        TimeoutError, OSError, websockets' errors: a connection failed. Once the tables
            are made, a failure closes them all.
    """
    out: dict[str, Any] = {"rooms": cfg.rooms, "frame_bytes": size}
    payload = os.urandom(size)
    load = await open_tables(url, pid, cfg, echo_hello,
                             lambda load, conns: EchoTable(load, conns, payload), out)
    return load, out

