"""Skipper's bot strategies, by name (:func:`cardhall.games.bots.strategy` finds them):
``greedy`` and ``random`` (:mod:`.greedy`), ``expert`` (:mod:`.expert`)."""

from __future__ import annotations

from ...bots import Strategy
from .expert import expert
from .greedy import greedy, random_choice

STRATEGIES: dict[str, Strategy] = {"greedy": greedy, "random": random_choice, "expert": expert}

__all__ = ["STRATEGIES"]
