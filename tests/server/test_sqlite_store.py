"""The durable embedded store (issue #30): one SQLite file, ``cardhall serve``'s default.

The store contract itself runs through the whole server suite (``store_kind`` ``sqlite`` in
conftest.py). Here: what only this store does. Group commit (an action is answered once its
entry is committed; the appends of one loop tick share a transaction), the file's lock,
schema versions and migrations, the errors at start (a file in use, damaged, of a newer
schema, unopenable), a full disk, finished rooms pruned and their pages given back, backups
while serving, migrations between stores, and restarts: a restart takes every room in play
over (seats held from the restart, clocks and bots going on).
"""

from __future__ import annotations

import asyncio
import random
import sqlite3
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from cardhall.client.bots import play_seat
from cardhall.client.client import Client, ServerError
from cardhall.games.bots import strategy
from cardhall.server.cluster import Cluster
from cardhall.server.rated import ratings_for
from cardhall.server.ratings import RatedGame, RatedSeat, board_id
from cardhall.server.store.redis_store import RedisStore
from cardhall.server.store import sqlite_file
from cardhall.server.store.sqlite_file import (
    FREE_PAGES_KEPT, DataFileError, DataFileLocked, backup, open_file)
from cardhall.server.store.sqlite_schema import MIGRATIONS, SCHEMA_VERSION
from cardhall.server.store.sqlite_journal import deadlines_row, encode, journal_path
from cardhall.server.store.sqlite_store import SQLiteStore
from cardhall.server.store.ports import Lease, LogConflict, OwnershipLost, StoreError, pack

from ..conftest import RedisProcess, ServeProcess, assert_one_error, run_cli, serving
from .test_room_saving import until, view_when_back

RATED_BOARD = board_id("skipper", "multi")

GREEDY = strategy("skipper", "greedy")


def summary(room: str, status: str = "waiting", game: str = "skipper") -> dict[str, Any]:
    """A lobby entry of a public 2-seat room of ``game``."""
    return {"room": room, "name": room, "game": game, "mode": "multi", "seats": 2,
            "taken": 0, "status": status, "private": False, "spectators": 0}


async def add_room(store: Any, room: str, status: str = "waiting") -> Lease:
    """Create ``room`` in ``store``; its lease."""
    lease: Lease = await store.save_room(room, {"room": room, "game": "skipper", "code": None},
                                         {"status": status}, summary(room, status))
    return lease


def rows(path: Path, sql: str) -> list[Any]:
    """``sql``'s rows, read through a connection of their own (what is committed)."""
    db = sqlite3.connect(path)
    try:
        return db.execute(sql).fetchall()
    finally:
        db.close()


# -- commits ------------------------------------------------------------------------------


def test_every_write_waits_for_its_tick_only_when_every_commit_syncs_the_disk(
        tmp_path: Path) -> None:
    for fsync, commit in (("normal", "adaptive"), ("always", "tick")):
        store = SQLiteStore(tmp_path / f"{fsync}.db", fsync=fsync)
        assert store.file.commit == commit
        assert rows(tmp_path / f"{fsync}.db", "PRAGMA journal_mode") == [("wal",)]
        store.file.close()


async def test_the_appends_of_one_tick_commit_once_and_answer_only_then(tmp_path: Path) -> None:
    path = tmp_path / "data.db"
    store = SQLiteStore(path, commit="tick")
    try:
        leases = [await add_room(store, f"r{k}", "playing") for k in range(10)]
        commits = store.file.commits
        appends = [asyncio.ensure_future(store.append(f"r{k}", [["a", 0, ["draw"]]], 0, None,
                                                      lease=leases[k])) for k in range(10)]
        await asyncio.sleep(0)  # every append has queued its write, none is answered
        assert not any(a.done() for a in appends)
        assert rows(path, "SELECT count(*) FROM log") == [(0,)]  # nothing committed yet
        await asyncio.gather(*appends)
        assert store.file.commits == commits + 1  # one transaction for the ten
        assert rows(path, "SELECT count(*) FROM log") == [(10,)]
    finally:
        await store.close()


async def test_without_group_commit_each_append_commits_before_it_returns(
        tmp_path: Path) -> None:
    path = tmp_path / "data.db"
    store = SQLiteStore(path, commit="each", journal=False)
    try:
        lease = await add_room(store, "r", "playing")
        commits = store.file.commits
        coro = store.append("r", [["a", 0, ["draw"]]], 0, None, lease=lease)
        with pytest.raises(StopIteration):
            coro.send(None)  # done without waiting: the frame's fast path stays whole
        assert store.file.commits == commits + 1
        assert rows(path, "SELECT count(*) FROM log") == [(1,)]
    finally:
        await store.close()


