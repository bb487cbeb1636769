"""The account store on SQLite (:class:`SQLiteAccounts`): accounts, tokens and histories in
the tables of one database, for the durable embedded store.

It runs each write as a function of the connection inside a transaction (``write``) and each
read on the connection (``read``): the embedded SQLite store's data file provides both (its
``DataFile.write`` and ``DataFile.reading``), and the tables come from :func:`create_tables`,
one migration of that file's schema. A plain ``sqlite3`` connection serves as well
(:func:`plain`, for tests and tools). One process owns the file: the store is not shared,
and sign-in attempts are counted in this process.

Tables::

    accounts        id -> username, record (msgpack, identity.Account.record)
    account_keys    (kind, key) -> account: the unique keys (usernames, name keys, device and
                    subject digests); the primary key keeps each held by one account
    account_tokens  (account, digest) -> record (msgpack), expires (unix s)
    account_seats   (account, room) -> entry (msgpack): running seats
    account_games   (account, seq) -> entry (msgpack): finished games, the newest the highest
                    seq; the oldest beyond ``keep`` are deleted
"""

from __future__ import annotations

import contextlib
import sqlite3
import time
from collections.abc import Awaitable, Callable, Iterator, Sequence
from contextlib import AbstractContextManager
from typing import Any, TypeVar

import msgpack
from limits.aio.storage import MemoryStorage, Storage

from .account_store import KeyTaken
from .identity import Account

__all__ = ["SQLiteAccounts", "create_tables", "plain"]

T = TypeVar("T")
Write = Callable[[Callable[[sqlite3.Connection], Any]], Awaitable[Any]]
Read = Callable[[], AbstractContextManager[sqlite3.Connection]]

TABLES = """
CREATE TABLE accounts (
    id TEXT NOT NULL PRIMARY KEY,
    username TEXT NOT NULL,
    record BLOB NOT NULL
) WITHOUT ROWID;
CREATE INDEX accounts_username ON accounts (username, id);
CREATE TABLE account_keys (
    kind TEXT NOT NULL,
    key TEXT NOT NULL,
    account TEXT NOT NULL,
    PRIMARY KEY (kind, key)
) WITHOUT ROWID;
CREATE TABLE account_tokens (
    account TEXT NOT NULL,
    digest TEXT NOT NULL,
    record BLOB NOT NULL,
    expires REAL NOT NULL,
    PRIMARY KEY (account, digest)
) WITHOUT ROWID;
CREATE INDEX account_tokens_expiry ON account_tokens (expires);
CREATE TABLE account_seats (
    account TEXT NOT NULL,
    room TEXT NOT NULL,
    entry BLOB NOT NULL,
    PRIMARY KEY (account, room)
) WITHOUT ROWID;
CREATE TABLE account_games (
    account TEXT NOT NULL,
    seq INTEGER NOT NULL,
    entry BLOB NOT NULL,
    PRIMARY KEY (account, seq)
) WITHOUT ROWID
"""


def create_tables(db: sqlite3.Connection) -> None:
    """Make the account tables, inside the caller's transaction (a schema migration)."""
    for statement in TABLES.split(";"):
        if statement.strip():
            db.execute(statement)


def plain(db: sqlite3.Connection) -> tuple[Write, Read]:
    """``(write, read)`` over a plain connection (autocommit mode: ``isolation_level=None``):
    each write in a transaction of its own, rolled back when its function raises."""

    async def write(work: Callable[[sqlite3.Connection], T]) -> T:
        db.execute("BEGIN")
        try:
            result = work(db)
        except BaseException:
            db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")
        return result

    @contextlib.contextmanager
    def read() -> Iterator[sqlite3.Connection]:
        yield db

    return write, read


def _pack(obj: Any) -> bytes:
    return msgpack.packb(obj, use_bin_type=True)


def _unpack(data: bytes) -> Any:
    return msgpack.unpackb(data, raw=False)


