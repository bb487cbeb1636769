"""The client's connection (``client/connection.py``): a seat the server dropped is resumed
when a request is refused ``room/not_seated``, every request fails with ``ConnectionLost``
when the server goes away (no future left unretrieved), stale updates are ignored and a gap
fetches the view; against a real server (every store) or a bare WebSocket server."""

from __future__ import annotations

import asyncio
import contextlib
import gc
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import pytest
import websockets
from websockets.exceptions import ConnectionClosed

from cardhall import protocol as p
from cardhall.client.client import Client, ConnectionLost
from cardhall.server.app import Server

from ..conftest import serving
from ..room_harness import Flaky, Hiccup


async def test_a_seat_dropped_while_connected_is_resumed_on_not_seated(server: Server) -> None:
    """The server takes the client's connection for gone and holds its seat for the grace
    window, but the client hears nothing of it (the notice was lost). Its next action is
    refused with ``room/not_seated``; the client library resumes the seat with its token
    and sends the action again, which is applied."""
    async with Client(server.url) as c:
        room_id = (await c.create_room("skipper", seats=1,
                                       options={"seed": 3})).room
        seat = (await c.join(room_id)).seat
        room = server.lobby.rooms[room_id]
        conn = server.sessions[c.session_id]
        await room.submit(lambda: room.apply(room.table.drop(conn)))
        holder = room.table.seats[seat or 0]
        assert holder is not None and holder.conn is None and holder.grace_until
        view = c.views[room_id]
        assert view["legal_actions"]
        await c.act(room_id, view["legal_actions"][0], view["state_id"])
        assert c.seat_resumes == 1
        holder = room.table.seats[seat or 0]
        assert holder is not None and holder.conn is conn and holder.grace_until is None
        assert room.table.game.state_id == view["state_id"] + 1


async def test_a_resume_refused_for_now_is_asked_again() -> None:
    """The server takes the client for gone (its connection open) and says so; the client
    resumes its seat while the store refuses the seat's write once (a Sentinel failover):
    the resume is answered ``server/unavailable``, asked again, and the seat is back
    (before, the seat was given up as lost)."""
    store = Flaky(creates=0, seats=0)
    async with serving(lambda: store) as make:
        server = await make()
        async with Client(server.url) as c:
            room_id = (await c.create_room("skipper", seats=1, options={"seed": 3})).room
            await c.join(room_id)
            room = server.lobby.rooms[room_id]
            conn = server.sessions[c.session_id]
            await room.submit(lambda: room.apply(room.table.drop(conn)))
            store.seats = 1
            conn.send(p.SeatEvent(room=room_id, seat=0, event="dropped"))
            async with asyncio.timeout(10):
                while c.seat_resumes == 0:
                    await asyncio.sleep(0.01)
            assert store.seats == 0  # the first resume was refused
            holder = room.table.seats[0]
            assert holder is not None and holder.conn is conn and holder.grace_until is None


async def test_a_spectate_refused_for_now_after_a_reconnection_is_asked_again(
        server: Server, monkeypatch: pytest.MonkeyPatch) -> None:
    """Dropped, the client reconnects and watches its room again; the first ``spectate``
    is refused ``server/unavailable`` (a room moving between servers): it is asked again,
    and the room is not reported lost (before, it was)."""
    refusal = Hiccup(monkeypatch, p.Spectate)
    events: list[tuple[str, dict[str, Any]]] = []
    async with Client(server.url) as host, \
            Client(server.url, on_connection=lambda e, f: events.append((e, f))) as c:
        room_id = (await host.create_room("skipper", mode="multi", seats=2)).room
        await c.spectate(room_id)
        refusal.before.update(server.sessions)
        await c.drop()
        while c._ready.is_set():  # the reader sees the drop; the reconnection starts
            await asyncio.sleep(0.001)
        await c.get_view(room_id)  # waits for the recovery
        assert refusal.hits == 1
        assert ("back", {"url": server.url, "lost_rooms": []}) in events
        assert room_id in c.spectating


async def test_a_resume_left_unanswered_after_a_reconnection_is_asked_again(
        server: Server, monkeypatch: pytest.MonkeyPatch) -> None:
    """Dropped, the client reconnects and resumes its seat; the first ``resume`` is never
    answered (sent to a room's server that stalled while another took the room over). After
    ``resume_timeout`` the client asks again, the seat is back on the new connection, and
    the room is not reported lost (before, it waited the whole ``request_timeout``, and the
    reconnection's time was spent)."""
    lost = Hiccup(monkeypatch, p.Resume, unanswered=True)
    events: list[tuple[str, dict[str, Any]]] = []
    async with Client(server.url, resume_timeout=0.3,
                      on_connection=lambda e, f: events.append((e, f))) as c:
        room_id = (await c.create_room("skipper", seats=1, options={"seed": 3})).room
        await c.join(room_id)
        lost.before.update(server.sessions)
        await c.drop()
        while c._ready.is_set():  # the reader sees the drop; the reconnection starts
            await asyncio.sleep(0.001)
        async with asyncio.timeout(10):
            await c.get_view(room_id)  # waits for the recovery
        assert lost.hits == 1
        assert ("back", {"url": server.url, "lost_rooms": []}) in events
        holder = server.lobby.rooms[room_id].table.seats[0]
        assert holder is not None and holder.conn is server.sessions[c.session_id]


