"""``cardhall bench``'s figures of the SQLite store that a load phase does not give: how
much the data file grows per action, and how long a restart takes with rooms in play.

One run (:func:`bench_restart`): a bench server on a fresh data file, finished rooms kept
(``--finished-ttl 3600``: nothing is deleted, so the file holds every action played);
``restart_rooms`` tables of 4 bench clients play, paced while the tables are made, then in a
closed loop for ``seconds``. Growth: the file's size as the server's transactions left it
(``PRAGMA page_count`` read through a connection of its own, so the write-ahead log counts)
and its log entries, read halfway through the closed loop and at its end: bytes per 1,000
entries played in between, when every table has its room already (what play adds, not room
setup), beside the entries' own bytes. Restart: the server is killed with ``kill -9``
mid-game (every room in play); a new server is started on the same file and port and timed
until it listens and answers (any room then loads at its first request), and until its log
says it has loaded every room in the background (``Cluster.restore``, ``rooms_restored``).
"""

from __future__ import annotations

import asyncio
import re
import sqlite3
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from .config import BenchConfig
from .loadgen import Load, close_load, open_cardhall
from .procs import Child
from .servers import sqlite_options, start_cardhall

#: The restarted server's line that says how long loading the rooms took.
RESTORED = re.compile(r"event=rooms_restored rooms=(\d+) failed=(\d+) seconds=([\d.]+)")
#: Seconds the restarted server is given to load every room.
RESTORE_TIMEOUT = 120.0


async def _restored(log: Path, timeout: float) -> re.Match[str] | None:
    """The ``rooms_restored`` line of ``log`` once it is written (None: not in ``timeout``
    seconds)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = RESTORED.search(log.read_text(errors="replace"))
        if found:
            return found
        await asyncio.sleep(0.05)
    return None


def _measure(path: Path) -> tuple[int, int, int]:
    """``(bytes, log entries, entry bytes)`` of the data file as committed so far, read
    through a connection of its own (a reader beside the server's writer)."""
    db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    try:
        pages = db.execute("PRAGMA page_count").fetchone()[0]
        size = db.execute("PRAGMA page_size").fetchone()[0]
        entries, entry_bytes = db.execute("SELECT count(*), sum(length(entry)) FROM log"
                                          ).fetchone()
    finally:
        db.close()
    return int(pages) * int(size), int(entries), int(entry_bytes or 0)


async def bench_restart(cfg: BenchConfig, folder: Path, cpus: set[int] | None,
                        say: Callable[[str], None]) -> dict[str, Any]:
    """File growth and restart time of the SQLite store (see the module docstring).

    Args:
        cfg: The bench's configuration (``restart_rooms``, ``throughput_seconds``,
            ``sqlite_commit``, ``sqlite_fsync``, ``seed``).
        folder: Where the data file and the servers' logs go.
        cpus: CPUs of the server (None: anywhere).
        say: Progress messages.

    Returns:
        ``rooms`` (tables), ``actions`` (log entries added in the second half of the closed
        loop), ``entries_per_room`` (log entries in the file per table, at the kill),
        ``bytes_per_1000_actions`` (file growth meanwhile, per 1,000 of them),
        ``entry_bytes_per_1000_actions`` (the entries' own bytes), ``rooms_restored``,
        ``to_listening_s`` (spawn of the restarted server to its port answering),
        ``restore_s`` (its loading of every room in the background, from its log; None when
        it did not end in :data:`RESTORE_TIMEOUT`).

    Raises:
        RuntimeError: a server did not start; TimeoutError, OSError: the load failed.
    """
    data = folder / "restart.db"
    options = (*sqlite_options(data, cfg), "--finished-ttl", "3600")
    first = start_cardhall(None, folder / "restart-1.log", cpus, options=options)
    restarted: Child | None = None
    load: Load | None = None
    try:
        say(f"sqlite restart: {cfg.restart_rooms} rooms of 4 connections, closed loop "
            f"{cfg.throughput_seconds:g} s")
        # Paced while the tables are made (a closed loop would starve their requests), then
        # a closed loop.
        load, _ = await open_cardhall(first.url, first.pid,
                                      replace(cfg, rooms=cfg.restart_rooms, rate=200.0))
        load.pace(0.0)
        await asyncio.sleep(cfg.throughput_seconds / 2)
        before = _measure(data)
        await asyncio.sleep(cfg.throughput_seconds / 2)
        after = _measure(data)
        load.pause()
        first.proc.kill()  # kill -9, mid-game
        first.proc.wait()
        load.running = False
        await close_load(load)  # its 4,000 dead sockets closed before the clock starts
        load = None
        say("sqlite restart: killed with -9; restarting on the same file")
        started = time.perf_counter()
        restarted = start_cardhall(None, folder / "restart-2.log", cpus, options=options,
                                   port=first.port)
        to_listening = time.perf_counter() - started
        found = await _restored(folder / "restart-2.log", RESTORE_TIMEOUT)
    finally:
        if load is not None:
            load.running = False
            await close_load(load)
        first.stop()
        if restarted is not None:
            restarted.stop()  # SIGTERM: the log is checkpointed into the file
    played = after[1] - before[1]
    return {"rooms": cfg.restart_rooms, "actions": played,
            "entries_per_room": round(after[1] / cfg.restart_rooms, 1),
            "bytes_per_1000_actions": 1000 * (after[0] - before[0]) / played
            if played > 0 else None,
            "entry_bytes_per_1000_actions": 1000 * (after[2] - before[2]) / played
            if played > 0 else None,
            "rooms_restored": int(found.group(1)) if found else None,
            "to_listening_s": round(to_listening, 3),
            "restore_s": float(found.group(3)) if found else None}
