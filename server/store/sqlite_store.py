"""The durable embedded store: everything in one SQLite file that this process owns.

``cardhall serve`` keeps its rooms here by default (``--data PATH``; the file, its lock, its
schema versions and the transactions are :mod:`.sqlite_file`'s). A restart on the same file
finds every room in play, every log and every leaderboard again: nothing acknowledged is
lost, since an action is answered only once its log entry is committed.

One process holds the file at a time (its lock), so the store is not
:attr:`~.store.Store.shared`: leases live in this process (:class:`~.local_ports.LocalLeases`)
and a restart is a takeover of every room in play: rooms that no lease of this process
holds are the store's :meth:`~SQLiteStore.orphans`, which the server loads at start.

The store is made of parts, one per port of :class:`~.store.Store`: :class:`SQLiteRooms`
(records, states, logs, snapshots: the :class:`~.store.RoomLog`), :class:`SQLiteLobby`
(lobby entries, their indexes, join codes: the :class:`~.store.LobbyIndex`),
:class:`SQLiteBoards` (the :class:`~.store.Boards`), :class:`~.sqlite_archive.SQLiteArchive`
(the :class:`~.store.Archive`); leases come from
:class:`~.local_ports.LocalLeases`, and the inbox is :class:`~.local_ports.LocalInbox` (no
other process). Every method is synchronous underneath: reads never wait, and writes wait only
for the group commit of their loop tick (:meth:`~.sqlite_file.DataFile.write`: every write
with ``--fsync always``; with ``normal``, a write alone in its tick commits at once), so the
server may still handle a frame in the socket's callback that read it
(:attr:`~.store.Store.answers_at_once`).
"""

from __future__ import annotations

import logging
import sqlite3
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .sqlite_archive import SQLiteArchive
from .sqlite_file import DataFile, open_file
from .sqlite_schema import lobby_columns
from .sqlite_journal import (APPEND, DEADLINES_KEY, STATE, Row, deadlines_row, snapshot_row,
                             stored_state)
from .local_ports import LocalInbox, LocalLeases
from .ports import Lease, Loaded, LogConflict, LogEntry, Store, StoreHealth
from .ports import new_process_id, pack, unpack

log = logging.getLogger("cardhall.sqlite")

#: SQL condition: the room of this row has not expired (``?`` is the time now, unix s).
LIVE = "(expires_at IS NULL OR expires_at > ?)"


