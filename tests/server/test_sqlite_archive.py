"""The games archive in the SQLite data file (issue #44 item 2): schema version 4 adds its
table to a file of version 3 (nothing else changes), and its records are kept, replaced,
pruned by finish time and purged by room, across a reopening of the file."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from cardhall.server.store import sqlite_schema as S
from cardhall.server.store.sqlite_store import SQLiteStore


def game(room: str, finished_at: float) -> dict[str, object]:
    return {"room": room, "finished_at": finished_at, "entries": [["a", 0, ["end"]]],
            "private": False, "players": [None]}


async def test_version_3_files_get_the_archive(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    db = sqlite3.connect(path, isolation_level=None)
    for migration in S.MIGRATIONS[:3]:
        migration(db)
    db.execute("INSERT INTO boards (board, name, value) VALUES ('b', 'n', 1)")
    db.execute("PRAGMA user_version = 3")
    db.close()
    store = SQLiteStore(path)
    try:
        assert S.SCHEMA_VERSION >= 4
        assert store.file.db.execute("PRAGMA user_version").fetchone()[0] == S.SCHEMA_VERSION
        assert await store.board_page("b", 0, 10) == ([("n", 1)], 1)
        assert await store.archived("r1") is None
    finally:
        await store.close()


async def test_records_are_kept_pruned_and_purged(tmp_path: Path) -> None:
    path = tmp_path / "data.db"
    store = SQLiteStore(path, commit="tick")
    try:
        await store.archive_game("r1", game("r1", 100.0))
        await store.archive_game("r2", game("r2", 200.0))
        await store.archive_game("r2", game("r2", 300.0))  # replaced, not doubled
        await store.archive_game("r3", game("r3", 400.0), keep=1.0)  # pruned, not expired
    finally:
        await store.close()
    store = SQLiteStore(path, commit="tick")
    try:
        assert await store.archived("r1") == game("r1", 100.0)
        assert (await store.archived("r2") or {})["finished_at"] == 300.0
        assert await store.archived_ids(0, 10) == ["r1", "r2", "r3"]  # by finish time
        assert await store.archived_ids(1, 1) == ["r2"]
        assert await store.prune_archive(300.0) == 1  # r1 only: r2 finished at 300
        assert await store.archived("r1") is None
        assert await store.purge_archived(["r2", "r2", "nope"]) == 1
        assert await store.archived("r2") is None and await store.archived("r3") is not None
    finally:
        await store.close()
