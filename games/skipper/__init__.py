"""Skipper: the solo patience, its multiplayer game with auctions and skip-draws, and the race
(the seed's rules text as read by RULINGS K1-K14: ``docs/rules/skipper.md``).

Modules, each importing only those listed before it:

- :mod:`.stacks`: options, the rule parameters they select (the skip table), one seat's
  cards, what a stack takes (K1-K4) and what can never be played (K6);
- :mod:`.rules`: the deal, the turn table, actions, the setting, drawing, the end, snapshots
  and copies (:class:`~.rules.SkipperRules`);
- :mod:`.observer`: what each seat sees: views, deltas and their caches (K8);
- :mod:`.sample`: games consistent with a seat's view, for search bots;
- :mod:`.game`: the engine, :class:`Skipper` (rules, observer and samples together);
- :mod:`.bots`: the ``greedy``, ``random`` and ``expert`` strategies.
"""

from __future__ import annotations

from .bots import STRATEGIES
from .bots.greedy import live_for, rank_of, spare
from .game import GAME, Skipper
from .stacks import MODES, OPTIONS, skip_amounts

__all__ = ["GAME", "MODES", "OPTIONS", "STRATEGIES", "Skipper", "live_for", "rank_of",
           "skip_amounts", "spare"]
