"""The acting seat's engine path on a cold CPU, step by step: µs per step, p50 and p90.

Usage: python benchmarks/engine_cold.py [--actions 800] [--pause-ms 5] [--tables 100]

Plays random legal actions (never ``resign``) of 4-seat Skipper ``multi`` games over
``--tables`` tables in turn, sleeping ``--pause-ms`` before each action so that the CPU idles
and its caches go cold, as between two actions of the peers harness's paced phase. Each
action is timed through the steps a server takes before the acting seat's frame can leave:
``protocol.decode`` of the ``act`` frame, ``Skipper.apply``, ``Skipper.deltas`` of the four
seats, and ``update_parts`` plus ``update_frame`` for the acting seat. No room, store or
socket: this is the part of Cardhall's round trip that the rules cost
(``python -m cardhall.bench.floor --game skipper`` runs the same steps behind a socket).

With ``--pause-ms 0`` the same steps run warm, for comparison. Bounded by ``--actions``.
"""

from __future__ import annotations

import argparse
import random
import time

from cardhall import protocol as p
from cardhall.games.skipper import Skipper

STEPS = ("decode", "apply", "deltas", "pack")


def run(actions: int, pause: float, tables: int, seed: int) -> dict[str, list[float]]:
    """Time ``actions`` actions; returns µs per action for each of :data:`STEPS` and
    ``total``, in action order."""
    rng = random.Random(seed)
    made = 0

    def new_game() -> Skipper:
        nonlocal made
        made += 1
        game = Skipper({"mode": "multi", "seed": rng.randrange(1 << 30)}, 4)
        game.deltas(range(4))  # mark the start: deltas from the next state on
        return game

    games = [new_game() for _ in range(tables)]
    times: dict[str, list[float]] = {step: [] for step in (*STEPS, "total")}
    for n in range(actions):
        k = n % tables
        game = games[k]
        if game.over:
            game = games[k] = new_game()
        seat = game.to_act()[0]
        action = rng.choice([a for a in game.legal_actions(seat) if a[0] != "resign"])
        frame = p.encode(p.Act(room="r1", state_id=game.state_id, action=list(action), id=n))
        if pause:
            time.sleep(pause)  # on purpose: the CPU must idle
        t0 = time.perf_counter()
        msg = p.decode(frame, side="client")
        t1 = time.perf_counter()
        assert isinstance(msg, p.Act)
        events = game.apply(seat, msg.action)
        t2 = time.perf_counter()
        deltas = game.deltas(range(4))
        assert deltas is not None
        for s in range(4):  # a seat's own part is computed when first read: as a room, all
            deltas[s]
        t3 = time.perf_counter()
        p.update_frame(p.update_parts("r1", game.state_id, events), delta=deltas[seat])
        t4 = time.perf_counter()
        for step, (a, b) in zip(STEPS, ((t0, t1), (t1, t2), (t2, t3), (t3, t4))):
            times[step].append((b - a) * 1e6)
        times["total"].append((t4 - t0) * 1e6)
    return times


def main() -> None:
    """Command line: print p50 and p90 of each step."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--actions", type=int, default=800)
    parser.add_argument("--pause-ms", type=float, default=5.0,
                        help="sleep before each action, in ms (0: warm)")
    parser.add_argument("--tables", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    times = run(args.actions, args.pause_ms / 1000, args.tables, args.seed)
    print(f"{args.actions} actions over {args.tables} tables, "
          f"{args.pause_ms:g} ms idle before each (µs):")
    for step, xs in times.items():
        xs = sorted(xs)
        print(f"  {step:<7} p50 {xs[len(xs) // 2]:7.1f}  p90 {xs[int(len(xs) * .9)]:7.1f}")


if __name__ == "__main__":
    main()
