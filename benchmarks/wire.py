"""What an update costs on the wire: protocol version 1 against version 2, in one run.

Starts one bench server (``python -m cardhall.bench.servers serve``, the memory store, on the
server CPU) and two load generators on it (``cardhall bench``'s, :mod:`cardhall.bench.loadgen`:
``--rooms`` Skipper ``multi`` tables of four each), one speaking protocol version 1 and one
version 2 (``hello.v``). The bench's latency phase (paced at ``--rate``), then its throughput
phase (closed loop), run over the two in turns (:func:`cardhall.bench.load.phase`: v1, v2,
v1, ..., ``--rounds`` windows each, only one under load at a time), so that both meet the
same drift of the machine's speed and the server's CPU time of a window is one version's:

    python benchmarks/wire.py                      # 100 tables, 8 rounds of 1 s per phase
    python benchmarks/wire.py --rounds 16 --seconds 16

Printed per version (closed loop unless said): update frame bytes p50 and p99, frames and
bytes per accepted action over all four seats (every frame a table's connections receive:
updates, ``ok``, seat events...), server CPU per action (µs), accepted actions/s and the
round trip p50 (paced), and the ratio v2 / v1. Then, from the engine alone (no server:
``--games`` random Skipper games of four, every seat's delta of every action), the share of
the delta bytes each top-level key takes in version 2: what would be left to trim.
``--json`` prints one JSON object instead.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import dataclasses
import json
import random
import sys
from typing import Any

import msgpack

from cardhall.bench.config import BenchConfig
from cardhall.bench.load import Target, phase
from cardhall.bench.loadgen import Load, close_load, open_cardhall
from cardhall.bench.procs import children, pinned, raise_fd_limit
from cardhall.bench.servers import start_cardhall
from cardhall.games import create
from cardhall.protocol import update_parts

#: A room id as long as the server's (8 characters), for the frame heads of the key shares.
ROOM = "0123abcd"

#: (label, phase, figure key, scale) of the table's rows.
ROWS = (("update frame bytes p50", "throughput", "update_bytes_p50", 1.0),
        ("update frame bytes p99", "throughput", "update_bytes_p99", 1.0),
        ("frames per action (all seats)", "throughput", "frames_per_action", 1.0),
        ("bytes per action (all seats)", "throughput", "bytes_per_action", 1.0),
        ("server CPU per action (us)", "throughput", "server_cpu_s_per_action", 1e6),
        ("accepted actions / s, closed loop", "throughput", "actions_per_s", 1.0),
        ("round trip p50, paced (us)", "latency", "rtt_p50_us", 1.0))


async def measure(cfg: BenchConfig) -> dict[str, dict[str, Any]]:
    """The latency and throughput phases of a v1 and a v2 load on one server, in turns.

    Returns:
        ``{"v1": {"latency": figures, "throughput": figures}, "v2": {...}}`` (figures:
        :meth:`cardhall.bench.loadgen.Stats.figures` plus the server's CPU per action).
    """
    loads: list[Load] = []
    with pinned(cfg.pin) as server_cpus, children() as kids:
        kids.append(start_cardhall(None, None, server_cpus))
        server = kids[0]
        try:
            for v in (1, 2):
                loads.append((await open_cardhall(server.url, server.pid,
                                                  dataclasses.replace(cfg, protocol=v)))[0])
            targets = [Target(load, server.pid) for load in loads]
            out: dict[str, dict[str, Any]] = {"v1": {}, "v2": {}}
            for what, rate, seconds in (("latency", cfg.rate, cfg.latency_seconds),
                                        ("throughput", 0.0, cfg.throughput_seconds)):
                figures = await phase(targets, cfg.warmup, seconds, rate, cfg.rounds)
                for name, f in zip(("v1", "v2"), figures):
                    out[name][what] = f
            for name, load in zip(("v1", "v2"), loads):
                out[name]["errors"] = load.errors[:10]
            return out
        finally:
            for load in loads:
                await close_load(load)


def delta_keys(games: int, seed: int) -> dict[str, Any]:
    """Bytes of the version 2 update frames by part, from the engine alone: ``games``
    random Skipper ``multi`` games of four seats (random legal actions but ``resign``),
    every seat's delta (:meth:`Game.deltas`) after every action, each entry packed as
    msgpack (key and value), plus each frame's head (``t``, ``room``, ``state_id``, the
    ``delta`` key) and its ``events``. Pointers are grouped by their first token
    (``/seats``); the acting seat's frames and the other seats' are counted apart. The
    room facts a server adds (``/room/deadlines``) and ``re`` are not counted.

    Returns:
        ``{"deltas": n, "bytes": total, "actor": {part: bytes}, "others": {part: bytes}}``.
    """
    rng = random.Random(seed)
    pack = msgpack.Packer().pack
    actor: collections.Counter[str] = collections.Counter()
    others: collections.Counter[str] = collections.Counter()
    n = total = 0
    for _ in range(games):
        game = create("skipper", {"mode": "multi"}, 4)
        game.deltas(range(4))
        while not game.over:
            seat = game.to_act()[0]
            legal = [a for a in game.legal_actions(seat) if a[0] != "resign"]
            events = game.apply(seat, rng.choice(legal or game.legal_actions(seat)))
            deltas = game.deltas(range(4))
            if deltas is None:
                continue
            head = len(update_parts(ROOM, game.state_id, [])[0]) + len(pack("delta")) + 1
            events_size = len(pack("events")) + len(pack(events))
            for s, delta in deltas.items():
                into = actor if s == seat else others
                into["(frame: t, room, state_id)"] += head
                into["(frame: events)"] += events_size
                total += head + events_size
                for key, value in delta.items():
                    if key == "state_id":
                        continue  # not on the wire in version 2
                    size = len(pack(key)) + len(pack(value))
                    into["/" + key[1:].split("/", 1)[0] if key[:1] == "/" else key] += size
                    total += size
                n += 1
    return {"deltas": n, "bytes": total, "actor": dict(actor), "others": dict(others)}


def table(out: dict[str, dict[str, Any]]) -> str:
    """The figures as a Markdown table: v1, v2, v2 / v1."""
    lines = ["| figure | v1 | v2 | v2 / v1 |", "|---|---:|---:|---:|"]
    for label, what, key, scale in ROWS:
        a = (out["v1"][what].get(key) or 0) * scale
        b = (out["v2"][what].get(key) or 0) * scale
        digits = 2 if key == "frames_per_action" else 0
        lines.append(f"| {label} | {a:.{digits}f} | {b:.{digits}f} | "
                     f"{b / a if a else float('nan'):.2f} |")
    return "\n".join(lines)


def key_table(keys: dict[str, Any]) -> str:
    """The delta bytes by key as a Markdown table (share of all delta bytes, per delta)."""
    total, n = keys["bytes"] or 1, keys["deltas"] or 1
    names = sorted(set(keys["actor"]) | set(keys["others"]),
                   key=lambda k: -(keys["actor"].get(k, 0) + keys["others"].get(k, 0)))
    lines = [f"{keys['deltas']} update frames, {total / n:.1f} B each on average",
             "", "| part | acting seat's frames | other seats' frames | share |",
             "|---|---:|---:|---:|"]
    for k in names:
        a, o = keys["actor"].get(k, 0), keys["others"].get(k, 0)
        lines.append(f"| `{k}` | {a} | {o} | {(a + o) / total:.0%} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Run the comparison and print it (or ``--json``)."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rooms", type=int, default=100)
    ap.add_argument("--rate", type=float, default=200.0)
    ap.add_argument("--seconds", type=float, default=8.0, help="measured seconds per phase")
    ap.add_argument("--warmup", type=float, default=2.0)
    ap.add_argument("--rounds", type=int, default=8)
    ap.add_argument("--games", type=int, default=5, help="engine games for the part shares")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--no-pin", action="store_true")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    raise_fd_limit(8 * args.rooms + 256)
    cfg = BenchConfig(rooms=args.rooms, rate=args.rate, warmup=args.warmup,
                      latency_seconds=args.seconds, throughput_seconds=args.seconds,
                      rounds=args.rounds, seed=args.seed, pin=not args.no_pin)
    out: dict[str, Any] = asyncio.run(measure(cfg))
    out["delta_keys"] = delta_keys(args.games, args.seed)
    if args.json:
        print(json.dumps(out, indent=1, default=str))
    else:
        print(table(out))
        print()
        print(key_table(out["delta_keys"]))
        for name in ("v1", "v2"):
            if out[name]["errors"]:
                print(f"{name} errors: {out[name]['errors']}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
