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
import socket
from collections.abc import AsyncIterator
from typing import Any

import pytest
import websockets
from limits import parse
from limits.aio.storage import MemoryStorage

from cardhall import protocol as p
from cardhall.client.client import Client, ServerError
from cardhall.server import lobby, visibility
from cardhall.server.app import Server
from cardhall.server.config import Settings
from cardhall.server.store.memory_store import MemoryStore
from cardhall.server.room import RoomError
from cardhall.server.session import HANDLERS

from ..conftest import ServerFactory, serving

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
    p.QueueJoin: "rated play's queue: seats the asker in a new public room",
    p.QueueLeave: "rated play's queue: the asker's own ticket",
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
    server = await make_server(finished_ttl=60, lookup_limit=None, chat_rate=None)
    other_server = server if where == "same" else await make_server(lookup_limit=None,
                                                                    chat_rate=None)
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



async def test_a_seats_account_sees_its_private_game_from_a_new_connection(
        server: Server) -> None:
    """The player of a seat, signed in to the account that holds it, reads the log and the
    replays (the public view and its seat's) of its finished private room from another
    connection (another device, a reload: "My games"); another account gets nothing."""
    async with Client(server.url, guest="a" * 32) as host, \
            Client(server.url, guest="b" * 32) as guest:
        created = await host.create_room("skipper", mode="multi", seats=2, private=True)
        assert created.code is not None
        room = created.room
        await host.join(code=created.code)
        await guest.join(code=created.code)
        await wait_status(host, room, "playing")
        await host.act(room, ["resign"])
        await wait_status(guest, room, "finished")
    async with Client(server.url, guest="b" * 32) as again, \
            Client(server.url, guest="c" * 32) as stranger:
        assert (await again.fetch_log(room)).room == room
        assert (await again.replay(room, 1, seat=1)).seat == 1
        with pytest.raises(ServerError) as err:
            await again.replay(room, 1, seat=0)
        assert err.value.code == "room/not_seated"
        for request in (p.GetLog(room=room), p.GetReplay(room=room, state_id=0)):
            assert await answer(stranger, request) == await answer(
                stranger, dataclasses.replace(request, room=MISSING))


# -- failed look-ups, throttled (issue #41 item 4) ---------------------------------------


class Proxied:
    """A raw WebSocket client whose address is ``client`` (IPv4 or IPv6), as a trusted
    proxy on 127.0.0.1 names it in a PROXY v1 header."""

    def __init__(self, server: Server, client: str) -> None:
        self.server, self.client = server, client
        self.ws: Any = None
        self._id = 0

    async def __aenter__(self) -> Proxied:
        loop = asyncio.get_running_loop()
        sock = socket.socket()
        sock.setblocking(False)
        try:
            async with asyncio.timeout(5):
                await loop.sock_connect(sock, ("127.0.0.1", self.server.port))
                family = "TCP6" if ":" in self.client else "TCP4"
                here = "::1" if family == "TCP6" else "127.0.0.1"
                await loop.sock_sendall(sock, f"PROXY {family} {self.client} {here} 40000 "
                                        f"{self.server.port}\r\n".encode())
                self.ws = await websockets.connect(self.server.url, sock=sock,
                                                   compression=None)
        except BaseException:
            sock.close()
            raise
        await self.ws.send(p.encode(p.Hello(v=1, client="lookup-test")))
        assert isinstance(p.decode(await self.ws.recv(), side="server"), p.Welcome)
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.ws.close()

    async def ask(self, msg: p.ClientMessage) -> p.Message:
        """Send ``msg`` with a fresh id; the reply to it (pushes skipped; 5 s at most)."""
        self._id += 1
        await self.ws.send(p.encode(dataclasses.replace(msg, id=self._id)))  # type: ignore
        async with asyncio.timeout(5):
            while True:
                reply = p.decode(await self.ws.recv(), side="server")
                if getattr(reply, "re", None) == self._id:
                    return reply

    async def code(self, msg: p.ClientMessage) -> str:
        """The error code ``msg`` is answered with, or ``"ok"`` for any other reply."""
        reply = await self.ask(msg)
        return reply.code if isinstance(reply, p.Error) else "ok"


@pytest.fixture
async def proxied_server() -> AsyncIterator[ServerFactory]:
    """Servers (memory store) behind a trusted proxy on 127.0.0.1 (clients name their
    address in a PROXY header); stopped after the test."""
    async with serving(MemoryStore, trusted_proxies=("127.0.0.1/32",), msg_rate=None) as make:
        yield make