async def test_adaptive_commits_a_lone_write_at_once_and_those_after_it_together(
        tmp_path: Path) -> None:
    path = tmp_path / "data.db"
    store = SQLiteStore(path, commit="adaptive", journal=False)
    try:
        leases = [await add_room(store, f"r{k}", "playing") for k in range(10)]
        await asyncio.sleep(0)  # a new tick
        commits = store.file.commits
        # Ten rooms act in one tick: the first commits at once, the nine after it share one.
        await asyncio.gather(*(store.append(f"r{k}", [["a", 0, ["draw"]]], 0, None,
                                            lease=leases[k]) for k in range(10)))
        assert store.file.commits == commits + 2
        assert rows(path, "SELECT count(*) FROM log") == [(10,)]
        await asyncio.sleep(0)  # a tick of its own: committed before the call returns
        lone = store.append("r0", [["a", 0, ["end"]]], 1, None, lease=leases[0])
        with pytest.raises(StopIteration):
            lone.send(None)
        assert rows(path, "SELECT count(*) FROM log") == [(11,)]
    finally:
        await store.close()


async def test_a_lone_append_is_one_statement_committed_before_it_returns(
        tmp_path: Path) -> None:
    path = tmp_path / "data.db"
    store = SQLiteStore(path, journal=False)  # adaptive, fsync normal, no journal
    try:
        lease = await add_room(store, "r", "playing")
        await store.append("r", [["a", 0, ["draw"]]], 0, None, lease=lease)  # length known
        await asyncio.sleep(0)  # a tick of its own
        statements: list[str] = []
        store.file.db.set_trace_callback(statements.append)
        commits = store.file.commits
        lone = store.append("r", [["a", 1, ["play", "QS"]]], 1, None, lease=lease)
        with pytest.raises(StopIteration):
            lone.send(None)  # answered without waiting
        # SQLite's autocommit: no BEGIN and COMMIT statements around the entry's INSERT.
        assert [s.split()[0] for s in statements] == ["INSERT"]
        assert store.file.commits == commits + 1 and not store.file.db.in_transaction
        assert rows(path, "SELECT seq FROM log ORDER BY seq") == [(0,), (1,)]
        # With the state, or after a write of the same tick: a transaction, as before.
        statements.clear()
        await store.append("r", [["a", 0, ["draw"]]], 2, {"status": "playing", "n": 3},
                           lease=lease)
        assert statements[0] == "BEGIN IMMEDIATE" and statements[-1] == "COMMIT"
        loaded = await store.load("r")
        assert loaded is not None and loaded.state == {"status": "playing", "n": 3}
        assert len(loaded.entries) == 3
    finally:
        await store.close()


async def test_a_lone_append_that_finds_its_seq_taken_writes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "data.db"
    store = SQLiteStore(path, commit="each", journal=False)
    try:
        lease = await add_room(store, "r", "playing")
        await store.append("r", [["a", 0, ["draw"]]], 0, None, lease=lease)
        db = sqlite3.connect(path)  # a row this store does not know of (never in service)
        db.execute("INSERT INTO log (room, seq, entry) VALUES ('r', 1, ?)",
                   (pack(["a", 1, ["x"]]),))
        db.commit()
        db.close()
        with pytest.raises(StoreError, match="UNIQUE"):
            await store.append("r", [["a", 0, ["y"]]], 1, None, lease=lease)
        assert await store.healthy()  # a clash, not a refusing disk
        with pytest.raises(LogConflict):  # the length is read again: 2, not 1
            await store.append("r", [["a", 0, ["y"]]], 1, None, lease=lease)
        assert await store.log("r") == [["a", 0, ["draw"]], ["a", 1, ["x"]]]
        moved = await store.acquire("r")  # a newer copy: the old lease writes nothing
        with pytest.raises(OwnershipLost):
            await store.append("r", [["a", 0, ["z"]]], 2, None, lease=lease)
        await store.append("r", [["a", 0, ["z"]]], 2, None, lease=moved)
        assert len(await store.log("r")) == 3
    finally:
        await store.close()


