"""Skipper's view caches never go stale (issue #43).

The observer (:mod:`cardhall.games.skipper.observer`) reuses a seat's public part, its
stacks and its hand while the values they are built from are equal. These tests play random
games (every mode and seat count, with resignations, forfeits, settings,
roll-backs to a stored snapshot and copies) and check after every step that each seat's
view equals one a fresh observer builds from the game's state alone, and that the deltas,
applied to the views a room's members keep, give the same views.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Mapping
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cardhall.games import LogEntry
from cardhall.games.base import SplitDeltas
from cardhall.games.skipper import Skipper
from cardhall.games.skipper.observer import Observer
from cardhall.protocol import apply_delta

Audience = list[int | None]


def fresh_view(game: Skipper, seat: int | None) -> dict[str, Any]:
    """``seat``'s view built by an observer with no caches: the truth to compare with."""
    return Observer().view(game, seat)


class Members:
    """The views a room's members keep, updated by the engine's deltas (a full view when
    the engine has no delta to give, as a room sends one)."""

    def __init__(self, game: Skipper) -> None:
        self.audience: Audience = [None, *range(game.seats)]
        self.views = {s: copy.deepcopy(game.view(s)) for s in self.audience}
        game.deltas(self.audience)

    def check(self, game: Skipper) -> None:
        """Take the deltas and check every kept view, and the game's own, against a fresh
        one."""
        deltas = game.deltas(self.audience)
        for seat in self.audience:
            truth = fresh_view(game, seat)
            if deltas is None:
                self.views[seat] = copy.deepcopy(game.view(seat))
            else:  # a copy: the delta shares objects with the observer's caches
                check_split(deltas, seat)
                apply_delta(self.views[seat], copy.deepcopy(dict(deltas[seat])))
            assert self.views[seat] == truth, f"seat {seat}'s kept view went stale"
            assert game.view(seat) == truth, f"seat {seat}'s view went stale"


def check_split(deltas: Mapping[int | None, dict[str, Any]], seat: int | None) -> None:
    """The engine's deltas come in parts (:class:`SplitDeltas`): ``seat``'s own part (the
    same object every time) has no key of the shared part, and the two merged are the
    seat's delta (a spectator's is the shared part itself)."""
    assert isinstance(deltas, SplitDeltas)
    own = deltas.own(seat)
    assert deltas.own(seat) is own
    if own is None:
        assert deltas[seat] is deltas.shared
    else:
        assert own and not own.keys() & deltas.shared.keys()
        assert set(own) <= {"hand", "legal_actions"} and seat is not None
        assert deltas[seat] == {**deltas.shared, **own}


def _act(game: Skipper, rng: random.Random) -> None:
    """A random legal action of a seat that may act (resigning seldom)."""
    seat = rng.choice(game.to_act())
    legal = game.legal_actions(seat)
    moves = [a for a in legal if a[0] != "resign"]
    action = rng.choice(legal) if not moves or rng.random() < 0.01 else rng.choice(moves)
    game.apply_entry(LogEntry.act(seat, action))


def walk(seed: int, mode: str, seats: int, steps: int) -> None:
    """Play ``steps`` random steps of a game, checking every seat's views after each."""
    rng = random.Random(seed)
    game = Skipper({"mode": mode, "seed": seed, "turn_limit": 40}, seats)
    members = Members(game)
    stored = game.snapshot()  # the state a store last kept (a failed append goes back)
    for _ in range(steps):
        if game.over:
            return
        r = rng.random()
        active = [i for i, p in enumerate(game.players) if p.status == "active"]
        if r < 0.03 and active:
            game.apply_entry(LogEntry.forfeit(rng.choice(active)))
        elif r < 0.10 and active:
            seat = rng.choice(active)
            game.apply_entry(LogEntry.setting(seat, ["auto_trash", rng.choice(["on", "off"])]))
        elif r < 0.13:
            game = Skipper.restore(stored)  # a roll-back: the room replays to a new game
        elif r < 0.15:
            game = game.clone()
        else:
            _act(game, rng)
        if rng.random() < 0.05:
            stored = game.snapshot()
        members.check(game)


