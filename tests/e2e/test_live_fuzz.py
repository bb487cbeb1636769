"""Live fuzzing: random and mutated frames over real connections to a running server.

The decoder alone is fuzzed in ``test_protocol_fuzz.py`` (hypothesis, atheris); here the
frames go through the whole server (websockets, limits, handshake, dispatch, rooms) while a
control game of four bots plays beside them. Every frame is followed by a ``ping`` barrier,
so everything the server answered to that frame is known. Checked: the server never
crashes or logs a bug, every frame the reference decoder refuses is answered with that
error code (or the connection is closed with a documented close code), and the control game
finishes. Seeded and bounded (frame count and time).
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import AsyncIterator
from typing import Any

import msgpack
import pytest
import websockets
from cardhall import protocol as p
from cardhall.client.bots import play_games
from cardhall.client.client import Client
from cardhall.server.app import Server
from cardhall.server.config import Settings

MAX_FRAME = 4096
FRAMES_PER_WORKER = 350
WORKERS = 3

#: Messages the server sends on its own (not a reply to the frame just sent).
UNSOLICITED = (p.Update, p.SeatEvent, p.GameOver, p.Started, p.Left)


@pytest.fixture
async def fuzz_server() -> AsyncIterator[Server]:
    """A server with a small frame limit and no rate limits (the fuzzer waits for each
    reply; the limits have their own tests)."""
    server = Server(Settings(host="127.0.0.1", port=0, max_frame=MAX_FRAME, msg_rate=None,
                             rooms_per_minute=None, max_bad_frames=60))
    await server.start()
    yield server
    await server.stop()


def corpus(rooms: list[str]) -> list[dict[str, Any]]:
    """Valid client messages as maps, to mutate."""
    room = rooms[0]
    return [
        {"t": "hello", "v": 1, "client": "fuzz", "id": 1},
        {"t": "list_rooms", "id": 2},
        {"t": "list_rooms", "game": "skipper"},
        {"t": "create_room", "game": "skipper", "seats": 2, "options": {"turn_limit": 3},
         "private": False, "mode": "multi", "id": "c"},
        {"t": "create_room", "game": "shop", "seats": 1, "options": {}, "private": True},
        {"t": "join", "room": room, "id": 5},
        {"t": "join", "code": "ABCDEF", "seat": 1},
        {"t": "quick_join", "game": "skipper", "mode": "race", "seats": 2, "id": 6},
        {"t": "spectate", "room": rooms[-1], "id": 7},
        {"t": "leave", "room": room, "id": 8},
        {"t": "start", "room": room, "id": 9},
        {"t": "resume", "room": room, "token": "x" * 32, "id": 10},
        {"t": "act", "room": room, "state_id": 0, "action": ["end"], "id": 11},
        {"t": "act", "room": rooms[-1], "state_id": 3, "action": ["play", "5D", "D"]},
        {"t": "get_view", "room": room, "id": 12},
        {"t": "ping", "id": 13},
    ]


def random_value(rng: random.Random, depth: int = 0) -> Any:
    """Any msgpack value, sometimes nested, long or out of range."""
    kind = rng.randrange(12 if depth < 4 else 8)
    if kind == 0:
        return None
    if kind == 1:
        return rng.random() < 0.5
    if kind == 2:
        return rng.choice([0, -1, 1, 5, 2**31, 2**53, 2**63 - 1, -(2**63), 2**64 - 1])
    if kind == 3:
        return rng.uniform(-1e9, 1e9)
    if kind == 4:
        return "".join(rng.choice("abcAB09/_-é\x00") for _ in range(rng.choice([0, 1, 8, 70])))
    if kind == 5:
        return rng.randbytes(rng.randrange(0, 16))
    if kind == 6:
        return rng.choice(["hello", "act", "join", "skipper", "multi", "5D", "end", ""])
    if kind == 7:
        return float("nan")
    if kind in (8, 9):
        return [random_value(rng, depth + 1) for _ in range(rng.randrange(0, 4))]
    return {rng.choice(["t", "id", "room", "x", "v", "seat"]): random_value(rng, depth + 1)
            for _ in range(rng.randrange(0, 4))}


def mutate(rng: random.Random, base: dict[str, Any], other: bytes) -> bytes | str:
    """One fuzzed frame from ``base`` (a valid message map)."""
    msg = dict(base)
    kind = rng.randrange(12)
    if kind == 0:
        return rng.randbytes(rng.randrange(1, 80))
    if kind == 1:
        return "text frame " + str(rng.random())
    if kind == 2:  # drop a field
        if len(msg) > 1:
            msg.pop(rng.choice([k for k in msg if k != "t"] or ["t"]))
    elif kind == 3:  # add a field
        msg[rng.choice(["seat", "token", "zz", "id", "v"])] = random_value(rng)
    elif kind == 4:  # change a value's type or range
        key = rng.choice(list(msg))
        msg[key] = random_value(rng)
    elif kind == 5:  # deep nesting in game data
        deep: Any = ["end"]
        for _ in range(rng.choice([5, 31, 40])):
            deep = [deep]
        msg["action" if msg.get("t") == "act" else "options"] = deep
    elif kind == 6:  # oversized
        msg["pad"] = "x" * (MAX_FRAME + rng.randrange(1, 200))
    elif kind == 7:  # a type tag of the other side, or unknown
        msg["t"] = rng.choice(["welcome", "update", "error", "zzz", "", 7])
    data = msgpack.packb(msg, use_bin_type=True)
    if kind == 8:  # flip bits
        buf = bytearray(data)
        for _ in range(rng.randrange(1, 4)):
            i = rng.randrange(len(buf))
            buf[i] ^= 1 << rng.randrange(8)
        return bytes(buf)
    if kind == 9:  # truncate, or trailing bytes
        return data[:rng.randrange(len(data))] if rng.random() < 0.5 else data + b"\x00"
    if kind == 10:  # splice two frames
        return data[:rng.randrange(len(data))] + other[rng.randrange(len(other)):]
    return data


def expected(frame: bytes | str) -> p.ProtocolError | p.Message:
    """What the reference decoder makes of ``frame``."""
    try:
        return p.decode(frame, side="client", max_size=MAX_FRAME)
    except p.ProtocolError as exc:
        return exc


async def connect(url: str) -> Any:
    ws = await websockets.connect(url, compression=None, max_size=None)
    await ws.send(p.encode(p.Hello(v=1, client="fuzz")))
    assert isinstance(p.decode(await ws.recv(), side="server"), p.Welcome)
    return ws


async def worker(url: str, seed: int, rooms: list[str], stats: dict[str, int]) -> None:
    """Send FRAMES_PER_WORKER fuzzed frames, each followed by a ping barrier; check replies."""
    rng = random.Random(seed)
    base = corpus(rooms)
    ws = await connect(url)
    barrier = 10_000 * (seed + 1)
    try:
        for n in range(FRAMES_PER_WORKER):
            msg = rng.choice(base)
            frame = mutate(rng, msg, msgpack.packb(rng.choice(base)))
            want = expected(frame)
            barrier += 1
            got: list[p.Message] = []
            try:
                await ws.send(frame)
                await ws.send(p.encode(p.Ping(id=barrier)))
                async with asyncio.timeout(5):
                    while True:
                        reply = p.decode(await ws.recv(), side="server")
                        if isinstance(reply, p.Pong) and reply.re == barrier:
                            break
                        got.append(reply)
            except websockets.ConnectionClosed:
                code = ws.close_code
                assert code in p.CLOSE_CODES and code not in (1011,), (code, frame[:80])
                if isinstance(want, p.ProtocolError) and want.close_code is not None:
                    assert code == want.close_code, (code, want)
                else:
                    assert code == 4000, (code, frame[:80], want)  # too many bad frames
                stats[f"close {code}"] = stats.get(f"close {code}", 0) + 1
                ws = await connect(url)
                continue
            replies = [m for m in got if not (isinstance(m, UNSOLICITED)
                                              and getattr(m, "re", None) is None)]
            assert not any(isinstance(m, p.Error) and m.code == "server/internal"
                           for m in got), (frame[:80], got)
            if isinstance(want, p.ProtocolError):
                errors = [m for m in replies if isinstance(m, p.Error)]
                assert errors and errors[0].code == want.code, (frame[:80], want, got)
                stats["bad"] = stats.get("bad", 0) + 1
            else:
                stats["valid"] = stats.get("valid", 0) + 1
    finally:
        await ws.close()


@pytest.mark.slow
async def test_random_and_mutated_frames_never_hurt_the_server(
        fuzz_server: Server, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING)
    url = fuzz_server.url
    async with Client(url) as host:
        waiting = (await host.create_room("skipper", mode="multi", seats=3)).room
        running = (await host.create_room("skipper", mode="race", seats=2)).room
        await host.join(running)
        await host.start(running)  # a bot takes the other seat; a spectator can watch
        control = asyncio.get_running_loop().create_task(
            play_games([url], "skipper", "multi", 4, 1, "greedy", seed=3, timeout=90))
        stats: dict[str, int] = {}
        async with asyncio.timeout(90):
            await asyncio.gather(*(worker(url, seed, [waiting, running], stats)
                                   for seed in range(WORKERS)))
            records = await control
    assert len(records) == 1 and records[0]["outcome"]
    assert stats.get("bad", 0) > WORKERS * FRAMES_PER_WORKER // 3
    assert stats.get("valid", 0) > 20
    # The server is still up and answers, and it logged no bug.
    async with Client(url) as after:
        assert await after.ping() >= 0
    bugs = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert not bugs, [r.getMessage() for r in bugs]
    print(f"\nlive fuzz: {stats}")
