"""The bench's server children (``bench/servers.py``): the echo baseline echoes every frame,
the Cardhall child speaks the protocol with the bench's settings (abuse limits off, the
websockets settings ``cardhall serve`` uses), and a stopped child frees its port."""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path

import pytest
import websockets

from cardhall import protocol as p
from cardhall.bench.config import BenchConfig
from cardhall.bench.procs import free_port
from cardhall.bench.servers import (
    MAX_FRAME, bench_settings, sqlite_options, start_cardhall, start_echo)


def test_bench_settings_turn_the_per_client_limits_off() -> None:
    """Every bench client comes from 127.0.0.1 at loopback speed: no message rate, no cap of
    connections per address or of rooms per minute; finished rooms go after 1 s; frames up
    to :data:`MAX_FRAME`, no compression, on the port asked for."""
    s = bench_settings(4321)
    assert (s.host, s.port, s.max_frame, s.compression) == ("127.0.0.1", 4321, MAX_FRAME, False)
    assert s.msg_rate is None and s.max_connections_per_address is None
    assert s.rooms_per_minute is None and s.rooms_per_minute_per_address is None
    assert s.finished_ttl == 1.0


def test_sqlite_options_follow_the_config(tmp_path: Path) -> None:
    cfg = BenchConfig(sqlite_commit="tick", sqlite_fsync="always")
    assert sqlite_options(tmp_path / "d.db", cfg) == (
        "--data", str(tmp_path / "d.db"), "--commit", "tick", "--fsync", "always")


async def test_the_echo_child_echoes_and_frees_its_port_when_stopped() -> None:
    echo = await asyncio.to_thread(start_echo, None)
    try:
        async with websockets.connect(echo.url, compression=None) as ws:
            for frame in (b"\x81\xa1t\xa4ping", b"x" * 1000):
                await ws.send(frame)
                assert await asyncio.wait_for(ws.recv(), 5) == frame
    finally:
        await asyncio.to_thread(echo.stop)
    assert echo.proc.poll() is not None
    with pytest.raises(OSError):
        await asyncio.open_connection("127.0.0.1", echo.port)


async def test_the_cardhall_child_welcomes_and_plays_on_its_port(tmp_path: Path) -> None:
    """``start_cardhall`` on a given port with the SQLite options: a hello is welcomed, a
    room is created on the bench server, and the data file is the one named."""
    port = free_port()
    data = tmp_path / "bench.db"
    server = await asyncio.to_thread(start_cardhall, None, tmp_path / "server.log", None, None,
                                     sqlite_options(data, BenchConfig()), port)
    try:
        assert server.port == port
        async with websockets.connect(server.url, compression=None) as ws:
            await ws.send(p.encode(p.Hello(v=1, client="bench-test")))
            assert isinstance(p.decode(await ws.recv(), side="server"), p.Welcome)
            await ws.send(p.encode(p.CreateRoom(game="skipper", mode="multi", seats=2, id=1)))
            created = p.decode(await asyncio.wait_for(ws.recv(), 5), side="server")
            assert isinstance(created, p.RoomCreated), created
        assert data.is_file()
    finally:
        with contextlib.suppress(Exception):
            await asyncio.to_thread(server.stop)
