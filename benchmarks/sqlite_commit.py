"""The SQLite store's commit policies against each other and the memory store, in turns.

``cardhall serve`` keeps its rooms in a SQLite file and answers an action only once its log
entry is committed. Two ways to commit (``server/store/sqlite_file.py``):

* ``tick`` (group commit; the default with ``--fsync always``): the appends of one
  event-loop tick share one transaction, committed by a callback on the loop's next round;
  each action waits for it (its frame is then finished in a task);
* ``each``: every append commits at once, synchronously, and nothing waits (the frame is
  handled whole in the protocol callback that parsed it);
* ``adaptive``: the first append of a tick commits at once, the others of that tick share
  one commit at its end (an action alone in its tick does not wait; under load the commit's
  system calls are shared).

This script starts one bench server (``python -m cardhall.bench.servers serve``) per variant,
all on the server CPU, and runs the bench's latency phase, then its throughput phase, over
all of them in turns (``cardhall bench``'s :func:`~cardhall.bench.load.phase`: memory,
tick, each, adaptive, memory, ...), so that every variant meets the same drift of the
machine's speed:

    python benchmarks/sqlite_commit.py                    # memory and the three (fsync normal)
    python benchmarks/sqlite_commit.py --fsync always     # the same with synchronous=FULL
    python benchmarks/sqlite_commit.py --rounds 16 --seconds 16

Printed per variant: round-trip p50 and p99 (µs) at the paced rate, accepted actions/s in the
closed loop, server CPU per action (µs), and the ratios to the memory store's. ``--json``
prints one JSON object instead.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

from cardhall.bench.config import BenchConfig
from cardhall.bench.load import run_variants
from cardhall.bench.procs import raise_fd_limit

#: The SQLite store's commit policies, each run beside the memory store.
COMMITS = ("tick", "each", "adaptive")


def table(out: dict[str, dict[str, Any]]) -> str:
    """The figures as a Markdown table, ratios to the memory store."""
    mem = out["memory"]
    rows = [("round trip p50, paced (us)", "latency", "rtt_p50_us", 1.0),
            ("round trip p99, paced (us)", "latency", "rtt_p99_us", 1.0),
            ("accepted actions / s, closed loop", "throughput", "actions_per_s", 1.0),
            ("round trip p50, closed loop (us)", "throughput", "rtt_p50_us", 1.0),
            ("server CPU per action (us)", "throughput", "server_cpu_s_per_action", 1e6)]
    lines = ["| figure | memory | " + " | ".join(f"{c} | ratio" for c in COMMITS) + " |",
             "|---|---:|" + "---:|---:|" * len(COMMITS)]
    for label, phase, key, scale in rows:
        base = (mem[phase].get(key) or 0) * scale
        cells = [label, f"{base:.0f}"]
        for name in COMMITS:
            v = (out[name][phase].get(key) or 0) * scale
            cells += [f"{v:.0f}", f"{v / base:.2f}x" if base else "-"]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Command line; returns the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fsync", choices=("normal", "always"), default="normal")
    parser.add_argument("--rounds", type=int, default=8, help="windows per variant (8)")
    parser.add_argument("--seconds", type=float, default=8.0,
                        help="measured seconds per variant and phase (8)")
    parser.add_argument("--warmup", type=float, default=2.0, help="seconds of load first (2)")
    parser.add_argument("--rate", type=float, default=200.0, help="paced actions/s (200)")
    parser.add_argument("--rooms", type=int, default=100, help="rooms per server (100)")
    parser.add_argument("--no-pin", dest="pin", action="store_false")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    cfg = BenchConfig(rooms=args.rooms, rate=args.rate, warmup=args.warmup,
                      latency_seconds=args.seconds, throughput_seconds=args.seconds,
                      rounds=args.rounds, pin=args.pin)
    raise_fd_limit(4096 + 12 * args.rooms)
    with tempfile.TemporaryDirectory(prefix="cardhall-sqlite-commit-") as tmp:
        folder = Path(tmp)
        variants = [("memory", ())] + [
            (commit, ("--data", str(folder / f"{commit}.db"), "--commit", commit,
                      "--fsync", args.fsync)) for commit in COMMITS]
        out = run_variants(variants, cfg, folder)
    if args.json:
        print(json.dumps(out, sort_keys=True, default=float))
    else:
        print(f"fsync {args.fsync}, {args.rooms} rooms, {args.rate:g} act/s paced, "
              f"{args.rounds} rounds of {args.seconds / args.rounds:g} s per variant and phase")
        print(table(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
