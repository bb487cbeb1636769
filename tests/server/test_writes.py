"""How frames leave the server: in order, at once when the socket takes them, the acting
seat first."""

from __future__ import annotations

import asyncio
import copy

import msgpack
import pytest
import websockets

from cardhall import protocol as p
from cardhall.client.client import Client
from cardhall.server.app import Server
from cardhall.server.connection import Connection

from ..conftest import ServerFactory
from ..room_harness import started_room

#: The write path does not depend on the store.
MEMORY_ONLY = pytest.mark.parametrize("store_kind", ["memory"])


async def test_the_acting_seat_gets_ok_and_its_update_first_in_one_write() -> None:
    room, game, seats, log = await started_room(4, {"seed": 5, "first_seat": 2})
    action = game.legal_actions(2)[0]
    await room.play(seats[2], p.Act(room="r1", state_id=game.state_id,  # type: ignore[arg-type]
                                   action=list(action), id=7))
    assert log[0] == ("seat2", ["ok", "update"])
    assert sorted(name for name, _ in log[1:]) == ["seat0", "seat1", "seat3"]
    assert all(types == ["update"] for _, types in log[1:])


async def test_the_acting_seat_s_reply_is_pushed_before_the_others_are_built() -> None:
    # Issue #43: the actor's ok and update are written (pushed) as soon as they are queued,
    # not at the end of the callback that read its act, after every other seat's frame.
    room, game, seats, log = await started_room(4, {"seed": 5, "first_seat": 2})
    pushes: list[int] = []
    seats[2].push = lambda: pushes.append(len(log))  # type: ignore[method-assign]
    action = game.legal_actions(2)[0]
    await room.play(seats[2], p.Act(room="r1", state_id=game.state_id,  # type: ignore[arg-type]
                                   action=list(action), id=7))
    assert pushes == [1]  # right after its own write, before seat0/1/3 got theirs
    assert len(log) == 4


def _server_side(server: Server, client: Client) -> Connection:
    conn = server.sessions[client.session_id]
    assert isinstance(conn, Connection)
    return conn


@MEMORY_ONLY
async def test_frames_leave_in_one_write_per_socket_and_loop_pass(
        make_server: ServerFactory) -> None:
    # Issue #43: the ok and the acting seat's update of an act leave in one writelines.
    server = await make_server()
    async with Client(server.url, act_reply="ok") as c:
        room = (await c.create_room("skipper", options={"seed": 3})).room
        await c.join(room)
        await asyncio.sleep(0.05)
        conn = _server_side(server, c)
        transport = conn.ws.transport
        assert transport is not None
        writes: list[int] = []
        real = transport.writelines

        def spy(data: list[bytes]) -> None:
            writes.append(len(data))
            real(data)

        transport.writelines = spy  # type: ignore[method-assign]
        for _ in range(5):
            await asyncio.sleep(0.02)
            view = c.views[room]
            await c.act(room, view["legal_actions"][0], view["state_id"])
        await asyncio.sleep(0.05)
        assert c.views[room]["state_id"] == 5
        # one write per act: its ok and update (two headers and two payloads), never one
        # write per frame
        assert writes == [4] * 5


@MEMORY_ONLY
async def test_a_paused_socket_queues_frames_and_later_ones_do_not_overtake(
        make_server: ServerFactory) -> None:
    server = await make_server()
    async with websockets.connect(server.url) as ws:
        await ws.send(msgpack.packb({"t": "hello", "v": p.PROTOCOL_VERSION, "client": "t"}))
        welcome = msgpack.unpackb(await ws.recv())
        conn = server.sessions[welcome["session"]]
        assert isinstance(conn, Connection)
        frames = [p.encode(p.Pong(re=i)) for i in range(6)]
        conn.ws.pause_writing()  # what the transport calls when its buffer is full
        conn.send_raw(*frames[:2])
        conn.send_raw(frames[2])
        await asyncio.sleep(0.02)  # a loop pass: the flusher keeps them while paused
        assert conn._pending == sum(map(len, frames[:3]))
        conn.ws.resume_writing()
        assert conn._pending == 0
        conn.send_raw(frames[3])
        conn.send_raw(*frames[4:])
        got = [msgpack.unpackb(await asyncio.wait_for(ws.recv(), 5))["re"] for _ in range(6)]
        assert got == list(range(6))


@pytest.mark.parametrize("size", [0, 1, 125, 126, 127, 65535, 65536, 70000])
def test_binary_header_is_what_websockets_serializes(size: int) -> None:
    # The plain write path puts binary_header before the payload instead of serializing a
    # websockets Frame: the bytes must be the same.
    from websockets.frames import Frame, Opcode

    from cardhall.server.connection import binary_header

    data = bytes(range(256)) * (size // 256) + bytes(size % 256)
    assert binary_header(size) + data == Frame(Opcode.BINARY, data).serialize(
        mask=False, extensions=[])


@pytest.mark.parametrize("compression", [False, True])
async def test_updates_arrive_whole_with_and_without_compression(
        make_server: ServerFactory, compression: bool) -> None:
    # Without compression frames take the plain header path; with permessage-deflate they
    # go through websockets' protocol object (extensions): either way a client reads
    # every frame in order, and the view it keeps from them is the server's.
    server = await make_server(compression=compression)
    ws = await websockets.connect(server.url, compression="deflate" if compression else None)
    try:
        async def send(msg: p.Message) -> None:
            await ws.send(p.encode(msg))

        async def until_reply(re: int) -> p.Message:
            async with asyncio.timeout(10):
                while True:
                    msg = p.decode(await ws.recv(), side="server")
                    if isinstance(msg, p.Joined) or (isinstance(msg, p.Update) and msg.view):
                        view.clear()
                        view.update(copy.deepcopy(msg.view))
                    elif isinstance(msg, p.Update):
                        p.apply_delta(view, msg.delta)
                    if getattr(msg, "re", None) == re:
                        return msg

        view: dict = {}
        await send(p.Hello(v=1, client="raw", id=0))
        await until_reply(0)
        assert bool(_server_side_of(server).ws.protocol.extensions) is compression
        # A fixed deal: about one random deal in 600 ends before the 20 actions below
        # (seed 781 after 13), and the test then failed on StopIteration.
        await send(p.CreateRoom(game="skipper", mode="solo", seats=1, options={"seed": 1}, id=1))
        room = (await until_reply(1)).room  # type: ignore[attr-defined]
        await send(p.Join(room=room, id=2))
        await until_reply(2)
        await send(p.GetView(room=room, id=3))
        await until_reply(3)
        first = view["state_id"]
        for n in range(4, 24):
            action = next(a for a in view["legal_actions"] if a[0] != "resign")
            await send(p.Act(room=room, state_id=view["state_id"], action=action, id=n))
            await until_reply(n)
            await send(p.Ping(id=1000 + n))  # the update follows the ok: wait for both
            await until_reply(1000 + n)
        kept = copy.deepcopy(view)
        await send(p.GetView(room=room, id=99))
        assert (await until_reply(99)).view == kept  # type: ignore[attr-defined]
        assert kept["state_id"] == first + 20
    finally:
        await ws.close()


def _server_side_of(server: Server) -> Connection:
    (conn,) = server.sessions.values()
    assert isinstance(conn, Connection)
    return conn
