"""The web client's own checks (issue #44, "The web client"), run from pytest: its unit
tests under ``node --test`` (tests/web/js/: protocol, views, renderers), ``tsc --checkJs``
on the modules marked ``// @ts-check`` (tsconfig.json), and no JavaScript function over 80
lines (tests/web/shape.mjs, TypeScript's parser).

Needs Node (the ``node`` command) and, for the last two, TypeScript installed from npm by
``npm ci`` at the checkout's root (package.json pins it); each test skips and says which
is missing otherwise."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
STATIC_JS = ROOT / "server" / "static" / "js"
TSC = ROOT / "node_modules" / "typescript" / "bin" / "tsc"
#: Lines a JavaScript function may have at most (as Python's, tests/shape.py).
MAX_FUNCTION_LINES = 80


def checked_modules() -> list[str]:
    """Every module of the web client (``server/static/js/**/*.js``, relative to js/): each
    one is type-checked (issue #44: no module left out of ``tsc --checkJs``)."""
    return sorted(str(p.relative_to(STATIC_JS)) for p in STATIC_JS.rglob("*.js"))


def node() -> str:
    """The ``node`` executable, or skip."""
    found = shutil.which("node")
    if found is None:
        pytest.skip("node is not installed (apt-get install nodejs)")
    return found


def typescript() -> Path:
    """TypeScript's ``tsc`` script from ``npm ci``, or skip."""
    if not TSC.exists():
        pytest.skip("typescript is not installed: run `npm ci` at the checkout's root")
    return TSC


def run(*args: str | Path) -> subprocess.CompletedProcess[str]:
    """Run a command at the checkout's root (60 s at most), its output captured."""
    return subprocess.run([str(a) for a in args], cwd=ROOT, capture_output=True, text=True,
                          timeout=60, check=False)


def test_unit_tests_pass_under_node_test() -> None:
    """tests/web/js/*.test.mjs pass under ``node --test`` (and there are some)."""
    tests = sorted((ROOT / "tests" / "web" / "js").glob("*.test.mjs"))
    assert len(tests) >= 4, tests
    done = run(node(), "--test", *tests)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert "# fail 0" in done.stdout and "# pass 0" not in done.stdout, done.stdout[-500:]


def test_checked_modules_pass_tsc_check_js() -> None:
    """``tsc -p tsconfig.json`` (checkJs on the modules marked ``// @ts-check``) finds no
    error, and every module (:func:`checked_modules`) is marked."""
    names = checked_modules()
    assert len(names) >= 25, names
    for name in names:
        assert (STATIC_JS / name).read_text().startswith("// @ts-check\n"), name
    done = run(node(), typescript(), "-p", ROOT / "tsconfig.json")
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]


def function_lengths() -> dict[tuple[str, str, int], int]:
    """Every function of server/static/js: (file relative to js/, name, first line) -> its
    lines (tests/web/shape.mjs)."""
    typescript()
    done = run(node(), ROOT / "tests" / "web" / "shape.mjs", STATIC_JS)
    assert done.returncode == 0, done.stderr[-2000:]
    found = {}
    for line in done.stdout.splitlines():
        f = json.loads(line)
        where = Path(f["file"]).resolve().relative_to(STATIC_JS).as_posix()
        found[(where, f["name"], f["line"])] = f["lines"]
    return found


def test_no_javascript_function_is_over_80_lines() -> None:
    """No function, method or arrow function of the web client is over 80 lines."""
    lengths = function_lengths()
    assert len(lengths) > 200, len(lengths)  # the parser saw the client
    long = {k: size for k, size in lengths.items() if size > MAX_FUNCTION_LINES}
    assert not long, f"over {MAX_FUNCTION_LINES} lines: {long}"


def test_the_length_check_sees_a_long_function(tmp_path: Path) -> None:
    """shape.mjs counts a function's lines from its first line to its last, arrow functions
    and methods included."""
    typescript()
    body = "\n".join(f"  x += {i};" for i in range(81))
    (tmp_path / "m.js").write_text(
        f"export function long(x) {{\n{body}\n  return x;\n}}\n"
        "class A {\n  m() {\n    return 1;\n  }\n}\nconst f = () => {\n  return 2;\n};\n")
    done = run(node(), ROOT / "tests" / "web" / "shape.mjs", tmp_path)
    rows = {(r["name"], r["line"], r["lines"]) for r in map(json.loads,
                                                            done.stdout.splitlines())}
    assert rows == {("long", 1, 84), ("m", 86, 3), ("f", 90, 3)}, rows
