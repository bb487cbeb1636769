"""Skipper's bots: completion rates, auction sales, solo turns, and expert against greedy.

Usage::

    python benchmarks/skipper_bots.py [--games N] [--expert-games M] [--seats 2,3,4]
                                      [--seed S] [--skip-expert]

Prints one line per (strategy, seats) of multiplayer Skipper (every seat the same bot,
``--games`` games, seeds S..S+N-1): games completed with a winner, the other end reasons,
auction sales per game and turns per game; the solo mean turns of greedy and expert; and,
for each seat count, expert in one seat against greedy in the others (``M`` games, the
lineup turning one seat per game): expert's win share with its Wilson 95% interval, against
the ``1 / seats`` a seat wins by chance. The same figures come from ``cardhall simulate``
(``--strategy expert,greedy`` for the head-to-head).
"""

from __future__ import annotations

import argparse
import time
from collections import Counter
from statistics import NormalDist

from cardhall.games.simulate import run


def wilson(wins: int, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson score interval of a proportion ``wins / n`` (bounds in 0..1)."""
    if n == 0:
        return (0.0, 1.0)
    z = NormalDist().inv_cdf(0.5 + confidence / 2)
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * (p * (1 - p) / n + z * z / (4 * n * n)) ** 0.5
    return (centre - half, centre + half)


def table(bot: str, seats: int, games: int, seed: int) -> str:
    """One line of figures for ``bot`` in every seat of ``seats``-seat multi games."""
    start = time.perf_counter()
    records = list(run("skipper", {"mode": "multi"}, seats, bot, games, seed))
    outcomes = Counter(r["outcome"] for r in records)
    done = outcomes.pop("completed", 0)
    sold = sum(r["sold"] for r in records) / games
    turns = sum(r["turns"] for r in records) / games
    return (f"multi {seats} seats {bot:7} completed {done}/{games} ({done / games:.1%}) "
            f"other {dict(outcomes)} sales/game {sold:.2f} turns/game {turns:.1f} "
            f"({time.perf_counter() - start:.0f} s)")


def solo(bot: str, games: int, seed: int) -> str:
    """Solo: wins and mean turns of ``bot``."""
    start = time.perf_counter()
    records = list(run("skipper", {"mode": "solo"}, 1, bot, games, seed))
    won = sum(r["outcome"] == "won" for r in records)
    turns = sum(r["turns"] for r in records) / games
    return (f"solo {bot:7} won {won}/{games} mean turns {turns:.2f} "
            f"({time.perf_counter() - start:.0f} s)")


def head_to_head(seats: int, games: int, seed: int) -> str:
    """Expert in one seat, greedy in the others: expert's win share and its interval."""
    start = time.perf_counter()
    records = list(run("skipper", {"mode": "multi"}, seats, "expert,greedy", games, seed))
    wins = sum(r["winner"] is not None and r["strategies"][r["winner"]] == "expert"
               for r in records)
    lo, hi = wilson(wins, games)
    return (f"expert vs greedy {seats} seats: expert won {wins}/{games} = {wins / games:.3f} "
            f"(Wilson 95% {lo:.3f}..{hi:.3f}; chance {1 / seats:.3f}; margin "
            f"{wins / games - 1 / seats:+.3f}) ({time.perf_counter() - start:.0f} s)")


def main() -> None:
    """Parse the arguments and print the figures."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--expert-games", type=int, default=60)
    ap.add_argument("--seats", default="2,3,4")
    ap.add_argument("--seed", type=int, default=2)
    ap.add_argument("--skip-expert", action="store_true")
    ap.add_argument("--only", choices=("tables", "solo", "h2h"), default=None)
    args = ap.parse_args()
    seat_counts = [int(x) for x in args.seats.split(",")]
    if args.only in (None, "tables"):
        for bot in ("greedy", "random"):
            for seats in seat_counts:
                print(table(bot, seats, args.games, args.seed), flush=True)
    if args.only in (None, "solo"):
        print(solo("greedy", args.games, 1), flush=True)
        if not args.skip_expert:
            print(solo("expert", args.expert_games, 1), flush=True)
            print(solo("greedy", args.expert_games, 1), flush=True)
    if args.only in (None, "h2h") and not args.skip_expert:
        for seats in seat_counts:
            print(head_to_head(seats, args.expert_games, args.seed), flush=True)


if __name__ == "__main__":
    main()
