"""Bots in rated play (issue #45 item 5): ``cardhall bots --rated --strategies S1,S2,...``.

Seat ``i`` is a guest account of its own, named after its strategy and seat
(``greedy-0``, ``greedy-1``, ``random-2``, ...); for each game every bot joins rated play's
queue for a table of exactly as many seats as there are bots (``queue_join``), the server's
wave seats them, and each plays its seat with its own strategy (:func:`.bots.play_seat`)
until the game is over; its result moves their ratings (``cardhall ratings``).
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Sequence
from typing import Any

from ..games.bots import strategy
from .bots import play_seat
from .client import Client, new_device_secret

__all__ = ["MATCH_SECONDS", "play_rated_games", "seat_names"]

#: Seconds a bot waits for the queue to seat it.
MATCH_SECONDS = 120.0


def seat_names(strategies: Sequence[str]) -> list[str]:
    """Each seat's name: ``STRATEGY-SEAT`` (``["greedy-0", "random-1"]``)."""
    return [f"{s}-{i}" for i, s in enumerate(strategies)]


async def play_rated_games(urls: Sequence[str], game: str, mode: str,
                           strategies: Sequence[str], games: int, seed: int | None = None,
                           timeout: float = 600.0,
                           guests: Sequence[str] | None = None) -> list[dict[str, Any]]:
    """Play ``games`` rated games with a bot per strategy of ``strategies`` (see the module
    docstring), connected to ``urls`` (bot ``i`` to ``urls[i % len(urls)]`` first).

    Args:
        guests: Each bot's guest device secret (None: made now; the same for every game).

    Returns:
        One record per game: ``room, game, mode, seats, winner, outcome, names, duration_s``.

    Raises:
        ServerError: the server refused ``queue_join`` (not a rated game type, say).
        TimeoutError: the queue did not seat the bots within :data:`MATCH_SECONDS`, or a
            game took longer than ``timeout`` seconds.
        OSError: no server could be reached.
    """
    chooses = [strategy(game, s) for s in strategies]
    names = seat_names(strategies)
    secrets = list(guests) if guests is not None else [new_device_secret() for _ in names]
    rng = random.Random(seed)
    clients = [Client([urls[(i + k) % len(urls)] for k in range(len(urls))], name=name,
                      guest=secrets[i]) for i, name in enumerate(names)]
    records = []
    try:
        for c in clients:
            await c.connect()
        for _ in range(games):
            t0 = time.perf_counter()
            for c in clients:
                await c.queue_join(game, mode, [len(clients)])
            matches = [await c.matched(MATCH_SECONDS) for c in clients]
            room = matches[0].room
            seats = [c.seats[m.room][0] for c, m in zip(clients, matches)]
            async with asyncio.timeout(timeout):
                results = await asyncio.gather(*(
                    play_seat(c, m.room, s, choose, random.Random(rng.random()))
                    for c, m, s, choose in zip(clients, matches, seats, chooses)))
            outcome = results[0].outcome
            records.append({"room": room, "game": game, "mode": mode, "seats": len(clients),
                            "winner": outcome.get("winner"), "outcome": outcome.get("reason"),
                            "names": {s: n for s, n in zip(seats, names)},
                            "duration_s": round(time.perf_counter() - t0, 3)})
    finally:
        for c in clients:
            await c.close()
    return records
