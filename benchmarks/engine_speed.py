"""Offline Skipper games per second, per mode and bot, on one core (issue: engine speed).

Usage: python benchmarks/engine_speed.py [--seconds 5]

Each row plays games with seeds 0, 1, 2, ... for about ``--seconds`` of wall time in this one
process and prints games/s and actions/s. Targets: >= 300 solo random games/s and >= 50
four-seat greedy multi games/s.
"""

from __future__ import annotations

import argparse
import time

from cardhall.games.simulate import play_game

ROWS = [
    ("solo", 1, "random"),
    ("solo", 1, "greedy"),
    ("multi", 4, "random"),
    ("multi", 4, "greedy"),
    ("race", 4, "greedy"),
]


def main() -> None:
    """Print one row per (mode, seats, bot) with games/s, actions/s and games played."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="Wall time per row (s).")
    args = parser.parse_args()
    print(f"{'mode':<6} {'seats':>5} {'bot':<7} {'games/s':>9} {'actions/s':>10} {'games':>6}")
    for mode, seats, bot in ROWS:
        play_game("skipper", {"mode": mode}, seats, bot, 10_000)  # warm up
        games = steps = 0
        start = time.perf_counter()
        while time.perf_counter() - start < args.seconds:
            steps += play_game("skipper", {"mode": mode}, seats, bot, games)["steps"]
            games += 1
        dt = time.perf_counter() - start
        print(f"{mode:<6} {seats:>5} {bot:<7} {games / dt:>9.1f} {steps / dt:>10.0f} {games:>6}")


if __name__ == "__main__":
    main()
