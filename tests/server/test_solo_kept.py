"""A solo game its player leaves is kept for them, paused (issue #44 item 1).

Before, Leave gave the seat to a server bot that played the game out in the player's name
(My games then said "won, 27" for a game the player never finished). Now the game is held
for the player for ``--solo-keep`` days (``Settings.solo_keep_days``): no bot moves for it,
its turn clock stops, My games lists it as running, and the account resumes it from any
device where it was left; at the end of the window it ends as a loss (a forfeit), never as
a bot's game. A lost connection is kept the same way (past the room's grace window).
"""

from __future__ import annotations

import asyncio
import random
from pathlib import Path
from typing import Any

from cardhall.client.client import Client
from cardhall.games.bots import strategy
from cardhall.games.base import FORFEIT
from cardhall.server.app import Server
from cardhall.server.config import Settings
from cardhall.server.store.sqlite_store import SQLiteStore

from ..conftest import TEST_SETTINGS, ServerFactory

GREEDY = strategy("skipper", "greedy")
#: A guest account's device secret: the same account on every "device" of a test.
SECRET = "k" * 32


async def until(check: Any, timeout: float = 10.0) -> None:
    """Wait (polling every 20 ms, at most ``timeout`` s) until ``check()`` is true."""
    async with asyncio.timeout(timeout):
        while not check():
            await asyncio.sleep(0.02)


async def play(c: Client, room: str, turns: int, rng: random.Random) -> None:
    """Play ``turns`` of seat 0's actions in ``room`` with the greedy strategy."""
    for _ in range(turns):
        await until(lambda: 0 in c.views[room].get("to_act", []))
        await c.act(room, GREEDY(c.views[room], rng))


async def left_after(c: Client, turns: int, **options: Any) -> tuple[str, int]:
    """A Skipper solo room of ``c``'s, ``turns`` played, then left; its state id then."""
    room = (await c.create_room("skipper", options=options or None)).room
    await c.join(room)
    await play(c, room, turns, random.Random(7))
    state_id = int(c.views[room]["state_id"])
    await c.leave(room)
    return room, state_id


async def test_a_solo_game_left_is_kept_paused_and_resumed_on_another_device(
        make_server: ServerFactory) -> None:
    server = await make_server()
    async with Client(server.url, guest=SECRET) as c:
        room, state_id = await left_after(c, 4)
        await asyncio.sleep(1.0)  # before: a bot had the seat and played the game out
        mine = await c.my_games()
        assert [(g["room"], g["status"]) for g in mine.running] == [(room, "playing")]
        assert all(g["room"] != room for g in mine.finished)
    async with Client(server.url, guest=SECRET) as again:  # another device, one account
        joined = await again.resume(room)
        assert joined.view["state_id"] == state_id
        assert not joined.view["room"]["players"][0]["bot"]
        await play(again, room, 1, random.Random(8))
        assert again.views[room]["state_id"] > state_id


async def test_a_kept_game_s_turn_clock_is_stopped(make_server: ServerFactory) -> None:
    """With a turn clock of 0.2 s, a game left for 1.5 s has played no default action."""
    server = await make_server()
    async with Client(server.url, guest=SECRET) as c:
        room, state_id = await left_after(c, 2, turn_seconds=0.2)
        await asyncio.sleep(1.5)
        joined = await c.resume(room)
        assert joined.view["state_id"] == state_id


async def test_a_lost_connection_keeps_the_game_past_the_grace_window(
        make_server: ServerFactory) -> None:
    server = await make_server()
    async with Client(server.url, guest=SECRET, reconnect=False) as c:
        room = (await c.create_room("skipper", options={"grace_seconds": 0.2})).room
        await c.join(room)
        await play(c, room, 2, random.Random(3))
        state_id = int(c.views[room]["state_id"])
    await asyncio.sleep(1.5)  # the grace window ended long ago
    async with Client(server.url, guest=SECRET) as again:
        joined = await again.resume(room)
        assert joined.view["state_id"] == state_id


async def test_a_kept_game_ends_as_a_forfeit_when_its_window_ends(
        make_server: ServerFactory) -> None:
    """``--solo-keep`` of 0.5 s: the game left ends by itself, one forfeit entry after
    the player's last action; My games lists it as finished, not as running."""
    server = await make_server(solo_keep_days=0.5 / 86_400)
    async with Client(server.url, guest=SECRET) as c:
        room, state_id = await left_after(c, 3)

        async def finished() -> list[dict[str, Any]]:
            return [g for g in (await c.my_games()).finished if g["room"] == room]

        async with asyncio.timeout(10):
            while not await finished():
                await asyncio.sleep(0.1)
        entries = (await c.fetch_log(room)).entries
        assert len(entries) == state_id + 1 and entries[-1][0] == FORFEIT
        assert (await finished())[0]["result"] != "won"
        assert all(g["room"] != room for g in (await c.my_games()).running)


async def test_a_kept_game_outlives_a_restart_and_its_grace_window(tmp_path: Path) -> None:
    """SQLite: a restart holds a seat without a connection for the grace window only; a
    kept solo game keeps its own (longer) window instead."""
    path = tmp_path / "data.db"
    settings = Settings(host="127.0.0.1", port=0, **TEST_SETTINGS)
    first = Server(settings, SQLiteStore(path, commit="tick"))
    await first.start()
    try:
        async with Client(first.url, guest=SECRET) as c:
            room, state_id = await left_after(c, 2, grace_seconds=0.2)
    finally:
        await first.stop()
    second = Server(settings, SQLiteStore(path, commit="tick"))
    await second.start()
    try:
        await asyncio.sleep(1.5)  # the restart's grace window ended long ago
        async with Client(second.url, guest=SECRET) as again:
            joined = await again.resume(room)
            assert joined.view["state_id"] == state_id
    finally:
        await second.stop()
