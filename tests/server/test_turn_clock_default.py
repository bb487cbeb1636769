"""Issue #44 item 12: a public room of several seats gets the operator's turn clock
(``public_turn_seconds``, 60 s by default) when its creator sets none, so one idle player
cannot hold a public table for ever; private and solo rooms choose their own (none by
default). On the old code no room has a clock unless its creator sets one."""

from __future__ import annotations

import time

from cardhall.client.client import Client

from ..conftest import ServerFactory
from .test_visibility import wait_status


async def deadlines(c: Client, room: str) -> list[list[float]]:
    """The turn deadlines of ``room`` in ``c``'s latest view."""
    return list((await c.get_view(room))["room"]["deadlines"])


async def test_a_public_table_has_a_turn_clock(make_server: ServerFactory) -> None:
    server = await make_server(public_turn_seconds=45.0)
    async with Client(server.url) as a, Client(server.url) as b:
        room = (await a.create_room("skipper", mode="multi", seats=2)).room
        await a.join(room)
        await b.join(room)
        await wait_status(a, room, "playing")
        found = await deadlines(a, room)
        assert found, "no turn clock in a public room"
        assert all(0 < t - time.time() <= 45.5 for _, t in found), found
        chosen = (await a.create_room("skipper", mode="multi", seats=2,
                                      options={"turn_seconds": 300})).room
        await a.join(chosen)
        await b.join(chosen)
        await wait_status(a, chosen, "playing")
        assert all(100 < t - time.time() <= 300.5 for _, t in await deadlines(a, chosen))


async def test_private_and_solo_rooms_choose(make_server: ServerFactory) -> None:
    server = await make_server(public_turn_seconds=45.0)
    async with Client(server.url) as a, Client(server.url) as b:
        private = await a.create_room("skipper", mode="multi", seats=2, private=True)
        assert private.code is not None
        await a.join(code=private.code)
        await b.join(code=private.code)
        await wait_status(a, private.room, "playing")
        assert await deadlines(a, private.room) == []
        solo = (await a.create_room("skipper", mode="solo")).room
        await a.join(solo)
        await wait_status(a, solo, "playing")
        assert await deadlines(a, solo) == []


async def test_the_operator_may_turn_the_default_off(make_server: ServerFactory) -> None:
    server = await make_server(public_turn_seconds=None)
    async with Client(server.url) as a, Client(server.url) as b:
        room = (await a.create_room("skipper", mode="multi", seats=2)).room
        await a.join(room)
        await b.join(room)
        await wait_status(a, room, "playing")
        assert await deadlines(a, room) == []