async def private_code(server: Server, seats: int = 4) -> tuple[str, str]:
    """``(room, code)`` of a fresh private waiting room of ``seats`` Skipper seats."""
    async with Proxied(server, "192.0.2.1") as host:
        created = await host.ask(p.CreateRoom(game="skipper", mode="multi", seats=seats,
                                              private=True))
    assert isinstance(created, p.RoomCreated) and created.code is not None
    return created.room, created.code


async def test_failed_lookups_are_throttled_per_address(
        proxied_server: ServerFactory) -> None:
    """N failed look-ups (any kind: a code no room has, a missing room id) from one address,
    and its next look-up is refused with ``rate/limited``, even of a valid code; another
    address is served; requests about a room the client is in never count nor wait."""
    server = await proxied_server(lookup_limit="5/minute")
    room, code = await private_code(server)
    async with Proxied(server, "203.0.113.7") as a, Proxied(server, "203.0.113.7") as a2:
        member_room = (await a.ask(p.CreateRoom(game="skipper", mode="multi",
                                                seats=2))).room  # type: ignore[union-attr]
        assert await a.code(p.Join(room=member_room)) == "ok"
        for miss in (p.Join(code="Z" * 10), p.Join(room=MISSING), p.Spectate(room=MISSING),
                     p.GetView(room=MISSING), p.GetReplay(room=room, state_id=0)):
            assert await a.code(miss) == "room/not_found"
        # Out of look-ups: the address's next one is refused, on any of its connections,
        # even with the right code (nothing is learnt of it).
        refused = await a2.ask(p.Join(code=code))
        assert isinstance(refused, p.Error) and refused.code == "rate/limited"
        assert "look-ups" in refused.message
        assert await a.code(p.Join(room=MISSING)) == "rate/limited"
        # The client's own room answers as ever.
        assert await a.code(p.GetView(room=member_room)) == "ok"
        assert await a.code(p.Chat(room=member_room, text="still here")) == "ok"
    async with Proxied(server, "198.51.100.9") as b:  # another address: served
        assert await b.code(p.Join(code=code)) == "ok"
        assert await b.code(p.Join(room=MISSING)) == "room/not_found"


async def test_a_successful_lookup_does_not_count(proxied_server: ServerFactory) -> None:
    """Four failures, a success, then a fifth failure is still answered (limit 5): only
    failed look-ups count."""
    server = await proxied_server(lookup_limit="5/minute")
    _, code = await private_code(server)
    async with Proxied(server, "203.0.113.8") as a, Proxied(server, "203.0.113.8") as a2:
        for _ in range(4):
            assert await a.code(p.Join(code="Z" * 10)) == "room/not_found"
        assert await a2.code(p.Join(code=code)) == "ok"  # a success
        assert await a.code(p.Spectate(room=MISSING)) == "room/not_found"  # the 5th failure
        assert await a.code(p.Spectate(room=MISSING)) == "rate/limited"


async def test_failed_lookups_are_throttled_per_account(
        proxied_server: ServerFactory) -> None:
    """An account out of failed look-ups is refused from a fresh address as well."""
    server = await proxied_server(lookup_limit="3/minute")
    _, code = await private_code(server)
    guest = p.Guest(secret="s" * 32)
    async with Proxied(server, "203.0.113.9") as a:
        assert isinstance(await a.ask(guest), p.Account)
        for _ in range(3):
            assert await a.code(p.Join(code="Z" * 10)) == "room/not_found"
    async with Proxied(server, "198.51.100.10") as b:
        assert await b.code(p.Join(code=code)) == "ok"  # the address alone: served
    async with Proxied(server, "198.51.100.11") as c:
        assert isinstance(await c.ask(guest), p.Account)  # the same account
        assert await c.code(p.Join(code=code)) == "rate/limited"


async def test_failed_lookups_of_one_ipv6_network_share_a_budget(
        proxied_server: ServerFactory) -> None:
    """Issue #41 item 5, with look-ups: two addresses of one /64 share one budget; an
    address of another /64 has its own; ``ipv6_prefix`` 128 keys each address alone."""
    server = await proxied_server(lookup_limit="2/minute")
    async with Proxied(server, "2001:db8:1:2::a") as a, \
            Proxied(server, "2001:db8:1:2:ffff::b") as b, \
            Proxied(server, "2001:db8:1:3::a") as c:
        assert await a.code(p.Join(room=MISSING)) == "room/not_found"
        assert await b.code(p.Join(room=MISSING)) == "room/not_found"
        assert await a.code(p.Join(room=MISSING)) == "rate/limited"
        assert await b.code(p.Join(room=MISSING)) == "rate/limited"
        assert await c.code(p.Join(room=MISSING)) == "room/not_found"
    alone = await proxied_server(lookup_limit="1/minute", ipv6_prefix=128)
    async with Proxied(alone, "2001:db8:1:2::a") as a, Proxied(alone, "2001:db8:1:2::b") as b:
        assert await a.code(p.Join(room=MISSING)) == "room/not_found"
        assert await b.code(p.Join(room=MISSING)) == "room/not_found"
        assert await a.code(p.Join(room=MISSING)) == "rate/limited"


