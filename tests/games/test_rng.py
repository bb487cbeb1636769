"""Tests of the engines' seeded generator (``cardhall.games.rng``)."""

from __future__ import annotations

import msgpack
import pytest
from cardhall.games.errors import SnapshotError
from cardhall.games.rng import GameRNG


def _draws(rng: GameRNG) -> list[object]:
    items = list(range(10))
    rng.shuffle(items)
    return [items, rng.randrange(1000), rng.sample(list("abcdef"), 3), rng.random()]


def test_equal_seeds_draw_equal_numbers_and_other_seeds_do_not() -> None:
    """The deal is a function of the seed alone."""
    assert _draws(GameRNG(7)) == _draws(GameRNG(7))
    assert _draws(GameRNG(7)) != _draws(GameRNG(8))


def test_copy_draws_the_same_numbers_next_and_is_independent() -> None:
    """A copy continues the sequence; drawing from it does not move the original."""
    rng = GameRNG(3)
    rng.random()
    twin = rng.copy()
    first = _draws(twin)
    _draws(twin)
    assert _draws(rng) == first


def test_snapshot_is_msgpack_data_and_restores_the_sequence() -> None:
    """A restored generator (through msgpack, as the store keeps it) draws what the original
    would have drawn."""
    rng = GameRNG(11)
    _draws(rng)
    data = msgpack.unpackb(msgpack.packb(rng.snapshot()), strict_map_key=False)
    assert _draws(GameRNG.restore(data)) == _draws(rng)


@pytest.mark.parametrize("data", [[], [3], [3, [1, 2], None], "state", [3, 5, None]])
def test_restore_refuses_what_is_not_a_generator_state(data: object) -> None:
    """A bad state is a SnapshotError (the room reports a bad snapshot), not a crash."""
    with pytest.raises(SnapshotError, match="bad RNG state"):
        GameRNG.restore(data)  # type: ignore[arg-type]


def test_bad_arguments_raise_value_error() -> None:
    """``randrange(0)`` and a sample larger than the population are ValueError."""
    with pytest.raises(ValueError):
        GameRNG(1).randrange(0)
    with pytest.raises(ValueError):
        GameRNG(1).sample([1, 2], 3)


def _state(rng: GameRNG) -> list[object]:
    """The generator's true state, read afresh (what ``snapshot`` must give)."""
    version, internal, gauss = rng._r.getstate()
    return [version, list(internal), gauss]


@pytest.mark.parametrize("draw", [
    lambda r: r.shuffle(list(range(5))), lambda r: r.randrange(9),
    lambda r: r.sample([1, 2, 3], 2), lambda r: r.random()])
def test_a_snapshot_after_any_draw_is_the_state_after_it(draw: object) -> None:
    """The state a snapshot or a copy keeps (issue #43) is dropped by every draw: a
    snapshot, a draw, a snapshot again gives the new state, in the original and in a copy."""
    rng = GameRNG(5)
    before = rng.snapshot()
    assert before == _state(rng)
    draw(rng)  # type: ignore[operator]
    after = rng.snapshot()
    assert after == _state(rng) != before
    twin = rng.copy()
    assert twin.snapshot() == after
    draw(twin)  # type: ignore[operator]
    assert twin.snapshot() == _state(twin) != after
    assert rng.snapshot() == after
    assert rng.snapshot() is not rng.snapshot()  # each caller gets lists of its own
