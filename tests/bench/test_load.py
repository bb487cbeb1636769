"""``cardhall bench``'s load phases (``bench/load.py``): a tiny load against real server
processes (memory, SQLite, the echo baseline) gives every figure of its phases. Asserts only
that the benchmark runs and produces figures (the targets are judged by a full run, not by
the test suite; see benchmarks/README.md)."""

from __future__ import annotations

import json

from cardhall.cli import main
from click.testing import CliRunner


def test_bench_smoke_produces_figures() -> None:
    result = CliRunner().invoke(main, [
        "bench", "--rooms", "2", "--rate", "40", "--seconds", "1", "--warmup", "0.3",
        "--idle", "20", "--redis", "off", "--restart-rooms", "0", "--json"])
    assert result.exit_code == 0, result.output
    out = json.loads(result.output)
    for part in ("memory", "echo", "sqlite"):
        for phase in ("latency", "throughput"):
            figures = out[part][phase]
            assert figures["actions"] > 0
            assert figures["rtt_p50_us"] > 0
            assert figures["update_frames_per_s"] > 0
            assert figures["update_bytes_p50"] > 0
            assert figures["server_cpu_s_per_action"] is not None
            assert len(figures["rtt_p50_us_by_round"]) == out["config"]["rounds"]
    assert out["idle"]["held"] == 20
    assert out["echo"]["idle"]["held"] == 20
    assert isinstance(out["memory"]["rss_per_active_room"], float)
    # The restart figures have their own test (tests/bench/test_durable.py).
    assert out["sqlite"]["restart"] == {"skipped": "--restart-rooms 0"}
    by_figure = {row["figure"]: row for row in out["rows"]}
    assert any(f.startswith("round trip p50") for f in by_figure)
    assert sum(f.startswith("  round ") for f in by_figure) == out["config"]["rounds"]
    # (a round's window may hold no sample at this tiny load: those rows may be empty)
    assert all(row["cardhall"] is not None for row in out["rows"]
               if not row["figure"].startswith(("REDIS", "SQLITE restart", "  round ")))
