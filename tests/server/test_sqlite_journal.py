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

from .test_sqlite_store import add_room, rows, summary

ENTRY = ["a", 0, ["play", "QS"]]
#: Seconds from an append to the fold of the journal.
FOLD = sqlite_journal.FOLD_SECONDS


def stored(path: Path) -> dict[str, dict[str, Any] | None]:
    """Each room's state as the data file at ``path`` holds it, read as the store reads it
    (its ``state`` column with its ``deadlines`` column put on)."""
    return {room: sqlite_journal.stored_state(state, deadlines) for room, state, deadlines
            in rows(path, "SELECT room, state, deadlines FROM rooms")}


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
        assert stored(path)["r"] == second
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
        assert stored(path)["r"] == equal
        later = {**equal, "deadlines": []}
        await store.append("r", [["a", 4, ["draw"]]], 4, later, lease=lease)
        assert decode(journal_path(path).read_bytes())[0][-1] == ("r", DEADLINES, pack([]))
        loaded = await store.load("r")  # a read folds it onto the file's state
        assert loaded is not None and loaded.state == later
    finally:
        await store.close()


async def test_a_fold_of_deadlines_alone_leaves_the_state_column_as_it_was(
        tmp_path: Path) -> None:
    """The fold writes journaled deadlines to the room's ``deadlines`` column, tens of
    bytes, rather than unpack the room's state, put them on and write it back (RESULTS.md,
    session 28); a whole state written (journaled, or saved) empties that column."""
    path = tmp_path / "data.db"
    store = SQLiteStore(path)
    try:
        lease, statements = await traced_room(store)
        base = {"status": "playing", "seats": [{"name": "ann"}], "deadlines": [[0, 10.0]]}
        await store.append("r", [["a", 1, ["draw"]]], 1, base, lease=lease)
        await asyncio.sleep(FOLD + 0.05)
        (state_bytes, column), = rows(path, "SELECT state, deadlines FROM rooms")
        assert unpack(state_bytes) == base and column is None
        statements.clear()
        clock = {**base, "deadlines": [[0, 20.0]]}
        await store.append("r", [["a", 2, ["draw"]]], 2, clock, lease=lease)
        await asyncio.sleep(FOLD + 0.05)
        assert rows(path, "SELECT state, deadlines FROM rooms") == [
            (state_bytes, pack([[0, 20.0]]))]  # the state's bytes as they were
        assert not any("SELECT state" in s for s in statements)  # nor read back
        assert stored(path)["r"] == clock
        loaded = await store.load("r")
        assert loaded is not None and loaded.state == clock
        await store.save_state("r", base, summary("r"), lease=lease)  # whole again
        assert rows(path, "SELECT deadlines FROM rooms") == [(None,)]
        assert stored(path)["r"] == base
        moved = {**clock, "status": "over"}
        await store.append("r", [["a", 3, ["draw"]]], 3, moved, lease=lease)
        await asyncio.sleep(FOLD + 0.05)
        assert rows(path, "SELECT deadlines FROM rooms") == [(None,)]
        assert stored(path)["r"] == moved
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
        assert stored(path)["r"] == {"status": "playing", "deadlines": [[0, 5.0]]}
        assert stored(path)["q"] == {  # the journal's state, its last ones
            "status": "playing", "deadlines": [[0, 7.0]]}
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
        assert store.file.journal is not None and len(store.file.journal.rows()) == 3
        assert len(await store.log("r")) == 4  # the read folded them first
        await store.append("r", [["a", 4, ["draw"]]], 4, None, lease=lease)
        await store.append("r", [["a", 0, ["end"]]], 5, {"status": "finished"}, lease=lease)
        loaded = await store.load("r")  # the transaction with the state folded it first
        assert loaded is not None and len(loaded.entries) == 6
        assert [e[2] for e in loaded.entries][4:] == [["draw"], ["end"]]
    finally:
        await store.close()


async def many_rooms(store: SQLiteStore, count: int) -> dict[str, Any]:
    """``count`` playing rooms ``r00``, ``r01``, ... made in ``store``, each with its first
    entry and a state (folded: the journal is empty); their leases by room."""
    leases = {}
    for k in range(count):
        room = f"r{k:02d}"
        leases[room] = await add_room(store, room, "playing")
        await store.append(room, [ENTRY], 0, {"status": "playing", "deadlines": [[0, 1.0]]},
                           lease=leases[room])
    await asyncio.sleep(0)
    assert journal_path(store.file.path).stat().st_size == 0
    return leases


def turn(store: SQLiteStore, room: str, seq: int, lease: Any) -> None:
    """Room ``room``'s turn ``seq`` (its entry and its new deadlines), written to the journal
    at once, as a timed room's action is."""
    assert store.append_now(room, [["a", seq, ["draw"]]], seq,
                            {"status": "playing", "deadlines": [[seq % 2, float(seq)]]},
                            lease=lease)


