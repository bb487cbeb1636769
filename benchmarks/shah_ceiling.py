"""How many deals of The Shah can be won at all: an omniscient solver (a measurement tool).

Usage::

    python benchmarks/shah_ceiling.py [deals] [--first SEED] [--nodes N] [--seconds S]
                                      [--total S]                     (--help: this text)

For each seed ``first .. first+deals-1`` (default 0..99) the script reads the engine's pack
order (private state: this is a measurement, not a strategy) and searches the moves
depth-first, with a memo of the states already seen, until it finds a win or spends its
budget (``--nodes`` states, default 100,000, or ``--seconds`` per deal, default 20; and
``--total`` seconds for the whole run, default 1800, after which the remaining deals count as
unknown). It prints, per deal, ``won`` / ``lost`` (the whole tree was searched) / ``unknown``
(the budget ran out), and a summary line: ``won W  lost L  unknown U  of N``.

The search runs on a compact model of its own (tuples of small ints; equal cards of the two
packs are one card, the two foundations of a suit are interchangeable), which follows the
engine's rules (RULINGS H1-H10, ``cardhall.games.shah``), including the forced moves the
engine makes itself. Every solution found is replayed through the real engine
(:class:`cardhall.games.shah.TheShah`) action by action, checking at each step that the
engine's state matches the model's, and must end in a win; a mismatch raises
``AssertionError``. The counts are exact for ``won`` and ``lost``; ``unknown`` deals may be
either, so the true ceiling lies between ``won`` and ``won + unknown``.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Sequence
from typing import Any

from cardhall.games import cards as C
from cardhall.games.rng import GameRNG
from cardhall.games.shah import TheShah, pack_cards

# -- the compact model ---------------------------------------------------------------------
#
# A card is suit * 16 + rank (rank 2..12); foundations hold the rank of their top (1 = ace).
# A state is the tuple (phase, circle, grace_ray, fnd, star, talon, up, si):
#   phase      "deal", "play", "refill" or "grace" (as the engine's)
#   circle     the circle just laid during the deal
#   grace_ray  the ray being refilled after a grace, or -1
#   fnd        8 foundation top ranks (foundation f is suit f % 4)
#   star       24 piles (tuples, bottom first); place (ray r, circle c) is star[r * 3 + c]
#   talon      tuple, top last
#   up         the turned card, or -1
#   si         index of the next pack card in the (fixed) stock
# A move is ("deal",), ("turn",), ("fill", "talon"|"pack"), ("play", loc, f),
# ("marry", loc, ray) or ("grace", loc, ray), where loc is a ray (0..7), UP or TALON.

UP, TALON = -1, -2
QUEEN = 12
JITTER = 0.25
WON_FND = (QUEEN,) * 8
FORCED = ("deal", "turn", "fill")
State = tuple[Any, ...]
Move = tuple[Any, ...]


def canon(card: int) -> int:
    """The model card of an engine card: suit * 16 + rank (decks are not told apart)."""
    return C.suit(card) * 16 + C.rank(card)


def initial(stock: Sequence[int]) -> State:
    """The state after the engine lays circle 0 (before settling)."""
    star = [()] * 24
    for r in range(8):
        star[r * 3] = (stock[r],)
    return ("deal", 0, -1, (1,) * 8, tuple(star), (), -1, 8)


def _outer(star: tuple[tuple[int, ...], ...], r: int) -> int:
    """The circle of ray ``r``'s outermost non-empty place, or -1."""
    for c in (2, 1, 0):
        if star[r * 3 + c]:
            return c
    return -1


def _next_vacancy(state: State) -> int:
    """Index into ``star`` of the place the next fill goes to, or -1."""
    phase, _circle, gray, _fnd, star = state[:5]
    if phase == "grace":
        for c in (1, 2):
            if not star[gray * 3 + c]:
                return gray * 3 + c
        return -1
    for c in range(3):
        for r in range(8):
            if not star[r * 3 + c]:
                return r * 3 + c
    return -1


def _fills(state: State, stock: Sequence[int]) -> list[Move]:
    if _next_vacancy(state) < 0:
        return []
    out: list[Move] = []
    if state[5]:
        out.append(("fill", "talon"))
    if state[6] >= 0 or state[7] < len(stock):
        out.append(("fill", "pack"))
    return out


