"""One client connection (``server/connection.py``), over the wire: the handshake and its
version check, an ``act`` answered as the hello asked, typed replies to bad frames, the frame
size limit (1009), and a connection sending garbage closed while the rooms beside it finish."""

from __future__ import annotations

import asyncio
import random
from typing import Any

import msgpack
import pytest
import websockets

from cardhall import protocol as p
from cardhall.client.bots import play_games
from cardhall.server.app import Server

from ..conftest import ServerFactory

async def raw(url: str, hello: bool = True, act_reply: str | None = None, v: int = 1) -> Any:
    """A raw websockets connection to ``url``, its hello (protocol version ``v``) sent and
    welcome read (``hello``)."""
    ws = await websockets.connect(url, compression=None)
    if hello:
        await ws.send(p.encode(p.Hello(v=v, client="raw", act_reply=act_reply)))
        welcome = p.decode(await ws.recv(), side="server")
        assert isinstance(welcome, p.Welcome) and welcome.v == v
    return ws


async def reply(ws: Any) -> p.Message:
    """The next frame on ``ws`` that is not an update, seat event or ``started``."""
    while True:
        msg = p.decode(await ws.recv(), side="server")
        if not isinstance(msg, (p.Update, p.SeatEvent, p.Started)):
            return msg


async def test_protocol_errors_get_typed_replies(server: Server) -> None:
    ws = await raw(server.url)
    try:
        cases = [
            (b"\xc1", "protocol/bad_frame"),
            (msgpack.packb([1, 2]), "protocol/bad_frame"),
            (msgpack.packb({"t": "fly"}), "protocol/unknown_type"),
            (msgpack.packb({"t": "join", "seat": "x", "room": "r"}), "protocol/bad_type"),
            (msgpack.packb({"t": "act", "room": "r"}), "protocol/missing_field"),
            (msgpack.packb({"t": "ping", "extra": 1}), "protocol/unknown_field"),
            (msgpack.packb({"t": "create_room", "game": "skipper", "seats": 9, "options": {},
                            "private": False}),
             "protocol/bad_value"),
            (msgpack.packb({"t": "hello", "v": 1, "client": "x"}), "protocol/unexpected"),
        ]
        for frame, code in cases:
            await ws.send(frame)
            msg = await reply(ws)
            assert isinstance(msg, p.Error) and msg.code == code, (frame, msg)
        await ws.send("a text frame")
        msg = await reply(ws)
        assert isinstance(msg, p.Error) and msg.code == "protocol/bad_frame"
        await ws.send(p.encode(p.Ping(id=5)))
        pong = await reply(ws)
        assert isinstance(pong, p.Pong) and pong.re == 5
    finally:
        await ws.close()


async def test_handshake_is_required_and_versions_checked(make_server: ServerFactory) -> None:
    server = await make_server(hello_timeout=0.3)
    ws = await raw(server.url, hello=False)
    await ws.send(p.encode(p.Ping(id=1)))
    msg = await reply(ws)
    assert isinstance(msg, p.Error) and msg.code == "protocol/handshake_required"
    await ws.send(msgpack.packb({"t": "hello", "v": 99, "client": "future"}))
    msg = await reply(ws)
    assert isinstance(msg, p.Error) and msg.code == "protocol/version"
    await ws.wait_closed()
    assert ws.close_code == 4002
    silent = await raw(server.url, hello=False)
    await silent.wait_closed()
    assert silent.close_code == 4001


async def test_oversized_frame_closes_with_1009(make_server: ServerFactory) -> None:
    server = await make_server(max_frame=1024)
    ws = await raw(server.url)
    await ws.send(msgpack.packb({"t": "ping", "pad": "x" * 5000}))
    await ws.wait_closed()
    assert ws.close_code == 1009


async def test_garbage_connection_is_closed_and_other_rooms_finish(
        make_server: ServerFactory) -> None:
    server = await make_server(max_bad_frames=1000)
    games = asyncio.get_running_loop().create_task(
        play_games([server.url], "skipper", "multi", 4, 2, "greedy", seed=1, timeout=120))
    ws = await raw(server.url)
    rng = random.Random(0)
    errors = 0
    for i in range(1001):
        frame = rng.randbytes(rng.randrange(1, 64)) if i % 2 else msgpack.packb(
            {"t": rng.choice(["act", "join", "zzz"]), "room": i})
        try:
            await ws.send(frame)
        except websockets.ConnectionClosed:
            break
    try:
        async with asyncio.timeout(30):  # a server that never closes fails, not hangs
            while True:
                msg = p.decode(await ws.recv(), side="server")
                errors += isinstance(msg, p.Error)
    except websockets.ConnectionClosed:
        pass
    assert ws.close_code == 4000 and errors >= 1000
    records = await games
    assert len(records) == 2 and all(r["outcome"] for r in records)


@pytest.mark.parametrize(("v", "act_reply"), [(1, None), (1, "ok"), (1, "update"),
                                              (2, None), (2, "ok"), (2, "update")])
async def test_an_act_is_answered_as_the_hello_asked(server: Server, v: int,
                                                     act_reply: str | None) -> None:
    # hello.act_reply "update" (version 2's default): the acting seat's update carries the
    # act's id and no ok comes; "ok" (version 1's default): an ok, then the update. Errors
    # are error replies either way. A version 2 delta has no state_id; version 1's has.
    ws = await raw(server.url, act_reply=act_reply, v=v)
    try:
        await ws.send(p.encode(p.CreateRoom(game="skipper", mode="solo", seats=1, id=1)))
        room = (await reply(ws)).room  # type: ignore[attr-defined]
        await ws.send(p.encode(p.Join(room=room, id=2)))
        assert isinstance(await reply(ws), p.Joined)  # one seat: the game starts at once
        await ws.send(p.encode(p.GetView(room=room, id=9)))
        async with asyncio.timeout(10):
            while not isinstance(msg := p.decode(await ws.recv(), side="server"), p.Update) or (
                    msg.re != 9):
                pass
        view = msg.view
        assert view is not None and view["room"]["status"] == "playing"
        sid = view["state_id"]
        action = next(a for a in view["legal_actions"] if a[0] != "resign")
        await ws.send(p.encode(p.Act(room=room, state_id=sid, action=action, id=3)))
        async with asyncio.timeout(10):
            first = p.decode(await ws.recv(), side="server")
        if act_reply == "update" or (v == 2 and act_reply is None):
            assert isinstance(first, p.Update) and first.re == 3
            update = first
        else:
            assert isinstance(first, p.Ok) and first.re == 3
            update = p.decode(await ws.recv(), side="server")  # type: ignore[assignment]
            assert isinstance(update, p.Update) and update.re is None
        assert update.state_id == sid + 1 and update.delta is not None
        assert ("state_id" in update.delta) == (v == 1)
        await ws.send(p.encode(p.Act(room=room, state_id=sid, action=action, id=4)))
        refused = p.decode(await ws.recv(), side="server")
        assert isinstance(refused, p.Error) and refused.re == 4
        assert refused.code == "action/stale_state"
        await ws.send(p.encode(p.Ping(id=5)))  # nothing else was queued ahead of the pong
        assert isinstance(p.decode(await ws.recv(), side="server"), p.Pong)
    finally:
        await ws.close()