async def test_a_refused_append_of_a_tick_leaves_the_others_written(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "data.db", commit="tick")
    try:
        good = await add_room(store, "good", "playing")
        await add_room(store, "long", "playing")
        moved = await add_room(store, "moved", "playing")
        await store.acquire("moved")  # a newer copy: the lease ``moved`` is fenced off
        results = await asyncio.gather(
            store.append("good", [["a", 0, ["draw"]]], 0, {"status": "playing", "n": 1},
                         lease=good),
            store.append("long", [["a", 0, ["draw"]]], 5, None),  # the log is 0 long
            store.append("moved", [["a", 0, ["draw"]]], 0, None, lease=moved),
            return_exceptions=True)
        assert results[0] is None
        assert isinstance(results[1], LogConflict) and isinstance(results[2], OwnershipLost)
        assert await store.log("good") == [["a", 0, ["draw"]]]
        assert await store.log("long") == await store.log("moved") == []
        loaded = await store.load("good")
        assert loaded is not None and loaded.state == {"status": "playing", "n": 1}
    finally:
        await store.close()


# -- the file -----------------------------------------------------------------------------


async def test_a_second_store_on_the_same_file_is_refused(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "data.db")
    try:
        with pytest.raises(DataFileLocked, match="in use by another cardhall process"):
            SQLiteStore(tmp_path / "data.db")
    finally:
        await store.close()
    SQLiteStore(tmp_path / "data.db").file.close()  # free again once closed


def test_the_file_and_its_folder_are_private(tmp_path: Path) -> None:
    path = tmp_path / "new" / "data.db"
    SQLiteStore(path).file.close()
    assert path.stat().st_mode & 0o777 == 0o600
    assert path.parent.stat().st_mode & 0o777 == 0o700


async def test_a_file_of_the_first_schema_is_migrated(tmp_path: Path) -> None:
    path = tmp_path / "v1.db"
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA auto_vacuum = INCREMENTAL")
    MIGRATIONS[0](db)  # the first version's tables, as that version made them
    db.execute("PRAGMA user_version = 1")
    for room, status in (("a1", "waiting"), ("b2", "playing")):
        db.execute("INSERT INTO rooms (room, record, state, summary) VALUES (?, ?, ?, ?)",
                   (room, pack({"room": room, "game": "skipper"}), pack({"status": status}),
                    pack(summary(room, status))))
    db.execute("INSERT INTO log VALUES ('b2', 0, ?)", (pack(["a", 0, ["draw"]]),))
    db.execute("INSERT INTO boards VALUES ('skipper:solo', 'ann', 40)")
    db.close()
    store = SQLiteStore(path)
    try:
        assert rows(path, "PRAGMA user_version") == [(SCHEMA_VERSION,)]
        assert await store.index_ids("waiting:skipper", "", 10) == ["a1"]
        assert await store.index_ids("game:skipper", "", 10) == ["a1", "b2"]
        loaded = await store.load("b2")
        assert loaded is not None and loaded.entries == [["a", 0, ["draw"]]]
        assert loaded.state == {"status": "playing"}  # v7: no deadlines column set yet
        assert await store.board_page("skipper:solo", 0, 10) == ([("ann", 40)], 1)
    finally:
        await store.close()
    assert rows(path, "PRAGMA auto_vacuum") == [(2,)]  # incremental, as the first made it


def test_a_backup_of_an_older_schemas_file_folds_its_journal_into_the_new_columns(
        tmp_path: Path) -> None:
    """A file of schema 6 left with a journal (a server of that version killed with a
    timed room's turn in it): ``cardhall backup`` folds the journal, which writes this
    version's columns (v7's ``deadlines``), so it migrates the file first; the copy holds the
    turn."""
    path, copy = tmp_path / "v6.db", tmp_path / "copy.db"
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA auto_vacuum = INCREMENTAL")
    for migration in MIGRATIONS[:6]:
        migration(db)
    db.execute("PRAGMA user_version = 6")
    db.execute("INSERT INTO rooms (room, record, state, summary, game, waiting) "
               "VALUES ('r', ?, ?, ?, 'skipper', 0)",
               (pack({"room": "r", "game": "skipper"}),
                pack({"status": "playing", "deadlines": [[0, 1.0]]}),
                pack(summary("r", "playing"))))
    db.close()
    journal_path(path).write_bytes(encode(("r", 0, pack(["a", 0, ["draw"]])))
                                   + encode(deadlines_row("r", [[1, 2.0]])))
    sqlite_file.backup(path, copy)
    assert rows(path, "PRAGMA user_version") == [(SCHEMA_VERSION,)]
    assert journal_path(path).stat().st_size == 0
    store = SQLiteStore(copy)
    try:
        loaded = asyncio.run(store.load("r"))
        assert loaded is not None and loaded.entries == [["a", 0, ["draw"]]]
        assert loaded.state == {"status": "playing", "deadlines": [[1, 2.0]]}
    finally:
        store.file.close()