class SQLiteRooms:
    """Records, states, logs and snapshots of rooms (the room log), fenced by the leases of
    :class:`~.local_ports.LocalLeases`.

    Attributes:
        file: The open data file.
    """

    file: DataFile
    #: Each room's log length as committed, once read (this process alone writes the file).
    lengths: dict[str, int]
    #: Each room's state as this process last wrote it (the dict itself: a room never
    #: changes a state it gave, ``Room.state``), while the room is held here: what a
    #: :func:`~.sqlite_journal.deadlines_row` goes onto.
    states: dict[str, dict[str, Any]]

    if TYPE_CHECKING:  # LocalLeases' (the leases port), beside this part in SQLiteStore
        def fence(self, room_id: str, lease: Lease | None) -> None: ...

        def forget(self, room_id: str) -> None: ...

        async def acquire(self, room_id: str) -> Lease | None: ...

    async def save_room(self, room_id: str, record: dict[str, Any], state: dict[str, Any],
                        summary: dict[str, Any]) -> Lease:
        """Create the room (record, state, lobby entry, code) and take its lease.

        Raises:
            StoreError: the file refused the write (or the id is taken: never for a fresh
                random id).
        """
        lease = await self.acquire(room_id)
        assert lease is not None
        row = (room_id, pack(record), pack(state), pack(summary), record.get("code"),
               *lobby_columns(summary))

        def work(db: sqlite3.Connection) -> None:
            db.execute("INSERT INTO rooms (room, record, state, summary, code, game, waiting) "
                       "VALUES (?, ?, ?, ?, ?, ?, ?)", row)

        await self._write_state(room_id, state, work)
        return lease

    async def _write_state(self, room_id: str, state: dict[str, Any],
                           work: Callable[[sqlite3.Connection], None]) -> None:
        """Run ``work``, a transaction that writes ``state`` whole as the room's, and note
        it as the room's last (:attr:`states`; forgotten when it fails: it may or may not
        have landed)."""
        self.states.pop(room_id, None)
        await self.file.write(work)
        self.states[room_id] = state

    async def save_state(self, room_id: str, state: dict[str, Any],
                         summary: dict[str, Any], *, lease: Lease | None = None) -> None:
        """Replace the state and lobby entry (fenced by ``lease`` when given).

        Raises:
            OwnershipLost: ``lease`` is not the room's lease.
            StoreError: the file refused the write.
        """
        row = (pack(state), pack(summary), *lobby_columns(summary), room_id)

        def work(db: sqlite3.Connection) -> None:
            self.fence(room_id, lease)
            db.execute("UPDATE rooms SET state = ?, deadlines = NULL, summary = ?, game = ?, "
                       "waiting = ? WHERE room = ?", row)

        await self._write_state(room_id, state, work)

    async def append(self, room_id: str, entries: Sequence[LogEntry], expect: int,
                     state: dict[str, Any] | None, *, lease: Lease | None = None) -> None:
        """Append to the log (and store ``state`` unless None) in this tick's transaction;
        returns once it is committed (one entry, with or without a state: one write
        committed by itself when it may, :meth:`~.sqlite_file.DataFile.append_alone`).

        Raises:
            OwnershipLost: ``lease`` is not the room's lease; nothing was written.
            LogConflict: the log is not ``expect`` long; nothing was written.
            StoreError: the file refused the transaction; nothing was written.
        """
        if self.append_now(room_id, entries, expect, state, lease=lease):
            return
        lengths = self.lengths
        rows = [(room_id, expect + i, pack(e)) for i, e in enumerate(entries)]
        packed = None if state is None else pack(state)

        def work(db: sqlite3.Connection) -> None:
            self.fence(room_id, lease)
            length = lengths.get(room_id)
            if length is None:  # not read yet by this process (a restart, a takeover)
                (last,) = db.execute("SELECT max(seq) FROM log WHERE room = ?",
                                     (room_id,)).fetchone()
                length = 0 if last is None else last + 1
            if length != expect:
                raise LogConflict(f"log of {room_id} is {length} long, not {expect}")
            db.executemany(APPEND, rows)
            if packed is not None:
                db.execute("UPDATE rooms SET state = ?, deadlines = NULL WHERE room = ?",
                           (packed, room_id))
            lengths[room_id] = expect + len(rows)  # undone below if the commit fails

        try:
            if state is None:
                await self.file.write(work)
            else:
                await self._write_state(room_id, state, work)
        except BaseException:  # refused, or the transaction failed: read it again next time
            lengths.pop(room_id, None)
            raise

    def append_now(self, room_id: str, entries: Sequence[LogEntry], expect: int,
                   state: dict[str, Any] | None, *, lease: Lease | None = None) -> bool:
        """The common case of :meth:`append`, one entry (and the state when it changed)
        of a room whose log length this process knows, as one write committed by itself
        when the file takes one now (:meth:`~.sqlite_file.DataFile.append_alone`: the
        append journal, or one ``INSERT``). A state whose deadlines alone changed since
        the room's last one (a turn clock's new deadline) is written as its deadlines
        (:meth:`_state_row`).

        Returns:
            True when written and committed; False (nothing written) when the caller must
            await :meth:`append`: several entries, a log length not read yet, or a file
            that cannot commit this write by itself now.

        Raises:
            OwnershipLost: ``lease`` is not the room's lease; nothing was written.
            StoreError: the file refused the write; nothing was written.
        """
        lengths = self.lengths
        if len(entries) != 1 or lengths.get(room_id) != expect:
            return False
        self.fence(room_id, lease)
        try:
            if self.file.append_alone((room_id, expect, pack(entries[0])),
                                      None if state is None else self._state_row(room_id,
                                                                                 state)):
                lengths[room_id] = expect + 1
                if state is not None:
                    self.states[room_id] = state
                return True
        except BaseException:
            lengths.pop(room_id, None)
            self.states.pop(room_id, None)
            raise
        return False

    def _state_row(self, room_id: str, state: dict[str, Any]) -> Row:
        """The journal's record of room ``room_id``'s new ``state``: its deadlines alone
        (:func:`~.sqlite_journal.deadlines_row`) when every other value of it is the very
        object of the room's last state written (:attr:`states`), else the whole state."""
        last = self.states.get(room_id)
        if last is not None and len(last) == len(state) and DEADLINES_KEY in state:
            for key, value in state.items():
                if key != DEADLINES_KEY and (key not in last or last[key] is not value):
                    break
            else:
                return deadlines_row(room_id, state[DEADLINES_KEY])
        return room_id, STATE, pack(state)

    async def save_snapshot(self, room_id: str, state_id: int, snapshot: dict[str, Any]) -> None:
        """Keep the latest snapshot (the log stays whole: ``get_log`` and replays need it):
        in the append journal when it may (one ``write(2)``, folded with the log), else in
        a transaction.

        Raises:
            StoreError: the file refused the write.
        """
        packed = pack(snapshot)
        if self.file.append_alone(snapshot_row(room_id, state_id, packed)):
            return
        row = (room_id, state_id, packed)

        def work(db: sqlite3.Connection) -> None:
            db.execute("INSERT OR REPLACE INTO snapshots (room, state_id, snapshot) "
                       "VALUES (?, ?, ?)", row)

        await self.file.write(work)

    async def load(self, room_id: str, *, lease: Lease | None = None) -> Loaded | None:
        """Record, state, latest snapshot and the log after it; None for an unknown room
        or one whose finished-room time to live is over (``lease``: nothing to confirm
        here, no replica).

        Raises:
            StoreError: the file refused the read.
        """
        with self.file.reading() as db:
            row = db.execute(f"SELECT record, state, deadlines FROM rooms WHERE room = ? "
                             f"AND {LIVE}", (room_id, time.time())).fetchone()
            if row is None:
                return None
            snap = db.execute("SELECT state_id, snapshot FROM snapshots WHERE room = ?",
                              (room_id,)).fetchone()
            sid = 0 if snap is None else int(snap[0])
            raw = db.execute("SELECT entry FROM log WHERE room = ? AND seq >= ? ORDER BY seq",
                             (room_id, sid)).fetchall()
        return Loaded(unpack(row[0]), stored_state(row[1], row[2]),
                      None if snap is None else unpack(snap[1]), sid, [unpack(e) for e, in raw])

    async def log(self, room_id: str) -> list[LogEntry]:
        """The whole log (``[]`` for an unknown room).

        Raises:
            StoreError: the file refused the read.
        """
        with self.file.reading() as db:
            raw = db.execute("SELECT entry FROM log WHERE room = ? ORDER BY seq",
                             (room_id,)).fetchall()
        return [unpack(e) for e, in raw]

    async def finish_room(self, room_id: str, ttl: float) -> None:
        """The room expires ``ttl`` seconds from now: the lobby removes it then, and a
        restart after that moment deletes it (:meth:`prune`).

        Raises:
            StoreError: the file refused the write.
        """
        row = (time.time() + ttl, room_id)

        def work(db: sqlite3.Connection) -> None:
            db.execute("UPDATE rooms SET expires_at = ? WHERE room = ?", row)

        await self.file.write(work)

    async def delete_room(self, room_id: str) -> None:
        """Forget the room (record, state, lobby entry, code, log, snapshot, lease); then
        give free pages back to the disk when many are free
        (:meth:`~.sqlite_file.DataFile.vacuum`).

        Raises:
            StoreError: the file refused the write.
        """
        await self.file.write(lambda db: _delete(db, [room_id]))
        self.forget(room_id)
        self.lengths.pop(room_id, None)
        self.states.pop(room_id, None)
        self.file.vacuum()

    def prune(self, now: float | None = None) -> int:
        """Delete the rooms whose finished-room time to live is over (at ``now``, unix s;
        None: now) and give their pages back; returns how many. Run when the file opens.

        Raises:
            StoreError: the file refused the write.
        """
        moment = time.time() if now is None else now

        def work(db: sqlite3.Connection) -> int:
            gone = [r for r, in db.execute("SELECT room FROM rooms WHERE expires_at <= ?",
                                            (moment,))]
            _delete(db, gone)
            return len(gone)

        count = self.file.write_now(work)  # synchronous: at open, before any loop
        if count:
            self.file.vacuum()
        return int(count)


