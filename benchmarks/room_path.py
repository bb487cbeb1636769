"""The room's action path in one process, without sockets: µs per action, warm or cold.

Plays 4-seat Skipper ``multi`` rooms through :meth:`Room.act` (engine, log append to the
in-memory store, views, deltas, frames) with stand-in connections that only count frames,
random legal actions other than ``resign``. ``--pause-ms`` sleeps between actions (the CPU
idles, as in the latency phase of ``cardhall bench``), to show what a cold CPU costs:

    python benchmarks/room_path.py --actions 3000
    python benchmarks/room_path.py --actions 600 --pause-ms 5

Under ``valgrind --tool=callgrind`` (run twice with different ``--actions`` and divide the
difference) it gives instructions per action that repeat exactly from run to run, which is
how small changes to this path are best compared on a noisy machine.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import time
from typing import Any

from cardhall import protocol as p
from cardhall.server.games.skipper import Skipper
from cardhall.server.room import Room
from cardhall.server.store import MemoryStore

ROOM_SETTINGS = {"turn_seconds": None, "bid_seconds": None, "grace_seconds": 120.0,
                 "on_abandon": "bot"}


class CountingConnection:
    """Stands in for a client connection: counts the frames a room sends it."""

    def __init__(self, i: int) -> None:
        self.session = self.name = f"seat{i}"
        self.process = "bench"
        self.rooms: dict[str, Room] = {}
        self.frames = 0

    def send(self, msg: p.Message) -> None:
        """Encode and count ``msg``."""
        self.send_raw(p.encode(msg))

    def send_raw(self, *frames: bytes) -> None:
        """Count encoded frames."""
        self.frames += len(frames)

    def send_error(self, code: str, message: str, re: Any = None) -> None:
        """Count an error reply."""
        self.send(p.Error(code=code, message=message, re=re))


async def run(actions: int, pause: float, seed: int) -> tuple[float, float]:
    """Play ``actions`` actions; returns (µs of ``Room.act`` per action, frames per action).

    ``pause`` seconds are slept (blocking, the CPU idles) after each action, outside the
    timed part.
    """
    rng = random.Random(seed)
    conns = [CountingConnection(i) for i in range(4)]
    store = MemoryStore()
    spent, done, n = 0.0, 0, 0
    while done < actions:
        n += 1
        game = Skipper({"mode": "multi", "seed": rng.randrange(1 << 30)}, 4)
        room = Room(id=f"r{n}", name="bench", game_name="skipper", game=game,
                    settings=dict(ROOM_SETTINGS), store=store)
        room.start_task()
        for i, conn in enumerate(conns):
            room.join(conn, i)  # type: ignore[arg-type]
        room.start(None)
        while not game.over and done < actions:
            seat = game.to_act()[0]
            action = rng.choice([a for a in game.legal_actions(seat) if a[0] != "resign"])
            msg = p.Act(room=room.id, state_id=game.state_id, action=list(action), id=done)
            t0 = time.perf_counter()
            await room.act(conns[seat], msg)  # type: ignore[arg-type]
            spent += time.perf_counter() - t0
            done += 1
            if pause:
                time.sleep(pause)  # noqa: ASYNC251 - on purpose: the CPU must idle, not the loop
        await room.close()
    return spent / done * 1e6, sum(c.frames for c in conns) / done


def main() -> None:
    """Command line: print µs per action and frames per action."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--actions", type=int, default=3000)
    parser.add_argument("--pause-ms", type=float, default=0.0,
                        help="sleep between actions, in ms (the CPU idles)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    us, frames = asyncio.run(run(args.actions, args.pause_ms / 1000, args.seed))
    print(f"{args.actions} actions, pause {args.pause_ms:g} ms: {us:.1f} us per action "
          f"(Room.act), {frames:.2f} frames per action")


if __name__ == "__main__":
    main()
