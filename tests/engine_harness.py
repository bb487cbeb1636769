"""Shared random-playout checks for every engine (OpenSpiel's ``random_sim_test`` idea).

``random_playout`` plays a game with a strategy and, after every step, checks the contract of
:class:`cardhall.games.base.Game`:

* card conservation: every card of the game is in exactly one zone of ``card_locations()``;
* exact legal actions: each listed action applies (on a restored copy), each candidate action
  that is not listed raises ``IllegalAction`` and leaves the snapshot unchanged, and seats that
  may not act have no legal actions;
* views leak nothing: every card code in ``view(seat)`` is one that seat may see (the test
  supplies that set), and no view holds the seed; views survive a msgpack round trip;
* snapshot/restore round trip and termination within a bounded number of steps.

``assert_refused`` checks one refused action: the right error, and the state left untouched.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import msgpack
import pytest
from cardhall.games import Game, IllegalAction

CARD_RE = re.compile(r"^[A2-9TJQK][CDHS]\d?$")

AllowedCards = Callable[[Game, "int | None"], set[str]]
Candidates = Callable[[Game, int], Iterable[Sequence[Any]]]
Strategy = Callable[[dict[str, Any], random.Random], Sequence[Any]]


def cards_in(obj: Any) -> set[str]:
    """Every string in a nested view that looks like a card code."""
    found: set[str] = set()
    stack = [obj]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if CARD_RE.match(item):
                found.add(item)
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, (list, tuple)):
            stack.extend(item)
    return found


def keys_in(obj: Any) -> set[str]:
    """Every dict key in a nested structure."""
    found: set[str] = set()
    stack = [obj]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            found.update(k for k in item if isinstance(k, str))
            stack.extend(item.values())
        elif isinstance(item, (list, tuple)):
            stack.extend(item)
    return found


def assert_refused(game: Game, action: Sequence[Any], error: type[Exception],
                   match: str | None = None, seat: int = 0) -> None:
    """``game.apply(seat, action)`` raises ``error`` and leaves the snapshot unchanged.

    Args:
        game: The game, as it stands.
        action: The action to refuse.
        error: The exception class ``apply`` must raise (e.g. ``IllegalAction``).
        match: A regular expression the error message must match (``pytest.raises``);
            ``None`` checks only the class.
        seat: The acting seat.

    Raises:
        AssertionError: the state changed, or the message does not match ``match``.
        pytest.fail.Exception: ``apply`` raised nothing.
        Exception: any other error ``apply`` raised (not an ``error``) propagates.
    """
    snap = game.snapshot()
    with pytest.raises(error, match=match):
        game.apply(seat, action)
    assert game.snapshot() == snap, f"refused {action!r} changed the state"


def check_conservation(game: Game, expected: Counter[int]) -> None:
    """Every card is in exactly one zone, and the multiset of cards never changes."""
    seen: Counter[int] = Counter()
    for cards in game.card_locations().values():
        seen.update(cards)
    dupes = [c for c, n in seen.items() if n > 1]
    assert not dupes, f"cards in two places: {dupes}"
    assert seen == expected, (
        f"cards appeared or vanished: {(seen - expected)} / {(expected - seen)}")


def check_views(game: Game, allowed: AllowedCards) -> None:
    """No view holds a card its seat may not see, nor the seed; views pack with msgpack."""
    for seat in [None, *range(game.seats)]:
        view = game.view(seat)
        assert msgpack.unpackb(msgpack.packb(view), strict_map_key=False) is not None
        leaked = cards_in(view) - allowed(game, seat)
        assert not leaked, f"view of seat {seat} leaks {sorted(leaked)}"
        assert "seed" not in keys_in(view), "a view holds the seed"
        assert view["state_id"] == game.state_id
        if seat is None:
            assert view["legal_actions"] == []
        else:
            legal = [tuple(a) for a in view["legal_actions"]]
            assert legal == [tuple(a) for a in game.legal_actions(seat)]


def check_legal_exact(game: Game, candidates: Candidates | None, rng: random.Random,
                      max_applied: int = 12) -> None:
    """Listed actions apply; unlisted candidates raise and change nothing."""
    cls = type(game)
    snap = game.snapshot()
    acting = set(game.to_act())
    for seat in range(game.seats):
        legal = [tuple(a) for a in game.legal_actions(seat)]
        assert legal == [tuple(a) for a in game.legal_actions(seat)], "legal_actions not stable"
        if seat not in acting:
            assert not legal, f"seat {seat} may not act but has legal actions {legal[:3]}"
        sample = legal if len(legal) <= max_applied else rng.sample(legal, max_applied)
        for action in sample:
            copy = cls.restore(snap)
            copy.apply(seat, action)
            assert copy.state_id == game.state_id + 1
        if candidates is not None:
            legal_set = set(legal)
            for cand in candidates(game, seat):
                if tuple(cand) in legal_set:
                    continue
                try:
                    game.apply(seat, cand)
                except IllegalAction:
                    pass
                else:
                    raise AssertionError(f"unlisted action {cand!r} applied for seat {seat}")
                assert game.snapshot() == snap, f"illegal {cand!r} changed the state"


def random_playout(
    game: Game,
    strategy: Strategy,
    *,
    allowed: AllowedCards,
    candidates: Candidates | None = None,
    rng_seed: int = 0,
    max_steps: int = 20_000,
    check_every: int = 1,
) -> Game:
    """Play ``game`` to its end with ``strategy`` for every seat, checking the contract.

    For real-time games several seats may act at once; each step picks one of them at random.

    Returns:
        The finished game.

    Raises:
        AssertionError: an invariant broke, or the game did not end within ``max_steps``.
    """
    rng = random.Random(rng_seed)
    cls = type(game)
    expected: Counter[int] = Counter()
    for cards in game.card_locations().values():
        expected.update(cards)
    for step in range(max_steps):
        if step % check_every == 0:
            check_conservation(game, expected)
            check_views(game, allowed)
            check_legal_exact(game, candidates, rng)
            snap = game.snapshot()
            assert cls.restore(msgpack.unpackb(msgpack.packb(snap))).snapshot() == snap
        if game.over:
            assert game.to_act() == []
            assert game.outcome() is not None
            return game
        seats = game.to_act()
        assert seats, "game not over but nobody may act"
        seat = seats[rng.randrange(len(seats))]
        action = strategy(game.view(seat), rng)
        before = game.state_id
        game.apply(seat, action)
        assert game.state_id == before + 1
    raise AssertionError(f"game did not end within {max_steps} steps")


def play_out(game: Game, strategy: Strategy, rng: random.Random, seat: int = 0) -> Game:
    """Play ``seat`` of a one-seat game with ``strategy`` (reading that seat's view) until the
    game is over; no checks on the way (see :func:`random_playout` for those).

    Returns:
        The finished game.
    """
    while not game.over:
        game.apply(seat, strategy(game.view(seat), rng))
    return game


def assert_default_actions(game: Game, give_up: str = "resign") -> None:
    """Play a one-seat ``game`` to its end with its ``default_action`` (the move made for a
    seat whose clock ran out): each one is legal and never the ``give_up`` verb while any
    other action is legal; there is none once the game is over.

    Raises:
        AssertionError: a default action broke that rule.
    """
    while not game.over:
        action = game.default_action(0)
        legal = game.legal_actions(0)
        assert action is not None and action in legal, (action, legal)
        assert action[0] != give_up or legal == [(give_up,)], legal
        game.apply(0, action)
    assert game.default_action(0) is None


def assert_view_contract(view: dict[str, Any], seed: int) -> None:
    """``view`` has the keys every engine's view has, and neither the ``seed`` nor the word
    "seed" appears anywhere in it.

    Raises:
        AssertionError: a key is missing or the seed shows.
    """
    for key in ("state_id", "to_act", "over", "outcome", "legal_actions"):
        assert key in view, key
    assert str(seed) not in repr(view) and "seed" not in repr(view)