def _delete(db: sqlite3.Connection, rooms: list[str]) -> None:
    """Delete every row of ``rooms`` (in the caller's transaction)."""
    params = [(r,) for r in rooms]
    for table in ("rooms", "log", "snapshots"):
        db.executemany(f"DELETE FROM {table} WHERE room = ?", params)


class SQLiteLobby:
    """The lobby: every room's entry, the lobby indexes (``store.room_indexes``, read
    through the columns ``game`` and ``waiting``) and the join codes of private rooms.

    Attributes:
        file: The open data file.
    """

    file: DataFile

    async def list_rooms(self) -> list[dict[str, Any]]:
        """Every lobby entry.

        Raises:
            StoreError: the file refused the read.
        """
        with self.file.reading(fold=False) as db:
            raw = db.execute(f"SELECT summary FROM rooms WHERE {LIVE} ORDER BY room",
                             (time.time(),)).fetchall()
        return [unpack(s) for s, in raw]

    async def index_ids(self, index: str, after: str, count: int) -> list[str]:
        """Ids of lobby index ``index`` after ``after``, in id order (one index range).

        Raises:
            StoreError: the file refused the read.
        """
        kind, _, game = index.partition(":")
        where = {"all": "", "game": "game = ? AND ", "waiting": "waiting = 1 AND "}.get(kind)
        if where is None:
            return []
        args: list[Any] = []
        if game:
            where, args = where + ("game = ? AND " if kind == "waiting" else ""), [game]
        with self.file.reading(fold=False) as db:
            raw = db.execute(f"SELECT room FROM rooms WHERE {where}room > ? ORDER BY room "
                             "LIMIT ?", (*args, after, count)).fetchall()
        return [r for r, in raw]

    async def entries(self, room_ids: Sequence[str]) -> list[dict[str, Any] | None]:
        """Entries by id (None for an unknown or expired room).

        Raises:
            StoreError: the file refused the read.
        """
        if not room_ids:
            return []
        marks = ",".join("?" * len(room_ids))
        with self.file.reading(fold=False) as db:
            found = dict(db.execute(f"SELECT room, summary FROM rooms WHERE room IN ({marks}) "
                                    f"AND {LIVE}", (*room_ids, time.time())).fetchall())
        return [None if (s := found.get(r)) is None else unpack(s) for r in room_ids]

    async def room_by_code(self, code: str) -> str | None:
        """Room id of a join code (the newest room with it).

        Raises:
            StoreError: the file refused the read.
        """
        with self.file.reading(fold=False) as db:
            row = db.execute(f"SELECT room FROM rooms WHERE code = ? AND {LIVE} "
                             "ORDER BY rowid DESC LIMIT 1", (code, time.time())).fetchone()
        return None if row is None else str(row[0])