def moves(state: State, stock: Sequence[int]) -> tuple[list[Move], int]:
    """The legal moves (like the engine's ``_moves``) and how many the engine would list
    (it lists a play onto each of two foundations with equal tops; the model keeps one)."""
    phase, circle, _g, fnd, star, talon, up, si = state
    out: list[Move] = []
    count = 0
    if phase == "deal":
        for r in range(8):
            pile = star[r * 3 + circle]
            if pile:
                card = pile[-1]
                s, k = card >> 4, card & 15
                fs = [f for f in (s, s + 4) if fnd[f] == k - 1]
                if fs:
                    out.append(("play", r, fs[0]))
                    count += len(fs)
        out.append(("deal",))
        return out, count + 1
    if phase in ("refill", "grace"):
        out = _fills(state, stock)
        return out, len(out)
    avail: list[tuple[int, int, bool]] = []  # (card, loc, marriable)
    empty_rays = []
    for r in range(8):
        c = _outer(star, r)
        if c < 0:
            empty_rays.append(r)
        else:
            avail.append((star[r * 3 + c][-1], r, c == 2))
    if up >= 0:
        avail.append((up, UP, True))
    if talon:
        avail.append((talon[-1], TALON, True))
    outer_tops = [(r, star[r * 3 + 2][-1]) for r in range(8) if star[r * 3 + 2]]
    for card, loc, marriable in avail:
        s, k = card >> 4, card & 15
        fs = [f for f in (s, s + 4) if fnd[f] == k - 1]
        if fs:
            out.append(("play", loc, fs[0]))
            count += len(fs)
    for card, loc, marriable in avail:
        if marriable:
            for r, top in outer_tops:
                if top == card + 1 and r != loc:
                    out.append(("marry", loc, r))
                    count += 1
    if empty_rays:
        for card, loc, _m in avail:
            if loc >= 0 and star[loc * 3 + 2]:
                for r in empty_rays:
                    out.append(("grace", loc, r))
                    count += 1
    fills = _fills(state, stock)
    out.extend(fills)
    count += len(fills)
    if not fills and _next_vacancy(state) < 0 and (up >= 0 or si < len(stock)):
        out.append(("turn",))
        count += 1
    return out, count


def _take(state: State, loc: int) -> tuple[int, list[tuple[int, ...]], tuple[int, ...], int]:
    """Remove the card at ``loc``: returns (card, star as a list, talon, up)."""
    phase, circle, _g, _fnd, star, talon, up, _si = state
    star_l = list(star)
    if loc == UP:
        return up, star_l, talon, -1
    if loc == TALON:
        return talon[-1], star_l, talon[:-1], up
    c = circle if phase == "deal" else _outer(star, loc)
    pile = star[loc * 3 + c]
    star_l[loc * 3 + c] = pile[:-1]
    return pile[-1], star_l, talon, up


def _end_refill(state: State, stock: Sequence[int]) -> State:
    if state[0] in ("refill", "grace") and not _fills(state, stock):
        return ("play", state[1], -1) + state[3:]
    return state


def apply(state: State, mv: Move, stock: Sequence[int]) -> State:
    """The state after a legal move ``mv`` (no forced moves yet)."""
    phase, circle, gray, fnd, star, talon, up, si = state
    verb = mv[0]
    if verb == "deal":
        c = circle + 1
        star_l = list(star)
        for r in range(8):
            star_l[r * 3 + c] = (stock[si + r],)
        return ("play" if c == 2 else "deal", c, gray, fnd, tuple(star_l), talon, up, si + 8)
    if verb == "turn":
        if up >= 0:
            talon = talon + (up,)
        if si < len(stock):
            return (phase, circle, gray, fnd, star, talon, stock[si], si + 1)
        return (phase, circle, gray, fnd, star, talon, -1, si)
    if verb == "fill":
        spot = _next_vacancy(state)
        if mv[1] == "talon":
            card, talon = talon[-1], talon[:-1]
        elif up >= 0:
            card, up = up, -1
        else:
            card, si = stock[si], si + 1
        star_l = list(star)
        star_l[spot] = (card,)
        if phase == "play":
            phase = "refill"
        return _end_refill((phase, circle, gray, fnd, tuple(star_l), talon, up, si), stock)
    card, star_l, talon, up = _take(state, mv[1])
    if verb == "play":
        f = mv[2]
        fnd = fnd[:f] + (card & 15,) + fnd[f + 1:]
        if phase == "deal":
            for r in range(8):
                if not star_l[r * 3 + circle] and si < len(stock):
                    star_l[r * 3 + circle] = (stock[si],)
                    si += 1
        return (phase, circle, gray, fnd, tuple(star_l), talon, up, si)
    if verb == "marry":
        i = mv[2] * 3 + 2
        star_l[i] = star_l[i] + (card,)
        return (phase, circle, gray, fnd, tuple(star_l), talon, up, si)
    # grace
    star_l[mv[2] * 3] = (card,)
    return _end_refill(("grace", circle, mv[2], fnd, tuple(star_l), talon, up, si), stock)


