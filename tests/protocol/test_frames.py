"""The server's update frame builders (``codec.update_frame``, ``codec.delta_frame``): the
bytes of a frame built from pre-packed pieces are exactly those of the plain way (a
reference written out here: the delta merged, its ``state_id`` dropped for version 2, the
map packed whole), on random deltas, facts changes, versions and request ids (issue #43)."""

from __future__ import annotations

from typing import Any

import msgpack
import pytest
from cardhall import protocol as p
from hypothesis import given, settings
from hypothesis import strategies as st

_plain = st.one_of(st.none(), st.booleans(), st.integers(-(2**63), 2**64 - 1),
                   st.text(max_size=20), st.lists(st.integers(0, 60), max_size=5))
_keys = st.one_of(st.sampled_from(["state_id", "hand", "legal_actions", "to_act", "room",
                                   "/seats/1/hand", "/room/deadlines/0"]),
                  st.text(min_size=1, max_size=12))
_maps = st.dictionaries(_keys, _plain, max_size=20)  # past 15 pairs: a map16 header
_ids = st.one_of(st.none(), st.integers(0, 2**31 - 1), st.text(max_size=64))


def _reference(room: str, sid: int, events: list[Any], delta: dict[str, Any],
               re: Any, v: int) -> bytes:
    """The frame as one packed map, the slow and obvious way."""
    if v > 1:
        delta = {k: x for k, x in delta.items() if k != "state_id"}
    frame: dict[str, Any] = {"t": "update", "room": room, "state_id": sid, "delta": delta,
                             "events": events}
    if re is not None:
        frame["re"] = re
    return msgpack.packb(frame)  # type: ignore[no-any-return]


@settings(max_examples=400, deadline=None)
@given(delta=_maps, extra=_maps, sid=st.integers(0, 2**40), first=st.booleans(),
       re=_ids, v=st.sampled_from([1, 2]))
def test_delta_frame_is_the_merged_delta_packed_whole(delta: dict[str, Any],
                                                      extra: dict[str, Any], sid: int,
                                                      first: bool, re: Any, v: int) -> None:
    """``delta_frame(parts, delta, extra, packed_pairs(extra), re, v)`` is byte for byte the
    frame of ``{**delta, **extra}``: with ``state_id`` first in the delta (an engine's), not
    first, or absent; with keys of ``extra`` already in ``delta``; with and without ``re``."""
    if first:
        delta = {"state_id": sid, **delta}
    events = [{"type": "play", "card": "5D"}]
    parts = p.update_parts("r1", sid, events)
    merged = {**delta, **extra}
    want = _reference("r1", sid, events, merged, re, v)
    assert p.delta_frame(parts, delta, extra, p.packed_pairs(extra), re, v) == want
    assert p.update_frame(parts, delta=merged, re=re, v=v) == want
    assert p.delta_frame(parts, merged, None, b"", re, v) == want
    before = dict(delta)
    p.delta_frame(parts, delta, extra, p.packed_pairs(extra), re, v)
    assert delta == before  # shared with other recipients: never changed


@settings(max_examples=400, deadline=None)
@given(shared=_maps, own=_maps, extra=_maps, sid=st.integers(0, 2**40), first=st.booleans(),
       re=_ids, v=st.sampled_from([1, 2]))
def test_pairs_frame_of_split_parts_is_the_merged_delta(shared: dict[str, Any],
                                                        own: dict[str, Any],
                                                        extra: dict[str, Any], sid: int,
                                                        first: bool, re: Any, v: int) -> None:
    """A shared part's ``delta_pairs`` (packed once per version), an own part's and a facts
    change's ``packed_pairs`` under one header (``pairs_frame``) make byte for byte the
    frame of the merged delta, when their keys are distinct; ``delta_pairs`` answers None
    (use ``update_frame``) when a version 2 ``state_id`` is not first or not an int, and
    leaves the delta unchanged."""
    own = {k: x for k, x in own.items() if k not in shared and k != "state_id"}
    extra = {k: x for k, x in extra.items()
             if k not in shared and k not in own and k != "state_id"}
    if first:
        shared = {"state_id": sid, **shared}
    before = dict(shared)
    pairs = p.delta_pairs(shared, v)
    assert shared == before
    if pairs is None:
        assert v == 2 and "state_id" in shared
        assert next(iter(shared)) != "state_id" or type(shared["state_id"]) is not int
        return
    events = [{"type": "bid", "card": None}]
    parts = p.update_parts("r2", sid, events)
    frame = p.pairs_frame(parts, pairs[0] + len(own) + len(extra), pairs[1],
                          p.packed_pairs(own), p.packed_pairs(extra), re)
    assert frame == _reference("r2", sid, events, {**shared, **own, **extra}, re, v)