async def test_finished_rooms_are_deleted_after_their_ttl_and_their_pages_given_back(
        tmp_path: Path) -> None:
    path = tmp_path / "data.db"
    store = SQLiteStore(path)
    try:
        for k in range(200):
            lease = await add_room(store, f"r{k:03d}", "playing")
            await store.append(f"r{k:03d}", [["a", 0, ["play", "x" * 100]]] * 300, 0, None,
                               lease=lease)
            await store.finish_room(f"r{k:03d}", 0.05 if k else 3600)
    finally:
        await store.close()
    full = path.stat().st_size
    assert full > 2 * FREE_PAGES_KEPT * 4096  # the rooms' pages outnumber the free ones kept
    await asyncio.sleep(0.1)
    store = SQLiteStore(path)  # opening prunes what expired meanwhile
    try:
        assert await store.orphans() == ["r000"]
        assert [e["room"] for e in await store.list_rooms()] == ["r000"]
        assert rows(path, "SELECT count(DISTINCT room) FROM log") == [(1,)]
        (free,) = store.file.db.execute("PRAGMA freelist_count").fetchone()
        assert free <= FREE_PAGES_KEPT
    finally:
        await store.close()
    assert path.stat().st_size < full / 2


async def test_a_full_disk_refuses_writes_and_keeps_what_was_committed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Appends go on into the append journal until it holds its limit unfolded (a small one
    # here), then through a transaction, which folds the journal: the file refuses it.
    monkeypatch.setattr(sqlite_file, "LIMIT", 4096)
    store = SQLiteStore(tmp_path / "data.db")
    try:
        lease = await add_room(store, "r", "playing")
        (pages,) = store.file.db.execute("PRAGMA page_count").fetchone()
        store.file.db.execute(f"PRAGMA max_page_count = {pages}")  # the disk is full
        written = 0
        with pytest.raises(StoreError, match="full"):
            for written in range(2000):
                await store.append("r", [["a", 0, ["play", "x" * 20]]], written, None,
                                   lease=lease)
                await asyncio.sleep(0)  # the loop goes round, as between two frames
        assert not await store.healthy()
        # The entries acknowledged but not yet folded from the append journal are safe in
        # it; a read cannot give the log whole while the file refuses them, so it fails.
        if store.file.journal is not None and store.file.journal.waiting:
            with pytest.raises(StoreError, match="full"):
                await store.log("r")
        store.file.db.execute("PRAGMA max_page_count = 1000000")  # room again
        assert len(await store.log("r")) == written  # the refused one is not there
        await store.append("r", [["a", 0, ["end"]]], written, None, lease=lease)
        assert await store.healthy() and len(await store.log("r")) == written + 1
    finally:
        await store.close()


@pytest.fixture
def tiny_disk(tmp_path: Path) -> Any:
    """A 400 KiB tmpfs mounted for the test (root only; skipped where it cannot be)."""
    mount = tmp_path / "tiny"
    mount.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=400k", "tmpfs", str(mount)],
                          capture_output=True, check=False)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs: {done.stderr.decode().strip()}")
    yield mount
    subprocess.run(["umount", "-l", str(mount)], check=False)


async def test_a_really_full_disk_loses_nothing_committed(tiny_disk: Path) -> None:
    path = tiny_disk / "data.db"
    store = SQLiteStore(path)
    written = 0
    try:
        lease = await add_room(store, "r", "playing")
        with pytest.raises(StoreError, match="full"):
            for written in range(5000):
                await store.append("r", [["a", 0, ["play", "x" * 100]]], written,
                                   {"status": "playing", "pad": "y" * 3000}, lease=lease)
    finally:
        await store.close()
    # A restart on the disk still full: what a killed or refused process left in the
    # append journal cannot be folded into the file, which says so and keeps it whole.
    journal = journal_path(path)
    if journal.exists() and journal.stat().st_size:
        with pytest.raises(DataFileError, match="free some disk space"):
            SQLiteStore(path)
        assert journal.stat().st_size > 0
    subprocess.run(["mount", "-o", "remount,size=4m", str(tiny_disk)], check=True)
    store = SQLiteStore(path)  # space freed: the restart finds every committed entry
    try:
        assert len(await store.log("r")) == written > 0
        loaded = await store.load("r")
        assert loaded is not None and loaded.state["pad"] == "y" * 3000
    finally:
        await store.close()


