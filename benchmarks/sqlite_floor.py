"""The floor under the SQLite store's append: what one committed log entry costs, cold.

An action is answered only once its log entry is committed, so the commit is on the acting
seat's path. This script times, in turns within one run (so that each sees the same drift
of a shared machine), one append of a log entry after ``--pause-ms`` of idle CPU (as in
``cardhall bench``'s paced phase, where every action finds the CPU cold), over ``--rooms``
rooms in turn:

* ``write``: ``os.write`` of the packed entry to an append-only file: the floor of any
  append that survives a ``kill -9`` (it is in the operating system, as a commit is with
  ``synchronous=NORMAL``);
* ``sql in memory``: the same ``INSERT`` into an in-memory SQLite table (no file, no
  lock): SQLite's own work, what any commit through it costs at least;
* ``insert``: that ``INSERT`` as a transaction of its own (autocommit) on the store's data
  file and connection (WAL, ``synchronous=NORMAL``, its locks and checkpoints), under room
  ids of its own;
* ``begin insert commit``: the same inside ``BEGIN IMMEDIATE`` ... ``COMMIT``;
* ``store append``: :meth:`SQLiteStore.append` of one entry, alone in its loop tick, as
  ``cardhall serve`` opens the store (one ``write(2)`` to the append journal, folded into
  SQLite when the loop goes round, outside the timed part);
* ``store append, no journal``: the same without the journal (one ``INSERT``, committed by
  itself: the store of session 15);
* ``memory store append``: :meth:`MemoryStore.append`, for comparison.

Prints p50 and p90 of each in µs::

    python benchmarks/sqlite_floor.py
    python benchmarks/sqlite_floor.py --appends 3000 --pause-ms 0    # warm
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sqlite3
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from cardhall.server.store.memory_store import MemoryStore
from cardhall.server.store.sqlite_journal import APPEND
from cardhall.server.store.sqlite_store import SQLiteStore
from cardhall.server.store.ports import pack

#: A Skipper log entry as the rooms append it.
ENTRY = ["a", 1, ["play", "QS"]]
LOG_TABLE = ("CREATE TABLE log (room TEXT NOT NULL, seq INTEGER NOT NULL, entry BLOB NOT "
             "NULL, PRIMARY KEY (room, seq)) WITHOUT ROWID")


def _p(xs: list[float], f: float) -> float:
    return sorted(xs)[int(len(xs) * f)]


async def run(folder: Path, appends: int, rooms: int, pause: float) -> dict[str, list[float]]:
    """Time ``appends`` appends of each kind (µs), in turns, ``pause`` s of sleep before each.
    """
    store = SQLiteStore(folder / "store.db")
    plain = SQLiteStore(folder / "plain.db", journal=False)
    memory = MemoryStore()
    db = store.file.db  # its connection: the same file, settings and page cache
    mem = sqlite3.connect(":memory:", isolation_level=None)
    mem.execute(LOG_TABLE)
    fd = os.open(folder / "entries.log", os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    ids = [f"room{k:04d}" for k in range(rooms)]
    leases = {r: await store.save_room(r, {"room": r, "game": "skipper", "code": None},
                                       {"status": "playing"}, _summary(r)) for r in ids}
    pleases = {r: await plain.save_room(r, {"room": r, "game": "skipper", "code": None},
                                        {"status": "playing"}, _summary(r)) for r in ids}
    mleases = {r: await memory.save_room(r, {"room": r, "game": "skipper", "code": None},
                                         {"status": "playing"}, _summary(r)) for r in ids}
    seq = dict.fromkeys(ids, 0)
    entry = pack(ENTRY)

    def sync(fn: Callable[[str, int], Any]) -> Callable[[str, int], Awaitable[None]]:
        async def timed(room: str, n: int) -> None:
            fn(room, n)
        return timed

    kinds: dict[str, Callable[[str, int], Awaitable[None]]] = {
        "write": sync(lambda r, n: os.write(fd, entry)),
        "sql in memory": sync(lambda r, n: mem.execute(APPEND, (r, n, entry))),
        "insert": sync(lambda r, n: db.execute(APPEND, (f"{r}/i", n, entry))),
        "begin insert commit": sync(lambda r, n: (db.execute("BEGIN IMMEDIATE"),
                                                  db.execute(APPEND, (f"{r}/b", n, entry)),
                                                  db.execute("COMMIT"))),
        "store append": lambda r, n: store.append(r, [ENTRY], n, None, lease=leases[r]),
        "store append, no journal": lambda r, n: plain.append(r, [ENTRY], n, None,
                                                              lease=pleases[r]),
        "memory store append": lambda r, n: memory.append(r, [ENTRY], n, None,
                                                          lease=mleases[r]),
    }
    times: dict[str, list[float]] = {k: [] for k in kinds}
    try:
        for i in range(appends):
            room = ids[i % rooms]
            for kind, op in kinds.items():
                await asyncio.sleep(0)  # a tick of its own
                time.sleep(pause)  # on purpose: the CPU idles, and its caches go cold
                t0 = time.perf_counter()
                await op(room, seq[room])
                times[kind].append((time.perf_counter() - t0) * 1e6)
            seq[room] += 1
    finally:
        os.close(fd)
        mem.close()
        await store.close()
        await plain.close()
    return times


def _summary(room: str) -> dict[str, Any]:
    return {"room": room, "name": room, "game": "skipper", "mode": "multi", "seats": 4,
            "taken": 4, "status": "playing", "private": False, "spectators": 0}


def main() -> None:
    """Command line: p50 and p90 of each kind of append, in µs."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--appends", type=int, default=1500, help="appends of each kind")
    parser.add_argument("--rooms", type=int, default=100, help="rooms taking turns")
    parser.add_argument("--pause-ms", type=float, default=5.0,
                        help="sleep before each append, in ms (0: warm)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="cardhall-sqlite-floor-") as tmp:
        times = asyncio.run(run(Path(tmp), args.appends, args.rooms, args.pause_ms / 1000))
    print(f"{args.appends} appends of each kind, {args.rooms} rooms in turn, "
          f"{args.pause_ms:g} ms idle before each (us):")
    for kind, xs in times.items():
        print(f"  {kind:<26} p50 {_p(xs, .5):7.1f}  p90 {_p(xs, .9):7.1f}")


if __name__ == "__main__":
    main()
