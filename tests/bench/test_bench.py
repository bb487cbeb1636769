"""Smoke runs of ``cardhall bench`` and ``benchmarks/ab.py``: a tiny load against real server
processes.

Asserts only that the benchmark runs and produces figures (the targets are judged by a full
run, not by the test suite; see benchmarks/README.md).
"""

from __future__ import annotations

import importlib.machinery
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from cardhall.bench.peers import PeersConfig, render_capacity
from cardhall.bench.versions import export
from cardhall.cli import main
from click.testing import CliRunner


def test_bench_smoke_produces_figures() -> None:
    result = CliRunner().invoke(main, [
        "bench", "--rooms", "2", "--rate", "40", "--seconds", "1", "--warmup", "0.3",
        "--idle", "20", "--redis", "off", "--restart-rooms", "3", "--json"])
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
    restart = out["sqlite"]["restart"]  # 3 rooms in play killed with -9, then restarted
    assert restart["rooms_restored"] >= 3 and restart["to_listening_s"] > 0
    assert restart["restore_s"] is not None and restart["bytes_per_1000_actions"] > 0
    by_figure = {row["figure"]: row for row in out["rows"]}
    assert any(f.startswith("round trip p50") for f in by_figure)
    assert sum(f.startswith("  round ") for f in by_figure) == out["config"]["rounds"]
    # (a round's window may hold no sample at this tiny load: those rows may be empty)
    assert all(row["cardhall"] is not None for row in out["rows"]
               if not row["figure"].startswith(("REDIS", "  round ")))


def test_ab_smoke_compares_versions_in_turns() -> None:
    """benchmarks/ab.py: the last commit and the working tree, each as its own server, in
    turns with the echo; asserts only that every version gets figures."""
    root = Path(__file__).resolve().parents[2]
    if not (root / ".git").exists():
        pytest.skip("not a git checkout")
    proc = subprocess.run(
        [sys.executable, str(root / "benchmarks" / "ab.py"), "HEAD", ".", "--rooms", "2",
         "--rate", "40", "--seconds", "1", "--warmup", "0.4", "--rounds", "2", "--json"],
        capture_output=True, text=True, timeout=120, cwd=root)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert [v["version"].split()[0] for v in out["versions"]] == ["HEAD", "."]
    for v in out["versions"]:
        assert v["actions"] > 0
        assert v["rtt_p50_us"] > 0 and v["p50_ratio"] > 0
    assert out["echo"]["rtt_p50_us"] > 0


def test_ab_runs_each_versions_own_engines(tmp_path: Path) -> None:
    """A version's server must play with that version's ``games``, not the installed
    checkout's (the editable install would otherwise supply them)."""
    root = Path(__file__).resolve().parents[2]
    if not (root / ".git").exists():
        pytest.skip("not a git checkout")
    for version in ("HEAD", str(root)):
        dest = export(version, tmp_path / version.replace("/", "_"))
        proc = subprocess.run(
            [sys.executable, "-c", "import cardhall.games.skipper as s; print(s.__file__)"],
            capture_output=True, text=True, timeout=60, cwd=tmp_path,
            env={**os.environ, "PYTHONPATH": str(dest)})
        assert proc.returncode == 0, proc.stderr
        assert Path(proc.stdout.strip()).is_relative_to(dest), proc.stdout


def test_ab_path_compares_the_action_path_of_two_revisions() -> None:
    """benchmarks/ab.py --path (issue #31, "Done when": no slower action path, before and
    after in one run): the last commit and the working tree, each with its own
    room_path.py on its own package, in turns; prints both columns and the ratio of every
    row, and the JSON has a median per version and a ratio per row."""
    root = Path(__file__).resolve().parents[2]
    if not (root / ".git").exists():
        pytest.skip("not a git checkout")
    args = [sys.executable, str(root / "benchmarks" / "ab.py"), "HEAD", ".", "--path",
            "--rounds", "2", "--actions", "150", "--rooms", "3"]
    proc = subprocess.run(args, capture_output=True, text=True, timeout=120, cwd=root)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("A: HEAD") and lines[1] == "B: . (working tree)", lines
    assert lines[2].split() == ["row", "A", "B", "B/A"], lines
    for line in lines[3:9]:  # a row: its name, A's and B's medians, the ratio
        a, b, ratio = line.split()[-3:]
        assert float(a) > 0 and float(b) > 0 and ratio.endswith("x"), line
    proc = subprocess.run([*args, "--json"], capture_output=True, text=True, timeout=120,
                          cwd=root)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert [r["row"] for r in out["rows"]][-1] == "CPU us per action"
    assert all(len(r["medians"]) == 2 and r["ratios"][0] > 0 for r in out["rows"])


