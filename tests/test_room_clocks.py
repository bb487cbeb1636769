"""Room clocks: a bidder in an auction gets ``bid_seconds``, a turn ``turn_seconds``."""

from __future__ import annotations

import time

from cardhall import protocol as p
from cardhall.server.games.skipper import Skipper
from cardhall.server.room import Room
from cardhall.server.store import MemoryStore

from .test_writes import Recorder


async def test_a_bidder_gets_bid_seconds_and_a_turn_gets_turn_seconds() -> None:
    game = Skipper({"mode": "multi", "seed": 5}, 3)
    room = Room(id="r1", name="r1", game_name="skipper", game=game,
                settings={"turn_seconds": 600.0, "bid_seconds": 5.0, "grace_seconds": 60.0,
                          "on_abandon": "bot"}, store=MemoryStore())
    log: list[tuple[str, list[str]]] = []
    seats = [Recorder(f"seat{i}", log) for i in range(3)]
    for i, conn in enumerate(seats):
        room.join(conn, i)  # type: ignore[arg-type]
    room.start(None)
    try:
        first = game.to_act()[0]
        assert not game.bidding
        assert 500 < room.deadlines[first] - time.time() <= 600
        auction = next(a for a in game.legal_actions(first) if a[0] == "auction")
        await room.act(seats[first], p.Act(room="r1",  # type: ignore[arg-type]
                                           state_id=game.state_id, action=list(auction)))
        bidder = game.to_act()[0]
        assert game.bidding and bidder != first
        assert 0 < room.deadlines[bidder] - time.time() <= 5
    finally:
        await room.close()