def settle(state: State, stock: Sequence[int],
           forced: list[Move]) -> tuple[State, str | None]:
    """Make the engine's forced moves (appended to ``forced``); returns the state and
    ``"won"``, ``"lost"`` (no move left) or None."""
    while True:
        if state[3] == WON_FND:
            return state, "won"
        out, count = moves(state, stock)
        if not out:
            return state, "lost"
        if count == 1 and out[0][0] in FORCED:
            forced.append(out[0])
            state = apply(state, out[0], stock)
            continue
        return state, None


def key(state: State) -> State:
    """The memo key: the two foundations of a suit are interchangeable."""
    fnd = state[3]
    pairs = tuple(min(fnd[s], fnd[s + 4]) * 16 + max(fnd[s], fnd[s + 4]) for s in range(4))
    return (state[0], state[1], state[2], pairs) + state[4:]


def _order(state: State, out: list[Move], stock: Sequence[int],
           rng: random.Random | None) -> list[Move]:
    """Search order: foundation plays, marriages, graces, fills (the card needed sooner
    first), turn; deal last. With ``rng`` (a restart), each node flips the fill preference
    and puts marriages after the fills with probability ``JITTER``."""
    rank = {"play": 0, "marry": 1, "grace": 2, "fill": 3, "turn": 4, "deal": 5}
    if rng is not None and rng.random() < JITTER:
        rank["marry"] = 6
    fills = [m for m in out if m[0] == "fill"]
    if len(fills) == 2:
        fnd = state[3]
        up, si = state[6], state[7]
        pack_card = up if up >= 0 else stock[si]

        def gap(card: int) -> int:
            s, k = card >> 4, card & 15
            return min(k - fnd[s], k - fnd[s + 4]) if k > min(fnd[s], fnd[s + 4]) else 99
        talon_first = gap(state[5][-1]) <= gap(pack_card)
        if rng is not None and rng.random() < JITTER:
            talon_first = not talon_first
        first = "talon" if talon_first else "pack"
        return sorted(out, key=lambda m: (rank[m[0]], m[0] == "fill" and m[1] != first))
    return sorted(out, key=lambda m: rank[m[0]])


class Budget(Exception):
    """The node or time budget of one deal ran out."""


Path = list[tuple[Move | None, list[Move]]]


def solve(stock: Sequence[int], nodes: int, seconds: float, restarts: int = 1,
          plays_first: bool = True) -> tuple[str, Path, int]:
    """Search one deal: ``restarts`` depth-first searches, each with ``nodes / restarts``
    states and ``seconds / restarts``; the first in the plain order, the others with a
    seeded jitter of the order (see :func:`_order`).

    Args:
        stock: The 88 model cards in pack order.
        nodes: The most states to expand, in all.
        seconds: The most time to spend (wall clock), in all.
        restarts: How many searches share the budget.
        plays_first: When a foundation play is open, search only the plays there (a
            pruning: then ``"lost"`` means lost under it).

    Returns:
        ``(result, path, expanded)``: ``result`` is ``"won"``, ``"lost"`` (a search ran
        through its whole tree) or ``"unknown"``; ``path`` the moves of a win as
        ``(move, forced_moves_after)`` pairs (empty unless won), and the count of states
        expanded.
    """
    total = 0
    for i in range(restarts):
        rng = None if i == 0 else random.Random(i)
        result, path, count = _search(stock, nodes // restarts, seconds / restarts, rng,
                                      plays_first)
        total += count
        if result != "unknown":
            return result, path, total
    return "unknown", [], total


def _search(stock: Sequence[int], nodes: int, seconds: float, rng: random.Random | None,
            plays_first: bool) -> tuple[str, Path, int]:
    """One depth-first search with a memo (see :func:`solve`)."""
    deadline = time.monotonic() + seconds
    forced0: list[Move] = []
    start, end = settle(initial(stock), stock, forced0)
    if end is not None:
        return end, [(None, forced0)] if end == "won" else [], 0
    seen: set[State] = set()
    path: Path = [(None, forced0)]
    count = 0

    def dfs(state: State) -> bool:
        nonlocal count
        k = key(state)
        if k in seen:
            return False
        seen.add(k)
        count += 1
        if count > nodes or (count & 1023 == 0 and time.monotonic() > deadline):
            raise Budget
        out, _n = moves(state, stock)
        if plays_first:
            plays = [m for m in out if m[0] == "play"]
            if plays and state[0] in ("play", "deal"):
                out = plays
        for mv in _order(state, out, stock, rng):
            forced: list[Move] = []
            nxt, end = settle(apply(state, mv, stock), stock, forced)
            path.append((mv, forced))
            if end == "won" or (end is None and dfs(nxt)):
                return True
            path.pop()
        return False

    try:
        won = dfs(start)
    except Budget:
        return "unknown", [], count
    return ("won", path, count) if won else ("lost", [], count)


