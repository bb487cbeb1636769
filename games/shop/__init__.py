"""Shop Solitaire (the seed's rules text as read by RULINGS S1-S13:
``docs/rules/shop.md``): the engine in :mod:`.rules`, the ``greedy`` strategy in :mod:`.bots`.
"""

from __future__ import annotations

from .bots import SHELF_MIN, greedy_strategy
from .rules import (
    CANDLE_MAX,
    FORCED_VERBS,
    LEDGER_SIZE,
    PHASES,
    PLACE_VERBS,
    TRAYS,
    TRIM_MIN,
    VERBS,
    ShopSolitaire,
    value,
)

GAME = ShopSolitaire
STRATEGIES = {"greedy": greedy_strategy}

__all__ = ["CANDLE_MAX", "FORCED_VERBS", "GAME", "LEDGER_SIZE", "PHASES", "PLACE_VERBS",
           "SHELF_MIN", "STRATEGIES", "TRAYS", "TRIM_MIN", "VERBS", "ShopSolitaire",
           "greedy_strategy", "value"]