@pytest.mark.parametrize("count", [0, 1, 15, 16, 300])
def test_packed_pairs_drop_exactly_the_map_header(count: int) -> None:
    """The pairs of a fixmap (1-byte header) and of a map16 (3 bytes) alike."""
    entries = {f"k{i}": i for i in range(count)}
    pairs = p.packed_pairs(entries)
    unpacker = msgpack.Unpacker()
    unpacker.feed(pairs)
    assert list(unpacker) == [x for kv in entries.items() for x in kv]


@given(view=_maps, re=_ids)
def test_update_frame_of_a_view_is_the_view_packed_whole(view: dict[str, Any], re: Any) -> None:
    """A full view travels as it is (the same bytes as the plain way)."""
    parts = p.update_parts("room-9", 3, [])
    frame: dict[str, Any] = {"t": "update", "room": "room-9", "state_id": 3, "view": view,
                             "events": []}
    if re is not None:
        frame["re"] = re
    assert p.update_frame(parts, view=view, re=re, v=2) == msgpack.packb(frame)


def test_delta_frame_pinned_bytes_with_a_facts_change() -> None:
    """The version 2 frame of test_room_wire's pinned one with a deadline change appended:
    the delta's pairs without ``state_id``, then the change's, under one 2-pair header."""
    parts = p.update_parts("r1", 7, [{"type": "pass", "seat": 0}])
    change = {"/room/deadlines/0/1": 12.5}
    frame = p.delta_frame(parts, {"state_id": 7, "to_act": [1]}, change,
                          p.packed_pairs(change), 3, 2)
    assert frame.hex() == (
        "86a174a6757064617465a4726f6f6da27231a873746174655f696407a564656c746182a6746f"
        "5f6163749101b32f726f6f6d2f646561646c696e65732f302f31cb4029000000000000"
        "a66576656e74739182a474797065a470617373a47365617400a2726503")


@pytest.mark.parametrize("sid", [0, 127, 128, 255, 256, 65535, 65536, 2**32 - 1, 2**32, 2**64 - 1,
                                 -1, -32, -33, -128, -129, -(2**15) - 1, -(2**31) - 1,
                                 -(2**63), None, True, 1.5, "7", [7]])
def test_delta_frame_cuts_a_first_state_id_of_any_size_or_type(sid: Any) -> None:
    """Every msgpack int width (fixint, uint8..64, negative fixint, int8..64) is cut from a
    version 2 frame's packed delta; a state_id of another type takes the general way."""
    parts = p.update_parts("r1", 7, [])
    delta = {"state_id": sid, "to_act": [1], "hand": ["5D"]}
    for v in (1, 2):
        assert p.delta_frame(parts, delta, None, b"", None, v) == _reference(
            "r1", 7, [], delta, None, v)


@pytest.mark.parametrize("sid", [0, 1, 127, 128, 255, 256, 1000, 65535, 65536, 2**32, 2**63])
def test_update_parts_pack_the_state_id_as_msgpack_does(sid: int) -> None:
    # update_parts packs small state ids from a table and uint16 by hand (issue #43): at
    # each size's edges the bytes are msgpack's.
    head, tail = p.update_parts("r1", sid, [{"type": "pass"}])
    want = msgpack.packb({"t": "update", "room": "r1", "state_id": sid,
                          "events": [{"type": "pass"}]})
    frame = msgpack.unpackb(b"\x84" + head + tail)
    assert frame == {"t": "update", "room": "r1", "state_id": sid,
                     "events": [{"type": "pass"}]}
    assert b"\x84" + head + tail == want


