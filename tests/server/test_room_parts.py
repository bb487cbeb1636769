"""server/room_parts.py: the room's state as its parts see it (the mypyc traits' common base),
its seats and its members' records."""

from __future__ import annotations

import inspect
from typing import Any

import pytest

from cardhall.games.skipper import Skipper
from cardhall.server.memory_store import MemoryStore
from cardhall.server.room import Room
from cardhall.server.room_parts import Member, RoomParts, Seat


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
