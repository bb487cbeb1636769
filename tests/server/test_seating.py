"""Tests of a waiting room's seats (``cardhall.server.seating``) with stand-in connections,
no sockets: joins, the host role as players come and go, resumes by token, kicks, drops.
(tests/server/test_room_*.py cover rooms in play.)"""

from __future__ import annotations

from typing import Any

import pytest
from cardhall.games.skipper import Skipper
from cardhall.server.store.memory_store import MemoryStore
from cardhall.server.room import Room
from cardhall.server.table import RoomError

from tests.room_harness import Recorder, WriteLog


def _room(seats: int = 3) -> tuple[Room, WriteLog]:
    room = Room(id="r1", name="r1", game_name="skipper",
                game=Skipper({"mode": "multi"}, seats),
                settings={"turn_seconds": None, "bid_seconds": None, "grace_seconds": 60.0,
                          "on_abandon": "bot"}, store=MemoryStore())
    return room, []


def _conns(log: WriteLog, n: int) -> list[Any]:
    return [Recorder(f"c{i}", log) for i in range(n)]


async def test_joins_take_the_first_free_seat_and_refuse_a_taken_or_doubled_one() -> None:
    """Seats fill in order; a named seat may be taken out of order; a taken seat, a full
    room and a second seat for one connection are ``room/full``."""
    room, log = _room(3)
    a, b, c, d = _conns(log, 4)
    assert room.join(a, 2)[0] == 2
    seat, token = room.join(b, None)
    assert seat == 0 and len(token) == 32
    for conn, wanted in ((c, 2), (a, None)):
        with pytest.raises(RoomError) as err:
            room.join(conn, wanted)
        assert err.value.code == "room/full"
    room.join(c, None)
    with pytest.raises(RoomError, match="every seat is taken") as err:
        room.join(d, None)
    assert err.value.code == "room/full"


async def test_the_first_to_sit_hosts_and_the_longest_seated_inherits() -> None:
    """With no creator's claim, the first seated player hosts; when its seat is freed the
    role goes to the longest-seated player still connected."""
    room, log = _room(3)
    a, b, c = _conns(log, 3)
    for conn in (a, b, c):
        room.join(conn, None)
    hosts = [s for s, h in enumerate(room.seats) if h is not None and h.host]
    assert hosts == [0] and room.host == "c0"
    await room.leave(a)
    assert room.seats[0] is None
    assert [s for s, h in enumerate(room.seats) if h is not None and h.host] == [1]
    assert room.host == "c1"


async def test_a_token_resumes_its_seat_on_another_connection() -> None:
    """The old connection is told it left; a wrong token is ``room/bad_token``."""
    room, log = _room(2)
    a, b = _conns(log, 2)
    seat, token = room.join(a, None)
    assert room.find_token(token) == seat and room.find_token("x" * 32) is None
    log.clear()
    assert room.resume(b, token) == seat
    assert ("c0", ["left"]) in log and room.seats[seat].conn is b  # type: ignore[union-attr]
    assert a not in room.members and b in room.members
    with pytest.raises(RoomError) as err:
        room.resume(a, "not-a-token")
    assert err.value.code == "room/bad_token"


async def test_a_kick_frees_a_waiting_seat_and_voids_its_token() -> None:
    """The kicked player gets ``room/kicked`` and ``left``; its token resumes nothing; an
    empty seat cannot be kicked."""
    room, log = _room(2)
    a, b = _conns(log, 2)
    room.join(a, None)
    _, token = room.join(b, None)
    log.clear()
    assert await room.kick(1) == "freed"
    assert ("c1", ["error"]) in log and ("c1", ["left"]) in log
    assert room.seats[1] is None
    with pytest.raises(RoomError) as err:
        room.resume(b, token)
    assert err.value.code == "room/bad_token"
    for seat in (1, 5, -1):
        with pytest.raises(RoomError) as err:
            await room.kick(seat)
        assert err.value.code == "room/not_seated"


async def test_a_dropped_player_keeps_its_seat_for_the_grace_window() -> None:
    """The seat is held (not freed), its holder marked with a deadline; the token takes it
    back on a new connection."""
    room, log = _room(2)
    a, b = _conns(log, 2)
    _, token = room.join(a, None)
    room.dropped(a)
    holder = room.seats[0]
    assert holder is not None and holder.conn is None and holder.grace_until is not None
    assert room.resume(b, token) == 0 and holder.grace_until is None
