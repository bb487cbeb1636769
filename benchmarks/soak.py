"""Soak: many bots play continuously against one server process for a bounded time.

Usage: python benchmarks/soak.py [--minutes 3] [--tables 10] [--think 0.02]

Starts ``cardhall serve`` as a child process on 127.0.0.1 (a free port; production limits,
JSON logs at INFO), then runs ``--tables`` tables in this process, each playing game after
game with fresh bot clients (Skipper multi, race and solo, The Shah, Thirty-Six,
ShuffleJack, Shop Solitaire) until the time is up. Bots wait ``--think`` seconds before
sending each action, so every connection stays under the server's message rate. A provoker sends a
few malformed and oversized frames every 5 s (the only errors expected). Every second the
server's RSS is sampled with psutil.

Prints the figures and a last line ``PASS`` or ``FAIL``: RSS at the end (mean of the last
10 s) within 10% of RSS after warm-up (a third of the run; mean of the 10 s after it), and
zero errors other than the provoked ones (bot failures, refused actions other than
``action/stale_state`` and ``action/game_over`` in race games, server log lines at WARNING
or above). Exit status 0 on PASS, 1 on FAIL.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import json
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import msgpack
import psutil
import websockets
from cardhall import protocol as p
from cardhall.client.bots import play_seat
from cardhall.client.client import Client, ServerError
from cardhall.bench.procs import Child, free_port, serve_command
from cardhall.games.bots import strategy

#: (game, mode, seats) of the tables, in turn.
TABLES = [("skipper", "multi", 4), ("skipper", "race", 3), ("skipper", "solo", 1),
          ("shah", None, 1), ("thirtysix", None, 1), ("shufflejack", None, 1),
          ("skipper", "multi", 3), ("shop", None, 1), ("skipper", "solo", 1),
          ("skipper", "multi", 2)]


#: Seconds one game may take: a Skipper multi game that reaches its turn limit is ~5000
#: actions, ~110 s at the default pacing.
GAME_TIMEOUT = 240.0

#: Refusals that are the protocol working in a real-time (race) game: another seat's action
#: made the chosen one stale, or ended the game, while this bot was thinking.
REAL_TIME_REFUSALS = ("action/stale_state", "action/game_over")


class Tally:
    """Counts of everything that happened, by kind."""

    def __init__(self) -> None:
        self.games: collections.Counter[str] = collections.Counter()
        self.actions = 0
        self.refused: collections.Counter[str] = collections.Counter()
        self.errors: list[str] = []
        self.provoked = 0
        self.unfinished = 0


async def table(url: str, k: int, deadline: float, think: float, tally: Tally) -> None:
    """Play games of table ``k`` until ``deadline`` (loop time)."""
    game, mode, seats = TABLES[k % len(TABLES)]
    choose = strategy(game, "greedy")
    rng = random.Random(k)
    loop = asyncio.get_running_loop()
    while loop.time() < deadline - 5:
        clients = [Client(url, name=f"soak-{k}-{i}") for i in range(seats)]
        try:
            for c in clients:
                await c.connect()
                orig = c.act

                async def act(*args: Any, _orig: Any = orig, **kw: Any) -> None:
                    await asyncio.sleep(think)  # a person's pace, under the message rate
                    try:
                        await _orig(*args, **kw)
                        tally.actions += 1
                    except ServerError as exc:
                        tally.refused[f"{game}/{mode}: {exc.code}"] += 1
                        if not (mode == "race" and exc.code in REAL_TIME_REFUSALS):
                            tally.errors.append(f"table {k}: act refused {exc.code}")
                        raise

                c.act = act  # type: ignore[method-assign]
            # Rooms of several seats refuse a chosen deal (fair deals): only solo ones get
            # a seed, so that a soak's solo games repeat.
            chosen = {"seed": rng.randrange(10**6)} if seats == 1 else {}
            created = await clients[0].create_room(game, mode=mode, seats=seats,
                                                   options=chosen)
            joins = [await c.join(created.room) for c in clients]
            stop_at = deadline + 2  # games still running then are stopped, not failed
            limit = min(loop.time() + GAME_TIMEOUT, stop_at)
            try:
                async with asyncio.timeout_at(limit):
                    await asyncio.gather(*(play_seat(c, created.room, j.seat or 0, choose,
                                                     random.Random(rng.random()))
                                           for c, j in zip(clients, joins)))
            except TimeoutError:
                if limit >= stop_at:
                    tally.unfinished += 1
                    continue
                seen = [{key: c.views.get(created.room, {}).get(key) for key in
                         ("state_id", "to_act", "over", "legal_actions")} for c in clients]
                raise TimeoutError(f"{game}/{mode} room {created.room} stuck: {seen}") from None
            tally.games[f"{game}/{mode or '-'}"] += 1
        except Exception as exc:  # noqa: BLE001 -- counted, and the table goes on
            tally.errors.append(f"table {k}: {type(exc).__name__}: {exc}")
            await asyncio.sleep(1)
        finally:
            for c in clients:
                await c.close()


async def provoker(url: str, deadline: float, tally: Tally) -> None:
    """Every 5 s: a connection sending malformed frames, then an oversized one (1009)."""
    loop = asyncio.get_running_loop()
    rng = random.Random(0)
    while loop.time() < deadline - 5:
        await asyncio.sleep(5)
        try:
            async with websockets.connect(url, compression=None) as ws:
                await ws.send(p.encode(p.Hello(v=1, client="provoker")))
                await ws.recv()
                for frame in (rng.randbytes(20), b"\xc1", msgpack.packb({"t": "zzz"}),
                              msgpack.packb({"t": "act", "room": 1})):
                    await ws.send(frame)
                    msg = p.decode(await ws.recv(), side="server")
                    assert isinstance(msg, p.Error)
                    tally.provoked += 1
                await ws.send(msgpack.packb({"t": "ping", "pad": "x" * 70_000}))
                await ws.wait_closed()
                assert ws.close_code == 1009
                tally.provoked += 1
        except Exception as exc:  # noqa: BLE001 -- counted as an error
            tally.errors.append(f"provoker: {type(exc).__name__}: {exc}")


async def sample_rss(proc: psutil.Process, deadline: float,
                     samples: list[tuple[float, int]]) -> None:
    """Append ``(seconds since start, RSS bytes)`` of ``proc`` to ``samples`` once a second
    until ``deadline`` (loop time)."""
    loop = asyncio.get_running_loop()
    t0 = loop.time()
    while loop.time() < deadline:
        samples.append((loop.time() - t0, proc.memory_info().rss))
        await asyncio.sleep(1)


def server_log(path: Path) -> tuple[list[str], collections.Counter[str]]:
    """Lines at WARNING or above in the server's JSON log (the provoker's closes are at
    INFO), and counts of every event by level."""
    errors: list[str] = []
    events: collections.Counter[str] = collections.Counter()
    for line in path.read_text().splitlines():
        try:
            rec = json.loads(line)
        except ValueError:
            errors.append(f"not a JSON log line: {line[:200]}")
            continue
        name = " ".join(str(rec.get("event")).split()[:2])  # "room created room=..." -> 2 words
        events[f"{rec.get('level')} {name}"] += 1
        if rec.get("level") in ("warning", "error", "critical"):
            errors.append(line[:300])
    return errors, events


def start_server() -> tuple[Child, str, Path]:
    """``cardhall serve`` on a free port of 127.0.0.1 with JSON logs; returns it once it
    accepts connections, with its URL and log file.

    Raises:
        RuntimeError: it exited or did not listen within 30 s (the bench's :class:`Child`).
    """
    port = free_port()
    logfile = Path(tempfile.mkdtemp(prefix="cardhall-soak-")) / "server.log"
    server = Child("cardhall serve", serve_command(
        port, "--log-format", "json", "--log-level", "INFO", "--finished-ttl", "5"), port,
        logfile)
    return server, server.url, logfile


async def run(args: argparse.Namespace, server: Child, url: str, logfile: Path) -> int:
    """Play until the time is up, then print the figures and the verdict."""
    try:
        proc = psutil.Process(server.pid)
        loop = asyncio.get_running_loop()
        duration = args.minutes * 60
        warmup = args.warmup if args.warmup is not None else max(20.0, duration / 3)
        deadline = loop.time() + duration
        tally = Tally()
        samples: list[tuple[float, int]] = []
        t0 = time.perf_counter()
        await asyncio.gather(
            sample_rss(proc, deadline, samples), provoker(url, deadline, tally),
            *(table(url, k, deadline, args.think, tally) for k in range(args.tables)))
        elapsed = time.perf_counter() - t0
        cpu = proc.cpu_times()
    finally:
        server.stop()
    log_errors, events = server_log(logfile)
    warm = [r for t, r in samples if warmup <= t < warmup + 10]
    end = [r for t, r in samples if t >= samples[-1][0] - 10]
    rss_warm, rss_end = statistics.mean(warm), statistics.mean(end)
    growth = (rss_end - rss_warm) / rss_warm
    errors = tally.errors + log_errors
    mib = 1024 * 1024
    print(f"soak: {elapsed:.0f} s, {args.tables} tables, think {args.think} s, "
          f"server pid {server.pid} (log {logfile})")
    print(f"  games finished   {sum(tally.games.values())}  {dict(tally.games)}; "
          f"{tally.unfinished} still running at the end (stopped)")
    print(f"  actions accepted {tally.actions}  ({tally.actions / elapsed:.0f}/s); "
          f"server CPU {cpu.user + cpu.system:.0f} s")
    print(f"  refused          {dict(tally.refused) or 0} (action/stale_state in race games "
          f"is the protocol working)")
    print(f"  provoked errors  {tally.provoked} (malformed frames and 1009 closes)")
    print(f"  server log       {dict(events)}")
    print(f"  RSS              after warm-up ({warmup:.0f}-{warmup + 10:.0f} s) "
          f"{rss_warm / mib:.1f} MiB, end {rss_end / mib:.1f} MiB, "
          f"growth {growth * 100:+.1f}% (min {min(r for _, r in samples) / mib:.1f}, "
          f"max {max(r for _, r in samples) / mib:.1f})")
    print("  RSS every 20 s   " + " ".join(f"{r / mib:.1f}" for t, r in samples
                                            if int(t) % 20 == 0) + " MiB")
    print(f"  errors           {len(errors)}")
    for e in errors[:20]:
        print(f"    {e}")
    ok = not errors and abs(growth) <= 0.10 and sum(tally.games.values()) > 0
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


def main() -> None:
    """Parse arguments, run, exit with the verdict."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=3.0, help="how long (default 3)")
    parser.add_argument("--tables", type=int, default=10, help="tables playing at once")
    parser.add_argument("--think", type=float, default=0.02,
                        help="seconds a bot waits before each action")
    parser.add_argument("--warmup", type=float, default=None,
                        help="seconds of warm-up (default: a third of the run, at least 20)")
    args = parser.parse_args()
    if args.minutes * 60 < (args.warmup or 20) + 30:
        parser.error("the run must last at least warm-up + 30 s")
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    server, url, logfile = start_server()
    sys.exit(asyncio.run(run(args, server, url, logfile)))


if __name__ == "__main__":
    main()