def transactions(statements: list[str]) -> list[list[str]]:
    """The ``BEGIN IMMEDIATE`` ... ``COMMIT`` runs of ``statements`` (the file's traced
    SQL), each as the statements between the two."""
    runs: list[list[str]] = []
    for statement in statements:
        if statement == "BEGIN IMMEDIATE":
            runs.append([])
        elif statement != "COMMIT" and runs:
            runs[-1].append(statement)
    return runs


async def test_a_fold_is_short_transactions_with_the_loop_turning_between_them(
        tmp_path: Path) -> None:
    # At 100 rooms one transaction for the whole journal held the loop ~3 ms, every room's
    # actions waiting behind it: the SQLite store's p99 at human pace (issue #43). A fold
    # is now a pass per turn of the loop, each folding a few rooms.
    path = tmp_path / "data.db"
    store = SQLiteStore(path)
    try:
        count = 35  # PASS_ROOMS (16) twice, and 3
        leases = await many_rooms(store, count)
        statements: list[str] = []
        store.file.db.set_trace_callback(statements.append)
        for room, lease in leases.items():
            turn(store, room, 1, lease)
        assert statements == []  # all in the journal
        store.file.fold()  # as its timer does: the first pass now, the next ones later
        for _ in range(10):
            statements.append("turn")
            await asyncio.sleep(0)  # one turn of the loop
        text = " ".join(statements)
        assert text.count("BEGIN IMMEDIATE") == 3  # 16 + 16 + 3 rooms
        assert text.count("COMMIT turn BEGIN IMMEDIATE") == 2  # the loop turned between
        assert [sum(s.startswith("UPDATE rooms SET") for s in run)
                for run in transactions(statements)] == [16, 16, 3]
        assert rows(path, "SELECT count(*) FROM log") == [(2 * count,)]
        assert {state["deadlines"][0][1] for state in stored(path).values()
                if state is not None} == {1.0}
        assert journal_path(path).stat().st_size == 0  # emptied once all is folded
    finally:
        await store.close()


async def test_rows_written_while_a_fold_goes_on_stay_in_the_rewritten_journal(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture) -> None:
    path = tmp_path / "data.db"
    store = SQLiteStore(path)
    journal = store.file.journal
    assert journal is not None
    try:
        count = sqlite_journal.PASS_ROOMS + 2
        leases = await many_rooms(store, count)
        for room, lease in leases.items():
            turn(store, room, 1, lease)
        store.file.fold()  # its first pass: the first 16 rooms
        assert set(journal.waiting) == {"r16", "r17"}
        turn(store, "r00", 2, leases["r00"])  # folded already: waits for the next fold
        turn(store, "r17", 2, leases["r17"])  # not yet: folded by this one, both turns
        real_write = os.write
        monkeypatch.setattr(sqlite_journal.os, "write", disk_full)
        with caplog.at_level(logging.WARNING, logger="cardhall.sqlite"):
            await asyncio.sleep(0)  # the last pass; the rewrite of the journal fails
        assert "cannot rewrite it" in caplog.text
        assert not sqlite_journal.rewrite_path(journal.path).exists()
        # Nothing is lost: the journal still holds every row (those folded again are the
        # file's already), and r00's turn waits for the next fold.
        assert len(decode(journal_path(path).read_bytes())[0]) == 2 * count + 4
        assert list(journal.waiting) == ["r00"]
        monkeypatch.setattr(sqlite_journal.os, "write", real_write)
        assert rows(path, "SELECT max(seq) FROM log WHERE room = 'r17'") == [(2,)]
        turn(store, "r01", 2, leases["r01"])
        store.file.fold()  # one pass: r00 and r01; the journal is emptied
        assert not journal.waiting and journal_path(path).stat().st_size == 0

        for room, seq in (("r00", 3), ("r01", 3), ("r02", 2)):
            turn(store, room, seq, leases[room])
        monkeypatch.setattr(sqlite_journal, "PASS_ROOMS", 1)
        store.file.fold()  # r00 alone
        turn(store, "r00", 4, leases["r00"])
        await asyncio.sleep(0)
        await asyncio.sleep(0)  # r01, then r02 and the rewrite: r00's last turn alone
        assert decode(journal_path(path).read_bytes())[0] == [
            ("r00", 4, pack(["a", 4, ["draw"]])), ("r00", DEADLINES, pack([[0, 4.0]]))]
        await asyncio.sleep(FOLD + 0.05)  # the next fold, set by the last pass
        assert journal_path(path).stat().st_size == 0
        assert rows(path, "SELECT room, max(seq) FROM log WHERE room < 'r03' GROUP BY room") == [
            ("r00", 4), ("r01", 3), ("r02", 2)]
        loaded = await store.load("r00")
        assert loaded is not None and loaded.state == {"status": "playing",
                                                       "deadlines": [[0, 4.0]]}
    finally:
        monkeypatch.undo()
        await store.close()


