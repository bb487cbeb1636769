"""Ratings in Redis (server/store/rating_redis.py): two processes rating games of the same players
at once, each game reported by both, rate every game exactly once and lose no update (the
compare-and-set script). (The port itself runs over every backend in
tests/server/test_ratings.py.)"""

from __future__ import annotations

import asyncio

from cardhall.server import rated
from cardhall.server.store.rating_redis import RedisRatings
from cardhall.server.ratings import RatedGame, RatedSeat, board_id
from cardhall.server.store.redis_store import RedisStore

from ..conftest import RedisProcess

BOARD = board_id("skipper", "multi")


def game(gid: str, keys: list[str | None], ranks: list[int], at: float = 1.0) -> RatedGame:
    """A rated game of ``keys`` (seat order) finished in ``ranks``."""
    return RatedGame(gid, BOARD, tuple(RatedSeat(k, f"name-{k}") for k in keys), tuple(ranks),
                     at)


async def test_two_redis_processes_rate_without_losing_an_update(
        redis_server: RedisProcess) -> None:
    """Two processes rate 20 games of the same two players at once, each game reported by
    both: every game is rated exactly once, and the games count is 20."""
    redis_server.flush()
    stores = [RedisStore(redis_server.url), RedisStore(redis_server.url)]
    try:
        ratings = [rated.ratings_for(s) for s in stores]
        assert all(isinstance(r, RedisRatings) for r in ratings)
        games = [game(f"g{k}", ["a", "b"], [1 + k % 2, 2 - k % 2]) for k in range(20)]
        results = await asyncio.gather(*(r.rate(g) for g in games for r in ratings))
        assert sum(r is not None for r in results) == 20
        now = await ratings[0].ratings(BOARD, ["a", "b"])
        assert now["a"].games == now["b"].games == 20
        assert len(await ratings[1].history(BOARD, "a")) == 20
    finally:
        for s in stores:
            await s.close()
