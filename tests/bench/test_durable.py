"""The SQLite store's bench figures (``bench/durable.py``): a bench server on a fresh data
file plays a few tables, is killed with -9 mid-game and restarted on the same file and port,
and every figure comes out: file growth per 1,000 actions, time to listen, rooms restored."""

from __future__ import annotations

from pathlib import Path

from cardhall.bench.config import BenchConfig
from cardhall.bench.durable import bench_restart


async def test_a_killed_bench_server_restarts_with_every_room_and_the_growth_is_measured(
        tmp_path: Path) -> None:
    said: list[str] = []
    cfg = BenchConfig(restart_rooms=3, throughput_seconds=1.0)
    out = await bench_restart(cfg, tmp_path, None, said.append)
    assert out["rooms"] == 3 and out["actions"] > 0, out
    assert out["entries_per_room"] > 0
    assert out["bytes_per_1000_actions"] > 0 and out["entry_bytes_per_1000_actions"] > 0
    # Every room was in play at the kill (finished rooms are kept: none is deleted), and
    # the restarted server loaded them all in the background.
    assert out["rooms_restored"] is not None and out["rooms_restored"] >= 3, out
    assert out["to_listening_s"] > 0 and out["restore_s"] is not None
    assert any("killed with -9" in line for line in said), said
    assert (tmp_path / "restart.db").is_file()
    assert "rooms_restored" in (tmp_path / "restart-2.log").read_text()
