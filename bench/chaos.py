"""``cardhall chaos``: bots play on several server processes while faults are injected; then
every acknowledged action is checked against the stored log (issues #18, #30).

One *drill* per fault kind, each on a fresh ``redis-server`` (append-only, ``appendfsync
always``, so a ``kill -9`` loses nothing Redis acknowledged) and fresh ``cardhall serve``
child processes on 127.0.0.1 and free ports; or, for ``sqlite-kill``, on one ``cardhall
serve`` with its default store (SQLite, its data file in the drill's folder). This process
drives bot clients (:class:`~.recording.RecordingClient`, playing with
:func:`cardhall.client.bots.play_seat`): ``rooms`` tables of ``seats`` bots each play Skipper
``multi`` games back to back, every bot of a table connected to another server first (so
most seats reach their room through a process that does not own it). Fault kinds (:data:`KINDS`):

* ``owner-kill``: ``kill -9`` the server process that owns the most running rooms, restart
  it on the same port a second later; repeated.
* ``redis-kill-3s`` / ``redis-kill-12s``: ``kill -9`` redis-server, restart it on the same
  port and AOF folder 3 s / 12 s later.
* ``redis-stop-10s``: ``SIGSTOP`` redis-server for 10 s, then ``SIGCONT``.
* ``owner-pause``: ``SIGSTOP`` the server process that owns the most running rooms for 15 s
  (five leases: the others take its rooms over), then ``SIGCONT`` (issue #35).
* ``sqlite-kill``: ``kill -9`` the lone server (no Redis: the default SQLite store), restart
  it on the same port and data file a second later; repeated. Every room in play must come
  back from the file, and every bot resume its seat.

Checks, after the games, against each room's log in the store (Redis'
``cardhall:{room:ID}:log``; the SQLite file's ``log`` table, read once the server stopped):

* lost: an action a bot got ``ok`` for (chosen against ``state_id`` S) is not entry S of the
  log (Skipper multi is turn-based: an accepted action is applied at the state it was
  chosen against; protocol spec, "state_id and stale actions").
* doubled: a log entry of a seat that no bot attempt explains (no ``act`` of that seat with
  that action against that state): an action applied twice, or by nobody who asked. Entries
  of a seat a server bot took over are counted under "seats dropped" instead.
* finished: every bot of the game received ``game_over`` in time, and the log replays to a
  finished game whose last ``state_id`` is the log's length.
* seats dropped: a ``seat_event`` ``bot`` or ``forfeit`` (every seat is a bot client that
  never gave up), an ``act`` refused with ``room/not_seated``, an unsolicited ``left``, or
  a bot of an unfinished game that never received the room's last states (cut off from its
  room without a word: ``seats_cut_off``).
* views backwards: a bot received a ``state_id`` (``update``, ``joined``, ``game_over``)
  lower than one it had already seen in that room (a state shown and later undone, or a
  stale copy of the room talking): no frame older than a seat's view is ever delivered.
* views split: two bots of one room applied views whose shared parts differ at one
  ``state_id`` (:mod:`.views`).

Nothing here starts anything on import; :func:`.drills.run` runs drills and
:func:`.drills.render` prints the table. Every wait is bounded; child processes are always
stopped (``finally``).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import signal
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from redis.exceptions import RedisError

from ..server.store.ports import Store
from .procs import Child, free_port, serve_command
from .recording import Attempt, RecordingClient, audit
from .topology import Node
from .views import split_states

#: Fault kinds, in the order ``--kind all`` runs them.
KINDS = ("owner-kill", "redis-kill-3s", "redis-kill-12s", "redis-stop-10s", "owner-pause",
         "sqlite-kill")
#: Per kind: (what is done, seconds until the process is back, faults in a full drill).
FAULTS: dict[str, tuple[str, float, int]] = {
    "owner-kill": ("kill-owner", 1.0, 3),
    "redis-kill-3s": ("kill-redis", 3.0, 2),
    "redis-kill-12s": ("kill-redis", 12.0, 1),
    "redis-stop-10s": ("stop-redis", 10.0, 1),
    "owner-pause": ("pause-owner", 15.0, 1),
    "sqlite-kill": ("kill-lone", 1.0, 3),
}
#: Kinds drilled without Redis: one server on the default store (SQLite).
LONE = frozenset({"sqlite-kill"})
#: Seconds of play before the first fault and between the end of one fault and the next.
SETTLE_SECONDS = 4.0
#: Receives progress messages.
Progress = Callable[[str], None]


@dataclass
class ChaosConfig:
    """What one ``cardhall chaos`` run does.

    Attributes:
        kinds: Fault kinds to drill, each on fresh processes (see :data:`KINDS`).
        rooms: Tables of bots playing at once; each plays games back to back.
        seats: Bots per table (Skipper multi, 2..6).
        servers: ``cardhall serve`` processes (2..3 is the point: bots reach rooms owned
            by another process); a kind of :data:`LONE` runs one.
        faults: Faults per kind (None: the kind's full-drill count in :data:`FAULTS`).
        turn_limit: Skipper ``turn_limit`` (turns per seat) of every game, to bound its length.
        think: Seconds each bot waits before acting (paces the games).
        finish_timeout: Seconds games may take to finish after the last fault.
        seconds: Cap on the whole run, in seconds (kinds not started by then count as
            failed).
        seed: Seed of the bots' choices and of the fault schedule (the servers draw every deal:
            several-seat rooms refuse a seed, protocol 'Fair deals').
        down_after_ms: Replicated-Redis drills (:mod:`.ha_chaos`): Sentinel's
            ``down-after-milliseconds`` and the Cluster's ``cluster-node-timeout``.
        load_seconds: ``cluster-load``: seconds of play on each topology.
    """

    kinds: tuple[str, ...] = KINDS
    rooms: int = 12
    seats: int = 4
    servers: int = 3
    faults: int | None = None
    turn_limit: int = 30
    think: float = 0.02
    finish_timeout: float = 90.0
    seconds: float = 900.0
    seed: int = 1
    down_after_ms: int = 2000
    load_seconds: float = 20.0


@dataclass
class GameRecord:
    """One game a table played.

    Attributes:
        room: Room id.
        seats: Per bot of the table: its seat.
        finished: Per bot: it received ``game_over`` in time.
        state_id: The final ``state_id`` (from a ``game_over``; -1 if none came).
    """

    room: str
    seats: list[int]
    finished: list[bool] = field(default_factory=list)
    state_id: int = -1


# -- processes ----------------------------------------------------------------------------


class Redis(Node):
    """A redis-server on a fixed port with append-only persistence, ``appendfsync always``
    (a ``kill -9`` loses no write Redis answered), restartable on the same port and folder
    (:class:`~.topology.Node`).

    Args:
        workdir: Folder of its AOF files (kept across restarts).
        log: File its output is appended to.
    """

    def __init__(self, workdir: Path, log: Path) -> None:
        super().__init__(workdir, ["--appendonly", "yes", "--appendfsync", "always",
                                   "--save", ""])
        self.log = log

    @property
    def url(self) -> str:
        """``redis://127.0.0.1:PORT/0``."""
        return f"redis://127.0.0.1:{self.port}/0"


