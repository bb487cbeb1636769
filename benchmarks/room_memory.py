"""Memory a playing room holds, in KiB: 4-seat Skipper ``multi`` rooms without sockets.

Plays ``--rooms`` rooms through :meth:`Room.play` to ``--actions`` actions each (greedy
moves), with stand-in connections that only count frames, over a store that keeps nothing
in this process (as with Redis, whose copy lives in the Redis server): what is left is the
room itself, its engine, its members' last views and what it keeps to roll back a failed
append (the last stored snapshot, packed, and the log entries since). Prints the traced
memory (``tracemalloc``) per room, after a garbage collection.

    python benchmarks/room_memory.py
    python benchmarks/room_memory.py --actions 60   # before the first snapshot (64 actions)
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import random
import tracemalloc
from collections.abc import Sequence
from typing import Any

from cardhall import protocol as p
from cardhall.games.bots import strategy
from cardhall.games.skipper import Skipper
from cardhall.server.room import Room
from cardhall.server.store.memory_store import MemoryStore
from cardhall.server.store.ports import LogEntry
from room_path import ROOM_SETTINGS, CountingPeer


class NullStore(MemoryStore):
    """Accepts every append and snapshot and keeps none of them."""

    async def append(self, room_id: str, entries: Sequence[LogEntry], expect: int,
                     state: dict[str, Any] | None, *, lease: str | None = None) -> None:
        """Keep nothing."""

    def append_now(self, room_id: str, entries: Sequence[LogEntry], expect: int,
                   state: dict[str, Any] | None, *, lease: str | None = None) -> bool:
        """Keep nothing (the room's plain-call append, Room.act_now)."""
        return True

    async def save_snapshot(self, room_id: str, state_id: int, snapshot: dict[str, Any]) -> None:
        """Keep nothing."""


async def run(rooms: int, actions: int, seed: int) -> float:
    """KiB of traced memory per room after ``actions`` actions in each of ``rooms`` rooms
    (a game that ends sooner stops there)."""
    bot = strategy("skipper", "greedy")
    store = NullStore()
    kept: list[Room] = []
    gc.collect()
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    for r in range(rooms):
        conns = [CountingPeer(i) for i in range(4)]
        room = Room(id=f"r{r}", name="memory", game_name="skipper",
                    game=Skipper({"mode": "multi", "seed": seed + r}, 4),
                    settings=dict(ROOM_SETTINGS), store=store)
        room.start_task()
        for i, conn in enumerate(conns):
            await room.apply(room.table.join(conn, i, reply=False))  # type: ignore[arg-type]
        await room.apply(room.table.start(None))
        rng = random.Random(seed + r)
        while room.table.game.state_id < actions and not room.table.game.over:
            game = room.table.game
            seat = game.to_act()[0]
            act = p.Act(room=room.id, state_id=game.state_id, id=1,
                        action=list(bot(game.bot_view(seat), rng)))
            await room.play(conns[seat], act)  # type: ignore[arg-type]
        queue = room.work.queue  # None: nothing was ever posted
        while (queue is not None and not queue.empty()) or room.work.busy.locked():  # posted work
            await asyncio.sleep(0)
        kept.append(room)
    gc.collect()
    used = tracemalloc.get_traced_memory()[0] - base
    tracemalloc.stop()
    for room in kept:
        await room.close()
    return used / rooms / 1024


def main() -> None:
    """Command line: print KiB per room."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rooms", type=int, default=50)
    parser.add_argument("--actions", type=int, default=70)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    kib = asyncio.run(run(args.rooms, args.actions, args.seed))
    print(f"{args.rooms} rooms of 4-seat Skipper multi, {args.actions} actions each: "
          f"{kib:.1f} KiB per room")


if __name__ == "__main__":
    main()
