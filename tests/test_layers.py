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
    modules = ({path.stem for path in (ROOT / "server").glob("*.py")} - {"__init__"}) | {
        path.name for path in (ROOT / "server").iterdir() if (path / "__init__.py").is_file()}
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


def test_client_and_protocol_keep_their_shape() -> None:
    """Issue #31 ("Done when"): in ``client/`` (the terminal client and the renderers
    included) and ``protocol/`` no module is over 800 lines,
    no function over 80, and no module imports another's ``_private`` name. The message
    tables of ``protocol/messages.py`` are the one module allowed to be longer (its functions
    and imports are checked all the same)."""
    import re

    from .shape import shape_problems

    paths = [*(ROOT / "client").rglob("*.py"), *(ROOT / "protocol").rglob("*.py")]
    problems = [line for line in shape_problems(paths, ROOT)
                if not re.fullmatch(r"protocol/messages\.py: \d+ lines", line)]
    assert not problems, problems


def test_the_server_keeps_its_shape() -> None:
    """Issue #31: in ``server/`` (its packages too) no module is over 800 lines (the room
    module was 1,289), no function over 80 (``RoomViews._broadcast`` was 90), and no module
    imports another's ``_private`` name (the room module imported ``_Member`` from the
    fan-out one; ``Lobby.create`` was 84 lines)."""
    from .shape import shape_problems

    problems = shape_problems((ROOT / "server").rglob("*.py"), ROOT)
    assert not problems, problems


#: The packages whose modules the tests mirror (``server/lobby.py`` -> ``tests/server/``).
PACKAGES = ("cli", "bench", "server", "client", "games", "protocol")
#: Modules with no test module of their own yet, by package, each tested today through the
#: test modules the comment names. A new module needs its own test module instead; one that
#: gains a test module must leave this list (the test below says so).
UNMIRRORED = {
    # Every module of the command line has its own test module.
    "cli": "",
    # Every module of the harnesses has its own test module.
    "bench": "",
    # Every module of the server has its own test module.
    "server": "",
    # Every module of the client has its own test module.
    "client": "",
    # Every module of the engines has its own test module.
    "games": "",
    # Every module of the protocol has its own test module.
    "protocol": "",
}


def _mirror_names(path: Path, package: str) -> set[str]:
    """The names a test module of ``path`` (a module of ``package``) may start with: the
    module's (a sub-package's ``__init__``: the sub-package's) and its sub-packages'."""
    rel = path.relative_to(ROOT / package)
    own = rel.parts[-2] if path.stem == "__init__" else path.stem
    return {own, *rel.parts[:-1]}


def test_every_module_has_a_test_module_of_its_own() -> None:
    """Issue #31, item 6: tests mirror the packages. Each module ``PKG/NAME.py`` has a test
    module ``tests/PKG/test_NAME.py`` or ``tests/PKG/test_NAME_*.py`` (or in
    ``tests/e2e/``, for drills across processes), a module of a sub-package may share the
    sub-package's (``games/skipper/rules.py``: ``tests/games/test_skipper*.py``), or it is
    listed in :data:`UNMIRRORED`; a listed module that has its own, or no longer exists, is
    named too, so that the list only shrinks. A package's ``__init__`` and ``__main__`` are
    the package's face, tested with it."""
    problems = []
    for package in PACKAGES:
        tests = [t.stem.removeprefix("test_") for folder in (package, "e2e")
                 for t in (ROOT / "tests" / folder).glob("test_*.py")]
        listed = set(UNMIRRORED[package].split())
        for path in sorted((ROOT / package).rglob("*.py")):
            if path.parent == ROOT / package and path.stem in ("__init__", "__main__"):
                continue
            mirrored = any(t == n or t.startswith(f"{n}_")
                           for t in tests for n in _mirror_names(path, package))
            name = path.relative_to(ROOT / package).with_suffix("").as_posix()
            if mirrored and name in listed:
                problems.append(f"{package}/{name}.py has a test module: leave UNMIRRORED")
            elif not mirrored and name not in listed:
                problems.append(f"{package}/{name}.py has no tests/{package}/test_*.py")
            listed.discard(name)
        problems += [f"UNMIRRORED lists {package}/{name}.py, which does not exist"
                     for name in sorted(listed)]
    assert not problems, "\n".join(problems)
