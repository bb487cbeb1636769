"""The room's action path in one process, without sockets: µs per action, warm or cold.

Plays 4-seat Skipper ``multi`` rooms through :meth:`Room.play` (engine, log append to the
store, views, deltas, frames) with stand-in connections that only count frames,
random legal actions other than ``resign``. Each action is timed twice, from its encoded
``act`` frame (``protocol.decode`` included): to the acting seat's first frame (its ``ok``
and ``update``: the server's part of that seat's round trip) and to the end of the whole
broadcast. Printed: p50 and p90 of both, in µs, and frames per action.

``--rooms`` rooms take turns (one action each, round robin), so each room's data has gone
cold by its next action, as with the 100 tables of ``cardhall bench``. ``--pause-ms``
leaves a gap after each action, as in the bench's latency phase: the process sleeps (the
CPU idles), or with ``--spin`` busy-waits (the CPU stays busy, in a loop that touches
almost no memory). That shows what a cold CPU costs, and what makes it cold:

    python benchmarks/room_path.py --actions 3000
    python benchmarks/room_path.py --actions 600 --pause-ms 5
    python benchmarks/room_path.py --actions 600 --pause-ms 5 --spin
    python benchmarks/room_path.py --actions 3000 --rooms 1000
    python benchmarks/room_path.py --actions 3000 --rooms 100 --store sqlite-each

``--store`` picks the store the rooms append to: ``memory`` (the default), or the SQLite
store on a temporary file, each append committed at once (``sqlite-each``), the appends of
one loop tick in one transaction (``sqlite-tick``: here one per tick, as rooms play in turn)
or the first append of a tick at once and the others together (``sqlite-adaptive``: here
every append at once), all three without the append journal, or the store as ``cardhall
serve`` opens it (``sqlite-journal``: each lone append one ``write(2)`` to the journal,
folded into SQLite after the answer).
The CPU time per action (this process's, threads included) is printed too.
``--turn-seconds`` gives the rooms a turn clock (public rooms run one of 60 s by default):

    python benchmarks/room_path.py --actions 3000 --rooms 100 --turn-seconds 60

Under ``valgrind --tool=callgrind`` (run twice with different ``--actions`` and divide the
difference) it gives instructions per action that repeat exactly from run to run, which is
how small changes to this path are best compared on a noisy machine.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from cardhall import protocol as p
from cardhall.bench.steps import CountingPeer, open_table
from cardhall.games.skipper import Skipper
from cardhall.server.room import Room
from cardhall.server.store.sqlite_store import SQLiteStore
from cardhall.server.store.memory_store import MemoryStore
from cardhall.server.store.ports import Store

ROOM_SETTINGS = {"turn_seconds": None, "bid_seconds": None, "grace_seconds": 120.0,
                 "on_abandon": "bot"}


@dataclass
class Figures:
    """What :func:`run` measured: p50/p90 in µs from the ``act`` frame to the acting seat's
    first frame (``first_*``) and to the end of the broadcast (``all_*``)."""

    first_p50: float
    first_p90: float
    all_p50: float
    all_p90: float
    frames_per_action: float
    cpu_us_per_action: float


def _gap(seconds: float, spin: bool) -> None:
    """Leave ``seconds`` between actions: sleep (the CPU idles) or busy-wait."""
    if not spin:
        time.sleep(seconds)  # on purpose: the CPU must idle, not just the event loop
        return
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        pass


def make_store(kind: str, folder: Path) -> Store:
    """The store of ``--store``: ``memory``, ``sqlite-journal`` (a data file in ``folder``
    as ``cardhall serve`` opens it: lone appends to the append journal), or
    ``sqlite-each``, ``sqlite-tick`` or ``sqlite-adaptive`` (that commit policy in SQLite,
    no journal)."""
    if kind == "memory":
        return MemoryStore()
    if kind == "sqlite-journal":
        return SQLiteStore(folder / "room_path.db")
    return SQLiteStore(folder / "room_path.db", commit=kind.removeprefix("sqlite-"),
                       journal=False)


async def run(actions: int, pause: float, seed: int, rooms: int = 1,
              spin: bool = False, store: Store | None = None,
              turn_seconds: float | None = None) -> Figures:
    """Play ``actions`` actions over ``rooms`` rooms in turn (a finished game is replaced
    by a new room), leaving a ``pause`` (s) gap after each, outside the timed part, with
    ``store`` (None: a memory store); ``turn_seconds``: the rooms' turn clock (None:
    none)."""
    rng = random.Random(seed)
    store = store or MemoryStore()
    made = 0

    async def new_table() -> tuple[Room, Skipper, list[CountingPeer]]:
        nonlocal made
        made += 1
        return await open_table(Room, made, rng.randrange(1 << 30), store,
                                {**ROOM_SETTINGS, "turn_seconds": turn_seconds})

    tables = [await new_table() for _ in range(rooms)]
    first: list[float] = []
    whole: list[float] = []
    frames = 0
    cpu = 0.0
    for done in range(actions):
        k = done % rooms
        room, game, conns = tables[k]
        if game.over:
            frames += sum(c.frames for c in conns)
            await room.close()
            room, game, conns = tables[k] = await new_table()
        seat = game.to_act()[0]
        action = rng.choice([a for a in game.legal_actions(seat) if a[0] != "resign"])
        frame = p.encode(p.Act(room=room.id, state_id=game.state_id, action=list(action),
                               id=done))
        actor = conns[seat]
        actor.first_at = 0.0
        c0 = time.process_time()
        t0 = time.perf_counter()
        await room.play(actor, p.decode(frame, side="client"))  # type: ignore[arg-type]
        t1 = time.perf_counter()
        cpu += time.process_time() - c0
        first.append((actor.first_at - t0) * 1e6)
        whole.append((t1 - t0) * 1e6)
        await asyncio.sleep(0)  # the loop goes round, as between two frames of a server
        if pause:
            _gap(pause, spin)
    for room, _game, conns in tables:
        frames += sum(c.frames for c in conns)
        await room.close()

    def q(xs: list[float], f: float) -> float:
        return sorted(xs)[int(len(xs) * f)]

    await store.close()
    return Figures(q(first, .5), q(first, .9), q(whole, .5), q(whole, .9), frames / actions,
                   cpu / actions * 1e6)


def main() -> None:
    """Command line: print µs per action and frames per action."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--actions", type=int, default=3000)
    parser.add_argument("--pause-ms", type=float, default=0.0,
                        help="sleep between actions, in ms (the CPU idles)")
    parser.add_argument("--spin", action="store_true",
                        help="busy-wait through the pause instead of sleeping")
    parser.add_argument("--rooms", type=int, default=1, help="rooms taking turns")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--store", choices=("memory", "sqlite-journal", "sqlite-each",
                                            "sqlite-tick", "sqlite-adaptive"),
                        default="memory", help="the rooms' store (memory)")
    parser.add_argument("--turn-seconds", type=float, default=None,
                        help="the rooms' turn clock in s (default: none)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="cardhall-room-path-") as tmp:
        store = make_store(args.store, Path(tmp))
        f = asyncio.run(run(args.actions, args.pause_ms / 1000, args.seed, args.rooms,
                            args.spin, store, args.turn_seconds))
    gap = f"{'spin' if args.spin else 'sleep'} {args.pause_ms:g} ms" if args.pause_ms else "none"
    print(f"{args.actions} actions, {args.rooms} room(s), gap {gap}: to the acting seat's "
          f"first frame p50 {f.first_p50:.1f} p90 {f.first_p90:.1f} us; whole broadcast "
          f"p50 {f.all_p50:.1f} p90 {f.all_p90:.1f} us; {f.frames_per_action:.2f} frames "
          f"per action; CPU {f.cpu_us_per_action:.1f} us per action ({args.store} store"
          f"{'' if args.turn_seconds is None else f', {args.turn_seconds:g} s turns'})")


if __name__ == "__main__":
    main()
