"""One name for each seat (issue #44, item 4): a ``seat_event`` names the seat's player (so a
log reads "Bob sat down.", not "seat 1 sat down."), and a server bot has one display name,
:func:`cardhall.server.accounts.names.bot_name`, in the view's players, the game's record and every
client (before, the table said "seat 2 (bot)" and the replay and the terminal "bot-2")."""

from __future__ import annotations

import asyncio

from cardhall import protocol as p
from cardhall.client.client import Client
from cardhall.server.store.memory_store import MemoryStore
from cardhall.server.accounts.names import bot_name

from ..conftest import serving


def test_bot_name_is_a_name_people_read() -> None:
    assert bot_name(2) == "Bot 2"
    assert bot_name(0) == "Bot 0"


def test_seat_event_carries_an_optional_name() -> None:
    frame = p.SeatEvent(room="r1", seat=1, event="joined", name="Bob")
    assert p.decode(p.encode(frame), side="server") == frame
    left = p.SeatEvent(room="r1", seat=1, event="left")
    assert p.decode(p.encode(left), side="server").name is None


async def test_joined_seat_event_names_the_player_and_bots_are_named_by_the_rule() -> None:
    async with serving(MemoryStore, msg_rate=None) as make:
        server = await make()
        url = f"ws://127.0.0.1:{server.port}/"
        ann, bob = Client(url, name="Ann", reconnect=False), Client(url, name="Bob",
                                                                     reconnect=False)
        await ann.connect()
        await bob.connect()
        try:
            room = (await ann.create_room("skipper", mode="multi", seats=4)).room
            await ann.join(room)
            await bob.join(room)

            async def joined() -> p.SeatEvent:
                async for msg in ann.updates():
                    if isinstance(msg, p.SeatEvent) and msg.event == "joined" and msg.seat == 1:
                        return msg
                raise AssertionError("no seat event")

            event = await asyncio.wait_for(joined(), 5)
            assert event.name == "Bob"
            await ann.start(room)
            view = await ann.get_view(room)
            players = view["room"]["players"]
            assert [pl["name"] for pl in players[2:]] == ["Bot 2", "Bot 3"]
            assert all(pl["bot"] for pl in players[2:])
        finally:
            await ann.close()
            await bob.close()


def test_names_like_a_bots_are_known() -> None:
    from cardhall.server.accounts.names import is_bot_like
    for name in ("Bot 2", "BOT 2", "bot  2", "B\u03bft 2", "bot-2", "Bot 13"):
        assert is_bot_like(name), name
    for name in ("Bot", "Bottle 2", "Robot 2", "Bob 2", "Ann"):
        assert not is_bot_like(name), name


async def test_no_person_takes_a_bots_name() -> None:
    """Neither an account nor an anonymous connection may be called "Bot 2" (a seat so named
    would pass for the server's bot)."""
    from cardhall.client.client import ServerError
    import secrets
    async with serving(MemoryStore, msg_rate=None) as make:
        server = await make()
        url = f"ws://127.0.0.1:{server.port}/"
        async with Client(url, guest=secrets.token_urlsafe(16), name="Dee") as c:
            for name in ("Bot 2", "bot-3"):
                try:
                    await c.set_name(name)
                except ServerError as exc:
                    assert exc.code == "auth/bad_name", exc.code
                else:
                    raise AssertionError(f"{name!r} was taken")
