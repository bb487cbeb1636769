"""Skipper's bots: completion rates, auction sales, solo turns, and expert against greedy.

Usage::

    python benchmarks/skipper_bots.py [--games N] [--expert-games M] [--seats 2,3,4]
                                      [--seed S] [--skip-expert] [--jobs J]
                                      [--only tables|solo|h2h]

Prints one line per (strategy, seats) of multiplayer Skipper (every seat the same bot,
``--games`` games, seeds S..S+N-1): games completed with a winner, the other end reasons,
auction sales per game and turns per game; the solo mean turns of greedy and expert; and,
for each seat count, expert in one seat against greedy in the others (``M`` games, the
lineup turning one seat per game): expert's win share with its Wilson 95% interval, against
the ``1 / seats`` a seat wins by chance, as one table. ``--jobs`` plays the expert's games
in that many processes (each game is deterministic given its seed, so the figures do not
depend on it). The same figures come from ``cardhall simulate`` (``--strategy
expert,greedy`` for the head-to-head).
"""

from __future__ import annotations

import argparse
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from statistics import NormalDist
from typing import Any

from cardhall.games.simulate import play_game, run


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


def _records(mode: str, seats: int, bot: str, games: int, seed: int,
             jobs: int) -> list[dict[str, Any]]:
    """The records of ``games`` games (seeds ``seed..``), in ``jobs`` processes."""
    args = [("skipper", {"mode": mode}, seats, bot, seed + k) for k in range(games)]
    if jobs <= 1:
        return [play_game(*a, game_index=k) for k, a in enumerate(args)]
    with ProcessPoolExecutor(jobs) as pool:
        futures = [pool.submit(play_game, *a, game_index=k) for k, a in enumerate(args)]
        return [f.result() for f in futures]


def solo(bot: str, games: int, seed: int, jobs: int = 1) -> str:
    """Solo: wins and mean turns of ``bot`` (K7: fewer is better)."""
    start = time.perf_counter()
    records = _records("solo", 1, bot, games, seed, jobs)
    won = sum(r["outcome"] == "won" for r in records)
    turns = sum(r["turns"] for r in records) / games
    return (f"solo {bot:7} won {won}/{games} mean turns {turns:.2f} "
            f"({time.perf_counter() - start:.0f} s)")


H2H_HEADER = ("| seats | expert wins / games | share | Wilson 95% | chance 1/seats | margin "
              "| wall s |\n|------:|-----:|------:|:----------:|------:|------:|------:|")


def head_to_head(seats: int, games: int, seed: int, jobs: int = 1) -> str:
    """Expert in one seat (turning one seat per game), greedy in the others: one row of
    the head-to-head table (expert's wins, share, Wilson 95% interval, chance share)."""
    start = time.perf_counter()
    records = _records("multi", seats, "expert,greedy", games, seed, jobs)
    wins = sum(r["winner"] is not None and r["strategies"][r["winner"]] == "expert"
               for r in records)
    lo, hi = wilson(wins, games)
    return (f"| {seats} | {wins}/{games} | {wins / games:.3f} | {lo:.3f}..{hi:.3f} | "
            f"{1 / seats:.3f} | {wins / games - 1 / seats:+.3f} | "
            f"{time.perf_counter() - start:.0f} |")


def main() -> None:
    """Parse the arguments and print the figures."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--expert-games", type=int, default=60)
    ap.add_argument("--seats", default="2,3,4")
    ap.add_argument("--seed", type=int, default=2)
    ap.add_argument("--skip-expert", action="store_true")
    ap.add_argument("--only", choices=("tables", "solo", "h2h"), default=None)
    ap.add_argument("--jobs", type=int, default=1,
                    help="processes for the expert's games (default 1)")
    args = ap.parse_args()
    seat_counts = [int(x) for x in args.seats.split(",")]
    if args.only in (None, "tables"):
        for bot in ("greedy", "random"):
            for seats in seat_counts:
                print(table(bot, seats, args.games, args.seed), flush=True)
    if args.only in (None, "solo"):
        print(solo("greedy", args.games, 1), flush=True)
        if not args.skip_expert:
            print(solo("expert", args.expert_games, 1, args.jobs), flush=True)
            print(solo("greedy", args.expert_games, 1), flush=True)
    if args.only in (None, "h2h") and not args.skip_expert:
        print(H2H_HEADER, flush=True)
        for seats in seat_counts:
            print(head_to_head(seats, args.expert_games, args.seed, args.jobs), flush=True)


if __name__ == "__main__":
    main()