class Serve:
    """A ``cardhall serve`` child process on a fixed port, restartable on it (so that the
    bots' URL lists stay valid), with every per-client limit off and finished rooms kept an
    hour (their logs are checked after the drill).

    Args:
        redis: The shared Redis: its URL, or the ``cardhall serve`` options that name it
            (``["--redis-sentinel", "HOST:PORT", ...]``); None: the default store (SQLite),
            its data file in ``data_home`` (the server's ``XDG_DATA_HOME``), kept across
            restarts.
        log: File its output is appended to (across restarts).
        data_home: See ``redis``.
    """

    def __init__(self, redis: str | list[str] | None, log: Path,
                 data_home: Path | None = None) -> None:
        self.redis_args = ([] if redis is None else ["--redis-url", redis]
                           if isinstance(redis, str) else list(redis))
        self.port = free_port()
        self.log = log
        self.data_home = data_home
        self.child: Child | None = None

    @property
    def url(self) -> str:
        """``ws://127.0.0.1:PORT``."""
        return f"ws://127.0.0.1:{self.port}"

    @property
    def pid(self) -> int | None:
        """Process id while running."""
        if self.child is None or self.child.proc.poll() is not None:
            return None
        return self.child.pid

    def start(self) -> None:
        """Start (or restart) it and wait until it listens (at most 30 s).

        Raises:
            RuntimeError: it exited or did not listen in time.
        """
        env = None
        if self.data_home is not None:
            env = {**os.environ, "XDG_DATA_HOME": str(self.data_home)}
            env.pop("CARDHALL_DATA", None)
        self.child = Child("cardhall serve", serve_command(
            self.port, *self.redis_args, "--log-level", "WARNING", "--msg-rate", "0",
            "--max-connections-per-address", "0", "--rooms-per-minute", "0",
            "--rooms-per-minute-per-address", "0",
            "--finished-ttl", "3600"), self.port, self.log, env=env)

    def kill9(self) -> None:
        """SIGKILL, and wait until it is gone."""
        if self.child is not None and self.child.proc.poll() is None:
            self.child.proc.kill()
            self.child.proc.wait(timeout=10)

    def stop(self) -> None:
        """SIGTERM (SIGKILL after 10 s)."""
        if self.child is not None:
            self.child.stop()


