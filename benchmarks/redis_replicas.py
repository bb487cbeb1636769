"""What replicated Redis costs and how a Cluster spreads the rooms (issue #32).

1. ``WAIT`` round trip: the store's fenced append (``RedisStore.append``) against a lone
   Redis, and against a master with one replica, without and with ``WAIT 1`` (the default
   with Sentinel or Cluster): one room appending at a time (each append its own pipeline),
   then ``--rooms`` rooms appending in the same loop tick (one pipeline, one ``WAIT``).
   Printed: p50 and p99 of the append round trip (µs), and the Redis CPU per append of the
   master and its replica (µs).
2. Keyspace spread: ``--spread`` rooms (default 1,000) made on a 3-master, 3-replica Cluster
   with their lobby entries, a few appends each and a lease renewal; printed per master: the
   rooms (by their slot), the keys (``DBSIZE``), the lobby shards and the commands it
   processed.

    python benchmarks/redis_replicas.py                 # both, ~1 minute
    python benchmarks/redis_replicas.py --appends 5000 --rooms 100 --spread 1000

Every process runs on 127.0.0.1 and free ports and is stopped at the end; compare figures
within one run only.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import redis
from redis.crc import key_slot

from cardhall.bench.topology import ClusterSet, Node, online_replicas, until
from cardhall.server.store.redis_keys import key
from cardhall.server.store.redis_store import RedisStore
from cardhall.server.store.redis_topology import RedisTarget

DATA = ["--appendonly", "yes", "--appendfsync", "everysec", "--save", ""]
SUMMARY = {"game": "skipper", "mode": "multi", "status": "waiting", "private": False,
           "taken": 0, "seats": 4}


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def _appends(url: str, min_replicas: int, appends: int, rooms: int,
                   nodes: list[Node]) -> dict[str, Any]:
    """Round trips of ``appends`` single appends, then of batches of ``rooms`` appends."""
    store = RedisStore(url, min_replicas=min_replicas)
    try:
        ids = [f"b{min_replicas}-{i}" for i in range(rooms)]
        leases = {r: await store.save_room(r, {"game": "skipper"}, {"s": 0}, SUMMARY)
                  for r in ids}
        cpu0 = [n.cpu_seconds() for n in nodes]
        single = []
        for i in range(appends):
            t = time.perf_counter()
            await store.append(ids[0], [["a", 0, [i]]], i, None, lease=leases[ids[0]])
            single.append((time.perf_counter() - t) * 1e6)
        cpu = [(n.cpu_seconds() - c) * 1e6 / appends for n, c in zip(nodes, cpu0)]
        batches = []
        lengths = dict.fromkeys(ids, 0)
        lengths[ids[0]] = appends
        for _ in range(max(1, appends // rooms)):
            t = time.perf_counter()
            await asyncio.gather(*(store.append(r, [["a", 0, [lengths[r]]]], lengths[r], None,
                                                lease=leases[r]) for r in ids))
            batches.append((time.perf_counter() - t) * 1e6)
            for r in ids:
                lengths[r] += 1
        return {"single_p50_us": statistics.median(single), "single_p99_us": _pct(single, .99),
                "batch_p50_us": statistics.median(batches), "batch_p99_us": _pct(batches, .99),
                "redis_cpu_us_per_append": cpu}
    finally:
        await store.close()


async def wait_cost(workdir: Path, appends: int, rooms: int) -> list[dict[str, Any]]:
    """Part 1 (see the module docstring): one row per setup."""
    rows = []
    lone = Node(workdir / "lone", list(DATA))
    master = Node(workdir / "master", list(DATA))
    replica = Node(workdir / "replica", list(DATA))
    try:
        lone.start()
        master.start()
        replica.start("--replicaof", "127.0.0.1", str(master.port))
        until(lambda: online_replicas(master.port), 20, "the replica in sync")
        for name, node, nodes, n in (
                ("lone Redis, no WAIT", lone, [lone], 0),
                ("master + 1 replica, no WAIT", master, [master, replica], 0),
                ("master + 1 replica, WAIT 1", master, [master, replica], 1)):
            url = f"redis://127.0.0.1:{node.port}/0"
            with redis.Redis(port=node.port) as r:
                r.flushall()
            until(lambda: online_replicas(master.port), 20, "the replica in sync")
            rows.append({"setup": name, **await _appends(url, n, appends, rooms, nodes)})
    finally:
        for node in (replica, master, lone):
            node.stop()
    return rows


async def spread(workdir: Path, count: int) -> dict[str, Any]:
    """Part 2 (see the module docstring)."""
    cluster = ClusterSet(workdir / "cluster", 3, 1)
    cluster.start()
    try:
        masters = cluster.master_ports()
        before = {}
        for port in masters:
            with redis.Redis(port=port) as r:
                before[port] = r.info("stats")["total_commands_processed"]
        store = RedisStore(RedisTarget(cluster=tuple(cluster.addresses)))
        try:
            ids = [f"{i:08x}" for i in range(count)]
            leases = {}
            for room in ids:
                leases[room] = await store.save_room(room, {"game": "skipper"}, {"s": 0},
                                                     {**SUMMARY, "room": room})
            for n in range(3):
                await asyncio.gather(*(store.append(r, [["a", 0, [n]]], n, None,
                                                    lease=leases[r]) for r in ids))
            await store.renew(leases)
            page, _ = await store.list_page(limit=100)
            assert len(page) == 100
        finally:
            await store.close()
        out: dict[str, Any] = {"rooms": count, "masters": {}}
        for port in masters:  # first: the leases expire 3 s after the last renewal
            with redis.Redis(port=port) as r:
                out["masters"][str(port)] = {
                    "keys": r.dbsize(),
                    "commands": r.info("stats")["total_commands_processed"] - before[port]}
        slots = cluster.slots()

        def owner(name: str) -> int:
            slot = key_slot(name.encode())
            return next(p for p, ranges in slots.items()
                        if any(a <= slot <= b for a, b in ranges))

        for port in masters:
            out["masters"][str(port)]["rooms"] = sum(1 for i in ids
                                                     if owner(key(i, "log")) == port)
            out["masters"][str(port)]["lobby_shards"] = sum(
                1 for s in range(store.keys.shards) if owner(store.keys.lobby(s)) == port)
        return out
    finally:
        cluster.stop()


def main(argv: list[str] | None = None) -> int:
    """Command line; prints the two tables (or one JSON object)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--appends", type=int, default=2000,
                        help="appends of the single-room series (default 2000)")
    parser.add_argument("--rooms", type=int, default=100,
                        help="rooms appending in one loop tick (default 100)")
    parser.add_argument("--spread", type=int, default=1000,
                        help="rooms made on the Cluster (default 1000)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="cardhall-replicas-") as tmp:
        rows = asyncio.run(wait_cost(Path(tmp), args.appends, args.rooms))
        keyspace = asyncio.run(spread(Path(tmp), args.spread))
    if args.json:
        print(json.dumps({"config": vars(args), "wait": rows, "spread": keyspace}))
        return 0
    print(f"{'setup':30s} {'1 room p50':>10s} {'p99':>7s} {args.rooms:>4d} rooms p50 {'p99':>7s}"
          f" {'redis CPU/append us (master, replica)':>38s}")
    for r in rows:
        cpu = ", ".join(f"{c:.1f}" for c in r["redis_cpu_us_per_append"])
        print(f"{r['setup']:30s} {r['single_p50_us']:10.0f} {r['single_p99_us']:7.0f} "
              f"{r['batch_p50_us']:14.0f} {r['batch_p99_us']:7.0f} {cpu:>38s}")
    print(f"\n{keyspace['rooms']} rooms on a 3+3 Cluster, per master:")
    print(f"{'master':>8s} {'rooms':>6s} {'keys':>6s} {'lobby shards':>12s} {'commands':>9s}")
    for port, m in keyspace["masters"].items():
        print(f"{port:>8s} {m['rooms']:6d} {m['keys']:6d} {m['lobby_shards']:12d} "
              f"{m['commands']:9d}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
