"""Tests of the checks of a data file's bytes (``cardhall.server.store.sqlite_checks``), through
``open_file`` and ``backup``: a file that SQLite would take although it is not a Cardhall data
file (zero-length, bytes appended, another program's database, not a file at all) is refused
with the reason, and left exactly as it was; a file made by this start is not refused."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest
from cardhall.server.store import sqlite_file as F
from cardhall.server.store import sqlite_schema as S


def _made(path: Path) -> Path:
    """A real data file, closed (no write-ahead log beside it)."""
    F.open_file(path).close()
    assert not Path(f"{path}-wal").exists()
    return path


def _refused(path: Path, *needles: str) -> None:
    """open_file raises DataFileError holding every needle; the file is left as it was, and
    the lock is let go (a second try gives the same refusal, not "in use")."""
    before = path.read_bytes()
    for _ in range(2):
        with pytest.raises(F.DataFileError) as err:
            F.open_file(path)
        assert not isinstance(err.value, F.DataFileLocked)
        for needle in needles:
            assert needle in str(err.value), str(err.value)
    assert path.read_bytes() == before
    assert not Path(f"{path}-wal").exists()


def test_a_zero_length_file_is_refused_not_started_as_an_empty_lobby(tmp_path: Path) -> None:
    """SQLite takes an empty file for an empty database: every account would be gone."""
    path = tmp_path / "d.db"
    path.touch()
    _refused(path, str(path), "empty (0 bytes)", "restore a backup")


def test_a_file_made_by_this_start_is_not_refused(tmp_path: Path) -> None:
    """A missing file is made (empty, then the schema) and opened; opened again, it is ours."""
    path = tmp_path / "new" / "d.db"
    _made(path)
    data = F.open_file(path)
    try:
        assert data.db.execute("PRAGMA user_version").fetchone()[0] == S.SCHEMA_VERSION
    finally:
        data.close()


@pytest.mark.parametrize("junk", [b"x", b"\0" * 4096, b"junk appended " * 1000])
def test_a_file_with_bytes_appended_is_refused(tmp_path: Path, junk: bytes) -> None:
    """Bytes past the pages its header counts (SQLite would ignore them): the reason gives
    how many, and what the file should measure."""
    path = _made(tmp_path / "d.db")
    size = path.stat().st_size
    with open(path, "ab") as f:
        f.write(junk)
    _refused(path, f"{len(junk)} bytes", f"{size} bytes", "restore a backup")


def test_a_file_being_written_with_its_log_beside_it_is_not_taken_for_one_with_junk(
        tmp_path: Path) -> None:
    """A server killed with a write-ahead log beside the file: its pages may be in the log
    only, and the file's header behind; the file opens with everything committed."""
    path = _made(tmp_path / "d.db")
    writer = sqlite3.connect(path, isolation_level=None)
    writer.execute("PRAGMA wal_autocheckpoint = 0")
    writer.execute("CREATE TABLE extra (x)")
    writer.executemany("INSERT INTO extra VALUES (?)", [("y" * 500,)] * 200)
    assert Path(f"{path}-wal").stat().st_size > 0
    data = F.open_file(path)
    try:
        assert data.db.execute("SELECT count(*) FROM extra").fetchone()[0] == 200
    finally:
        data.close()
        writer.close()


def test_another_programs_database_is_refused(tmp_path: Path) -> None:
    """A SQLite file with tables and no Cardhall schema version: not migrated into ours."""
    path = tmp_path / "d.db"
    other = sqlite3.connect(path)
    other.execute("CREATE TABLE photos (id INTEGER PRIMARY KEY, name TEXT)")
    other.commit()
    other.close()
    _refused(path, "another program", "photos")


def test_a_folder_is_refused_as_not_a_file(tmp_path: Path) -> None:
    """A folder given as the data file: said so, before any lock file is made."""
    path = tmp_path / "d.db"
    path.mkdir()
    with pytest.raises(F.DataFileError, match="is not a file"):
        F.open_file(path)
    assert not F.lock_path(path).exists()


@pytest.mark.skipif(not os.path.isfile("/proc/version"), reason="no /proc/version")
def test_a_system_file_is_refused_for_what_it_is_not_as_in_use() -> None:
    """``/proc/version`` (a text file in a folder where no lock file can be made): not a
    Cardhall data file, never "in use by another cardhall process"."""
    with pytest.raises(F.DataFileError) as err:
        F.open_file(Path("/proc/version"))
    assert "not a Cardhall data file" in str(err.value)
    assert "in use" not in str(err.value)


def test_a_lock_that_cannot_be_made_says_why(tmp_path: Path) -> None:
    """A data file in a folder where no file can be made (here: below a file): the reason is
    the system's, never "in use by another cardhall process"."""
    (tmp_path / "file").write_text("a file, not a folder")
    with pytest.raises(F.DataFileError) as err:
        F.open_file(tmp_path / "file" / "d.db")
    assert not isinstance(err.value, F.DataFileLocked)
    assert "in use" not in str(err.value)


def test_a_backup_of_a_zero_length_file_is_refused(tmp_path: Path) -> None:
    """``cardhall backup`` copies no empty file as if it were an empty data file."""
    (tmp_path / "d.db").touch()
    with pytest.raises(F.DataFileError, match="empty"):
        F.backup(tmp_path / "d.db", tmp_path / "copy.db")
    assert not (tmp_path / "copy.db").exists()
