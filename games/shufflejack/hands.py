"""ShuffleJack's tableau and scores: the lines a hand may use (RULINGS J1), Blackjack counts
(J2), the round's bonus and score (J11) and when a round is passed (J8).
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations

from .. import cards as C

SIZE = 5
POSITIONS = SIZE * SIZE
#: Most rounds in a game (RULINGS J10).
ROUNDS = 7
#: Bonus points by cards left at the end of a round (RULINGS J11).
BONUS = {3: 2, 2: 3, 1: 4}

#: Every line of the tableau (5 rows, then 5 columns) as 0-based indices.
LINES: tuple[tuple[int, ...], ...] = tuple(
    [tuple(range(r * SIZE, r * SIZE + SIZE)) for r in range(SIZE)]
    + [tuple(range(c, POSITIONS, SIZE)) for c in range(SIZE)]
)
LINE_OF_PAIR: dict[tuple[int, int], int] = {}
for _n, _line in enumerate(LINES):
    for _a, _b in combinations(_line, 2):
        LINE_OF_PAIR[(_a, _b)] = _n
#: All index sets a hand may use (J1): 2-5 indices of one line, ascending.
HAND_SHAPES: tuple[tuple[int, ...], ...] = tuple(sorted(
    combo for line in LINES for k in range(2, SIZE + 1) for combo in combinations(line, k)
))


def card_value(card: int) -> int:
    """Blackjack count of ``card`` with aces as 1 (RULINGS J2): A=1, 2-10, J/Q/K=10.

    Args:
        card: A card int (see :mod:`.cards`).

    Returns:
        1..10.
    """
    return min(C.rank(card), 10)


def is_blackjack(cards: Sequence[int]) -> bool:
    """Whether ``cards`` count exactly 21 with each ace as 1 or 11 (RULINGS J2).

    Only the card values are checked, not the hand's size or shape.

    Args:
        cards: Card ints.

    Returns:
        True for e.g. A+K, A+A+9, 10+J+A.
    """
    total = sum(card_value(c) for c in cards)
    return total == 21 or (total == 11 and any(C.rank(c) == C.ACE for c in cards))


def bonus(left: int) -> int:
    """Bonus points for ``left`` cards left at a round's end (RULINGS J11): 3 -> 2,
    2 -> 3, 1 -> 4, otherwise 0."""
    return BONUS.get(left, 0)


def round_score(hands: int, left: int, round_no: int) -> int:
    """A round's score (RULINGS J11): (hands + bonus(left)) x round number.

    Args:
        hands: Hands cashed in this round.
        left: Cards left at the round's end (tableau plus deck).
        round_no: 1..7.

    Returns:
        The score, e.g. 39 for round 3 with 10 hands and 2 cards left.
    """
    return (hands + bonus(left)) * round_no


def advances(hands: int, left: int) -> bool:
    """Whether a round with ``hands`` hands and ``left`` cards left is passed (RULINGS J8):
    more hands than cards left (15/7 passes, 7/7 fails)."""
    return hands > left
