"""The data file's append journal: a room's log entry made durable by one ``write(2)``.

An action is answered only once its log entry is committed. With ``--fsync normal`` a
commit means "in the operating system" (it survives a ``kill -9`` of the process, not a
power loss): SQLite's ``synchronous=NORMAL`` commit in WAL mode, or an ``os.write`` to a
file opened ``O_APPEND``. The second costs a third of the first on a cold CPU
(benchmarks/RESULTS.md, sessions 15 and 17: 20 against 69 µs), so a room's lone log append
(:meth:`~.sqlite_file.DataFile.append_alone`) is written here, answered, and *folded* into
the data file's ``log`` table :data:`FOLD_SECONDS` later; the journal is then cut back to
what still waits. Folding every half second rather than every loop pass pays one write of
each room's state and of each room's last page of the log, however many turns it played
meanwhile (benchmarks/RESULTS.md, sessions 21 and 24: a tenth of a second cost a closed
loop ~11% more CPU per action); a ``kill -9`` loses none of them either way.

A fold is a few *passes*, one per turn of the event loop, each one transaction folding
every waiting row of a few rooms (:data:`PASS_ROOMS`, :data:`PASS_ROWS`): at 100 rooms one
transaction for all of them held the loop ~3 ms, every room's actions waiting behind it,
which was the SQLite store's p99 at human pace (benchmarks/RESULTS.md, sessions 25 and 26).
A room's rows are folded in order, and all of them in one pass, so each room of the data file
is always a consistent earlier moment of that room, and the journal holds the entries after
it. Rooms are independent here (anything that spans rooms is a transaction of the file,
which folds the whole journal first, at once, as every read and write of the file does).
Once its last pass commits, the journal is emptied, or rewritten to hold only the rows
appended while the fold went on (:meth:`AppendJournal.compact`: a new file renamed over
the journal, so a ``kill -9`` finds the old journal or the new one, never a mix). Until
then the journal still holds the rows already folded; a restart folds them again, which
changes nothing (see :func:`recover`).

The file is ``PATH.appends`` beside the data file ``PATH`` (mode ``0600``), a sequence of
records::

    <u32: payload bytes> <u32: CRC-32 of the payload> <payload>
    payload = <i64: seq> <u16: room bytes> <room: UTF-8> <entry: the packed log entry>
    (little-endian; one row of the log table; struct, not msgpack: a third of the cost on
    a cold CPU, benchmarks/RESULTS.md, session 17)

A seq of :data:`STATE` (-1) marks the room's packed *state* instead of a log entry: an
append that changes the state (a seat taken, a member gone) writes its entry and its state
as two records of one ``write(2)``, and the fold replaces the room's ``state`` column with
the last state the journal holds for it (:func:`fold_rows`; benchmarks/RESULTS.md, session
21). A seq of :data:`DEADLINES` (-3) marks the room's packed *deadlines* alone
(``[[seat, unix time s], ...]``): a turn clock moves them at every turn of a timed room
and nothing else of its state, so the append writes them (tens of bytes) rather than the
whole state (~600 bytes, packed at every turn; benchmarks/RESULTS.md, session 24); the fold
writes the last of them to the room's ``deadlines`` column, which goes onto its ``state``
when it is read (:func:`stored_state`), rather than unpack the state, put them on and pack
it again (:func:`final_states`; benchmarks/RESULTS.md, session 28). A whole state written
empties that column. A seq of :data:`SNAPSHOT` (-2)
marks the room's engine snapshot (``<i64: its state_id>`` then the packed snapshot: every
64 entries of a room), folded as the room's row of ``snapshots``. Every transaction of the
data file folds the journal first, so what the journal holds is always newer than the file.

What waits unfolded is bounded: past :data:`LIMIT` bytes an append goes through a
transaction instead, which folds the journal (:meth:`~.sqlite_file.DataFile.append_alone`).
A restart folds what a killed process left; on a disk still full that fold cannot commit
and the data file refuses to open, saying to free some space (nothing is lost: the journal
is kept whole and folded at the next open).

At open (:func:`recover`), every whole record with a good CRC is inserted into the log with
``INSERT OR IGNORE`` (a fold committed just before a ``kill -9`` could not cut the journal:
its rows are there already), in one transaction, and the journal is emptied. Folding a room's
rows again is harmless: its log rows are there already, and its last state, deadlines and
snapshot are the same ones. A record torn
by a power loss (short, or a bad CRC) ends the journal: it and what follows are dropped
with a warning giving the bytes dropped (a power loss may cost the last entries, as
SQLite's ``synchronous=NORMAL`` may; docs/operations.md).

A write that fails (``ENOSPC``, ``EIO``) or comes out short cuts the file back to its last
whole record, so a later record never follows a torn one.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sqlite3
import struct
import zlib
from collections import deque
from collections.abc import Collection
from pathlib import Path
from typing import Any

from .ports import pack, unpack

log = logging.getLogger("cardhall.sqlite")

#: One row of the ``log`` table: ``(room, seq, packed entry)``.
Row = tuple[str, int, bytes]
#: A record's header: payload length (bytes), CRC-32 of the payload.
HEADER = struct.Struct("<II")
#: The head of a payload: the entry's seq, the room id's length in bytes.
HEAD = struct.Struct("<qH")
#: The ``INSERT`` of a log row (the data file's schema, sqlite_schema.py).
APPEND = "INSERT INTO log (room, seq, entry) VALUES (?, ?, ?)"
#: The same, at recovery: a row folded before the crash is there already.
RECOVER = "INSERT OR IGNORE INTO log (room, seq, entry) VALUES (?, ?, ?)"
#: The fold of a journaled state: the room's ``state`` column, and the deadlines journaled
#: after it or NULL (a room forgotten since has no row, and the update changes nothing).
SET_STATE = "UPDATE rooms SET state = ?, deadlines = ? WHERE room = ?"
#: The fold of journaled deadlines alone: they go onto the room's state as it is read.
SET_DEADLINES = "UPDATE rooms SET deadlines = ? WHERE room = ?"
#: The seq of a record holding the room's packed state rather than a log entry.
STATE = -1
#: The seq of a record holding the room's engine snapshot (:func:`snapshot_row`).
SNAPSHOT = -2
#: The seq of a record holding the room's packed deadlines alone, to put onto its last state.
DEADLINES = -3
#: The key of a room's state that a :data:`DEADLINES` record replaces (store.ports: state).
DEADLINES_KEY = "deadlines"
#: The head of a snapshot record's data: the snapshot's state_id.
SNAPSHOT_HEAD = struct.Struct("<q")
#: The fold of a journaled snapshot: the room's latest.
SET_SNAPSHOT = "INSERT OR REPLACE INTO snapshots (room, state_id, snapshot) VALUES (?, ?, ?)"
#: Seconds from the first append written to the journal to the fold of what waits in it.
FOLD_SECONDS = 0.5
#: Bytes the journal may hold unfolded before appends go through a transaction (which folds
#: it): a half second of a busy server's appends (~10,000 actions a second, ~80 bytes each
#: with their deadlines) fits several times over.
LIMIT = 4 << 20
#: Rooms one pass of a fold (one transaction on the event loop) folds at most: ~30 us of
#: the loop per room with one or two entries waiting (a room's log page and state row),
#: so ~0.5 ms per pass (benchmarks/RESULTS.md, session 26).
PASS_ROOMS = 16
#: Rows after which a pass takes no more rooms (a room's rows all go into one pass): at a
#: closed loop's pace every room has tens of rows waiting, at ~4 us each.
PASS_ROWS = 256


def journal_path(path: Path) -> Path:
    """The append journal of data file ``path`` (``PATH.appends``)."""
    return path.with_name(path.name + ".appends")


def rewrite_path(journal: Path) -> Path:
    """Where :meth:`AppendJournal.compact` writes a new ``journal`` before renaming it over
    the old one (``PATH.appends.new``)."""
    return journal.with_name(journal.name + ".new")


def encode(row: Row) -> bytes:
    """One record of the journal for log row ``row`` (header and payload).

    Raises:
        struct.error: a room id over 65,535 bytes, or a seq beyond 64 bits.
    """
    room, seq, entry = row
    name = room.encode()
    payload = HEAD.pack(seq, len(name)) + name + entry
    return HEADER.pack(len(payload), zlib.crc32(payload)) + payload


def decode(data: bytes) -> tuple[list[Row], int]:
    """The rows of a journal's bytes ``data``, up to its first torn or damaged record.

    Returns:
        ``(rows, bytes dropped)``: the whole records' rows in order, and the bytes from the
        first bad record to the end (0 for a sound journal).
    """
    rows: list[Row] = []
    at, end = 0, len(data)
    while at < end:
        if end - at < HEADER.size:
            break
        size, crc = HEADER.unpack_from(data, at)
        payload = data[at + HEADER.size:at + HEADER.size + size]
        if len(payload) != size or zlib.crc32(payload) != crc:
            break
        if size < HEAD.size:
            break
        seq, length = HEAD.unpack_from(payload)
        name = payload[HEAD.size:HEAD.size + length]
        if len(name) != length:
            break
        try:
            room = name.decode()
        except UnicodeDecodeError:
            break
        rows.append((room, seq, payload[HEAD.size + length:]))
        at += HEADER.size + size
    return rows, end - at


def snapshot_row(room: str, state_id: int, packed: bytes) -> Row:
    """The journal's record of room ``room``'s engine snapshot ``packed`` at ``state_id``."""
    return room, SNAPSHOT, SNAPSHOT_HEAD.pack(state_id) + packed


def deadlines_row(room: str, deadlines: list[list[Any]]) -> Row:
    """The journal's record of room ``room``'s ``deadlines`` (``[[seat, unix time s], ...]``)
    alone, when nothing else of its state changed since its last state written."""
    return room, DEADLINES, pack(deadlines)


def final_states(rows: list[Row]) -> list[tuple[bytes | None, bytes | None, str]]:
    """Each room's state after the journal's ``rows``, as ``(packed state, packed
    deadlines, room)``: its last :data:`STATE` record (None: none in ``rows``, the file's
    stays) and the last :data:`DEADLINES` record after it (None: none after it, the state's
    own hold)."""
    last: dict[str, tuple[bytes | None, bytes | None]] = {}
    for room, seq, data in rows:
        if seq == STATE:
            last[room] = (data, None)
        elif seq == DEADLINES:
            base = last.get(room)
            last[room] = (None if base is None else base[0], data)
    return [(state, deadlines, room) for room, (state, deadlines) in last.items()]


def stored_state(state: bytes | None, deadlines: bytes | None) -> dict[str, Any] | None:
    """A room's state from its row of the file's ``rooms``: its packed ``state`` column
    (None: it has none), with its packed ``deadlines`` column put on when it is set.

    Raises:
        ValueError: a column is not msgpack (``msgpack``'s errors derive from it).
    """
    if state is None:
        return None
    whole: dict[str, Any] = unpack(state)
    if deadlines is not None:
        whole[DEADLINES_KEY] = unpack(deadlines)
    return whole


def fold_rows(db: sqlite3.Connection, rows: list[Row]) -> int:
    """Fold the journal's ``rows`` into the open transaction of ``db``: the log rows with
    ``INSERT OR IGNORE`` (one there already keeps the log's row), then each room's state
    after them (:func:`final_states`) as its ``state`` and ``deadlines`` columns (or its
    ``deadlines`` alone) and its last :data:`SNAPSHOT` as its snapshot.

    Returns:
        The log rows that clashed with rows already in the log (not inserted).

    Raises:
        sqlite3.Error: the file refused them.
    """
    # Each entry bound as a bytearray: Python 3.11's sqlite3 binds int, float, str and
    # bytearray as they are, and looks every other value up in its adapters first (for
    # bytes, two failed attribute lookups, each with its error message formatted).
    entries = [(room, seq, bytearray(data)) for room, seq, data in rows if seq >= 0]
    snaps = {room: data for room, seq, data in rows if seq == SNAPSHOT}
    clashed = len(entries) - db.executemany(RECOVER, entries).rowcount if entries else 0
    states = final_states(rows)
    if states:
        whole = [(state, deadlines, room) for state, deadlines, room in states
                 if state is not None]
        if whole:
            db.executemany(SET_STATE, whole)
        if len(whole) < len(states):
            db.executemany(SET_DEADLINES, [(deadlines, room) for state, deadlines, room
                                           in states if state is None])
    if snaps:
        db.executemany(SET_SNAPSHOT, [(room, SNAPSHOT_HEAD.unpack_from(data)[0],
                                       data[SNAPSHOT_HEAD.size:])
                                      for room, data in snaps.items()])
    return clashed


def recover(db: sqlite3.Connection, path: Path) -> int:
    """Fold the journal of data file ``path`` into it (``db``: a connection to it in
    autocommit mode, the file locked by this process), in one transaction
    (:func:`fold_rows`), then empty the journal. Rows already in the log are kept as they
    are (``INSERT OR IGNORE``).

    Returns:
        The records read from the journal, log rows and states (0 when it is missing or
        empty).

    Raises:
        OSError: the journal cannot be read or emptied.
        sqlite3.Error: the data file refused the transaction (the journal is kept whole).
    """
    journal = journal_path(path)
    # A rewrite of the journal killed before its rename (AppendJournal.compact): the
    # journal itself is whole.
    rewrite_path(journal).unlink(missing_ok=True)
    try:
        data = journal.read_bytes()
    except FileNotFoundError:
        return 0
    if not data:
        return 0
    rows, dropped = decode(data)
    if dropped:
        log.warning("append journal %s: %d bytes after its last whole record dropped "
                    "(torn by a power loss or a disk error)", journal, dropped)
    if rows:
        db.execute("BEGIN IMMEDIATE")
        try:
            fold_rows(db, rows)
            db.execute("COMMIT")
        except BaseException:
            if db.in_transaction:
                db.execute("ROLLBACK")
            raise
        entries = sum(1 for row in rows if row[1] >= 0)
        log.info("append journal %s: %d log entries folded into the data file (and %d states, "
                 "deadlines or snapshots)", journal, entries, len(rows) - entries)
    os.truncate(journal, 0)
    return len(rows)


class AppendJournal:
    """The open append journal of a data file (see the module docstring): rows are written
    to it, then folded into the data file by its owner (:class:`~.sqlite_file.DataFile`),
    which calls :meth:`folded` once they are committed there.

    Args:
        path: The data file (the journal is :func:`journal_path` of it; created ``0600``).

    Attributes:
        data: The data file.
        path: The journal.
        waiting: The rows written and not yet folded, by room (in the order rooms first
            wrote one), each room's in order.
        size: The journal's length in bytes.
        due: The rooms the fold under way has still to fold (:meth:`begin_fold`).
        holds_folded: The journal still holds rows that are folded (until :meth:`compact`
            or it is emptied).

    Raises:
        OSError: the journal cannot be opened.
    """

    def __init__(self, path: Path) -> None:
        self.data = path
        self.path = journal_path(path)
        self.fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC,
                          0o600)
        self.size = os.fstat(self.fd).st_size
        self.waiting: dict[str, list[Row]] = {}
        self.due: deque[str] = deque()
        self.holds_folded = False

    def append(self, row: Row, state: Row | None = None) -> None:
        """Write the records of log row ``row`` and, unless None, its room's ``state``
        (``(room, STATE, packed state)``, or :func:`deadlines_row`) with one ``write(2)``;
        they survive a ``kill -9`` once this returns.

        Raises:
            OSError: the write failed or came out short (``ENOSPC`` for a short one); the
                journal was cut back to its last whole record and neither record is in it.
        """
        data = encode(row) if state is None else encode(row) + encode(state)
        try:
            written = os.write(self.fd, data)
        except OSError:
            self._cut()
            raise
        if written != len(data):
            self._cut()
            raise OSError(28, "No space left on device (a short write to the journal)")
        self.size += written
        rows = self.waiting.get(row[0])
        if rows is None:
            self.waiting[row[0]] = rows = []
        rows.append(row)
        if state is not None:
            rows.append(state)

    def rows(self) -> list[Row]:
        """Every waiting row, room by room (each room's in order: all a fold needs)."""
        return [row for rows in self.waiting.values() for row in rows]

    def begin_fold(self) -> None:
        """Start a fold: every room with rows waiting now is :attr:`due`, oldest first, for
        the passes of :meth:`next_pass`."""
        self.due = deque(self.waiting)

    def next_pass(self) -> tuple[list[Row], list[str]]:
        """The next pass of the fold: every waiting row of the next :attr:`due` rooms (at
        most :data:`PASS_ROOMS` of them, and no more once :data:`PASS_ROWS` rows are
        taken), and those rooms. A due room with no row waiting any more (folded by a
        transaction meanwhile) is skipped.

        Returns:
            ``(rows, rooms)``; ``([], [])`` once no room is due.
        """
        rows: list[Row] = []
        rooms: list[str] = []
        due, waiting = self.due, self.waiting
        while due and len(rooms) < PASS_ROOMS and len(rows) < PASS_ROWS:
            room = due.popleft()
            found = waiting.get(room)
            if found:
                rooms.append(room)
                rows += found
        return rows, rooms

    def fold_into(self, db: sqlite3.Connection, rows: list[Row] | None = None) -> None:
        """Fold ``rows`` (a pass, :meth:`next_pass`; None: every waiting row) into
        ``db``'s open transaction (:func:`fold_rows`; :meth:`folded` once it commits). A
        row whose ``(room, seq)`` is taken (never seen: one process alone writes the file,
        and the store checks each append's length) keeps the log's row, with an error
        logged, rather than make every later fold fail.

        Raises:
            sqlite3.Error: the file refused the rows.
        """
        clashed = fold_rows(db, self.rows() if rows is None else rows)
        if clashed:
            log.error("data file %s: %d journaled log entries clashed with rows in the log; "
                      "the log's rows are kept", self.data, clashed)

    def _cut(self) -> None:
        """Cut the journal back to :attr:`size` (after a failed or short write)."""
        try:
            os.ftruncate(self.fd, self.size)
        except OSError as exc:  # the next open drops the torn tail (decode)
            log.error("append journal %s: cannot cut a torn record: %s", self.path, exc)

    def folded(self, rooms: Collection[str] | None = None) -> None:
        """The waiting rows of ``rooms`` (None: every waiting row) are committed in the
        data file: forget them, and empty the journal when nothing else waits (else it
        keeps them until :meth:`compact`). An error emptying it is logged (the next open
        folds the rows again, ``INSERT OR IGNORE``), not raised."""
        if rooms is None:
            self.waiting.clear()
        else:
            for room in rooms:
                self.waiting.pop(room, None)
        if self.waiting:
            self.holds_folded = True
            return
        self.holds_folded = False
        if self.size:
            try:
                os.ftruncate(self.fd, 0)
                self.size = 0
            except OSError as exc:
                log.error("append journal %s: cannot empty it: %s", self.path, exc)

    def compact(self) -> None:
        """At the end of a fold that left rows waiting (appended while it went on), make
        the journal hold those rows alone: written to ``PATH.appends.new``, which is then
        renamed over the journal (a ``kill -9`` finds one or the other whole, and either
        folds to the same store). A failure (a full disk) is logged, not raised: the
        journal keeps the rows folded already (folding them again changes nothing) and the
        next fold tries again."""
        if not self.holds_folded or not self.waiting:
            return
        data = b"".join(encode(row) for row in self.rows())
        fresh = rewrite_path(self.path)
        try:
            fd = os.open(fresh, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_TRUNC
                         | os.O_CLOEXEC, 0o600)
        except OSError as exc:
            log.warning("append journal %s: cannot rewrite it: %s", self.path, exc)
            return
        try:
            if os.write(fd, data) != len(data):
                raise OSError(28, "No space left on device (a short write)")
            os.replace(fresh, self.path)
        except OSError as exc:
            os.close(fd)
            with contextlib.suppress(OSError):
                fresh.unlink()
            log.warning("append journal %s: cannot rewrite it: %s", self.path, exc)
            return
        os.close(self.fd)
        self.fd, self.size, self.holds_folded = fd, len(data), False

    def close(self) -> None:
        """Close the journal; remove it when it is empty (nothing waits to be folded)."""
        os.close(self.fd)
        if not self.waiting and self.size == 0:
            self.path.unlink(missing_ok=True)
