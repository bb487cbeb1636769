"""The short drills of ``cardhall chaos`` for the tests (tests/e2e/test_chaos.py and
tests/bench/test_ha_chaos.py): one drill of a kind on small sizes (:func:`drill`), the issue's
targets checked one assertion each (:func:`check`), and skip marks for missing Redis programs."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from cardhall.bench.chaos import ChaosConfig, passed
from cardhall.bench.drills import render, run_async


needs_redis = pytest.mark.skipif(shutil.which("redis-server") is None,
                                 reason="redis-server is not installed")


needs_ha = pytest.mark.skipif(
    any(shutil.which(t) is None for t in ("redis-server", "redis-cli")),
    reason="redis-server or redis-cli is not installed")  # a Sentinel: redis-server --sentinel


async def drill(kind: str, tmp_path: Path, faults: int = 1, **extra: Any) -> dict[str, Any]:
    """One short drill of ``kind``: 4 tables of 4 bots on 2 servers (one for sqlite-kill),
    ``faults`` faults (Sentinel down after 1.5 s, Cluster node timeout 1.5 s); ``extra``:
    more ChaosConfig fields."""
    cfg = ChaosConfig(kinds=(kind,), rooms=4, seats=4, servers=2, faults=faults,
                      turn_limit=20, finish_timeout=60.0, seconds=200.0, seed=7,
                      down_after_ms=1500, **extra)
    result = await run_async(cfg, None, tmp_path)
    (fig,) = result["drills"]
    print(render(result))  # shown by pytest when the test fails
    return fig


def check(fig: dict[str, Any], faults: int = 1) -> None:
    """The issue's targets, one assertion each so a failure names the figure missed."""
    assert fig["faults"] == faults, fig["details"]
    assert fig["games"] >= 4 and fig["acked"] > 100, fig
    assert fig["lost"] == 0, fig["details"]
    assert fig["doubled"] == 0, fig["details"]
    assert fig["finished"] == fig["games"], fig["details"]
    assert fig["seats_dropped"] == 0, fig["details"]
    assert fig["views_backwards"] == 0, fig["details"]
    assert fig["views_split"] == 0, fig["details"]
    assert passed(fig)
