"""Tests of the game contract's declared parts (``cardhall.games.base``) on their own: log
entries read back from stores, rankings' scores, settings told apart from moves, outcome
kinds. (tests/games/test_game_contract.py runs the contract over every engine.)"""

from __future__ import annotations

from types import MappingProxyType
from typing import Any

import msgpack
import pytest
from cardhall.games.base import (
    OUTCOMES, GameType, LogEntry, Ranking, Setting, counts_unless_given_up, counts_when_won,
    outcome_kind)
from cardhall.games.errors import UnknownAction

AUTO = Setting("auto_trash", ("on", "off"), "Trash dead cards by themselves.")


def test_a_log_entry_packs_as_an_array_and_reads_back() -> None:
    """Stores keep ``[kind, seat, action]``; ``of`` makes the entry again, tuples as lists."""
    entries = [LogEntry.act(1, ("play", "5D")), LogEntry.forfeit(2),
               LogEntry.setting(0, ("auto_trash", "off"))]
    stored = msgpack.unpackb(msgpack.packb(entries))
    assert stored == [["a", 1, ["play", "5D"]], ["f", 2, None], ["s", 0, ["auto_trash", "off"]]]
    assert [LogEntry.of(raw) for raw in stored] == entries
    assert LogEntry.of(entries[0]) is entries[0]
    assert LogEntry.of(("a", 0, ("x",))).action == ["x"]


@pytest.mark.parametrize("raw", [
    None, "a0x", ["a", 0], ["a", 0, ["x"], 1], ["z", 0, ["x"]], ["a", True, ["x"]],
    ["a", "0", ["x"]], ["a", 0, []], ["a", 0, "x"], ["f", 0, ["x"]], ["s", 0, None],
])
def test_a_malformed_entry_is_an_unknown_action(raw: Any) -> None:
    """A stored or sent entry of another shape is refused by name, never half-read."""
    with pytest.raises(UnknownAction):
        LogEntry.of(raw)


def test_a_ranking_scores_only_the_games_it_counts() -> None:
    """The first seat's int score of a counted outcome; none for a bool, a float, a missing
    score, a game given up, or a game still running."""
    turns = Ranking("solo", "asc", "turns", counts_when_won)
    points = Ranking("standard", "desc", "points", counts_unless_given_up)
    assert turns.score({"reason": "won", "scores": [41]}) == 41
    assert turns.score({"winner": 0, "scores": [41]}) == 41
    assert turns.score({"reason": "turn_limit", "scores": [41]}) is None
    assert points.score({"reason": "no move left", "scores": [12]}) == 12
    for outcome in ({"reason": "resigned", "scores": [12]}, {"reason": "forfeited",
                                                            "scores": [3]},
                    {"scores": [True]}, {"scores": [1.5]}, {"scores": []}, None):
        assert points.score(outcome) is None, outcome


def test_a_game_type_tells_settings_from_moves_and_modes_apart() -> None:
    """Only an action whose verb is a declared setting is one; real time is per mode; a
    ranking is found by mode, the first without one."""
    ranked = (Ranking("solo", "asc", "turns", counts_when_won),
              Ranking("race", "asc", "turns", counts_when_won))
    kind = GameType(real_time_modes=frozenset({"race"}), settings=(AUTO,), rankings=ranked)
    assert kind.is_setting(["auto_trash", "on"]) and kind.setting("auto_trash") is AUTO
    assert not kind.is_setting(["play", "5D"]) and not kind.is_setting([])
    assert not kind.is_setting([3]) and kind.setting("nope") is None
    assert not GameType().is_setting(["auto_trash", "on"])
    assert kind.real_time({"mode": "race"}) and not kind.real_time({"mode": "solo"})
    assert not kind.real_time({})
    # Any mapping, not only a dict (issue #43 reads a dict's without a method call).
    assert kind.real_time(MappingProxyType({"mode": "race"}))
    assert not kind.real_time(MappingProxyType({"mode": "solo"}))
    assert not GameType().real_time({"mode": "race"})
    assert kind.ranking("race") is ranked[1] and kind.ranking(None) is ranked[0]
    assert kind.ranking("multi") is None
    assert AUTO.describe() == {"name": "auto_trash", "choices": ["on", "off"],
                               "doc": "Trash dead cards by themselves."}


@pytest.mark.parametrize("outcome, kind", [
    ({"winner": 0}, "won"), ({"winner": None, "reason": "move limit"}, "limit"),
    ({"reason": "turn_limit"}, "limit"), ({"reason": "resigned by seat 1"}, "abandoned"),
    ({"reason": "forfeited"}, "abandoned"), ({"reason": "all_out"}, "abandoned"),
    ({"reason": "no move left"}, "lost"), ({}, "lost"), (None, "abandoned"),
])
def test_outcome_kinds_are_a_bounded_set(outcome: dict[str, Any] | None, kind: str) -> None:
    """Every outcome is one of OUTCOMES (a metric label), whatever its reason says."""
    assert outcome_kind(outcome) == kind and kind in OUTCOMES
