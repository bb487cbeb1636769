"""The data file's schema: its tables, the migrations that build them version by version,
and the checks run before a file is used (:func:`check`, :func:`migrate`); with
:class:`DataFileError`, what a data file that cannot be used raises.

Schema (version 6; v3 accounts, v4 the games archive, v5 and v6 ratings: rating_sqlite.py)::

    rooms      room (unique), record, state, summary (msgpack: see store/ports.py), code (private
               rooms' join code), expires_at (unix s: a finished room is deleted after it),
               game, waiting (1 when its lobby entry is a waiting_entry): the lobby indexes
    log        (room, seq) -> entry: msgpack log entries; entry seq made state seq + 1
    snapshots  room -> state_id, snapshot (msgpack engine snapshot)
    boards     (board, name) -> value: leaderboards (lower value is better)

A file's ``user_version`` is its schema version; :data:`MIGRATIONS` take it from each
version to the next, each in one transaction (:func:`migrate`). :mod:`.sqlite_file` opens
files and writes to them.
"""

from __future__ import annotations

import errno
import logging
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

from . import sqlite_checks as checks
from ..accounts.account_sqlite import create_tables as _v3_accounts
from .ports import StoreError, unpack, waiting_entry
from .rating_sqlite import add_game_order as _v6_rated_games, create_tables as _v5_ratings
from .sqlite_archive import create_table as _v4_archive

log = logging.getLogger("cardhall.sqlite")


class DataFileError(StoreError):
    """The data file cannot be used (unreadable, not a Cardhall data file, damaged, of a
    newer schema): the message says what to do."""



def _v1(db: sqlite3.Connection) -> None:
    """Version 1: rooms (record, state, lobby entry, code, expiry), logs, snapshots and
    leaderboards."""
    _script(db, """
        CREATE TABLE rooms (
            room TEXT NOT NULL UNIQUE,
            record BLOB NOT NULL,
            state BLOB,
            summary BLOB NOT NULL,
            code TEXT,
            expires_at REAL
        );
        CREATE INDEX rooms_code ON rooms (code) WHERE code IS NOT NULL;
        CREATE INDEX rooms_expiry ON rooms (expires_at) WHERE expires_at IS NOT NULL;
        CREATE TABLE log (
            room TEXT NOT NULL,
            seq INTEGER NOT NULL,
            entry BLOB NOT NULL,
            PRIMARY KEY (room, seq)
        ) WITHOUT ROWID;
        CREATE TABLE snapshots (
            room TEXT NOT NULL PRIMARY KEY,
            state_id INTEGER NOT NULL,
            snapshot BLOB NOT NULL
        );
        CREATE TABLE boards (
            board TEXT NOT NULL,
            name TEXT NOT NULL,
            value INTEGER NOT NULL,
            PRIMARY KEY (board, name)
        ) WITHOUT ROWID;
        CREATE INDEX boards_rank ON boards (board, value, name)
    """)


def _script(db: sqlite3.Connection, script: str) -> None:
    """Run the statements of ``script`` (separated by ``;``) inside the caller's transaction
    (``executescript`` would commit it first)."""
    for statement in script.split(";"):
        if statement.strip():
            db.execute(statement)


def _v2(db: sqlite3.Connection) -> None:
    """Version 2: the lobby indexes (``store.room_indexes``) as the columns ``game`` and
    ``waiting``, filled from each room's lobby entry, and an index per lobby index."""
    db.execute("ALTER TABLE rooms ADD COLUMN game TEXT NOT NULL DEFAULT ''")
    db.execute("ALTER TABLE rooms ADD COLUMN waiting INTEGER NOT NULL DEFAULT 0")
    rows = db.execute("SELECT room, summary FROM rooms").fetchall()
    for room, summary in rows:
        db.execute("UPDATE rooms SET game = ?, waiting = ? WHERE room = ?",
                   (*lobby_columns(unpack(summary)), room))
    db.execute("CREATE INDEX rooms_game ON rooms (game, room)")
    db.execute("CREATE INDEX rooms_waiting ON rooms (room) WHERE waiting = 1")
    db.execute("CREATE INDEX rooms_waiting_game ON rooms (game, room) WHERE waiting = 1")


def _v7_deadlines(db: sqlite3.Connection) -> None:
    """Version 7: a room's ``deadlines`` column, its turn clocks' deadlines when they moved
    since its ``state`` was written whole (packed ``[[seat, unix time s], ...]``; NULL: the
    state's own): a fold writes a timed room's new deadlines there, tens of bytes, rather
    than unpack its state, put them on and write it back (sqlite_journal.py)."""
    db.execute("ALTER TABLE rooms ADD COLUMN deadlines BLOB")


