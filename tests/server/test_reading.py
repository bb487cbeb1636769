"""How frames come in: with a store that answers at once, a request is handled in the
socket's callback that read its frame (:mod:`cardhall.server.driver`); a connection's
requests are still handled one at a time and in the order they came, also when one of them
must wait."""

from __future__ import annotations

import asyncio
from typing import Any

import msgpack
import pytest
import websockets

from cardhall import protocol as p
from cardhall.client.client import Client
from cardhall.server.app import Server
from cardhall.server.connection import Connection
from cardhall.server.driver import Socket
from cardhall.server.room import Room

from ..conftest import ServerFactory

MEMORY_ONLY = pytest.mark.parametrize("store_kind", ["memory"])
REDIS_ONLY = pytest.mark.parametrize("store_kind", ["redis"])


async def _hello(url: str) -> tuple[Any, str]:
    ws = await websockets.connect(url)
    # version 1: an ok, then the update, for an accepted act (the frames these tests count)
    await ws.send(msgpack.packb({"t": "hello", "v": 1, "client": "t"}))
    welcome = msgpack.unpackb(await asyncio.wait_for(ws.recv(), 5))
    assert welcome["t"] == "welcome"
    return ws, welcome["session"]


async def _replies(ws: Any, count: int) -> list[dict[str, Any]]:
    return [msgpack.unpackb(await asyncio.wait_for(ws.recv(), 5)) for _ in range(count)]


async def _reply_to(ws: Any, re: int) -> dict[str, Any]:
    """The reply to request ``re`` (frames before it are dropped)."""
    while True:
        (msg,) = await _replies(ws, 1)
        if msg.get("re") == re:
            return msg


@MEMORY_ONLY
async def test_an_act_is_handled_in_the_callback_that_parsed_its_frame(
        make_server: ServerFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    # No task wakes up for it: no queue, no trip round the loop; and (issue #43 item 2) no
    # coroutine: the room appends through the store's plain call (append_now), which it
    # makes while it applies the action, and never awaits the store's append.
    server = await make_server()
    ran_in: list[asyncio.Task[Any] | None] = []
    append_now = server.store.append_now

    def spied(room_id: str, *args: Any, **kwargs: Any) -> Any:
        ran_in.append(asyncio.current_task())
        return append_now(room_id, *args, **kwargs)

    async def awaited(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("the room awaited the store's append")

    monkeypatch.setattr(server.store, "append_now", spied)
    monkeypatch.setattr(server.store, "append", awaited)
    async with Client(server.url) as c:
        room = (await c.create_room("skipper", options={"seed": 3})).room
        await c.join(room)
        for _ in range(3):
            view = c.views[room]
            await c.act(room, view["legal_actions"][0], view["state_id"])
        conn = server.sessions[c.session_id]
        assert isinstance(conn, Connection) and isinstance(conn.ws, Socket)
    assert ran_in == [None, None, None]


@MEMORY_ONLY
async def test_requests_after_one_that_waits_for_a_busy_room_are_answered_after_it(
        make_server: ServerFactory) -> None:
    server = await make_server()
    ws, session = await _hello(server.url)
    try:
        await ws.send(p.encode(p.CreateRoom(game="skipper", seats=1, options={"seed": 4},
                                             id=1)))
        room_id = (await _reply_to(ws, 1))["room"]
        await ws.send(p.encode(p.Join(room=room_id, id=2)))
        await _reply_to(ws, 2)
        while (await _replies(ws, 1))[0]["t"] != "started":
            pass
        await ws.send(p.encode(p.GetView(room=room_id, id=9)))
        view = (await _reply_to(ws, 9))["view"]
        room = server.lobby.rooms[room_id]
        assert isinstance(room, Room)
        release = asyncio.Event()
        busy = room.submit(release.wait)  # the room's task is held by this work item
        await asyncio.sleep(0.01)
        await ws.send(p.encode(p.Act(room=room_id, state_id=view["state_id"],
                                     action=view["legal_actions"][0], id=3)))
        await ws.send(p.encode(p.GetView(room=room_id, id=4)))
        await ws.send(p.encode(p.Ping(id=5)))
        await asyncio.sleep(0.05)
        conn = server.sessions[session]
        assert isinstance(conn, Connection)
        assert conn._inflight is not None and not conn._inflight.done()  # the act waits
        release.set()
        await busy
        got = await _replies(ws, 4)
        assert [(m["t"], m.get("re")) for m in got] == [
            ("ok", 3), ("update", None), ("update", 4), ("pong", 5)]
        assert got[2]["view"]["state_id"] == view["state_id"] + 1  # after the act
    finally:
        await ws.close()


@MEMORY_ONLY
async def test_a_rate_limit_pause_holds_back_the_frames_behind_it(
        make_server: ServerFactory) -> None:
    # The refusal's pause (until the bucket holds a token) runs in a task; the frames behind
    # it wait for it, as they would in the reader.
    server = await make_server(msg_rate=5.0, msg_burst=1)
    ws, _ = await _hello(server.url)
    try:
        await asyncio.sleep(0.25)  # the bucket refills after the hello
        for i in range(1, 5):
            await ws.send(p.encode(p.Ping(id=i)))
        got = await _replies(ws, 4)
        assert [(m["t"], m.get("re")) for m in got] == [
            ("pong", 1), ("error", 2), ("pong", 3), ("error", 4)]
        assert got[1]["code"] == "rate/limited"
    finally:
        await ws.close()


@REDIS_ONLY
async def test_with_the_redis_store_frames_go_through_the_reader(
        make_server: ServerFactory) -> None:
    # redis-py needs a task of its own (its reads use asyncio.timeout): no eager handling.
    server: Server = await make_server()
    ran_in: list[asyncio.Task[Any] | None] = []
    append = server.store.append

    async def spied(room_id: str, *args: Any, **kwargs: Any) -> Any:
        ran_in.append(asyncio.current_task())
        return await append(room_id, *args, **kwargs)

    server.store.append = spied  # type: ignore[method-assign]
    async with Client(server.url) as c:
        room = (await c.create_room("skipper", options={"seed": 3})).room
        await c.join(room)
        view = c.views[room]
        await c.act(room, view["legal_actions"][0], view["state_id"])
    assert ran_in and all(task is not None for task in ran_in)


@MEMORY_ONLY
@pytest.mark.parametrize("waits_first", [False, True])
async def test_a_bug_while_handling_a_frame_closes_that_connection_with_1011(
        make_server: ServerFactory, monkeypatch: pytest.MonkeyPatch, waits_first: bool,
        caplog: pytest.LogCaptureFixture) -> None:
    # Whether it fails in the socket's callback or in the task it went on in after a wait,
    # as websockets closes a connection whose handler failed; other connections go on.
    server = await make_server()

    class Buggy(Connection):
        async def handle(self, msg: p.Message) -> None:
            if getattr(msg, "id", None) == 666:
                if waits_first:
                    await asyncio.sleep(0)
                raise RuntimeError("a bug")
            await super().handle(msg)

    monkeypatch.setattr(server, "connection_class", Buggy)
    ws, _ = await _hello(server.url)
    other, _ = await _hello(server.url)
    try:
        await ws.send(p.encode(p.Ping(id=666)))
        with pytest.raises(websockets.ConnectionClosed) as closed:
            await asyncio.wait_for(ws.recv(), 5)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 1011
        assert "bug handling a frame" in caplog.text
        await other.send(p.encode(p.Ping(id=7)))
        assert (await _reply_to(other, 7))["t"] == "pong"
    finally:
        await ws.close()
        await other.close()
