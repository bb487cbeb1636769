"""The data file's append journal (server/store/sqlite_journal.py, issue #30): a lone log append is
one ``write(2)``, answered at once, folded into SQLite after; a ``kill -9`` loses none of
them, a torn tail is dropped, a full disk refuses the append and keeps the journal whole,
and reads and backups see every acknowledged entry.
"""

from __future__ import annotations

import asyncio
import errno
import logging
import os
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from cardhall.server.store import sqlite_journal
from cardhall.server.store import sqlite_file
from cardhall.server.store.sqlite_file import backup
from cardhall.server.store.sqlite_journal import (DEADLINES, STATE, AppendJournal, decode,
                                                  deadlines_row, encode, journal_path,
                                                  snapshot_row)
from cardhall.server.store.sqlite_store import SQLiteStore
from cardhall.server.store.ports import StoreError, pack, unpack

from .test_sqlite_store import add_room, rows

ENTRY = ["a", 0, ["play", "QS"]]
#: Seconds from an append to the fold of the journal.
FOLD = sqlite_journal.FOLD_SECONDS


def disk_full(fd: int, data: bytes) -> int:
    """``os.write`` on a full disk: refuses every write (``ENOSPC``)."""
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


def test_records_round_trip_and_a_torn_or_damaged_tail_ends_the_journal() -> None:
    made = [("r1", 0, pack(ENTRY)), ("ré", 2**40, b""), ("r1", 1, pack(["end"]))]
    data = b"".join(encode(row) for row in made)
    assert decode(data) == (made, 0)
    for cut in range(1, len(encode(made[2]))):  # a power loss tore the last record
        assert decode(data[:-cut]) == (made[:2], len(encode(made[2])) - cut)
    damaged = bytearray(data)
    damaged[len(encode(made[0])) + 9] ^= 0xFF  # a flipped bit in the second payload
    assert decode(bytes(damaged)) == (made[:1], len(data) - len(encode(made[0])))
    assert decode(b"") == ([], 0)


async def test_a_lone_append_is_one_write_answered_at_once_and_folded_after(
        tmp_path: Path) -> None:
    path = tmp_path / "data.db"
    store = SQLiteStore(path)  # the default: fsync normal, with the journal
    try:
        assert store.file.journal is not None
        lease = await add_room(store, "r", "playing")
        await store.append("r", [ENTRY], 0, None, lease=lease)  # length now known
        await asyncio.sleep(0)
        statements: list[str] = []
        store.file.db.set_trace_callback(statements.append)
        lone = store.append("r", [["a", 1, ["draw"]]], 1, None, lease=lease)
        with pytest.raises(StopIteration):
            lone.send(None)  # answered without waiting
        assert statements == []  # no SQL before the answer: one write(2) to the journal
        assert decode(journal_path(path).read_bytes())[0] == [("r", 1, pack(["a", 1,
                                                                              ["draw"]]))]
        assert rows(path, "SELECT count(*) FROM log") == [(1,)]  # not in SQLite yet
        await asyncio.sleep(0)  # the loop goes round: the fold waits for more
        assert statements == [] and rows(path, "SELECT count(*) FROM log") == [(1,)]
        await asyncio.sleep(FOLD + 0.05)  # the fold
        assert statements[0] == "BEGIN IMMEDIATE" and statements[-1] == "COMMIT"
        assert rows(path, "SELECT count(*) FROM log") == [(2,)]
        assert journal_path(path).stat().st_size == 0  # emptied once folded
    finally:
        await store.close()
    assert not journal_path(path).exists()  # a clean close leaves no journal


async def traced_room(store: SQLiteStore) -> tuple[Any, list[str]]:
    """Room ``r`` made in ``store`` with its first entry (its length now known), and the SQL
    statements the file runs from here on: ``(its lease, the statements)``."""
    lease = await add_room(store, "r", "playing")
    await store.append("r", [ENTRY], 0, None, lease=lease)
    statements: list[str] = []
    store.file.db.set_trace_callback(statements.append)
    return lease, statements