async def test_a_backup_copies_a_file_being_written(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "data.db")
    try:
        lease = await add_room(store, "r", "playing")
        for k in range(50):
            await store.append("r", [["a", 0, ["draw"]]], k, None, lease=lease)
        await store.record_score("skipper:solo", "ann", 40, 1000)
        size = backup(tmp_path / "data.db", tmp_path / "copy.db")  # the store holds the lock
        await store.append("r", [["a", 0, ["end"]]], 50, None, lease=lease)  # after: not in it
    finally:
        await store.close()
    assert size == (tmp_path / "copy.db").stat().st_size
    assert (tmp_path / "copy.db").stat().st_mode & 0o777 == 0o600
    copy = SQLiteStore(tmp_path / "copy.db")
    try:
        assert len(await copy.log("r")) == 50
        assert await copy.board_rank("skipper:solo", "ann") == (0, 40)
    finally:
        await copy.close()


async def test_leaderboards_survive_a_restart(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "data.db")
    for name, value in (("ann", 40), ("bob", 35), ("cy", 40), ("ann", 38), ("dee", 50)):
        await store.record_score("skipper:solo", name, value, 3)
    await store.close()
    store = SQLiteStore(tmp_path / "data.db")
    try:
        assert await store.board_page("skipper:solo", 0, 10) == (
            [("bob", 35), ("ann", 38), ("cy", 40)], 3)
        assert await store.board_rank("skipper:solo", "cy") == (2, 40)
        assert await store.board_rank("skipper:solo", "dee") is None  # beyond the 3 kept
    finally:
        await store.close()


# -- restarts -----------------------------------------------------------------------------


async def test_a_restart_holds_seats_from_now_and_goes_on_with_clocks_and_bots(
        tmp_path: Path) -> None:
    path = tmp_path / "data.db"
    settings = {"turn_seconds": 30.0, "grace_seconds": 5.0, "bot_seconds": 0.0}
    async with serving(lambda: SQLiteStore(path), msg_rate=None) as make:
        first = await make()
        async with Client(first.url, reconnect=False) as c:
            room = (await c.create_room("skipper", mode="multi", seats=2,
                                        options=settings)).room
            await c.join(room)
            await c.start(room)  # seat 1: a server bot
            await until(lambda: 0 in c.views[room].get("to_act", []), 30, "seat 0's turn")
            before = first.lobby.rooms[room]
            deadline = before.table.deadlines[0]
            state_id = before.table.state_id
        await asyncio.sleep(0.3)  # the drop is saved: its grace window began then
        await first.stop()
        restarted = time.time()
        second = await make()
        await asyncio.wait_for(second.cluster.restored.wait(), 30)  # loaded in the background
        again = second.lobby.rooms[room]
        assert again.table.state_id == state_id
        holder = again.table.seats[0]
        assert holder is not None and holder.conn is None
        assert holder.grace_until is not None
        assert restarted + 5.0 <= holder.grace_until <= time.time() + 5.0  # from the restart
        assert again.table.deadlines[0] == deadline  # the turn clock's absolute deadline
        assert again._timer is not None  # armed
        async with Client(second.url) as c2:
            token = (await second.store.load(room)).state["seats"][0]["token"]  # type: ignore
            await c2.resume(room, token)
            assert again.table.seats[0].grace_until is None  # type: ignore[union-attr]
            for _ in range(3):  # the seat plays on; the bot answers each time
                view = await until(lambda: 0 in c2.views[room].get("to_act", [])
                                   and c2.views[room], 30, "seat 0's turn")
                await c2.act(room, GREEDY(view, random.Random(1)))
            # A bot moves: the state passes seat 0's own acts. Seat 0 plays its turn to the
            # end first (three acts may all be its own, and the bot waits for its turn).
            acts = 3
            deadline = time.monotonic() + 30
            while c2.views[room]["state_id"] <= state_id + acts:
                assert time.monotonic() < deadline, "not within 30 s: bots move"
                view = c2.views[room]
                if 0 in view.get("to_act", []) and view["state_id"] == state_id + acts:
                    await c2.act(room, GREEDY(view, random.Random(1)))
                    acts += 1
                else:
                    await asyncio.sleep(0.02)


