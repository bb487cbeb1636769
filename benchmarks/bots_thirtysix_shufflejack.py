"""Win rates and mean scores of the Thirty-Six and ShuffleJack bots.

Usage::

    python benchmarks/bots_thirtysix_shufflejack.py [DEALS] [--game thirtysix|shufflejack]

Plays DEALS deals (default 2000; seeds 0..DEALS-1) per bot and rule set and prints, per
line: game, options, bot, win rate, mean score and (ShuffleJack) mean rounds reached.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

from cardhall.games.simulate import play_game

THIRTYSIX_OPTIONS: list[dict[str, Any]] = [
    {},
    {"baltimore": True},
    {"short_refill": True},
    {"discard_rightmost": True},
    {"ace_wins": True},
    {"beat_faces": True},
]


def run(game_name: str, options: dict[str, Any], bot: str, deals: int) -> dict[str, float]:
    """Play ``deals`` deals and return win rate, mean score, mean rounds and seconds."""
    wins = score = rounds = 0
    start = time.perf_counter()
    for seed in range(deals):
        rec = play_game(game_name, options, 1, bot, seed)
        wins += rec["winner"] == 0
        score += rec["scores"][0]
        rounds += rec.get("rounds", 0)
    return {"win": wins / deals, "score": score / deals, "rounds": rounds / deals,
            "seconds": time.perf_counter() - start}


def main() -> None:
    """Print the table (see the module docstring)."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("deals", type=int, nargs="?", default=2000)
    parser.add_argument("--game", choices=["thirtysix", "shufflejack"], default=None)
    args = parser.parse_args()
    jobs: list[tuple[str, dict[str, Any]]] = []
    if args.game in (None, "thirtysix"):
        jobs += [("thirtysix", o) for o in THIRTYSIX_OPTIONS]
    if args.game in (None, "shufflejack"):
        jobs.append(("shufflejack", {}))
    for game_name, options in jobs:
        for bot in ("random", "greedy"):
            r = run(game_name, options, bot, args.deals)
            extra = f"  rounds {r['rounds']:.2f}" if game_name == "shufflejack" else ""
            print(f"{game_name:12} {options!s:28} {bot:7} win {r['win']:6.1%}  "
                  f"mean score {r['score']:6.2f}{extra}  ({r['seconds']:.1f}s)", flush=True)


if __name__ == "__main__":
    main()