@pytest.mark.parametrize(("mode", "seats"), [("solo", 1), ("multi", 2), ("multi", 4),
                                             ("multi", 6), ("race", 3)])
@pytest.mark.parametrize("seed", range(3))
def test_views_and_deltas_never_go_stale(mode: str, seats: int, seed: int) -> None:
    walk(seed, mode, seats, 400)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32), seats=st.integers(2, 6), race=st.booleans())
def test_views_never_go_stale_in_any_game(seed: int, seats: int, race: bool) -> None:
    walk(seed, "race" if race else "multi", seats, 150)


def test_a_change_behind_the_rules_back_is_seen() -> None:
    # The caches compare what a seat shows, not a count the rules keep: a hand changed
    # from outside the rules (as a test or a sample position does) shows at once.
    game = Skipper({"mode": "multi", "seed": 3}, 4)
    game.view(0)
    game.players[1].hand = game.players[1].hand[:-1]
    assert game.view(0) == fresh_view(game, 0)


@pytest.mark.parametrize("mode", ["multi", "race"])
def test_legal_actions_hand_out_the_same_tuples_every_time(mode: str) -> None:
    # Issue #43: no tuple is built per call, so a room's compare of a seat's legal actions
    # with the ones it sent last goes by identity; the actions are the same as ever.
    game = Skipper({"mode": mode, "seed": 9}, 3)
    rng = random.Random(9)
    for _ in range(60):
        if game.over:
            break
        for seat in game.to_act():
            first, again = game.legal_actions(seat), game.legal_actions(seat)
            assert first == again and first is not again
            assert all(a is b for a, b in zip(first, again, strict=True))
            assert all(type(a) is tuple and a[0] in ("play", "discard", "auction", "bid",
                                                     "pass", "end", "resign") for a in first)
        _act(game, rng)


def test_the_delta_pointers_name_every_field_of_a_public_seat() -> None:
    # The observer's deltas use pointers made once per seat and field (issue #43).
    from cardhall.games.skipper.observer import FIELD_POINTERS, SEAT_FIELDS, STACK_POINTERS
    game = Skipper({"mode": "multi", "seed": 2}, 6)
    for j, seat in enumerate(game.view(None)["seats"]):
        assert tuple(seat) == SEAT_FIELDS
        assert FIELD_POINTERS[j] == {f: f"/seats/{j}/{f}" for f in seat}
        assert STACK_POINTERS[j] == [f"/seats/{j}/stacks/{k}" for k in range(4)]


@pytest.mark.parametrize(("mode", "seats"), [("solo", 1), ("multi", 4), ("race", 3)])
def test_the_shared_parts_deltas_read_are_the_views(mode: str, seats: int) -> None:
    # Observer.changing_shared calls the parts directly (issue #43): it must give what the
    # view's own parts (VIEW_PARTS) give, at every state, auctions and the end included.
    from cardhall.games.skipper.observer import CHANGING_SHARED, VIEW_PARTS
    game = Skipper({"mode": mode, "seed": 4, "turn_limit": 30}, seats)
    rng = random.Random(4)
    while True:
        obs = Observer()
        assert obs.changing_shared(game) == tuple(VIEW_PARTS[key](game, Observer(), None)
                                                  for key in CHANGING_SHARED)
        if game.over:
            break
        _act(game, rng)


def test_split_deltas_refuse_a_seat_not_asked_and_a_late_first_read() -> None:
    # SeatDeltas.own (issue #43): a seat the deltas were not asked for is a KeyError; an
    # own part first read after the game moved on is refused rather than wrong; one read
    # before stays the same object.
    game = Skipper({"mode": "multi", "seed": 3}, 4)
    game.deltas([0, 1, 2, 3])
    rng = random.Random(3)
    _act(game, rng)
    deltas = game.deltas([None, 0, 1, 2])
    assert isinstance(deltas, SplitDeltas)
    with pytest.raises(KeyError):
        deltas.own(3)
    first = deltas.own(0)
    assert deltas.own(None) is None
    _act(game, rng)
    assert deltas.own(0) is first
    with pytest.raises(RuntimeError, match="after the state"):
        deltas.own(1)
