"""The lobby: error replies that always fit the protocol (issue #18 defect 4), and room
listings that page through any number of rooms with filters, plus quick join through the
waiting-room index (issue #18 defect 5). Each server test runs on both stores."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cardhall import protocol as p
from cardhall.client.client import Client, ServerError
from cardhall.server.games.skipper import Skipper

from .conftest import ServerFactory

LONG = "x" * 2000


# -- defect 4: long option values and names --------------------------------------------------


@pytest.mark.parametrize("options", [
    {"mode": LONG},              # a value the game checks against its choices
    {"hand_size": LONG},         # a value that is not a number
    {"turn_seconds": LONG},      # a room option's value
    {LONG: 1},                   # an option name nobody knows
    {f"{i}{LONG[:1500]}": i for i in range(20)},  # many long unknown names
], ids=["mode", "hand_size", "turn_seconds", "name", "names"])
async def test_a_long_option_gets_bad_options_and_the_connection_goes_on(
        make_server: ServerFactory, options: dict[str, object]) -> None:
    server = await make_server(rooms_per_minute=None)
    async with Client(server.url, reconnect=False) as c:
        with pytest.raises(ServerError) as err:
            await c.create_room("skipper", seats=1, options=options)
        assert err.value.code == "lobby/bad_options"
        assert len(err.value.message) <= 1024
        assert LONG[:200] not in err.value.message  # the echoed value is clipped
        # The same connection is still served.
        assert await c.ping() >= 0
        created = await c.create_room("skipper", seats=1, options={"seed": 3})
        joined = await c.join(created.room)
        assert joined.seat == 0


@given(st.text(max_size=5000), st.sampled_from(sorted(p.ERROR_CODES)),
       st.none() | st.integers(0, 2**31 - 1) | st.text(max_size=64))
def test_any_error_message_is_encodable(message: str, code: str, re: object) -> None:
    reply = p.error_reply(code, message, re)  # type: ignore[arg-type]
    assert reply.code == code and len(reply.message) <= 1024
    assert message.startswith(reply.message[:-3] if len(message) > 1024 else reply.message)
    assert p.decode(p.encode(reply), side="server") == reply


@given(st.text(max_size=5000), st.text(min_size=1, max_size=80), st.integers() | st.text())
def test_an_unbuildable_error_falls_back_to_a_fixed_one(message: str, code: str,
                                                        re: object) -> None:
    class Odd(Exception):
        pass

    exc = Odd()
    exc.code, exc.message, exc.re = code, message, re  # type: ignore[attr-defined]
    reply = p.error_reply(exc)
    assert p.decode(p.encode(reply), side="server") == reply


# -- waiting rooms hold no engine and no task ------------------------------------------------


async def test_a_waiting_room_holds_no_engine_or_task_and_deals_its_seed_at_start(
        server: object) -> None:
    srv: Any = server
    async with Client(srv.url, reconnect=False) as host:
        created = await host.create_room("skipper", mode="multi", seats=3,
                                         options={"seed": 77})
        room = srv.lobby.rooms[created.room]
        assert room.game is None and room._task is None and room._queue is None
        joined = await host.join(created.room)
        # A joined player of a waiting room gets the view of the deal the start will make.
        dealt = Skipper({"mode": "multi", "seed": 77}, 3)
        assert joined.view["room"]["status"] == "waiting"
        assert {k: v for k, v in joined.view.items() if k not in ("room", "legal_actions")} \
            == {k: v for k, v in dealt.view(0).items() if k != "legal_actions"}
        assert room.game is None  # the deal made for the view was not kept
        await host.start(created.room)
        assert room.game is not None and room.game.snapshot() == dealt.snapshot()
        loaded = await srv.store.load(created.room)
        assert loaded.record["options"]["seed"] == 77
