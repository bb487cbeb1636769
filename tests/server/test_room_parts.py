"""server/room_parts.py: the room's state as its parts see it (the mypyc traits' common base),
its seats and its members' records."""

from __future__ import annotations

import inspect
from typing import Any

import pytest

from cardhall import protocol as p
from cardhall.games.skipper import Skipper
from cardhall.server.store.memory_store import MemoryStore
from cardhall.server.room import Room
from cardhall.server.room_parts import CHECK_FACTS, Member, RoomParts, Seat

from ..room_harness import Recorder, started_room


def _declared() -> list[str]:
    """The methods and properties :class:`RoomParts` declares for another part to define
    (all it has but :meth:`RoomParts.dealt`, in either build)."""
    return sorted(name for name, value in vars(RoomParts).items()
                  if not name.startswith("__") and name != "dealt"
                  and (callable(value) or isinstance(value, property)
                       or hasattr(value, "__get__")))


def test_every_declaration_is_defined_by_the_room_or_a_part_and_none_hides_one() -> None:
    """The declarations come last in the room's method order: a part's method is never
    shadowed by the declaration (which, called, would do nothing)."""
    declared = _declared()
    assert "post" in declared and "_broadcast" in declared and "commitment" in declared
    assert Room.__mro__[-2:] == (RoomParts, object)
    for name in declared:
        owner = next(c for c in Room.__mro__ if name in vars(c))
        assert owner is not RoomParts, f"{name}: nothing defines it"
        assert not getattr(inspect.getattr_static(Room, name), "__isabstractmethod__", False)


def _room(**kwargs: Any) -> Room:
    return Room(id="r1", name="parts", game_name="skipper", settings={}, store=MemoryStore(),
                **kwargs)


def test_dealt_is_the_engine_of_a_room_that_has_one() -> None:
    game = Skipper({"mode": "multi", "seed": 5}, 4)
    assert _room(game=game).dealt() is game


def test_dealt_in_a_waiting_room_raises_runtime_error() -> None:
    """A waiting room holds no engine (issue #18): a path that needs one is a bug."""
    room = _room(game_cls=Skipper, options={"mode": "multi", "seed": 5}, seat_count=4)
    assert room.game is None
    with pytest.raises(RuntimeError, match="no game dealt"):
        room.dealt()


def test_a_bot_seat_counts_as_assisted_and_its_token_is_never_public() -> None:
    seat = Seat(token="secret", conn=None, name="Bot", bot=True)
    assert seat.assisted
    assert "secret" not in str(seat.public(2)) and seat.stored()["token"] == "secret"
    assert seat.public(2) == {"seat": 2, "name": "Bot", "connected": False, "bot": True,
                              "host": False}


def test_a_member_sent_no_view_gets_a_full_view_next() -> None:
    member = Member(seat=1)
    member.sent({"state_id": 7, "room": {"id": "r1"}})
    assert (member.sid, member.table) == (7, {"id": "r1"})
    member.sent(None)
    assert (member.sid, member.table, member.last) == (None, None, None)


async def _act(room: Room, conns: list[Recorder], rid: int) -> None:
    """One legal action (never ``resign``) of the seat to act, through :meth:`Room.play`."""
    game = room.dealt()
    seat = game.to_act()[0]
    action = next(a for a in game.legal_actions(seat) if a[0] != "resign")
    await room.play(conns[seat],  # type: ignore[arg-type]
                    p.Act(room=room.id, state_id=game.state_id, action=list(action), id=rid))


async def test_the_state_and_room_facts_are_not_rebuilt_while_nothing_they_show_changes(
        ) -> None:
    """Issue #34: :meth:`Room.state` was built (and compared with the stored one) on every
    append, and :meth:`Room.table` built on every broadcast, though both change only when
    a seat, a member, the host, the phase, the chat or a deadline does. Now both are the
    same objects from action to action, and built afresh after such a change."""
    room, _game, conns, _log = await started_room(4, {"seed": 3})
    try:
        state, facts = room.state(), room.table()
        for rid in range(5):
            await _act(room, conns, rid)
        assert room.state() is state and room.table() is facts
        room.dropped(conns[2])  # type: ignore[arg-type]
        assert room.state() is not state and room.table() is not facts
        assert room.state()["seats"][2]["grace_until"] is not None
        assert room.table()["players"][2]["connected"] is False
    finally:
        await room.close()


async def test_a_seat_changed_without_seats_touched_is_caught_in_the_tests() -> None:
    """The test suite runs with :data:`CHECK_FACTS` (tests/conftest.py): a change of a seat
    that does not call :meth:`Room.seats_touched` fails the test that made it, instead of
    leaving a stale state in the store."""
    assert CHECK_FACTS
    room, _game, _conns, _log = await started_room(2, {"seed": 3})
    try:
        room.state()
        room.table()
        holder = room.seats[1]
        assert holder is not None
        holder.name = "renamed"  # the bug: no seats_touched()
        with pytest.raises(RuntimeError, match="without seats_touched"):
            room.state()
        with pytest.raises(RuntimeError, match="without seats_touched"):
            room.table()
        room.seats_touched()
        assert room.state()["seats"][1]["name"] == "renamed"
        assert room.table()["players"][1]["name"] == "renamed"
    finally:
        await room.close()
