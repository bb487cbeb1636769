"""Ratings (:class:`~.ratings.Ratings`, issue #45) in the embedded store's data file: three
tables, added by the schema's migration to version 5 (:func:`create_tables`); version 6
gives each rated game its game type and finish time (:func:`add_game_order`).

Tables::

    ratings         (board, key) -> name, guest (0/1), mu, sigma, games, ordinal (mu - 3
                    sigma: the listing's order, indexed per board)
    rating_history  (board, key, seq) -> at (unix s), game (its id), mu, sigma, games: every
                    update, the oldest beyond ratings.HISTORY per key deleted
    rated_games     game (primary key) -> changes (msgpack list of Change.record), board,
                    at (unix s; v6, indexed per board for cardhall migrate): a game is
                    rated once; the row and the ratings are written in one transaction

:meth:`SQLiteRatings.rate` reads, computes and writes inside one write transaction of the
data file (one process owns the file: nothing else writes in between).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Awaitable, Callable, Sequence
from contextlib import AbstractContextManager
from typing import Any

from ..ratings import HISTORY, Change, Entry, RatedGame, Rating, changes
from .ports import pack, unpack

__all__ = ["SQLiteRatings", "add_game_order", "create_tables"]

Write = Callable[[Callable[[sqlite3.Connection], Any]], Awaitable[Any]]
Read = Callable[[], AbstractContextManager[sqlite3.Connection]]

TABLES = """
CREATE TABLE ratings (
    board TEXT NOT NULL, key TEXT NOT NULL, name TEXT NOT NULL, guest INTEGER NOT NULL,
    mu REAL NOT NULL, sigma REAL NOT NULL, games INTEGER NOT NULL, ordinal REAL NOT NULL,
    PRIMARY KEY (board, key)
) WITHOUT ROWID;
CREATE INDEX ratings_order ON ratings (board, ordinal);
CREATE TABLE rating_history (
    board TEXT NOT NULL, key TEXT NOT NULL, seq INTEGER NOT NULL, at REAL NOT NULL,
    game TEXT NOT NULL, mu REAL NOT NULL, sigma REAL NOT NULL, games INTEGER NOT NULL,
    PRIMARY KEY (board, key, seq)
) WITHOUT ROWID;
CREATE TABLE rated_games (game TEXT NOT NULL PRIMARY KEY, changes BLOB NOT NULL)
    WITHOUT ROWID;
