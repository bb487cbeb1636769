"""Smoke runs of ``benchmarks/ab.py`` and the in-process room benchmarks, and the exports
and ``serve`` command lines they compare versions with (``cardhall bench`` itself:
tests/bench/test_load.py, test_durable.py, test_peers.py).

Asserts only that the benchmark runs and produces figures (the targets are judged by a full
run, not by the test suite; see benchmarks/README.md).
"""

from __future__ import annotations

import importlib.machinery
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from cardhall.bench import versions
from cardhall.bench.versions import export

#: benchmarks/ab.py exports its versions from the checkout the ``cardhall`` package is in
#: (``bench/versions.py``'s ROOT): an installed package, as the compiled build always is
#: (``pip install .``; editable installs stay pure), is in none, so ab.py cannot run there.
needs_package_in_checkout = pytest.mark.skipif(
    not (versions.ROOT / "pyproject.toml").exists(),
    reason="ab.py compares the versions of the checkout cardhall is installed from; an "
           "installed (compiled) build's package is in site-packages, no checkout")


@needs_package_in_checkout
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


def test_ab_runs_each_versions_own_engines(tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """A version's server must play with that version's ``games``, not the installed
    checkout's (the editable install would otherwise supply them)."""
    root = Path(__file__).resolve().parents[2]
    if not (root / ".git").exists():
        pytest.skip("not a git checkout")
    # This checkout's versions, whichever build runs the test (an installed package is in
    # no checkout of its own).
    monkeypatch.setattr(versions, "ROOT", root)
    for version in ("HEAD", str(root)):
        dest = export(version, tmp_path / version.replace("/", "_"))
        proc = subprocess.run(
            [sys.executable, "-c", "import cardhall.games.skipper as s; print(s.__file__)"],
            capture_output=True, text=True, timeout=60, cwd=tmp_path,
            env={**os.environ, "PYTHONPATH": str(dest)})
        assert proc.returncode == 0, proc.stderr
        assert Path(proc.stdout.strip()).is_relative_to(dest), proc.stdout


@needs_package_in_checkout
def test_ab_path_compares_the_action_path_of_two_revisions() -> None:
    """benchmarks/ab.py --path (issue #31, "Done when": no slower action path, before and
    after in one run): the last commit and the working tree, each with its own
    room_path.py on its own package, in turns; prints both columns and the ratio of every
    row, and the JSON has a median per version and a ratio per row (with a turn clock:
    ``--turn-seconds`` reaches room_path.py)."""
    root = Path(__file__).resolve().parents[2]
    if not (root / ".git").exists():
        pytest.skip("not a git checkout")
    args = [sys.executable, str(root / "benchmarks" / "ab.py"), "HEAD", ".", "--path",
            "--rounds", "2", "--actions", "150", "--rooms", "3", "--turn-seconds", "60"]
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
