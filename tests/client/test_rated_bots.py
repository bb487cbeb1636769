"""Bots in rated play (client/rated_bots.py): each seat is a guest account named
``STRATEGY-SEAT``; the bots queue, the wave seats them at one table, they play it out, and
the game is rated."""

from __future__ import annotations

import pytest

from cardhall.client.rated_bots import play_rated_games, seat_names
from cardhall.server.ratings import board_id

from ..conftest import ServerFactory


def test_seat_names() -> None:
    assert seat_names(["greedy", "greedy", "random"]) == ["greedy-0", "greedy-1", "random-2"]


@pytest.mark.parametrize("store_kind", ["memory"])
async def test_two_rated_games_of_two_bots(make_server: ServerFactory) -> None:
    server = await make_server(queue_wave_seconds=0.1)
    records = await play_rated_games([server.url], "skipper", "multi", ["greedy", "random"],
                                     2, seed=1, timeout=120)
    assert len(records) == 2 and records[0]["room"] != records[1]["room"]
    assert sorted(records[0]["names"].values()) == ["greedy-0", "random-1"]
    listing = await server.ratings.listing(board_id("skipper", "multi"))
    assert sorted(e.name for e in listing) == ["greedy-0", "random-1"]
    assert all(e.rating.games == 2 for e in listing)