def test_ab_refuses_an_unknown_revision() -> None:
    root = Path(__file__).resolve().parents[2]
    if not (root / ".git").exists():
        pytest.skip("not a git checkout")
    proc = subprocess.run(
        [sys.executable, str(root / "benchmarks" / "ab.py"), "no-such-revision-x"],
        capture_output=True, text=True, timeout=60, cwd=root)
    assert proc.returncode == 2
    assert "git failed" in proc.stderr


@pytest.mark.parametrize("script, args, figure", [
    ("room_memory.py", ["--rooms", "3", "--actions", "5"], "KiB per room"),
    ("waiting_rooms.py", ["--rooms", "200", "--warmup", "10"], "per waiting room"),
    ("room_path.py", ["--actions", "50"], "whole broadcast"),
    ("room_path.py", ["--actions", "50", "--store", "sqlite-adaptive"], "whole broadcast"),
    ("sqlite_floor.py", ["--appends", "20", "--rooms", "5", "--pause-ms", "0"],
     "store append"),
    ("engine_cold.py", ["--actions", "30", "--tables", "3", "--pause-ms", "1"], "deltas  p50"),
])
def test_room_benchmarks_run_and_print_their_figure(script: str, args: list[str],
                                                    figure: str) -> None:
    """The in-process room benchmarks still run against today's room and store APIs (a
    stand-in store that missed the lease keyword once made room_memory.py crash), on a
    tiny workload, and print the figure they exist for."""
    path = Path(__file__).resolve().parents[2] / "benchmarks" / script
    done = subprocess.run([sys.executable, str(path), *args], capture_output=True,
                          text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    assert figure in done.stdout


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_peers_takes_other_versions_of_cardhall_and_refuses_unknown_servers(
        tmp_path: Path) -> None:
    (tmp_path / "loadgen.js").write_text("")
    (tmp_path / "node_modules").mkdir()

    def config(servers: str) -> PeersConfig:
        return PeersConfig(peers=tmp_path, node_modules=tmp_path,
                           servers=tuple(servers.split(",")), pin=False)

    config("cardhall,cardhall@HEAD~1,colyseus,floor-skipper").check()
    config("cardhall-compiled,cardhall-pure,colyseus").check()  # either build first
    config("cardhall-compiled,floor-skipper-sync+compiled").check()  # a floor, compiled
    for bad in ("cardhall,nodejs", "floor,cardhall", "colyseus,cardhall",
                "cardhall,nodejs+compiled"):
        with pytest.raises(ValueError, match="cardhall@VERSION"):
            config(bad).check()


def test_serve_command_runs_the_versions_own_command_line(tmp_path: Path) -> None:
    """A ``cardhall serve`` child of an exported version runs that version's command line:
    ``cardhall.cli``, or ``cardhall.server.cli`` in a version from before it (``main``
    before issue #31), so the benchmarks still compare against such versions."""
    from cardhall.bench.procs import serve_command

    old, new = tmp_path / "old", tmp_path / "new"
    (old / "cardhall" / "server").mkdir(parents=True)
    (new / "cardhall" / "cli").mkdir(parents=True)
    assert serve_command(8765, "--store", "memory") == [
        sys.executable, "-m", "cardhall.cli", "serve", "--port", "8765", "--store", "memory"]
    assert serve_command(1, package=new)[2] == "cardhall.cli"
    assert serve_command(1, package=old)[2] == "cardhall.server.cli"


def test_an_export_is_pure_python_even_from_a_compiled_install(tmp_path: Path) -> None:
    """Issue #34: exporting an installed compiled package (extension modules beside the
    sources) leaves the extension modules out, so the export runs its ``.py`` files."""
    tree = tmp_path / "installed"
    for part in ("server", "protocol", "client", "games"):
        (tree / part).mkdir(parents=True)
        (tree / part / "mod.py").write_text("X = 1\n")
        (tree / part / f"mod{importlib.machinery.EXTENSION_SUFFIXES[0]}").write_bytes(b"ELF")
    out = export(str(tree), tmp_path / "out")
    files = sorted(p.name for p in (out / "cardhall" / "games").iterdir())
    assert files == ["mod.py"]
    assert not [p for p in (out / "cardhall").rglob("*") if p.suffix in (".so", ".pyd")]


def test_capacity_table_gives_the_largest_step_kept_up_with_and_the_ratio() -> None:
    """Issue #34: render_capacity's summary takes each server's largest step that kept up
    (not a later one that did not) and projects players per core from its CPU share."""
    def step(players: int, share: float, ok: bool) -> dict[str, Any]:
        return {"players": players, "actions_per_s": players / 10, "cpu_share": share,
                "cpu_us_per_action": share / (players / 10) * 1e6, "p50_us": 900.0,
                "p99_us": 3000.0 if ok else 200_000.0, "rss_bytes": players * 50 * 1024,
                "ok": ok}

    text = render_capacity({"cardhall": [step(4000, 0.2, True), step(8000, 0.4, True)],
                            "colyseus": [step(4000, 0.4, True), step(8000, 0.97, False)]})
    summary = text.split("\n\n")[1].splitlines()
    assert summary[2].split(" | ")[1:4] == ["8,000", "20,000", "50.0"]
    assert summary[3].split(" | ")[1:3] == ["4,000", "10,000"]
    assert summary[3].rstrip(" |").endswith("0.50x | 0.50x")


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_human_pace_think_times_are_random_in_range_and_repeat_for_a_seed() -> None:
    """Issue #34: the capacity run's seats think a random 1-4 s (not a fixed interval), each
    table its own stream, the same for the same seed and another for another seed."""
    from cardhall.bench import peers

    def sample(seed: int) -> list[list[float]]:
        done = subprocess.run(["node", str(peers.THINK_JS), "--think-sample", "200",
                               "--think-seed", str(seed)],
                              capture_output=True, text=True, timeout=60, check=True)
        return list(json.loads(done.stdout)["tables"])

    first, again, other = sample(7), sample(7), sample(8)
    assert first == again
    assert first != other
    assert peers.THINK_RANGE == (1.0, 4.0)
    for table in first + other:
        assert len(table) == 200
        assert all(1.0 <= t <= 4.0 for t in table)
        assert min(table) < 1.3 and max(table) > 3.7  # spread over the range, not fixed
        assert 2.2 < sum(table) / len(table) < 2.8
    assert len({tuple(t) for t in first}) == 4  # each table its own stream


def test_capacity_runs_a_missed_step_again_and_drops_a_server_that_misses_twice(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Issue #34: a step a server did not keep up with is run once more (one stall by another
    process passes a p99 of 100 ms on a shared machine); a server leaves the run at its
    first step missed twice, and the table marks the second try."""
    from cardhall.bench import peers

    kept = {("cardhall", 4000): [True], ("cardhall", 8000): [False, True],
            ("cardhall", 12000): [False, False], ("colyseus", 4000): [False, False]}
    calls: list[tuple[str, int]] = []

    def step(kind: str, players: int, cfg: PeersConfig, seed: int,
             path: Path | None) -> dict[str, Any]:
        ok = kept[(kind, players)][sum(c == (kind, players) for c in calls)]
        calls.append((kind, players))
        return {"players": players, "actions_per_s": players / 10, "cpu_share": 0.3,
                "cpu_us_per_action": 700.0, "p50_us": 900.0,
                "p99_us": 3000.0 if ok else 200_000.0, "rss_bytes": players * 40 * 1024,
                "loadgen_cpu_share": 0.1, "others_cpu_share": 0.5, "errors": [], "ok": ok}

    monkeypatch.setattr(peers, "capacity_step", step)
    monkeypatch.setattr(PeersConfig, "check", lambda self: None)
    cfg = PeersConfig(peers=tmp_path, node_modules=tmp_path, servers=("cardhall", "colyseus"))
    steps = peers.capacity(cfg, (4000, 8000, 12000))
    assert calls == [("cardhall", 4000), ("colyseus", 4000), ("colyseus", 4000),
                     ("cardhall", 8000), ("cardhall", 8000), ("cardhall", 12000),
                     ("cardhall", 12000)]
    assert [(s["players"], s["try"], s["ok"]) for s in steps["cardhall"]] == [
        (4000, 0, True), (8000, 0, False), (8000, 1, True), (12000, 0, False),
        (12000, 1, False)]
    text = render_capacity(steps)
    assert "| cardhall | 8,000 (again) |" in text
    summary = text.split("\n\n")[1].splitlines()
    assert summary[2].split(" | ")[1] == "8,000"
    assert "below the first step" in summary[3]