def test_join_codes_are_long_enough_for_years() -> None:
    """The arithmetic of docs/operations.md: one valid code of 1,000 waiting private rooms
    takes more than 10,000 years of guesses at the default limit of one address."""
    per_minute = parse(Settings().lookup_limit or "").amount / (
        parse(Settings().lookup_limit or "").get_expiry() / 60)
    codes = len(lobby._CODE_ALPHABET) ** lobby.CODE_LENGTH
    years = codes / 1000 / per_minute / (60 * 24 * 365.25)
    assert years > 10_000


async def test_lookup_limits_count_in_moving_windows() -> None:
    """:class:`Lookups` alone: checks count nothing, failures count per address and per
    account, and None switches it off."""
    lookups = visibility.Lookups(MemoryStorage(), "2/minute")
    for _ in range(5):
        await lookups.check("203.0.113.1", "acct1")
    await lookups.failed("203.0.113.1", "acct1")
    await lookups.failed("203.0.113.2", "acct1")
    await lookups.check("203.0.113.1", "")  # the address: one failure
    with pytest.raises(RoomError) as err:
        await lookups.check("203.0.113.3", "acct1")  # the account: two
    assert err.value.code == "rate/limited" and "account" in err.value.message
    for _ in range(3):  # an unknown address ("?"): not counted, one budget for all would be
        await lookups.failed("?", "")
    await lookups.check("?", "")
    off = visibility.Lookups(MemoryStorage(), None)
    for _ in range(5):
        await off.failed("203.0.113.1", "")
    await off.check("203.0.113.1", "")


async def test_forwarded_failed_lookups_count_for_the_clients_address(
        make_server: ServerFactory, store_kind: str) -> None:
    """A Redis lobby: look-ups of a private room of another process are forwarded to its
    owner, which counts the failures under the client's address (carried with the request),
    so the client's process refuses the next look-up."""
    if store_kind != "redis":
        pytest.skip("only a Redis lobby has two servers sharing rooms")
    proxy = ("127.0.0.1/32",)
    owner = await make_server(lookup_limit="3/minute", trusted_proxies=proxy)
    other = await make_server(lookup_limit="3/minute", trusted_proxies=proxy)
    room, _ = await private_code(owner)
    async with Proxied(other, "203.0.113.20") as a:
        for _ in range(3):
            assert await a.code(p.GetLog(room=room)) == "room/not_found"
        for _ in range(50):  # the owner counts after it answered: wait for the count
            if await a.code(p.GetLog(room=room)) == "rate/limited":
                break
            await asyncio.sleep(0.02)
        else:
            raise AssertionError("the forwarded failures were not counted")
    async with Proxied(other, "198.51.100.20") as b:  # another address: served
        assert await b.code(p.GetLog(room=room)) == "room/not_found"


async def test_a_resume_is_no_lookup(proxied_server: ServerFactory) -> None:
    """An address out of look-ups still takes its seats back (``resume`` proves itself with
    its token): a reconnecting player behind a busy address keeps its seat."""
    server = await proxied_server(lookup_limit="2/minute")
    async with Proxied(server, "203.0.113.30") as a:
        room = (await a.ask(p.CreateRoom(game="skipper", mode="multi",
                                         seats=2))).room  # type: ignore[union-attr]
        joined = await a.ask(p.Join(room=room))
        assert isinstance(joined, p.Joined) and joined.token
        for _ in range(2):
            assert await a.code(p.Join(room=MISSING)) == "room/not_found"
        assert await a.code(p.Spectate(room=MISSING)) == "rate/limited"
    async with Proxied(server, "203.0.113.30") as again:  # reconnected: not in the room yet
        assert await again.code(p.Resume(room=room, token=joined.token)) == "ok"
        assert await again.code(p.Resume(room=MISSING, token=joined.token)) == "room/not_found"
