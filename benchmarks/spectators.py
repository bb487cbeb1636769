"""Spectators: a player's action round trip with 0 and with N spectators on its room.

Usage: python benchmarks/spectators.py [--spectators 1000] [--games 1] [--rounds 3]
                                       [--pace 0.05] [--versions main .]

Starts ``cardhall serve`` as a child process on 127.0.0.1 (a free port, the embedded store,
the per-client limits off: every client comes from one address; ``--versions REV ...``
runs the servers of several git revisions in turns, ``.`` for this checkout, each exported
as ``benchmarks/ab.py`` does, so that every version meets the same drift of a shared
machine). A player creates a
2-seat Skipper multi room, joins it and starts it (a server bot takes the other seat and
plays at once), ``--games`` such rooms; a second child process (this script with
``--swarm``) opens ``--spectators`` connections that each ``spectate`` every one of these
rooms and read every frame they are sent. The player then plays the rooms one after the
other to the end, acting ``--pace`` seconds after each update that lets it, and times each
action: ``act`` sent -> its update received (ms). The same is measured first in rooms
nobody watches, then with the spectators.

Each round starts a fresh server per version. Prints per round and version, then pooled
per version, the round trip's p50, p99 and max (ms) and how long the spectators took to
join (s), then ``PASS`` when this checkout's p99 with spectators is under 50 ms (issue #35),
else ``FAIL``. Exit status 0 on PASS, 1 on FAIL. Figures are this machine's: compare
versions within one run.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import websockets
from cardhall import protocol as p
from cardhall.bench.procs import Child, free_port, serve_command
from cardhall.bench.versions import export
from cardhall.client.bots import timed_actions
from cardhall.client.client import Client
from cardhall.games.bots import strategy

SERVE_OPTIONS = ("--msg-rate", "0", "--max-connections-per-address", "0",
                 "--rooms-per-minute", "0")


async def swarm(url: str, rooms: list[str], n: int, seconds: float) -> None:
    """``n`` spectators of each of ``rooms`` (one connection each) that read every frame for
    ``seconds``; prints ``ready`` once all of them were answered ``joined``."""

    async def one(k: int, ready: asyncio.Event, joined: list[int]) -> None:
        async with websockets.connect(url, compression=None, max_size=None,
                                      open_timeout=60) as ws:
            await ws.send(p.encode(p.Hello(v=p.PROTOCOL_VERSION, client=f"watch{k}")))
            await ws.recv()
            for i, room in enumerate(rooms, 1):
                await ws.send(p.encode(p.Spectate(room=room, id=i)))
                while getattr(p.decode(await ws.recv(), side="server"), "re", None) != i:
                    pass
            joined[0] += 1
            if joined[0] == n:
                ready.set()
            async for _ in ws:  # read and drop every frame
                pass

    ready, joined = asyncio.Event(), [0]
    tasks = []
    for k in range(n):
        tasks.append(asyncio.ensure_future(one(k, ready, joined)))
        if k % 50 == 49:
            await asyncio.sleep(0.05)  # the server's accept backlog
    await asyncio.wait_for(ready.wait(), 120)
    print("ready", flush=True)
    await asyncio.sleep(seconds)
    for t in tasks:
        t.cancel()


async def table(c: Client) -> str:
    """A 2-seat Skipper multi room ``c`` created and sits in (not started yet)."""
    room = (await c.create_room("skipper", mode="multi", seats=2,
                                options={"turn_limit": 10_000})).room
    await c.join(room)
    return room


async def play(c: Client, room: str, pace: float) -> list[float]:
    """Start ``room`` and time ``c``'s actions (ms) until the game is over."""
    await c.start(room)
    while not c.views[room]["legal_actions"]:
        await c.get_view(room)
    rtts = await timed_actions(c, room, strategy("skipper", "greedy"), random.Random(1),
                               100_000, pace)
    return [1000 * t for t in rtts]


