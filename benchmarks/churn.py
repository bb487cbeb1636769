"""Churn: rounds of rooms created, played to the end and removed; RSS after each round.

Usage: python benchmarks/churn.py [--rounds 4] [--rooms 10000] [--workers 40]
                                  [--finished-ttl 5] [--version REV] [-- SERVE_OPTION ...]

Starts ``cardhall serve`` as a child process on 127.0.0.1 (a free port, the embedded
store, ``--finished-ttl`` seconds, the per-connection abuse limits off: every client comes
from one address at loopback speed; any further ``cardhall serve`` options after ``--``,
e.g. ``-- --gc-threshold 700``; ``--version REV`` runs the server of another git revision,
exported as ``benchmarks/ab.py`` does, against this checkout's load). Each round,
``--workers`` connections between them create ``--rooms`` rooms, at most ``--rate`` a
second, and finish each: a solo Skipper room (``create_room``, ``join``: it starts when
full, ``act resign``) and, every tenth room, a 2-seat Skipper multi room that its host
joins and starts (a server bot takes the other seat) and resigns from (which ends it). After
the round, it waits until the ``cardhall_rooms`` gauge of ``/metrics`` is 0 (every room
removed), then reads the server's RSS.

Prints one line per round (rooms, seconds, RSS in MiB, growth over round 1) and a last
line ``PASS`` or ``FAIL``: RSS after the last round within 10% of RSS after round 1
(issue #35's target: finished rooms are freed). Exit status 0 on PASS, 1 on FAIL.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import itertools
import os
import sys
import tempfile
import time
from pathlib import Path

import websockets
from cardhall import protocol as p
from cardhall.bench.procs import Child, free_port, rooms_gauge, rss_bytes, serve_command
from cardhall.bench.versions import export

MIB = 1024 * 1024


class Lean:
    """One bare protocol connection: a request, then its reply (pushes are skipped)."""

    def __init__(self, ws: websockets.ClientConnection) -> None:
        self.ws = ws
        self.ids = itertools.count(1)

    @classmethod
    async def open(cls, url: str, name: str) -> Lean:
        ws = await websockets.connect(url, compression=None, max_size=None)
        await ws.send(p.encode(p.Hello(v=p.PROTOCOL_VERSION, client=name, id=0)))
        p.decode(await ws.recv(), side="server")
        return cls(ws)

    async def ask(self, msg: p.ClientMessage) -> p.Message:
        """Send ``msg`` with a fresh id and return its reply (``ok``, ``error`` or other)."""
        rid = next(self.ids)
        await self.ws.send(p.encode(dataclasses.replace(msg, id=rid)))
        while True:
            reply = p.decode(await self.ws.recv(), side="server")
            if getattr(reply, "re", None) == rid:
                return reply


async def one_room(conn: Lean, k: int) -> None:
    """Create, play and finish one room (see the module docstring)."""
    multi = k % 10 == 9
    created = await conn.ask(p.CreateRoom(game="skipper", mode="multi" if multi else "solo",
                                          seats=2 if multi else 1, options={}))
    if not isinstance(created, p.RoomCreated):
        raise RuntimeError(f"create_room refused: {created}")
    room = created.room
    joined = await conn.ask(p.Join(room=room))
    if not isinstance(joined, p.Joined):
        raise RuntimeError(f"join refused: {joined}")
    if multi:
        await conn.ask(p.Start(room=room))
        view = await conn.ask(p.GetView(room=room))
        sid = view.state_id if isinstance(view, p.Update) else 0
    else:
        sid = int(joined.view["state_id"])
    for _ in range(50):  # a stale view (the bots moved meanwhile): read it again
        done = await conn.ask(p.Act(room=room, state_id=sid, action=["resign"]))
        if not isinstance(done, p.Error):
            break
        if done.code != "action/stale_state":
            raise RuntimeError(f"resign refused: {done}")
        view = await conn.ask(p.GetView(room=room))
        assert isinstance(view, p.Update)
        sid = view.state_id
    await conn.ask(p.Leave(room=room))


async def one_round(url: str, rooms: int, workers: int, rate: float | None = None) -> None:
    """Create, play and finish ``rooms`` rooms over ``workers`` connections, room ``k`` not
    begun before ``k / rate`` seconds into the round (None: as fast as they go)."""
    counter = itertools.count()
    loop = asyncio.get_running_loop()
    t0 = loop.time()

    async def worker(w: int) -> None:
        conn = await Lean.open(url, f"churn-{w}")
        try:
            while (k := next(counter)) < rooms:
                if rate is not None:
                    await asyncio.sleep(t0 + k / rate - loop.time())
                await one_room(conn, k)
        finally:
            await conn.ws.close()

    await asyncio.gather(*(worker(w) for w in range(workers)))


async def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--rooms", type=int, default=10_000, help="rooms per round")
    ap.add_argument("--workers", type=int, default=40, help="connections at once")
    ap.add_argument("--rate", type=float, default=250.0,
                    help="rooms begun per second at most (0: no pacing). Paced, every round "
                         "holds about as many finished rooms at once (rate x finished-ttl), "
                         "so RSS compares what is left behind, not each round's peak")
    ap.add_argument("--finished-ttl", type=float, default=5.0)
    ap.add_argument("--timeout", type=float, default=900.0, help="seconds per round at most")
    ap.add_argument("--version", default=None,
                    help="git revision of the server to run (default: this checkout)")
    ap.add_argument("serve", nargs="*", help="more `cardhall serve` options (after --)")
    args = ap.parse_args()
    port = free_port()
    logdir = Path(tempfile.mkdtemp(prefix="churn-"))
    env, package = None, None
    if args.version is not None:
        package = export(args.version, logdir / "version")
        env = {**os.environ, "PYTHONPATH": str(package)}
    server = Child("cardhall serve", serve_command(
        port, "--log-level", "WARNING", "--finished-ttl", str(args.finished_ttl),
        "--rooms-per-minute", "0", "--msg-rate", "0", "--max-connections-per-address", "0",
        *([] if args.version else ["--rooms-per-minute-per-address", "0"]), *args.serve,
        package=package), port, logdir / "serve.log", env=env)
    url = f"ws://127.0.0.1:{port}"
    rss: list[float] = []
    try:
        print(f"server {args.version or 'this checkout'} pid {server.pid}, options "
              f"{args.serve or 'defaults'}; "
              f"RSS at start {rss_bytes(server.pid) / MIB:.0f} MiB")
        for r in range(1, args.rounds + 1):
            t0 = time.monotonic()
            await asyncio.wait_for(one_round(url, args.rooms, args.workers, args.rate or None),
                                   args.timeout)
            played = time.monotonic() - t0
            while rooms_gauge(port) > 0:
                if time.monotonic() - t0 > args.timeout:
                    raise TimeoutError("rooms were not removed in time")
                await asyncio.sleep(0.5)
            rss.append(rss_bytes(server.pid) / MIB)
            print(f"round {r}: {args.rooms} rooms in {played:.1f} s, all removed after "
                  f"{time.monotonic() - t0:.1f} s; RSS {rss[-1]:.0f} MiB "
                  f"({rss[-1] / rss[0] - 1:+.1%} over round 1)", flush=True)
    finally:
        server.stop()
    ok = rss[-1] <= rss[0] * 1.10
    print(f"RSS after round {len(rss)} {rss[-1]:.0f} MiB vs round 1 {rss[0]:.0f} MiB: "
          f"{rss[-1] / rss[0] - 1:+.1%} (target: within +10%)")
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
