"""How long the SQLite store's fold of its append journal holds the event loop, and what it costs.

The default store answers an action once its log entry is in the append journal (one
``write(2)``) and folds the journal into the data file half a second later
(server/store/sqlite_journal.py). Every room's actions wait while a fold's transaction
runs on the loop. This script makes ``--rooms`` rooms of four seats with a turn clock (each
append writes the entry and the room's new deadlines, as a timed room's turn does), then,
``--folds`` times: appends ``--entries`` entries to every room, and folds, the loop
running, while a task that only yields (``asyncio.sleep(0)``) measures the longest turn of
the loop. In turns within one run, so that both see the same machine:

* ``passes``: the fold as shipped, a few rooms per transaction, one transaction per turn
  of the loop (``PASS_ROOMS``, ``PASS_ROWS``);
* ``one transaction``: the same fold with no bound on a pass (every room in one
  transaction, as the fold was before it was cut into passes).

Prints, per mode, the median over the folds of the longest loop turn (ms) and the fold's
CPU per action (µs), and how many transactions a fold took::

    python benchmarks/sqlite_fold.py
    python benchmarks/sqlite_fold.py --rooms 1000 --entries 1
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from cardhall.server.store import sqlite_journal
from cardhall.server.store.sqlite_store import SQLiteStore

MODES = ("passes", "one transaction")


def summary(room: str) -> dict[str, Any]:
    """A lobby entry of a playing four-seat Skipper room ``room``."""
    return {"room": room, "name": room, "game": "skipper", "mode": "multi", "seats": 4,
            "taken": 4, "status": "playing", "private": False, "spectators": 0}


def state(room: str) -> dict[str, Any]:
    """A playing room's state, about the size of a real one (~600 bytes packed)."""
    return {"status": "playing", "finished_at": None, "host": "p0", "chat": [], "muted": [],
            "started_at": 1.0,
            "seats": [{"name": f"p{i}", "token": f"{room}{i:030d}", "account": None,
                       "bot": False} for i in range(4)],
            "members": [["proc", f"sess{i}", i] for i in range(4)], "deadlines": [[0, 1.0]]}


async def one_mode(path: Path, mode: str, rooms: int, entries: int,
                   folds: int) -> tuple[float, float, float]:
    """Run ``folds`` folds of ``entries`` entries per room over ``rooms`` rooms in a fresh
    store at ``path``, folding as ``mode`` (one of :data:`MODES`) says: the shipped bounds
    of a pass, or none (put back on return).

    Returns:
        ``(median longest loop turn in ms, median fold CPU per action in µs, median
        transactions per fold)``.
    """
    shipped = sqlite_journal.PASS_ROOMS, sqlite_journal.PASS_ROWS
    if mode == "one transaction":
        sqlite_journal.PASS_ROOMS = sqlite_journal.PASS_ROWS = 1 << 30
    store = SQLiteStore(path)
    try:
        ids = [f"room{k:05d}" for k in range(rooms)]
        leases, states, lengths = {}, {}, {}
        for room in ids:
            states[room] = state(room)
            leases[room] = await store.save_room(room, {"room": room, "game": "skipper",
                                                        "code": None}, states[room],
                                                 summary(room))
            await store.append(room, [["a", 0, ["draw"]]], 0, None, lease=leases[room])
            lengths[room] = 1
        await asyncio.sleep(0)
        stalls, costs, commits = [], [], []
        clock = 1000.0
        for _ in range(folds):
            for _ in range(entries):
                for room in ids:
                    clock += 1.0
                    states[room] = {**states[room], "deadlines": [[lengths[room] % 4, clock]]}
                    assert store.append_now(room, [["a", lengths[room] % 4, ["play", "QS"]]],
                                            lengths[room], states[room], lease=leases[room])
                    lengths[room] += 1
            journal = store.file.journal
            assert journal is not None and journal.waiting
            before = store.file.commits
            longest = 0.0
            cpu = time.process_time()
            asyncio.get_running_loop().call_soon(store.file.fold)  # as its timer does
            while journal.waiting:  # the fold's passes run as the loop turns
                turn = time.perf_counter()
                await asyncio.sleep(0)
                longest = max(longest, time.perf_counter() - turn)
            costs.append((time.process_time() - cpu) / (rooms * entries) * 1e6)
            stalls.append(longest * 1e3)
            commits.append(store.file.commits - before)
        return statistics.median(stalls), statistics.median(costs), statistics.median(commits)
    finally:
        await store.close()
        sqlite_journal.PASS_ROOMS, sqlite_journal.PASS_ROWS = shipped


async def main() -> None:
    """Parse the arguments, run the modes in turns, print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rooms", type=int, default=100, help="rooms (default 100)")
    parser.add_argument("--entries", type=int, default=2,
                        help="entries per room per fold (default 2: the peers harness's "
                             "paced phase, 200 actions a second over 100 rooms)")
    parser.add_argument("--folds", type=int, default=20, help="folds per mode and round")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of the modes in turns")
    args = parser.parse_args()
    results: dict[str, list[tuple[float, float, float]]] = {mode: [] for mode in MODES}
    with tempfile.TemporaryDirectory() as folder:
        for round_ in range(args.rounds):
            for mode in MODES if round_ % 2 == 0 else MODES[::-1]:
                path = Path(folder) / f"{round_}-{mode.replace(' ', '-')}.db"
                results[mode].append(await one_mode(path, mode, args.rooms, args.entries,
                                                    args.folds))
    print(f"{args.rooms} rooms, {args.entries} entries per room per fold, {args.folds} folds "
          f"x {args.rounds} rounds; PASS_ROOMS {sqlite_journal.PASS_ROOMS}, "
          f"PASS_ROWS {sqlite_journal.PASS_ROWS}")
    print(f"{'mode':<16} {'longest loop turn, ms':>22} {'fold CPU per action, us':>24} "
          f"{'transactions per fold':>22}")
    for mode, runs in results.items():
        stall = statistics.median(r[0] for r in runs)
        cost = statistics.median(r[1] for r in runs)
        commits = statistics.median(r[2] for r in runs)
        print(f"{mode:<16} {stall:>22.2f} {cost:>24.1f} {commits:>22.0f}")


if __name__ == "__main__":
    asyncio.run(main())
