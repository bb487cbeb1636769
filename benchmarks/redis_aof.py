"""What Redis writes per action: bytes of append-only file (AOF) per logged action.

Usage: python benchmarks/redis_aof.py [--games 6] [--turn-seconds S]

Starts a redis-server (append-only, as ``cardhall chaos`` runs it:
:class:`cardhall.bench.chaos.Redis`) in a temporary folder on a free 127.0.0.1 port and a
Cardhall server on it (in this process, port 0), then plays ``--games`` 4-seat Skipper
``multi`` games with greedy bot clients. Prints the
actions logged, the size of the AOF and their ratio: what each action costs Redis in
writes (also its replicas' traffic), room creation, joins and snapshots included.
``--turn-seconds`` gives the rooms turn clocks, whose deadlines change the room's stored
state at every turn's end. Needs ``redis-server`` on PATH. Bounded by ``--games``.
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
from pathlib import Path

import redis

from cardhall.bench.chaos import Redis
from cardhall.client.bots import play_games
from cardhall.server.app import Server
from cardhall.server.config import Settings
from cardhall.server.store.redis_store import RedisStore


async def run(games: int, turn_seconds: float | None) -> tuple[int, int]:
    """Play the games; returns (actions logged, AOF bytes)."""
    with tempfile.TemporaryDirectory() as folder:
        redis_server = Redis(Path(folder), Path(folder) / "redis.log")
        redis_server.start()
        try:
            store = RedisStore(redis_server.url)
            server = Server(Settings(port=0, msg_rate=None, rooms_per_minute=None,
                                     rooms_per_minute_per_address=None), store)
            await server.start()
            try:
                options = {} if turn_seconds is None else {"turn_seconds": turn_seconds}
                await play_games([server.url], "skipper", "multi", 4, games, "greedy",
                                 options=options, seed=1)
            finally:
                await server.stop()
                await store.close()
            client = redis.Redis(port=redis_server.port)
            actions = sum(int(client.llen(k)) for k in client.scan_iter("*:log"))
            client.close()
        finally:
            redis_server.stop()
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
