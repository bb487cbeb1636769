"""Offline Skipper games per second, per mode and bot, on one core (issue: engine speed).

Usage:
    python benchmarks/engine_speed.py [--seconds 5]
    python benchmarks/engine_speed.py --builds --seconds 3 --rounds 3

Each row plays games with seeds 0, 1, 2, ... for about ``--seconds`` of wall time in this one
process and prints games/s and actions/s. Targets: >= 300 solo random games/s and >= 50
four-seat greedy multi games/s.

``--builds``: the same rows on both builds of this checkout (:mod:`cardhall.bench.builds`:
pure Python and the compiled core, each in a child process of its own), by turns row by row
for ``--rounds`` rounds; prints each build's median games/s and the median of the per-round
ratios compiled / pure.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from cardhall.games.simulate import play_game

ROWS = [
    ("solo", 1, "random"),
    ("solo", 1, "greedy"),
    ("multi", 4, "random"),
    ("multi", 4, "greedy"),
    ("race", 4, "greedy"),
]


def measure(mode: str, seats: int, bot: str, seconds: float) -> tuple[float, float, int]:
    """``(games/s, actions/s, games)`` of one row over about ``seconds`` of wall time."""
    play_game("skipper", {"mode": mode}, seats, bot, 10_000)  # warm up
    games = steps = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        steps += play_game("skipper", {"mode": mode}, seats, bot, games)["steps"]
        games += 1
    dt = time.perf_counter() - start
    return games / dt, steps / dt, games


def builds(seconds: float, rounds: int) -> None:
    """Both builds by turns, row by row (see the module docstring)."""
    from cardhall.bench import builds as b

    with tempfile.TemporaryDirectory(prefix="cardhall-engine-") as tmp:
        paths = {"pure": b.pure(Path(tmp) / "pure"), "compiled": b.compiled()}
        print(f"{'mode':<6} {'seats':>5} {'bot':<7} {'pure g/s':>9} {'compiled g/s':>13} "
              f"{'ratio':>6}")
        for i, (mode, seats, bot) in enumerate(ROWS):
            rates: dict[str, list[float]] = {k: [] for k in paths}
            for _ in range(rounds):
                for kind, path in paths.items():
                    done = subprocess.run(
                        [sys.executable, __file__, "--row", str(i), "--seconds", str(seconds)],
                        env=dict(os.environ, PYTHONPATH=str(path)), capture_output=True,
                        text=True, check=True, timeout=60 + 4 * seconds)
                    rates[kind].append(float(json.loads(done.stdout)["games_per_s"]))
            ratio = statistics.median(c / p for p, c in zip(rates["pure"], rates["compiled"]))
            print(f"{mode:<6} {seats:>5} {bot:<7} {statistics.median(rates['pure']):>9.1f} "
                  f"{statistics.median(rates['compiled']):>13.1f} {ratio:>5.2f}x", flush=True)


def main() -> None:
    """Print one row per (mode, seats, bot) with games/s, actions/s and games played."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="Wall time per row (s).")
    parser.add_argument("--builds", action="store_true",
                        help="Pure Python and the compiled core side by side, by turns.")
    parser.add_argument("--rounds", type=int, default=3, help="With --builds: rounds.")
    parser.add_argument("--row", type=int, help=argparse.SUPPRESS)  # one row, as JSON
    args = parser.parse_args()
    if args.row is not None:
        rate, actions, games = measure(*ROWS[args.row], args.seconds)
        print(json.dumps({"games_per_s": rate, "actions_per_s": actions, "games": games}))
        return
    if args.builds:
        builds(args.seconds, args.rounds)
        return
    print(f"{'mode':<6} {'seats':>5} {'bot':<7} {'games/s':>9} {'actions/s':>10} {'games':>6}")
    for mode, seats, bot in ROWS:
        rate, actions, games = measure(mode, seats, bot, args.seconds)
        print(f"{mode:<6} {seats:>5} {bot:<7} {rate:>9.1f} {actions:>10.0f} {games:>6}")


if __name__ == "__main__":
    main()
