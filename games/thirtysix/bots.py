"""Thirty-Six's ``greedy`` strategy: a planner over the turns left that decides what to
commit, take and surrender (RULINGS T1-T6; "an experienced player will begin to win most of
the time").

It reads only the seat's view (what every strategy sees, over the wire or offline).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .. import cards as C
from ..base import Action
from ..bots import view_legal_actions
from .scoring import ROW_SIZE, TURNS

#
# The greedy bot plans the PLAYER stack's timing. Only cards in the PLAYER collection at the
# end score, and an empty PLAYER stack takes the whole collection back (RULINGS T4), so the
# bot values a position by the expected number of cards in the final collection, from a
# small dynamic programme over counts only: (turn, stack size, collection size, row size).
# Turn outcomes in that model come from a table of "fewest cards that win" for a random row
# of each size, sampled once per rule set.

_RANK_OF = {ch: i + 1 for i, ch in enumerate(C.RANKS)}
_PLAN_SAMPLES = 3000


def _val(code: str, hearts: bool = False) -> int:
    v = min(_RANK_OF[code[0]], 10)
    return v * 2 if hearts and code[1] == "H" else v


def _pts(code: str) -> int:
    r = _RANK_OF[code[0]]
    return 3 if r == 1 else 2 if r >= 11 else 1


def _need(pair: Sequence[str], rules: Mapping[str, bool]) -> int | None:
    """Smallest winning player total against ``pair`` (None: the turn cannot be won)."""
    if rules.get("ace_wins") and any(c[0] == "A" for c in pair):
        return None
    total = sum(_val(c) * (2 if rules.get("clubs_double") and c[1] == "C" else 1)
                for c in pair)
    if rules.get("beat_faces") and any(c[0] in "JQK" for c in pair):
        return total + 1
    return total


def _raid(pair: Sequence[str], rules: Mapping[str, bool]) -> bool:
    return bool(rules.get("two_clubs")) and len(pair) == 2 and all(c[1] == "C" for c in pair)


class _Planner:
    """Expected final collection size by counts, for one rule set (see the note above)."""

    def __init__(self, rules: Mapping[str, bool], row_max: int, refill: int) -> None:
        import random

        self.row_max, self.refill = row_max, refill
        rnd = random.Random(36)
        deck = C.codes(C.full_deck())
        hearts = bool(rules.get("hearts_double"))
        # dist[r] = list of (probability, fewest cards that win or None, raid?)
        self.dist: list[list[tuple[float, int | None, bool]]] = []
        for r in range(ROW_SIZE + 1):
            counts: dict[tuple[int | None, bool], int] = {}
            for _ in range(_PLAN_SAMPLES):
                cards = rnd.sample(deck, r + 2)
                pair, row = cards[:2], cards[2:]
                key: tuple[int | None, bool]
                if _raid(pair, rules):
                    key = (None, True)
                else:
                    need = _need(pair, rules)
                    m = None
                    if need is not None:
                        acc = 0
                        for k, v in enumerate(sorted((_val(c, hearts) for c in row),
                                                     reverse=True), 1):
                            acc += v
                            if acc >= need:
                                m = k
                                break
                    key = (m, False)
                counts[key] = counts.get(key, 0) + 1
            self.dist.append([(n / _PLAN_SAMPLES, m, raid) for (m, raid), n in counts.items()])
        self.memo: dict[tuple[int, int, int, int], float] = {}

    def draw(self, s: int, c: int, r: int) -> tuple[int, int, int]:
        """Counts after the end-of-turn draw (RULINGS T4)."""
        want = self.refill if r == 0 else (1 if r < self.row_max else 0)
        for _ in range(want):
            if s == 0:
                if c == 0:
                    break
                s, c = c, 0
            s -= 1
            r += 1
        return s, c, r

    def after(self, t: int, s: int, c: int, r: int) -> float:
        """Value after turn ``t`` resolved with counts (s, c, r): draw, then next turn."""
        if t >= TURNS:
            return float(c)
        s, c, r = self.draw(s, c, r)
        return self.value(t + 1, s, c, r)

    def value(self, t: int, s: int, c: int, r: int) -> float:
        """Expected final collection size at the start of turn ``t``."""
        key = (t, s, c, r)
        got = self.memo.get(key)
        if got is not None:
            return got
        total = 0.0
        for p, m, raid in self.dist[r]:
            if raid:
                total += p * self.after(t, s, c, 0)
                continue
            best = -1.0
            for k in range(r + 1):
                if m is not None and k >= m:
                    v = self.after(t, s, c + k + 1, r - k)
                else:
                    v = -1.0
                    if k >= 1:
                        v = self.after(t, s, c + k - 1, r - k)
                    if r - k >= 1:
                        v = max(v, self.after(t, s, c + k, r - k - 1))
                    if v < 0:
                        v = self.after(t, s, c, r)
                best = max(best, v)
            total += p * best
        self.memo[key] = total
        return total


_PLANNERS: dict[tuple[Any, ...], _Planner] = {}


def _planner(view: Mapping[str, Any]) -> _Planner:
    rules = view["rules"]
    key = (tuple(sorted(rules.items())), view["row_max"], view["refill"])
    plan = _PLANNERS.get(key)
    if plan is None:
        plan = _PLANNERS[key] = _Planner(rules, view["row_max"], view["refill"])
    return plan


def _surrender_choices(row: list[str], rules: Mapping[str, bool]) -> list[str]:
    hearts = bool(rules.get("hearts_double"))
    choices = list(row)
    if choices and rules.get("surrender_lowest"):
        low = min(_val(c, hearts) for c in choices)
        choices = [c for c in choices if _val(c, hearts) == low]
    if choices and rules.get("discard_rightmost"):
        choices = choices[-1:]
    return choices


def _row_strength(row: Sequence[str], hearts: bool) -> float:
    return sum(_val(c, hearts) for c in row) / 100.0


def greedy(view: Mapping[str, Any], rng: Any) -> Action:
    """A timing-aware greedy strategy for Thirty-Six, using only ``view`` (incl. its legal
    actions) and the rules it names; deterministic (``rng`` is unused, may be ``None``).

    It scores each legal choice by the expected number of cards that end in the PLAYER
    collection, from a count-level plan of the PLAYER stack's draws and reshuffles (see
    :class:`_Planner`), with small tie-breaks: keep strong cards in the row, lose the cheapest
    card, take the ENEMY card worth the most points. Never resigns unless nothing else is
    legal.

    Args:
        view: A seat-0 view of :class:`ThirtySix`.
        rng: Ignored.

    Returns:
        One of ``view["legal_actions"]`` as a tuple.

    Raises:
        ValueError: the view lists no legal action.
    """
    legal = view_legal_actions(view)
    moves = [a for a in legal if a[0] != "resign"]
    if not moves:
        return legal[0]
    if moves[0][0] == "take":
        return max(moves, key=lambda a: (_pts(a[1]), _val(a[1])))
    rules = view["rules"]
    hearts = bool(rules.get("hearts_double"))
    plan = _planner(view)
    t, s = view["turn"], view["player_stack"]
    c = len(view["collection"])
    row = list(view["row"])
    if moves[0][0] == "surrender":
        committed = set(view["committed"])
        best_a, best_v = moves[0], -1e9
        for a in moves:
            card = a[1]
            kept = len(committed - {card})
            left = [x for x in row if x not in committed and x != card]
            v = plan.after(t, s, c + kept, len(left))
            v += _row_strength(left, hearts) - _pts(card) / 50.0
            if v > best_v:
                best_a, best_v = a, v
        return best_a
    need = _need(view["enemy"], rules)
    best_a, best_v = moves[0], -1e9
    for a in moves:
        chosen = list(a[1:])
        total = sum(_val(x, hearts) for x in chosen)
        left = [x for x in row if x not in chosen]
        k = len(chosen)
        if need is not None and total >= need:
            v = plan.after(t, s, c + k + 1, len(left)) + _row_strength(left, hearts)
        else:
            v = -1e9
            for card in _surrender_choices(row, rules):
                if card in chosen:
                    w = plan.after(t, s, c + k - 1, len(left)) + _row_strength(left, hearts)
                else:
                    rest = [x for x in left if x != card]
                    w = plan.after(t, s, c + k, len(rest)) + _row_strength(rest, hearts)
                w -= _pts(card) / 50.0
                v = max(v, w)
            if not row:
                v = plan.after(t, s, c, 0)
        if v > best_v:
            best_a, best_v = a, v
    return best_a
