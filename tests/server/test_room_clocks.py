"""A room's clocks and server bots (``server/room/table.py``): a bidder in an auction
gets ``bid_seconds``, a turn ``turn_seconds``; a silent seat's turn runs out into the game's
default, an abandoned seat forfeits or goes to a bot as the room says, and server bots take
their time in a race."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest

from cardhall import protocol as p
from cardhall.client.client import Client, ServerError
from cardhall.server.app import Server

from ..room_harness import replay_room, started_room


async def test_a_bidder_gets_bid_seconds_and_a_turn_gets_turn_seconds() -> None:
    room, game, seats, _ = await started_room(3, {"seed": 5}, turn_seconds=600.0, bid_seconds=5.0)
    try:
        first = game.to_act()[0]
        assert not game.bidding
        assert 500 < room.table.deadlines[first] - time.time() <= 600
        auction = next(a for a in game.legal_actions(first) if a[0] == "auction")
        await room.play(seats[first], p.Act(room="r1",  # type: ignore[arg-type]
                                           state_id=game.state_id, action=list(auction)))
        bidder = game.to_act()[0]
        assert game.bidding and bidder != first
        assert 0 < room.table.deadlines[bidder] - time.time() <= 5
    finally:
        await room.close()


async def test_a_turn_s_new_deadline_copies_the_state_and_facts_instead_of_rebuilding() -> None:
    """Issue #43: with a turn clock the deadlines change at every action and nothing else
    the room's state or facts show: both are the last ones with new deadlines (every other
    value the same object, so a delta diff skips it by identity), and equal to a rebuild."""
    room, game, seats, _ = await started_room(4, {"seed": 5}, turn_seconds=600.0)
    table = room.table
    try:
        turns = 0
        for _ in range(60):
            facts, state = table.facts(), table.state()
            seat = game.to_act()[0]
            action = next(a for a in game.legal_actions(seat) if a[0] != "resign")
            await room.play(seats[seat], p.Act(room="r1",  # type: ignore[arg-type]
                                              state_id=game.state_id, action=list(action)))
            new_facts, new_state = table.facts(), table.state()
            if new_facts["deadlines"] != facts["deadlines"]:  # another seat's turn
                turns += 1
                assert new_facts["players"] is facts["players"]
                assert new_state["seats"] is state["seats"]
            table._touch()  # what a rebuild would show
            assert table.facts() == new_facts and table.state() == new_state
        assert turns >= 5
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
            await room.play(seats[seat], p.Act(room="r1",  # type: ignore[arg-type]
                                              state_id=game.state_id, action=list(action)))
        assert room._timer is timer and timer.when() == first_due
        await room._on_timer()  # as the kept timer fires: nothing has run out yet
        assert room._timer is not None and room._timer is not timer
        assert room._timer.when() >= first_due
        assert game.to_act()[0] in room.table.deadlines
    finally:
        await room.close()


async def test_abandoned_seat_forfeits_when_room_says_so(server: Server) -> None:
    a, b = Client(server.url), Client(server.url, reconnect=False)
    await a.connect()
    await b.connect()
    try:
        room = (await a.create_room("skipper", mode="multi", seats=2, options={
            "on_abandon": "forfeit", "grace_seconds": 0.1})).room
        await a.join(room)
        token = (await b.join(room)).token
        await b.drop()
        async with asyncio.timeout(10):
            async for msg in a.updates():
                if isinstance(msg, p.GameOver):
                    assert msg.outcome["reason"] == "last_standing"
                    assert msg.outcome["winner"] == 0
                    break
        entries = await server.store.log(room)
        assert entries[-1][0] == "f"
        _, _, game = await replay_room(server, room)
        assert game.outcome()["winner"] == 0
        async with Client(server.url) as again:
            with pytest.raises(ServerError) as err:
                await again.resume(room, token or "")
            assert err.value.code == "room/bad_token"
    finally:
        await a.close()


async def test_turn_timer_plays_the_default_for_a_silent_seat(server: Server) -> None:
    async with Client(server.url) as host:
        room = (await host.create_room("skipper", mode="multi", seats=2, options={
            "turn_seconds": 0.15, "bid_seconds": 0.1})).room
        joined = await host.join(room)
        await host.start(room)  # seat 1 gets a server bot; this seat never acts
        deadlines = []
        async with asyncio.timeout(10):
            async for msg in host.updates():
                if isinstance(msg, p.Update):
                    deadlines.extend(host.views[room]["room"]["deadlines"])
                entries = await server.store.log(room)
                mine = [e for e in entries if e[1] == joined.seat]
                if sum(1 for e in mine if e[2] and e[2][0] == "end") >= 2:
                    break
        assert deadlines and all(isinstance(t, float) for _, t in deadlines)
        assert all(e[2][0] in ("end", "discard", "pass") for e in mine)


async def test_server_bots_take_their_time_in_a_race(server: Server) -> None:
    """In a real-time game a server bot acts once per ``bot_seconds`` (1 s by default), not
    as fast as the server can play: a person racing it would stand no chance."""
    async def bot_actions(options: dict[str, Any], watch: float) -> int:
        async with Client(server.url) as c:
            room = (await c.create_room("skipper", mode="race", seats=2,
                                        options=options)).room
            joined = await c.join(room)
            await c.start(room)  # the other seat goes to a server bot; this one never acts
            await asyncio.sleep(watch)
            entries = await server.store.log(room)
            return sum(1 for e in entries if e[1] != joined.seat)

    default = await bot_actions({}, 1.8)
    assert default == 1  # at 1 s; the next is due at 2 s (timers never fire early)
    fast = await bot_actions({"bot_seconds": 0.1}, 1.8)
    assert fast > default
    assert fast <= 18
