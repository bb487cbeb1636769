"""Tests of the message machinery (``cardhall.protocol.messages``) that other protocol modules
declare their messages with: the public field checks, the type registry, the game-data limits,
frozen messages. (tests/protocol/test_protocol.py checks every message's known values.)"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from cardhall import protocol as p
from cardhall.protocol import messages as M


@pytest.mark.parametrize("value, cls, needle", [
    (True, p.BadType, "expected int, got bool"), (1.0, p.BadType, "expected int, got float"),
    (-1, p.BadValue, "-1 is out of range 0..5"), (6, p.BadValue, "out of range"),
])
def test_int_check_refuses_bools_floats_and_the_out_of_range(value: Any,
                                                             cls: type[Exception],
                                                             needle: str) -> None:
    """``true`` is not an int on this wire; the message names the field."""
    check = M.int_check(0, 5)
    check(5, "seat")
    with pytest.raises(cls, match=needle) as err:
        check(value, "seat")
    assert str(err.value).startswith("seat: ")


def test_str_bool_word_and_request_id_checks() -> None:
    """Lengths in code points; bools only; words from their list; ids int or short str."""
    M.str_check(1, 3)("\u00e9\u00e9\u00e9", "name")
    with pytest.raises(p.BadValue, match="length 4 is out of range 1..3"):
        M.str_check(1, 3)("abcd", "name")
    with pytest.raises(p.BadType, match="expected str, got bin"):
        M.str_check(1, 3)(b"ab", "name")
    with pytest.raises(p.BadType, match="expected bool, got int"):
        M.bool_check(1, "flag")
    with pytest.raises(p.BadValue, match="is not one of ok, update"):
        M.word_check(M.ACT_REPLIES)("maybe", "act_reply")
    M.REQUEST_ID("x" * M.MAX_ID_LEN, "id")
    M.REQUEST_ID(M.MAX_ID, "id")
    for bad, cls in (("x" * (M.MAX_ID_LEN + 1), p.BadValue), (M.MAX_ID + 1, p.BadValue),
                     (1.5, p.BadType), (None, p.BadType)):
        with pytest.raises(cls):
            M.REQUEST_ID(bad, "id")


def test_type_names_are_msgpacks() -> None:
    """Error messages speak the wire's types, not Python's."""
    assert [M.type_name(v) for v in (None, True, 1, 1.0, "s", b"b", [], {})] == [
        "nil", "bool", "int", "float", "str", "bin", "array", "map"]
    assert M.type_name(object()) == "object"


def test_the_registry_has_one_class_per_tag_and_side() -> None:
    """Tags are unique across both directions and name their class's TYPE."""
    assert not set(M.CLIENT_MESSAGES) & set(M.SERVER_MESSAGES)
    assert M.MESSAGE_TYPES == {**M.CLIENT_MESSAGES, **M.SERVER_MESSAGES}
    assert all(cls.TYPE == tag for tag, cls in M.MESSAGE_TYPES.items())
    assert M.CLIENT_MESSAGES["act"] is p.Act and M.SERVER_MESSAGES["update"] is p.Update


def _nested(depth: int) -> dict[str, Any]:
    data: dict[str, Any] = {}
    for _ in range(depth - 1):
        data = {"x": data}
    return data


@pytest.mark.parametrize("view, cls, needle", [
    (_nested(M.MAX_DEPTH + 1), p.BadValue, "nested deeper than 32"),
    ({"a": [0] * (M.MAX_ARRAY_LEN + 1)}, p.BadValue, "array of 4097 items"),
    ({str(i): 0 for i in range(M.MAX_MAP_LEN + 1)}, p.BadValue, "map of 1025 pairs"),
    ({"n": 2**64}, p.BadValue, "does not fit in 64 bits"),
    ({"s": {1.5: "x"}}, p.BadType, "map key must be str, got float"),
    ({"o": object()}, p.BadType, "is not a msgpack value"),
])
def test_game_data_stays_within_the_decoders_limits(view: dict[str, Any],
                                                    cls: type[Exception], needle: str) -> None:
    """What the server builds is refused on construction for what a client could not
    decode; at the limit it passes, and seat numbers may key a view's maps."""
    with pytest.raises(cls, match=needle):
        p.Update(room="r", state_id=0, view=view)
    p.Update(room="r", state_id=0, view=_nested(M.MAX_DEPTH))
    p.Update(room="r", state_id=0, view={"scores": {0: 1, 1: 2}})


@pytest.mark.parametrize("action, cls", [([], p.BadValue), ([5, "x"], p.BadType),
                                         ("play", p.BadType), (["play", {1: 2}], p.BadType)])
def test_an_action_is_a_non_empty_array_led_by_a_verb(action: Any,
                                                      cls: type[Exception]) -> None:
    """Actions' maps take str keys only (unlike views)."""
    with pytest.raises(cls):
        p.Act(room="r", state_id=0, action=action)


def test_messages_are_frozen_and_need_their_required_fields() -> None:
    """A sent message cannot change; a missing required field is a TypeError of the
    dataclass, a None one a BadType."""
    msg = p.Ping(id=1)
    with pytest.raises(dataclasses.FrozenInstanceError):
        msg.id = 2  # type: ignore[misc]
    with pytest.raises(TypeError):
        p.Act(state_id=0, action=["x"])  # type: ignore[call-arg]
    with pytest.raises(p.BadType, match="room: expected a value, got nil"):
        p.Act(room=None, state_id=0, action=["x"])  # type: ignore[arg-type]
