"""The seeded random number generator every engine keeps inside its state.

Engines never touch the ``random`` module's global generator: each game owns one
:class:`GameRNG`, seeded from the room's ``seed`` option, and its state is part of the
snapshot, so a restored game draws exactly the numbers the original would have drawn.
"""

from __future__ import annotations

import random
from collections.abc import MutableSequence
from typing import Any, TypeVar

from .errors import SnapshotError

T = TypeVar("T")


class GameRNG:
    """A deterministic RNG (Mersenne Twister via :class:`random.Random`) with plain-data state.

    Args:
        seed: Any integer; equal seeds give equal sequences on every platform. Or a
            :class:`random.Random` to draw from (taken as it is, not copied: :meth:`copy`;
            nothing else may draw from it, or :meth:`snapshot` may give an older state).

    The generator's state (``Random.getstate``: 625 ints made anew on every call, ~30 us)
    is kept from one :meth:`snapshot` or :meth:`copy` to the next while nothing was drawn:
    a room snapshots its game every 64 moves, and most games draw only when they deal.
    """

    __slots__ = ("_r", "_state")

    def __init__(self, seed: int | random.Random) -> None:
        self._r = seed if isinstance(seed, random.Random) else random.Random(seed)
        self._state: tuple[Any, ...] | None = None  # getstate() while nothing was drawn

    def shuffle(self, items: MutableSequence[T]) -> None:
        """Shuffle ``items`` in place (Fisher-Yates)."""
        self._state = None
        self._r.shuffle(items)

    def randrange(self, n: int) -> int:
        """A uniform integer in ``[0, n)``. Raises ValueError when ``n <= 0``."""
        self._state = None
        return self._r.randrange(n)

    def sample(self, items: list[T], k: int) -> list[T]:
        """``k`` distinct items chosen uniformly. Raises ValueError when ``k > len(items)``."""
        self._state = None
        return self._r.sample(items, k)

    def random(self) -> float:
        """A uniform float in ``[0.0, 1.0)``."""
        self._state = None
        return self._r.random()

    def _getstate(self) -> tuple[Any, ...]:
        state = self._state
        if state is None:
            state = self._state = self._r.getstate()
        return state

    def copy(self) -> GameRNG:
        """An independent generator in the same state (it draws the same numbers next)."""
        # Random.__new__ leaves the seeding to setstate (Random(0) would seed twice: 4 us).
        # GameRNG itself is built by its __init__: a compiled class always runs it.
        twin = random.Random.__new__(random.Random)
        state = self._getstate()
        twin.setstate(state)
        copy = GameRNG(twin)
        copy._state = state  # (a tuple of ints: shared, never changed)
        return copy

    def snapshot(self) -> list[Any]:
        """The generator state as plain msgpack-able data (a list of ints, ~2.5 KB)."""
        version, internal, gauss = self._getstate()
        return [version, list(internal), gauss]

    @classmethod
    def restore(cls, data: object) -> GameRNG:
        """Rebuild a generator from :meth:`snapshot` data (a list: ``[version, internal
        state, gauss]``, as :meth:`snapshot` makes it; a tuple is taken too).

        ``data`` is typed ``object`` and checked here: a stored snapshot is untrusted, and
        a compiled build would refuse a non-list at the call with a TypeError of its own.

        Raises:
            SnapshotError: ``data`` is not a generator state.
        """
        if not isinstance(data, (list, tuple)):
            raise SnapshotError(f"bad RNG state: a list, not {type(data).__name__}")
        rng = cls(0)
        try:
            rng._r.setstate((data[0], tuple(data[1]), data[2]))
        except (TypeError, ValueError, IndexError) as exc:
            raise SnapshotError(f"bad RNG state: {exc}") from None
        return rng
