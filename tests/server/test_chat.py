"""Chat in every room (issue #33): ``chat`` and ``chat_lines`` between players and
spectators, history for late joiners and resumed seats, the length limit, the chat rate
limit, text cleaning, operators' mutes (admin API and ``cardhall admin mute``), the chat kept
when a room moves to another process (Redis), and the spectators named in the room facts.

None of this existed before: on the old code ``chat`` is ``protocol/unknown_type``, so every
test here fails there.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest

from cardhall import protocol as p
from cardhall.client.client import Client, ServerError
from cardhall.server.room import chat
from cardhall.server.app import Server
from cardhall.server.room import Room

from ..conftest import ServerFactory, run_cli
from .test_admin import TOKEN, call, http_url


async def until(check: Any, timeout: float = 10.0) -> None:
    """Wait until ``check()`` is true (polling), or fail."""
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "timed out"
        await asyncio.sleep(0.02)


async def seated_pair(server: Server, a: Client, b: Client) -> str:
    """A 3-seat Skipper multi room (waiting) with ``a`` in seat 0 and ``b`` in seat 1."""
    room = (await a.create_room("skipper", mode="multi", seats=3)).room
    await a.join(room)
    await b.join(room)
    return room


def texts(c: Client, room: str) -> list[tuple[int | None, str]]:
    return [(line["seat"], line.get("text") or line["emote"]) for line in c.chat.get(room, [])]


async def test_players_and_a_spectator_chat(server: Server) -> None:
    """Two players and a spectator: every line reaches every member (the speaker too) with
    its seat (nil for the spectator) and name; emotes are words of the protocol."""
    async with Client(server.url, name="Ann") as a, Client(server.url, name="Bob") as b, \
            Client(server.url, name="Kib") as w:
        room = await seated_pair(server, a, b)
        await w.spectate(room)
        await a.say(room, "hello table")
        await b.emote(room, "good_luck")
        await w.say(room, "  go Ann\n ")
        want = [(0, "hello table"), (1, "good_luck"), (None, "go Ann")]
        for c in (a, b, w):
            await until(lambda c=c: len(c.chat.get(room, ())) == 3)
            assert texts(c, room) == want
        lines = list(w.chat[room])
        assert [line["n"] for line in lines] == [1, 2, 3]
        assert [line["name"] for line in lines] == ["Ann", "Bob", "Kib"]
        assert "emote" in lines[1] and "text" not in lines[1]
        assert abs(lines[0]["at"] - time.time()) < 30
        with pytest.raises(p.BadValue):
            await a.emote(room, "boo")  # not an emote of the protocol: never sent


async def test_history_for_late_joiners_and_resumed_seats(server: Server) -> None:
    """A spectator who comes later and a player who resumes get the room's last lines in one
    ``chat_lines`` with ``history``, the last ``HISTORY_LINES`` only."""
    async with Client(server.url, name="Ann", reconnect=False) as a, \
            Client(server.url, name="Bob") as b:
        room = await seated_pair(server, a, b)
        token = a.seats[room][1]
        r = server.lobby.rooms[room]
        r.table.chat = tuple({"n": i, "seat": 1, "name": "Bob", "at": 1.0, "text": f"old {i}"}
                       for i in range(1, chat.HISTORY_LINES + 1))
        await b.say(room, "newest")
        await until(lambda: len(a.chat.get(room, ())) >= 1)
    assert len(r.table.chat) == chat.HISTORY_LINES and r.table.chat[-1]["text"] == "newest"
    async with Client(server.url, name="Late") as late:
        await late.spectate(room)
        await until(lambda: room in late.chat)
        got = [line["text"] for line in late.chat[room]]
        assert got == [f"old {i}" for i in range(2, chat.HISTORY_LINES + 1)] + ["newest"]
    async with Client(server.url, name="Ann") as again:
        await again.resume(room, token)
        await until(lambda: room in again.chat)
        assert again.chat[room][-1]["text"] == "newest"


async def test_raw_frames_of_chat(server: Server) -> None:
    """On the wire: ``chat`` answered by ``ok``, then ``chat_lines`` without ``history``;
    after ``joined``, the history with ``history: true``."""
    import websockets

    from .test_admin import raw_frames

    async with Client(server.url, name="Ann") as a:
        room = (await a.create_room("skipper", mode="multi", seats=2)).room
        await a.join(room)
        await a.say(room, "first")
        async with websockets.connect(server.url) as ws:
            await ws.send(p.encode(p.Hello(v=1, client="raw")))
            await ws.recv()
            await ws.send(p.encode(p.Spectate(room=room, id=1)))
            frames = await raw_frames(ws, "chat_lines")
            assert frames[-1]["history"] is True and frames[-1]["lines"][0]["text"] == "first"
            await ws.send(p.encode(p.Chat(room=room, text="hi", id=2)))
            frames = await raw_frames(ws, "chat_lines")
            assert {"t": "ok", "re": 2} in frames
            assert "history" not in frames[-1]
            assert frames[-1]["lines"][0]["text"] == "hi" and frames[-1]["lines"][0]["n"] == 2


async def test_length_limit_cleaning_and_non_members(server: Server) -> None:
    """Lines are at most 300 code points (the protocol refuses longer ones); control and
    bidi characters are dropped, a line left empty is refused; only members may chat."""
    async with Client(server.url) as a, Client(server.url) as outsider:
        room = (await a.create_room("skipper", mode="multi", seats=2)).room
        await a.join(room)
        await a.say(room, "\u00e9" * p.MAX_CHAT_LEN)  # 300 code points (600 bytes): fine
        with pytest.raises(p.BadValue):
            p.Chat(room=room, text="x" * (p.MAX_CHAT_LEN + 1))
        with pytest.raises(ServerError) as err:
            await a.say(room, "\u202e\x00\x07")
        assert err.value.code == "protocol/bad_value"
        await a.say(room, "a\u202eb\x1b[31mc")
        await until(lambda: len(a.chat.get(room, ())) == 2)
        assert a.chat[room][-1]["text"] == "ab[31mc"
        with pytest.raises(ServerError) as err:
            await outsider.say(room, "let me in")
        assert err.value.code == "room/not_seated"
        with pytest.raises(ServerError) as err:
            await outsider.say("nosuchroom", "hello")
        assert err.value.code == "room/not_found"
    assert chat.clean_text("  a\tb\r\nc  ") == "a b  c"


async def test_chat_rate_limit_refuses_without_closing(make_server: ServerFactory) -> None:
    """A connection's chat bucket (``chat_rate`` lines/s, ``chat_burst`` at once): the line
    beyond the burst is ``rate/limited``, the connection stays open and its other requests
    go on; a token later, it may chat again."""
    server = await make_server(chat_rate=5.0, chat_burst=3)
    async with Client(server.url) as a:
        room = (await a.create_room("skipper", mode="multi", seats=2)).room
        await a.join(room)
        for i in range(3):
            await a.say(room, f"line {i}")
        with pytest.raises(ServerError) as err:
            await a.say(room, "one too many")
        assert err.value.code == "rate/limited" and "chat" in err.value.message
        await a.ping()  # still connected, other requests served
        await asyncio.sleep(0.3)
        await a.say(room, "later")
        await until(lambda: len(a.chat.get(room, ())) == 4)
        assert a.chat[room][-1]["text"] == "later"


async def test_operator_mutes_a_seat(make_server: ServerFactory) -> None:
    """``POST /admin/rooms/ID/seats/N/mute``: that seat's lines are refused with
    ``chat/muted`` (the others chat on); ``unmute`` lets it chat again; a seat out of range
    is 404; the mute is kept in the room's stored state."""
    server = await make_server(admin_token=TOKEN)
    async with Client(server.url) as a, Client(server.url) as b:
        room = await seated_pair(server, a, b)
        status, body = await call(http_url(server), "POST", f"/admin/rooms/{room}/seats/1/mute")
        assert status == 200 and body["muted"] is True and body["seat"] == 1
        with pytest.raises(ServerError) as err:
            await b.say(room, "spam")
        assert err.value.code == "chat/muted"
        await a.say(room, "still here")
        loaded = await server.store.load(room)
        await until(lambda: "save" not in server.lobby.rooms[room]._flags)
        loaded = await server.store.load(room)
        assert loaded is not None and loaded.state is not None and loaded.state["muted"] == [1]
        status, body = await call(http_url(server), "POST",
                                  f"/admin/rooms/{room}/seats/1/unmute")
        assert status == 200 and body["muted"] is False
        await b.say(room, "thanks")
        assert (await call(http_url(server), "POST",
                           f"/admin/rooms/{room}/seats/7/mute"))[0] == 404
        assert (await call(http_url(server), "GET", f"/admin/rooms/{room}/seats/1/mute"))[0] \
            == 405


