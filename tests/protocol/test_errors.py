"""Tests of the protocol's error tree (``cardhall.protocol.errors``): who closes, with which
code, and what an error carries (the table of codes is checked in test_protocol.py)."""

from __future__ import annotations

import pytest
from cardhall.protocol import errors as E

CLASSES = [E.BadFrame, E.TooLarge, E.UnknownType, E.MissingField, E.UnknownField, E.BadType,
           E.BadValue, E.HandshakeRequired, E.UnexpectedMessage, E.VersionMismatch]


def test_only_an_oversized_frame_and_a_wrong_version_close_the_connection() -> None:
    """TooLarge closes with 1009 and VersionMismatch with 4002, both in CLOSE_CODES; every
    other error is answered and the connection kept."""
    closing = {cls: cls.close_code for cls in CLASSES if cls.close_code is not None}
    assert closing == {E.TooLarge: 1009, E.VersionMismatch: 4002}
    assert all(code in E.CLOSE_CODES for code in closing.values())
    assert E.ProtocolError.close_code is None


def test_every_error_is_a_protocol_code_and_a_too_large_frame_is_a_bad_frame() -> None:
    """Each class has its own ``protocol/...`` code; TooLarge is caught as BadFrame too."""
    codes = [cls.code for cls in CLASSES]
    assert len(set(codes)) == len(codes) and E.ProtocolError.code not in codes
    assert all(code.startswith("protocol/") for code in codes)
    assert issubclass(E.TooLarge, E.BadFrame)
    assert all(cls.__mro__[1] is E.ProtocolError for cls in CLASSES if cls is not E.TooLarge)


@pytest.mark.parametrize("re", [None, 0, 2**31 - 1, "req-1"])
def test_an_error_carries_its_message_and_the_request_id(re: E.RequestId | None) -> None:
    """``re`` is keyword-only and kept as given, for the reply to echo."""
    err = E.BadValue("seat out of range", re=re)
    assert (err.message, str(err), err.re, err.code) == (
        "seat out of range", "seat out of range", re, "protocol/bad_value")
    assert repr(err) == "BadValue('seat out of range')"
    with pytest.raises(TypeError):
        E.BadValue("x", 3)  # type: ignore[misc]


def test_close_codes_are_websocket_close_codes() -> None:
    """RFC 6455 section 7.4: 1000-1015 are the protocol's, 4000-4999 private use."""
    assert all(1000 <= c <= 1015 or 4000 <= c <= 4999 for c in E.CLOSE_CODES)
    assert all(text for text in E.CLOSE_CODES.values())
