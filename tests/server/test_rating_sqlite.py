"""Ratings in the SQLite data file (server/store/rating_sqlite.py, schema v5): they survive a
restart, and a game rated before it is not rated again after it. (The port itself runs over
every backend in tests/server/test_ratings.py.)"""

from __future__ import annotations

from pathlib import Path

from cardhall.server import rated
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
