"""The leaderboards' own words (issue #44, item 8): each board says what puts a player on it
(``leaderboard.how``, from the game's :class:`~cardhall.games.Ranking`): Skipper counts a won
solo game, ShuffleJack and Thirty-Six every finished one but a resigned one (before, every
empty board said "win a solo game"); and My games lists a resigned game as ``"resigned"``,
not as ``"abandoned"`` (left, forfeited, every seat out)."""

from __future__ import annotations

import pytest

from cardhall import protocol as p
from cardhall.client.client import Client
from cardhall.server.history import seat_result
from cardhall.server.store.memory_store import MemoryStore

from ..conftest import serving


@pytest.mark.parametrize(("game", "words"), [("skipper", "Win"), ("shufflejack", "Finish"),
                                             ("thirtysix", "Finish")])
async def test_each_board_says_what_puts_a_player_on_it(game: str, words: str) -> None:
    async with serving(MemoryStore, msg_rate=None) as make:
        server = await make()
        client = Client(f"ws://127.0.0.1:{server.port}/", name="Ann", reconnect=False)
        await client.connect()
        try:
            board = await client.leaderboard(game)
        finally:
            await client.close()
        assert isinstance(board, p.Leaderboard)
        assert board.how is not None and board.how.startswith(words), board.how
        assert ("resign" in board.how) == (game != "skipper"), board.how


def test_a_resigned_solo_game_is_resigned_not_abandoned() -> None:
    resigned = {"winner": None, "reason": "resigned in round 1", "scores": [0]}
    assert seat_result(resigned, 0) == "resigned"
    assert seat_result({"winner": None, "reason": "resigned", "scores": [9]}, 0) == "resigned"
    assert seat_result({"winner": None, "reason": "forfeited", "scores": [0]}, 0) == "abandoned"
    assert seat_result({"winner": None, "reason": "all_out", "scores": [0, 0]}, 1) == "abandoned"
    assert seat_result({"winner": 1, "reason": "resigned", "scores": [0, 3]}, 0) == "lost"


async def test_my_games_lists_a_resigned_shufflejack_game_as_resigned() -> None:
    """A guest resigns a ShuffleJack game: My games says "resigned" (the reply passes the
    protocol's check of ``result``), and the game puts nothing on the board."""
    import asyncio
    import secrets

    async with serving(MemoryStore, msg_rate=None) as make:
        server = await make()
        url = f"ws://127.0.0.1:{server.port}/"
        async with Client(url, guest=secrets.token_urlsafe(16), name="Dee") as c:
            room = (await c.create_room("shufflejack")).room
            await c.join(room)
            await c.act(room, ["resign"])
            for _ in range(100):  # the ledger writes after the game ends
                await server.ledger.flush()
                games = await c.my_games()
                if games.finished:
                    break
                await asyncio.sleep(0.05)
            assert [(g["game"], g["result"]) for g in games.finished] == [
                ("shufflejack", "resigned")]
            assert (await c.leaderboard("shufflejack")).entries == []
