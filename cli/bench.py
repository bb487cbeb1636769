"""The harnesses that drive servers from outside (:mod:`cardhall.bench`): ``bench`` (latency,
throughput and memory against a raw websockets echo server, and with ``--peers`` against
Colyseus) and ``chaos`` (fault drills: bots play while servers and Redis are killed).
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from .options import WS_URL, redis_url


@click.command()
@click.option("--rooms", type=click.IntRange(1), default=100, show_default=True,
              help="Active Skipper multi rooms (4 connections each) under load.")
@click.option("--rate", type=click.FloatRange(0, min_open=True), default=200.0,
              show_default=True,
              help="Actions/s over all rooms in the latency phase (paced, same on both servers; "
                   "keep it well below the closed-loop actions/s).")
@click.option("--seconds", type=click.FloatRange(0.5), default=8.0, show_default=True,
              help="Measured seconds of each phase (latency, throughput), per server.")
@click.option("--warmup", type=click.FloatRange(0), default=2.0, show_default=True,
              help="Seconds of load before each measured phase (split over its rounds).")
@click.option("--rounds", type=click.IntRange(1), default=8, show_default=True,
              help="Windows that Cardhall (in memory) and the echo baseline take in turn, "
                   "per phase, so that drift in machine speed touches both alike.")
@click.option("--idle", type=click.IntRange(0), default=2000, show_default=True,
              help="Idle connections for the memory figure (0: skip; 10000 checks the target).")
@click.option("--redis", "redis_mode", type=click.Choice(["auto", "off"]), default="auto",
              show_default=True,
              help="auto: start a redis-server (append-only) when one is on PATH.")
@click.option("--redis-url", default=None, metavar="URL", callback=redis_url,
              help="Use this running Redis for the Redis mode instead of starting one.")
@click.option("--sqlite/--no-sqlite", default=True, show_default=True,
              help="Also bench the SQLite store (cardhall serve's default) in turns with the "
                   "memory store, and its file growth and restart time.")
@click.option("--sqlite-commit", type=click.Choice(["auto", "tick", "each", "adaptive"]),
              default="auto", show_default=True,
              help="SQLite store: tick: the appends of one loop tick share one transaction; "
                   "each: every append commits at once; adaptive: the first of a tick at once, "
                   "the others together; auto: the store's choice (tick with --sqlite-fsync "
                   "always, else adaptive).")
@click.option("--sqlite-fsync", type=click.Choice(["normal", "always"]), default="normal",
              show_default=True, help="SQLite store: cardhall serve --fsync.")
@click.option("--restart-rooms", type=click.IntRange(0), default=1000, show_default=True,
              help="Rooms in play when the SQLite server is killed with -9 and restarted "
                   "(0: skip the restart figure).")
@click.option("--protocol", type=click.IntRange(1, 2), default=1, show_default=True,
              help="Protocol version the load generator's clients speak (hello.v): 2 trims "
              "the updates and answers an accepted act with the actor's update, no ok.")
@click.option("--url", default=None, type=WS_URL,
              help="Bench a running Cardhall server (its limits must allow the load).")
@click.option("--server-pid", type=int, default=None,
              help="Process id of the server at --url (for its CPU and RSS figures).")
@click.option("--seed", type=int, default=1, show_default=True)
@click.option("--pin/--no-pin", default=True, show_default=True,
              help="Run the server under test on one CPU and the load generator on another "
                   "(Linux, 2+ CPUs; not with --url).")
@click.option("--peers", "peers_dir", type=click.Path(file_okay=False, exists=True),
              default=None, help="The peers harness folder (loadgen.js): then also run "
              "Cardhall, Colyseus and the protocol floor by turns under its load generator "
              "and print the ratios to Colyseus (benchmarks/README.md, peers.py).")
@click.option("--node-modules", type=click.Path(file_okay=False), default=None,
              help="With --peers: the folder its setup.sh installed node_modules into "
              "(default $PEERS_PREFIX/node, else /tmp/peers/node).")
@click.option("--peer-rounds", type=click.IntRange(1), default=3, show_default=True,
              help="With --peers: rounds of the three servers by turns.")
@click.option("--builds", "both_builds", is_flag=True,
              help="Also the room's action path step by step and the engine alone, in CPU "
              "per action, on both builds side by side (pure Python and the compiled core): "
              "the other build than this one is made first (the compiled one from a "
              "checkout, about two minutes, then kept under build/).")
@click.option("--build-actions", type=click.IntRange(10), default=3000, show_default=True,
              help="With --builds: actions per build and round (3 rounds, by turns).")
@click.option("--floor", "floor_only", is_flag=True,
              help="Only the echo floor (issue #43): CPU per request (one 120 B frame in, "
              "four out, 50 connections, closed loop) of websockets' asyncio server, "
              "Cardhall's driver on websockets' Sans-I/O core, and picows when installed, "
              "by turns (--rounds windows of --seconds each, at most 200,000 requests).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object, no table.")
@click.option("--logdir", type=click.Path(file_okay=False), default=None,
              help="Keep the servers' logs in this folder.")
def bench(rooms: int, rate: float, seconds: float, warmup: float, rounds: int, idle: int,
          redis_mode: str, redis_url: str | None, sqlite: bool, sqlite_commit: str,
          sqlite_fsync: str, restart_rooms: int, protocol: int, url: str | None,
          server_pid: int | None,
          seed: int,
          pin: bool, peers_dir: str | None, node_modules: str | None, peer_rounds: int,
          both_builds: bool, build_actions: int, floor_only: bool, as_json: bool,
          logdir: str | None) -> None:
    """Latency, throughput and memory of a live server, against a raw websockets echo server
    (and with --peers, against Colyseus and Cardhall's protocol floor).

    Starts the servers in their own processes on 127.0.0.1 (memory store, SQLite store,
    Redis store, echo baseline) and drives them from this process; see
    benchmarks/README.md.
    """
    import os

    if floor_only:
        _floor(rounds, seconds, pin, as_json)
        return

    from ..bench.config import BenchConfig
    from ..bench.load import run
    from ..bench.peers import PeersConfig, compare
    from ..bench.peers import render as render_peers
    from ..bench.report import render, to_json
    from ..bench.steps import render as render_steps

    peers = None
    if peers_dir is not None:
        modules = node_modules or str(Path(os.environ.get("PEERS_PREFIX", "/tmp/peers"))
                                      / "node")
        peers = PeersConfig(peers=Path(peers_dir), node_modules=Path(modules),
                            rounds=peer_rounds, rooms=rooms, rate=int(rate),
                            seconds=max(1, round(seconds)), pin=pin)
        try:
            peers.check()
        except ValueError as exc:
            raise click.BadParameter(str(exc), param_hint="--peers") from None

    cfg = BenchConfig(rooms=rooms, rate=rate, warmup=warmup, latency_seconds=seconds,
                      throughput_seconds=seconds, idle=idle, redis=redis_url or redis_mode,
                      url=url, server_pid=server_pid, seed=seed, rounds=rounds, pin=pin,
                      sqlite=sqlite, sqlite_commit=sqlite_commit, sqlite_fsync=sqlite_fsync,
                      restart_rooms=restart_rooms, protocol=protocol)
    if logdir is not None:
        Path(logdir).mkdir(parents=True, exist_ok=True)
    say = None if as_json else lambda m: click.echo(f".. {m}", err=True)
    try:
        result = run(cfg, say, Path(logdir) if logdir else None)
        if peers is not None:
            result["peers"] = compare(peers, say)
        if both_builds:
            result["builds"] = _both_builds(build_actions, seed, say)
    except (OSError, RuntimeError, TimeoutError, subprocess.SubprocessError) as exc:
        raise click.ClickException(f"{type(exc).__name__}: {exc}") from None
    if as_json:
        click.echo(to_json(result))
        return
    click.echo(render(result))
    if peers is not None:
        click.echo("\nThe peers' load generator (loadgen.js), the servers by turns; ratios: "
                   "median of the per-round ratios to Cardhall:\n")
        click.echo(render_peers(result["peers"]))
    if both_builds:
        click.echo("\nThe room's action path step by step, and the engine alone, on both "
                   "builds by turns (python -m cardhall.bench.steps; medians of 3 rounds):\n")
        click.echo(render_steps(result["builds"]))


def _floor(rounds: int, seconds: float, pin: bool, as_json: bool) -> None:
    """``--floor``: :func:`cardhall.bench.floor.compare`, printed."""
    from ..bench import floor

    say = None if as_json else lambda m: click.echo(f".. {m}", err=True)
    try:
        result = floor.compare(rounds=rounds, seconds=seconds, pin=pin, say=say)
    except (OSError, RuntimeError, TimeoutError, subprocess.SubprocessError) as exc:
        raise click.ClickException(f"{type(exc).__name__}: {exc}") from None
    if as_json:
        click.echo(json.dumps(result, indent=2))
        return
    click.echo("The echo floor: server CPU per request, one 120 B binary frame in and four "
               f"out, {result['connections']} connections, closed loop; medians of "
               f"{result['rounds']} windows by turns:\n")
    click.echo(floor.render_echo(result))


def _both_builds(actions: int, seed: int, say: Callable[[str], None] | None
                 ) -> dict[str, list[dict[str, Any]]]:
    """``--builds``: :func:`cardhall.bench.steps.side_by_side` of both builds."""
    import tempfile

    from ..bench import builds, steps

    with tempfile.TemporaryDirectory(prefix="cardhall-builds-") as tmp:
        if say is not None:
            say("both builds: making the other build")
        paths = builds.both(Path(tmp))
        if say is not None:
            say("both builds: the room's action path step by step, by turns")
        return steps.side_by_side(paths, 3, actions, seed=seed)


@click.command()
@click.option("--kind", "kinds", multiple=True, default=("all",), show_default=True,
              type=click.Choice(["all", "owner-kill", "redis-kill-3s", "redis-kill-12s",
                                 "redis-stop-10s", "sqlite-kill", "ha", "sentinel-kill",
                                 "sentinel-partition", "cluster-kill", "cluster-load"]),
              help="Fault kind to drill (repeat; ha: the replicated-Redis kinds; all: every "
                   "kind in turn).")
@click.option("--rooms", type=click.IntRange(1), default=12, show_default=True,
              help="Tables of bots playing Skipper multi games back to back.")
@click.option("--seats", type=click.IntRange(2, 6), default=4, show_default=True,
              help="Bots per table.")
@click.option("--servers", type=click.IntRange(2, 6), default=3, show_default=True,
              help="cardhall serve processes sharing the Redis (sqlite-kill: one, on the "
                   "default store).")
@click.option("--faults", type=click.IntRange(1), default=None,
              help="Faults per kind (default: owner-kill and sqlite-kill 3, redis-kill-3s 2, "
                   "others 1).")
@click.option("--turn-limit", type=click.IntRange(1), default=30, show_default=True,
              help="Skipper turn_limit (turns per seat) of every game.")
@click.option("--think", type=click.FloatRange(0), default=0.02, show_default=True,
              help="Seconds each bot waits before acting.")
@click.option("--finish-timeout", type=click.FloatRange(1), default=90.0, show_default=True,
              help="Seconds the games may take to finish after the last fault.")
@click.option("--seconds", type=click.FloatRange(10), default=900.0, show_default=True,
              help="Cap on the whole run, in seconds.")
@click.option("--seed", type=int, default=1, show_default=True)
@click.option("--down-after-ms", type=click.IntRange(100), default=2000, show_default=True,
              help="Replicated kinds: Sentinel down-after-milliseconds and Cluster "
                   "node timeout.")
@click.option("--load-seconds", type=click.FloatRange(1), default=20.0, show_default=True,
              help="cluster-load: seconds of play on each topology.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object, no table.")
@click.option("--logdir", type=click.Path(file_okay=False), default=None,
              help="Keep Redis' AOF and the servers' logs in this folder.")
def chaos(kinds: tuple[str, ...], rooms: int, seats: int, servers: int, faults: int | None,
          turn_limit: int, think: float, finish_timeout: float, seconds: float, seed: int,
          down_after_ms: int, load_seconds: float, as_json: bool, logdir: str | None) -> None:
    """Fault drills: bots on several servers and a real redis-server (or a Sentinel-watched
    master with replicas, or a Redis Cluster) while owners are killed and Redis nodes are
    killed or paused, and bots on one server with the default SQLite store while it is
    killed with -9 and restarted on its file; every acknowledged action is checked against
    the stored log. Exits 1 when a target (0 lost, 0 doubled, 100% finished, no seat
    dropped, no view backwards) is missed. See docs/operations.md, "Chaos drills"."""
    import shutil

    from ..bench.chaos import KINDS, LONE, ChaosConfig
    from ..bench.drills import render, run
    from ..bench.ha_chaos import HA_KINDS

    groups = {"all": KINDS + HA_KINDS, "ha": HA_KINDS}
    picked = tuple(dict.fromkeys(k for kind in kinds for k in groups.get(kind, (kind,))))
    # A Sentinel runs as redis-sentinel, or as redis-server --sentinel where that program
    # is missing (bench.procs.sentinel_command): redis-server is enough.
    for tool in ("redis-server", "redis-cli"):
        if shutil.which(tool) is None and ((tool == "redis-server" and set(picked) - LONE)
                                           or set(picked) & set(HA_KINDS)):
            raise click.ClickException(f"{tool} is not on PATH")
    cfg = ChaosConfig(kinds=picked, rooms=rooms, seats=seats, servers=servers, faults=faults,
                      turn_limit=turn_limit, think=think, finish_timeout=finish_timeout,
                      seconds=seconds, seed=seed, down_after_ms=down_after_ms,
                      load_seconds=load_seconds)
    if logdir is not None:
        Path(logdir).mkdir(parents=True, exist_ok=True)
    try:
        result = run(cfg, None if as_json else lambda m: click.echo(f".. {m}", err=True),
                     Path(logdir) if logdir else None)
    except (OSError, RuntimeError) as exc:
        raise click.ClickException(f"{type(exc).__name__}: {exc}") from None
    click.echo(json.dumps(result, sort_keys=True) if as_json else render(result))
    if not result["ok"]:
        sys.exit(1)
