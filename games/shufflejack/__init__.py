"""ShuffleJack (the seed's rules text as read by RULINGS J1-J11:
``docs/rules/shufflejack.md``): the tableau's lines and the scores in :mod:`.hands`, the
``greedy`` strategy in :mod:`.bots`, the engine in :mod:`.rules` (whose timer default is
greedy's choice).
"""

from __future__ import annotations

from .bots import greedy
from .hands import (
    BONUS,
    HAND_SHAPES,
    LINES,
    POSITIONS,
    ROUNDS,
    SIZE,
    advances,
    bonus,
    card_value,
    is_blackjack,
    round_score,
)
from .rules import OPTIONS, VERBS, ShuffleJack

GAME = ShuffleJack
STRATEGIES = {"greedy": greedy}

__all__ = ["BONUS", "GAME", "HAND_SHAPES", "LINES", "OPTIONS", "POSITIONS", "ROUNDS", "SIZE",
           "STRATEGIES", "VERBS", "ShuffleJack", "advances", "bonus", "card_value", "greedy",
           "is_blackjack", "round_score"]
