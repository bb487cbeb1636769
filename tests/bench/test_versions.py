"""Tests of exported server versions (``cardhall.bench.versions``) from made-up folders:
what is exported when, the labels, and an unknown revision. (tests/bench/test_bench.py
imports the exports of HEAD and the checkout.)"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from cardhall.bench.versions import OPTIONAL_PARTS, PARTS, ROOT, export, label


def _tree(root: Path, parts: tuple[str, ...]) -> Path:
    for part in parts:
        (root / part / "__pycache__").mkdir(parents=True)
        (root / part / "mod.py").write_text(f"WHO = {part!r}\n")
        (root / part / "__pycache__" / "mod.cpython-312.pyc").write_bytes(b"\0")
    return root


def test_a_folder_without_the_optional_parts_exports_the_required_ones(tmp_path: Path) -> None:
    """server, protocol and client; no games or cli it lacks; this tree's harness beside
    them (only the version's server is under test); no bytecode."""
    tree = _tree(tmp_path / "old", PARTS)
    out = export(str(tree), tmp_path / "out")
    pkg = out / "cardhall"
    assert sorted(p.name for p in pkg.iterdir()) == sorted(
        ["__init__.py", "bench", *PARTS])
    assert (pkg / "server" / "mod.py").read_text() == "WHO = 'server'\n"
    assert (pkg / "bench" / "versions.py").read_bytes() == (ROOT / "bench" / "versions.py"
                                                             ).read_bytes()
    assert not list(pkg.rglob("*.pyc"))


def test_the_optional_parts_come_along_when_there(tmp_path: Path) -> None:
    """A version's engines run under its own server, not the installed checkout's."""
    tree = _tree(tmp_path / "new", (*PARTS, *OPTIONAL_PARTS))
    pkg = export(str(tree), tmp_path / "out") / "cardhall"
    assert all((pkg / part / "mod.py").is_file() for part in OPTIONAL_PARTS)


def test_a_folder_missing_a_required_part_is_taken_for_a_revision(tmp_path: Path) -> None:
    """Then git does not know it: CalledProcessError, for export and label alike."""
    tree = _tree(tmp_path / "half", PARTS[:2])
    with pytest.raises(subprocess.CalledProcessError):
        export(str(tree), tmp_path / "out")
    with pytest.raises(subprocess.CalledProcessError):
        label(str(tree))


def test_labels_name_the_working_tree_folders_and_commits(tmp_path: Path) -> None:
    """``.`` is the working tree; a folder is itself; a revision gets its short hash."""
    assert label(".") == ". (working tree)"
    tree = str(_tree(tmp_path / "v", PARTS))
    assert label(tree) == tree
    if not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    sha = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
                         capture_output=True, text=True, check=True).stdout.strip()
    assert label("HEAD") == f"HEAD ({sha})" and label(sha) == sha