@contextlib.asynccontextmanager
async def mute_server(on_request: Callable[[Any, bytes], Awaitable[None]] | None = None
                      ) -> AsyncIterator[str]:
    """A bare WebSocket server on 127.0.0.1 that welcomes a client and then answers nothing
    (``on_request(ws, frame)`` is awaited for each frame after the hello); yields its URL."""

    async def handler(ws: Any) -> None:
        hello = p.decode(await ws.recv(), side="client")
        await ws.send(p.encode(p.Welcome(v=p.PROTOCOL_VERSION, server="mute", session="s1",
                                         max_frame=65536, re=p.reply_id(hello))))
        with contextlib.suppress(ConnectionClosed):
            async for frame in ws:
                if on_request is not None:
                    await on_request(ws, frame)

    async with websockets.serve(handler, "127.0.0.1", 0, compression=None) as srv:
        yield f"ws://127.0.0.1:{srv.sockets[0].getsockname()[1]}"


async def test_no_future_exception_is_left_unretrieved_when_the_server_goes_away() -> None:
    """Issue #35 defect 7: the server stops reading (its socket buffers fill up, so the
    client's later requests wait in ``send``), then drops the connection. Every request
    fails with ConnectionLost, and asyncio logs no "Future exception was never retrieved"
    (the futures of the requests still in ``send`` were failed, then never awaited)."""

    async def stall(ws: Any, frame: bytes) -> None:
        ws.transport.pause_reading()
        await asyncio.sleep(1.0)
        ws.transport.abort()

    loop = asyncio.get_running_loop()
    reported: list[dict[str, Any]] = []
    loop.set_exception_handler(lambda _, context: reported.append(context))
    big = {"x": "a" * 60_000}  # 100 of them: more than the socket buffers hold
    try:
        async with mute_server(stall) as url:
            client = Client(url, reconnect=False, max_frame=None)
            await client.connect()
            results = await asyncio.gather(
                *(client.request(p.CreateRoom(game="skipper", seats=1, options=big))
                  for _ in range(100)), return_exceptions=True)
            await client.close()
        assert all(isinstance(r, ConnectionLost) for r in results)
        del results
        gc.collect()
        await asyncio.sleep(0)
    finally:
        loop.set_exception_handler(None)
    assert [c.get("message") for c in reported] == []


async def test_stale_updates_are_ignored_and_a_gap_fetches_the_view() -> None:
    """Issue #35 defect 3, the client's part: an update older than the view (a stale frame
    of a woken owner) is ignored; one that skips states makes the client fetch the full
    view (protocol/README.md, "Stale frames and gaps")."""
    asked: list[int] = []

    def view(sid: int, cards: list[str]) -> dict[str, Any]:
        return {"state_id": sid, "hand": cards, "legal_actions": []}

    async def serve(ws: Any, frame: bytes) -> None:
        msg = p.decode(frame, side="client")
        assert isinstance(msg, p.GetView)
        asked.append(msg.id or 0)
        if len(asked) == 1:
            await ws.send(p.encode(p.Update(room="r", state_id=5, view=view(5, ["AS"]),
                                            events=[], re=msg.id)))
            await ws.send(p.encode(p.Update(room="r", state_id=4, events=[],
                                            delta={"state_id": 4, "hand": ["KD"]})))
            await ws.send(p.encode(p.Update(room="r", state_id=6, events=[],
                                            delta={"state_id": 6, "hand": ["2C"]})))
            await ws.send(p.encode(p.Update(room="r", state_id=8, events=[],
                                            delta={"state_id": 8, "hand": ["3C"]})))
        else:
            await ws.send(p.encode(p.Update(room="r", state_id=8, view=view(8, ["3C", "4C"]),
                                            events=[], re=msg.id)))

    async with mute_server(serve) as url:
        async with Client(url) as client:
            await client.get_view("r")
            for _ in range(100):
                if len(asked) == 2 and client.views["r"]["state_id"] == 8:
                    break
                await asyncio.sleep(0.02)
            assert client.stale_updates == 1  # the state-4 delta on a state-5 view
            assert len(asked) == 2  # the gap (6 -> 8) fetched the view once
            assert client.views["r"] == view(8, ["3C", "4C"])
