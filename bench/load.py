"""``cardhall bench``: latency, throughput and memory of a live server, against raw websockets.

The servers under test run in their own processes (``python -m cardhall.bench.load serve``
for Cardhall, ``... echo`` for the baseline), on 127.0.0.1 and free ports, with the event loop
``cardhall serve`` uses (uvloop when installed) and the same websockets settings (no
compression, the same ``max_size`` and keepalive). This process is the load generator: lean
clients that speak the protocol directly (msgpack over ``websockets``), one asyncio loop, many
connections, bounded time.

Load shape, per target (Cardhall in memory, Cardhall on Redis, the echo baseline):

* ``rooms`` tables of 4 connections. A Cardhall table plays real Skipper ``multi`` rooms: the
  first connection creates the room, all four join (the room starts when full), and a seat
  acts as soon as an update tells it that it may (a non-empty ``legal_actions``), with a
  random legal action other than ``resign`` (a random player resigns so often that games
  would last a few turns and the load would be mostly room setup, not play). When the game
  ends the table opens a new room. An echo table passes
  one frame (of the median Cardhall update size) round its four connections: the seat whose
  turn it is sends it, the server echoes it, the next seat sends. Each table thus has one
  request in flight at a time, on either server.
* latency phase: every table acts at a fixed pace (``rate`` actions/s over all tables), the
  same on both servers; the round trip (``act`` sent -> that seat's next ``update``; the frame
  sent -> its echo) is timed, p50/p99/max.
* throughput phase: closed loop, no pause: accepted actions/s, update frames/s, bytes,
  server CPU seconds per action.
* memory: server RSS with ``4 * rooms`` connections open (hello done) and then with the rooms
  playing; and, in a fresh server, RSS per idle connection with ``idle`` connections open.

Nothing here starts anything on import; :func:`run_bench` runs a whole benchmark and
:func:`render` prints its table.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import json
import os
import random
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import AsyncIterable, Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any, cast

import msgpack
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

#: websockets settings shared by both servers and the clients (the Cardhall defaults).
MAX_FRAME = 64 * 1024
PING_INTERVAL = 20.0
PING_TIMEOUT = 20.0
#: Rooms a load generator creates at the same time (see :class:`Load`).
CREATE_PARALLEL = 10

_pack = msgpack.Packer(use_bin_type=True).pack


def _unpack(frame: bytes) -> Any:
    return msgpack.unpackb(frame, raw=False, strict_map_key=False)


# -- settings and results ----------------------------------------------------------------


@dataclasses.dataclass
class BenchConfig:
    """What ``cardhall bench`` runs (the command-line options).

    Attributes:
        rooms: Active tables (4 connections each) in the latency and throughput phases.
        rate: Actions per second over all tables in the latency phase (paced).
        warmup: Seconds of load before each measured phase.
        latency_seconds: Measured seconds of the latency phase.
        throughput_seconds: Measured seconds of the throughput phase.
        idle: Idle connections opened for the memory measurement (0: skip).
        redis: ``"auto"`` (start a redis-server when one is on PATH), ``"off"``, or a
            ``redis://`` URL of a running Redis.
        url: Bench an already running Cardhall server instead of starting one (CPU and RSS
            then need ``server_pid``; the Redis mode is skipped).
        server_pid: Process id of the server at ``url`` (for CPU and RSS figures).
        seed: Seed of the clients' random choices.
        rounds: Windows each of Cardhall (in memory) and the echo baseline take in turn,
            per phase (see :func:`phase`).
        pin: On Linux with 2 or more CPUs, run the server under test (Cardhall or echo) on
            the first CPU and the load generator on the second, so neither loses time to
            the other in the scheduler's migrations; redis-server stays unpinned.
        sqlite: Also bench Cardhall on the SQLite store (``cardhall serve``'s default),
            its windows in turn with the memory store's and the echo's, and its restart
            (:mod:`.durable`).
        sqlite_commit: ``"auto"`` (the store's default: ``tick`` with ``fsync always``,
            else ``adaptive``), ``"tick"`` (group commit: the appends of one loop tick share
            one transaction), ``"each"`` (every append commits at once) or ``"adaptive"``
            (the first append of a tick commits at once, the others share one commit).
        sqlite_fsync: ``"normal"`` or ``"always"`` (``cardhall serve --fsync``).
        restart_rooms: Rooms in play when the SQLite server is killed and restarted for the
            restart figure (0: skip it).
    """

    rooms: int = 100
    rate: float = 200.0
    warmup: float = 2.0
    latency_seconds: float = 8.0
    throughput_seconds: float = 8.0
    idle: int = 2000
    redis: str = "auto"
    url: str | None = None
    server_pid: int | None = None
    seed: int = 1
    rounds: int = 8
    pin: bool = True
    sqlite: bool = True
    sqlite_commit: str = "auto"
    sqlite_fsync: str = "normal"
    restart_rooms: int = 1000


@dataclasses.dataclass
class Stats:
    """Counters of one measured phase (the generator writes into the current one)."""

    rtts: list[float] = dataclasses.field(default_factory=list)  # to the socket read
    rtts_task: list[float] = dataclasses.field(default_factory=list)  # to the reader task
    actions: int = 0          # accepted (``ok``), or echo round trips
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
            "rtt_p50_us": _pct(us, 0.50),
            "rtt_p99_us": _pct(us, 0.99),
            "rtt_max_us": us[-1] if us else None,
            "rtt_samples": len(us),
            "rtt_task_p50_us": _pct(task, 0.50),
            "rtt_task_p99_us": _pct(task, 0.99),
            "actions_per_s": self.actions / seconds if seconds else 0.0,
            "update_frames_per_s": self.update_frames / seconds if seconds else 0.0,
            "update_bytes_p50": _pct(sizes, 0.50),
            "update_bytes_p99": _pct(sizes, 0.99),
            "bytes_per_action": self.bytes_in / self.actions if self.actions else None,
            "frames_per_action": self.frames_in / self.actions if self.actions else None,
        }


def _pct(values: list[float] | list[int], q: float) -> float | None:
    """The ``q`` quantile of sorted ``values`` (nearest rank), None when empty."""
    if not values:
        return None
    return float(values[min(len(values) - 1, int(len(values) * q))])


# -- process figures (CPU, RSS) ----------------------------------------------------------


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds used so far by process ``pid``."""
    try:
        import psutil  # type: ignore[import-untyped,unused-ignore]
    except ImportError:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    t = psutil.Process(pid).cpu_times()
    return float(t.user + t.system)


def rooms_gauge(port: int) -> float:
    """The ``cardhall_rooms`` gauge of the server on 127.0.0.1:``port`` (its ``/metrics``).

    Raises:
        RuntimeError: the page holds no such gauge.
        OSError: the server does not answer (``urllib.error.URLError`` is one).
    """
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as r:
        for line in r.read().decode().splitlines():
            if line.startswith("cardhall_rooms "):
                return float(line.split()[1])
    raise RuntimeError("no cardhall_rooms gauge in /metrics")


def rss_bytes(pid: int) -> int:
    """Resident set size of process ``pid``, in bytes."""
    try:
        import psutil  # type: ignore[import-untyped,unused-ignore]
    except ImportError:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
        raise RuntimeError(f"no VmRSS for process {pid}") from None
    return int(psutil.Process(pid).memory_info().rss)


def raise_fd_limit(want: int) -> int:
    """Raise this process's open-file soft limit to ``want`` (at most the hard limit);
    children started afterwards inherit it. Returns the soft limit now in force."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = want if hard == resource.RLIM_INFINITY else min(want, hard)
    if soft != resource.RLIM_INFINITY and soft < target:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
        soft = target
    return int(soft)


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


async def hello(ws: ClientConnection, name: str = "cardhall-bench") -> None:
    """Protocol handshake on ``ws`` (waits for ``welcome``)."""
    await ws.send(_pack({"t": "hello", "v": 1, "client": name, "id": 0}))
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


# -- servers in their own processes ------------------------------------------------------


def _ephemeral_low() -> int:
    """The first port of the kernel's ephemeral range (32768 when it cannot be read)."""
    try:
        return int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768


def free_port(span: int = 1) -> int:
    """A TCP port ``p`` such that ``p .. p + span - 1`` are free on 127.0.0.1 right now.

    Drawn at random below the ephemeral range: a port that ``bind(0)`` hands out comes from
    that range, and before a child process binds it an outgoing connection (a Redis replica,
    a Sentinel, a client) may be given it and the child fails with "address already in use".
    """
    low = _ephemeral_low()
    for _ in range(1000):
        port = random.randrange(10000, max(10001, low - span))
        if all(_port_free(port + k) for k in range(span)):
            return port
    with socket.socket() as s:  # a crowded host: fall back to whatever the kernel gives
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _port_free(port: int) -> bool:
    """True when 127.0.0.1:``port`` can be bound now."""
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def _wait_port(port: int, proc: subprocess.Popen[bytes], what: str, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while True:
        if proc.poll() is not None:
            raise RuntimeError(f"{what} exited with code {proc.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            if time.monotonic() > deadline:
                raise RuntimeError(f"{what} did not listen on port {port} in {timeout}s") from None
            time.sleep(0.05)


def cpu_plan(pin: bool) -> tuple[set[int], set[int]] | None:
    """``(server CPUs, generator CPUs)`` when pinning is asked for and possible (Linux,
    at least 2 CPUs this process may use), else None."""
    if not pin or not hasattr(os, "sched_setaffinity"):
        return None
    cpus = sorted(os.sched_getaffinity(0))
    if len(cpus) < 2:
        return None
    return {cpus[0]}, set(cpus[1:2])


@contextlib.contextmanager
def pinned(pin: bool) -> Iterator[set[int] | None]:
    """With ``pin`` and a :func:`cpu_plan`, this process (the load generator) runs on its
    CPU until the block ends; yields the servers' CPUs (None: no pinning)."""
    plan = cpu_plan(pin)
    own_cpus = os.sched_getaffinity(0) if plan else None
    if plan:
        os.sched_setaffinity(0, plan[1])
    try:
        yield plan[0] if plan else None
    finally:
        if own_cpus is not None:
            os.sched_setaffinity(0, own_cpus)


class Child:
    """A server child process on 127.0.0.1 (Cardhall, echo or redis-server).

    Args:
        cpus: CPUs to pin it to (None: wherever the scheduler puts it).
        env: Its environment (None: this process's).
    """

    def __init__(self, what: str, argv: list[str], port: int, log: Path | None,
                 cpus: set[int] | None = None, env: dict[str, str] | None = None) -> None:
        self.what = what
        self.port = port
        self.log = log
        out = open(log, "ab") if log is not None else subprocess.DEVNULL  # noqa: SIM115
        self.proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=out, stderr=out,
                                     env=env)
        if cpus:
            os.sched_setaffinity(self.proc.pid, cpus)
        if log is not None:
            out.close()  # type: ignore[union-attr]
        try:
            _wait_port(port, self.proc, what)
        except BaseException:
            self.stop()
            raise

    @property
    def pid(self) -> int:
        """Process id of the child server (for its CPU and RSS figures)."""
        return self.proc.pid

    @property
    def url(self) -> str:
        """``ws://127.0.0.1:PORT`` of the child server."""
        return f"ws://127.0.0.1:{self.port}"

    def stop(self) -> None:
        """Stop the child server (SIGTERM, then SIGKILL after 10 s)."""
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def start_cardhall(redis_url: str | None, log: Path | None,
                   cpus: set[int] | None = None, env: dict[str, str] | None = None,
                   options: tuple[str, ...] = (), port: int | None = None) -> Child:
    """``python -m cardhall.bench.load serve``: a Cardhall server with the bench's limits
    (pinned to ``cpus`` when given; ``env``: its environment, e.g. a ``PYTHONPATH`` that
    finds another version of the package first, as ``benchmarks/ab.py`` does; ``options``:
    more ``serve`` options, e.g. :func:`sqlite_options`; ``port``: None for a free one)."""
    port = port or free_port()
    argv = [sys.executable, "-m", "cardhall.bench.load", "serve", "--port", str(port),
            *options]
    if redis_url:
        argv += ["--redis-url", redis_url]
    return Child("cardhall server", argv, port, log, cpus, env)


def sqlite_options(data: Path, cfg: BenchConfig) -> tuple[str, ...]:
    """The bench server's options for the SQLite store on ``data`` as ``cfg`` says."""
    return ("--data", str(data), "--commit", cfg.sqlite_commit, "--fsync", cfg.sqlite_fsync)


def start_echo(log: Path | None, cpus: set[int] | None = None) -> Child:
    """``python -m cardhall.bench.load echo``: the raw websockets echo baseline (pinned to
    ``cpus`` when given)."""
    port = free_port()
    return Child("echo server", [sys.executable, "-m", "cardhall.bench.load", "echo",
                                 "--port", str(port)], port, log, cpus)


def start_redis(workdir: Path, cpus: set[int] | None = None) -> Child:
    """A redis-server with append-only persistence (as the test suite runs it), on ``cpus``
    when given (a child inherits this process's CPUs: a pinned load generator passes every
    CPU it started with, or redis would share the generator's)."""
    port = free_port()
    return Child("redis-server", [
        "redis-server", "--port", str(port), "--bind", "127.0.0.1", "--appendonly", "yes",
        "--appendfsync", "everysec", "--save", "", "--dir", str(workdir),
        "--protected-mode", "no"], port, None, cpus)


def bench_settings(port: int) -> Any:
    """Cardhall :class:`Settings` for the bench: the defaults, with the per-client abuse
    limits (message rate, connections per address, rooms per minute) off, since every bench
    client comes from one address at loopback speed, and finished rooms removed after 1 s
    so that they do not pile up in the memory figures. Fields this version of Settings does
    not have are left out."""
    from ..server.config import Settings

    want: dict[str, Any] = {"host": "127.0.0.1", "port": port, "max_frame": MAX_FRAME,
                            "ping_interval": PING_INTERVAL, "ping_timeout": PING_TIMEOUT,
                            "msg_rate": None, "max_connections_per_address": None,
                            "rooms_per_minute": None, "rooms_per_minute_per_address": None,
                            "finished_ttl": 1.0,
                            "max_rooms": 100_000, "compression": False}
    names = {f.name for f in dataclasses.fields(Settings)}
    return Settings(**{k: v for k, v in want.items() if k in names})


def _runner() -> Callable[[Any], Any]:
    """``uvloop.run`` when uvloop is installed (as ``cardhall serve``), else asyncio.run."""
    try:
        import uvloop
    except ImportError:
        return asyncio.run
    run: Callable[[Any], Any] = uvloop.run  # Any when uvloop is not installed (no stubs)
    return run


def _serve_main(args: argparse.Namespace) -> None:
    import logging

    from ..server.app import run

    logging.basicConfig(level=logging.WARNING,
                        format="%(asctime)s %(levelname)s %(name)s %(message)s")
    store: Any = None
    if args.redis_url:
        from ..server.redis_store import RedisStore

        store = RedisStore(args.redis_url)
    elif args.data:
        from ..server.logs import configure
        from ..server.sqlite_store import SQLiteStore

        configure("WARNING")  # key=value lines: bench/durable.py reads ``rooms_restored``
        logging.getLogger("cardhall.cluster").setLevel(logging.INFO)
        store = SQLiteStore(args.data, fsync=args.fsync,
                            commit=None if args.commit == "auto" else args.commit)
    settings = bench_settings(args.port)
    if args.finished_ttl is not None:
        settings = dataclasses.replace(settings, finished_ttl=args.finished_ttl)
    run(settings, store)


def _echo_main(port: int) -> None:
    import signal

    from websockets.asyncio.server import ServerConnection, serve

    from ..server.app import tune_gc
    from ..server.config import Settings

    async def handler(ws: ServerConnection) -> None:
        with contextlib.suppress(ConnectionClosed):
            async for frame in ws:
                await ws.send(frame)

    async def main() -> None:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        async with serve(handler, "127.0.0.1", port, compression=None, max_size=MAX_FRAME,
                         ping_interval=PING_INTERVAL, ping_timeout=PING_TIMEOUT):
            await stop.wait()

    tune_gc(Settings().gc_threshold)  # the same collector settings as the Cardhall server
    _runner()(main())


# -- phases ------------------------------------------------------------------------------


async def _settle(seconds: float = 0.5) -> None:
    await asyncio.sleep(seconds)


@dataclasses.dataclass
class Target:
    """A server under load: its generator state, its process id (None: CPU not measured)
    and, for the Redis mode, the redis-server's process id (its CPU is counted in the same
    windows)."""

    load: Load
    pid: int | None
    redis_pid: int | None = None


@dataclasses.dataclass
class _Totals:
    """What one target's measured windows of a phase add up to (seconds of wall and CPU
    time), and each window's round-trip p50 (µs; None for a window without samples)."""

    stats: Stats = dataclasses.field(default_factory=Stats)
    window_p50s: list[float | None] = dataclasses.field(default_factory=list)
    seconds: float = 0.0
    server_cpu: float = 0.0
    redis_cpu: float = 0.0
    own_cpu: float = 0.0


def _cpu(pid: int | None) -> float:
    return cpu_seconds(pid) if pid else 0.0


async def phase(targets: list[Target], warmup: float, seconds: float, rate: float,
                rounds: int = 1) -> list[dict[str, Any]]:
    """Measure every target for ``seconds`` at ``rate`` actions/s (0: closed loop); returns
    one figures dict per target (:meth:`Stats.figures` plus the CPU shares and CPU seconds
    per action of the server, the load generator and, given one, the redis-server).

    The targets take turns in ``rounds`` windows of ``seconds / rounds`` (A, B, A, B, ...),
    only one under load at a time and each window after ``warmup / rounds`` seconds of load
    on its target alone: the speed of a shared machine drifts over seconds, and taking turns
    spreads that drift over every target alike instead of handing it to whichever ran
    second. Figures are over all of a target's windows together, but for
    ``rtt_p50_us_by_round``: each window's round-trip p50 (µs), in order.
    """
    totals = [_Totals() for _ in targets]
    for t in targets:
        t.load.pace(rate)
        t.load.pause()
    for _ in range(rounds):
        for t, tot in zip(targets, totals):
            t.load.resume()
            await asyncio.sleep(warmup / rounds)
            t.load.measure()
            cpu0, redis0, me0 = _cpu(t.pid), _cpu(t.redis_pid), time.process_time()
            t0 = time.perf_counter()
            await asyncio.sleep(seconds / rounds)
            window = t.load.take()
            tot.window_p50s.append(_pct(window.rtts_us(), 0.50))
            tot.stats.merge(window)
            tot.seconds += time.perf_counter() - t0
            tot.own_cpu += time.process_time() - me0
            tot.server_cpu += _cpu(t.pid) - cpu0
            tot.redis_cpu += _cpu(t.redis_pid) - redis0
            t.load.pause()
    out = []
    for t, tot in zip(targets, totals):
        actions = tot.stats.actions
        figures = tot.stats.figures(tot.seconds)
        figures["rtt_p50_us_by_round"] = tot.window_p50s
        figures["loadgen_cpu_share"] = tot.own_cpu / tot.seconds
        if t.pid:
            figures["server_cpu_share"] = tot.server_cpu / tot.seconds
            figures["server_cpu_s_per_action"] = tot.server_cpu / actions if actions else None
        if t.redis_pid:
            figures["redis_cpu_s_per_action"] = tot.redis_cpu / actions if actions else None
        out.append(figures)
    return out


async def close_load(load: Load) -> None:
    """Stop the generator and close every table of ``load``."""
    load.running = False
    load.go.set()
    await asyncio.gather(*(t.close() for t in load.tables), return_exceptions=True)


async def _open_tables(url: str, pid: int | None, cfg: BenchConfig,
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
    await _settle()
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
    rooms, playing at ``cfg.rate``.

    Returns:
        The load, and ``{"rooms", "rss_before", "rss_connected"}`` (RSS in bytes, None
        without ``pid``) for :func:`_finish` to complete.

    Raises:
        RuntimeError: the server refused a room or a join; TimeoutError: it did not answer
            in 30 s; OSError, websockets' errors: a connection failed. Once the tables
            are made, a failure closes them all.
    """
    out: dict[str, Any] = {"rooms": cfg.rooms}
    return await _open_tables(url, pid, cfg, hello, Table, out), out


async def open_echo(url: str, pid: int, cfg: BenchConfig, size: int) -> tuple[Load, dict[str, Any]]:
    """The echo baseline's counterpart of :func:`open_cardhall`: frames of ``size`` bytes
    (returns the same shapes; ``out`` also has ``frame_bytes``).

    Raises:
        TimeoutError, OSError, websockets' errors: a connection failed. Once the tables
            are made, a failure closes them all.
    """
    out: dict[str, Any] = {"rooms": cfg.rooms, "frame_bytes": size}
    payload = os.urandom(size)
    load = await _open_tables(url, pid, cfg, echo_hello,
                              lambda load, conns: EchoTable(load, conns, payload), out)
    return load, out


def memory_figures(before: int, connected: int, playing: int, rooms: int) -> dict[str, Any]:
    """Server RSS figures (bytes) of a run with ``rooms`` tables of 4 connections: RSS
    ``before`` the connections, once ``connected`` (hello done), and with the rooms
    ``playing``; per connection and per active room."""
    return {"rss_before": before, "rss_connected": connected, "rss_playing": playing,
            "rss_per_connection": (connected - before) / (4 * rooms),
            "rss_per_active_room": (playing - connected) / rooms}


def _finish(out: dict[str, Any], load: Load, pid: int | None) -> None:
    """Add the RSS figures of a server that has been playing, and the generator's errors."""
    if pid and out.get("rss_before") is not None:
        out.update(memory_figures(out["rss_before"], out["rss_connected"], rss_bytes(pid),
                                  load.rooms))
    out["errors"] = load.errors[:10]


async def bench_cardhall(url: str, pid: int | None, cfg: BenchConfig,
                         redis_pid: int | None = None) -> dict[str, Any]:
    """Latency and throughput phases against the Cardhall server at ``url`` alone."""
    load, out = await open_cardhall(url, pid, cfg)
    target = [Target(load, pid, redis_pid)]
    try:
        (out["latency"],) = await phase(target, cfg.warmup, cfg.latency_seconds, cfg.rate)
        (out["throughput"],) = await phase(target, cfg.warmup, cfg.throughput_seconds, 0)
        _finish(out, load, pid)
    finally:
        await close_load(load)
    return out


async def _median_update(load: Load, warmup: float) -> int:
    """The median size (bytes) of the updates ``load``'s rooms receive in the second half of
    ``warmup`` seconds of play (the first half holds the joins' full views)."""
    await asyncio.sleep(warmup / 2)
    load.measure()
    await asyncio.sleep(warmup / 2)
    return int(_pct(sorted(load.take().update_sizes), 0.5) or 200)


async def bench_versions(paths: list[Path], cfg: BenchConfig,
                         redis_dir: Path | None = None) -> list[dict[str, Any]]:
    """Cardhall servers of other versions of the package against each other and the echo
    baseline (``benchmarks/ab.py``): one server per entry of ``paths`` (a ``PYTHONPATH``
    entry holding a ``cardhall`` package) and the echo, all on the server CPU, the latency
    phase run over them in turns (:func:`phase`; ``cfg.rounds`` windows each). Returns the
    phase's figures per server, in order, then the echo's (its frames the size of the first
    server's median update). With ``redis_dir``, each server keeps its rooms in a
    redis-server of its own (:func:`start_redis`, its folder under ``redis_dir``, left
    unpinned), whose CPU per action is counted too."""
    plan = cpu_plan(cfg.pin)
    server_cpus = plan[0] if plan else None
    own_cpus = os.sched_getaffinity(0) if plan else None
    if plan:
        os.sched_setaffinity(0, plan[1])
    loads: list[Load] = []
    try:
        with _children() as kids:
            servers, redis_pids = [], []
            for i, path in enumerate(paths):
                env = {**os.environ, "PYTHONPATH": os.pathsep.join(
                    [str(path), *filter(None, [os.environ.get("PYTHONPATH")])])}
                url = None
                if redis_dir is not None:
                    (redis_dir / str(i)).mkdir(parents=True, exist_ok=True)
                    redis = start_redis(redis_dir / str(i), own_cpus)
                    kids.append(redis)
                    url = f"redis://127.0.0.1:{redis.port}/0"
                redis_pids.append(kids[-1].pid if url else None)
                servers.append(start_cardhall(url, None, server_cpus, env))
                kids.append(servers[-1])
            servers.append(start_echo(None, server_cpus))
            kids.append(servers[-1])
            for kid in servers[:-1]:
                loads.append((await open_cardhall(kid.url, kid.pid, cfg))[0])
            size = await _median_update(loads[0], cfg.warmup)
            loads.append((await open_echo(servers[-1].url, servers[-1].pid, cfg, size))[0])
            targets = [Target(load, kid.pid, rpid)
                       for load, kid, rpid in zip(loads, servers, [*redis_pids, None])]
            try:
                return await phase(targets, cfg.warmup, cfg.latency_seconds, cfg.rate,
                                   cfg.rounds)
            finally:
                for load in loads:
                    await close_load(load)
    finally:
        if own_cpus is not None:
            os.sched_setaffinity(0, own_cpus)


async def bench_variants(variants: list[tuple[str, tuple[str, ...]]], cfg: BenchConfig,
                         logdir: Path) -> dict[str, dict[str, Any]]:
    """Cardhall servers of this version started with different ``serve`` options (e.g. the
    memory store and the SQLite store's commit policies: ``benchmarks/sqlite_commit.py``),
    all on the server CPU, the latency phase then the throughput phase run over them in
    turns (:func:`phase`; ``cfg.rounds`` windows each).

    Args:
        variants: ``(name, options)`` per server (options: as for :func:`start_cardhall`).
        logdir: Folder of the servers' logs.

    Returns:
        Per name: ``{"latency": figures, "throughput": figures}``.
    """
    loads: list[Load] = []
    with pinned(cfg.pin) as server_cpus, _children() as kids:
        for name, options in variants:
            kids.append(start_cardhall(None, logdir / f"{name}.log", server_cpus,
                                       options=options))
        try:
            for kid in kids:
                loads.append((await open_cardhall(kid.url, kid.pid, cfg))[0])
            targets = [Target(load, kid.pid) for load, kid in zip(loads, kids)]
            out: dict[str, dict[str, Any]] = {name: {} for name, _ in variants}
            for what, rate, seconds in (("latency", cfg.rate, cfg.latency_seconds),
                                        ("throughput", 0.0, cfg.throughput_seconds)):
                figures = await phase(targets, cfg.warmup, seconds, rate, cfg.rounds)
                for (name, _), f in zip(variants, figures):
                    out[name][what] = f
            return out
        finally:
            for load in loads:
                await close_load(load)


async def bench_against_echo(url: str, pid: int | None, echo: Child, cfg: BenchConfig,
                             more: Child | None = None
                             ) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any] | None]:
    """Cardhall at ``url``, the ``echo`` server and ``more`` (another Cardhall server: the
    SQLite store's, or None), their phases taking turns (see :func:`phase`); returns
    (Cardhall figures, echo figures, ``more``'s figures or None).

    The echo frames are the size of the median Cardhall update of a first warm-up (the
    rooms playing at ``cfg.rate`` for ``cfg.warmup`` seconds, the second half counted).
    """
    load, out = await open_cardhall(url, pid, cfg)
    loads = [load]
    try:
        size = await _median_update(load, cfg.warmup)
        echo_load, echo_out = await open_echo(echo.url, echo.pid, cfg, size)
        loads.append(echo_load)
        targets = [Target(load, pid), Target(echo_load, echo.pid)]
        outs = [out, echo_out]
        if more is not None:
            more_load, more_out = await open_cardhall(more.url, more.pid, cfg)
            loads.append(more_load)
            targets.append(Target(more_load, more.pid))
            outs.append(more_out)
        for name, rate, seconds in (("latency", cfg.rate, cfg.latency_seconds),
                                    ("throughput", 0, cfg.throughput_seconds)):
            figures = await phase(targets, cfg.warmup, seconds, rate, cfg.rounds)
            for o, f in zip(outs, figures):
                o[name] = f
        for o, t in zip(outs, targets):
            _finish(o, t.load, t.pid)
    finally:
        for each in loads:
            await close_load(each)
    return out, echo_out, (outs[2] if more is not None else None)


async def bench_idle(url: str, pid: int, n: int,
                     handshake: Callable[[ClientConnection], Awaitable[None]]) -> dict[str, Any]:
    """RSS per idle connection: ``n`` connections opened (hello done) and held."""
    first = await open_many(url, 1, handshake)  # warm the server's code paths first
    await _settle()
    rss0 = rss_bytes(pid)
    t0 = time.perf_counter()
    conns: list[StampedConnection] = []
    try:
        batch = 500
        while len(conns) < n:
            conns += await open_many(url, min(batch, n - len(conns)), handshake)
        opened = time.perf_counter() - t0
        await _settle(1.0)
        rss1 = rss_bytes(pid)
        alive = sum(ws.close_code is None for ws in conns)
    finally:
        await asyncio.gather(*(ws.close() for ws in conns + first), return_exceptions=True)
    return {"connections": n, "held": alive, "open_seconds": round(opened, 3),
            "rss_before": rss0, "rss_after": rss1, "rss_per_connection": (rss1 - rss0) / n}


@contextlib.contextmanager
def _children() -> Iterator[list[Child]]:
    kids: list[Child] = []
    try:
        yield kids
    finally:
        for k in reversed(kids):
            k.stop()


async def run_bench(cfg: BenchConfig, progress: Callable[[str], None] | None = None,
                    logdir: Path | None = None) -> dict[str, Any]:
    """Run the whole benchmark; returns every figure (see :func:`rows` for the table)."""
    say = progress or (lambda _msg: None)
    raise_fd_limit(max(4096, 2 * cfg.idle + 8 * cfg.rooms + 256))
    tmp = Path(tempfile.mkdtemp(prefix="cardhall-bench-"))
    logs = logdir or tmp
    result: dict[str, Any] = {"config": dataclasses.asdict(cfg), "env": environment()}
    t_start = time.perf_counter()
    plan = cpu_plan(cfg.pin and not cfg.url)
    server_cpus = plan[0] if plan else None
    own_cpus = os.sched_getaffinity(0) if plan else None
    result["env"]["pinned"] = (f"servers on CPU {sorted(plan[0])}, load generator on CPU "
                               f"{sorted(plan[1])}") if plan else "no"
    if plan:
        os.sched_setaffinity(0, plan[1])
    try:
        with _children() as kids:
            # 1. Cardhall (in-memory store) and the echo baseline, taking turns.
            say("echo baseline: starting server")
            kids.append(start_echo(logs / "echo.log", server_cpus))
            echo = kids[-1]
            sqlite: Child | None = None
            if cfg.url:
                url, pid = cfg.url, cfg.server_pid
            else:
                say("cardhall (memory store): starting server")
                kids.append(start_cardhall(None, logs / "cardhall-memory.log", server_cpus))
                url, pid = kids[-1].url, kids[-1].pid
                if cfg.sqlite:
                    say(f"cardhall (sqlite store, commit {cfg.sqlite_commit}, fsync "
                        f"{cfg.sqlite_fsync}): starting server")
                    kids.append(start_cardhall(None, logs / "cardhall-sqlite.log", server_cpus,
                                               options=sqlite_options(tmp / "bench.db", cfg)))
                    sqlite = kids[-1]
            say(f"cardhall (memory store){' and (sqlite store)' if sqlite else ''} and echo: "
                f"{cfg.rooms} rooms each, latency then throughput, {cfg.rounds} rounds "
                "taking turns")
            result["memory"], result["echo"], result["sqlite"] = await bench_against_echo(
                url, pid, echo, cfg, sqlite)
            if sqlite is not None:
                kids.remove(sqlite)
                sqlite.stop()
            if not cfg.url:
                kids.pop().stop()

            # 2. Idle connections on the echo server.
            echo_idle = None
            if cfg.idle:
                say(f"echo baseline: {cfg.idle} idle connections")
                echo_idle = await bench_idle(echo.url, echo.pid, cfg.idle, echo_hello)
            result["echo"]["idle"] = echo_idle
            kids.pop().stop()

            # 3. Cardhall, Redis store.
            redis_url: str | None = None
            redis_pid: int | None = None
            if cfg.url:
                result["redis"] = {"skipped": "--url given: the server's store is its own"}
            elif cfg.redis == "off":
                result["redis"] = {"skipped": "--redis off"}
            elif cfg.redis == "auto":
                if shutil.which("redis-server") is None:
                    result["redis"] = {"skipped": "redis-server is not on PATH "
                                                  "(install it, or give --redis-url)"}
                else:
                    say("cardhall (redis store): starting redis-server (appendonly yes)")
                    (tmp / "redis").mkdir()
                    kids.append(start_redis(tmp / "redis", own_cpus))
                    redis_url = f"redis://127.0.0.1:{kids[-1].port}/0"
                    redis_pid = kids[-1].pid
            else:
                redis_url = cfg.redis
            if redis_url:
                say("cardhall (redis store): starting server")
                kids.append(start_cardhall(redis_url, logs / "cardhall-redis.log", server_cpus))
                srv = kids[-1]
                say(f"cardhall (redis store): {cfg.rooms} rooms, latency then throughput")
                result["redis"] = await bench_cardhall(srv.url, srv.pid, cfg, redis_pid)
                kids.pop().stop()

            # 4. Idle connections on a fresh Cardhall server.
            if cfg.idle:
                if cfg.url:
                    url, pid = cfg.url, cfg.server_pid
                else:
                    kids.append(start_cardhall(None, logs / "cardhall-idle.log", server_cpus))
                    url, pid = kids[-1].url, kids[-1].pid
                if pid:
                    say(f"cardhall: {cfg.idle} idle connections")
                    result["idle"] = await bench_idle(url, pid, cfg.idle, hello)
                if not cfg.url:
                    kids.pop().stop()

            # 5. The SQLite store's file growth and restart time.
            if result.get("sqlite") is not None:
                if cfg.restart_rooms:
                    from .durable import bench_restart

                    result["sqlite"]["restart"] = await bench_restart(cfg, tmp, server_cpus,
                                                                      say)
                else:
                    result["sqlite"]["restart"] = {"skipped": "--restart-rooms 0"}
    finally:
        if own_cpus is not None:
            os.sched_setaffinity(0, own_cpus)
        shutil.rmtree(tmp / "redis", ignore_errors=True)
        if logdir is None:
            shutil.rmtree(tmp, ignore_errors=True)
    result["wall_seconds"] = round(time.perf_counter() - t_start, 1)
    result["rows"] = rows(result)
    return result


def environment() -> dict[str, Any]:
    """Python, websockets and event loop versions, CPU count and machine of this process
    (printed under the bench's table)."""
    import platform
    from importlib.metadata import version

    try:
        import uvloop  # noqa: F401 - installed and importable

        loop = f"uvloop {version('uvloop')}"
    except ImportError:
        loop = "asyncio"
    return {"python": platform.python_version(), "websockets": version("websockets"),
            "loop": loop, "cpus": os.cpu_count(), "machine": platform.machine()}


# -- the table ---------------------------------------------------------------------------


def _get(d: dict[str, Any] | None, *path: str) -> Any:
    for k in path:
        if not isinstance(d, dict):
            return None
        d = d.get(k)
    return d


def rows(r: dict[str, Any]) -> list[dict[str, Any]]:
    """One row per figure: ``figure, unit, cardhall, echo, ratio, target, pass``.

    ``target`` is the issue's target written out; ``pass`` is True/False, or None when the
    row has no target or a figure is missing.
    """
    out: list[dict[str, Any]] = []
    mem, echo, red = r.get("memory"), r.get("echo"), r.get("redis")

    def row(figure: str, unit: str, ours: Any, base: Any, target: str = "",
            check: Callable[[float, float | None], bool | None] | None = None) -> None:
        ratio = (ours / base if isinstance(ours, (int, float)) and isinstance(base, (int, float))
                 and base else None)
        ok = None
        if check is not None and isinstance(ours, (int, float)):
            verdict = check(ours, ratio)
            ok = None if verdict is None else bool(verdict)
        out.append({"figure": figure, "unit": unit, "cardhall": ours, "echo": base,
                    "ratio": ratio, "target": target, "pass": ok})

    n = r.get("config", {}).get("rooms")
    rate = r.get("config", {}).get("rate")
    lat = f"{n} rooms, {rate:g} act/s" if rate is not None else ""
    row(f"round trip p50 ({lat})", "us", _get(mem, "latency", "rtt_p50_us"),
        _get(echo, "latency", "rtt_p50_us"), "<= 1.5x echo",
        lambda _v, q: q is not None and q <= 1.5)
    by_round = zip(_get(mem, "latency", "rtt_p50_us_by_round") or [],
                   _get(echo, "latency", "rtt_p50_us_by_round") or [])
    for k, (ours, base) in enumerate(by_round, 1):  # the spread within this run
        row(f"  round {k} of the p50 above", "us", ours, base)
    row(f"round trip p99 ({lat})", "us", _get(mem, "latency", "rtt_p99_us"),
        _get(echo, "latency", "rtt_p99_us"), "<= 2x echo",
        lambda _v, q: q is not None and q <= 2.0)
    row(f"round trip max ({lat})", "us", _get(mem, "latency", "rtt_max_us"),
        _get(echo, "latency", "rtt_max_us"))
    row("round trip p50, to the reader task", "us", _get(mem, "latency", "rtt_task_p50_us"),
        _get(echo, "latency", "rtt_task_p50_us"))
    row("round trip p99, to the reader task", "us", _get(mem, "latency", "rtt_task_p99_us"),
        _get(echo, "latency", "rtt_task_p99_us"))
    row("round trip p50 (closed loop)", "us", _get(mem, "throughput", "rtt_p50_us"),
        _get(echo, "throughput", "rtt_p50_us"))
    row("round trip p99 (closed loop)", "us", _get(mem, "throughput", "rtt_p99_us"),
        _get(echo, "throughput", "rtt_p99_us"))
    row("accepted actions / s", "1/s", _get(mem, "throughput", "actions_per_s"),
        _get(echo, "throughput", "actions_per_s"))
    row("update frames delivered / s", "1/s", _get(mem, "throughput", "update_frames_per_s"),
        _get(echo, "throughput", "update_frames_per_s"), ">= 0.5x echo msgs/s",
        lambda _v, q: q is not None and q >= 0.5)
    row("update frame bytes, median", "B", _get(mem, "throughput", "update_bytes_p50"),
        _get(echo, "throughput", "update_bytes_p50"), "<= 300 B", lambda v, _q: v <= 300)
    row("update frame bytes, p99", "B", _get(mem, "throughput", "update_bytes_p99"),
        _get(echo, "throughput", "update_bytes_p99"))
    row("bytes received per action, all seats", "B", _get(mem, "throughput", "bytes_per_action"),
        _get(echo, "throughput", "bytes_per_action"))
    row("frames received per action, all seats", "", _get(mem, "throughput", "frames_per_action"),
        _get(echo, "throughput", "frames_per_action"))
    row("server CPU per action", "us", _scale(_get(mem, "throughput", "server_cpu_s_per_action")),
        _scale(_get(echo, "throughput", "server_cpu_s_per_action")))
    row("server CPU per action, latency phase", "us",
        _scale(_get(mem, "latency", "server_cpu_s_per_action")),
        _scale(_get(echo, "latency", "server_cpu_s_per_action")))
    row("server CPU share, latency phase", "core", _get(mem, "latency", "server_cpu_share"),
        _get(echo, "latency", "server_cpu_share"))
    row("server CPU share, closed loop", "core", _get(mem, "throughput", "server_cpu_share"),
        _get(echo, "throughput", "server_cpu_share"))
    row("load generator CPU share, closed loop", "core",
        _get(mem, "throughput", "loadgen_cpu_share"), _get(echo, "throughput", "loadgen_cpu_share"))
    row("server RSS per active room", "KiB", _kib(_get(mem, "rss_per_active_room")),
        _kib(_get(echo, "rss_per_active_room")))
    idle, eidle = r.get("idle"), _get(echo, "idle")
    row(f"server RSS per idle connection ({_get(idle, 'connections')} open)", "KiB",
        _kib(_get(idle, "rss_per_connection")), _kib(_get(eidle, "rss_per_connection")),
        "<= 20 KiB", lambda v, _q: v <= 20)
    n_idle = _get(idle, "connections") or 0
    row("idle connections held", "", _get(idle, "held"), _get(eidle, "held"),
        "10000 held (run --idle 10000)",
        lambda v, _q: v >= 10_000 if n_idle >= 10_000 else None)
    sqlite_rows(out, r, lat)
    if red and "skipped" not in red:
        mem_rate = _get(mem, "throughput", "actions_per_s")
        red_rate = _get(red, "throughput", "actions_per_s")
        out.append({"figure": "REDIS accepted actions / s (ratio: to in-memory)", "unit": "1/s",
                    "cardhall": red_rate, "echo": mem_rate,
                    "ratio": red_rate / mem_rate if red_rate and mem_rate else None,
                    "target": ">= 0.6x in-memory",
                    "pass": bool(red_rate and mem_rate and red_rate / mem_rate >= 0.6)})
        row(f"REDIS round trip p50 ({lat})", "us", _get(red, "latency", "rtt_p50_us"),
            _get(echo, "latency", "rtt_p50_us"))
        row(f"REDIS round trip p99 ({lat})", "us", _get(red, "latency", "rtt_p99_us"),
            _get(echo, "latency", "rtt_p99_us"))
        row("REDIS update frames delivered / s", "1/s",
            _get(red, "throughput", "update_frames_per_s"),
            _get(echo, "throughput", "update_frames_per_s"))
        row("REDIS server CPU per action", "us",
            _scale(_get(red, "throughput", "server_cpu_s_per_action")),
            _scale(_get(echo, "throughput", "server_cpu_s_per_action")))
        row("REDIS redis-server CPU per action", "us",
            _scale(_get(red, "throughput", "redis_cpu_s_per_action")), None)
        row("REDIS server RSS per active room", "KiB", _kib(_get(red, "rss_per_active_room")),
            _kib(_get(echo, "rss_per_active_room")))
    elif red:
        out.append({"figure": f"REDIS: skipped ({red['skipped']})", "unit": "", "cardhall": None,
                    "echo": None, "ratio": None, "target": ">= 0.6x in-memory", "pass": None})
    return out


def sqlite_rows(out: list[dict[str, Any]], r: dict[str, Any], lat: str) -> None:
    """Append the SQLITE rows of result ``r`` to ``out``: the SQLite store against the
    memory store of the same run (windows in turns), its file growth and restart time."""
    mem, sq = r.get("memory"), r.get("sqlite")
    if not sq:
        return

    def vs_memory(figure: str, unit: str, key: tuple[str, ...], target: str = "",
                  check: Callable[[float], bool] | None = None, scale: float = 1.0) -> None:
        ours, base = _get(sq, *key), _get(mem, *key)
        ours = ours * scale if isinstance(ours, (int, float)) else ours
        base = base * scale if isinstance(base, (int, float)) else base
        ratio = ours / base if isinstance(ours, (int, float)) and base else None
        out.append({"figure": f"SQLITE {figure} (ratio: to in-memory)", "unit": unit,
                    "cardhall": ours, "echo": base, "ratio": ratio, "target": target,
                    "pass": None if check is None or ratio is None else check(ratio)})

    vs_memory("accepted actions / s", "1/s", ("throughput", "actions_per_s"),
              ">= 0.8x in-memory", lambda q: q >= 0.8)
    vs_memory(f"round trip p50 ({lat})", "us", ("latency", "rtt_p50_us"),
              "<= 1.15x in-memory", lambda q: q <= 1.15)
    vs_memory(f"round trip p99 ({lat})", "us", ("latency", "rtt_p99_us"))
    vs_memory("round trip p50 (closed loop)", "us", ("throughput", "rtt_p50_us"))
    vs_memory("server CPU per action", "us", ("throughput", "server_cpu_s_per_action"),
              scale=1e6)
    restart = sq.get("restart") or {}
    if restart.get("skipped"):
        out.append({"figure": f"SQLITE restart: skipped ({restart['skipped']})", "unit": "",
                    "cardhall": None, "echo": None, "ratio": None, "target": "", "pass": None})
        return
    if restart:
        growth = restart.get("bytes_per_1000_actions")
        out.append({"figure": "SQLITE data file growth per 1,000 actions", "unit": "B",
                    "cardhall": growth, "echo": None, "ratio": None, "target": "",
                    "pass": None})
        rooms, seconds = restart.get("rooms_restored"), restart.get("to_listening_s")
        depth = restart.get("entries_per_room")
        out.append({"figure": f"SQLITE restart after kill -9, {rooms} rooms in play "
                              f"({depth} actions each): serving",
                    "unit": "s", "cardhall": seconds, "echo": None, "ratio": None,
                    "target": "<= 2 s", "pass": None if seconds is None else seconds <= 2})
        out.append({"figure": "SQLITE   then every room loaded (in the background)",
                    "unit": "s", "cardhall": restart.get("restore_s"), "echo": None,
                    "ratio": None, "target": "", "pass": None})


def _scale(v: Any) -> Any:
    return v * 1e6 if isinstance(v, (int, float)) else v


def _kib(v: Any) -> Any:
    return v / 1024 if isinstance(v, (int, float)) else v


def _fmt(v: Any) -> str:
    if v is None:
        return "-"
    if isinstance(v, bool):
        return "yes" if v else "NO"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if abs(v) >= 100:
            return f"{v:.0f}"
        if abs(v) >= 10:
            return f"{v:.1f}"
        return f"{v:.2f}"
    return str(v)


def render(result: dict[str, Any]) -> str:
    """The result as one plain-text (Markdown) table, with a line about the run."""
    head = ["figure", "unit", "cardhall", "echo", "ratio", "target", "pass"]
    body = [[x["figure"], x["unit"], _fmt(x["cardhall"]), _fmt(x["echo"]),
             "-" if x["ratio"] is None else f"{x['ratio']:.2f}x", x["target"] or "",
             _fmt(x["pass"]) if x["pass"] is not None else ""] for x in result["rows"]]
    widths = [max(len(r[i]) for r in [head, *body]) for i in range(len(head))]

    def line(cells: list[str]) -> str:
        return "| " + " | ".join(c.ljust(w) if i in (0, 1, 5) else c.rjust(w)
                                 for i, (c, w) in enumerate(zip(cells, widths))) + " |"

    sep = "|" + "|".join(("-" * (w + 2)) if i in (0, 1, 5) else ("-" * (w + 1) + ":")
                         for i, w in enumerate(widths)) + "|"
    env = result.get("env", {})
    notes = [(f"python {env.get('python')}, websockets {env.get('websockets')}, "
              f"{env.get('loop')}, {env.get('cpus')} CPUs, pinned: {env.get('pinned', 'no')}; "
              f"wall {result.get('wall_seconds')} s")]
    for part in ("memory", "redis"):
        errs = _get(result, part, "errors")
        if errs:
            notes.append(f"{part} errors: {errs}")
        refused = _get(result, part, "throughput", "refused")
        if refused:
            notes.append(f"{part}: {refused} actions refused in the closed loop")
    return "\n".join([line(head), sep, *map(line, body), "", *notes])


# -- entry points of the child processes -------------------------------------------------


def main(argv: list[str] | None = None) -> None:
    """``python -m cardhall.bench.load serve|echo``: the bench's server processes."""
    parser = argparse.ArgumentParser(prog="python -m cardhall.bench.load")
    sub = parser.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("serve", help="a Cardhall server with the bench settings")
    s.add_argument("--port", type=int, required=True)
    s.add_argument("--redis-url", default=None)
    s.add_argument("--data", default=None, help="the SQLite store on this file")
    s.add_argument("--commit", choices=("auto", "tick", "each", "adaptive"), default="auto")
    s.add_argument("--fsync", choices=("normal", "always"), default="normal")
    s.add_argument("--finished-ttl", type=float, default=None)
    e = sub.add_parser("echo", help="the raw websockets echo baseline")
    e.add_argument("--port", type=int, required=True)
    args = parser.parse_args(argv)
    if args.cmd == "serve":
        _serve_main(args)
    else:
        _echo_main(args.port)


def run(cfg: BenchConfig, progress: Callable[[str], None] | None = None,
        logdir: Path | None = None) -> dict[str, Any]:
    """:func:`run_bench` in a new event loop (uvloop when installed)."""
    return _runner()(run_bench(cfg, progress, logdir))  # type: ignore[no-any-return]


def run_variants(variants: list[tuple[str, tuple[str, ...]]], cfg: BenchConfig,
                 logdir: Path) -> dict[str, dict[str, Any]]:
    """:func:`bench_variants` in a new event loop (uvloop when installed)."""
    return _runner()(bench_variants(variants, cfg, logdir))  # type: ignore[no-any-return]


def run_versions(paths: list[Path], cfg: BenchConfig,
                 redis_dir: Path | None = None) -> list[dict[str, Any]]:
    """:func:`bench_versions` in a new event loop (uvloop when installed)."""
    return _runner()(bench_versions(paths, cfg, redis_dir))  # type: ignore[no-any-return]


def to_json(result: dict[str, Any]) -> str:
    """One JSON object (every figure; ``rows`` as in the table)."""
    return json.dumps(result, sort_keys=True, default=float)


if __name__ == "__main__":
    main()