@pytest.mark.slow
async def test_cardhall_admin_mute(make_server: ServerFactory) -> None:
    """``cardhall admin mute ROOM SEAT`` and ``--off``."""
    server = await make_server(admin_token=TOKEN)
    async with Client(server.url) as a, Client(server.url) as b:
        room = await seated_pair(server, a, b)
        base = ["--url", http_url(server), "--token", TOKEN]
        done = await asyncio.to_thread(run_cli, "admin", "mute", *base, room, "1")
        assert done.returncode == 0, done.stderr
        assert f"seat 1 of room {room} muted" in done.stdout
        assert server.lobby.rooms[room].table.muted == {1}
        done = await asyncio.to_thread(run_cli, "admin", "mute", *base, room, "1", "--off")
        assert done.returncode == 0 and "unmuted" in done.stdout
        assert not server.lobby.rooms[room].table.muted


async def test_chat_is_kept_in_the_stored_state(server: Server) -> None:
    """The last lines and the mutes are part of the room's stored state, so a room rebuilt
    from the store (a takeover by another process) keeps its chat; with the Redis store the
    lines survive a room's move between processes."""
    async with Client(server.url, name="Ann") as a, Client(server.url, name="Bob") as b:
        room = await seated_pair(server, a, b)
        await a.say(room, "before the move")
        await b.emote(room, "thanks")
        live = server.lobby.rooms[room]
        await live.apply(live.table.mute(1, True))
        await a.say(room, "saved")
        await until(lambda: "save" not in live._flags)
        await asyncio.sleep(0.05)
    loaded = await server.store.load(room)
    assert loaded is not None
    rebuilt = Room.from_loaded(loaded, server.store, live.table.game_cls)
    assert [line.get("text", line.get("emote")) for line in rebuilt.table.chat] == [
        "before the move", "thanks", "saved"]
    assert rebuilt.table.muted == {1}


