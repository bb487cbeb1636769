"""The import contracts of pyproject's ``[tool.importlinter]`` hold (README "Layout").

Runs ``lint-imports`` (import-linter) so that the README's test command enforces the layering
in CI: a module that imports upward (``if TYPE_CHECKING:`` imports included) fails this test.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_import_contracts_hold() -> None:
    """Every contract is kept; the output names the broken ones and their import chains."""
    exe = shutil.which("lint-imports", path=str(Path(sys.executable).parent)) or shutil.which(
        "lint-imports")
    assert exe is not None, "lint-imports is missing: pip install -e '.[test]'"
    done = subprocess.run([exe, "--no-cache"],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 broken" in done.stdout, done.stdout


def test_every_server_module_has_a_layer() -> None:
    """A module missing from the server's layers contract would be checked by nothing."""
    import tomllib

    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    contract = next(c for c in config["tool"]["importlinter"]["contracts"]
                    if c.get("containers") == ["cardhall.server"])
    layered = {name.strip() for layer in contract["layers"] for name in layer.split(":")}
    modules = {path.stem for path in (ROOT / "server").glob("*.py")} - {"__init__"}
    assert modules == layered, (modules - layered, layered - modules)


def test_every_bench_module_has_a_layer() -> None:
    """The same for the harnesses' layers contract (``cardhall.bench``)."""
    import tomllib

    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    contract = next(c for c in config["tool"]["importlinter"]["contracts"]
                    if c.get("containers") == ["cardhall.bench"])
    layered = {name.strip(" ()") for layer in contract["layers"]
               for name in layer.replace("|", ":").split(":")}
    modules = {path.stem for path in (ROOT / "bench").glob("*.py")} - {"__init__"}
    assert modules == layered, (modules - layered, layered - modules)


def test_command_line_and_harnesses_keep_their_shape() -> None:
    """Issue #31, item 5: the command line is a package of its own (``cli/``, the console
    script's ``cardhall.cli:main``) and the harnesses' process helpers a module of their own
    (``bench/procs.py``); in both no module is over 800 lines, no function over 80, and no
    module imports another's ``_private`` name; and no layer contract has an exception
    (``ignore_imports``): the server imports neither the client nor the harnesses."""
    import tomllib

    from .shape import shape_problems

    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    problems = [f"contract {c['name']!r} ignores {c['ignore_imports']}"
                for c in config["tool"]["importlinter"]["contracts"] if "ignore_imports" in c]
    script = config["project"]["scripts"]["cardhall"]
    if script != "cardhall.cli:main":
        problems.append(f"the console script is {script}")
    if config["tool"]["setuptools"]["package-dir"].get("cardhall.cli") != "cli":
        problems.append("no package cardhall.cli in cli/")
    if not (ROOT / "bench" / "procs.py").is_file():
        problems.append("no bench/procs.py")
    problems += shape_problems([*(ROOT / "cli").glob("*.py"), *(ROOT / "bench").glob("*.py")],
                               ROOT)
    assert not problems, problems


def test_the_server_keeps_its_shape() -> None:
    """Issue #31: in ``server/`` no module is over 800 lines (room.py was 1,289), no function
    over 80 (``RoomViews._broadcast`` was 90), and no module imports another's ``_private``
    name (room.py imported ``_Member`` from fanout.py). ``Lobby.create`` is the ``shape``
    branch's (item 6-7 of the issue): drop it from ``PENDING`` when that branch is merged."""
    from .shape import shape_problems

    pending = ("server/lobby.py: create is ",)
    problems = [p for p in shape_problems((ROOT / "server").glob("*.py"), ROOT)
                if not p.startswith(pending)]
    assert not problems, problems
