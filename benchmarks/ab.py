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

With ``--path`` it compares the versions' action path instead, without sockets: each
version's own ``benchmarks/room_path.py`` (this checkout's when a revision has none) runs
in a child process on that version's package, ``--actions`` actions over ``--rooms`` rooms
(default 100: cold data, as the bench's tables), the versions in turns for ``--rounds``
rounds (the order alternating from round to round), each run bounded by ``--timeout``
seconds. Printed per row (µs to the acting seat's first frame and to the end of the
broadcast, p50 and p90; CPU per action; frames per action): each version's median over the
rounds and, for each version after the first, the median over rounds of its figure divided
by the first version's of the same round (``B/A``):

    python benchmarks/ab.py main . --path                   # before / after, 8 rounds
    python benchmarks/ab.py HEAD~1 . --path --rounds 12 --actions 5000 --store sqlite-tick
    python benchmarks/ab.py c85f440 . --path --store sqlite-journal --turn-seconds 60
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from cardhall.bench.config import BenchConfig
from cardhall.bench.load import environment, run_versions
from cardhall.bench.procs import raise_fd_limit
from cardhall.bench.versions import ROOT, export, label

#: The figures of room_path.py's one line, in the order it prints them.
PATH_ROWS = ("first frame p50 us", "first frame p90 us", "whole broadcast p50 us",
             "whole broadcast p90 us", "frames per action", "CPU us per action")
PATH_LINE = re.compile(
    r"first frame p50 ([\d.]+) p90 ([\d.]+) us; whole broadcast p50 ([\d.]+) p90 ([\d.]+) "
    r"us; ([\d.]+) frames per action; CPU ([\d.]+) us per action")


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


def export_versions(versions: list[str], tmp: Path) -> tuple[list[str], list[Path]] | None:
    """The versions' labels and exports (folders ``tmp/0``, ``tmp/1``...); None, the error
    said on stderr, when git does not know one of them."""
    try:
        return ([label(v) for v in versions],
                [export(v, tmp / str(i)) for i, v in enumerate(versions)])
    except subprocess.CalledProcessError as exc:
        print(f"ab: git failed: {exc.stderr.decode(errors='replace').strip()}",
              file=sys.stderr)
        return None


def path_script(version: str, dest: Path) -> Path:
    """``benchmarks/room_path.py`` of ``version`` (a folder or a git revision) written into
    ``dest`` (its export's folder); this checkout's when the version has none."""
    script = dest / "room_path.py"
    folder = Path(version) / "benchmarks" / "room_path.py"
    if folder.is_file():
        script.write_bytes(folder.read_bytes())
        return script
    shown = subprocess.run(["git", "-C", str(ROOT), "show", f"{version}:benchmarks/room_path.py"],
                           capture_output=True, check=False)
    script.write_bytes(shown.stdout if shown.returncode == 0
                       else (ROOT / "benchmarks" / "room_path.py").read_bytes())
    return script


def path_once(dest: Path, argv: list[str], timeout: float) -> list[float]:
    """One run of the room_path.py in ``dest`` on the package there: its figures, in the
    order of :data:`PATH_ROWS`.

    Raises:
        RuntimeError: the run failed or printed no figures.
        subprocess.TimeoutExpired: it took longer than ``timeout`` seconds.
    """
    done = subprocess.run([sys.executable, str(dest / "room_path.py"), *argv],
                          capture_output=True, text=True, timeout=timeout, cwd=dest,
                          env={**os.environ, "PYTHONPATH": str(dest)}, check=False)
    found = PATH_LINE.search(done.stdout)
    if done.returncode != 0 or found is None:
        raise RuntimeError(f"room_path.py in {dest} failed: {done.stderr[-1500:]}")
    return [float(x) for x in found.groups()]


def compare_paths(dests: list[Path], args: argparse.Namespace) -> list[list[list[float]]]:
    """Run every version's room_path.py ``args.rounds`` times, the versions in turns (the
    order reversed every other round); returns ``[version][round][row]``."""
    argv = ["--actions", str(args.actions), "--rooms", str(args.rooms),
            "--seed", str(args.seed), "--store", args.store]
    if args.turn_seconds is not None:
        argv += ["--turn-seconds", str(args.turn_seconds)]
    runs: list[list[list[float]]] = [[] for _ in dests]
    for n in range(args.rounds):
        order = list(range(len(dests)))
        for i in order if n % 2 == 0 else order[::-1]:
            runs[i].append(path_once(dests[i], argv, args.timeout))
    return runs


def path_table(names: list[str], runs: list[list[list[float]]]) -> dict[str, Any]:
    """Per row of :data:`PATH_ROWS`: each version's median over the rounds, and each later
    version's median over rounds of its figure / the first version's (``"B/A"``...)."""
    rows = []
    for k, row in enumerate(PATH_ROWS):
        first = [r[k] for r in runs[0]]
        ratios = [statistics.median(x[k] / a for x, a in zip(runs[i], first) if a)
                  if any(first) else None for i in range(1, len(runs))]
        rows.append({"row": row, "medians": [statistics.median(r[k] for r in v) for v in runs],
                     "ratios": ratios})
    return {"versions": names, "rows": rows}


def print_path_table(table: dict[str, Any], args: argparse.Namespace) -> None:
    """The table of :func:`path_table`, one line per row."""
    names = table["versions"]
    letters = [chr(ord("A") + i) for i in range(len(names))]
    for letter, name in zip(letters, names):
        print(f"{letter}: {name}")
    print(f"{'row':24s}" + "".join(f" {x:>10s}" for x in letters)
          + "".join(f" {x + '/A':>7s}" for x in letters[1:]))
    for r in table["rows"]:
        print(f"{r['row']:24s}" + "".join(f" {m:10.1f}" for m in r["medians"])
              + "".join(" " + ("-" if q is None else f"{q:6.3f}x").rjust(7)
                        for q in r["ratios"]))
    print(f"{args.rounds} rounds of {args.actions} actions over {args.rooms} room(s) per "
          f"version ({args.store} store), in turns; medians over rounds; X/A: median over "
          "rounds of X's figure / A's of the same round")


def main(argv: list[str] | None = None) -> int:
    """Command line; returns the exit status (2: a bad revision)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("versions", nargs="+", metavar="VERSION",
                        help="a git revision, . for the working tree, or another checkout's "
                             "folder")
    parser.add_argument("--rounds", type=int, default=None,
                        help="windows per version, in turns (default 16); with --path, runs "
                             "per version (default 8)")
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
    parser.add_argument("--path", action="store_true",
                        help="compare the action path (room_path.py) instead of round trips")
    parser.add_argument("--actions", type=int, default=3000,
                        help="--path: actions per run (default 3000)")
    parser.add_argument("--store", default="memory",
                        help="--path: room_path.py's --store (default memory)")
    parser.add_argument("--seed", type=int, default=1, help="--path: the runs' seed")
    parser.add_argument("--turn-seconds", type=float, default=None,
                        help="--path: room_path.py's --turn-seconds, a turn clock that moves "
                             "the room's deadlines at every action (default none)")
    parser.add_argument("--timeout", type=float, default=300.0,
                        help="--path: seconds one run may take (default 300)")
    args = parser.parse_args(argv)
    if args.path:
        args.rounds = args.rounds or 8
        return main_path(args)
    args.rounds = args.rounds or 16
    cfg = BenchConfig(rooms=args.rooms, rate=args.rate, warmup=args.warmup,
                      latency_seconds=args.seconds, rounds=args.rounds, pin=args.pin)
    raise_fd_limit(4096 + 8 * args.rooms * len(args.versions))
    with tempfile.TemporaryDirectory(prefix="cardhall-ab-") as tmp:
        exported = export_versions(args.versions, Path(tmp))
        if exported is None:
            return 2
        names, paths = exported
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


def main_path(args: argparse.Namespace) -> int:
    """``--path``: export the versions, compare their action paths, print the table."""
    with tempfile.TemporaryDirectory(prefix="cardhall-ab-path-") as tmp:
        exported = export_versions(args.versions, Path(tmp))
        if exported is None:
            return 2
        names, dests = exported
        for version, dest in zip(args.versions, dests):
            path_script(version, dest)
        table = path_table(names, compare_paths(dests, args))
    if args.json:
        print(json.dumps({"config": vars(args), "env": environment(), **table}))
    else:
        print_path_table(table, args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
