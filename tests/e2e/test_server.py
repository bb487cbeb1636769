"""End-to-end: real servers on 127.0.0.1, real clients and bots over WebSockets."""

from __future__ import annotations

import asyncio
import random
from typing import Any

import pytest

from cardhall import protocol as p
from cardhall.client.bots import SeatResult, play_games, play_seat
from cardhall.client.client import Client, ServerError
from cardhall.server.app import Server
from cardhall.games.bots import strategy

from ..conftest import ServerFactory
from ..room_harness import replay_room

GREEDY = strategy("skipper", "greedy")


async def test_four_greedy_bots_finish_multi_with_auctions_and_skip_draws(
        server: Server) -> None:
    records = await play_games([server.url], "skipper", "multi", 4, 3, "greedy", seed=7,
                               timeout=120)
    assert len(records) == 3
    assert sum(r["auctions"] for r in records) > 0
    assert sum(r["skip_draws"] for r in records) > 0
    for rec in records:
        assert rec["outcome"] in ("completed", "unwinnable", "turn_limit", "last_standing")
        record, entries, game = await replay_room(server, rec["room"])
        assert game.over and game.state_id == rec["state_id"] == len(entries)
        assert game.outcome()["winner"] == rec["winner"]
        # The live room's engine and the replay agree bit for bit.
        assert game.snapshot() == server.lobby.rooms[rec["room"]].table.game.snapshot()


async def test_solo_and_race_finish_over_the_wire(server: Server) -> None:
    solo = await play_games([server.url], "skipper", "solo", 1, 2, "greedy", timeout=60)
    assert all(r["winner"] == 0 for r in solo)
    race = await play_games([server.url], "skipper", "race", 3, 1, "greedy",
                            options={"skip_draws": True}, timeout=120)
    assert race[0]["outcome"] in ("completed", "all_out")
    _, entries, game = await replay_room(server, race[0]["room"])
    seats_in_order = [e[1] for e in entries]
    # Truly concurrent: seats' actions interleave (no seat plays a whole game alone first).
    switches = sum(a != b for a, b in zip(seats_in_order, seats_in_order[1:]))
    assert switches > 10
    assert game.snapshot() == server.lobby.rooms[race[0]["room"]].table.game.snapshot()


async def test_race_actions_from_different_seats_do_not_make_each_other_stale(
        server: Server) -> None:
    a, b = Client(server.url), Client(server.url)
    await a.connect()
    await b.connect()
    try:
        room = (await a.create_room("skipper", mode="race", seats=2)).room
        ja = await a.join(room)
        jb = await b.join(room)
        await asyncio.sleep(0.1)
        sid = b.views[room]["state_id"]
        # Both choose against the same state; both are accepted.
        act_a = a.views[room]["legal_actions"][0]
        act_b = b.views[room]["legal_actions"][0]
        await a.act(room, act_a, sid)
        await b.act(room, act_b, sid)
        assert ja.seat != jb.seat
    finally:
        await a.close()
        await b.close()


async def seated_solo(c: Client) -> tuple[str, list[Any], int]:
    """Seat ``c`` in a new solo Skipper room (seed 2); returns (room, its first legal
    action, the state id to act against)."""
    room = (await c.create_room("skipper", options={"seed": 2})).room
    await c.join(room)
    await asyncio.sleep(0.05)
    view = c.views[room]
    return room, view["legal_actions"][0], view["state_id"]


async def test_stale_state_is_refused_and_retry_is_safe(server: Server) -> None:
    async with Client(server.url) as c:
        room, action, sid = await seated_solo(c)
        await c.act(room, action, sid)
        with pytest.raises(ServerError) as err:
            await c.act(room, action, sid)  # the same request again, as after a lost reply
        assert err.value.code == "action/stale_state"
        assert len(await server.store.log(room)) == 1


async def test_a_request_during_a_reconnection_waits_for_the_resume(server: Server) -> None:
    # Dropped, the client reconnects and resumes its seat; an act issued meanwhile goes out
    # only after the resume (before, it failed with ConnectionLost on the dead socket, or
    # reached the new connection ahead of the resume and was refused as room/not_seated).
    async with Client(server.url) as c:
        room, action, sid = await seated_solo(c)
        await c.drop()
        while c._ready.is_set():  # the reader sees the drop; the reconnection starts
            await asyncio.sleep(0.001)
        await c.act(room, action, sid)
        assert c.reconnects == 1
        assert len(await server.store.log(room)) == 1
        await c.get_view(room)
        assert c.views[room]["state_id"] == sid + 1


