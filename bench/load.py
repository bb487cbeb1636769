"""``cardhall bench``: latency, throughput and memory of a live server, against raw websockets.

The servers under test run in their own processes (``python -m cardhall.bench.servers
serve`` for Cardhall, ``... echo`` for the baseline: :mod:`.servers`), on 127.0.0.1 and free
ports, with the event loop ``cardhall serve`` uses (uvloop when installed) and the same
websockets settings (no compression, the same ``max_size`` and keepalive). This process is the
load generator (:mod:`.loadgen`): lean clients that speak the protocol directly (msgpack over
``websockets``), one asyncio loop, many connections, bounded time.

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
:func:`.report.render` prints its table.
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
import shutil
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from websockets.asyncio.client import ClientConnection

from .config import BenchConfig
from .durable import bench_restart
from .loadgen import (
    Load,
    StampedConnection,
    Stats,
    close_load,
    echo_hello,
    hello,
    open_cardhall,
    open_echo,
    open_many,
    percentile,
    settle,
)
from .procs import Child, children, cpu_plan, cpu_seconds, pinned, raise_fd_limit, rss_bytes
from .procs import start_redis
from .report import rows
from .servers import runner, sqlite_options, start_cardhall, start_echo


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
    one figures dict per target (:meth:`.loadgen.Stats.figures` plus the CPU shares and CPU seconds
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
            tot.window_p50s.append(percentile(window.rtts_us(), 0.50))
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
    return int(percentile(sorted(load.take().update_sizes), 0.5) or 200)


async def bench_versions(paths: list[Path], cfg: BenchConfig,
                         redis_dir: Path | None = None) -> list[dict[str, Any]]:
    """Cardhall servers of other versions of the package against each other and the echo
    baseline (``benchmarks/ab.py``): one server per entry of ``paths`` (a ``PYTHONPATH``
    entry holding a ``cardhall`` package) and the echo, all on the server CPU, the latency
    phase run over them in turns (:func:`phase`; ``cfg.rounds`` windows each). Returns the
    phase's figures per server, in order, then the echo's (its frames the size of the first
    server's median update). With ``redis_dir``, each server keeps its rooms in a
    redis-server of its own (:func:`.procs.start_redis`, its folder under ``redis_dir``, left
    unpinned), whose CPU per action is counted too."""
    plan = cpu_plan(cfg.pin)
    server_cpus = plan[0] if plan else None
    own_cpus = os.sched_getaffinity(0) if plan else None
    if plan:
        os.sched_setaffinity(0, plan[1])
    loads: list[Load] = []
    try:
        with children() as kids:
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
        variants: ``(name, options)`` per server (options: as for :func:`.servers.start_cardhall`).
        logdir: Folder of the servers' logs.

    Returns:
        Per name: ``{"latency": figures, "throughput": figures}``.
    """
    loads: list[Load] = []
    with pinned(cfg.pin) as server_cpus, children() as kids:
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
    await settle()
    rss0 = rss_bytes(pid)
    t0 = time.perf_counter()
    conns: list[StampedConnection] = []
    try:
        batch = 500
        while len(conns) < n:
            conns += await open_many(url, min(batch, n - len(conns)), handshake)
        opened = time.perf_counter() - t0
        await settle(1.0)
        rss1 = rss_bytes(pid)
        alive = sum(ws.close_code is None for ws in conns)
    finally:
        await asyncio.gather(*(ws.close() for ws in conns + first), return_exceptions=True)
    return {"connections": n, "held": alive, "open_seconds": round(opened, 3),
            "rss_before": rss0, "rss_after": rss1, "rss_per_connection": (rss1 - rss0) / n}


@dataclasses.dataclass
class _Run:
    """One ``cardhall bench`` run under way: what its steps share (:func:`run_bench`).

    Attributes:
        kids: The child processes running now (stopped when the run ends).
        result: The figures so far.
        server_cpus: The servers' CPUs (None: not pinned).
        own_cpus: This process's CPUs before it was pinned (None: not pinned).
    """

    cfg: BenchConfig
    say: Callable[[str], None]
    tmp: Path
    logs: Path
    kids: list[Child]
    result: dict[str, Any]
    server_cpus: set[int] | None
    own_cpus: set[int] | None

    async def against_echo(self) -> Child:
        """1. Cardhall (in-memory store, and the SQLite store) and the echo baseline,
        taking turns; returns the echo server, still running."""
        cfg, say, kids = self.cfg, self.say, self.kids
        say("echo baseline: starting server")
        kids.append(start_echo(self.logs / "echo.log", self.server_cpus))
        echo = kids[-1]
        sqlite: Child | None = None
        if cfg.url:
            url, pid = cfg.url, cfg.server_pid
        else:
            say("cardhall (memory store): starting server")
            kids.append(start_cardhall(None, self.logs / "cardhall-memory.log",
                                       self.server_cpus))
            url, pid = kids[-1].url, kids[-1].pid
            if cfg.sqlite:
                say(f"cardhall (sqlite store, commit {cfg.sqlite_commit}, fsync "
                    f"{cfg.sqlite_fsync}): starting server")
                kids.append(start_cardhall(None, self.logs / "cardhall-sqlite.log",
                                           self.server_cpus,
                                           options=sqlite_options(self.tmp / "bench.db", cfg)))
                sqlite = kids[-1]
        say(f"cardhall (memory store){' and (sqlite store)' if sqlite else ''} and echo: "
            f"{cfg.rooms} rooms each, latency then throughput, {cfg.rounds} rounds "
            "taking turns")
        result = self.result
        result["memory"], result["echo"], result["sqlite"] = await bench_against_echo(
            url, pid, echo, cfg, sqlite)
        if sqlite is not None:
            kids.remove(sqlite)
            sqlite.stop()
        if not cfg.url:
            kids.pop().stop()
        return echo

    async def echo_idle(self, echo: Child) -> None:
        """2. Idle connections on the echo server, which is stopped then."""
        echo_idle = None
        if self.cfg.idle:
            self.say(f"echo baseline: {self.cfg.idle} idle connections")
            echo_idle = await bench_idle(echo.url, echo.pid, self.cfg.idle, echo_hello)
        self.result["echo"]["idle"] = echo_idle
        self.kids.pop().stop()

    async def redis(self) -> None:
        """3. Cardhall on the Redis store (a redis-server started, or ``cfg.redis``)."""
        cfg, say, kids, result = self.cfg, self.say, self.kids, self.result
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
                (self.tmp / "redis").mkdir()
                kids.append(start_redis(self.tmp / "redis", self.own_cpus))
                redis_url = f"redis://127.0.0.1:{kids[-1].port}/0"
                redis_pid = kids[-1].pid
        else:
            redis_url = cfg.redis
        if redis_url:
            say("cardhall (redis store): starting server")
            kids.append(start_cardhall(redis_url, self.logs / "cardhall-redis.log",
                                       self.server_cpus))
            srv = kids[-1]
            say(f"cardhall (redis store): {cfg.rooms} rooms, latency then throughput")
            result["redis"] = await bench_cardhall(srv.url, srv.pid, cfg, redis_pid)
            kids.pop().stop()

    async def idle(self) -> None:
        """4. Idle connections on a fresh Cardhall server (or the one at ``cfg.url``)."""
        cfg = self.cfg
        if not cfg.idle:
            return
        if cfg.url:
            url, pid = cfg.url, cfg.server_pid
        else:
            self.kids.append(start_cardhall(None, self.logs / "cardhall-idle.log",
                                            self.server_cpus))
            url, pid = self.kids[-1].url, self.kids[-1].pid
        if pid:
            self.say(f"cardhall: {cfg.idle} idle connections")
            self.result["idle"] = await bench_idle(url, pid, cfg.idle, hello)
        if not cfg.url:
            self.kids.pop().stop()

    async def restart(self) -> None:
        """5. The SQLite store's file growth and restart time (:mod:`.durable`)."""
        if self.result.get("sqlite") is None:
            return
        if self.cfg.restart_rooms:
            self.result["sqlite"]["restart"] = await bench_restart(
                self.cfg, self.tmp, self.server_cpus, self.say)
        else:
            self.result["sqlite"]["restart"] = {"skipped": "--restart-rooms 0"}


async def run_bench(cfg: BenchConfig, progress: Callable[[str], None] | None = None,
                    logdir: Path | None = None) -> dict[str, Any]:
    """Run the whole benchmark; returns every figure (see :func:`.report.rows` for the
    table).

    Raises:
        RuntimeError, OSError: a server did not start (:class:`~.procs.Child`), or what a
            step's load raises (:func:`.loadgen.open_cardhall`).
    """
    say = progress or (lambda _msg: None)
    raise_fd_limit(max(4096, 2 * cfg.idle + 8 * cfg.rooms + 256))
    tmp = Path(tempfile.mkdtemp(prefix="cardhall-bench-"))
    result: dict[str, Any] = {"config": dataclasses.asdict(cfg), "env": environment()}
    t_start = time.perf_counter()
    plan = cpu_plan(cfg.pin and not cfg.url)
    own_cpus = os.sched_getaffinity(0) if plan else None
    result["env"]["pinned"] = (f"servers on CPU {sorted(plan[0])}, load generator on CPU "
                               f"{sorted(plan[1])}") if plan else "no"
    if plan:
        os.sched_setaffinity(0, plan[1])
    try:
        with children() as kids:
            run = _Run(cfg, say, tmp, logdir or tmp, kids, result, plan[0] if plan else None,
                       own_cpus)
            echo = await run.against_echo()
            await run.echo_idle(echo)
            await run.redis()
            await run.idle()
            await run.restart()
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

def run(cfg: BenchConfig, progress: Callable[[str], None] | None = None,
        logdir: Path | None = None) -> dict[str, Any]:
    """:func:`run_bench` in a new event loop (uvloop when installed)."""
    return runner()(run_bench(cfg, progress, logdir))  # type: ignore[no-any-return]


def run_variants(variants: list[tuple[str, tuple[str, ...]]], cfg: BenchConfig,
                 logdir: Path) -> dict[str, dict[str, Any]]:
    """:func:`bench_variants` in a new event loop (uvloop when installed)."""
    return runner()(bench_variants(variants, cfg, logdir))  # type: ignore[no-any-return]


def run_versions(paths: list[Path], cfg: BenchConfig,
                 redis_dir: Path | None = None) -> list[dict[str, Any]]:
    """:func:`bench_versions` in a new event loop (uvloop when installed)."""
    return runner()(bench_versions(paths, cfg, redis_dir))  # type: ignore[no-any-return]

