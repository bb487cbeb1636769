"""Thirty-Six (the seed's rules text as read by RULINGS T1-T6: ``docs/rules/thirtysix.md``):
its numbers in :mod:`.scoring`, the ``greedy`` strategy in :mod:`.bots`, the engine in
:mod:`.rules` (whose timer default is greedy's choice).
"""

from __future__ import annotations

from .bots import greedy
from .rules import BALTIMORE_RULES, HARDER_RULES, OPTIONS, PHASES, RULES, VERBS, ThirtySix
from .scoring import (
    ROW_SIZE,
    TARGET,
    TURNS,
    collection_score,
    count_value,
    enemy_total,
    player_total,
    points,
)

GAME = ThirtySix
STRATEGIES = {"greedy": greedy}

__all__ = ["BALTIMORE_RULES", "GAME", "HARDER_RULES", "OPTIONS", "PHASES", "ROW_SIZE", "RULES",
           "STRATEGIES", "TARGET", "TURNS", "VERBS", "ThirtySix", "collection_score",
           "count_value", "enemy_total", "greedy", "player_total", "points"]
