"""Versions of the server against each other and the echo baseline, taking turns.

``cardhall bench`` compares one server with the echo baseline. To tell whether a change to
the server's path moved the round trip, two runs of it one after the other do not do: the
machine's speed drifts between them by more than most changes move it. This script starts
one Cardhall server per version given (and the echo baseline), all on the same CPU, and
runs the bench's latency phase over all of them in turns (A, B, echo, A, B, echo, ...),
``--rounds`` windows each, so that every version meets the same drift:

    python benchmarks/ab.py HEAD~1 .            # the commit before the last against the tree
    python benchmarks/ab.py 006e45b HEAD . --rounds 24 --seconds 24
    python benchmarks/ab.py main . --redis      # each with the Redis store (its own redis)

A version is a git revision of this repository, ``.`` for the working tree as it is
(uncommitted changes included), or the folder of another checkout (one holding ``server``,
``protocol`` and ``client``: a throwaway variant, say). Each is exported into a temporary
``cardhall`` package that its server process finds first on ``PYTHONPATH``; the load
generator is this checkout's. Printed per version: round-trip p50 and p99 (µs) pooled over
its windows and as ratios to the echo's, the median over rounds of (its window's p50 / the
echo window's p50 of the same round), and the server's CPU per
action (µs). With ``--redis`` every server keeps its rooms in a redis-server of its own
(append-only, as ``cardhall bench`` runs it) and Redis's CPU per action is printed too.
``--json`` prints one JSON object instead.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from cardhall.bench.config import BenchConfig
from cardhall.bench.load import environment, run_versions
from cardhall.bench.procs import raise_fd_limit
from cardhall.bench.versions import export, label


def summary(versions: list[str], figures: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One row per version: its round-trip figures and their ratios to the echo's."""
    echo = figures[-1]
    out = []
    for version, f in zip(versions, figures):
        rounds = [x / e for x, e in zip(f["rtt_p50_us_by_round"], echo["rtt_p50_us_by_round"])
                  if x and e]
        cpu = f.get("server_cpu_s_per_action")
        out.append({
            "version": version, "rtt_p50_us": f["rtt_p50_us"], "rtt_p99_us": f["rtt_p99_us"],
            "p50_ratio": f["rtt_p50_us"] / echo["rtt_p50_us"],
            "p99_ratio": f["rtt_p99_us"] / echo["rtt_p99_us"],
            "p50_ratio_median_of_rounds": statistics.median(rounds) if rounds else None,
            "server_cpu_us_per_action": cpu * 1e6 if cpu else None,
            "redis_cpu_us_per_action": (f["redis_cpu_s_per_action"] * 1e6
                                        if f.get("redis_cpu_s_per_action") else None),
            "actions": f["actions"]})
    return out


def main(argv: list[str] | None = None) -> int:
    """Command line; returns the exit status (2: a bad revision)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("versions", nargs="+", metavar="VERSION",
                        help="a git revision, . for the working tree, or another checkout's "
                             "folder")
    parser.add_argument("--rounds", type=int, default=16,
                        help="windows per version, in turns (default 16)")
    parser.add_argument("--seconds", type=float, default=16.0,
                        help="measured seconds per version, over its windows (default 16)")
    parser.add_argument("--warmup", type=float, default=4.0,
                        help="seconds of load before the windows, split over them (default 4)")
    parser.add_argument("--rate", type=float, default=200.0,
                        help="actions/s over all rooms (default 200, as the bench)")
    parser.add_argument("--rooms", type=int, default=100, help="rooms per server (default 100)")
    parser.add_argument("--no-pin", dest="pin", action="store_false",
                        help="leave the processes where the scheduler puts them")
    parser.add_argument("--redis", action="store_true",
                        help="the Redis store: a redis-server per version")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    cfg = BenchConfig(rooms=args.rooms, rate=args.rate, warmup=args.warmup,
                      latency_seconds=args.seconds, rounds=args.rounds, pin=args.pin)
    raise_fd_limit(4096 + 8 * args.rooms * len(args.versions))
    with tempfile.TemporaryDirectory(prefix="cardhall-ab-") as tmp:
        try:
            names = [label(v) for v in args.versions]
            paths = [export(v, Path(tmp) / str(i)) for i, v in enumerate(args.versions)]
        except subprocess.CalledProcessError as exc:
            print(f"ab: git failed: {exc.stderr.decode(errors='replace').strip()}",
                  file=sys.stderr)
            return 2
        figures = run_versions(paths, cfg, Path(tmp) / "redis" if args.redis else None)
    rows = summary(names, figures)
    echo = figures[-1]
    if args.json:
        print(json.dumps({"config": vars(args), "env": environment(), "versions": rows,
                          "echo": {"rtt_p50_us": echo["rtt_p50_us"],
                                   "rtt_p99_us": echo["rtt_p99_us"]}}))
        return 0
    print(f"{'version':24s} {'p50 us':>7s} {'ratio':>6s} {'rounds':>6s} {'p99 us':>7s} "
          f"{'ratio':>6s} {'cpu/act us':>10s}" + (f" {'redis us':>8s}" if args.redis else ""))
    for r in rows:
        med = r["p50_ratio_median_of_rounds"]
        cpu = r["server_cpu_us_per_action"]
        rcpu = r["redis_cpu_us_per_action"]
        print(f"{r['version']:24s} {r['rtt_p50_us']:7.0f} {r['p50_ratio']:5.2f}x "
              f"{'-' if med is None else f'{med:5.2f}x':>6s} {r['rtt_p99_us']:7.0f} "
              f"{r['p99_ratio']:5.2f}x {'-' if cpu is None else f'{cpu:10.0f}':>10s}"
              + (f" {'-' if rcpu is None else f'{rcpu:8.0f}':>8s}" if args.redis else ""))
    print(f"{'echo':24s} {echo['rtt_p50_us']:7.0f} {'':6s} {'':6s} {echo['rtt_p99_us']:7.0f}")
    print(f"{args.rounds} rounds of {args.seconds / args.rounds:.2f} s per version, "
          f"{args.rooms} rooms, {args.rate:g} actions/s; 'rounds': median over rounds of the "
          "p50 ratio to the echo window of the same round")
    return 0


if __name__ == "__main__":
    sys.exit(main())
