"""The one visibility rule (issue #41): every request type of the protocol, sent by an
outsider about a private room (waiting, playing, finished), gets the very answer (code and
message) it gets about a room that does not exist; members keep their access.

The request types are enumerated from the protocol (``CLIENT_MESSAGES``): a new type that
names a room is walked automatically (or fails here until it has a sample), and a new type
that names none fails until it is classified below.
"""

from __future__ import annotations

import asyncio
import dataclasses
from typing import Any

import pytest

from cardhall import protocol as p
from cardhall.client.client import Client, ServerError
from cardhall.server import visibility
from cardhall.server.app import Server
from cardhall.server.session import HANDLERS

from ..conftest import ServerFactory

#: Required fields (besides ``room``) of the request types that name a room.
SAMPLES: dict[type, dict[str, Any]] = {
    p.Act: {"state_id": 0, "action": ["end"]},
    p.Chat: {"text": "hello"},
    p.GetReplay: {"state_id": 0},
}
#: More variants of a type worth walking (another field set).
VARIANTS: list[p.ClientMessage] = [
    p.Resume(room="ROOM", token="x" * 32),
    p.GetReplay(room="ROOM", state_id=0, seat=0),
    p.GetLog(room="ROOM", first=1),
]
#: Request types that name no room, and why no answer of theirs can tell a private room:
#: the lobby's listing is checked below; the others never look at a room by id.
ROOMLESS = {
    p.Hello: "the handshake",
    p.ListGames: "the catalogue",
    p.ListRooms: "the listing: checked below (private rooms never listed)",
    p.CreateRoom: "a new room",
    p.QuickJoin: "public waiting rooms only: checked below",
    p.GetLeaderboard: "accounts' scores",
    p.Ping: "liveness",
    p.Guest: "sign-in", p.Register: "sign-in", p.Login: "sign-in", p.Restore: "sign-in",
    p.Refresh: "sign-in", p.Logout: "sign-out", p.SetName: "the account's name",
    p.GetMyGames: "the asker's own games",
}
MISSING = "0badc0de"


def room_requests(room: str) -> list[p.ClientMessage]:
    """One request of every client request type that names a room, about ``room``
    (enumerated from the protocol), and the :data:`VARIANTS`."""
    out: list[p.ClientMessage] = []
    for cls in p.CLIENT_MESSAGES.values():
        fields = {f.name for f in dataclasses.fields(cls)}
        if "room" not in fields:
            assert cls in ROOMLESS, f"{cls.TYPE} names no room: classify it in ROOMLESS"
            continue
        out.append(cls(room=room, **SAMPLES.get(cls, {})))
    out += [dataclasses.replace(v, room=room) for v in VARIANTS]  # type: ignore[arg-type]
    return out


def test_every_request_type_is_walked_or_classified() -> None:
    """The walk covers every request type of the protocol and of the session's table."""
    walked = {type(r) for r in room_requests("r")} | set(ROOMLESS)
    assert walked == set(p.CLIENT_MESSAGES.values())
    assert set(HANDLERS) <= walked


async def answer(client: Client, request: p.ClientMessage) -> tuple[str, str]:
    """The ``(code, message)`` ``request`` is answered with (``ok``/a reply: the type's
    name), the room id in the message replaced by ``ROOM``."""
    try:
        reply = await client.request(request)
    except ServerError as err:
        room = getattr(request, "room", "") or ""
        return err.code, err.message.replace(room, "ROOM")
    return "reply", type(reply).__name__


async def wait_status(client: Client, room: str, status: str) -> None:
    for _ in range(200):
        if client.views[room]["room"]["status"] == status:
            return
        await asyncio.sleep(0.02)
    raise AssertionError(f"room {room} never {status}")


async def private_rooms(host: Client) -> dict[str, str]:
    """Three private rooms of ``host`` (seated in each): waiting, playing, finished."""
    waiting = await host.create_room("skipper", mode="multi", seats=2, private=True)
    assert waiting.code is not None
    await host.join(code=waiting.code)
    playing = await host.create_room("skipper", mode="solo", private=True)
    assert playing.code is not None
    await host.join(code=playing.code)
    finished = await host.create_room("skipper", mode="solo", private=True)
    assert finished.code is not None
    await host.join(code=finished.code)
    await host.act(finished.room, ["resign"])
    await wait_status(host, finished.room, "finished")
    await wait_status(host, playing.room, "playing")
    return {"waiting": waiting.room, "playing": playing.room, "finished": finished.room}


@pytest.mark.parametrize("where", ["same", "other"])
async def test_an_outsider_learns_nothing_of_a_private_room(
        make_server: ServerFactory, store_kind: str, where: str) -> None:
    """Every request about a private room (waiting, playing, finished), sent by an
    outsider on the room's server or (a Redis lobby) on another server whose requests are
    forwarded, answers word for word as about a room that does not exist."""
    if where == "other" and store_kind != "redis":
        pytest.skip("only a Redis lobby has two servers sharing rooms")
    # No chat limit: it answers every line alike, whatever room it names, and the walk is fast.
    server = await make_server(finished_ttl=60, chat_rate=None)
    other_server = server if where == "same" else await make_server(chat_rate=None)
    async with Client(server.url) as host, Client(other_server.url) as outsider:
        rooms = await private_rooms(host)
        for state, room in rooms.items():
            for request in room_requests(room):
                hidden = await answer(outsider, request)
                missing = await answer(outsider, dataclasses.replace(request, room=MISSING))
                assert hidden == missing, (state, request.TYPE, request)
                assert hidden[0] == visibility.HIDDEN, (state, request.TYPE)
        listed = {r["room"] for r in await outsider.list_rooms()}
        assert not listed & set(rooms.values())
        joined = await outsider.quick_join("skipper", mode="multi", seats=2)
        assert joined.room != rooms["waiting"]


async def test_members_keep_their_access(server: Server) -> None:
    """The host and a player seated by code read the log and the replay of a finished
    private room (the public view and their own seat's); a spectator-by-code cannot exist,
    and the outsider gets nothing."""
    async with Client(server.url) as host, Client(server.url) as guest:
        created = await host.create_room("skipper", mode="multi", seats=2, private=True)
        assert created.code is not None
        room = created.room
        await host.join(code=created.code)
        await guest.join(code=created.code)  # full: starts
        await wait_status(host, room, "playing")
        await host.act(room, ["resign"])
        await wait_status(guest, room, "finished")
        for member, seat in ((host, 0), (guest, 1)):
            assert (await member.fetch_log(room)).room == room
            assert (await member.replay(room, 0)).seat is None
            assert (await member.replay(room, 0, seat=seat)).seat == seat
            with pytest.raises(ServerError) as err:
                await member.replay(room, 0, seat=1 - seat)
            assert err.value.code == "room/not_seated"

