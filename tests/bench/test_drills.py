"""``cardhall chaos``'s driver (``bench/drills.py``): the drill class of each fault kind,
the run's time cap (a kind not started before it is skipped, and the run is not ok), and the
table of figures. The drills themselves run in tests/e2e/test_chaos.py and
tests/bench/test_ha_chaos.py."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from cardhall.bench.chaos import KINDS, ChaosConfig, Drill
from cardhall.bench.drills import drill_class, render, run_async
from cardhall.bench.ha_chaos import HA_KINDS, HaDrill


def test_each_fault_kind_has_its_drill_class_and_an_unknown_one_is_refused() -> None:
    assert {drill_class(k) for k in KINDS} == {Drill}
    assert {drill_class(k) for k in HA_KINDS} == {HaDrill}
    with pytest.raises(ValueError, match="owner-kill.*cluster-load"):
        drill_class("meteor-strike")


async def test_an_unknown_kind_fails_before_anything_starts(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="unknown fault kind 'nope'"):
        await run_async(ChaosConfig(kinds=("owner-kill", "nope")), None, tmp_path)
    assert not list(tmp_path.iterdir())  # no drill was started


async def test_kinds_not_started_within_the_cap_are_skipped_and_the_run_is_not_ok(
        tmp_path: Path) -> None:
    """A kind starts only with 10 s of the cap left: with a 5 s cap none does (no process is
    started), each is reported skipped, and the run is not ok."""
    said: list[str] = []
    result = await run_async(ChaosConfig(kinds=("owner-kill", "sentinel-kill"), seconds=5.0),
                             said.append, tmp_path)
    assert result["drills"] == [{"kind": "owner-kill", "skipped": True, "ok": False},
                                {"kind": "sentinel-kill", "skipped": True, "ok": False}]
    assert result["ok"] is False and result["config"]["seconds"] == 5.0
    assert not list(tmp_path.iterdir()) and not said
    text = render(result)
    assert text.count("SKIPPED (--seconds)") == 2
    assert text.endswith("MISSED")


def _figures(kind: str, ok: bool, **more: Any) -> dict[str, Any]:
    return {"kind": kind, "games": 4, "finished_pct": 100.0, "acked": 321, "lost": 0,
            "doubled": 0, "views_backwards": 0, "views_split": 0, "seats_dropped": 0,
            "faults": 1, "wall_s": 12.5, "ok": ok, **more}


def test_the_table_has_a_row_per_kind_then_notes_details_and_the_verdict() -> None:
    """One aligned row per kind (``ok`` or ``MISSED``), then each kind's notes and at most
    30 lines of details, then whether every target was met."""
    result = {"ok": False, "drills": [
        _figures("owner-kill", True, notes=["took over 3 rooms"]),
        _figures("redis-kill-3s", False, lost=2, details=[f"lost {i}" for i in range(40)])]}
    lines = render(result).splitlines()
    assert lines[0].split() == ["fault", "kind", "games", "finished", "%", "acked", "lost",
                                "doubled", "views", "back", "views", "split", "seats",
                                "dropped", "faults", "wall", "s", "result"]
    assert lines[1].split() == ["owner-kill", "4", "100.0", "321", "0", "0", "0", "0", "0",
                                "1", "12.5", "ok"]
    assert lines[2].split()[0] == "redis-kill-3s" and lines[2].split()[-1] == "MISSED"
    assert len({len(line) for line in lines[:3]}) == 1  # aligned columns
    assert "  owner-kill: took over 3 rooms" in lines
    assert sum(line.startswith("  redis-kill-3s: lost ") for line in lines) == 30
    assert lines[-1].endswith(": MISSED")
    assert render({**result, "ok": True}).endswith(": met")
