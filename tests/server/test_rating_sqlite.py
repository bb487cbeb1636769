"""Ratings in the SQLite data file (server/store/rating_sqlite.py, schema v5 and v6): they
survive a restart, and a game rated before it is not rated again after it; a version 5 file's
rated games get their game type and time (v6, for ``cardhall migrate``). (The port itself runs over
every backend in tests/server/test_ratings.py.)"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from cardhall.server.store import sqlite_schema as S

from cardhall.server import rated
from cardhall.server.store.ports import pack
from cardhall.server.store.rating_sqlite import SQLiteRatings
from cardhall.server.ratings import RatedGame, RatedSeat, board_id
from cardhall.server.store.sqlite_store import SQLiteStore

BOARD = board_id("skipper", "multi")


def game(gid: str, keys: list[str | None], ranks: list[int], at: float = 1.0) -> RatedGame:
    """A rated game of ``keys`` (seat order) finished in ``ranks``."""
    return RatedGame(gid, BOARD, tuple(RatedSeat(k, f"name-{k}") for k in keys), tuple(ranks),
                     at)


async def test_sqlite_ratings_survive_a_restart(tmp_path: Path) -> None:
    path = tmp_path / "data.db"
    sqlite = SQLiteStore(path)
    ratings = rated.ratings_for(sqlite)
    assert isinstance(ratings, SQLiteRatings)
    await ratings.rate(game("g", ["a", "b"], [1, 2]))
    before = await ratings.ratings(BOARD, ["a", "b"])
    await sqlite.close()
    sqlite = SQLiteStore(path)
    try:
        again = rated.ratings_for(sqlite)
        assert await again.ratings(BOARD, ["a", "b"]) == before
        assert await again.rate(game("g", ["a", "b"], [1, 2])) is None  # rated once
    finally:
        await sqlite.close()


async def test_a_version_5_files_rated_games_get_their_type_and_time(tmp_path: Path) -> None:
    """A game rated under v5 takes its board and time from its history; one whose history
    is gone keeps no board (it stays rated)."""
    path = tmp_path / "old.db"
    db = sqlite3.connect(path, isolation_level=None)
    for migration in S.MIGRATIONS[:5]:
        migration(db)
    db.execute("INSERT INTO rating_history VALUES (?, 'a', 1, 7.5, 'g1', 25, 8, 1)", (BOARD,))
    db.execute("INSERT INTO rated_games VALUES ('g1', ?)", (pack([]),))
    db.execute("INSERT INTO rated_games VALUES ('g0', ?)", (pack([]),))
    db.execute("PRAGMA user_version = 5")
    db.close()
    sqlite = SQLiteStore(path)
    try:
        ratings = rated.ratings_for(sqlite)
        assert await ratings.rated_ids(BOARD, 0, 10) == [("g1", 7.5)]
        await ratings.rate(game("g2", ["a", "b"], [1, 2], at=9.0))
        assert await ratings.rated_ids(BOARD, 1, 10) == [("g2", 9.0)]
        assert await ratings.rate(game("g0", ["a", "b"], [1, 2])) is None
    finally:
        await sqlite.close()
