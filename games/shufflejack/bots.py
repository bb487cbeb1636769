"""ShuffleJack's ``greedy`` strategy: the hand that scores most now, else a deal or the
next round (RULINGS J1-J11).

It reads only the seat's view (what every strategy sees, over the wire or offline).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .. import cards as C
from ..base import Action
from ..bots import view_legal_actions
from .hands import HAND_SHAPES

_RANK_OF = {ch: i + 1 for i, ch in enumerate(C.RANKS)}


def _hands_in(values: Sequence[int | None], aces: Sequence[bool]) -> list[tuple[int, ...]]:
    """Valid hand shapes (0-based) over per-position counts (``None``: unusable)."""
    out = []
    for shape in HAND_SHAPES:
        total = 0
        ace = False
        for i in shape:
            v = values[i]
            if v is None:
                break
            total += v
            ace = ace or aces[i]
        else:
            if total == 21 or (ace and total == 11):
                out.append(shape)
    return out


def greedy(view: Mapping[str, Any], rng: Any) -> Action:
    """A one-step lookahead strategy for ShuffleJack, from ``view`` only; deterministic.

    Keeps the tableau full (``deal`` whenever it is offered: more cards in each line, more
    hands), then cashes the hand that leaves the most hands available afterwards; ties go to
    the hand with more cards (fewer cards left, J8), then to the one using fewer aces. With
    no hand left it plays ``next``. Never resigns unless nothing else is legal.

    Args:
        view: A seat-0 view of :class:`ShuffleJack`.
        rng: Ignored (may be ``None``).

    Returns:
        One of ``view["legal_actions"]`` as a tuple.

    Raises:
        ValueError: the view lists no legal action.
    """
    legal = view_legal_actions(view)
    verbs = {a[0] for a in legal}
    if "deal" in verbs:
        return ("deal",)
    hands = [a for a in legal if a[0] == "hand"]
    if not hands:
        return ("next",) if "next" in verbs else legal[0]
    tab = view["tableau"]
    locked = set(view["locked"]) if view["locks_active"] else set()
    values: list[int | None] = [
        None if c is None or i + 1 in locked else min(_RANK_OF[c[0]], 10)
        for i, c in enumerate(tab)
    ]
    aces = [c is not None and c[0] == "A" for c in tab]
    best, best_key = hands[0], (-1, 0, 0)
    for a in hands:
        after = list(values)
        for p in a[1:]:
            after[p - 1] = None
        key = (len(_hands_in(after, aces)), len(a) - 1, -sum(aces[p - 1] for p in a[1:]))
        if key > best_key:
            best, best_key = a, key
    return best
