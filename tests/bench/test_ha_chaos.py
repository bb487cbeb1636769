"""``cardhall chaos`` on replicated Redis (``bench/ha_chaos.py``), the short CI drills: bots on
two ``cardhall serve`` processes on a Sentinel-watched master with two replicas, or a 3+3
Redis Cluster, while the master is killed or partitioned; every acknowledged action must be
in the stored log once, at its state, and every game must finish. And the load drill on a
Cluster beside a lone Redis."""

from __future__ import annotations

from pathlib import Path

import pytest

from ..chaos_harness import check, drill, needs_ha


@needs_ha
@pytest.mark.slow
async def test_sentinel_master_kill_9_loses_nothing(tmp_path: Path) -> None:
    fig = await drill("sentinel-kill", tmp_path)
    check(fig)
    assert any("the Sentinels promoted" in n for n in fig["notes"]), fig["notes"]
    assert fig["recovery_s"] and fig["recovery_s"][0] is not None, fig["notes"]


@needs_ha
@pytest.mark.slow
async def test_sentinel_partition_loses_nothing_and_the_old_master_rejoins(
        tmp_path: Path) -> None:
    fig = await drill("sentinel-partition", tmp_path)
    check(fig)
    assert any("rejoined as a replica" in n for n in fig["notes"]), fig["notes"]


@needs_ha
@pytest.mark.slow
async def test_cluster_master_kill_9_loses_nothing(tmp_path: Path) -> None:
    fig = await drill("cluster-kill", tmp_path)
    check(fig)
    assert len(fig["rooms_per_master"]) == 3, fig["rooms_per_master"]
    assert any("took its slots" in n for n in fig["notes"]), fig["notes"]


@needs_ha
@pytest.mark.slow
async def test_load_on_a_cluster_and_on_a_lone_redis(tmp_path: Path) -> None:
    fig = await drill("cluster-load", tmp_path, load_seconds=3.0)
    assert fig["faults"] == 0 and fig["ok"], fig["details"]
    assert (fig["lost"], fig["doubled"], fig["views_backwards"]) == (0, 0, 0), fig["details"]
    assert fig["finished"] == fig["games"] >= 8, fig
    for side in ("cluster", "lone"):
        load = fig["load"][side]
        assert load["acked"] > 50 and load["actions_per_s"] > 0, load
        assert load["redis_cpu_us_per_action"] > 0 and load["rtt_p99_ms"] > 0, load
