"""Win rates and mean scores of the Shop Solitaire and The Shah bots.

Usage::

    python benchmarks/bots_shop_shah.py [deals] [game ...] [--first SEED]    (--help: text)

Plays ``deals`` deals (default 1000; seeds ``first``..``first+deals-1``, ``--first``
default 0) of each game with the ``random`` and ``greedy`` strategies and prints, per bot:
wins, win rate, mean score (Shop: ledger entries when the game ended; Shah: cards built on
the foundations above the aces), the mean of ``best_ledger`` for Shop, the end reasons,
mean actions per game and the time taken.
"""

from __future__ import annotations

import argparse
import time
from collections import Counter

from cardhall.games.simulate import play_game


def run(game_name: str, bot: str, deals: int, first: int = 0) -> str:
    """Play ``deals`` deals of ``game_name`` with ``bot``, seeds ``first``.. onwards; return
    a one-line summary."""
    wins = 0
    score = 0.0
    best = 0.0
    moves = 0
    reasons: Counter[str] = Counter()
    start = time.perf_counter()
    for seed in range(first, first + deals):
        rec = play_game(game_name, {}, 1, bot, seed)
        wins += rec["winner"] == 0
        score += rec["scores"][0]
        best += rec.get("best_ledger", 0)
        moves += rec["steps"]
        reasons[rec["outcome"]] += 1
    took = time.perf_counter() - start
    extra = f" mean best_ledger {best / deals:.2f}" if game_name == "shop" else ""
    return (f"{game_name:5} {bot:7} deals {deals} (seeds {first}..{first + deals - 1}) "
            f"wins {wins} ({wins / deals:.1%}) "
            f"mean score {score / deals:.2f}{extra} mean actions {moves / deals:.0f} "
            f"reasons {dict(reasons)} in {took:.0f}s")


def main(argv: list[str] | None = None) -> None:
    """Entry point: ``python benchmarks/bots_shop_shah.py [deals] [game ...] [--first N]``."""
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("deals", type=int, nargs="?", default=1000,
                        help="deals per game and bot, seeds 0..deals-1 (default 1000)")
    parser.add_argument("games", nargs="*", metavar="game",
                        help="shop and/or shah (default: both)")
    parser.add_argument("--first", type=int, default=0, help="first seed (default 0)")
    args = parser.parse_args(argv)
    if args.deals < 1:
        parser.error("deals must be at least 1")
    for name in args.games:  # not choices=: argparse 3.11 checks a '*' default against them
        if name not in ("shop", "shah"):
            parser.error(f"unknown game {name!r} (choose from 'shop', 'shah')")
    for game_name in args.games or ["shop", "shah"]:
        for bot in ("random", "greedy"):
            print(run(game_name, bot, args.deals, args.first), flush=True)


if __name__ == "__main__":
    main()
