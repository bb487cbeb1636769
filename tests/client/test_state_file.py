"""Tests of the client's state files (``cardhall.client.state_file``): lenient reads, atomic
owner-only writes."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from cardhall.client.state_file import load_entries, save_entries, state_path


def test_entries_round_trip_with_owner_only_modes(tmp_path: Path) -> None:
    """The file is 0600 in a new 0700 folder, and no temporary file is left beside it."""
    path = tmp_path / "new" / "seats.json"
    save_entries(path, "seats/1", "seats", {"r1": {"token": "t1", "seat": 0}})
    assert load_entries(path, "seats/1", "seats") == {"r1": {"token": "t1", "seat": 0}}
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert os.listdir(path.parent) == ["seats.json"]


@pytest.mark.parametrize("text", [
    None, "", "{not json", "[1, 2]", '{"format": "seats/2", "seats": {"r1": {}}}',
    '{"format": "seats/1"}', '{"format": "seats/1", "seats": ["r1"]}',
])
def test_a_missing_broken_or_foreign_file_reads_as_empty(tmp_path: Path,
                                                         text: str | None) -> None:
    """Nothing the user's folder holds makes the client fail to start."""
    path = tmp_path / "seats.json"
    if text is not None:
        path.write_text(text, encoding="utf-8")
    assert load_entries(path, "seats/1", "seats") == {}


def test_entries_that_are_not_maps_are_dropped(tmp_path: Path) -> None:
    """One bad entry does not lose the good ones."""
    path = tmp_path / "seats.json"
    path.write_text('{"format": "f", "k": {"a": {"x": 1}, "b": 3, "c": null}}')
    assert load_entries(path, "f", "k") == {"a": {"x": 1}}


def test_a_failed_write_keeps_the_old_file_and_leaves_no_temporary(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A crash between writing and renaming never leaves half a file."""
    path = tmp_path / "seats.json"
    save_entries(path, "f", "k", {"a": {"x": 1}})

    def fail(src: str, dst: str) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", fail)
    with pytest.raises(OSError, match="disk full"):
        save_entries(path, "f", "k", {"b": {"y": 2}})
    assert load_entries(path, "f", "k") == {"a": {"x": 1}}
    assert os.listdir(tmp_path) == ["seats.json"]


def test_state_path_follows_xdg_state_home(tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """On Linux: ``$XDG_STATE_HOME/cardhall/NAME``."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    assert state_path("account.json") == tmp_path / "cardhall" / "account.json"
