"""The Shah's ``greedy`` strategy: a turn planner over the compact model of :mod:`.model`,
an endgame search, and the position evaluation they share (RULINGS H1-H10).

It reads only the seat's view (what every strategy sees, over the wire or offline).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from ..bots import view_legal_actions
from . import model as M

#: States the turn planner (:func:`_plan`) looks at per decision, at most.
PLAN_STATES = 800
#: States the endgame search (:func:`_endgame`) looks at per decision, at most.
ENDGAME_STATES = 3000


def _dists(fnd: tuple[int, ...]) -> list[int]:
    """For every model card (suit * 16 + rank): how many cards its foundations still need
    before it can be played (1: playable now; 13 for a card no foundation needs)."""
    out = [13] * 64
    for s in range(4):
        lo, hi = sorted((fnd[s], fnd[s + 4]))
        for k in range(lo + 1, 13):
            out[s * 16 + k] = k - hi if k > hi else k - lo
    return out


#: Penalty per card needed later lying on a card needed ``d`` cards from now.
WEIGHTS = [0.0] + [4.0 / (d + 1) for d in range(1, 14)]
#: Extra weight of such a blockage within a ray's inner circles (foundation-only cards).
INNER_W = 1.0
#: Worth of one card on the foundations, against the blockage penalties.
W_BUILT = 10.0
#: Worth of one card of :func:`relaxed_built`.
W_RELAXED = 3.0
#: How many of the planner's best positions are looked at one turn further.
LOOK_K = 4
#: How many unseen cards are tried as the next turned card, per position.
LOOK_M = 6
#: States of each plan after such a turn, at most.
LOOK_STATES = 60


def _stack_penalty(cards: tuple[int, ...], dist: list[int]) -> float:
    """Sum over the cards of a pile (bottom first) of ``WEIGHTS[d]`` per card above it that
    is needed later than it (``d``: how soon the card is needed)."""
    hist = [0] * 15
    pen = 0.0
    for card in reversed(cards):
        if card == M.UNKNOWN:
            continue
        d = dist[card]
        above = sum(hist[d + 1:])
        if above:
            pen += above * WEIGHTS[d]
        hist[d] += 1
    return pen


def relaxed_built(state: M.State) -> int:
    """Foundation cards (above the aces, 0..88) reachable in a relaxed game: the unseen
    cards come exactly when wanted, the talon and each ray give only their top card (H4),
    nothing marries or refills. Low when needed cards lie under cards needed later."""
    fnd: list[int] = list(state[3])
    star, talon, up = state[4], state[5], state[6]
    free = [0] * 64
    for s in range(4):
        for k in range(2, 13):
            free[s * 16 + k] = 2
    for f in range(8):
        for k in range(2, fnd[f] + 1):
            free[(f % 4) * 16 + k] -= 1
    stacks = [list(talon) + ([up] if up > 0 else [])]
    for r in range(8):
        stacks.append(list(star[r * 3] + star[r * 3 + 1] + star[r * 3 + 2]))
    for st in stacks:
        for c in st:
            if c != M.UNKNOWN:
                free[c] -= 1
    tops: dict[int, list[int]] = {}
    for i, st in enumerate(stacks):
        while st and st[-1] == M.UNKNOWN:
            st.pop()
        if st:
            tops.setdefault(st[-1], []).append(i)
    progress = True
    while progress:
        progress = False
        for f in range(8):
            c = (f % 4) * 16 + fnd[f] + 1
            if fnd[f] >= 12:
                continue
            if free[c] > 0:
                free[c] -= 1
            elif tops.get(c):
                i = tops[c].pop()
                st = stacks[i]
                st.pop()
                while st and st[-1] == M.UNKNOWN:
                    st.pop()
                if st:
                    tops.setdefault(st[-1], []).append(i)
            else:
                continue
            fnd[f] += 1
            progress = True
    return sum(fnd) - 8


def evaluate(state: M.State, cache: dict[Any, Any] | None = None) -> float:
    """Heuristic worth of a position before the next turn (higher is better):
    :data:`W_BUILT` per foundation card, plus :data:`W_RELAXED` per card of
    :func:`relaxed_built`, less the blockages (:func:`_stack_penalty`) in the talon (the
    turned card counted on it, as the turn puts it there) and in each ray (its inner circles
    again, times :data:`INNER_W`: they only ever go to a foundation, H2; H4: a ray gives
    only its outermost card).

    Args:
        state: A model state (:mod:`.model`).
        cache: Optional memo of pile penalties shared by calls on related states.
    """
    if cache is None:
        cache = {}
    fnd, star, talon, up = state[3], state[4], state[5], state[6]
    dist = cache.get(fnd)
    if dist is None:
        dist = cache[fnd] = _dists(fnd)
    if up > 0:
        talon = talon + (up,)
    score = W_BUILT * (sum(fnd) - 8) + W_RELAXED * relaxed_built(state)
    piles = [(talon, 1.0)]
    for r in range(8):
        inner = star[r * 3] + star[r * 3 + 1]
        piles.append((inner, INNER_W))
        piles.append((inner + star[r * 3 + 2], 1.0))
    for pile, w in piles:
        if len(pile) > 1:
            k = (fnd, pile)
            pen = cache.get(k)
            if pen is None:
                pen = cache[k] = _stack_penalty(pile, dist)
            score -= w * pen
    return score


def _idle_marriage(state: M.State, mv: M.Move) -> bool:
    """A married outer card moved onto another pile (its twin host): it changes nothing but
    which host is covered."""
    if mv[0] != "marry" or mv[1] < 0:
        return False
    pile = state[4][mv[1] * 3 + 2]
    return len(pile) > 1 and pile[-2] == pile[-1] + 1


def _finals(state: M.State, stock: Sequence[int], limit: int,
            cache: dict[Any, Any]) -> list[tuple[float, Any, M.Move | None, M.State]]:
    """Every position before the next turn reachable from ``state`` (depth first with a
    memo, at most ``limit`` states; foundation plays first, no idle marriages) as
    ``(value, key, first move, state)``."""
    out_finals = []
    seen: set[Any] = set()
    stack: list[tuple[M.State, M.Move | None]] = [(state, None)]
    while stack and len(seen) < limit:
        st, first = stack.pop()
        k = M.key(st)
        if k in seen:
            continue
        seen.add(k)
        out, _n = M.moves(st, stock)
        plays = [m for m in out if m[0] == "play"]
        if plays:
            out = plays
        if not plays and st[0] == "play" and not any(m[0] == "fill" for m in out):
            val = evaluate(st, cache)
            if first is None:
                val += 1e-6  # stay unless something is better
            out_finals.append((val, k, first, st))
        for mv in reversed(out):
            if mv[0] in ("turn", "deal") or _idle_marriage(st, mv):
                continue
            stack.append((M.apply(st, mv, stock), mv if first is None else first))
    return out_finals


def _unseen(state: M.State) -> list[int]:
    """The cards not on the table (the pack's), sorted, with their multiplicity."""
    fnd, star, talon, up = state[3], state[4], state[5], state[6]
    free = [0] * 64
    for s in range(4):
        for k in range(max(fnd[s], fnd[s + 4]) + 1, 13):
            free[s * 16 + k] = 2
        for k in range(min(fnd[s], fnd[s + 4]) + 1, max(fnd[s], fnd[s + 4]) + 1):
            free[s * 16 + k] = 1
    for pile in star + (talon, (up,) if up > 0 else ()):
        for c in pile:
            if c != M.UNKNOWN:
                free[c] -= 1
    return [c for c in range(64) for _ in range(max(free[c], 0))]


def _plan(state: M.State, stock: Sequence[int]) -> M.Move | None:
    """The first move toward the best position (:func:`evaluate`) reachable before the next
    turn, or None when the position itself is best (or no position before the turn was
    reached).

    :func:`_finals` lists the positions (at most :data:`PLAN_STATES` states). When there is
    a choice, the :data:`LOOK_K` best are looked at one turn further: for each of
    :data:`LOOK_M` cards spread over the unseen ones (:func:`_unseen`, the multiset the view
    implies; never the pack's order), turned next, the best position before the turn after
    (:data:`LOOK_STATES` states); the position with the best mean wins (ties: the one
    :func:`evaluate` prefers). Unseen pack cards drawn into the star are
    :data:`.model.UNKNOWN`.
    """
    cache: dict[Any, Any] = {}
    finals = _finals(state, stock, PLAN_STATES, cache)
    if not finals:
        return None
    finals.sort(key=lambda f: (f[0], f[1]), reverse=True)
    unseen = _unseen(state) if len(finals) > 1 and state[7] < len(stock) else []
    if LOOK_K and unseen:
        n = len(unseen)
        sample = [unseen[(2 * i + 1) * n // (2 * LOOK_M)] for i in range(LOOK_M)]
        best: tuple[tuple[float, float, Any], M.Move | None] | None = None
        for val, k, first, st in finals[:LOOK_K]:
            talon = st[5] + ((st[6],) if st[6] > 0 else ())
            total = 0.0
            for c in sample:  # the turn: the turned card onto the talon, c turned up
                nxt = ("play", st[1], -1, st[3], st[4], talon, c, st[7] + 1)
                fs = _finals(nxt, stock, LOOK_STATES, cache)
                total += max(f[0] for f in fs) if fs else val
            score = (total / LOOK_M, val, k)
            if best is None or score > best[0]:
                best = (score, first)
        assert best is not None
        return best[1]
    return finals[0][2]


def _endgame(state: M.State, stock: Sequence[int]) -> M.Move | None:
    """With the pack used up (everything is known): a depth-first search, foundation plays
    first, for a win or else the most foundation cards; the first move of the best line, or
    None when no line adds a card within :data:`ENDGAME_STATES` states."""
    seen: set[Any] = set()
    best: tuple[int, M.Move | None] = (sum(state[3]), None)
    count = 0

    def dfs(st: M.State, first: M.Move | None) -> bool:
        nonlocal count, best
        k = M.key(st)
        if k in seen or count >= ENDGAME_STATES:
            return False
        seen.add(k)
        count += 1
        if sum(st[3]) > best[0]:
            best = (sum(st[3]), first)
            if st[3] == M.WON_FND:
                return True
        out, _n = M.moves(st, stock)
        plays = [m for m in out if m[0] == "play"]
        for mv in plays or out:
            if not _idle_marriage(st, mv) and \
                    dfs(M.apply(st, mv, stock), mv if first is None else first):
                return True
        return False

    dfs(state, None)
    return best[1]


def greedy_strategy(view: Mapping[str, Any], rng: random.Random) -> tuple[Any, ...]:
    """A planning Shah player working only from the view (issue #21).

    The hidden pack is a run of unknown cards (:data:`.model.UNKNOWN`); the bot never
    sees its order, only how many cards are left. Decisions:

    * During the deal: every foundation play, then deal on (H3).
    * While the pack lasts: :func:`_plan` looks at every line of foundation plays (always
      first; either foundation of the suit, H10), marriages of single cards (H1, H2, H7),
      graces (H6) and refills from the talon or the pack (H5) up to the next turn, scores
      each position :func:`evaluate` (cards built, cards a relaxed game could still build,
      :func:`relaxed_built`, less the cards needed soon that lie under cards needed later
      in the talon and the rays; H4: only the outermost card of a ray moves), looks at the
      best few one turn further with sampled unseen cards, and plays the first move of the
      best line. When no line beats the position, it turns.
    * With the pack used up (everything is known): :func:`_endgame` searches for a win or
      the most foundation cards; the bot resigns only when that search finds no line that
      adds a card (H9: no redeal).

    Deterministic given the view (``rng`` is not used). A marriage that only moves a card
    from one host to its twin (:func:`_idle_marriage`) is never played, so the bot never
    goes round in circles.

    Raises:
        ValueError: the view lists no legal action.
    """
    legal = view_legal_actions(view)
    if view["phase"] == "deal":
        plays = [a for a in legal if a[0] == "play"]
        return plays[0] if plays else ("deal",)
    state, stock = M.from_view(view)
    if view["stock_count"] == 0:
        mv = _endgame(state, stock)
        return ("resign",) if mv is None else M.view_action(view, mv)
    mv = _plan(state, stock)
    if mv is not None:
        return M.view_action(view, mv)
    for verb in ("turn", "fill"):
        for a in legal:
            if a[0] == verb:
                return a
    return legal[0]
