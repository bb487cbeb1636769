"""The two builds (setup.py): the compiled core where a C compiler is present, pure Python
where it is not, or when asked (``CARDHALL_MYPYC=0``), with one warning line; and the
running build is the one expected and says so (``cardhall --version``).

``CARDHALL_EXPECT_BUILD`` (``compiled`` or ``pure``) names the build under test; `.ci/run`
sets it for its smoke of the compiled build. Unset, an editable install (no build note) is
expected pure and an installed package as its note says.
"""

from __future__ import annotations

import importlib
import importlib.machinery
import importlib.util
import os
import shutil
import subprocess
import sys
import sysconfig
import time
import zipfile
from pathlib import Path
from types import ModuleType

import pytest
from click.testing import CliRunner

from cardhall.server import build, room
from cardhall.cli import main

from ..conftest import ServeProcess

ROOT = Path(__file__).resolve().parents[2]
WARNING = "warning: cardhall installs as pure Python (slower)"


def _setup() -> ModuleType:
    """setup.py as a module (its ``setup()`` call runs only as ``__main__``)."""
    spec = importlib.util.spec_from_file_location("cardhall_setup", ROOT / "setup.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _module_name(source: str) -> str:
    """``games/skipper/rules.py`` -> ``cardhall.games.skipper.rules``."""
    return "cardhall." + source.removesuffix(".py").replace("/", ".")


def _expected() -> str:
    wanted = os.environ.get("CARDHALL_EXPECT_BUILD")
    if wanted:
        assert wanted in ("compiled", "pure"), wanted
        return wanted
    note = build.note()
    return "compiled" if note is not None and note.startswith("compiled") else "pure"


def test_the_running_build_is_the_expected_one_module_by_module() -> None:
    """Every module setup.py compiles is an extension module in the compiled build, and
    none is in the pure one (the engines, e.g. ``cardhall.games.skipper.rules``, the
    codec); ``build.kind()`` agrees."""
    sources = _setup().compiled_sources()
    assert "games/skipper/rules.py" in sources and "protocol/codec.py" in sources
    assert "protocol/messages.py" not in sources  # left pure (PURE)
    # the action's path in the server (issue #34): the room's package, the connection
    assert {f"server/{m}.py" for m in ("room/driver", "room/rules", "room/views", "work",
                                       "phases", "connection", "session")} <= set(sources)
    suffixes = tuple(importlib.machinery.EXTENSION_SUFFIXES)
    files = {s: str(importlib.import_module(_module_name(s)).__file__) for s in sources}
    expected = _expected()
    if expected == "compiled":
        assert [f for f in files.values() if not f.endswith(suffixes)] == []
    else:
        assert [f for f in files.values() if not f.endswith(".py")] == []
    assert build.kind() == expected
    assert room.COMPILED == (expected == "compiled")  # what the room's dataclass is made as


def test_version_and_the_start_line_name_the_build(tmp_path: Path) -> None:
    """``cardhall --version`` prints the version and the build; so does the line
    ``cardhall serve`` prints once it listens."""
    done = CliRunner().invoke(main, ["--version"])
    assert done.exit_code == 0, done.output
    assert done.output.startswith("cardhall, version ")
    words = "compiled with mypyc" if _expected() == "compiled" else "pure Python"
    assert f"({words}" in done.output, done.output
    server = ServeProcess(tmp_path, "--store", "memory")
    try:
        deadline = time.monotonic() + 10
        while "Cardhall is running" not in server.stderr() and time.monotonic() < deadline:
            time.sleep(0.05)
    finally:
        server.stop()
    assert f"Cardhall is running ({words}" in server.stderr(), server.stderr()


def _wheel(tmp_path: Path, stale: tuple[str, ...] = (), **env: str
           ) -> tuple[zipfile.ZipFile, str]:
    """Build a wheel of the checkout (the running interpreter's setuptools and mypy);
    returns it and the build's stderr. ``stale``: files (paths in the package) made first
    in the copy's ``build/lib...``, as an earlier build there would have left them."""
    shutil.copytree(ROOT, tmp_path / "src", symlinks=True, ignore=shutil.ignore_patterns(
        ".git", "build", "*.egg-info", "__pycache__", ".venv*", "node_modules", "tests"))
    lib = (tmp_path / "src" / "build"
           / f"lib.{sysconfig.get_platform()}-{sys.implementation.cache_tag}")
    for name in stale:
        (lib / name).parent.mkdir(parents=True, exist_ok=True)
        (lib / name).write_bytes(b"\x7fELF stale")
    done = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
         "--no-index", "-v", "--wheel-dir", str(tmp_path / "wheel"), str(tmp_path / "src")],
        env={**os.environ, **env}, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    wheel = next((tmp_path / "wheel").glob("cardhall-*.whl"))
    return zipfile.ZipFile(wheel), done.stdout + done.stderr