async def test_a_request_loads_a_room_the_restart_has_not_reached_yet(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "data.db"
    async with serving(lambda: SQLiteStore(path), msg_rate=None) as make:
        first = await make()
        async with Client(first.url, reconnect=False) as c:
            room = (await c.create_room("skipper", mode="multi", seats=3)).room
            joined = await c.join(room)
            await c.start(room)  # seats 1 and 2: server bots (they play until seat 0's turn)
            await until(lambda: 0 in c.views[room].get("to_act", []), 30, "seat 0's turn")
            state_id = c.views[room]["state_id"]
        await first.stop()

        async def not_yet(self: Any) -> None:
            self.restored.set()

        monkeypatch.setattr(Cluster, "restore", not_yet)  # the background loading lags
        second = await make()
        assert room not in second.lobby.rooms
        async with Client(second.url) as c2:
            back = await c2.resume(room, joined.token)  # loaded for this request
            assert back.view["state_id"] == state_id
            assert room in second.lobby.rooms


#: Ann's guest device secret (her account's games and board entries survive).
ANN = "ann-device-secret-of-the-tests"


async def test_kill_9_and_restart_on_the_same_file_loses_nothing(tmp_path: Path) -> None:
    server = ServeProcess(tmp_path, "--data", str(tmp_path / "data.db"))
    try:
        url = server.url
        async with Client(url, guest=ANN, name="ann") as solo:  # a leaderboard entry
            assert solo.account is not None
            ann = solo.account.account
            created = await solo.create_room("skipper")
            await solo.join(created.room)
            await asyncio.wait_for(play_seat(solo, created.room, 0, GREEDY,
                                             random.Random(1)), 120)
        player = Client(url, name="bob", reconnect_timeout=60)
        await player.connect()
        try:
            room = (await player.create_room("skipper", mode="multi", seats=2, options={
                "bot_seconds": 0.0})).room
            await player.join(room)
            await player.start(room)  # seat 1: a server bot
            playing = asyncio.ensure_future(play_seat(player, room, 0, GREEDY,
                                                      random.Random(2), think=0.01))
            await until(lambda: player.views[room]["state_id"] >= 6, 30, "some play")
            seen = player.views[room]["state_id"]
            server.kill9()  # mid-game
            server = ServeProcess(tmp_path, "--data", str(tmp_path / "data.db"),
                                  port=server.port)
            result = await asyncio.wait_for(playing, 120)  # it reconnects and resumes
            assert player.reconnects >= 1 and result.state_id > seen
        finally:
            await player.close()
        async with Client(url) as reader:
            board = await reader.leaderboard("skipper")
            assert [e["name"] for e in board.entries] == ["ann"]
            log = await reader.fetch_log(room)
            assert len(log.entries) == result.state_id
        async with Client(url, guest=ANN) as again:
            assert again.account is not None and again.account.account == ann  # kept too
            assert again.name == "ann"
    finally:
        server.stop()


async def test_a_full_disk_answers_unavailable_then_the_game_goes_on(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "data.db")
    async with serving(lambda: store, msg_rate=None) as make:
        server = await make()
        async with Client(server.url) as c:
            (pages,) = store.file.db.execute("PRAGMA page_count").fetchone()
            store.file.db.execute(f"PRAGMA max_page_count = {pages}")  # the disk is full
            acked: dict[str, int] = {}  # actions answered ok, per room
            room, refused = "", None
            for _ in range(20):  # solo games until the file needs a page it cannot have
                try:
                    room = ""  # a refused create leaves no room (not the last, finished one)
                    room = (await c.create_room("skipper")).room
                    await c.join(room)
                    acked[room] = 0
                    while not c.views[room].get("over"):
                        await c.act(room, GREEDY(c.views[room], random.Random(3)))
                        acked[room] += 1
                except ServerError as exc:
                    refused = exc
                    break
            assert refused is not None and refused.code == "server/unavailable"
            assert not await store.healthy()
            store.file.db.execute("PRAGMA max_page_count = 1000000")  # room again
            if room in acked:  # an act was refused: the room reloads, the game goes on
                view = await view_when_back(c, room)
                assert view["state_id"] == acked[room]  # the refused act is not in it
                await c.act(room, GREEDY(view, random.Random(4)))
                acked[room] += 1
            else:  # a create or a join was refused: a new game starts and plays
                room = (await c.create_room("skipper")).room
                await c.join(room)
                acked[room] = 0
                await c.act(room, GREEDY(c.views[room], random.Random(4)))
                acked[room] += 1
            assert await store.healthy()
            for r, count in acked.items():  # nothing acknowledged was lost, nothing more
                assert len(await store.log(r)) == count


# -- the command line ---------------------------------------------------------------------


async def test_serve_keeps_its_data_in_the_user_data_folder_by_default(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A data folder of its own: the session's (conftest) holds the rooms of every other test
    # that ran ``cardhall serve`` without ``--data`` before this one.
    home = tmp_path / "data-home"
    monkeypatch.setenv("XDG_DATA_HOME", str(home))
    server = ServeProcess(tmp_path, "--store", "sqlite")
    try:
        path = home / "cardhall" / "cardhall.db"
        assert path.stat().st_mode & 0o777 == 0o600
        async with Client(server.url) as c:
            room = (await c.create_room("shop")).room
        server.stop()
        assert rows(path, "SELECT room FROM rooms") == [(room,)]
    finally:
        server.stop()


async def test_serve_refuses_a_second_process_on_the_same_file(tmp_path: Path) -> None:
    server = ServeProcess(tmp_path, "--data", str(tmp_path / "data.db"))
    try:
        proc = await asyncio.to_thread(run_cli, "serve", "--port", "0", "--data",
                                       str(tmp_path / "data.db"))
        assert_one_error(proc, "in use by another cardhall process", "data.db")
    finally:
        server.stop()


def _damage(path: Path) -> None:
    """A real data file with one B-tree page overwritten (its header intact)."""
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE t (x)")
    db.executemany("INSERT INTO t VALUES (?)", [("y" * 100,)] * 500)
    db.commit()
    db.close()
    with open(path, "r+b") as f:
        f.seek(4096 * 3)
        f.write(b"\xff" * 4096)


@pytest.mark.parametrize("kind", ["newer", "not-sqlite", "damaged", "unopenable", "empty",
                                  "appended", "another-program", "proc"])
def test_serve_refuses_a_file_it_cannot_use_with_one_error_line(tmp_path: Path,
                                                                  kind: str) -> None:
    """Exit 1, one ``Error:`` line with the reason, the file left as it was (issue #41 item 6:
    an empty file and one with bytes appended too; item 14: ``/proc/version`` is no data
    file, and not "in use")."""
    path = tmp_path / "data.db"
    if kind == "empty":
        path.touch()
        needles: tuple[str, ...] = ("empty (0 bytes)", "restore a backup")
    elif kind == "appended":
        open_file(path).close()
        with open(path, "ab") as f:
            f.write(b"junk" * 10)
        needles = ("40 bytes more", "appended", "restore a backup")
    elif kind == "another-program":
        db = sqlite3.connect(path)
        db.execute("CREATE TABLE notes (x)")
        db.close()
        needles = ("another program", "notes")
    elif kind == "proc":
        path = Path("/proc/version")
        if not path.is_file():
            pytest.skip("no /proc/version")
        needles = ("not a Cardhall data file",)
    elif kind == "newer":
        db = sqlite3.connect(path)
        db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
        db.close()
        needles = (f"schema version {SCHEMA_VERSION + 1}", "newer")
    elif kind == "not-sqlite":
        path.write_bytes(b"these are not the pages you are looking for" * 100)
        needles = ("not a Cardhall data file or is damaged", "restore a backup")
    elif kind == "damaged":
        _damage(path)
        needles = ("damaged", "restore a backup")
    else:
        (tmp_path / "file").write_text("a file, not a folder")
        path = tmp_path / "file" / "data.db"
        needles = ("data.db",)
    before = path.read_bytes() if path.is_file() else None
    proc = run_cli("serve", "--port", "0", "--data", str(path))
    assert "in use" not in assert_one_error(proc, *needles)
    assert proc.returncode == 1
    assert (path.read_bytes() if path.is_file() else None) == before  # left as it was


def test_backup_while_serving_and_from_a_missing_file(tmp_path: Path) -> None:
    data = tmp_path / "data.db"
    server = ServeProcess(tmp_path, "--data", str(data))
    try:
        async def play() -> str:
            async with Client(server.url) as c:
                room = (await c.create_room("skipper", mode="multi", seats=2, options={
                    "bot_seconds": 0.0})).room
                await c.spectate(room)
                await c.start(room)  # two server bots play on
                await until(lambda: c.views[room]["state_id"] >= 20, 30, "the bots play")
                return room

        room = asyncio.run(play())
        done = run_cli("backup", str(tmp_path / "copy.db"), "--data", str(data))
        assert done.returncode == 0, done.stderr
        assert "backed up" in done.stdout
    finally:
        server.stop()
    (entries,) = rows(tmp_path / "copy.db", f"SELECT count(*) FROM log WHERE room = '{room}'")
    assert entries[0] >= 20
    assert rows(tmp_path / "copy.db", "PRAGMA integrity_check") == [("ok",)]
    assert_one_error(run_cli("backup", str(tmp_path / "x.db"), "--data",
                             str(tmp_path / "none.db")), "no data file", "none.db")


async def test_migrate_moves_rooms_logs_and_boards_to_redis_and_back(
        tmp_path: Path, redis_server: RedisProcess) -> None:
    redis_server.flush()
    data = tmp_path / "data.db"
    async with serving(lambda: SQLiteStore(data), msg_rate=None) as make:
        server = await make()
        async with Client(server.url, guest=ANN, name="ann") as c:
            assert c.account is not None
            ann = c.account.account
            solo = (await c.create_room("skipper")).room
            await c.join(solo)
            await asyncio.wait_for(play_seat(c, solo, 0, GREEDY, random.Random(1)), 120)
            room = (await c.create_room("skipper", mode="multi", seats=2)).room
            joined = await c.join(room)
            await c.start(room)
            for _ in range(3):
                view = await until(lambda: 0 in c.views[room].get("to_act", [])
                                   and c.views[room], 30, "seat 0's turn")
                await c.act(room, GREEDY(view, random.Random(2)))
            await until(lambda: 0 in c.views[room].get("to_act", []), 30, "the bot played")
            state_id = c.views[room]["state_id"]
        rated_game = RatedGame("rg1", RATED_BOARD, (RatedSeat(ann, "ann"),
                                                    RatedSeat("bot:greedy", "bot")), (1, 2))
        assert await server.ratings.rate(rated_game) is not None
        rated_before = await server.ratings.ratings(RATED_BOARD, [ann, "bot:greedy"])
    moved = await asyncio.to_thread(run_cli, "migrate", "--from", str(data), "--to",
                                    redis_server.url)
    assert moved.returncode == 0, moved.stderr
    assert "copied 2 rooms (1 in play, 0 waiting, 1 finished" in moved.stdout
    assert ("1 archived games, 1 accounts, 2 ratings (1 rated games) and 1 leaderboard "
            "entries") in moved.stdout
    async with serving(lambda: RedisStore(redis_server.url), msg_rate=None) as make:
        shared = await make()
        # Ratings came along with their history and the game's mark (issue #45).
        assert await shared.ratings.ratings(RATED_BOARD, [ann, "bot:greedy"]) == rated_before
        assert [g for _, g, _ in await shared.ratings.history(RATED_BOARD, ann)] == ["rg1"]
        assert await shared.ratings.rate(rated_game) is None
        async with Client(shared.url) as c:
            back = await c.resume(room, joined.token)  # the token the player kept
            assert back.view["state_id"] == state_id
            board = await c.leaderboard("skipper")
            assert [e["name"] for e in board.entries] == ["ann"]  # her account came along
            assert len((await c.fetch_log(solo)).entries) > 0
        async with Client(shared.url, guest=ANN) as c:  # she signs in to the same account
            assert c.account is not None and c.account.account == ann and c.name == "ann"
            mine = await c.my_games()
            assert [g["room"] for g in mine.finished] == [solo]
            assert [g["room"] for g in mine.running] == [room]
        busy = await asyncio.to_thread(run_cli, "migrate", "--from", redis_server.url, "--to",
                                       str(tmp_path / "back.db"))
        assert_one_error(busy, "run by a server")
    again = await asyncio.to_thread(run_cli, "migrate", "--from", redis_server.url, "--to",
                                    str(tmp_path / "back.db"))
    assert again.returncode == 0, again.stderr
    store = SQLiteStore(tmp_path / "back.db")
    try:
        assert len(await store.log(room)) == state_id
        archived = await store.archived(solo)  # the games archive came along, both ways
        assert archived is not None and archived["room"] == solo and archived["entries"]
        assert await store.board_rank("acct/skipper:solo", ann) is not None
        back_ratings = ratings_for(store)
        assert await back_ratings.ratings(RATED_BOARD, [ann, "bot:greedy"]) == rated_before
        assert await back_ratings.rated_ids(RATED_BOARD, 0, 5) == [("rg1", rated_game.at)]
        loaded = await store.load(room)
        assert loaded is not None and loaded.state is not None
        assert loaded.state["seats"][0]["token"] == joined.token
    finally:
        await store.close()


def test_serve_help_names_the_store_options() -> None:
    out = run_cli("serve", "--help").stdout
    for option in ("--store", "--data", "--fsync", "CARDHALL_DATA", "cardhall.db"):
        assert option in out
