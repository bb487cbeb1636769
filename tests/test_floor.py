"""The protocol floor of the peers benchmark (cardhall.bench.floor) speaks enough of the
protocol for a four-seat table: what the peers' load generator needs of it."""

from __future__ import annotations

import asyncio
import sys
from typing import Any

import msgpack
import pytest
import websockets

from cardhall.bench.load import Child, free_port


@pytest.mark.parametrize("sync", [False, True])
async def test_a_table_of_the_floor_takes_turns(sync: bool) -> None:
    port = free_port()
    floor = await asyncio.to_thread(
        Child, "floor", [sys.executable, "-m", "cardhall.bench.floor", "--port", str(port),
                         *(["--sync"] if sync else [])], port, None)
    conns: list[Any] = []
    try:
        url = f"ws://127.0.0.1:{port}/"

        async def ask(ws: Any, msg: dict[str, Any]) -> dict[str, Any]:
            await ws.send(msgpack.packb(msg))
            async with asyncio.timeout(5):
                while (reply := msgpack.unpackb(await ws.recv())).get("re") != msg["id"]:
                    pass
            return dict(reply)

        for _ in range(4):
            ws = await websockets.connect(url, compression=None)
            conns.append(ws)
            assert (await ask(ws, {"t": "hello", "v": 1, "client": "t", "id": 0}))["t"] == (
                "welcome")
        room = (await ask(conns[0], {"t": "create_room", "id": 1}))["room"]
        for seat, ws in enumerate(conns):
            joined = await ask(ws, {"t": "join", "room": room, "id": 2})
            assert joined["seat"] == seat
        async def read(ws: Any) -> dict[str, Any]:
            async with asyncio.timeout(5):
                return dict(msgpack.unpackb(await ws.recv()))

        for ws in conns:  # the table is full: everyone's start update
            assert (await read(ws))["t"] == "update"
        for turn in range(6):  # the turn goes round; each act answered, everyone told
            actor = turn % 4
            await conns[actor].send(msgpack.packb({"t": "act", "room": room, "id": 10 + turn,
                                                   "state_id": 1 + turn, "action": ["end"]}))
            assert await read(conns[actor]) == {"t": "ok", "re": 10 + turn}
            for seat, ws in enumerate(conns):
                update = await read(ws)
                assert update["t"] == "update" and update["state_id"] == 2 + turn
                assert bool(update["delta"].get("legal_actions")) is (seat == (turn + 1) % 4)
        await conns[1].send(msgpack.packb({"t": "act", "room": room, "id": 99, "state_id": 1,
                                           "action": ["end"]}))
        async with asyncio.timeout(5):
            refused = msgpack.unpackb(await conns[1].recv())
        assert refused["t"] == "error" and refused["re"] == 99
    finally:
        for ws in conns:
            await ws.close()
        floor.stop()
