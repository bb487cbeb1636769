"""Tests of ``cardhall bench`` and ``cardhall chaos`` (``cardhall.cli.bench``) in-process with
the harnesses' runs stood in for: the settings the options make, the output forms, and how
a failed run or drill ends. (tests/bench/ runs the harnesses themselves.)"""

from __future__ import annotations

import json
from typing import Any

import pytest
from cardhall.bench import drills, load
from cardhall.bench.config import BenchConfig
from cardhall.cli.bench import bench, chaos
from click.testing import CliRunner

RESULT: dict[str, Any] = {"config": {"rooms": 5, "rate": 50.0}, "rows": [], "env": {},
                          "wall_seconds": 1}


def _capture_bench(monkeypatch: pytest.MonkeyPatch, fail: Exception | None = None
                   ) -> list[BenchConfig]:
    seen: list[BenchConfig] = []

    def run(cfg: BenchConfig, say: Any, logdir: Any) -> dict[str, Any]:
        seen.append(cfg)
        if fail is not None:
            raise fail
        return dict(RESULT)

    monkeypatch.setattr(load, "run", run)
    return seen


def test_the_options_make_the_bench_config(monkeypatch: pytest.MonkeyPatch) -> None:
    """--seconds sets both measured phases; --redis-url wins over --redis; the JSON form is
    one object and nothing else."""
    seen = _capture_bench(monkeypatch)
    result = CliRunner().invoke(bench, ["--rooms", "5", "--rate", "50", "--seconds", "3",
                                        "--redis-url", "redis://127.0.0.1:1/0", "--no-pin",
                                        "--no-sqlite", "--json"])
    assert result.exit_code == 0, result.output
    (cfg,) = seen
    assert (cfg.rooms, cfg.rate, cfg.latency_seconds, cfg.throughput_seconds) == (5, 50.0, 3, 3)
    assert (cfg.redis, cfg.pin, cfg.sqlite) == ("redis://127.0.0.1:1/0", False, False)
    assert json.loads(result.stdout)["config"] == {"rooms": 5, "rate": 50.0}


def test_a_harness_failure_is_one_error_line(monkeypatch: pytest.MonkeyPatch) -> None:
    """An OSError of the run (a port, a child) is exit 1 with its type, no traceback."""
    _capture_bench(monkeypatch, OSError("address in use"))
    result = CliRunner().invoke(bench, ["--json"])
    assert result.exit_code == 1 and "Error: OSError: address in use" in result.output
    assert "Traceback" not in result.output


@pytest.mark.parametrize("args", [["--rooms", "0"], ["--rate", "0"], ["--seconds", "0.1"],
                                  ["--redis", "maybe"], ["--sqlite-commit", "never"]])
def test_out_of_range_options_are_usage_errors(monkeypatch: pytest.MonkeyPatch,
                                               args: list[str]) -> None:
    """Exit 2 before anything runs."""
    seen = _capture_bench(monkeypatch)
    assert CliRunner().invoke(bench, args).exit_code == 2 and seen == []


def test_chaos_picks_each_kind_once_and_exits_1_when_a_target_is_missed(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """``--kind`` repeated (or a group) runs each kind once, in order; a result that is not
    ok prints and exits 1."""
    seen: list[Any] = []

    def run(cfg: Any, say: Any, logdir: Any) -> dict[str, Any]:
        seen.append(cfg)
        return {"ok": False, "kinds": list(cfg.kinds)}

    monkeypatch.setattr(drills, "run", run)
    result = CliRunner().invoke(chaos, ["--kind", "sqlite-kill", "--kind", "sqlite-kill",
                                        "--rooms", "2", "--json"])
    assert result.exit_code == 1, result.output
    assert seen[0].kinds == ("sqlite-kill",) and seen[0].rooms == 2
    assert json.loads(result.stdout) == {"ok": False, "kinds": ["sqlite-kill"]}
    assert CliRunner().invoke(chaos, ["--kind", "fire"]).exit_code == 2


def test_chaos_sentinel_kinds_need_no_redis_sentinel_program(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue #41 item 9: where ``redis-sentinel`` is missing (Debian ships it apart), the
    Sentinel kinds run ``redis-server --sentinel``; without redis-server they are refused
    with one line."""
    seen: list[Any] = []
    monkeypatch.setattr(drills, "run", lambda cfg, say, logdir: seen.append(cfg) or {
        "ok": True, "kinds": list(cfg.kinds)})
    installed = {"redis-server", "redis-cli"}
    monkeypatch.setattr("shutil.which", lambda tool: f"/usr/bin/{tool}"
                        if tool in installed else None)
    result = CliRunner().invoke(chaos, ["--kind", "sentinel-kill", "--json"])
    assert result.exit_code == 0, result.output
    assert seen and seen[0].kinds == ("sentinel-kill",)
    installed.discard("redis-server")
    result = CliRunner().invoke(chaos, ["--kind", "sentinel-kill", "--json"])
    assert result.exit_code == 1 and "redis-server is not on PATH" in result.output
    assert len(seen) == 1