async def test_spectators_are_named_in_the_room_facts(server: Server) -> None:
    """``room.spectators`` (count and names) in every view; a spectator coming or going
    reaches the players at once as an update keeping the state_id."""
    async with Client(server.url, name="Ann") as a, Client(server.url, name="Bob") as b:
        room = await seated_pair(server, a, b)
        assert a.views[room]["room"]["spectators"] == {"count": 0, "names": []}
        async with Client(server.url, name="Watcher") as w:
            await w.spectate(room)
            assert w.views[room]["room"]["spectators"] == {"count": 1, "names": ["Watcher"]}
            await until(lambda: a.views[room]["room"]["spectators"]["count"] == 1)
            assert a.views[room]["room"]["spectators"]["names"] == ["Watcher"]
            await w.leave(room)
            await until(lambda: a.views[room]["room"]["spectators"]["count"] == 0)
        assert b.views[room]["room"]["spectators"]["names"] == []


async def test_a_turn_timeout_is_told_as_a_seat_event(server: Server) -> None:
    """When a seat's turn timer runs out the room says so (``seat_event timeout``) before
    the update of the default action the server plays for it."""
    async with Client(server.url) as a:
        room = (await a.create_room("skipper", mode="solo", seats=1,
                                    options={"turn_seconds": 0.3})).room
        await a.join(room)  # a full room starts by itself
        seen: list[Any] = []

        async def watch() -> None:
            async for msg in a.updates():
                seen.append(msg)
                if isinstance(msg, p.SeatEvent) and msg.event == "timeout":
                    return

        await asyncio.wait_for(watch(), 10)
        event = seen[-1]
        assert event.seat == 0 and event.room == room
        sid = a.views[room]["state_id"]
        await until(lambda: a.views[room]["state_id"] > sid)


def test_json_schemas_of_the_chat_and_replay_messages() -> None:
    """docs/schemas/protocol/*.json describe ``chat``, ``chat_lines``, ``get_replay`` and
    ``replay`` as the protocol module builds them, and refuse what the protocol refuses."""
    import json

    import jsonschema
    import msgpack

    from ..conftest import ROOT

    def schema(name: str) -> Any:
        return json.loads((ROOT / "docs" / "schemas" / "protocol" / f"{name}.json").read_text())

    def wire(msg: p.Message) -> Any:
        return msgpack.unpackb(p.encode(msg))

    line = {"n": 3, "seat": None, "name": "Kib", "at": 1700000000.25, "text": "go"}
    good = [
        ("chat", wire(p.Chat(room="r1", text="x" * p.MAX_CHAT_LEN, id=3))),
        ("chat", wire(p.Chat(room="r1", emote="good_game"))),
        ("chat_lines", wire(p.ChatLines(room="r1", lines=[line], history=True))),
        ("chat_lines", wire(p.ChatLines(room="r1", lines=[
            {"n": 1, "seat": 2, "name": "A", "at": 1, "emote": "oops"}]))),
        ("get_replay", wire(p.GetReplay(room="r1", state_id=7, seat=0, id="x"))),
        ("replay", wire(p.Replay(room="r1", state_id=7, final=9, seat=None,
                                 view={"state_id": 7}, events=[{"type": "end"}], re=1))),
    ]
    for name, sample in good:
        jsonschema.validate(sample, schema(name))
    bad = [
        ("chat", {"t": "chat", "room": "r1"}),
        ("chat", {"t": "chat", "room": "r1", "text": "a", "emote": "oops"}),
        ("chat", {"t": "chat", "room": "r1", "text": "x" * (p.MAX_CHAT_LEN + 1)}),
        ("chat", {"t": "chat", "room": "r1", "emote": "boo"}),
        ("chat_lines", {"t": "chat_lines", "room": "r1", "lines": [{**line, "emote": "oops"}]}),
        ("chat_lines", {"t": "chat_lines", "room": "r1", "lines": [{**line, "html": 1}]}),
        ("get_replay", {"t": "get_replay", "room": "r1"}),
        ("replay", {"t": "replay", "room": "r1", "state_id": 1, "final": 1, "view": {},
                    "events": []}),
    ]
    for name, sample in bad:
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(sample, schema(name))
        with pytest.raises(p.ProtocolError):
            p.decode(msgpack.packb(sample), side="client" if name in ("chat", "get_replay")
                     else "server")
