"""Shared random-playout checks for every engine (OpenSpiel's ``random_sim_test`` idea).

``random_playout`` plays a game with a strategy and, after every step, checks the contract of
:class:`cardhall.games.base.Game` (``tests/games/test_game_contract.py`` runs it over every
registered engine):

* card conservation: every card of the game is in exactly one zone of ``card_locations()``;
* exact legal actions: each listed action applies (on a ``clone``), each candidate action
  that is not listed raises ``IllegalAction`` and leaves the snapshot unchanged, and seats that
  may not act have no legal actions;
* views leak nothing: every card code in ``view(seat)`` is one that seat may see (the test
  supplies that set), and no view holds the seed; every view names its game; views survive a
  msgpack round trip; ``views``, ``bot_view`` and the engine's ``deltas`` agree with ``view``;
  the keys the ``GameType`` does not call per-seat are alike in every seat's view;
* the ``GameType``'s turns: several seats act at once only in its real-time modes;
* snapshot/restore round trip, ``clone`` independence, ``resample`` consistency with the
  acting seat's view (engines that sample), settings that move no ``state_id``, a replay of
  the log (with its settings) to the same state, and termination within a bounded number of
  steps; once over, nobody may act.

``assert_refused`` checks one refused action: the right error, and the state left untouched.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

import msgpack
import pytest
from cardhall import protocol
from cardhall.games import Game, GameOver, IllegalAction, LogEntry, replay

CARD_RE = re.compile(r"^[A2-9TJQK][CDHS]\d?$")

AllowedCards = Callable[[Game, "int | None"], set[str]]
Candidates = Callable[[Game, int], Iterable[Sequence[Any]]]
Strategy = Callable[[dict[str, Any], random.Random], Sequence[Any]]


def nested(obj: Any) -> Iterator[tuple[Any, bool]]:
    """Every value in a nested structure of dicts, lists and tuples, and every dict key, as
    ``(item, is_key)``."""
    stack = [obj]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            yield from ((k, True) for k in item)
            stack.extend(item.values())
        elif isinstance(item, (list, tuple)):
            stack.extend(item)
        else:
            yield item, False


def cards_in(obj: Any) -> set[str]:
    """Every string (value or key) in a nested view that looks like a card code."""
    return {x for x, _ in nested(obj) if isinstance(x, str) and CARD_RE.match(x)}


def keys_in(obj: Any) -> set[str]:
    """Every dict key in a nested structure."""
    return {x for x, key in nested(obj) if key and isinstance(x, str)}


def ints_in(obj: Any) -> set[int]:
    """Every int value or key (not a bool) in a nested structure."""
    return {x for x, _ in nested(obj) if isinstance(x, int) and not isinstance(x, bool)}


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
    """No view holds a card its seat may not see, nor the seed; every view names its game;
    views pack with msgpack; ``views`` and ``bot_view`` give the same views; the keys the
    game does not declare per-seat are alike in every view."""
    audience: list[int | None] = [None, *range(game.seats)]
    together = game.views(audience)
    per_seat = game.TYPE.per_seat_view_keys
    public: dict[str, Any] | None = None
    for seat in audience:
        view = game.view(seat)
        assert msgpack.unpackb(msgpack.packb(view), strict_map_key=False) is not None
        leaked = cards_in(view) - allowed(game, seat)
        assert not leaked, f"view of seat {seat} leaks {sorted(leaked)}"
        assert "seed" not in keys_in(view), "a view holds the seed"
        assert view["game"] == game.name
        assert view["state_id"] == game.state_id
        assert together[seat] == view, f"views() differs from view({seat})"
        if seat is None:
            assert view["legal_actions"] == []
        else:
            assert dict(game.bot_view(seat)) == view, f"bot_view({seat}) differs"
            legal = [tuple(a) for a in view["legal_actions"]]
            assert legal == [tuple(a) for a in game.legal_actions(seat)]
        if per_seat is not None:
            shared = {k: v for k, v in view.items() if k not in per_seat}
            assert public is None or shared == public, f"seat {seat} sees another table"
            public = shared


def check_legal_exact(game: Game, candidates: Candidates | None, rng: random.Random,
                      max_applied: int = 12) -> None:
    """Listed actions apply (on clones); unlisted candidates raise and change nothing."""
    snap = game.snapshot()
    acting = set(game.to_act())
    for seat in range(game.seats):
        legal = [tuple(a) for a in game.legal_actions(seat)]
        assert legal == [tuple(a) for a in game.legal_actions(seat)], "legal_actions not stable"
        if seat not in acting:
            assert not legal, f"seat {seat} may not act but has legal actions {legal[:3]}"
        sample = legal if len(legal) <= max_applied else rng.sample(legal, max_applied)
        for action in sample:
            copy = game.clone()
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


def check_copies(game: Game, rng: random.Random) -> None:
    """Snapshots survive msgpack and restore to the same state; a clone is the same state
    and nothing done to it shows in the game; a sample from the acting seat's view (engines
    that resample) shows that seat the same view."""
    cls = type(game)
    snap = game.snapshot()
    assert cls.restore(msgpack.unpackb(msgpack.packb(snap))).snapshot() == snap
    twin = game.clone()
    assert twin.snapshot() == snap
    acting = game.to_act()
    if acting:
        seat = acting[rng.randrange(len(acting))]
        twin.apply(seat, game.legal_actions(seat)[0])
        assert game.snapshot() == snap, "a change to a clone showed in the game"
        view = game.view(seat)
        try:
            sample = cls.resample(view, random.Random(rng.getrandbits(32)))
        except NotImplementedError:
            return
        assert sample.view(seat) == view, "a resampled game shows the seat another view"


def check_turns(game: Game) -> None:
    """Seats act at once only in the real-time modes the ``GameType`` declares."""
    acting = game.to_act()
    assert acting == sorted(acting)
    if len(acting) > 1:
        assert game.TYPE.real_time(game.options), \
            f"seats {acting} act at once in a turn-based game ({game.options.get('mode')})"


class _Deltas:
    """Every seat's view kept by the engine's deltas, as a room's members keep theirs."""

    def __init__(self, game: Game) -> None:
        self.audience: list[int | None] = [None, *range(game.seats)]
        self.views = {s: game.view(s) for s in self.audience}
        game.deltas(self.audience)  # the engine's mark at this state

    def step(self, game: Game) -> None:
        deltas = game.deltas(self.audience)
        for seat in self.audience:
            if deltas is None:
                self.views[seat] = game.view(seat)
            else:
                protocol.apply_delta(self.views[seat], dict(deltas[seat]))
                assert self.views[seat] == game.view(seat), f"seat {seat}'s delta is wrong"