async def test_an_append_with_a_new_state_is_one_write_and_the_fold_keeps_the_last_state(
        tmp_path: Path) -> None:
    # A turn clock changes the room's state (its deadlines) every turn: the entry and the
    # state go to the journal in one write(2), not through a transaction of their own; once
    # the journal holds the room's state, a turn that moved its deadlines alone writes them
    # alone (tens of bytes, not the whole state: issue #43).
    path = tmp_path / "data.db"
    store = SQLiteStore(path)
    try:
        lease, statements = await traced_room(store)
        first = {"status": "playing", "deadlines": [[1, 101.0]]}
        second = {**first, "deadlines": [[0, 102.0]]}  # as Room.state copies it
        for seq, state in ((1, first), (2, second)):  # two turns in one tick
            turn = store.append("r", [["a", seq, ["draw"]]], seq, state, lease=lease)
            with pytest.raises(StopIteration):
                turn.send(None)  # answered without waiting
        assert statements == []
        assert decode(journal_path(path).read_bytes())[0] == [
            ("r", 1, pack(["a", 1, ["draw"]])),
            ("r", STATE, pack(first)),
            ("r", 2, pack(["a", 2, ["draw"]])),
            ("r", DEADLINES, pack([[0, 102.0]]))]
        await asyncio.sleep(FOLD + 0.05)  # the fold: one transaction, the last state wins
        assert statements[0] == "BEGIN IMMEDIATE" and statements[-1] == "COMMIT"
        assert rows(path, "SELECT seq FROM log ORDER BY seq") == [(0,), (1,), (2,)]
        (stored,), = rows(path, "SELECT state FROM rooms WHERE room = 'r'")
        assert unpack(stored) == second
    finally:
        await store.close()


async def test_deadlines_alone_go_onto_the_files_state_and_any_other_change_writes_it_whole(
        tmp_path: Path) -> None:
    path = tmp_path / "data.db"
    store = SQLiteStore(path)
    try:
        lease, _ = await traced_room(store)
        seats = [{"name": "ann"}, None]
        base = {"status": "playing", "seats": seats, "deadlines": [[0, 10.0]]}
        await store.append("r", [["a", 1, ["draw"]]], 1, base, lease=lease)
        await asyncio.sleep(FOLD + 0.05)  # folded: the file holds the state, the journal none
        clock = {**base, "deadlines": [[1, 20.0]]}
        await store.append("r", [["a", 2, ["draw"]]], 2, clock, lease=lease)
        equal = {**clock, "seats": [{"name": "ann"}, None], "deadlines": [[0, 30.0]]}
        await store.append("r", [["a", 3, ["draw"]]], 3, equal, lease=lease)
        kinds = [seq for _, seq, _ in decode(journal_path(path).read_bytes())[0]]
        # An equal value that is not the same object is a change the store cannot see
        # cheaply: the whole state is written (never a stale one).
        assert kinds == [2, DEADLINES, 3, STATE]
        await asyncio.sleep(FOLD + 0.05)
        (stored,), = rows(path, "SELECT state FROM rooms WHERE room = 'r'")
        assert unpack(stored) == equal
        later = {**equal, "deadlines": []}
        await store.append("r", [["a", 4, ["draw"]]], 4, later, lease=lease)
        assert decode(journal_path(path).read_bytes())[0][-1] == ("r", DEADLINES, pack([]))
        loaded = await store.load("r")  # a read folds it onto the file's state
        assert loaded is not None and loaded.state == later
    finally:
        await store.close()


