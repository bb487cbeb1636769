"""Memory and creation rate of waiting rooms: N empty rooms in one server process.

Creates ``--rooms`` public rooms (default 100,000) straight through the lobby
(:meth:`Lobby.create`, what ``create_room`` runs: options checked, record, state and lobby
entry written to the store, the room registered in the process), nobody seated, and prints
the process's resident memory (RSS) per waiting room in KiB and the creation rate in rooms
per second. The target of issue #18 is at most 4 KiB per waiting room and 100,000 waiting
rooms per process.

    python benchmarks/waiting_rooms.py
    python benchmarks/waiting_rooms.py --rooms 20000 --store redis \
        --redis-url redis://127.0.0.1:6379/0

With ``--store redis`` the rooms' records live in Redis (its memory is not counted: only
this process's) and the Redis database is flushed first: use a scratch one. RSS is read with
psutil when installed, else from ``/proc/self/statm``.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import time
from typing import Any

from cardhall import protocol as p
from cardhall.server.config import Settings
from cardhall.server.lobby import Lobby
from cardhall.server.store.memory_store import MemoryStore
from cardhall.server.store.ports import Store
from cardhall.server.phases import Phase


def rss_bytes() -> int:
    """This process's resident set size in bytes."""
    try:
        import psutil
    except ImportError:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    return int(psutil.Process().memory_info().rss)


class Host:
    """Stands in for the creating connection (the lobby reads its ``session`` only)."""

    session_id = "bench-host"


async def run(args: argparse.Namespace) -> None:
    """Create the rooms and print the figures."""
    store: Store
    if args.store == "redis":
        from cardhall.server.store.redis_store import RedisStore

        store = RedisStore(args.redis_url)
        await store.redis.flushdb()  # type: ignore[attr-defined]
    else:
        store = MemoryStore()
    # Rooms nobody sits in would expire after a minute (issue #35): kept for the count.
    settings = Settings(max_rooms=args.rooms + args.warmup + 1, empty_room_ttl=None)
    lobby = Lobby(store, settings, cluster=None)  # type: ignore[arg-type]  # never routes
    msg = p.CreateRoom(game=args.game, mode=args.mode, seats=args.seats)
    host: Any = Host()
    for _ in range(args.warmup):  # imports, caches, the first allocations
        await lobby.create(host, msg)
    gc.collect()
    before = rss_bytes()
    started = time.perf_counter()
    for _ in range(args.rooms):
        await lobby.create(host, msg)
    elapsed = time.perf_counter() - started
    await asyncio.sleep(0)
    gc.collect()
    after = rss_bytes()
    waiting = sum(r.table.phase is Phase.WAITING for r in lobby.rooms.values())
    tasks = len(asyncio.all_tasks()) - 1
    print(f"store={args.store} game={args.game} mode={args.mode} seats={args.seats} "
          f"rooms={args.rooms} waiting={waiting} room_tasks={tasks}")
    print(f"rss per waiting room: {(after - before) / args.rooms / 1024:.2f} KiB "
          f"(rss {before / 2**20:.1f} MiB -> {after / 2**20:.1f} MiB)")
    print(f"creation rate: {args.rooms / elapsed:,.0f} rooms/s ({elapsed:.1f} s)")
    await lobby.close()
    await store.close()


def main() -> None:
    """Parse the command line and run."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rooms", type=int, default=100_000, help="waiting rooms to create")
    parser.add_argument("--warmup", type=int, default=200, help="rooms created before measuring")
    parser.add_argument("--store", choices=("memory", "redis"), default="memory")
    parser.add_argument("--redis-url", default="redis://127.0.0.1:6379/0")
    parser.add_argument("--game", default="skipper")
    parser.add_argument("--mode", default="multi")
    parser.add_argument("--seats", type=int, default=6)
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()
