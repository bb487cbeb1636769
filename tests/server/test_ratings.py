"""Ratings (issue #45 item 1): OpenSkill Plackett-Luce updates by finish order, the shown
figure and "provisional", and the ratings store port over every backend (memory, the SQLite
data file at schema v5, Redis): a game is rated once by its id (a second report, as after a
takeover, changes nothing), every update is kept in the history, and two processes on one
Redis rating games of the same players at once lose no update.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from cardhall.server import rated
from cardhall.server.ratings import (
    PROVISIONAL_SIGMA,
    Entry,
    MemoryRatings,
    RatedGame,
    RatedSeat,
    Rating,
    Ratings,
    board_id,
    finish_ranks,
    is_rated,
    seat_key,
)
from cardhall.server.store.redis_store import RedisStore
from cardhall.server.store.sqlite_store import SQLiteStore

from ..conftest import RedisProcess

BOARD = board_id("skipper", "multi")


def game(gid: str, keys: list[str | None], ranks: list[int], at: float = 1.0) -> RatedGame:
    """A rated game of ``keys`` (seat order) finished in ``ranks``."""
    return RatedGame(gid, BOARD, tuple(RatedSeat(k, f"name-{k}") for k in keys), tuple(ranks),
                     at)


def test_finish_ranks_winner_then_in_game_then_out() -> None:
    # seat 2 won; seats 0 and 3 finished in the game with 3 and 1 stacks; seat 1 resigned
    # with 5 stacks: it still ranks after every seat that stayed in.
    assert finish_ranks(2, [3, 5, 0, 1], [False, True, False, False]) == [2, 4, 1, 3]
    assert finish_ranks(None, [2, 2, 1], [False, False, False]) == [1, 1, 2]  # a tie
    with pytest.raises(ValueError):
        finish_ranks(4, [1, 2], [False, False])


def test_rated_types_and_keys() -> None:
    assert is_rated("skipper", "multi") and is_rated("skipper", "race")
    assert not is_rated("skipper", "solo") and not is_rated("shah", None)
    assert seat_key({"bot": True, "account": ""}, "greedy") == "bot:greedy"
    assert seat_key({"bot": False, "account": "acc"}, "greedy") == "acc"
    assert seat_key({"bot": False, "account": ""}, "greedy") is None
    assert seat_key(None, "greedy") is None


def test_a_new_rating_is_1500_and_provisional() -> None:
    new = Rating()
    assert new.shown == 1500 and new.provisional and new.games == 0
    assert not Rating(30.0, PROVISIONAL_SIGMA - 0.1, 20).provisional
    assert Rating(30.0, 5.0).shown == round(1500 + 20 * (30.0 - 15.0))


@pytest.fixture(params=["memory", "sqlite", "redis"])
async def store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Ratings]:
    """A ratings store of each backend, empty."""
    if request.param == "memory":
        yield MemoryRatings()
    elif request.param == "sqlite":
        sqlite = SQLiteStore(tmp_path / "data.db")
        try:
            yield rated.ratings_for(sqlite)
        finally:
            await sqlite.close()
    else:
        server: RedisProcess = request.getfixturevalue("redis_server")
        server.flush()
        redis = RedisStore(server.url)
        try:
            yield rated.ratings_for(redis)
        finally:
            await redis.close()


async def test_a_game_moves_ratings_by_finish_order_once(store: Ratings) -> None:
    first = game("r1:aa", ["a", "b", "c", "d"], [1, 2, 3, 4])
    done = await store.rate(first)
    assert done is not None
    after = {c.key: c.after for c in done}
    assert after["a"].mu > after["b"].mu > 25.0 > after["c"].mu > after["d"].mu
    assert all(c.before == Rating() and c.after.games == 1 for c in done)
    assert all(c.after.sigma < Rating().sigma for c in done)
    # The same game reported again (a takeover, a restart): nothing changes.
    assert await store.rate(first) is None
    assert await store.ratings(BOARD, ["a", "d", "x"]) == {"a": after["a"], "d": after["d"]}
    changes = await store.game_changes(BOARD, "r1:aa")
    assert changes is not None and [c.after for c in changes] == [after[k] for k in "abcd"]
    assert await store.game_changes(BOARD, "nope") is None
    listing = await store.listing(BOARD)
    assert [e.key for e in listing] == ["a", "b", "c", "d"]
    assert listing[0].name == "name-a" and listing[0].rating == after["a"]


async def test_entries_of_keys_whatever_their_rank(store: Ratings) -> None:
    """``entries`` answers the list's entries of the keys asked, in their order, however far
    down the list they are (a seat's rating at a rated table); a key asked twice once, a key
    never rated left out."""
    await store.rate(game("g1", ["a", "b", "c", "d"], [1, 2, 3, 4]))
    await store.rate(RatedGame("g2", BOARD, (RatedSeat("e", "Eve", guest=True),
                                             RatedSeat("d", "Dan")), (2, 1)))
    whole = {e.key: e for e in await store.listing(BOARD, 10)}
    assert (await store.listing(BOARD, 1))[0].key == "a"  # e is not in a list of one
    got = await store.entries(BOARD, ["e", "nobody", "c", "e", "bot:greedy"])
    assert got == [whole["e"], whole["c"]]
    assert got[0].name == "Eve" and got[0].guest and got[0].rating.games == 1
    assert not got[1].guest and got[1].rating == (await store.ratings(BOARD, ["c"]))["c"]
    assert await store.entries(BOARD, []) == []
    assert await store.entries(board_id("skipper", "race"), ["a"]) == []


async def test_history_keeps_every_update(store: Ratings) -> None:
    await store.rate(game("g1", ["a", "b"], [1, 2], at=10.0))
    await store.rate(game("g2", ["a", "b"], [2, 1], at=20.0))
    history = await store.history(BOARD, "a")
    assert [(at, g) for at, g, _ in history] == [(20.0, "g2"), (10.0, "g1")]
    now = (await store.ratings(BOARD, ["a"]))["a"]
    assert history[0][2] == now and now.games == 2


async def test_a_seat_without_account_keeps_nothing(store: Ratings) -> None:
    done = await store.rate(game("g", ["a", None, "bot:greedy"], [2, 1, 3]))
    assert done is not None and done[1].key is None
    assert set(await store.ratings(BOARD, ["a", "bot:greedy"])) == {"a", "bot:greedy"}
    assert [e.key for e in await store.listing(BOARD)] == ["a", "bot:greedy"]


async def test_pages_and_puts_for_migrate(store: Ratings) -> None:
    """``listing`` pages with ``offset``; ``rated_ids`` lists rated games oldest first;
    ``put_entry``/``put_game`` write what the target lacks, never over what it holds
    (``cardhall migrate``, issue #45)."""
    await store.rate(game("g2", ["a", "b", "c"], [1, 2, 3], at=20.0))
    await store.rate(game("g1", ["a", "b"], [1, 2], at=10.0))
    whole = await store.listing(BOARD, 10)
    paged = [*await store.listing(BOARD, 2), *await store.listing(BOARD, 2, 2)]
    assert paged == whole and [e.key for e in whole] == ["a", "b", "c"]
    assert await store.rated_ids(BOARD, 0, 10) == [("g1", 10.0), ("g2", 20.0)]
    assert await store.rated_ids(BOARD, 1, 1) == [("g2", 20.0)]
    history = await store.history(BOARD, "a")
    assert not await store.put_entry(BOARD, whole[1], [])  # b is held
    assert await store.put_entry(BOARD, Entry("z", "Zed", Rating(30.0, 5.0, 9)), history)
    assert (await store.ratings(BOARD, ["z"]))["z"] == Rating(30.0, 5.0, 9)
    assert await store.history(BOARD, "z") == history
    done = await store.game_changes(BOARD, "g1")
    assert done is not None and not await store.put_game(BOARD, "g1", [], 1.0)
    assert await store.put_game(BOARD, "g0", done, 5.0)
    assert await store.rated_ids(BOARD, 0, 1) == [("g0", 5.0)]
    assert await store.game_changes(BOARD, "g0") == done
    assert await store.rate(game("g0", ["a", "b"], [1, 2])) is None


async def test_games_rated_before_the_games_index_are_listed(redis_server: RedisProcess) -> None:
    """Redis: a game rated before the ``gl`` zset existed is found by its key (at time 0)."""
    redis_server.flush()
    redis = RedisStore(redis_server.url)
    try:
        ratings = rated.ratings_for(redis)
        await ratings.rate(game("old", ["a", "b"], [1, 2], at=30.0))
        await ratings.rate(game("new", ["a", "b"], [1, 2], at=40.0))
        await redis.redis.zrem(f"cardhall:{{rt:{BOARD}}}:gl", "old")
        assert await ratings.rated_ids(BOARD, 0, 10) == [("old", 0.0), ("new", 40.0)]
    finally:
        await redis.close()