# -- checking a solution against the engine ---------------------------------------------------


def model_of(game: TheShah) -> State:
    """The engine's state in the model's form (to compare after each replayed action)."""
    fnd = tuple(C.rank(f[-1]) for f in game.foundations)
    star = tuple(tuple(canon(x) for x in game.star[r][c]) for r in range(8) for c in range(3))
    return (game.phase, game.circle, -1 if game.grace_ray is None else game.grace_ray, fnd,
            star, tuple(canon(x) for x in game.talon),
            -1 if game.up is None else canon(game.up))


def engine_action(game: TheShah, mv: Move) -> tuple[Any, ...]:
    """The engine action for model move ``mv`` in ``game``'s current state."""
    verb = mv[0]
    if verb in ("deal", "turn", "fill"):
        return mv
    loc = mv[1]
    if loc == UP:
        card = game.up
    elif loc == TALON:
        card = game.talon[-1]
    elif game.phase == "deal":
        card = game.star[loc][game.circle][-1]
    else:
        card = next(game.star[loc][c][-1] for c in (2, 1, 0) if game.star[loc][c])
    assert card is not None
    return (verb, C.code(card), mv[2])


def replay(seed: int, path: Path, stock: Sequence[int]) -> bool:
    """Play a solution through the engine; True when the engine reports a win.

    Raises:
        AssertionError: the engine's state after an action differs from the model's, or
            the engine made different forced moves than the model.
    """
    game = TheShah({"seed": seed})
    state = initial(stock)
    for mv, forced in path:
        if mv is not None:
            act = engine_action(game, mv)
            assert act in game.legal_actions(0), (seed, act, game.legal_actions(0))
            before = game.counters["forced"]
            game.apply(0, act)
            state = apply(state, mv, stock)
            assert game.counters["forced"] - before == len(forced), (seed, mv, forced)
        for f in forced:
            state = apply(state, f, stock)
        if not game.over:
            assert model_of(game) == state[:7], (seed, mv)
    out = game.outcome()
    return out is not None and out["winner"] == 0


def deal_stock(seed: int) -> list[int]:
    """The model pack order of the engine's deal ``seed``: the engine's own shuffle of
    :func:`~cardhall.games.shah.pack_cards` (its private state; :func:`replay` checks it)."""
    order = pack_cards()
    GameRNG(seed).shuffle(order)
    return [canon(c) for c in order]


def main(argv: list[str] | None = None) -> None:
    """Entry point: ``python benchmarks/shah_ceiling.py [deals] [--first SEED] ...``."""
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("deals", type=int, nargs="?", default=100,
                        help="number of deals (default 100)")
    parser.add_argument("--first", type=int, default=0, help="first seed (default 0)")
    parser.add_argument("--nodes", type=int, default=100_000,
                        help="states expanded per deal at most (default 100000)")
    parser.add_argument("--seconds", type=float, default=20.0,
                        help="seconds per deal at most (default 20)")
    parser.add_argument("--total", type=float, default=1800.0,
                        help="seconds for the whole run (default 1800)")
    parser.add_argument("--restarts", type=int, default=1,
                        help="searches per deal sharing its budget (default 1)")
    parser.add_argument("--complete", action="store_true",
                        help="search every move (default: when a foundation play is open, "
                        "only the plays; then 'lost' means lost under that rule)")
    parser.add_argument("--quiet", action="store_true", help="print the summary only")
    args = parser.parse_args(argv)
    if args.deals < 1:
        parser.error("deals must be at least 1")
    sys.setrecursionlimit(20_000)
    tally = {"won": 0, "lost": 0, "unknown": 0}
    start = time.monotonic()
    for seed in range(args.first, args.first + args.deals):
        left = args.total - (time.monotonic() - start)
        if left <= 0:
            tally["unknown"] += 1
            continue
        stock = deal_stock(seed)
        t0 = time.monotonic()
        result, path, expanded = solve(stock, args.nodes, min(args.seconds, left), args.restarts,
                                       not args.complete)
        if result == "won":
            assert replay(seed, path, stock), f"seed {seed}: the solution did not win"
        tally[result] += 1
        if not args.quiet:
            print(f"seed {seed}: {result} ({expanded} states, {time.monotonic() - t0:.1f}s, "
                  f"{sum(m is not None for m, _f in path)} choices)", flush=True)
    print(f"won {tally['won']}  lost {tally['lost']}  unknown {tally['unknown']}  of "
          f"{args.deals} (seeds {args.first}..{args.first + args.deals - 1}, "
          f"{args.nodes} states / {args.seconds:g}s per deal) in "
          f"{time.monotonic() - start:.0f}s", flush=True)


if __name__ == "__main__":
    main()
