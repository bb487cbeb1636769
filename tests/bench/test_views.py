"""Tests of the cross-seat view comparison (``cardhall.bench.views``, issue #35)."""

from __future__ import annotations

from cardhall.bench.views import shared_digest, split_states

VIEW = {"game": "skipper", "state_id": 4, "piles": [1, 2], "hand": ["AS"],
        "legal_actions": [["play", "AS"]], "room": {"connected": [0, 1]}}


def test_the_digest_leaves_out_per_seat_keys_and_the_room() -> None:
    """Two seats' views of one game share a digest; a different table does not."""
    other_seat = {**VIEW, "hand": ["KD"], "legal_actions": [], "room": {"connected": [1]}}
    assert shared_digest(VIEW, ["hand", "legal_actions"]) == shared_digest(
        other_seat, ["hand", "legal_actions"])
    assert shared_digest(VIEW, ["hand", "legal_actions"]) != shared_digest(
        {**VIEW, "piles": [2, 1]}, ["hand", "legal_actions"])
    digest = shared_digest(VIEW, None)
    assert len(digest) == 16 and int(digest, 16) >= 0


def test_with_no_per_seat_keys_declared_only_legal_actions_are_left_out() -> None:
    """Then a different hand is a different game, different legal actions are not."""
    assert shared_digest(VIEW, None) == shared_digest({**VIEW, "legal_actions": []}, None)
    assert shared_digest(VIEW, None) != shared_digest({**VIEW, "hand": ["KD"]}, None)


def test_split_states_names_each_disagreement_once_sorted() -> None:
    """Only pairs seen with two digests; pairs one client alone saw are no split."""
    seen = [{("r1", 1): "a", ("r1", 2): "b", ("r2", 1): "x"},
            {("r1", 1): "a", ("r1", 2): "c", ("r0", 9): "z"},
            {("r1", 2): "d", ("r2", 1): "y"}]
    assert split_states(seen) == [("r1", 2), ("r2", 1)]
    assert split_states([]) == []
