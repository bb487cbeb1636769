"""Rated play in the terminal client (issue #45): ``cardhall play --rated`` waits in the
server's queue (its rating shown), is seated at the table the queue gives (bots in the empty
seats after ``--queue-bot-after``) and plays it; the lobby's ``rated`` command does the same.
On the old code ``--rated`` is no option of ``cardhall play``."""

from __future__ import annotations

import asyncio

import pytest

from cardhall.server.app import Server
from cardhall.server.config import Settings

from ..terminal_harness import LOBBY, Person


def _rated_session(url: str, *extra: str) -> str:
    with Person(url, "rater", *extra) as person:
        if "--rated" not in extra:
            person.expect(LOBBY)
            person.say("rated multi 4")
        person.expect(r"waiting in the rated queue of Skipper multi \(your rating 1500\?")
        person.expect(r"seated at a rated table of 4 \(rating spread 0, 3 bots\)")
        person.expect(r"your move \[|\[v redraw")
        out = person.text
        person.quit()
        return out


@pytest.mark.timeout(90)
@pytest.mark.parametrize("how", ["--rated", "command"])
async def test_play_rated_in_the_terminal(how: str) -> None:
    server = Server(Settings(host="127.0.0.1", port=0, queue_wave_seconds=0.2,
                             queue_bot_after=0.5))
    await server.start()
    try:
        extra = ("--rated",) if how == "--rated" else ()
        out = await asyncio.to_thread(_rated_session, server.url, *extra)
        assert "rated" in out
        rooms = [r for r in server.lobby.rooms.values() if r.table.settings.get("rated")]
        assert len(rooms) == 1 and rooms[0].table.seat_count == 4
    finally:
        await server.stop()
