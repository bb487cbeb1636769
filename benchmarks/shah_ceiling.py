"""How many deals of The Shah can be won at all: an omniscient solver (a measurement tool).

Usage::

    python benchmarks/shah_ceiling.py [deals] [--first SEED] [--nodes N] [--seconds S]
        [--total S] [--restarts K] [--complete] [--quiet]          (--help: this text)

For each seed ``first .. first+deals-1`` (default 0..99) the script takes the engine's pack
order (the engine's own shuffle of that seed: private state, as this is a measurement, not
a strategy) and searches the moves depth-first, with a memo of the states already seen,
until it finds a win or spends its budget: ``--nodes`` states (default 100,000) or
``--seconds`` (default 20) per deal, shared by ``--restarts`` searches (default 1; the
later ones jitter the move order), and ``--total`` seconds for the whole run (default
1800; deals left then count as unknown). It prints, per deal, ``won``, ``lost`` (a search
ran through its whole tree) or ``unknown`` (the budget ran out), and a summary line
``won W  lost L  unknown U  of N ...``.

Move order: foundation plays, marriages, graces, refills (the card needed sooner first),
turn. Where a foundation play is open only the plays are searched (a pruning that rarely
loses a win; ``--complete`` searches every move, far slower). So ``won`` is exact, ``lost``
means lost under that pruning (exact with ``--complete``), and the true number of
winnable deals lies between ``won`` and ``won + unknown (+ lost without --complete)``.

The search runs on the compact model of ``cardhall.games.shah.model`` (tuples of small
ints; equal cards of the two packs are one card, the two foundations of a suit are
interchangeable), which follows the engine's rules (RULINGS H1-H10), including the forced
moves the engine makes itself; here it is given the real pack order. Every solution found
is replayed through the real engine (:class:`cardhall.games.shah.TheShah`) action by
action, checking at each step that the engine's state matches the model's, and must end in
a win; a mismatch raises ``AssertionError``.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Sequence

from cardhall.games.rng import GameRNG
from cardhall.games.shah import TheShah, pack_cards
from cardhall.games.shah.model import (
    Move,
    State,
    apply,
    canon,
    engine_action,
    from_game,
    initial,
    key,
    moves,
    settle,
)

JITTER = 0.25


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
            assert from_game(game) == state[:7], (seed, mv)
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
