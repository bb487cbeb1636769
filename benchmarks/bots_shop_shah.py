"""Win rates and mean scores of the Shop Solitaire and The Shah bots.

Usage::

    python benchmarks/bots_shop_shah.py [deals] [game ...]

Plays ``deals`` deals (default 1000, seeds 0..deals-1) of each game with the ``random`` and
``greedy`` strategies and prints, per bot: wins, win rate, mean score (Shop: ledger entries
when the game ended; Shah: cards built on the foundations above the aces), the mean of
``best_ledger`` for Shop, the end reasons, mean actions per game and the time taken.
"""

from __future__ import annotations

import sys
import time
from collections import Counter

from cardhall.server.games.simulate import play_game


def run(game_name: str, bot: str, deals: int) -> str:
    """Play ``deals`` deals of ``game_name`` with ``bot``; return a one-line summary."""
    wins = 0
    score = 0.0
    best = 0.0
    moves = 0
    reasons: Counter[str] = Counter()
    start = time.perf_counter()
    for seed in range(deals):
        rec = play_game(game_name, {}, 1, bot, seed)
        wins += rec["winner"] == 0
        score += rec["scores"][0]
        best += rec.get("best_ledger", 0)
        moves += rec["steps"]
        reasons[rec["outcome"]] += 1
    took = time.perf_counter() - start
    extra = f" mean best_ledger {best / deals:.2f}" if game_name == "shop" else ""
    return (f"{game_name:5} {bot:7} deals {deals} wins {wins} ({wins / deals:.1%}) "
            f"mean score {score / deals:.2f}{extra} mean actions {moves / deals:.0f} "
            f"reasons {dict(reasons)} in {took:.0f}s")


def main() -> None:
    """Entry point: ``python benchmarks/bots_shop_shah.py [deals] [game ...]``."""
    deals = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    games = sys.argv[2:] or ["shop", "shah"]
    for game_name in games:
        for bot in ("random", "greedy"):
            print(run(game_name, bot, deals), flush=True)


if __name__ == "__main__":
    main()
