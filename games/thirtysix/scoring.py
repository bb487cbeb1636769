"""Thirty-Six's numbers: turns, the target, the row, what each card counts in a turn and
scores in the PLAYER collection (seed "GAMEPLAY", RULINGS T4-T6, the Baltimore rules).
"""

from __future__ import annotations

from collections.abc import Sequence

from .. import cards as C

#: Turns in a game: the ENEMY stacks hold 17 cards each (RULINGS T4).
TURNS = 17
#: More than this many points wins (seed "OBJECT", RULINGS T6).
TARGET = 36
#: Cards in the row at the start and after an empty row is refilled (seed "SETUP").
ROW_SIZE = 6


def count_value(card: int) -> int:
    """The count of ``card`` in a turn's total: aces 1, 2-10 their pips, J/Q/K 10 (seed
    "GAMEPLAY").

    Args:
        card: A card int (see :mod:`.cards`).

    Returns:
        1..10.
    """
    return min(C.rank(card), 10)


def points(card: int) -> int:
    """Scoring points of ``card`` in the PLAYER collection (RULINGS T6): number cards 1,
    J/Q/K 2, aces 3.

    Args:
        card: A card int.

    Returns:
        1, 2 or 3 points.
    """
    r = C.rank(card)
    if r == C.ACE:
        return 3
    return 2 if r >= C.JACK else 1


def enemy_total(pair: Sequence[int], clubs_double: bool = False) -> int:
    """The ENEMY total of the face-up ENEMY cards (seed "GAMEPLAY"; Baltimore clubs double).

    Args:
        pair: The face-up ENEMY cards (normally two).
        clubs_double: Baltimore rule: clubs count double.

    Returns:
        The total, e.g. 12 for 9D + 3C, 15 with ``clubs_double``.
    """
    return sum(count_value(c) * (2 if clubs_double and C.suit(c) == C.CLUBS else 1)
               for c in pair)


def player_total(committed: Sequence[int], hearts_double: bool = False) -> int:
    """The player's total of committed row cards (seed "GAMEPLAY"; Baltimore hearts double).

    Args:
        committed: The committed row cards.
        hearts_double: Baltimore rule: hearts count double.

    Returns:
        The total (0 for no cards).
    """
    return sum(count_value(c) * (2 if hearts_double and C.suit(c) == C.HEARTS else 1)
               for c in committed)


def collection_score(collection: Sequence[int]) -> int:
    """Points of a PLAYER collection (RULINGS T6); the whole deck scores 72.

    Args:
        collection: Cards of the PLAYER collection.

    Returns:
        The sum of :func:`points`.
    """
    return sum(points(c) for c in collection)
