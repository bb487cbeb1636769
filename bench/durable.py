"""``cardhall bench``'s figures of the SQLite store that a load phase does not give: how
much the data file grows per action, and how long a restart takes with rooms in play.

One run (:func:`bench_restart`): a bench server on a fresh data file, finished rooms kept
(``--finished-ttl 3600``: nothing is deleted, so the file holds every action played);
``restart_rooms`` tables of 4 bench clients play in a closed loop for ``seconds``; the
server is killed with ``kill -9`` mid-game (every room in play); a new server is started on
the same file and port and timed until it listens (it loads every room before it listens:
``Cluster.restore``; its log gives the loading's own seconds); then it is stopped (SIGTERM:
the write-ahead log checkpointed into the file) and the file is measured: bytes of growth
per 1,000 log entries, and the entries' own bytes.
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

from . import load as b

#: The restarted server's line that says how long loading the rooms took.
RESTORED = re.compile(r"event=rooms_restored rooms=(\d+) failed=(\d+) seconds=([\d.]+)")


def _size(path: Path) -> int:
    """Bytes of the data file and its write-ahead log."""
    wal = path.with_name(path.name + "-wal")
    return path.stat().st_size + (wal.stat().st_size if wal.exists() else 0)


async def bench_restart(cfg: b.BenchConfig, folder: Path, cpus: set[int] | None,
                        say: Callable[[str], None]) -> dict[str, Any]:
    """File growth and restart time of the SQLite store (see the module docstring).

    Args:
        cfg: The bench's configuration (``restart_rooms``, ``throughput_seconds``,
            ``sqlite_commit``, ``sqlite_fsync``, ``seed``).
        folder: Where the data file and the servers' logs go.
        cpus: CPUs of the server (None: anywhere).
        say: Progress messages.

    Returns:
        ``rooms`` (tables), ``actions`` (log entries in the file), ``bytes_per_1000_actions``
        (file growth), ``entry_bytes_per_1000_actions`` (the entries' own bytes),
        ``rooms_restored``, ``to_listening_s`` (spawn of the restarted server to its port
        answering), ``restore_s`` (its loading of the rooms, from its log).

    Raises:
        RuntimeError: a server did not start; TimeoutError, OSError: the load failed.
    """
    data = folder / "restart.db"
    options = (*b.sqlite_options(data, cfg), "--finished-ttl", "3600")
    first = b.start_cardhall(None, folder / "restart-1.log", cpus, options=options)
    restarted: b.Child | None = None
    load: b.Load | None = None
    try:
        empty = _size(data)
        say(f"sqlite restart: {cfg.restart_rooms} rooms of 4 connections, closed loop "
            f"{cfg.throughput_seconds:g} s")
        load, _ = await b.open_cardhall(first.url, first.pid,
                                        replace(cfg, rooms=cfg.restart_rooms, rate=0.0))
        await asyncio.sleep(cfg.throughput_seconds)
        load.pause()
        first.proc.kill()  # kill -9, mid-game
        first.proc.wait()
        say("sqlite restart: killed with -9; restarting on the same file")
        started = time.perf_counter()
        restarted = b.start_cardhall(None, folder / "restart-2.log", cpus, options=options,
                                     port=first.port)
        to_listening = time.perf_counter() - started
    finally:
        if load is not None:
            load.running = False
            await b.close_load(load)
        first.stop()
        if restarted is not None:
            restarted.stop()  # SIGTERM: the log is checkpointed into the file
    found = RESTORED.search((folder / "restart-2.log").read_text(errors="replace"))
    db = sqlite3.connect(f"{data.resolve().as_uri()}?mode=ro", uri=True)
    try:
        actions, entry_bytes = db.execute("SELECT count(*), sum(length(entry)) FROM log"
                                          ).fetchone()
    finally:
        db.close()
    grown = _size(data) - empty
    return {"rooms": cfg.restart_rooms, "actions": actions,
            "bytes_per_1000_actions": 1000 * grown / actions if actions else None,
            "entry_bytes_per_1000_actions": 1000 * (entry_bytes or 0) / actions
            if actions else None,
            "rooms_restored": int(found.group(1)) if found else None,
            "to_listening_s": round(to_listening, 3),
            "restore_s": float(found.group(3)) if found else None}
