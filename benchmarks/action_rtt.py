"""Round trip of one action over loopback: ``act`` sent -> that seat's next update received.

Usage: python benchmarks/action_rtt.py [--actions 2000] [--url ws://HOST:PORT]

Without ``--url`` it starts a server in this process on 127.0.0.1 (a free port; its message
rate limit off, since the bot sends thousands of actions back to back). For a server in its
own process without limits: ``python -m cardhall.bench.servers serve --port P``. One client
plays solo Skipper games with the greedy bot, one action at a time, and the script prints
p50/p99/max of the round trip in microseconds. Bounded: stops after ``--actions`` actions.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics

from cardhall.client.bots import timed_actions
from cardhall.client.client import Client
from cardhall.server.app import Server
from cardhall.server.config import Settings
from cardhall.games.bots import strategy


async def measure(url: str, actions: int) -> list[float]:
    """Round trips in seconds, one per action, over as many solo games as needed."""
    choose = strategy("skipper", "greedy")
    rng = random.Random(1)
    rtts: list[float] = []
    async with Client(url, name="rtt") as c:
        while len(rtts) < actions:
            room = (await c.create_room("skipper", options={"seed": len(rtts)})).room
            await c.join(room)
            rtts += await timed_actions(c, room, choose, rng, actions - len(rtts))
    return rtts


async def main() -> None:
    """Parse arguments, run, print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--actions", type=int, default=2000)
    parser.add_argument("--url", default=None)
    args = parser.parse_args()
    server = None
    url = args.url
    if url is None:
        server = Server(Settings(port=0, msg_rate=None))  # one action after another, fast
        await server.start()
        url = server.url
    try:
        rtts = await measure(url, args.actions)
    finally:
        if server is not None:
            await server.stop()
    us = sorted(r * 1e6 for r in rtts)
    p99 = us[min(len(us) - 1, int(len(us) * 0.99))]
    print(f"actions {len(us)}  round trip p50 {statistics.median(us):.0f} us  "
          f"p99 {p99:.0f} us  max {us[-1]:.0f} us  (server {'in-process' if server else url})")


if __name__ == "__main__":
    asyncio.run(main())