async def test_a_state_that_failed_to_land_is_never_the_base_of_deadlines(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "data.db"
    store = SQLiteStore(path)
    try:
        lease, _ = await traced_room(store)
        base = {"status": "playing", "deadlines": [[0, 10.0]]}
        await store.append("r", [["a", 1, ["draw"]]], 1, base, lease=lease)
        moved = {"status": "over", "deadlines": [[0, 10.0]]}
        real_write = os.write

        monkeypatch.setattr(sqlite_journal.os, "write", disk_full)
        with pytest.raises(StoreError):
            await store.append("r", [["a", 2, ["draw"]]], 2, moved, lease=lease)
        monkeypatch.setattr(sqlite_journal.os, "write", real_write)
        # The next append goes through a transaction (which writes the state whole), and
        # the one after it writes its deadlines alone, onto that state, never onto `moved`.
        retried = {**moved, "deadlines": [[0, 20.0]]}
        await store.append("r", [["a", 2, ["draw"]]], 2, retried, lease=lease)
        ticked = {**retried, "deadlines": [[0, 25.0]]}
        await store.append("r", [["a", 3, ["draw"]]], 3, ticked, lease=lease)
        assert decode(journal_path(path).read_bytes())[0][-1][1] == DEADLINES
        loaded = await store.load("r")
        assert loaded is not None and loaded.state == ticked
        await store.release("r")  # the room is given up: what this process wrote is forgotten
        again = await store.acquire("r")
        last = {**ticked, "deadlines": [[0, 30.0]]}
        await store.append("r", [["a", 4, ["draw"]]], 4, last, lease=again)
        assert decode(journal_path(path).read_bytes())[0][-1][1] == STATE
        loaded = await store.load("r")
        assert loaded is not None and loaded.state == last
    finally:
        monkeypatch.undo()
        await store.close()


async def test_a_snapshot_is_one_write_to_the_journal_and_folded_with_the_log(
        tmp_path: Path) -> None:
    path = tmp_path / "data.db"
    store = SQLiteStore(path)
    try:
        _, statements = await traced_room(store)
        for sid in (1, 2):  # two in one fold: the latest is kept
            await store.save_snapshot("r", sid, {"sid": sid})
        assert statements == []  # no transaction of its own
        await asyncio.sleep(FOLD + 0.05)  # the fold
        assert rows(path, "SELECT state_id, snapshot FROM snapshots") == [(2, pack({"sid": 2}))]
        await store.save_snapshot("r", 3, {"sid": 3})
        loaded = await store.load("r")  # a read folds what waits first
        assert loaded is not None and loaded.snapshot == {"sid": 3}
    finally:
        await store.close()


def test_a_restart_folds_a_journaled_state_into_its_room(tmp_path: Path) -> None:
    path = tmp_path / "data.db"

    async def made() -> None:
        store = SQLiteStore(path)
        try:
            await add_room(store, "r", "playing")
        finally:
            await store.close()

    asyncio.run(made())
    # What a process killed mid-game leaves: an entry and the state after it, journaled.
    journal_path(path).write_bytes(
        encode(("r", 0, pack(ENTRY))) + encode(("r", STATE, pack({"status": "over"})))
        + encode(snapshot_row("r", 1, pack({"sid": 1}))))
    store = SQLiteStore(path)
    try:
        async def loaded() -> Any:
            return await store.load("r")

        room = asyncio.run(loaded())
        assert room is not None and room.state == {"status": "over"}
        assert rows(path, "SELECT state_id, snapshot FROM snapshots") == [(1, pack({"sid": 1}))]
        assert rows(path, "SELECT count(*) FROM log WHERE seq < 0") == [(0,)]
    finally:
        store.file.close()


def test_a_restart_puts_journaled_deadlines_onto_the_state_before_them(tmp_path: Path) -> None:
    path = tmp_path / "data.db"

    async def made() -> None:
        store = SQLiteStore(path)
        try:
            await add_room(store, "r", "playing")  # its state in the file: {"status": ...}
            await add_room(store, "q", "waiting")
            await add_room(store, "gone", "playing")
            await store.delete_room("gone")
        finally:
            await store.close()

    asyncio.run(made())
    # A process killed mid-game: deadlines onto the file's state, a whole state then its
    # deadlines, deadlines of a room deleted since (nothing to put them on).
    journal_path(path).write_bytes(
        encode(("r", 0, pack(ENTRY))) + encode(deadlines_row("r", [[0, 5.0]]))
        + encode(("q", STATE, pack({"status": "playing", "deadlines": []})))
        + encode(deadlines_row("q", [[1, 6.0]])) + encode(deadlines_row("q", [[0, 7.0]]))
        + encode(deadlines_row("gone", [[0, 8.0]])))
    store = SQLiteStore(path)
    try:
        assert unpack(rows(path, "SELECT state FROM rooms WHERE room = 'r'")[0][0]) == {
            "status": "playing", "deadlines": [[0, 5.0]]}
        assert unpack(rows(path, "SELECT state FROM rooms WHERE room = 'q'")[0][0]) == {
            "status": "playing", "deadlines": [[0, 7.0]]}  # the journal's state, its last ones
        assert rows(path, "SELECT count(*) FROM rooms WHERE room = 'gone'") == [(0,)]
        assert journal_path(path).stat().st_size == 0
    finally:
        store.file.close()


async def test_what_waits_in_the_journal_is_bounded(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    # Appends that never let the loop go round (no fold callback) still do not pile up in
    # the journal: past its limit an append goes through a transaction, which folds it.
    monkeypatch.setattr(sqlite_file, "LIMIT", 2000)
    path = tmp_path / "data.db"
    store = SQLiteStore(path)
    try:
        lease = await add_room(store, "r", "playing")
        biggest = 0
        for seq in range(60):
            await store.append("r", [["a", seq, ["play", "x" * 100]]], seq,
                               {"status": "playing", "pad": "y" * 300}, lease=lease)
            biggest = max(biggest, journal_path(path).stat().st_size)
        assert 2000 < biggest < 2000 + 2 * 600  # the limit, and one append past it
        assert rows(path, "SELECT count(*) FROM log")[0][0] > 0  # folds happened
        assert len(await store.log("r")) == 60
    finally:
        await store.close()


async def test_reads_and_transactions_see_what_waits_in_the_journal(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "data.db")
    try:
        lease = await add_room(store, "r", "playing")
        await store.append("r", [ENTRY], 0, None, lease=lease)
        await asyncio.sleep(0)
        for seq in range(1, 4):  # three in one tick: all in the journal
            await store.append("r", [["a", seq, ["draw"]]], seq, None, lease=lease)
        assert store.file.journal is not None and len(store.file.journal.pending) == 3
        assert len(await store.log("r")) == 4  # the read folded them first
        await store.append("r", [["a", 4, ["draw"]]], 4, None, lease=lease)
        await store.append("r", [["a", 0, ["end"]]], 5, {"status": "finished"}, lease=lease)
        loaded = await store.load("r")  # the transaction with the state folded it first
        assert loaded is not None and len(loaded.entries) == 6
        assert [e[2] for e in loaded.entries][4:] == [["draw"], ["end"]]
    finally:
        await store.close()


KILLED = textwrap.dedent("""
    import asyncio, os, signal, sys
    from cardhall.server.store.sqlite_store import SQLiteStore

    async def main() -> None:
        store = SQLiteStore(sys.argv[1])
        summary = {"room": "r", "name": "r", "game": "skipper", "mode": "solo", "seats": 1,
                   "taken": 1, "status": "playing", "private": False, "spectators": 0}
        lease = await store.save_room("r", {"room": "r", "game": "skipper", "code": None},
                                      {"status": "playing"}, summary)
        await store.append("r", [["a", 0, ["draw"]]], 0, None, lease=lease)
        await asyncio.sleep(0)  # folded
        for seq in range(1, 6):  # acknowledged, in the journal alone
            await store.append("r", [["a", seq, ["draw"]]], seq, None, lease=lease)
        print(len(store.file.journal.pending), flush=True)
        os.kill(os.getpid(), signal.SIGKILL)

    asyncio.run(main())
""")


def test_a_kill_9_loses_no_acknowledged_append_and_the_next_open_folds_them(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    path = tmp_path / "data.db"
    done = subprocess.run([sys.executable, "-c", KILLED, str(path)], capture_output=True,
                          text=True, timeout=60, check=False)
    assert done.returncode == -9 and done.stdout.split() == ["5"], done.stderr
    assert rows(path, "SELECT count(*) FROM log") == [(1,)]  # SQLite alone: the first
    assert len(decode(journal_path(path).read_bytes())[0]) == 5
    copy = tmp_path / "copy.db"
    backup(path, copy)  # nobody serves the file: the backup folds the journal first
    assert rows(copy, "SELECT count(*) FROM log") == [(6,)]
    assert journal_path(path).stat().st_size == 0
    # And a restart folds it when the backup has not: a journal written again by hand.
    journal_path(path).write_bytes(encode(("r", 6, pack(["a", 6, ["end"]]))))
    with caplog.at_level(logging.INFO, logger="cardhall.sqlite"):
        store = SQLiteStore(path)
    try:
        assert "1 log entries folded" in caplog.text

        async def log() -> list[Any]:
            return await store.log("r")

        entries = asyncio.run(log())
        assert [e[2] for e in entries] == [["draw"]] * 6 + [["end"]]
    finally:
        store.file.close()


def test_a_restart_drops_a_torn_record_and_keeps_the_whole_ones(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    path = tmp_path / "data.db"
    SQLiteStore(path).file.close()
    records = [encode(("r", k, pack(["a", k, ["draw"]]))) for k in range(3)]
    journal_path(path).write_bytes(b"".join(records) + records[0][:7])  # torn by a crash
    with caplog.at_level(logging.WARNING, logger="cardhall.sqlite"):
        store = SQLiteStore(path)
    store.file.close()
    assert "7 bytes after its last whole record dropped" in caplog.text
    assert rows(path, "SELECT seq FROM log ORDER BY seq") == [(0,), (1,), (2,)]


async def test_a_refused_journal_write_is_cut_back_and_refused_then_sqlite_takes_over(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "data.db"
    store = SQLiteStore(path)
    try:
        lease = await add_room(store, "r", "playing")
        await store.append("r", [ENTRY], 0, None, lease=lease)
        await store.append("r", [ENTRY], 1, None, lease=lease)  # in the journal
        before = journal_path(path).read_bytes()
        real_write = os.write

        def short(fd: int, data: bytes) -> int:  # the disk fills in the middle of a record
            return real_write(fd, data[:5])

        monkeypatch.setattr(sqlite_journal.os, "write", short)
        with pytest.raises(StoreError, match="disk is full"):
            await store.append("r", [ENTRY], 2, None, lease=lease)
        assert journal_path(path).read_bytes() == before  # no torn record left behind

        monkeypatch.setattr(sqlite_journal.os, "write", disk_full)
        assert not await store.healthy()
        assert store.file.append_alone(("r", 2, pack(ENTRY))) is False  # not while failing
        # While the file refuses writes, appends go through SQLite (which folds the
        # journal first) and the journal is not written.
        await store.append("r", [ENTRY], 2, None, lease=lease)
        assert await store.healthy()
        assert journal_path(path).stat().st_size == 0
        assert rows(path, "SELECT seq FROM log ORDER BY seq") == [(0,), (1,), (2,)]
    finally:
        monkeypatch.undo()
        await store.close()


async def test_a_fold_that_clashes_keeps_the_logs_row_and_the_journal_goes_on(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    path = tmp_path / "data.db"
    store = SQLiteStore(path)
    try:
        lease = await add_room(store, "r", "playing")
        await store.append("r", [ENTRY], 0, None, lease=lease)
        await asyncio.sleep(0)
        db = sqlite3.connect(path)  # a row this store does not know of (never in service)
        db.execute("INSERT INTO log (room, seq, entry) VALUES ('r', 1, ?)", (pack(["x"]),))
        db.commit()
        db.close()
        with caplog.at_level(logging.ERROR, logger="cardhall.sqlite"):
            await store.append("r", [["a", 1, ["y"]]], 1, None, lease=lease)
            await asyncio.sleep(FOLD + 0.05)  # the fold: it does not fail for good
        assert "1 journaled log entries clashed" in caplog.text
        await store.append("r", [["a", 2, ["z"]]], 2, None, lease=lease)
        assert await store.log("r") == [ENTRY, ["x"], ["a", 2, ["z"]]]
        assert await store.healthy()
    finally:
        await store.close()


def test_no_journal_when_every_commit_syncs_the_disk(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "data.db", fsync="always")
    try:
        assert store.file.journal is None
        assert not journal_path(tmp_path / "data.db").exists()
    finally:
        store.file.close()


def test_the_journal_is_private(tmp_path: Path) -> None:
    journal = AppendJournal(tmp_path / "data.db")
    try:
        assert journal.path.stat().st_mode & 0o777 == 0o600
    finally:
        journal.close()
    assert not journal.path.exists()  # empty: removed
