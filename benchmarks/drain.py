"""Rolling-restart drill: drain one of two server processes while games are played.

Usage: python benchmarks/drain.py [--games 6] [--waiting 100] [--after 3] [--think 0.03]

Starts a redis-server (append-only) and two ``cardhall serve --redis-url`` processes, A and
B, on 127.0.0.1 (free ports, an admin token). Creates ``--waiting`` empty waiting rooms on A,
then plays ``--games`` Skipper multi games at once, 4 bot clients each: every room is
created on A, two bots of each table connect to A and two to B. After ``--after`` seconds
of play, ``POST /admin/drain`` on A, and ``GET /admin/drain`` every 0.1 s until A reports
``drained``.

Prints: rooms A owned when the drain began, rooms handed over, rooms nobody took over in
time, seconds the drain took (A's own figure and as seen from here), A's clients that
reconnected, games finished, and per game whether the Redis log holds every acknowledged
action (none lost) and no more than one unacknowledged action per bot (none doubled), and
replays to the finished game. Last line ``PASS`` or ``FAIL``; exit status 0 / 1.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

from cardhall.bench.chaos import Redis
from cardhall.bench.procs import Child, free_port, serve_command
from cardhall.client.bots import bot_clients, play_seat, seat_bots, stop_bots
from cardhall.client.client import Client
from cardhall.games import get
from cardhall.games.bots import strategy
from cardhall.server.store.redis_store import RedisStore
from cardhall.games import replay

TOKEN = "drain-bench-token"


def serve(redis_url: str, log: Path) -> Child:
    """A ``cardhall serve`` child with the admin API on and no per-client limits."""
    port = free_port()
    return Child("cardhall serve", serve_command(
        port, "--redis-url", redis_url, "--admin-token", TOKEN, "--msg-rate", "0",
        "--rooms-per-minute", "0", "--rooms-per-minute-per-address", "0",
        "--log-level", "INFO"), port, log)


async def admin(port: int, method: str, path: str) -> dict[str, Any]:
    """One admin API call; its JSON answer."""
    def go() -> dict[str, Any]:
        req = urllib.request.Request(f"http://127.0.0.1:{port}{path}", method=method,
                                     headers={"Authorization": f"Bearer {TOKEN}"})
        with urllib.request.urlopen(req, timeout=30) as resp:
            return dict(json.loads(resp.read()))

    return await asyncio.to_thread(go)


async def drill(args: argparse.Namespace, workdir: Path) -> bool:
    """Run the drill; True when every check passed."""
    redis_proc = Redis(workdir, workdir / "redis.log")
    redis_proc.start()
    a = serve(redis_proc.url, workdir / "a.log")
    b = serve(redis_proc.url, workdir / "b.log")
    store = RedisStore(redis_proc.url)
    clients: list[Client] = []
    tasks: list[asyncio.Task[Any]] = []
    try:
        async with Client(a.url, name="maker") as maker:
            for _ in range(args.waiting):
                await maker.create_room("skipper", mode="multi", seats=4)
        rooms, rng, choose = [], random.Random(args.seed), strategy("skipper", "greedy")
        for g in range(args.games):
            table = bot_clients([a.url, b.url], 4, prefix=f"bot-{g}")
            clients += table
            room, seats = await seat_bots(table, "skipper", "multi", {"turn_limit": 40})
            rooms.append(room)
            tasks += [asyncio.create_task(play_seat(c, room, s, choose,
                                                    random.Random(rng.random()),
                                                    think=args.think))
                      for c, s in zip(table, seats)]
        await asyncio.sleep(args.after)
        owned = 0
        for entry in await store.list_rooms():
            owned += f":{a.pid}:" in (await store.owner(entry["room"]) or "")
        t0 = time.monotonic()
        await admin(a.port, "POST", "/admin/drain?timeout=30")
        while (report := await admin(a.port, "GET", "/admin/drain"))["state"] != "drained":
            if time.monotonic() - t0 > 60:
                print("drain did not end within 60 s")
                return False
            await asyncio.sleep(0.1)
        seen = time.monotonic() - t0
        print(f"rooms owned by A at the drain  {owned}")
        print(f"rooms handed over              {report['rooms_handed_over']}")
        print(f"rooms not taken over in time   {len(report['rooms_not_taken_over'])}")
        print(f"drain seconds (A / seen here)  {report['seconds']:.2f} / {seen:.2f}")
        print(f"A's connections closed (1012)  {report['connections_closed']}")
        results = await asyncio.wait_for(asyncio.gather(*tasks), 300)
        moved = sum(1 for c in clients[0::2] if c.reconnects >= 1 and c.url == b.url)
        print(f"A's bots reconnected to B      {moved} of {len(clients[0::2])}")
        ok = not report["rooms_not_taken_over"] and moved == len(clients[0::2])
        finished = 0
        for i, room in enumerate(rooms):
            seat_results = results[4 * i:4 * i + 4]
            loaded, entries = await store.load(room), await store.log(room)
            accepted = sum(r.actions for r in seat_results)
            game = replay(get("skipper"), loaded.record["options"], loaded.record["seats"],
                          entries) if loaded is not None else None
            good = (game is not None and game.over and accepted <= len(entries)
                    <= accepted + 4 and seat_results[0].state_id == len(entries))
            finished += good
            print(f"  game {room}: {len(entries)} actions logged, {accepted} acknowledged, "
                  f"{'ok' if good else 'WRONG'}")
        print(f"games finished, log intact     {finished} of {len(rooms)}")
        return ok and finished == len(rooms)
    finally:
        await stop_bots(tasks, clients)
        await store.close()
        a.stop()
        b.stop()
        redis_proc.stop()


def main() -> None:
    """Parse the options, run the drill, print PASS or FAIL."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=6, help="games played during the drain")
    parser.add_argument("--waiting", type=int, default=100, help="empty waiting rooms on A")
    parser.add_argument("--after", type=float, default=3.0, help="seconds of play first")
    parser.add_argument("--think", type=float, default=0.03, help="seconds per bot action")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as d:
        passed = asyncio.run(drill(args, Path(d)))
    print("PASS" if passed else "FAIL")
    sys.exit(0 if passed else 1)


if __name__ == "__main__":
    main()
