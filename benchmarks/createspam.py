"""Create-spam: connections from four addresses create rooms until refused, reconnect and go
on, while a bots game beside them creates its room and plays it to the end.

Usage: python benchmarks/createspam.py [--seconds 30] [--connections 3000] [--max-rooms 3000]
                                       [--empty-room-ttl 10] [--version REV]

Starts ``cardhall serve`` as a child process on 127.0.0.1 (a free port, production limits
but ``--max-rooms`` rooms at most, so that a spammer on this small machine can reach the cap
within the run, and finished rooms removed after 2 s; ``--empty-room-ttl`` seconds before a
waiting room nobody sits in is removed; ``--version REV`` runs another git revision's
server, exported as ``benchmarks/ab.py`` does: ``--version main`` shows the old
behaviour). Spammers connect from 127.0.0.2 .. 127.0.0.5 (Linux routes all of
127.0.0.0/8 to loopback), at most ``--parallel`` connections per address at once and
``--connections`` in all: each sends
``create_room`` (a 4-seat Skipper multi room, never joined) until it is refused, then closes
and the next connection of its address takes over, for ``--seconds``. Two seconds in, a
bots game from 127.0.0.1 (two bot clients, Skipper multi: create, join, play to the end)
starts beside them.

Prints the spam's figures (connections, rooms created, refusals by code), whether the bots
game created its room and finished, the ``cardhall_rooms`` gauge at the end of the spam and
again ``--empty-room-ttl`` seconds (plus a sweep) later, and a last line ``PASS`` (the bots
game finished, and the spammers' rooms were gone after the wait) or ``FAIL``. Exit status 0
on PASS, 1 on FAIL.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import itertools
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import websockets
from cardhall import protocol as p
from cardhall.bench.procs import Child, free_port, rooms_gauge, serve_command
from cardhall.bench.versions import export
from cardhall.client.bots import play_games

SPAM_ADDRESSES = ("127.0.0.2", "127.0.0.3", "127.0.0.4", "127.0.0.5")


class Tally:
    """What the spammers did."""

    def __init__(self) -> None:
        self.connections = 0
        self.created = 0
        self.refused: collections.Counter[str] = collections.Counter()
        self.failed: collections.Counter[str] = collections.Counter()


async def spam_connection(url: str, address: str, tally: Tally, deadline: float) -> None:
    """One spammer connection from ``address``: create rooms until refused (or closed)."""
    ws = await websockets.connect(url, compression=None, local_addr=(address, 0),
                                  open_timeout=10)
    try:
        await ws.send(p.encode(p.Hello(v=p.PROTOCOL_VERSION, client="spam", id=0)))
        p.decode(await ws.recv(), side="server")
        for rid in itertools.count(1):
            if time.monotonic() > deadline:
                return
            await ws.send(p.encode(p.CreateRoom(game="skipper", mode="multi", seats=4,
                                                options={}, id=rid)))
            reply = p.decode(await ws.recv(), side="server")
            if isinstance(reply, p.RoomCreated):
                tally.created += 1
            else:
                tally.refused[getattr(reply, "code", reply.TYPE)] += 1
                return
    finally:
        await ws.close()


async def spam_address(url: str, address: str, tally: Tally, deadline: float,
                       budget: list[int], parallel: int) -> None:
    """Connections from ``address``, ``parallel`` at a time, while the budget lasts."""

    async def lane() -> None:
        while time.monotonic() < deadline and budget[0] > 0:
            budget[0] -= 1
            tally.connections += 1
            try:
                await spam_connection(url, address, tally, deadline)
            except (OSError, websockets.exceptions.WebSocketException, TimeoutError) as exc:
                tally.failed[type(exc).__name__] += 1
                await asyncio.sleep(0.05)

    await asyncio.gather(*(lane() for _ in range(parallel)))


async def bots_game(url: str) -> dict[str, Any]:
    """A 2-seat Skipper multi game of bots from 127.0.0.1, after two seconds."""
    await asyncio.sleep(2.0)
    t0 = time.monotonic()
    try:
        records = await play_games([url], "skipper", "multi", 2, 1, think=0.0, timeout=240)
    except Exception as exc:  # reported, not raised: the drill's verdict
        return {"ok": False, "error": f"{type(exc).__name__}: {exc}",
                "seconds": time.monotonic() - t0}
    return {"ok": True, "room": records[0]["room"], "state_id": records[0]["state_id"],
            "seconds": time.monotonic() - t0}


async def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=30.0, help="how long the spam goes on")
    ap.add_argument("--connections", type=int, default=3000, help="spam connections in all")
    ap.add_argument("--parallel", type=int, default=16, help="connections per address at once")
    ap.add_argument("--max-rooms", type=int, default=3000)
    ap.add_argument("--empty-room-ttl", type=float, default=10.0)
    ap.add_argument("--version", default=None,
                    help="git revision of the server to run (default: this checkout)")
    args = ap.parse_args()
    port = free_port()
    logdir = Path(tempfile.mkdtemp(prefix="createspam-"))
    env, package = None, None
    options = ["--max-rooms", str(args.max_rooms), "--finished-ttl", "2"]
    if args.version is not None:
        package = export(args.version, logdir / "version")
        env = {**os.environ, "PYTHONPATH": str(package)}
    else:
        options += ["--empty-room-ttl", str(args.empty_room_ttl)]
    server = Child("cardhall serve", serve_command(
        port, "--log-level", "WARNING", *options, package=package), port,
        logdir / "serve.log", env=env)
    url = f"ws://127.0.0.1:{port}"
    tally = Tally()
    try:
        t0 = time.monotonic()
        deadline = t0 + args.seconds
        budget = [args.connections]
        bots = asyncio.ensure_future(bots_game(url))
        await asyncio.gather(*(spam_address(url, a, tally, deadline, budget, args.parallel)
                               for a in SPAM_ADDRESSES))
        at_end = rooms_gauge(port)
        spammed = time.monotonic() - t0
        game = await bots
        waited = time.monotonic() - t0 - spammed
        await asyncio.sleep(max(0.0, args.empty_room_ttl + 6.0 - waited))
        later = rooms_gauge(port)
    finally:
        server.stop()
    print(f"server {args.version or 'this checkout'}: --max-rooms {args.max_rooms}, "
          f"empty-room ttl {'(none)' if args.version else args.empty_room_ttl} s")
    print(f"spam: {spammed:.0f} s (at most {args.seconds:.0f}) from {len(SPAM_ADDRESSES)} "
          f"addresses, "
          f"{tally.connections} connections, {tally.created} rooms created, refused "
          f"{dict(tally.refused)}, connection failures {dict(tally.failed)}")
    print(f"bots game beside it: {game}")
    print(f"rooms held at the end of the spam: {at_end:.0f}; "
          f"{args.empty_room_ttl + 6:.0f} s after it: {later:.0f}")
    ok = bool(game["ok"]) and later == 0
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