async def phase(url: str, games: int, pace: float) -> list[float]:
    """The player's round trips in ms, in ``games`` fresh rooms nobody watches."""
    async with Client(url, name="player") as c:
        return [ms for _ in range(games) for ms in await play(c, await table(c), pace)]


def figures(ms: list[float]) -> str:
    q = statistics.quantiles(ms, n=100) if len(ms) > 1 else ms * 99
    return f"p50 {q[49]:.1f} ms, p99 {q[98]:.1f} ms, max {max(ms):.1f} ms ({len(ms)} actions)"


async def measure(version: str | None, path: Path | None, logdir: Path, spectators: int,
                  games: int, pace: float) -> tuple[list[float], list[float], float]:
    """One round of one server version (None: this checkout; ``path``: its export):
    round trips (ms) alone and watched, and seconds the spectators took to join."""
    port = free_port()
    env = None if path is None else {**os.environ, "PYTHONPATH": str(path)}
    extra = ("--rooms-per-minute-per-address", "0") if path is None else ()
    server = Child("cardhall serve", serve_command(
        port, "--log-level", "WARNING", *SERVE_OPTIONS, *extra, package=path), port,
        logdir / f"serve-{version or 'this'}.log", env=env)
    url = f"ws://127.0.0.1:{port}"
    try:
        alone = await phase(url, games, pace)
        async with Client(url, name="player") as c:
            rooms = [await table(c) for _ in range(games)]
            t0 = time.monotonic()
            watchers = await asyncio.create_subprocess_exec(
                sys.executable, __file__, "--spectators", str(spectators), "--swarm",
                url, ",".join(rooms), "600", stdout=subprocess.PIPE)
            assert watchers.stdout is not None
            try:
                line = await asyncio.wait_for(watchers.stdout.readline(), 180)
                if line.strip() != b"ready":
                    raise RuntimeError("the spectators did not all join")
                joined_s = time.monotonic() - t0
                watched = [ms for room in rooms for ms in await play(c, room, pace)]
            finally:
                watchers.kill()
                await watchers.wait()
    finally:
        server.stop()
    return alone, watched, joined_s


async def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--spectators", type=int, default=1000)
    ap.add_argument("--games", type=int, default=1, help="games played per phase")
    ap.add_argument("--rounds", type=int, default=3, help="rounds per version, in turns")
    ap.add_argument("--pace", type=float, default=0.05, help="seconds between actions")
    ap.add_argument("--versions", nargs="+", default=["."],
                    help="git revisions of the server to run in turns (.: this checkout)")
    ap.add_argument("--swarm", nargs=3, metavar=("URL", "ROOMS", "SECONDS"),
                    help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.swarm:
        await swarm(args.swarm[0], args.swarm[1].split(","), args.spectators,
                    float(args.swarm[2]))
        return 0
    logdir = Path(tempfile.mkdtemp(prefix="spectators-"))
    paths = {v: None if v == "." else export(v, logdir / f"v{i}")
             for i, v in enumerate(args.versions)}
    got: dict[str, tuple[list[float], list[float], list[float]]] = {
        v: ([], [], []) for v in args.versions}
    for r in range(args.rounds):
        for v in args.versions:
            alone, watched, joined_s = await measure(None if v == "." else v, paths[v], logdir,
                                                     args.spectators, args.games, args.pace)
            got[v][0].extend(alone)
            got[v][1].extend(watched)
            got[v][2].append(joined_s)
            print(f"round {r + 1} {v}: alone {figures(alone)}; watched {figures(watched)}",
                  flush=True)
    ok = True
    for v in args.versions:
        alone, watched, joined = got[v]
        p99 = statistics.quantiles(watched, n=100)[98]
        ok = ok and (v != "." or p99 < 50.0)
        print(f"{'this checkout' if v == '.' else v}: no spectator {figures(alone)}")
        print(f"{'':>{len(v) if v != '.' else 13}}  {args.spectators} spectators "
              f"{figures(watched)}; joined in {statistics.median(joined):.1f} s (median)")
    print("PASS" if ok else "FAIL", "(this checkout's p99 with spectators under 50 ms)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
