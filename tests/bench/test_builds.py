"""bench/builds.py: which compiled build may be reused (its digest of the sources)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from cardhall.bench import builds

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def checkout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A small stand-in checkout: the real pyproject.toml and setup.py, one file in each
    package folder."""
    for name in ("pyproject.toml", "setup.py"):
        shutil.copy(ROOT / name, tmp_path / name)
    monkeypatch.setattr(builds, "ROOT", tmp_path)  # (first: an installed package has none)
    for folder in builds.sources():
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "__init__.py").write_text("")
    return tmp_path


def test_every_package_folder_is_a_source_of_the_build(monkeypatch: pytest.MonkeyPatch) -> None:
    """The folders are pyproject.toml's packages, the command line's included (a cached build
    once carried a stale ``cli`` package: it was not among the hashed folders). Read from
    this checkout's pyproject.toml: an installed package (the compiled build) is none."""
    monkeypatch.setattr(builds, "ROOT", ROOT)
    assert builds.sources() == ["bench", "cli", "client", "games", "protocol", "server"]


@pytest.mark.parametrize("changed", ["cli/serve.py", "server/static/js/room.js",
                                     "bench/think.js", "server/data/names.tsv"])
def test_any_file_a_build_ships_changes_the_digest(checkout: Path, changed: str) -> None:
    """A change to a module or to a file the package ships beside its modules (the web
    page, the human-pace generator, data) asks for a new build, not the cached one."""
    before = builds.digest()
    (checkout / changed).parent.mkdir(parents=True, exist_ok=True)
    (checkout / changed).write_text("changed")
    assert builds.digest() != before


def test_what_builds_and_runs_leave_does_not_change_the_digest(checkout: Path) -> None:
    """Byte code and extension modules in the folders are not sources."""
    before = builds.digest()
    (checkout / "server" / "__pycache__").mkdir()
    (checkout / "server" / "__pycache__" / "room.cpython-311.pyc").write_bytes(b"\0")
    (checkout / "games" / "cards.cpython-311-x86_64-linux-gnu.so").write_bytes(b"\0")
    assert builds.digest() == before
