"""The seat tokens ``cardhall play`` keeps on disk (client/seat_store.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cardhall.client.seat_store import FORMAT, SeatStore, default_path


def test_put_entries_forget_by_server_and_room(tmp_path: Path) -> None:
    store = SeatStore(tmp_path / "state" / "seats.json")
    assert store.entries("ws://a:1") == []
    store.put("ws://a:1", "r1", 0, "tok-1", game="skipper", mode="multi")
    store.put("ws://b:2", "r1", 2, "tok-2", game="shah")
    store.put("ws://a:1", "r2", 1, "tok-3", game="shop")
    assert [(e["room"], e["seat"], e["token"]) for e in store.entries("ws://a:1")] == \
        [("r1", 0, "tok-1"), ("r2", 1, "tok-3")]
    assert [e["game"] for e in store.entries("ws://b:2")] == ["shah"]
    store.put("ws://a:1", "r1", 3, "tok-4", game="skipper", mode="race")  # replaces
    assert [(e["room"], e["token"]) for e in store.entries("ws://a:1")] == \
        [("r2", "tok-3"), ("r1", "tok-4")]
    store.forget("ws://a:1", "r2")
    store.forget("ws://a:1", "nosuchroom")
    assert [e["room"] for e in store.entries("ws://a:1")] == ["r1"]
    assert len(store.entries("ws://b:2")) == 1
    assert store.path.stat().st_mode & 0o777 == 0o600
    assert store.path.parent.stat().st_mode & 0o777 == 0o700
    assert json.loads(store.path.read_text(encoding="utf-8"))["format"] == FORMAT
    assert [p.name for p in store.path.parent.iterdir()] == ["seats.json"]  # no temp files


@pytest.mark.parametrize("text", ["", "{not json", "[]", '{"format": "other", "seats": {}}',
                                  '{"format": "cardhall-seats/1", "seats": {"k": 5}}'])
def test_an_unreadable_store_is_empty_and_replaced(tmp_path: Path, text: str) -> None:
    path = tmp_path / "seats.json"
    path.write_text(text, encoding="utf-8")
    store = SeatStore(path)
    assert store.entries("ws://a:1") == []
    store.put("ws://a:1", "r1", 0, "tok", game="skipper")
    assert [e["room"] for e in store.entries("ws://a:1")] == ["r1"]


def test_default_path_follows_xdg_state_home(tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    assert default_path() == tmp_path / "cardhall" / "seats.json"