@contextlib.contextmanager
def _cleanup(procs: list[Any]) -> Iterator[None]:
    try:
        yield
    finally:
        for proc in reversed(procs):
            with contextlib.suppress(Exception):
                proc.stop()


# -- one drill ----------------------------------------------------------------------------


class Drill:
    """One fault kind on fresh processes: bots play, faults are injected, logs are checked.

    Args:
        kind: One of :data:`KINDS`.
        cfg: The run's configuration.
        deadline: ``time.monotonic()`` value by which everything must be over.
        workdir: Folder for Redis' AOF and the servers' logs.
        say: Progress messages (None: quiet).
    """

    #: The fault kinds this class drills: (what, outage seconds, faults in a full drill).
    fault_table: dict[str, tuple[str, float, int]] = FAULTS

    def __init__(self, kind: str, cfg: ChaosConfig, deadline: float, workdir: Path,
                 say: Progress | None) -> None:
        if kind not in self.fault_table:
            raise ValueError(f"unknown fault kind {kind!r}; one of {', '.join(KINDS)}")
        self.kind = kind
        self.cfg = cfg
        self.deadline = deadline
        self.workdir = workdir
        self.say = say or (lambda _m: None)
        self.redis = Redis(workdir, workdir / "redis.log")
        self.servers: list[Serve] = []
        self.clients: list[Any] = []
        self.games: list[GameRecord] = []
        self.setups_failed = 0
        self.faults_injected = 0
        self.fault_errors: list[str] = []
        self.rng = random.Random(f"{cfg.seed}:{kind}")
        self._admin: Any = None  # a redis.asyncio client while the drill runs

    # The fault schedule ------------------------------------------------------------------

    def schedule(self) -> list[float]:
        """Seconds after the start of play at which each fault begins."""
        _, outage, count = self.fault_table[self.kind]
        count = self.cfg.faults if self.cfg.faults is not None else count
        return [SETTLE_SECONDS + k * (outage + SETTLE_SECONDS) for k in range(count)]

    def play_seconds(self) -> float:
        """Seconds during which tables start new games: until the last fault is over plus
        a settle time."""
        _, outage, _ = self.fault_table[self.kind]
        times = self.schedule()
        return (times[-1] + outage if times else 0.0) + SETTLE_SECONDS

    async def _inject(self, t0: float) -> None:
        what, outage, _ = FAULTS[self.kind]
        for at in self.schedule():
            await asyncio.sleep(max(0.0, t0 + at - time.monotonic()))
            if time.monotonic() > self.deadline:
                return
            try:
                if what in ("kill-owner", "pause-owner"):
                    await self._kill_owner(outage, pause=what == "pause-owner")
                elif what == "kill-lone":
                    await self._kill_lone(outage)
                elif what == "kill-redis":
                    self.say(f"{self.kind}: kill -9 redis-server, {outage:g} s down")
                    await asyncio.to_thread(self.redis.signal, signal.SIGKILL)
                    self.faults_injected += 1
                    try:
                        await asyncio.sleep(outage)
                    finally:
                        await asyncio.to_thread(self.redis.start)
                else:
                    self.say(f"{self.kind}: SIGSTOP redis-server for {outage:g} s")
                    self.redis.signal(signal.SIGSTOP)
                    self.faults_injected += 1
                    try:
                        await asyncio.sleep(outage)
                    finally:
                        self.redis.signal(signal.SIGCONT)
            except (OSError, RuntimeError, ValueError, RedisError) as exc:
                self.fault_errors.append(f"{type(exc).__name__}: {exc}")

    async def _kill_lone(self, down: float) -> None:
        """``kill -9`` the only server (mid-game: every running room is its), restart it on
        the same port and data file ``down`` seconds later."""
        (server,) = self.servers
        running = sum(g.state_id < 0 for g in self.games)
        self.say(f"{self.kind}: kill -9 the lone server pid {server.pid} ({running} running "
                 f"rooms), back in {down:g} s")
        await self._kill_and_restart(server, down)

    async def _kill_and_restart(self, server: Serve, down: float) -> None:
        """``kill -9`` ``server``, and start it again on its port ``down`` seconds later."""
        await asyncio.to_thread(server.kill9)
        self.faults_injected += 1
        await asyncio.sleep(down)
        await asyncio.to_thread(server.start)

    async def _kill_owner(self, down: float, pause: bool = False) -> None:
        from ..server.store.redis_store import key

        pids = {s.pid: s for s in self.servers if s.pid is not None}
        counts = dict.fromkeys(pids, 0)
        running = [g.room for g in self.games if g.state_id < 0]
        for room in running:
            owner = await self._admin.get(key(room, "owner"))
            if owner is not None:
                pid = int(owner.decode().split(":")[1])
                if pid in counts:
                    counts[pid] += 1
        if not counts:
            raise RuntimeError("no server process is running")
        pid = max(counts, key=lambda k: counts[k])
        victim = pids[pid]
        self.say(f"{self.kind}: {'SIGSTOP' if pause else 'kill -9'} server pid {pid} (owner "
                 f"of {counts[pid]} of {len(running)} running rooms), back in {down:g} s")
        if pause:  # the others take its rooms over; woken, it must send nothing stale
            os.kill(pid, signal.SIGSTOP)
            self.faults_injected += 1
            try:
                await asyncio.sleep(down)
            finally:
                os.kill(pid, signal.SIGCONT)
            return
        await self._kill_and_restart(victim, down)

    # Bots ----------------------------------------------------------------------------------

    async def _table(self, t: int, clients: list[Any], stop_new: float) -> None:
        from ..client.bots import play_seat
        from ..client.client import ConnectionLost, ServerError
        from ..games.bots import strategy

        choose = strategy("skipper", "greedy")
        while time.monotonic() < stop_new:
            created = None
            try:
                async with asyncio.timeout(15):
                    created = await clients[0].create_room(
                        "skipper", mode="multi", seats=len(clients),
                        options={"turn_limit": self.cfg.turn_limit})
                    seats = [(await c.join(created.room)).seat for c in clients]
            except (ServerError, ConnectionLost, TimeoutError, OSError):
                # A room whose setup failed (the store was down, say) is not a game: try a
                # new one. Its seats are forgotten so reconnects do not resume them.
                self.setups_failed += 1
                for c in clients:
                    if created is not None:
                        c.seats.pop(created.room, None)
                await asyncio.sleep(0.5)
                continue
            game = GameRecord(created.room, list(seats), [False] * len(clients))
            self.games.append(game)

            async def seat(k: int) -> None:
                res = await play_seat(clients[k], game.room, seats[k], choose,
                                      random.Random(self.rng.random()))
                game.finished[k] = True
                game.state_id = max(game.state_id, res.state_id)

            remaining = self.deadline - time.monotonic()
            end = min(self.deadline, stop_new + self.cfg.finish_timeout)
            try:
                async with asyncio.timeout(max(0.0, min(remaining, end - time.monotonic()))):
                    await asyncio.gather(*(seat(k) for k in range(len(clients))))
            except Exception as exc:  # timeout, a client that gave up, ...: reported
                self.say(f"{self.kind}: table {t} room {game.room} did not finish: "
                         f"{type(exc).__name__} {exc}")
                return
            for c in clients:
                c.seats.pop(game.room, None)  # over: not resumed after a later reconnect

    # The whole drill ---------------------------------------------------------------------

    async def run(self) -> dict[str, Any]:
        """Start the processes, play with faults, check the logs; stop everything.

        Returns:
            The drill's figures (see :func:`.drills.render`).
        """
        t_start = time.monotonic()
        lone = self.kind in LONE
        procs: list[Any] = []
        with _cleanup(procs):
            if lone:
                srv = Serve(None, self.workdir / "serve-0.log", self.workdir)
                procs.append(srv)
                self.servers.append(srv)
                await asyncio.to_thread(srv.start)
            else:
                redis_args = await self._start_redis(procs)
                for k in range(self.cfg.servers):
                    srv = Serve(redis_args, self.workdir / f"serve-{k}.log")
                    procs.append(srv)
                    self.servers.append(srv)
                    await asyncio.to_thread(srv.start)
            try:
                return await self._play_and_check(t_start)
            finally:
                for c in self.clients:
                    with contextlib.suppress(Exception):
                        await c.close()
                if self._admin is not None:
                    with contextlib.suppress(Exception):
                        await self._admin.aclose()

    async def _start_redis(self, procs: list[Any]) -> list[str]:
        """Start the drill's Redis (appended to ``procs``, stopped at the end); returns the
        ``cardhall serve`` options that name it."""
        import redis.asyncio as aioredis

        procs.append(self.redis)
        await asyncio.to_thread(self.redis.start)
        self._admin = aioredis.Redis.from_url(self.redis.url, socket_timeout=2,
                                              socket_connect_timeout=2)
        return ["--redis-url", self.redis.url]

    def _store(self) -> Any:
        """A :class:`~cardhall.server.store.redis_store.RedisStore` reading the drill's Redis."""
        from ..server.store.redis_store import RedisStore

        return RedisStore(self.redis.url)

    async def _play_and_check(self, t_start: float) -> dict[str, Any]:
        urls = [s.url for s in self.servers]
        tables = []
        for t in range(self.cfg.rooms):
            clients = []
            for i in range(self.cfg.seats):
                first = (t + i) % len(urls)
                c = RecordingClient([urls[(first + k) % len(urls)] for k in range(len(urls))],
                               name=f"chaos-{t}-{i}", reconnect_timeout=120.0)
                c.think = self.cfg.think
                await c.connect()
                clients.append(c)
            self.clients += clients
            tables.append(clients)
        t0 = time.monotonic()
        stop_new = min(self.deadline, t0 + self.play_seconds())
        self.say(f"{self.kind}: {self.cfg.rooms} tables x {self.cfg.seats} bots on "
                 f"{len(urls)} servers; faults at {self.schedule()} s")
        faults = asyncio.get_running_loop().create_task(self._inject(t0))
        try:
            await asyncio.gather(*(self._table(t, c, stop_new) for t, c in enumerate(tables)))
        finally:
            # A fault still under way is finished (Redis restarted or continued) first.
            try:
                async with asyncio.timeout(60):
                    await asyncio.shield(faults)
            except TimeoutError:
                faults.cancel()
                await asyncio.gather(faults, return_exceptions=True)
        figures = await self._check()
        figures["wall_s"] = round(time.monotonic() - t_start, 1)
        return figures

    async def _check(self) -> dict[str, Any]:
        """The drill's figures: every game's log checked against what its bots recorded
        (:func:`~.recording.audit`), and what the bots saw (see :func:`.drills.render`)."""
        attempts: dict[str, list[Attempt]] = {}
        for c in self.clients:
            for a in c.attempts:
                attempts.setdefault(a.room, []).append(a)
        dropped_events = [(r, s, e) for c in self.clients for r, s, e in c.seat_events
                          if e in ("bot", "forfeit")]
        bot_seats = {(r, s) for r, s, e in dropped_events if e == "bot"}
        not_seated = sum(a.result == "error:room/not_seated" for c in self.clients
                         for a in c.attempts)
        left = sum(len(c.unsolicited_left) for c in self.clients)
        backwards = [b for c in self.clients for b in c.backwards]
        split = split_states(c.shared for c in self.clients)
        out: dict[str, Any] = {
            "kind": self.kind, "games": len(self.games), "finished": 0, "acked": 0,
            "applied_unacked": 0, "lost": 0, "doubled": 0, "bot_moves": 0,
            "views_backwards": len(backwards), "views_split": len(split),
            "seats_dropped": len({(r, s) for r, s, _ in dropped_events}) + not_seated + left,
            "seats_cut_off": 0, "faults": self.faults_injected,
            "setups_failed": self.setups_failed, "details": []}
        store = await self._log_store()
        try:
            for g in self.games:
                bots = {s for r, s in bot_seats if r == g.room}
                await self._check_game(g, store, attempts.get(g.room, []), bots, out)
        finally:
            await store.close()
        per_room: dict[str, list[tuple[int, int, str]]] = {}
        for r, before, sid, what in backwards:
            per_room.setdefault(r, []).append((before, sid, what))
        for r, seen in per_room.items():
            before, sid, what = seen[0]
            out["details"].append(f"room {r}: {len(seen)} view(s) went backwards, e.g. a bot "
                                  f"saw state {before}, then {what} {sid}")
        for r, sid in split[:20]:
            out["details"].append(f"room {r}: bots saw different views at state {sid}")
        for r, s, e in dropped_events[:20]:
            out["details"].append(f"room {r}: seat_event {e} for seat {s}")
        if not_seated:
            out["details"].append(f"{not_seated} act(s) refused with room/not_seated")
        if left:
            out["details"].append(f"{left} unsolicited left message(s)")
        out["details"] += [f"fault not injected: {e}" for e in self.fault_errors]
        out["finished_pct"] = round(100.0 * out["finished"] / out["games"], 1) \
            if out["games"] else 0.0
        out["ok"] = passed(out)
        return out

    async def _check_game(self, g: GameRecord, store: Store, mine: list[Attempt],
                          bots: set[int], out: dict[str, Any]) -> None:
        """Add game ``g``'s figures to ``out``: its log in ``store`` audited against the
        attempts of its bots (``mine``; ``bots``: its seats a server bot took over), and
        whether the log replays to the end every bot was told of."""
        from ..games import get, replay

        try:
            async with asyncio.timeout(30):
                loaded = await store.load(g.room)
                entries = await store.log(g.room) if loaded is not None else []
        except Exception as exc:  # the drill reports it instead of dying
            out["details"].append(f"room {g.room}: log not readable: {exc}")
            loaded, entries = None, []
        found = audit(g.room, entries, mine, bots)
        for k in ("acked", "applied_unacked", "lost", "doubled", "bot_moves"):
            out[k] += found[k]
        out["details"] += found["details"]
        over, to_act = False, None
        if loaded is not None:
            try:
                game = replay(get(loaded.record["game"]), loaded.record["options"],
                              loaded.record["seats"], entries)
                over = game.over and game.state_id == len(entries) == g.state_id
                to_act = game.to_act()
            except Exception as exc:
                out["details"].append(f"room {g.room}: the log does not replay: {exc}")
        if all(g.finished) and over:
            out["finished"] += 1
            return
        # A bot still connected that never heard of the room's last states was cut off
        # from it without a word: a seat silently dropped.
        behind = [c for c in self.clients if -1 < c.seen.get(g.room, -1) < len(entries)]
        out["seats_dropped"] += len(behind)
        out["seats_cut_off"] += len(behind)
        out["details"].append(
            f"room {g.room}: not finished (game_over per bot {g.finished}, log "
            f"replays to a finished game: {over}, log length {len(entries)}, "
            f"final state_id {g.state_id}, seats to act there {to_act}); "
            f"{self._last_words(g, mine)}")

    async def _log_store(self) -> Store:
        """The store whose logs are checked: the drill's Redis, or (a :data:`LONE` kind)
        the server's SQLite data file, once the server has stopped (it holds the file)."""
        if self.kind not in LONE:
            return self._store()  # type: ignore[no-any-return]
        from ..server.store.sqlite_file import default_path
        from ..server.store.sqlite_store import SQLiteStore

        for server in self.servers:
            await asyncio.to_thread(server.stop)
        old = os.environ.get("XDG_DATA_HOME")
        os.environ["XDG_DATA_HOME"] = str(self.workdir)
        try:
            path = default_path()
        finally:
            if old is None:
                os.environ.pop("XDG_DATA_HOME")
            else:
                os.environ["XDG_DATA_HOME"] = old
        return SQLiteStore(path)

    def _last_words(self, g: GameRecord, mine: list[Attempt]) -> str:
        """What the bots of an unfinished game last saw and sent (for the details)."""
        seen = [f"seat {seat}: {c.seen.get(g.room, -1)} via {c.url}"
                for c in self.clients if g.room in c.seen
                for seat in [c.seats.get(g.room, (None,))[0]]]
        last = max(mine, key=lambda a: a.sent) if mine else None
        codes: dict[str, int] = {}
        for a in mine:
            if a.result != "ok":
                codes[a.result] = codes.get(a.result, 0) + 1
        tail = (f"last act: seat {last.seat} at state {last.state_id} -> {last.result}"
                if last else "no act")
        failed = [code for c in self.clients for r, code in c.resume_failures if r == g.room]
        return (f"highest state seen per bot {seen}; {tail}; refusals {codes}; resumes "
                f"refused {failed}")


def passed(fig: dict[str, Any]) -> bool:
    """The issue's targets for one drill: games were played, 0 lost, 0 doubled, 100% of
    games finished, no seat dropped, no view backwards, no views split, and every planned
    fault injected."""
    return bool(fig["games"] and fig["lost"] == 0 and fig["doubled"] == 0
                and fig["finished"] == fig["games"] and fig["seats_dropped"] == 0
                and fig["views_backwards"] == 0 and fig.get("views_split", 0) == 0
                and fig["faults"] >= 1)