_atoms = st.one_of(st.text(max_size=4), st.integers(-3, 3), st.booleans(), st.none(),
                   st.lists(st.integers(0, 2), max_size=2))
_tuple_lists = st.lists(st.tuples(_atoms) | st.tuples(_atoms, _atoms)
                        | st.tuples(st.text(max_size=3), st.text(max_size=3)), max_size=8)


@settings(max_examples=300, deadline=None)
@given(actions=_tuple_lists, more=_tuple_lists, hand=st.lists(st.text(max_size=3)))
def test_packed_pairs_of_tuple_lists_are_msgpacks_every_time(
        actions: list[tuple[Any, ...]], more: list[tuple[Any, ...]], hand: list[str]) -> None:
    # packed_pairs packs a list of tuples (legal actions) from each tuple's bytes, packed
    # once and remembered (issue #43): the bytes are msgpack's on the first call and on
    # later ones, for tuples of strs (remembered) and of anything else (1 and True are
    # equal keys, not the same bytes; a list inside is unhashable).
    for _ in range(2):
        for entries in ({"hand": hand, "legal_actions": actions},
                        {"legal_actions": more, "x": actions},
                        {"a": [(1,), (True,), ("1",)], "b": [(True,), (1,), (1.0,)]}):
            want = msgpack.packb(entries)[1:]  # a fixmap's one-byte header
            assert p.packed_pairs(entries) == want


def test_the_remembered_tuples_stay_bounded() -> None:
    # The cache of packed tuples is emptied when full, so any number of distinct tuples
    # goes through in bounded memory.
    from cardhall.protocol import codec
    for i in range(codec._TUPLES_MAX + 10):
        p.packed_pairs({"k": [(str(i), "x")]})
    assert 0 < len(codec._TUPLES) <= codec._TUPLES_MAX
    assert p.packed_pairs({"k": [("5", "x")]}) == msgpack.packb({"k": [("5", "x")]})[1:]


def test_the_remembered_strs_stay_bounded_and_pack_as_msgpack_does() -> None:
    # Room ids and a delta's keys are packed once and remembered (issue #43); the cache is
    # emptied when full, so any number of distinct rooms goes through in bounded memory.
    from cardhall.protocol import codec
    for i in range(codec._STRS_MAX + 10):
        room = f"room-{i}"
        assert p.update_parts(room, 1, [])[0].endswith(msgpack.packb(room) + b"\xa8state_id\x01")
    assert 0 < len(codec._STRS) <= codec._STRS_MAX
    for key in ("hand", "é" * 40, "x" * 300):
        entries = {key: [("play", "QS")]}
        assert p.packed_pairs(entries) == msgpack.packb(entries)[1:]


def test_frame_room_reads_the_room_of_every_room_frame_and_nothing_else() -> None:
    """:func:`frame_room` (the cluster's fence) reads the room of update frames as the
    broadcast builds them (with or without ``re``) and of any encoded message naming one,
    whatever key comes first; None for frames of no room and for bytes that are not a map
    (never an exception)."""
    parts = p.update_parts("room-7", 12, [["play", 1]])
    assert p.frame_room(p.update_frame(parts, delta={"a": 1})) == "room-7"
    assert p.frame_room(p.update_frame(parts, view={"state_id": 12}, re=5)) == "room-7"
    joined = p.Joined(room="r2", seat=1, token="tok", view={"state_id": 3, "big": "x" * 500})
    assert p.frame_room(p.encode(joined)) == "r2"
    assert p.frame_room(p.encode(p.SeatEvent(room="r3", seat=0, event="dropped"))) == "r3"
    assert p.frame_room(p.ok_frame(4)) is None
    assert p.frame_room(p.encode(p.Error(code="room/full", message="full"))) is None
    for junk in (b"", b"\xc1", b"\x85", b"\x92\x01\x02", p.update_frame(parts, delta={})[:9]):
        assert p.frame_room(junk) is None
