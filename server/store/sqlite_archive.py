"""The games archive (:class:`~.store.Archive`, issue #44 item 2) in the embedded store's
data file: one table, added by the schema's migration to version 4 (:func:`create_table`).

Table::

    archive    room (primary key) -> finished_at (unix s), game (msgpack: the archived
               record, see store.Archive); indexed by finished_at for pruning

A finished room's rows in ``rooms``, ``log`` and ``snapshots`` are deleted when its lobby
listing ends (``--finished-ttl``); its row here stays until ``--history-days`` prunes it
(:meth:`SQLiteArchive.prune_archive`) or an operator purges it.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from .ports import pack, unpack

if TYPE_CHECKING:
    from .sqlite_file import DataFile

__all__ = ["SQLiteArchive", "create_table"]


def create_table(db: sqlite3.Connection) -> None:
    """Schema version 4: the games archive (in the caller's transaction)."""
    db.execute("CREATE TABLE archive (room TEXT NOT NULL PRIMARY KEY, "
               "finished_at REAL NOT NULL, game BLOB NOT NULL)")
    db.execute("CREATE INDEX archive_finished ON archive (finished_at)")


class SQLiteArchive:
    """The games archive of :class:`~.sqlite_store.SQLiteStore` (a part of it).

    Attributes:
        file: The open data file.
    """

    file: DataFile

    async def archive_game(self, room_id: str, game: dict[str, Any],
                           keep: float | None = None) -> None:
        """Keep (or replace) the record (``keep``: left to :meth:`prune_archive`).

        Raises:
            StoreError: the file refused the write.
        """
        row = (room_id, float(game["finished_at"]), pack(game))

        def work(db: sqlite3.Connection) -> None:
            db.execute("INSERT OR REPLACE INTO archive (room, finished_at, game) "
                       "VALUES (?, ?, ?)", row)

        await self.file.write(work)

    async def archived(self, room_id: str) -> dict[str, Any] | None:
        """The record, or None.

        Raises:
            StoreError: the file refused the read.
        """
        with self.file.reading(fold=False) as db:
            row = db.execute("SELECT game FROM archive WHERE room = ?", (room_id,)).fetchone()
        return None if row is None else dict(unpack(row[0]))

    async def archived_ids(self, offset: int, limit: int) -> list[str]:
        """A page of room ids by finish time, then room id.

        Raises:
            StoreError: the file refused the read.
        """
        with self.file.reading(fold=False) as db:
            rows = db.execute("SELECT room FROM archive ORDER BY finished_at, room "
                              "LIMIT ? OFFSET ?", (limit, offset)).fetchall()
        return [str(row[0]) for row in rows]

    async def prune_archive(self, before: float) -> int:
        """Delete the records of games finished before ``before`` (unix s).

        Raises:
            StoreError: the file refused the write.
        """
        def work(db: sqlite3.Connection) -> int:
            return int(db.execute("DELETE FROM archive WHERE finished_at < ?",
                                  (before,)).rowcount)

        count = await self.file.write(work)
        if count:
            self.file.vacuum()
        return count

    async def purge_archived(self, room_ids: Sequence[str]) -> int:
        """Delete the records of ``room_ids``.

        Raises:
            StoreError: the file refused the write.
        """
        ids = sorted(set(room_ids))

        def work(db: sqlite3.Connection) -> int:
            return sum(int(db.execute("DELETE FROM archive WHERE room = ?", (r,)).rowcount)
                       for r in ids)

        return await self.file.write(work)
