"""Tests of the schema generator (``cardhall.server.schema``) on its cheapest game: JSON
normalisation, deterministic playouts, one event branch per type, the files it writes.
(tests/cli/test_bot_tools.py checks the checked-in files against every game.)"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cardhall.server import schema as S

GAME = "shufflejack"


def test_to_json_is_what_a_json_client_reads() -> None:
    """Tuples become arrays, seat-number keys strings; bytes cannot be sent as JSON."""
    assert S.to_json({0: (1, 2), "a": [{"b": (None,)}]}) == {"0": [1, 2], "a": [{"b": [None]}]}
    with pytest.raises(TypeError):
        S.to_json({"x": b"\x00"})


def test_a_playout_is_a_function_of_its_seed() -> None:
    """Equal seeds, equal samples; the first samples are every seat's view and the
    spectator's (solo: two), then views and events."""
    first = list(S.playout(GAME, 1, {}, "random", 3))
    assert first == list(S.playout(GAME, 1, {}, "random", 3))
    assert first != list(S.playout(GAME, 1, {}, "random", 4))
    assert [kind for kind, _ in first[:2]] == ["view", "view"]
    assert {kind for kind, _ in first} == {"view", "event"}


def test_generate_gives_a_view_schema_and_one_branch_per_event_type() -> None:
    """Draft 2020-12; each event branch pins its ``type`` by ``const``; the same twice."""
    pytest.importorskip("genson")
    schemas = S.generate(GAME)
    assert set(schemas) == {"view", "event"}
    assert schemas["view"]["$schema"] == S.DRAFT and schemas["view"]["type"] == "object"
    branches = schemas["event"]["oneOf"]
    types = [b["properties"]["type"]["const"] for b in branches]
    assert types == sorted(set(types)) and types
    assert S.render(S.generate(GAME)["event"]) == S.render(schemas["event"])


def test_render_is_stable_text() -> None:
    """Sorted keys, one-space indent, UTF-8 kept, one final newline."""
    assert S.render({"b": "é", "a": [1]}) == '{\n "a": [\n  1\n ],\n "b": "é"\n}\n'


def test_write_all_writes_then_finds_nothing_to_change(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A fresh folder gets both files; a check then names none; a stale file is named and,
    under ``check``, left as it is."""
    pytest.importorskip("genson")
    monkeypatch.setattr(S, "names", lambda: [GAME])
    out = tmp_path / "schemas"
    assert S.write_all(out) == [f"{GAME}.view.json", f"{GAME}.event.json"]
    assert json.loads((out / f"{GAME}.view.json").read_text())["title"].startswith("Cardhall")
    assert S.write_all(out, check=True) == []
    (out / f"{GAME}.event.json").write_text("{}\n")
    assert S.write_all(out, check=True) == [f"{GAME}.event.json"]
    assert (out / f"{GAME}.event.json").read_text() == "{}\n"
