"""Fault drill: Redis is killed (SIGKILL) several times under two server processes.

Usage: python benchmarks/redis_outage.py [--rooms 12] [--outages 4] [--down 7] [--lease 3]
                                         [--freeze]

Starts a redis-server (append-only, ``appendfsync always``: a SIGKILL loses no acknowledged
write) and two ``cardhall serve --redis-url`` processes on 127.0.0.1 (free ports, INFO logs),
then plays ``--rooms`` Skipper multi games at once, 4 bot clients each, spread over both
servers. Meanwhile Redis is killed ``--outages`` times and restarted from its AOF after
``--down`` seconds each time (by default longer than two leases, so every room lease and
process heartbeat expires meanwhile), with 2 s of play between outages. With ``--freeze``,
Redis is stopped (SIGSTOP) and continued (SIGCONT) instead: it neither answers nor refuses.

Prints: games finished (of ``--rooms``), rooms whose owner changed, and the servers' log
counts of takeovers, demotions, seats dropped by a room's owner and resumed. Last line
``PASS`` (every game finished and no room changed owner) or ``FAIL``; exit status 0 / 1.
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import redis

from cardhall.bench.chaos import Redis
from cardhall.bench.procs import free_port, serve_command
from cardhall.client.bots import play_games


def serve(redis_url: str, lease: float, log: Path) -> tuple[subprocess.Popen[bytes], str]:
    """Start ``cardhall serve``; returns the process and its ws:// URL."""
    port = free_port()
    with open(log, "wb") as err:
        proc = subprocess.Popen(
            serve_command(port, "--redis-url", redis_url, "--lease-seconds", str(lease),
                          "--log-level", "INFO", "--msg-rate", "0"),
            stdout=subprocess.DEVNULL, stderr=err)
    deadline = time.monotonic() + 20
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return proc, f"ws://127.0.0.1:{port}"
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(log.read_text(errors="replace")[-2000:]) from None
            time.sleep(0.05)


def owners(r: redis.Redis) -> dict[str, str | None]:
    """Room id -> owner process id, for every room in the lobby."""
    out = {}
    for raw in r.hkeys("cardhall:lobby"):
        room = raw.decode()
        value = r.get(f"cardhall:{{room:{room}}}:owner")
        lease = value.decode() if value is not None else None  # "PROC#EPOCH"
        out[room] = lease.rpartition("#")[0] or lease if lease is not None else None
    return out


async def drill(args: argparse.Namespace, workdir: Path) -> bool:
    red = Redis(workdir, workdir / "redis.log")  # the chaos drills' redis-server
    red.start()
    url = f"redis://127.0.0.1:{red.port}/0"
    logs = [workdir / f"serve-{i}.log" for i in range(2)]
    servers = [serve(url, args.lease, log) for log in logs]
    urls = [u for _, u in servers]
    try:
        games = [asyncio.get_running_loop().create_task(play_games(
            urls[i % 2:] + urls[:i % 2], "skipper", "multi", 4, 1, "greedy", seed=i,
            timeout=args.timeout, think=0.02)) for i in range(args.rooms)]
        await asyncio.sleep(3.0)
        before = owners(redis.Redis(port=red.port))
        for _ in range(args.outages):
            if args.freeze:
                red.signal(signal.SIGSTOP)
                await asyncio.sleep(args.down)
                red.signal(signal.SIGCONT)
            else:
                red.signal(signal.SIGKILL)
                await asyncio.sleep(args.down)
                red.start()
            await asyncio.sleep(2.0)
        results = await asyncio.gather(*games, return_exceptions=True)
        r = redis.Redis(port=red.port)
        after = owners(r)
        r.close()
    finally:
        for proc, _ in servers:
            proc.terminate()
            proc.wait(timeout=15)
        red.stop()
    finished = sum(1 for res in results if not isinstance(res, BaseException))
    moved = sorted(room for room, owner in before.items() if after.get(room) != owner)
    text = "\n".join(log.read_text(errors="replace") for log in logs)
    how = "frozen (SIGSTOP)" if args.freeze else "killed (SIGKILL)"
    print(f"rooms {args.rooms}, Redis {how} {args.outages}x for {args.down} s "
          f"(lease {args.lease} s)")
    print(f"games finished: {finished} of {args.rooms}")
    print(f"rooms whose owner changed: {len(moved)} of {len(before)}")
    for label, sign in [("takeovers", "room taken over"), ("demotions", "room demoted"),
                        ("seats dropped by their owner", "seat dropped by its room's owner"),
                        ("ownership lost", "ownership lost")]:
        print(f"{label}: {text.count(sign)}")
    for res in results:
        if isinstance(res, BaseException):
            print(f"  game failed: {res!r}")
    ok = finished == args.rooms and not moved
    print("PASS" if ok else "FAIL")
    return ok


def main() -> None:
    """Parse the options, run the drill, exit 0 on PASS."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rooms", type=int, default=12)
    parser.add_argument("--outages", type=int, default=4)
    parser.add_argument("--down", type=float, default=7.0, help="seconds Redis stays down")
    parser.add_argument("--lease", type=float, default=3.0, help="lease seconds")
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds per game")
    parser.add_argument("--freeze", action="store_true", help="SIGSTOP/SIGCONT, not SIGKILL")
    parser.add_argument("--workdir", type=Path, default=None,
                        help="keep Redis's files and the server logs here (default: a temp dir)")
    args = parser.parse_args()
    if shutil.which("redis-server") is None:
        sys.exit("redis-server is not installed")
    if args.workdir is not None:
        args.workdir.mkdir(parents=True, exist_ok=True)
        ok = asyncio.run(drill(args, args.workdir))
    else:
        with tempfile.TemporaryDirectory() as tmp:
            ok = asyncio.run(drill(args, Path(tmp)))
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
