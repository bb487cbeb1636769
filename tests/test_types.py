"""The package type-checks with ``mypy --strict`` (pyproject's ``[tool.mypy]``) and keeps its
lines within ``[tool.ruff]``'s length.

mypy cannot follow the editable install (setuptools maps ``cardhall.server`` onto
``server/`` and so on through an import hook), so the test lays the package out as mypy
expects it: a ``cardhall/`` folder in ``tmp_path`` whose sub-packages are symlinks to the
repository's folders. mypy runs there without a cache, as CI would.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
#: Every folder of Python files the line-length check covers.
SOURCES = ["cli", "server", "games", "client", "protocol", "bench", "tests", "benchmarks",
           "examples"]


def _package_dirs() -> dict[str, Path]:
    """``{sub-package name: folder}`` from pyproject's ``package-dir`` (``cardhall.server``
    -> ``server/``...)."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    mapping = config["tool"]["setuptools"]["package-dir"]
    return {name.removeprefix("cardhall."): ROOT / folder for name, folder in mapping.items()}


def _require(module: str) -> None:
    if importlib.util.find_spec(module) is None:
        pytest.fail(f"{module} is missing: pip install -e '.[test]'")


def test_package_type_checks_strict(tmp_path: Path) -> None:
    """``mypy -p cardhall`` finds no error; the output lists them when it does."""
    _require("mypy")
    package = tmp_path / "cardhall"
    package.mkdir()
    (package / "__init__.py").touch()
    dirs = _package_dirs()
    assert set(dirs) == {"cli", "bench", "server", "games", "client", "protocol"}, dirs
    for name, folder in dirs.items():
        (package / name).symlink_to(folder, target_is_directory=True)
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml"),
         "--cache-dir", str(tmp_path / ".mypy_cache"), "-p", "cardhall"],
        cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Success: no issues found" in done.stdout, done.stdout


def test_lines_fit_and_pyflakes_finds_nothing() -> None:
    """``ruff check --select E501,F`` passes on every Python file of the repository: lines
    within ``[tool.ruff]``'s 100 characters, and pyflakes' checks (unused imports, names
    shadowed by loop variables, undefined names)."""
    _require("ruff")
    folders = [name for name in SOURCES if (ROOT / name).is_dir()]
    done = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--no-cache", "--select", "E501,F",
         "--output-format", "concise", *folders],
        cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
