"""Tests of the codec's edges (``cardhall.protocol.codec``): what tests/protocol/test_protocol.py
does not pin down (``ok_frame``, buffers, size limits on encode, ``clip_message``, ``side``)."""

from __future__ import annotations

import msgpack
import pytest
from cardhall import protocol as p
from cardhall.protocol import codec


@pytest.mark.parametrize("re", [None, 0, 7, 255, 256, 65535, 65536, 2**31 - 1, "r-1", ""])
def test_ok_frame_is_the_encoding_of_ok(re: p.RequestId | None) -> None:
    """The server's fast path sends the very bytes ``encode(Ok(re=...))`` would."""
    assert codec.ok_frame(re) == p.encode(p.Ok(re=re))
    assert p.decode(codec.ok_frame(re), side="server") == p.Ok(re=re)


def test_encode_puts_the_tag_first_and_leaves_out_unset_fields() -> None:
    """``"t"`` is the first key; a None optional field is absent, not nil."""
    act = p.Act(id=5, room="r1", state_id=3, action=["play", "5D"])
    keys = list(msgpack.unpackb(p.encode(act)))
    assert keys[0] == "t" and "id" in keys
    assert "re" not in msgpack.unpackb(p.encode(p.Ok()))


def test_encode_refuses_a_non_message_and_a_frame_over_max_size() -> None:
    """TypeError for a plain dict; TooLarge (close 1009) when over the receiver's limit."""
    with pytest.raises(TypeError, match="not a protocol message"):
        p.encode({"t": "ping"})  # type: ignore[arg-type]
    msg = p.Act(id=1, room="r", state_id=0, action=["x" * 200])
    size = len(p.encode(msg))
    assert p.encode(msg, max_size=size)
    with pytest.raises(p.TooLarge, match=f"{size} bytes is over {size - 1}"):
        p.encode(msg, max_size=size - 1)


def test_decode_takes_any_buffer_but_not_text_and_needs_a_side() -> None:
    """bytes, bytearray and memoryview decode alike; a text frame is a BadFrame; a wrong
    ``side`` is the caller's bug (ValueError)."""
    data = p.encode(p.Ping(id=9))
    for frame in (data, bytearray(data), memoryview(data)):
        assert p.decode(frame, side="client") == p.Ping(id=9)
    with pytest.raises(p.BadFrame):
        p.decode(data.decode("latin-1"), side="client")
    with pytest.raises(ValueError, match="side must be"):
        p.decode(data, side="both")  # type: ignore[call-overload]


def test_decode_echoes_a_valid_id_of_a_bad_frame_only() -> None:
    """A frame that fails validation keeps its readable ``id`` for the reply; an id that is
    not valid (a bool, out of range) is not echoed."""
    with pytest.raises(p.UnknownType) as err:
        p.decode(msgpack.packb({"t": "nope", "id": 12}), side="client")
    assert err.value.re == 12
    for bad_id in (True, -1, 2**31, "x" * 65):
        with pytest.raises(p.ProtocolError) as err:
            p.decode(msgpack.packb({"t": "nope", "id": bad_id}), side="client")
        assert err.value.re is None


@pytest.mark.parametrize("text, limit, want", [
    ("short", 10, "short"), ("0123456789", 10, "0123456789"), ("0123456789A", 10, "0123456..."),
    (ValueError("boom"), 10, "boom"), ("\u00e9" * 20, 5, "\u00e9\u00e9..."),
])
def test_clip_message_cuts_to_the_limit_and_marks_the_cut(text: object, limit: int,
                                                          want: str) -> None:
    """Counted in characters; a non-string is its ``str``."""
    assert codec.clip_message(text, limit) == want
