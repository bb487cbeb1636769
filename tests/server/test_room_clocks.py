"""Room clocks: a bidder in an auction gets ``bid_seconds``, a turn ``turn_seconds``."""

from __future__ import annotations

import time

from cardhall import protocol as p

from ..room_harness import started_room


async def test_a_bidder_gets_bid_seconds_and_a_turn_gets_turn_seconds() -> None:
    room, game, seats, _ = await started_room(3, {"seed": 5}, turn_seconds=600.0, bid_seconds=5.0)
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