async def test_a_request_waits_for_the_recovery_of_a_second_drop(
        server: Server, monkeypatch: pytest.MonkeyPatch) -> None:
    # Dropped again while resuming: the first recovery is cut short, and a request waiting
    # meanwhile must wait for the second one's resume too (before, the first recovery let it
    # go at once: it failed with ConnectionLost or was refused as room/not_seated).
    async with Client(server.url) as c:
        room, action, sid = await seated_solo(c)
        request = c._request
        drops = 0

        async def request_dropping_once(msg: p.Message) -> p.Message:
            nonlocal drops
            if isinstance(msg, p.Resume) and drops == 0:
                drops += 1
                await c.drop()  # the new connection drops before this resume goes out
            return await request(msg)

        monkeypatch.setattr(c, "_request", request_dropping_once)
        await c.drop()
        while c._ready.is_set():
            await asyncio.sleep(0.001)
        await c.act(room, action, sid)
        assert (drops, c.reconnects) == (1, 2)
        assert len(await server.store.log(room)) == 1


async def test_drop_and_resume_with_token_and_a_bot_takes_another_seat(
        make_server: ServerFactory) -> None:
    server = await make_server()
    clients = [Client(server.url, name=f"p{i}", reconnect=(i != 2)) for i in range(3)]
    for c in clients:
        await c.connect()
    room = (await clients[0].create_room("skipper", mode="multi", seats=3,
                                         options={"grace_seconds": 0.3})).room
    joins = [await c.join(room) for c in clients]
    events: list[tuple[int, str]] = []

    async def dropper(c: Client, seat: int, i: int) -> SeatResult:
        async def cut_later() -> None:
            await asyncio.sleep(0.05)
            await c.drop()
        asyncio.get_running_loop().create_task(cut_later())
        return await play_seat(c, room, seat, GREEDY, random.Random(i))

    async def quitter(c: Client) -> None:
        await asyncio.sleep(0.05)
        await c.drop()  # no reconnect: after 0.3 s a server bot takes the seat

    async def watch(c: Client, seat: int) -> SeatResult:
        return await play_seat(c, room, seat, GREEDY, random.Random(3))

    orig = clients[0]._dispatch

    def spy(msg: p.Message) -> None:
        if isinstance(msg, p.SeatEvent):
            events.append((msg.seat, msg.event))
        orig(msg)
    clients[0]._dispatch = spy  # type: ignore[method-assign]
    try:
        async with asyncio.timeout(120):
            res0, res1, _ = await asyncio.gather(
                watch(clients[0], joins[0].seat or 0),
                dropper(clients[1], joins[1].seat or 0, 1),
                quitter(clients[2]))
        assert res0.outcome and res1.outcome == res0.outcome
        seat1, seat2 = joins[1].seat, joins[2].seat
        assert (seat1, "dropped") in events and (seat1, "resumed") in events
        assert (seat2, "dropped") in events and (seat2, "bot") in events
        assert clients[1].reconnects == 1
        _, entries, game = await replay_room(server, room)
        assert game.over
        # After the drop, seat 2's turns were played by the server bot (not defaults only).
        assert any(e[1] == seat2 and e[2][0] == "play" for e in entries)
    finally:
        for c in clients:
            await c.close()


# -- bad input ------------------------------------------------------------------------------


async def test_a_host_that_resumes_its_seat_may_still_start_the_room(server: Server) -> None:
    # The host is its creating connection's session: a host that lost its connection (Ctrl-C
    # in the terminal client) and resumed its seat with the token came back as a new
    # session and was refused room/not_host in its own waiting room.
    async with Client(server.url) as host:
        room = (await host.create_room("skipper", mode="multi", seats=3)).room
        token = (await host.join(room)).token
    async with Client(server.url) as guest:
        await guest.join(room)
        with pytest.raises(ServerError) as err:
            await guest.start(room)
        assert err.value.code == "room/not_host"
        async with Client(server.url) as back:
            assert token is not None
            await back.resume(room, token)
            await back.start(room)  # the host's seat, a new session: still the host
            await asyncio.sleep(0.05)
            assert back.views[room]["room"]["status"] == "playing"