class SQLiteBoards:
    """Leaderboards: per board, each name's best rank value (lower is better), the best
    ``size`` names kept (see :mod:`.leaderboard`).

    Attributes:
        file: The open data file.
    """

    file: DataFile

    async def record_score(self, board: str, name: str, value: int, size: int) -> bool:
        """Keep the better of ``value`` and the name's entry, then the best ``size``.

        Raises:
            StoreError: the file refused the write.
        """
        def work(db: sqlite3.Connection) -> bool:
            row = db.execute("SELECT value FROM boards WHERE board = ? AND name = ?",
                             (board, name)).fetchone()
            if row is not None and row[0] <= value:
                return False
            db.execute("INSERT OR REPLACE INTO boards (board, name, value) VALUES (?, ?, ?)",
                       (board, name, value))
            db.execute("DELETE FROM boards WHERE board = ?1 AND name IN (SELECT name FROM "
                       "boards WHERE board = ?1 ORDER BY value, name LIMIT -1 OFFSET ?2)",
                       (board, size))
            return True

        return await self.file.write(work)

    async def board_page(self, board: str, start: int, count: int
                         ) -> tuple[list[tuple[str, int]], int]:
        """Entries ``start .. start+count-1``, best first (ties by name), and the total.

        Raises:
            StoreError: the file refused the read.
        """
        with self.file.reading(fold=False) as db:
            (total,) = db.execute("SELECT count(*) FROM boards WHERE board = ?",
                                  (board,)).fetchone()
            rows = [] if count <= 0 else db.execute(
                "SELECT name, value FROM boards WHERE board = ? ORDER BY value, name "
                "LIMIT ? OFFSET ?", (board, count, start)).fetchall()
        return [(str(n), int(v)) for n, v in rows], int(total)

    async def board_rank(self, board: str, name: str) -> tuple[int, int] | None:
        """``(position, value)`` of ``name`` (0-based, best first), or None.

        Raises:
            StoreError: the file refused the read.
        """
        with self.file.reading(fold=False) as db:
            row = db.execute("SELECT value FROM boards WHERE board = ? AND name = ?",
                             (board, name)).fetchone()
            if row is None:
                return None
            value = int(row[0])
            (ahead,) = db.execute(
                "SELECT count(*) FROM boards WHERE board = ? AND (value < ? OR "
                "(value = ? AND name < ?))", (board, value, value, name)).fetchone()
        return int(ahead), value