def _claim(db: sqlite3.Connection, account_id: str, keys: Sequence[tuple[str, str]]) -> None:
    """Insert ``keys`` for the account (inside the write's transaction).

    Raises:
        KeyTaken: one is held by another account (the write is rolled back).
    """
    for kind, key in keys:
        row = db.execute("SELECT account FROM account_keys WHERE kind = ? AND key = ?",
                         (kind, key)).fetchone()
        if row is not None and row[0] != account_id:
            raise KeyTaken(kind)
        if row is None:
            db.execute("INSERT INTO account_keys (kind, key, account) VALUES (?, ?, ?)",
                       (kind, key, account_id))


class SQLiteAccounts:
    """Accounts in SQLite (an :class:`~.account_store.AccountStore`).

    Args:
        write: Runs a function of the connection in a committed transaction (undone when
            it raises); awaitable.
        read: A context manager giving the connection for reads.
        clock: Wall clock (unix s) of the tokens' expiry.

    Every method raises :class:`~.store.StoreError` when the file refuses (as ``write`` and
    ``read`` do).
    """

    shared = False

    def __init__(self, write: Write, read: Read,
                 clock: Callable[[], float] = time.time) -> None:
        self._write = write
        self._read = read
        self._clock = clock

    def limits_storage(self) -> Storage:
        """A ``limits`` memory storage (one process owns the file)."""
        return MemoryStorage()

    # -- accounts ------------------------------------------------------------------------

    async def create(self, account: Account) -> None:
        """Insert the record and its keys (one transaction)."""
        def work(db: sqlite3.Connection) -> None:
            try:
                db.execute("INSERT INTO accounts (id, username, record) VALUES (?, ?, ?)",
                           (account.id, account.username, _pack(account.record())))
            except sqlite3.IntegrityError:
                raise KeyTaken("id") from None
            _claim(db, account.id, account.keys)

        await self._write(work)

    async def get(self, account_id: str) -> Account | None:
        """The record."""
        return (await self.get_many([account_id]))[0]

    async def get_many(self, account_ids: Sequence[str]) -> list[Account | None]:
        """The records, in order."""
        if not account_ids:
            return []
        marks = ",".join("?" * len(account_ids))
        with self._read() as db:
            rows = dict(db.execute(f"SELECT id, record FROM accounts WHERE id IN ({marks})",
                                   list(account_ids)).fetchall())
        return [Account.from_record(_unpack(rows[a])) if a in rows else None
                for a in account_ids]

    async def lookup(self, kind: str, key: str) -> str | None:
        """The key's holder."""
        with self._read() as db:
            row = db.execute("SELECT account FROM account_keys WHERE kind = ? AND key = ?",
                             (kind, key)).fetchone()
        return None if row is None else str(row[0])

    async def save(self, account: Account, old: Account) -> None:
        """Claim the new keys, replace the record, release the dropped keys (one
        transaction)."""
        def work(db: sqlite3.Connection) -> None:
            _claim(db, account.id, [k for k in account.keys if k not in old.keys])
            db.execute("UPDATE accounts SET username = ?, record = ? WHERE id = ?",
                       (account.username, _pack(account.record()), account.id))
            for kind, key in (k for k in old.keys if k not in account.keys):
                db.execute("DELETE FROM account_keys WHERE kind = ? AND key = ? AND account = ?",
                           (kind, key, account.id))

        await self._write(work)

    async def page(self, after: str, count: int, prefix: str = "") -> list[Account]:
        """Accounts by username after ``after``, beginning with ``prefix``."""
        with self._read() as db:
            rows = db.execute(
                "SELECT record FROM accounts WHERE username > ? AND username >= ? AND "
                "substr(username, 1, ?) = ? ORDER BY username, id LIMIT ?",
                (after, prefix, len(prefix), prefix, count)).fetchall()
        return [Account.from_record(_unpack(r[0])) for r in rows]

    # -- tokens --------------------------------------------------------------------------

    async def put_token(self, account_id: str, digest: str, record: dict[str, Any],
                        ttl: float) -> None:
        """Insert the token record with its deadline; drop the expired ones."""
        now = self._clock()

        def work(db: sqlite3.Connection) -> None:
            db.execute("DELETE FROM account_tokens WHERE expires <= ?", (now,))
            db.execute("INSERT OR REPLACE INTO account_tokens (account, digest, record, "
                       "expires) VALUES (?, ?, ?, ?)",
                       (account_id, digest, _pack(record), now + ttl))

        await self._write(work)

    async def get_token(self, account_id: str, digest: str) -> dict[str, Any] | None:
        """A token record not expired."""
        with self._read() as db:
            row = db.execute("SELECT record FROM account_tokens WHERE account = ? AND "
                             "digest = ? AND expires > ?",
                             (account_id, digest, self._clock())).fetchone()
        return None if row is None else dict(_unpack(row[0]))

    async def drop_tokens(self, account_id: str, *digests: str) -> None:
        """Delete the records."""
        def work(db: sqlite3.Connection) -> None:
            db.executemany("DELETE FROM account_tokens WHERE account = ? AND digest = ?",
                           [(account_id, d) for d in digests])

        await self._write(work)

    async def drop_all_tokens(self, account_id: str) -> int:
        """Delete every record of the account."""
        def work(db: sqlite3.Connection) -> int:
            return db.execute("DELETE FROM account_tokens WHERE account = ?",
                              (account_id,)).rowcount

        return int(await self._write(work))

    async def note_process(self, account_id: str, process_id: str) -> None:
        """One process: nothing to note."""

    async def processes(self, account_id: str) -> list[str]:
        """One process: no other to tell."""
        return []

    # -- history -------------------------------------------------------------------------

    async def set_seat(self, account_id: str, room_id: str,
                       entry: dict[str, Any] | None) -> None:
        """Insert, replace or delete the seat entry."""
        def work(db: sqlite3.Connection) -> None:
            if entry is None:
                db.execute("DELETE FROM account_seats WHERE account = ? AND room = ?",
                           (account_id, room_id))
            else:
                db.execute("INSERT OR REPLACE INTO account_seats (account, room, entry) "
                           "VALUES (?, ?, ?)", (account_id, room_id, _pack(entry)))

        await self._write(work)

    async def seats(self, account_id: str) -> dict[str, dict[str, Any]]:
        """The seat entries."""
        with self._read() as db:
            rows = db.execute("SELECT room, entry FROM account_seats WHERE account = ?",
                              (account_id,)).fetchall()
        return {room: dict(_unpack(entry)) for room, entry in rows}

    async def add_game(self, account_id: str, entry: dict[str, Any], keep: int) -> None:
        """Insert the game with the next seq, delete those beyond the newest ``keep``."""
        def work(db: sqlite3.Connection) -> None:
            (top,) = db.execute("SELECT coalesce(max(seq), 0) FROM account_games WHERE "
                                "account = ?", (account_id,)).fetchone()
            db.execute("INSERT INTO account_games (account, seq, entry) VALUES (?, ?, ?)",
                       (account_id, top + 1, _pack(entry)))
            db.execute("DELETE FROM account_games WHERE account = ? AND seq <= ?",
                       (account_id, top + 1 - keep))

        await self._write(work)

    async def games(self, account_id: str, start: int,
                    count: int) -> tuple[list[dict[str, Any]], int]:
        """Newest first, and how many."""
        with self._read() as db:
            rows = db.execute("SELECT entry FROM account_games WHERE account = ? ORDER BY "
                              "seq DESC LIMIT ? OFFSET ?", (account_id, count, start)).fetchall()
            (total,) = db.execute("SELECT count(*) FROM account_games WHERE account = ?",
                                  (account_id,)).fetchone()
        return [dict(_unpack(r[0])) for r in rows], int(total)
