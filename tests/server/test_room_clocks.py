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


async def test_an_action_that_moves_the_first_deadline_later_keeps_the_armed_timer() -> None:
    """Issue #34 item 2: no timer cancelled and made again per action (a fresh turn's
    deadline is later than the one armed); when the kept timer fires with nothing run out,
    the next one is armed for the real first deadline."""
    room, game, seats, _ = await started_room(3, {"seed": 5}, turn_seconds=600.0)
    try:
        timer = room._timer
        assert timer is not None
        first_due = timer.when()
        for _ in range(3):
            seat = game.to_act()[0]
            action = next(a for a in game.legal_actions(seat) if a[0] not in ("resign",
                                                                              "auction"))
            await room.act(seats[seat], p.Act(room="r1",  # type: ignore[arg-type]
                                              state_id=game.state_id, action=list(action)))
        assert room._timer is timer and timer.when() == first_due
        await room._on_timer()  # as the kept timer fires: nothing has run out yet
        assert room._timer is not None and room._timer is not timer
        assert room._timer.when() >= first_due
        assert game.to_act()[0] in room.deadlines
    finally:
        await room.close()