class SQLiteStore(SQLiteRooms, SQLiteLobby, SQLiteBoards, SQLiteArchive, LocalLeases, LocalInbox,
                  Store):
    """Rooms, lobby and leaderboards in one SQLite file (see the module docstring).

    Args:
        path: The data file (made ``0600``, its folder ``0700``, when missing).
        fsync: ``"normal"``: a commit is in the operating system when an action is answered
            (survives a ``kill -9``, not always a power loss); ``"always"``: on the disk.
        commit: How writes commit (:data:`~.sqlite_file.COMMITS`): ``"tick"`` (the writes
            of one loop tick share one transaction, each waits for its commit), ``"each"``
            (each commits at once, nothing waits) or ``"adaptive"`` (the first write of a
            tick commits at once, the others of the tick share one commit). None (the
            default): ``"tick"`` with ``fsync "always"`` (one disk sync per tick, not per
            action), ``"adaptive"`` with ``"normal"`` (benchmarks/RESULTS.md, "SQLite
            store").
        journal: Lone log appends go to the append journal (sqlite_journal.py) rather
            than SQLite; None (the default): with ``fsync "normal"`` (benchmarks/RESULTS.md,
            session 17). A journal is never used with ``"always"``.

    Raises:
        DataFileLocked: another process holds the file.
        DataFileError: it cannot be opened, is not a Cardhall data file, is damaged or of
            a newer schema.
    """

    answers_at_once = True
    shared = False
    durable = True

    def __init__(self, path: str | Path, *, fsync: str = "normal",
                 commit: str | None = None, journal: bool | None = None) -> None:
        LocalLeases.__init__(self)
        self.lengths = {}
        self.states = {}
        self.process_id = new_process_id()
        self.health = StoreHealth(self.lease_seconds)  # no lease expires: never "down"
        self.path = Path(path)
        if commit is None:
            commit = "tick" if fsync == "always" else "adaptive"
        self.file = open_file(self.path, fsync=fsync, commit=commit, journal=journal)
        try:
            pruned = self.prune()
        except BaseException:
            self.file.close()
            raise
        if pruned:
            log.info("data file %s: %d finished rooms past their time to live deleted",
                     self.path, pruned)

    @property
    def errors(self) -> int:
        """Reads and writes the file refused so far (``cardhall_store_errors_total``)."""
        return self.file.errors

    # -- leases (the rest: LocalLeases) -------------------------------------------------

    async def release(self, room_id: str) -> None:
        """Give up the room's lease: :meth:`owner` says nobody runs it."""
        self.leases.pop(room_id, None)
        self.states.pop(room_id, None)

    async def owner(self, room_id: str) -> str | None:
        """This process while it runs the room (holds its lease), else None."""
        return self.process_id if room_id in self.leases else None

    async def owners(self, room_ids: Sequence[str]) -> list[str | None]:
        """:meth:`owner` of each room."""
        return [self.process_id if r in self.leases else None for r in room_ids]

    async def orphans(self) -> list[str]:
        """The rooms of the file that this process does not run (after a restart: every
        room, finished ones within their time to live included), in id order.

        Raises:
            StoreError: the file refused the read.
        """
        with self.file.reading(fold=False) as db:
            rows = db.execute(f"SELECT room FROM rooms WHERE {LIVE} ORDER BY room",
                              (time.time(),)).fetchall()
        return [r for r, in rows if r not in self.leases]

    # -- the store -----------------------------------------------------------------------

    async def healthy(self) -> bool:
        """True when the file answers and its last write was not refused."""
        if self.file.failing:
            return False
        try:
            self.file.db.execute("SELECT 1").fetchone()
        except sqlite3.Error:
            return False
        return True

    async def close(self) -> None:
        """Commit what waits, checkpoint, close the file and release its lock."""
        self.file.close()