@pytest.mark.slow
def test_a_build_asked_to_be_pure_is_pure_with_one_warning_line(tmp_path: Path) -> None:
    """``CARDHALL_MYPYC=0``: no extension module in the wheel, its note says pure Python and
    why, and the build prints exactly one warning line. Extension modules an earlier build
    left in the checkout's ``build/`` are not shipped (they would shadow the sources)."""
    suffix = importlib.machinery.EXTENSION_SUFFIXES[0]
    wheel, output = _wheel(tmp_path, (f"cardhall/games/skipper/rules{suffix}",
                                      f"cardhall__mypyc{suffix}"), CARDHALL_MYPYC="0")
    assert [n for n in wheel.namelist() if n.endswith(".so")] == []
    assert "cardhall/games/skipper/rules.py" in wheel.namelist()
    assert wheel.read("cardhall/server/build.txt").decode().strip() == (
        "pure Python: CARDHALL_MYPYC=0")
    assert [line.strip() for line in output.splitlines() if WARNING in line] == [
        f"{WARNING}: CARDHALL_MYPYC=0"]


@pytest.mark.slow
def test_a_failed_compilation_falls_back_to_pure_with_one_warning_line(
        tmp_path: Path) -> None:
    """A C compiler that fails (``CC=false``): the build still succeeds, pure Python, with one
    warning line saying the compilation failed."""
    if importlib.util.find_spec("mypyc") is None:
        pytest.skip("mypy (mypyc) is not installed")
    wheel, output = _wheel(tmp_path, CC="false", LDSHARED="false")
    assert [n for n in wheel.namelist() if n.endswith(".so")] == []
    note = wheel.read("cardhall/server/build.txt").decode()
    assert note.startswith("pure Python: compilation failed"), note
    warned = [line for line in output.splitlines() if WARNING in line]
    assert len(warned) == 1 and "compilation failed" in warned[0], warned


def test_bench_builds_shows_the_pure_and_the_compiled_figures_side_by_side() -> None:
    """Issue #34: ``cardhall bench --builds`` measures the room's action path step by step
    and the engine alone in both builds (each reporting its own build) and prints a column
    for each, with the ratio. Needs the other build: the pure one is exported at once; the
    compiled one is used when already made for these sources (``python -m
    cardhall.bench.builds compiled``; `.ci/run`'s smoke runs this test on the compiled
    build)."""
    from cardhall.bench import builds as b

    if _expected() == "pure" and b.cached() is None:
        pytest.skip("no compiled build of these sources yet: python -m cardhall.bench.builds "
                    "compiled")
    done = CliRunner().invoke(main, [
        "bench", "--rooms", "2", "--rate", "40", "--seconds", "1", "--warmup", "0.3",
        "--rounds", "1", "--idle", "0", "--redis", "off", "--no-sqlite",
        "--restart-rooms", "0", "--builds", "--build-actions", "60"])
    assert done.exit_code == 0, done.output
    lines = done.output.splitlines()
    head = next(line for line in lines if line.startswith("| figure (CPU per action)"))
    # the columns are named by the build each child process reported running
    assert "| pure | compiled | compiled / pure |" in head, head
    rows = {line.split("|")[1].strip(): [c.strip() for c in line.split("|")[3:-1]]
            for line in lines[lines.index(head) + 2:] if line.startswith("|")}
    for name in ("whole action (room.play, memory store), CPU",
                 "engine alone, no room (apply + deltas)"):
        pure, compiled, ratio = rows[name]
        assert float(pure.replace(",", "")) > 0 and float(compiled.replace(",", "")) > 0, name
        assert ratio.endswith("x"), name
    # the steps of a compiled room cannot be timed from outside (bench/steps.py): "-"; a
    # pure step may be below what the timer resolves (the metrics' step reads 0.0 since
    # they are plain attributes), the engine's apply never is
    for name in ("engine: apply the action", "state()", "store append", "clocks", "metrics",
                 "table()", "fan-out (frames, less the above)"):
        pure, compiled, ratio = rows[name]
        assert float(pure.replace(",", "")) >= 0 and (compiled, ratio) == ("-", "-"), name
    assert float(rows["engine: apply the action"][0].replace(",", "")) > 0


def _third_party_imports(source: Path) -> set[str]:
    """The top-level names of the modules ``source`` imports that are neither the standard
    library's nor Cardhall's (``import x.y``, ``from x import y``; under ``TYPE_CHECKING``
    too: mypyc needs their types as much)."""
    import ast

    names = set()
    for node in ast.walk(ast.parse(source.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return {n for n in names if n not in sys.stdlib_module_names and n != "cardhall"}


def test_the_build_requires_every_package_a_compiled_module_imports() -> None:
    """Issue #41 item 10: ``pip install .`` builds in an isolated environment that holds only
    ``[build-system] requires``; a compiled module's import missing there (tenacity was)
    stops mypyc and the install falls back to pure Python. Every third-party import of
    setup.py's compiled modules is the package of a requirement (by its distribution's
    name: ``mypy_extensions`` is ``mypy-extensions``)."""
    import importlib.metadata
    import re
    import tomllib

    def norm(name: str) -> str:
        return re.sub(r"[-_.]+", "-", name).lower()

    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    required = {norm(re.split(r"[\s<>=!~;\[]", r, maxsplit=1)[0])
                for r in config["build-system"]["requires"]}
    distributions = importlib.metadata.packages_distributions()
    sources = _setup().compiled_sources()
    assert "server/room/driver.py" in sources
    missing = {}
    for source in sources:
        for name in _third_party_imports(ROOT / source):
            dists = {norm(d) for d in distributions.get(name, [name])}
            if not dists & required:
                missing.setdefault(name, []).append(source)
    assert missing == {}, f"add to [build-system] requires: {missing}"