#: The schema's migrations, in order: ``MIGRATIONS[k]`` takes a file from version ``k`` to
#: ``k + 1`` (an empty file is version 0): v1 rooms, logs, snapshots and boards; v2 the
#: lobby-index columns; v3 the accounts' tables (:mod:`.account_sqlite`); v4 the games
#: archive (:mod:`.sqlite_archive`); v5 ratings, v6 rated games' type (:mod:`.rating_sqlite`);
#: v7 the rooms' deadlines column.
MIGRATIONS: tuple[Callable[[sqlite3.Connection], None], ...] = (
    _v1, _v2, _v3_accounts, _v4_archive, _v5_ratings, _v6_rated_games, _v7_deadlines)
#: The schema version this code writes.
SCHEMA_VERSION = len(MIGRATIONS)


def lobby_columns(summary: dict[str, Any]) -> tuple[str, int]:
    """``(game, waiting)``: the columns that place a room in the lobby indexes (v2)."""
    return summary["game"], int(waiting_entry(summary))


def say(exc: sqlite3.Error | OSError) -> str:
    """SQLite's (or the system's) words for ``exc`` (``database or disk is full``, ...),
    for the messages of :class:`DataFileError` and the store's errors."""
    if isinstance(exc, OSError) and exc.errno == errno.ENOSPC:
        return "the disk is full (no space left on device)"
    return str(exc) or type(exc).__name__


def check(db: sqlite3.Connection, path: Path) -> int:
    """The schema version of ``db`` (the data file at ``path``, for the messages), after an
    integrity check (``PRAGMA quick_check``) and :func:`.sqlite_checks.schema_problem`.

    Raises:
        DataFileError: it is not a SQLite file, is damaged, or is of a newer schema.
    """
    try:
        version = int(db.execute("PRAGMA user_version").fetchone()[0])
        problems = [row[0] for row in db.execute("PRAGMA quick_check")]
    except sqlite3.DatabaseError as exc:
        raise DataFileError(f"the data file {path} is not a Cardhall data file or is damaged "
                            f"({say(exc)}): restore a backup (cardhall backup) or move it "
                            "away to start empty") from None
    if problems != ["ok"]:
        raise DataFileError(f"the data file {path} is damaged ({'; '.join(problems[:3])}): "
                            "restore a backup (cardhall backup) or move it away")
    if version > SCHEMA_VERSION:
        raise DataFileError(f"the data file {path} has schema version {version}, newer than "
                            f"this Cardhall's {SCHEMA_VERSION}: run a newer Cardhall, or "
                            "restore a backup made by this version")
    refuse(checks.schema_problem(db, path, version))
    return version


def refuse(problem: str | None) -> None:
    """Raise :class:`DataFileError` (``problem``) when :mod:`.sqlite_checks` found one
    (None: it found none; nothing happens).

    Raises:
        DataFileError: ``problem`` is a reason."""
    if problem:
        raise DataFileError(problem)


def migrate(db: sqlite3.Connection, path: Path, found: int | None = None) -> int:
    """Bring the schema of ``db`` to :data:`SCHEMA_VERSION`: each missing migration in its
    own transaction, with ``user_version`` set to the version it reaches.

    Args:
        found: The file's version as checked already (None: check it here).

    Returns:
        The version the file had before (0: it was empty).

    Raises:
        DataFileError: the file is damaged or of a newer schema, or a migration failed
            (the file stays at the last version reached).
    """
    if found is None:
        found = check(db, path)
    if found == 0:
        db.execute("PRAGMA auto_vacuum = INCREMENTAL")  # only before the first table
    for version in range(found, SCHEMA_VERSION):
        try:
            db.execute("BEGIN IMMEDIATE")
            MIGRATIONS[version](db)
            db.execute(f"PRAGMA user_version = {version + 1}")
            db.execute("COMMIT")
        except sqlite3.Error as exc:
            if db.in_transaction:
                db.execute("ROLLBACK")
            raise DataFileError(f"the data file {path} could not be migrated from schema "
                                f"{version} to {version + 1}: {say(exc)}") from None
        # A new file is news to nobody; an older file brought up to date is, to an operator.
        log.log(logging.INFO if found else logging.DEBUG, "data file %s migrated to schema %d",
                path, version + 1)
    return found
