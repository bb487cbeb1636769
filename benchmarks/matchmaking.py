"""Matchmaking waves (issue #45 item 3): N queued players matched in waves by
``cardhall.server.matchmaking.pair``, the pairing time per wave and the mean rating spread
per table.

Usage: python benchmarks/matchmaking.py [--players 10000] [--waves 30] [--seed 1]
                                        [--window 100] [--widen 50] [--bot-after WAVES]

``--players`` tickets join the queue of one game type at once, their shown ratings drawn
from a normal distribution (mean 1500, deviation 300, the seed ``--seed``), each asking for
4 seats (40 %), 2 seats (20 %) or any of 2-4 (40 %). Waves then run back to back until
nobody is left or ``--waves`` waves ran; with ``--bot-after W`` bots fill the seats of a
ticket that waited W waves. Pure computation, no server: it measures the algorithm.

Prints one line per wave (tables made, players seated, players left, the wave's pairing
time in ms, the mean and largest spread of its tables) and a summary: the first wave's
time, the slowest wave's, the mean spread per table over the run (weighted by table), and
the players still waiting at the end.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from cardhall.server.matchmaking import Table, Ticket, pair  # noqa: E402


def queue(players: int, seed: int) -> list[Ticket]:
    """``players`` tickets of ratings ~ N(1500, 300) asking for 4, 2 or 2-4 seats."""
    rng = random.Random(seed)
    sizes = [(4,)] * 4 + [(2,)] * 2 + [(2, 3, 4)] * 4
    return [Ticket(f"p{k}", f"p{k}", round(rng.gauss(1500, 300)), rng.choice(sizes),
                   since=0.0) for k in range(players)]


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark; exit 0."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--players", type=int, default=10_000)
    ap.add_argument("--waves", type=int, default=30)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--window", type=float, default=100.0)
    ap.add_argument("--widen", type=float, default=50.0)
    ap.add_argument("--bot-after", type=int, default=None, metavar="WAVES")
    args = ap.parse_args(argv)
    waiting = queue(args.players, args.seed)
    all_tables: list[Table] = []
    times: list[float] = []
    print(f"{args.players} players queued; window {args.window:g} +{args.widen:g} per wave")
    print("wave  tables  seated   left  time_ms  mean_spread  max_spread")
    for wave in range(args.waves):
        if not waiting:
            break
        start = time.perf_counter()
        tables, waiting = pair(waiting, window=args.window, widen=args.widen,
                               now=float(wave), bot_after=args.bot_after)
        took = (time.perf_counter() - start) * 1000
        times.append(took)
        all_tables += tables
        spreads = [t.spread for t in tables] or [0.0]
        seated = sum(len(t.tickets) for t in tables)
        print(f"{wave + 1:4d}  {len(tables):6d}  {seated:6d}  {len(waiting):5d}  {took:7.1f}"
              f"  {statistics.fmean(spreads):11.1f}  {max(spreads):10.0f}")
    spreads = [t.spread for t in all_tables]
    print(f"first wave {times[0]:.1f} ms, slowest wave {max(times):.1f} ms; "
          f"{len(all_tables)} tables, mean spread per table "
          f"{statistics.fmean(spreads) if spreads else 0:.1f} rating points; "
          f"{len(waiting)} players still waiting after {len(times)} waves")
    return 0


if __name__ == "__main__":
    sys.exit(main())
