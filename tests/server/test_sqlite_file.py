"""Tests of the data file itself (``cardhall.server.store.sqlite_file``), below the store: what
``open_file`` refuses and why, a write whose work fails, reads that fail, the lock released
on close, backups. (tests/server/test_sqlite_store.py tests the store over it.)"""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import pytest
from cardhall.server.store import sqlite_file as F
from cardhall.server.store import sqlite_schema as S
from cardhall.server.store.ports import StoreError


@pytest.mark.parametrize("options, needle", [
    ({"fsync": "sometimes"}, "fsync must be one of normal, always"),
    ({"commit": "never"}, "commit must be one of tick, each, adaptive"),
])
def test_unknown_settings_are_refused_before_the_file_is_touched(
        tmp_path: Path, options: dict[str, str], needle: str) -> None:
    """ValueError; no file and no lock made."""
    with pytest.raises(ValueError, match=needle):
        F.open_file(tmp_path / "d.db", **options)
    assert list(tmp_path.iterdir()) == []


def test_a_file_that_is_not_ours_or_too_new_is_refused_and_the_lock_let_go(
        tmp_path: Path) -> None:
    """A text file and a file of a later schema each give one DataFileError saying what to
    do; the lock is released, so the next open (of a good file) succeeds."""
    path = tmp_path / "d.db"
    path.write_text("not a database, just text " * 100)
    with pytest.raises(F.DataFileError, match="not a Cardhall data file or is damaged"):
        F.open_file(path)
    path.unlink()
    db = sqlite3.connect(path)
    db.execute(f"PRAGMA user_version = {S.SCHEMA_VERSION + 1}")
    db.close()
    with pytest.raises(F.DataFileError, match="newer than this Cardhall's"):
        F.open_file(path)
    path.unlink()
    data = F.open_file(path)
    try:
        assert data.db.execute("PRAGMA user_version").fetchone()[0] == S.SCHEMA_VERSION
        assert data.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    finally:
        data.close()
    assert data.lock is None
    F.open_file(path).close()  # the lock was released by close


async def test_a_write_whose_work_raises_writes_nothing_of_its_own(tmp_path: Path) -> None:
    """Its exception reaches the caller; the writes before it stay and are counted."""
    data = F.open_file(tmp_path / "d.db", commit="each")
    try:
        await data.write(lambda db: db.execute("CREATE TABLE t (x INTEGER)"))
        await data.write(lambda db: db.execute("INSERT INTO t VALUES (1)"))

        def fails(db: sqlite3.Connection) -> None:
            db.execute("INSERT INTO t VALUES (2)")
            raise KeyError("fenced off")

        with pytest.raises(KeyError, match="fenced off"):
            await data.write(fails)
        with data.reading() as db:
            assert [r[0] for r in db.execute("SELECT x FROM t")] == [1]
        assert not data.failing
        with pytest.raises(StoreError, match="refused a read"):
            with data.reading() as db:
                db.execute("SELECT nope FROM nowhere")
        assert data.errors == 1
    finally:
        data.close()


async def test_a_tick_whose_fold_fails_with_a_bug_answers_its_writes_and_rolls_back(
        tmp_path: Path) -> None:
    """``commit="tick"``: the tick's transaction folds the journal first; should the fold
    fail with a bug (here a waiting row it cannot read), every write of the tick gets the
    error rather than waiting forever, and the transaction is rolled back."""
    data = F.open_file(tmp_path / "d.db", commit="tick")
    try:
        assert data.journal is not None
        data.journal.waiting["r00"] = [("r00", -2)]  # type: ignore[list-item]
        writes = [data.write(lambda db: db.execute("SELECT 1")) for _ in range(2)]
        async with asyncio.timeout(2):
            results = await asyncio.gather(*writes, return_exceptions=True)
        assert [type(r) in (TypeError, ValueError) for r in results] == [True, True]
        assert not data.db.in_transaction
        data.journal.waiting.clear()
        assert await data.write(lambda db: db.execute("SELECT 7").fetchone()[0]) == 7
    finally:
        data.close()


async def test_a_refused_write_is_not_counted_as_committed(tmp_path: Path) -> None:
    """``writes``: "Writes committed"; a write whose work raised committed nothing (it was
    counted as a committed write and transaction, and so in the close log line)."""
    data = F.open_file(tmp_path / "d.db", commit="each")
    try:
        await data.write(lambda db: db.execute("CREATE TABLE t (x INTEGER)"))

        def fails(db: sqlite3.Connection) -> None:
            raise KeyError("fenced off")

        with pytest.raises(KeyError):
            await data.write(fails)
        assert (data.writes, data.commits) == (1, 1)
    finally:
        data.close()


def test_a_backup_is_a_whole_private_file_and_a_missing_source_is_an_error(
        tmp_path: Path) -> None:
    """One self-contained file (no ``-wal`` beside it), mode 0600, no ``.part`` left."""
    source = tmp_path / "d.db"
    F.open_file(source).close()
    copy = tmp_path / "copy.db"
    size = F.backup(source, copy)
    assert size == copy.stat().st_size > 0 and copy.stat().st_mode & 0o777 == 0o600
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("copy")) == [
        "copy.db"]
    with pytest.raises(F.DataFileError, match="no data file at"):
        F.backup(tmp_path / "missing.db", tmp_path / "x.db")
    assert F.lock_path(source).name == "d.db.lock"


def test_lobby_columns_place_a_room_in_the_indexes() -> None:
    """``(game, waiting)``: waiting only for a public waiting room with a free seat."""
    room = {"game": "shop", "status": "waiting", "private": False, "taken": 0, "seats": 1}
    assert S.lobby_columns(room) == ("shop", 1)
    assert S.lobby_columns({**room, "taken": 1}) == ("shop", 0)
    assert S.lobby_columns({**room, "private": True}) == ("shop", 0)