"""


def create_tables(db: sqlite3.Connection) -> None:
    """Schema version 5: the ratings' tables (in the caller's transaction)."""
    for statement in TABLES.split(";"):
        if statement.strip():
            db.execute(statement)


def add_game_order(db: sqlite3.Connection) -> None:
    """Schema version 6: ``rated_games`` gets its ``board`` and ``at`` columns (a game rated
    before takes them from its history, when kept) and their index (in the caller's
    transaction)."""
    db.execute("ALTER TABLE rated_games ADD COLUMN board TEXT NOT NULL DEFAULT ''")
    db.execute("ALTER TABLE rated_games ADD COLUMN at REAL NOT NULL DEFAULT 0")
    db.execute("UPDATE rated_games SET (board, at) = (SELECT h.board, h.at FROM rating_history"
               " h WHERE h.game = rated_games.game LIMIT 1) WHERE EXISTS (SELECT 1 FROM "
               "rating_history h WHERE h.game = rated_games.game)")
    db.execute("CREATE INDEX rated_games_order ON rated_games (board, at, game)")


class SQLiteRatings:
    """Ratings on SQLite (a :class:`~.ratings.Ratings`).

    Args:
        write: Runs a function of the connection in a committed transaction
            (``DataFile.write``).
        reading: The connection for reads (``DataFile.reading``).
    """

    def __init__(self, write: Write, reading: Read) -> None:
        self._write, self._reading = write, reading

    async def rate(self, game: RatedGame) -> list[Change] | None:
        """See :meth:`~.ratings.Ratings.rate` (one transaction).

        Raises:
            StoreError: the file refused the write.
        """
        def work(db: sqlite3.Connection) -> list[Change] | None:
            if db.execute("SELECT 1 FROM rated_games WHERE game = ?",
                          (game.id,)).fetchone() is not None:
                return None
            keys = [s.key for s in game.seats if s.key is not None]
            done = changes(game, _read(db, game.board, keys))
            for seat, change in zip(game.seats, done, strict=True):
                if change.key is None:
                    continue
                a = change.after
                db.execute("INSERT OR REPLACE INTO ratings VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                           (game.board, change.key, change.name, int(seat.guest), a.mu,
                            a.sigma, a.games, a.ordinal))
                db.execute("INSERT INTO rating_history SELECT ?, ?, COALESCE(MAX(seq), 0) + 1,"
                           " ?, ?, ?, ?, ? FROM rating_history WHERE board = ? AND key = ?",
                           (game.board, change.key, game.at, game.id, a.mu, a.sigma, a.games,
                            game.board, change.key))
                db.execute("DELETE FROM rating_history WHERE board = ? AND key = ? AND seq <= "
                           "(SELECT MAX(seq) FROM rating_history WHERE board = ? AND key = ?)"
                           " - ?", (game.board, change.key, game.board, change.key, HISTORY))
            db.execute("INSERT INTO rated_games (game, changes, board, at) VALUES (?, ?, ?, ?)",
                       (game.id, pack([c.record() for c in done]), game.board, game.at))
            return done

        result: list[Change] | None = await self._write(work)
        return result

    async def ratings(self, board: str, keys: Sequence[str]) -> dict[str, Rating]:
        """See :meth:`~.ratings.Ratings.ratings`.

        Raises:
            StoreError: the file refused the read.
        """
        with self._reading() as db:
            return _read(db, board, keys)

    async def entries(self, board: str, keys: Sequence[str]) -> list[Entry]:
        """See :meth:`~.ratings.Ratings.entries` (one query by the primary key).

        Raises:
            StoreError: the file refused the read.
        """
        wanted = list(dict.fromkeys(keys))
        if not wanted:
            return []
        marks = ", ".join("?" * len(wanted))
        with self._reading() as db:
            rows = db.execute("SELECT key, name, guest, mu, sigma, games FROM ratings "
                              f"WHERE board = ? AND key IN ({marks})",
                              (board, *wanted)).fetchall()
        found = {k: Entry(k, n, Rating(mu, sigma, games), bool(g))
                 for k, n, g, mu, sigma, games in rows}
        return [found[k] for k in wanted if k in found]

    async def listing(self, board: str, limit: int = 100, offset: int = 0) -> list[Entry]:
        """See :meth:`~.ratings.Ratings.listing`.

        Raises:
            StoreError: the file refused the read.
        """
        with self._reading() as db:
            rows = db.execute("SELECT key, name, guest, mu, sigma, games FROM ratings "
                              "WHERE board = ? ORDER BY ordinal DESC, key LIMIT ? OFFSET ?",
                              (board, limit, offset)).fetchall()
        return [Entry(k, n, Rating(mu, sigma, games), bool(g)) for k, n, g, mu, sigma, games
                in rows]

    async def game_changes(self, board: str, game: str) -> list[Change] | None:
        """See :meth:`~.ratings.Ratings.game_changes`.

        Raises:
            StoreError: the file refused the read.
        """
        with self._reading() as db:
            row = db.execute("SELECT changes FROM rated_games WHERE game = ?",
                             (game,)).fetchone()
        return None if row is None else [Change.of(c) for c in unpack(row[0])]

    async def history(self, board: str, key: str, limit: int = HISTORY
                      ) -> list[tuple[float, str, Rating]]:
        """See :meth:`~.ratings.Ratings.history`.

        Raises:
            StoreError: the file refused the read.
        """
        with self._reading() as db:
            rows = db.execute("SELECT at, game, mu, sigma, games FROM rating_history WHERE "
                              "board = ? AND key = ? ORDER BY seq DESC LIMIT ?",
                              (board, key, limit)).fetchall()
        return [(at, g, Rating(mu, sigma, games)) for at, g, mu, sigma, games in rows]


    async def rated_ids(self, board: str, offset: int, limit: int
                        ) -> list[tuple[str, float]]:
        """See :meth:`~.ratings.Ratings.rated_ids`.

        Raises:
            StoreError: the file refused the read.
        """
        with self._reading() as db:
            rows = db.execute("SELECT game, at FROM rated_games WHERE board = ? ORDER BY at, "
                              "game LIMIT ? OFFSET ?", (board, limit, offset)).fetchall()
        return [(g, float(at)) for g, at in rows]

    async def put_entry(self, board: str, entry: Entry,
                        history: Sequence[tuple[float, str, Rating]]) -> bool:
        """See :meth:`~.ratings.Ratings.put_entry` (one transaction).

        Raises:
            StoreError: the file refused the write.
        """
        r = entry.rating

        def work(db: sqlite3.Connection) -> bool:
            if db.execute("SELECT 1 FROM ratings WHERE board = ? AND key = ?",
                          (board, entry.key)).fetchone() is not None:
                return False
            db.execute("INSERT INTO ratings VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                       (board, entry.key, entry.name, int(entry.guest), r.mu, r.sigma,
                        r.games, r.ordinal))
            db.execute("DELETE FROM rating_history WHERE board = ? AND key = ?",
                       (board, entry.key))
            kept = list(history)[:HISTORY]
            db.executemany("INSERT INTO rating_history VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                           [(board, entry.key, len(kept) - n, at, g, h.mu, h.sigma, h.games)
                            for n, (at, g, h) in enumerate(kept)])
            return True

        done: bool = await self._write(work)
        return done

    async def put_game(self, board: str, game: str, done: Sequence[Change],
                       at: float) -> bool:
        """See :meth:`~.ratings.Ratings.put_game`.

        Raises:
            StoreError: the file refused the write.
        """
        def work(db: sqlite3.Connection) -> bool:
            cur = db.execute("INSERT OR IGNORE INTO rated_games (game, changes, board, at) "
                             "VALUES (?, ?, ?, ?)",
                             (game, pack([c.record() for c in done]), board, at))
            return cur.rowcount > 0

        marked: bool = await self._write(work)
        return marked

def _read(db: sqlite3.Connection, board: str, keys: Sequence[str]) -> dict[str, Rating]:
    """The ratings of ``keys`` on ``board`` (those rated)."""
    out: dict[str, Rating] = {}
    for key in set(keys):
        row = db.execute("SELECT mu, sigma, games FROM ratings WHERE board = ? AND key = ?",
                         (board, key)).fetchone()
        if row is not None:
            out[key] = Rating(*row)
    return out
