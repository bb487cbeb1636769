"""Tests of ``cardhall bench``'s table (``cardhall.bench.report``) from made-up results: ratios
to the baseline, the targets' verdicts, missing figures, and the rendered Markdown table."""

from __future__ import annotations

import json
from typing import Any

from cardhall.bench.report import render, rows, sqlite_rows, to_json


def _result(ours_p50: float, echo_p50: float, **extra: Any) -> dict[str, Any]:
    return {"config": {"rooms": 100, "rate": 200.0},
            "memory": {"latency": {"rtt_p50_us": ours_p50, "rtt_p50_us_by_round": [1.0, 2.0]},
                       "throughput": {"update_bytes_p50": 120, "actions_per_s": 1000.0,
                                      "server_cpu_s_per_action": 5e-5}},
            "echo": {"latency": {"rtt_p50_us": echo_p50, "rtt_p50_us_by_round": [1.0, 4.0]},
                     "throughput": {"server_cpu_s_per_action": 1e-5}},
            **extra}


def _row(table: list[dict[str, Any]], start: str) -> dict[str, Any]:
    return next(r for r in table if r["figure"].startswith(start))


def test_a_target_is_judged_on_the_ratio_to_the_echo() -> None:
    """p50 at 1.5x the echo passes, above fails; the figure names the paced load."""
    ok = _row(rows(_result(150.0, 100.0)), "round trip p50 (100 rooms, 200 act/s)")
    assert ok["ratio"] == 1.5 and ok["pass"] is True and ok["target"] == "<= 1.5x echo"
    assert _row(rows(_result(151.0, 100.0)), "round trip p50 (100")["pass"] is False
    rounds = [r for r in rows(_result(1, 1)) if r["figure"].startswith("  round")]
    assert [r["ratio"] for r in rounds] == [1.0, 0.5]


def test_missing_figures_give_no_ratio_and_no_verdict() -> None:
    """An empty result is a table of dashes, not an exception; absolute targets still judge
    a figure that is there; seconds of CPU are shown in us."""
    empty = rows({})
    assert empty and all(r["ratio"] is None for r in empty)
    assert _row(empty, "round trip p99 (")["pass"] is None
    assert _row(empty, "update frame bytes, median")["pass"] is None
    full = rows(_result(1, 1))
    assert _row(full, "update frame bytes, median")["pass"] is True  # 120 B <= 300 B
    cpu = _row(full, "server CPU per action")
    assert (cpu["cardhall"], cpu["echo"]) == (50.0, 10.0) and cpu["ratio"] == 5.0


def test_a_ratio_target_without_the_echos_figure_gives_no_verdict() -> None:
    """The docstring of :func:`rows`: ``pass`` is None when a figure is missing (the ratio
    targets judged a missing echo figure NO)."""
    result = _result(150.0, 100.0)
    del result["echo"]["latency"]["rtt_p50_us"]
    assert _row(rows(result), "round trip p50 (100")["pass"] is None


def test_redis_and_sqlite_rows_compare_to_the_memory_store() -> None:
    """Ratios to in-memory with their targets; a skipped store says why."""
    result = _result(1, 1, redis={"throughput": {"actions_per_s": 500.0}},
                     sqlite={"throughput": {"actions_per_s": 850.0},
                             "restart": {"skipped": "no --restart-rooms"}})
    table = rows(result)
    redis = _row(table, "REDIS accepted")
    assert redis["ratio"] == 0.5 and redis["pass"] is False
    sqlite = _row(table, "SQLITE accepted")
    assert sqlite["ratio"] == 0.85 and sqlite["pass"] is True
    assert _row(table, "SQLITE restart: skipped (no --restart-rooms)")["pass"] is None
    skipped = rows({"redis": {"skipped": "no redis-server"}})
    assert _row(skipped, "REDIS: skipped (no redis-server)")["cardhall"] is None
    out: list[dict[str, Any]] = []
    sqlite_rows(out, {"memory": {}}, "")
    assert out == []


def test_render_is_an_aligned_markdown_table_with_a_note() -> None:
    """Every line of the table is as wide as the header; verdicts read yes/NO; the run's
    environment and errors follow."""
    result = {"rows": rows(_result(150.0, 100.0, idle={"connections": 5})),
              "env": {"python": "3.12", "cpus": 2}, "wall_seconds": 9,
              "memory": {"errors": 3}}
    text = render(result)
    table, notes = text.split("\n\n")
    lines = table.splitlines()
    assert lines[0].startswith("| figure") and set(lines[1]) <= {"|", "-", ":"}
    assert len({len(line) for line in lines}) == 1
    assert "| 1.50x |" in text and " yes |" in text and "python 3.12" in notes
    assert "memory errors: 3" in notes
    back = json.loads(to_json(result))
    assert back["rows"][0]["figure"] == result["rows"][0]["figure"]
