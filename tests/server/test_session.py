"""The requests a session handles (``server/session.py``), over the wire on every store: the
game list, private rooms and their join codes (never shown to anyone else, also after the
end), quick join, and an error reply for every request error code."""

from __future__ import annotations

import asyncio
import dataclasses
from typing import Any

import pytest

from cardhall import protocol as p
from cardhall.client.client import Client, ServerError
from cardhall.server import lobby
from cardhall.server.app import Server

from ..conftest import ServerFactory


async def test_list_games_describes_what_create_room_takes(server: Server) -> None:
    async with Client(server.url) as c:
        games, room_options = await c.list_games()
        by_name = {g["game"]: g for g in games}
        assert set(by_name) == {"skipper", "shop", "shah", "thirtysix", "shufflejack"}
        skipper = by_name["skipper"]
        assert skipper["modes"] == ["solo", "multi", "race"]  # the default first
        assert by_name["shop"]["modes"] == []
        assert (skipper["min_seats"], skipper["max_seats"]) == (1, 6)
        seed = next(o for o in skipper["options"] if o["name"] == "seed")
        assert seed["kind"] == "int" and seed["default"] is None and seed["doc"]
        turn = next(o for o in room_options if o["name"] == "turn_seconds")
        assert turn["kind"] == "float" and turn["min"] > 0
        # What the listing says is what a room accepts: every mode of every game, with its
        # largest seat count and every option at its default value.
        for g in games:
            for mode in g["modes"] or [None]:
                seats = 1 if mode in (None, "solo") else g["max_seats"]
                options = {o["name"]: o["default"] for o in g["options"] + room_options
                           if o["name"] != "mode"}
                created = await c.create_room(g["game"], mode=mode, seats=seats,
                                              options=options)
                assert created.room
        with pytest.raises(ServerError) as err:  # a mode the listing does not name
            await c.create_room("skipper", mode="duel", seats=2)
        assert err.value.code == "lobby/unknown_game"


async def test_private_room_join_code_and_lobby_listing(server: Server) -> None:
    async with Client(server.url) as a, Client(server.url) as b:
        created = await a.create_room("skipper", mode="multi", seats=2, private=True,
                                      name="friends")
        assert created.code is not None and len(created.code) == lobby.CODE_LENGTH == 10
        assert created.room not in {r["room"] for r in await b.list_rooms()}
        with pytest.raises(ServerError) as err:
            await b.join(created.room)
        assert err.value.code == "room/not_found"
        joined = await b.join(code=created.code.lower())
        assert joined.seat == 0
        assert joined.token and joined.token not in str(await a.list_rooms())


async def hidden_answer(client: Client, request: p.ClientMessage) -> tuple[str, str]:
    """The ``(code, message)`` of the error ``request`` gets, the room id in the message
    replaced by ``ROOM`` (so that answers about two rooms compare)."""
    with pytest.raises(ServerError) as err:
        await client.request(request)
    room = getattr(request, "room", "") or ""
    return err.value.code, err.value.message.replace(room, "ROOM")


async def test_private_rooms_stay_private_after_the_end(make_server: ServerFactory) -> None:
    """Issue #35: a private room is never listed (waiting, playing, finished), its log goes
    to its members only, and to anyone else every request about it is answered as one
    about a room that does not exist."""
    server = await make_server(finished_ttl=60)
    async with Client(server.url) as host, Client(server.url) as other:
        created = await host.create_room("skipper", mode="solo", private=True)
        room, unknown = created.room, "0badc0de"
        for request in (p.GetLog(room=room), p.Join(room=room), p.Spectate(room=room),
                        p.Start(room=room), p.GetView(room=room),
                        p.Resume(room=room, token="x" * 32)):
            assert (await hidden_answer(other, request)
                    == await hidden_answer(other, dataclasses.replace(request, room=unknown)))
        assert room not in {r["room"] for r in await other.list_rooms()}
        joined = await host.join(code=created.code)
        await host.act(room, ["resign"])
        for _ in range(100):
            if host.views[room]["room"]["status"] == "finished":
                break
            await asyncio.sleep(0.02)
        assert room not in {r["room"] for r in await other.list_rooms()}
        assert await hidden_answer(other, p.GetLog(room=room)) == await hidden_answer(
            other, p.GetLog(room=unknown))
        log = await host.fetch_log(room)  # the member gets it
        assert log.room == room and log.entries == [["a", joined.seat, ["resign"]]]


async def test_quick_join_fills_a_room_then_starts_it(server: Server) -> None:
    clients = [Client(server.url, name=f"q{i}") for i in range(2)]
    for c in clients:
        await c.connect()
    try:
        j1 = await clients[0].quick_join("skipper", mode="race", seats=2)
        j2 = await clients[1].quick_join("skipper", mode="race", seats=2)
        assert j1.room == j2.room and {j1.seat, j2.seat} == {0, 1}
        await asyncio.sleep(0.1)
        assert clients[0].views[j1.room]["room"]["status"] == "playing"
    finally:
        for c in clients:
            await c.close()


async def test_every_request_error_code_is_answered(server: Server) -> None:
    async with Client(server.url) as a, Client(server.url) as b:
        codes: dict[str, Any] = {}

        async def expect(code: str, coro: Any) -> None:
            with pytest.raises(ServerError) as err:
                await coro
            assert err.value.code == code, err.value
            codes[code] = err.value.message

        await expect("lobby/unknown_game", a.create_room("poker"))
        await expect("lobby/unknown_game", a.create_room("skipper", mode="duel"))
        await expect("lobby/bad_options", a.create_room("skipper", options={"hand_size": 9}))
        await expect("lobby/bad_options", a.create_room("skipper", mode="multi", seats=1))
        await expect("lobby/bad_options", a.create_room("skipper", options={"on_abandon": "x"}))
        await expect("room/not_found", a.join("nosuchroom"))
        room = (await a.create_room("skipper", mode="multi", seats=2)).room
        await expect("room/not_seated", a.act(room, ["end"], 0))
        await a.join(room)
        await expect("room/full", a.join(room))
        await expect("room/not_started", a.act(room, ["end"], 0))
        await expect("room/not_host", b.start(room))
        await expect("room/bad_token", b.resume(room, "not-a-token"))
        await b.join(room)  # full: starts
        await asyncio.sleep(0.05)
        await expect("room/already_started", a.start(room))
        sid = a.views[room]["state_id"]
        await expect("action/not_your_turn", b.act(room, ["end"], sid))
        await expect("action/unknown", a.act(room, ["fly"], sid))
        await expect("action/unknown", a.act(room, ["play", "ZZ", "S"], sid))
        await expect("action/illegal", a.act(room, ["bid", "5D"], sid))
        await expect("action/stale_state", a.act(room, ["end"], sid + 5))
        await a.act(room, ["resign"], sid)
        await asyncio.sleep(0.05)
        await expect("action/game_over", b.act(room, ["end"], sid + 1))
        assert all(codes.values()), "every error carries a message"
