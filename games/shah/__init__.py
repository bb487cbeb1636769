"""The Shah (the seed's rules text as read by RULINGS H1-H10: ``docs/rules/shah.md``): the
engine in :mod:`.rules`, a compact model of it for search in :mod:`.model`, and the planning
``greedy`` strategy in :mod:`.bots`.
"""

from __future__ import annotations

from .bots import greedy_strategy
from .rules import (
    CIRCLES,
    FORCED_VERBS,
    FOUNDATIONS,
    OUTER,
    PHASES,
    RAYS,
    SHAH,
    TOP_RANK,
    VERBS,
    TheShah,
    foundation_ace,
    pack_cards,
)

GAME = TheShah
STRATEGIES = {"greedy": greedy_strategy}

__all__ = ["CIRCLES", "FORCED_VERBS", "FOUNDATIONS", "GAME", "OUTER", "PHASES", "RAYS", "SHAH",
           "STRATEGIES", "TOP_RANK", "VERBS", "TheShah", "foundation_ace", "greedy_strategy",
           "pack_cards"]