def check_over(game: Game, last: LogEntry | None) -> None:
    """A finished game: nobody acts, every seat has no legal and no default action, and
    the last action (a known one) is refused as ``GameOver``."""
    assert game.to_act() == []
    assert game.outcome() is not None
    for seat in range(game.seats):
        assert game.legal_actions(seat) == []
        assert game.default_action(seat) is None
    if last is not None and last.action is not None:
        snap = game.snapshot()
        with pytest.raises(GameOver):
            game.apply(last.seat, last.action)
        assert game.snapshot() == snap


def _maybe_set(game: Game, rng: random.Random, log: list[LogEntry]) -> None:
    """Now and then a seat sets one of the game's settings for itself: ``state_id`` and
    every seat's legal actions stay as they were (a setting is no move)."""
    settings = game.TYPE.settings
    if not settings or rng.random() > 0.1:
        return
    seat = rng.randrange(game.seats)
    spec = settings[rng.randrange(len(settings))]
    entry = LogEntry.setting(seat, [spec.name, spec.choices[rng.randrange(len(spec.choices))]])
    before = game.state_id, [game.legal_actions(s) for s in range(game.seats)]
    try:
        game.apply_entry(entry)
    except IllegalAction:
        return  # e.g. the seat has left the game
    assert (game.state_id, [game.legal_actions(s) for s in range(game.seats)]) == before
    log.append(entry)


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
    Settings of the game are set now and then on the way; at the end the log (actions and
    settings, packed with msgpack) replays to the same state, whole and from a snapshot
    taken halfway.

    Returns:
        The finished game.

    Raises:
        AssertionError: an invariant broke, or the game did not end within ``max_steps``.
    """
    rng = random.Random(rng_seed)
    start = (type(game), dict(game.options), game.seats, game.snapshot())
    expected: Counter[int] = Counter()
    for cards in game.card_locations().values():
        expected.update(cards)
    log: list[LogEntry] = []
    halfway: tuple[int, dict[str, Any]] | None = None
    deltas = _Deltas(game)
    for step in range(max_steps):
        if step % check_every == 0:
            check_conservation(game, expected)
            check_views(game, allowed)
            check_legal_exact(game, candidates, rng)
            check_copies(game, rng)
            check_turns(game)
        if game.over:
            check_over(game, next((e for e in reversed(log) if e.kind == "a"), None))
            _check_replay(game, start, log, halfway)
            return game
        if halfway is None and step >= 20:
            halfway = (len(log), game.snapshot())
        _maybe_set(game, rng, log)
        seats = game.to_act()
        assert seats, "game not over but nobody may act"
        seat = seats[rng.randrange(len(seats))]
        action = strategy(game.view(seat), rng)
        before = game.state_id
        entry = LogEntry.act(seat, action)
        game.apply_entry(entry)
        log.append(entry)
        assert game.state_id == before + 1
        deltas.step(game)
    raise AssertionError(f"game did not end within {max_steps} steps")


def _check_replay(game: Game, start: tuple[type[Game], dict[str, Any], int, dict[str, Any]],
                  log: list[LogEntry], halfway: tuple[int, dict[str, Any]] | None) -> None:
    """The log replays from the deal (and from the halfway snapshot) to ``game``'s state."""
    cls, options, seats, first = start
    # From the deal; a game a test set up by hand (a restored snapshot) from there.
    base = None if cls(options, seats).snapshot() == first else first
    packed = msgpack.unpackb(msgpack.packb(log))
    assert replay(cls, options, seats, packed, base).snapshot() == game.snapshot()
    if halfway is not None:
        n, snap = halfway
        assert replay(cls, options, seats, packed[n:], snap).snapshot() == game.snapshot()


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