async def test_a_pass_that_fails_ends_its_fold_and_the_next_append_sets_another(
        tmp_path: Path) -> None:
    path = tmp_path / "data.db"
    store = SQLiteStore(path)
    journal = store.file.journal
    assert journal is not None
    try:
        leases = await many_rooms(store, 20)
        for room, lease in leases.items():
            turn(store, room, 1, lease)
        # a bug: a waiting row the fold cannot read (a compiled journal takes no patched
        # method, so the bug is in its data)
        journal.waiting["r00"].append(("r00", -2))  # type: ignore[arg-type]
        with pytest.raises((TypeError, ValueError)):
            store.file.fold()
        assert not journal.due  # the fold is over, not stuck "under way"
        # its transaction is rolled back: the file's write lock is not held, and the next
        # transaction is not refused ("cannot start a transaction within a transaction")
        assert not store.file.db.in_transaction
        journal.waiting["r00"].pop()
        turn(store, "r00", 2, leases["r00"])  # sets the next fold
        await asyncio.sleep(FOLD + 0.05)
        assert not journal.waiting and journal_path(path).stat().st_size == 0
        assert rows(path, "SELECT count(*) FROM log") == [(20 * 2 + 1,)]
        assert store.file.errors == 0 and not store.file.failing
    finally:
        await store.close()


async def test_reads_of_what_the_journal_never_holds_do_not_fold_it(tmp_path: Path) -> None:
    # A lobby listing, a join code, a login or a leaderboard read folded the whole journal
    # first, on the loop (~3 ms at 100 busy rooms): a lobby refreshed often held every
    # room's actions up as often. The journal only changes logs, states and snapshots.
    from cardhall.server.app import accounts_for
    from cardhall.server.rated import ratings_for

    path = tmp_path / "data.db"
    store = SQLiteStore(path)
    try:
        leases = await many_rooms(store, 3)
        statements: list[str] = []
        store.file.db.set_trace_callback(statements.append)
        for room, lease in leases.items():
            turn(store, room, 1, lease)
        page, _ = await store.list_page()
        assert [entry["room"] for entry in page] == ["r00", "r01", "r02"]
        assert await store.entries(["r01"]) == [page[1]]
        assert await store.room_by_code("NOPE") is None
        assert await store.board_page("wins", 0, 10) == ([], 0)
        assert await accounts_for(store).lookup("name", "ann") is None
        assert await ratings_for(store).listing("skipper") == []
        assert await store.archived_ids(0, 10) == []
        assert not any(s.startswith("BEGIN") for s in statements)  # no fold
        assert len(decode(journal_path(path).read_bytes())[0]) == 6
        assert [e[2] for e in await store.log("r00")] == [ENTRY[2], ["draw"]]  # folds
        assert "BEGIN IMMEDIATE" in statements
    finally:
        await store.close()


KILLED_IN_A_FOLD = textwrap.dedent("""
    import asyncio, os, signal, sys
    from cardhall.server.store.sqlite_store import SQLiteStore

    async def main() -> None:
        store = SQLiteStore(sys.argv[1])
        leases = {}
        for k in range(40):
            room = f"r{k:02d}"
            summary = {"room": room, "name": room, "game": "skipper", "mode": "solo",
                       "seats": 1, "taken": 1, "status": "playing", "private": False,
                       "spectators": 0}
            leases[room] = await store.save_room(room, {"room": room, "game": "skipper",
                                                        "code": None},
                                                 {"status": "playing"}, summary)
            await store.append(room, [["a", 0, ["draw"]]], 0, None, lease=leases[room])
        await asyncio.sleep(0)  # folded
        for seq in range(1, 4):  # acknowledged, in the journal alone
            for room, lease in leases.items():
                assert store.append_now(room, [["a", seq, ["draw"]]], seq,
                                        {"status": "playing", "deadlines": [[0, seq]]},
                                        lease=lease)
        store.file.fold()  # its first pass commits; the others wait for the loop
        os.kill(os.getpid(), signal.SIGKILL)

    asyncio.run(main())
""")


def test_a_kill_9_in_the_middle_of_a_fold_loses_nothing_and_the_restart_folds_the_rest(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    path = tmp_path / "data.db"
    done = subprocess.run([sys.executable, "-c", KILLED_IN_A_FOLD, str(path)],
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == -9, done.stderr
    assert rows(path, "SELECT count(*) FROM log") == [(40 + 48,)]  # the first pass: 16 rooms
    assert len(decode(journal_path(path).read_bytes())[0]) == 240  # every row, still
    # A rewrite of the journal killed before its rename left its new file beside it.
    fresh = sqlite_journal.rewrite_path(journal_path(path))
    fresh.write_bytes(encode(("r00", 3, pack(["never", "acknowledged"]))))
    with caplog.at_level(logging.INFO, logger="cardhall.sqlite"):
        store = SQLiteStore(path)
    try:
        assert "clashed" not in caplog.text and not fresh.exists()
        assert rows(path, "SELECT count(*) FROM log") == [(160,)]
        assert rows(path, "SELECT count(DISTINCT room), min(seq), max(seq) FROM log") == [
            (40, 0, 3)]
        assert {state["deadlines"][0][1] for state in stored(path).values()
                if state is not None} == {3}
        assert journal_path(path).stat().st_size == 0
    finally:
        store.file.close()


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
        print(len(store.file.journal.rows()), flush=True)
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
