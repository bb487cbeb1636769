"""The bench's load generator (``bench/loadgen.py``): nearest-rank percentiles, paced slots
that keep their phase, the figures of a phase, and real tables of four lean clients playing
Skipper rooms on a live server (paced, paused, measured, closed)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from cardhall.bench.config import BenchConfig
from cardhall.bench.loadgen import Stats, close_load, next_slot, open_cardhall, percentile
from cardhall.server.app import Server
from cardhall.server.config import Settings
from cardhall.server.store.memory_store import MemoryStore


def test_percentile_is_the_nearest_rank_of_sorted_values() -> None:
    values = list(range(1, 101))  # 1..100
    assert percentile(values, 0.5) == 51.0
    assert percentile(values, 0.99) == 100.0
    assert percentile(values, 1.0) == 100.0  # never past the last
    assert percentile([7], 0.99) == 7.0
    assert percentile([], 0.5) is None


def test_a_late_table_keeps_its_phase_and_one_far_behind_starts_again_from_now() -> None:
    assert next_slot(10.0, 10.3, 0.5) == 10.5  # replied late: the next slot stays on phase
    assert next_slot(10.0, 10.7, 0.5) == 10.7  # more than an interval behind: from now
    assert next_slot(10.0, 10.0, 0.0) == 10.0  # closed loop


def test_stats_merge_and_give_the_phases_figures() -> None:
    a = Stats(rtts=[0.001, 0.003], actions=2, update_frames=4, update_sizes=[100, 300],
              frames_in=6, bytes_in=600, games=1)
    b = Stats(rtts=[0.002], actions=1, refused=1, update_frames=2, update_sizes=[200],
              frames_in=3, bytes_in=300)
    a.merge(b)
    fig = a.figures(2.0)
    assert (fig["actions"], fig["refused"], fig["games"]) == (3, 1, 1)
    assert fig["rtt_p50_us"] == pytest.approx(2000.0) and fig["rtt_max_us"] == pytest.approx(3000.0)
    assert fig["rtt_samples"] == 3
    assert fig["actions_per_s"] == 1.5 and fig["update_frames_per_s"] == 3.0
    assert fig["update_bytes_p50"] == 200.0
    assert fig["bytes_per_action"] == 300.0 and fig["frames_per_action"] == 3.0
    assert Stats().figures(0.0)["bytes_per_action"] is None


@pytest.fixture
async def live() -> AsyncIterator[Server]:
    """A server with the bench's way: no per-client limits (every client is 127.0.0.1)."""
    server = Server(Settings(host="127.0.0.1", port=0, msg_rate=None,
                             max_connections_per_address=None, rooms_per_minute=None,
                             rooms_per_minute_per_address=None), MemoryStore())
    await server.start()
    try:
        yield server
    finally:
        await server.stop()


@pytest.mark.parametrize("protocol", [1, 2])
async def test_tables_of_four_play_rooms_on_a_live_server_and_stop_when_paused(
        live: Server, protocol: int) -> None:
    # Both protocol versions: version 2's accepted acts are counted from the actor's update
    # (no ok), and each action costs the table a frame fewer.
    cfg = BenchConfig(rooms=2, rate=100.0, protocol=protocol)
    load, out = await open_cardhall(live.url, None, cfg)
    try:
        assert out["rooms"] == 2 and len(load.tables) == 2 and out["protocol"] == protocol
        assert len(live.connections) == 8 and len(live.lobby.rooms) == 2
        assert {c.wire for c in live.connections} == {protocol}
        load.measure()
        await asyncio.sleep(1.0)
        load.pause()
        await asyncio.sleep(0.2)  # a request in flight is answered
        stats = load.take()
        assert stats.actions > 10 and stats.refused == 0, load.errors
        assert stats.update_frames >= stats.actions  # every seat of a table is updated
        assert len(stats.rtts) == stats.actions and min(stats.rtts) > 0
        assert stats.actions / 1.0 < 2 * cfg.rate  # paced, not a closed loop
        frames = stats.frames_in / stats.actions  # 4 updates, and version 1's ok
        assert 3.5 + protocol % 2 <= frames < 4.5 + protocol % 2, frames
        load.measure()
        await asyncio.sleep(0.3)
        assert load.take().actions == 0  # paused: nothing is sent
        assert not load.errors
    finally:
        await close_load(load)
    await asyncio.sleep(0.2)
    assert not live.connections
