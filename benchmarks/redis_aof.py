"""What Redis writes per action: bytes of append-only file (AOF) per logged action.

Usage: python benchmarks/redis_aof.py [--games 6] [--turn-seconds S]

Starts a redis-server (append-only, no fsync wait, no RDB, no AOF rewrite) in a temporary
folder on a free 127.0.0.1 port and a Cardhall server on it (in this process, port 0),
then plays ``--games`` 4-seat Skipper ``multi`` games with greedy bot clients. Prints the
actions logged, the size of the AOF and their ratio: what each action costs Redis in
writes (also its replicas' traffic), room creation, joins and snapshots included.
``--turn-seconds`` gives the rooms turn clocks, whose deadlines change the room's stored
state at every turn's end. Needs ``redis-server`` on PATH. Bounded by ``--games``.
"""

from __future__ import annotations

import argparse
import asyncio
import subprocess
import tempfile
import time
from pathlib import Path

import redis

from cardhall.bench.load import free_port
from cardhall.client.bots import play_games
from cardhall.server.app import Server
from cardhall.server.config import Settings
from cardhall.server.redis_store import RedisStore


async def run(games: int, turn_seconds: float | None) -> tuple[int, int]:
    """Play the games; returns (actions logged, AOF bytes)."""
    with tempfile.TemporaryDirectory() as folder:
        port = free_port()
        proc = subprocess.Popen(
            ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--dir", folder,
             "--appendonly", "yes", "--appendfsync", "no", "--save", "",
             "--auto-aof-rewrite-percentage", "0"],
            stdout=subprocess.DEVNULL)
        try:
            client = redis.Redis(port=port)
            deadline = time.monotonic() + 10
            while True:
                try:
                    client.ping()
                    break
                except redis.ConnectionError:
                    if time.monotonic() > deadline:
                        raise
                    time.sleep(0.05)
            store = RedisStore(f"redis://127.0.0.1:{port}/0")
            server = Server(Settings(port=0, msg_rate=None, rooms_per_minute=None), store)
            await server.start()
            try:
                options = {} if turn_seconds is None else {"turn_seconds": turn_seconds}
                await play_games([server.url], "skipper", "multi", 4, games, "greedy",
                                 options=options, seed=1)
            finally:
                await server.stop()
                await store.close()
            actions = sum(int(client.llen(k)) for k in client.scan_iter("*:log"))
            client.close()
        finally:
            proc.terminate()
            proc.wait(timeout=10)
        size = sum(f.stat().st_size for f in Path(folder).rglob("*aof*") if f.is_file())
    return actions, size


def main() -> None:
    """Command line: print actions, AOF bytes and bytes per action."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=6)
    parser.add_argument("--turn-seconds", type=float, default=None,
                        help="turn clock of the rooms, in s (default: none)")
    args = parser.parse_args()
    actions, size = asyncio.run(run(args.games, args.turn_seconds))
    print(f"{args.games} games, {actions} actions logged: AOF {size} bytes, "
          f"{size / max(actions, 1):.0f} bytes per action")


if __name__ == "__main__":
    main()
