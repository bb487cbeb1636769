"""The protocol floor of the peers benchmark (cardhall.bench.floor) speaks enough of the
protocol for a four-seat table: what the peers' load generator needs of it."""

from __future__ import annotations

import asyncio
import random
import sys
from typing import Any

import msgpack
import pytest
import websockets

from cardhall.bench.procs import Child, free_port
from cardhall.games.skipper import Skipper
from cardhall.protocol import apply_delta


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


async def test_the_engine_floor_plays_skipper_and_keeps_every_view_in_step() -> None:
    """``--game skipper``: each seat's joined view plus the deltas it is sent equal the
    engine's own view of a game replayed with the same seed and actions; an illegal action
    is refused and changes nothing."""
    port = free_port()
    floor = await asyncio.to_thread(
        Child, "floor", [sys.executable, "-m", "cardhall.bench.floor", "--port", str(port),
                         "--game", "skipper"], port, None)
    conns: list[Any] = []
    try:
        url = f"ws://127.0.0.1:{port}/"

        async def read(ws: Any) -> dict[str, Any]:
            async with asyncio.timeout(5):
                return dict(msgpack.unpackb(await ws.recv(), strict_map_key=False))

        async def ask(ws: Any, msg: dict[str, Any]) -> dict[str, Any]:
            await ws.send(msgpack.packb(msg))
            while (reply := await read(ws)).get("re") != msg["id"]:
                pass
            return reply

        for _ in range(4):
            ws = await websockets.connect(url, compression=None)
            conns.append(ws)
            await ask(ws, {"t": "hello", "v": 1, "client": "t", "id": 0})
        room = (await ask(conns[0], {"t": "create_room", "id": 1}))["room"]
        for ws in conns:
            await ask(ws, {"t": "join", "room": room, "id": 2})
        views = [(await read(ws))["view"] for ws in conns]  # the start: full views
        twin = Skipper({"mode": "multi", "seed": int(room[1:])}, 4)  # the floor's seed
        def wire(view: Any) -> Any:  # tuples become lists on the wire
            return msgpack.unpackb(msgpack.packb(view), strict_map_key=False)

        assert views == [wire(twin.view(s)) for s in range(4)]
        rng = random.Random(3)
        bad = await ask(conns[twin.to_act()[0]],
                        {"t": "act", "room": room, "id": 5, "state_id": twin.state_id,
                         "action": ["play", "XX", "S0"]})
        assert bad["t"] == "error" and bad["code"].startswith("action/")
        for n in range(40):
            if twin.over:
                break
            seat = twin.to_act()[0]
            action = rng.choice([a for a in twin.legal_actions(seat) if a[0] != "resign"])
            ok = await ask(conns[seat], {"t": "act", "room": room, "id": 10 + n,
                                         "state_id": twin.state_id, "action": list(action)})
            assert ok == {"t": "ok", "re": 10 + n}
            twin.apply(seat, action)
            for s, ws in enumerate(conns):
                update = await read(ws)
                assert update["t"] == "update" and update["state_id"] == twin.state_id
                views[s] = apply_delta(views[s], update["delta"])
                assert views[s] == wire(twin.view(s))
        assert n > 10
    finally:
        for ws in conns:
            await ws.close()
        floor.stop()


@pytest.mark.parametrize("kind", ["asyncio", "driver"])
async def test_the_echo_floor_answers_each_frame_with_four(kind: str) -> None:
    # Issue #43: `cardhall bench --floor` measures these servers under one load generator.
    from cardhall.bench.floor import echo_window

    port = free_port()
    echo = await asyncio.to_thread(
        Child, f"echo {kind}", [sys.executable, "-m", "cardhall.bench.floor", "--echo", kind,
                                "--port", str(port)], port, None)
    try:
        window = await echo_window(port, echo.pid, connections=4, seconds=0.3, limit=2000)
    finally:
        await asyncio.to_thread(echo.stop)
    assert window["requests"] > 10 and window["us_per_request"] > 0
