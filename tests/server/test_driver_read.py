"""The socket driver's read path (issue #43): once the WebSocket is open, whole final binary
frames are unmasked and handed over without websockets' protocol object, every other frame
is fed to the protocol whole. Whatever a client sends, split however TCP splits it, the
handler and the client must see exactly what they see when the protocol parses everything."""

from __future__ import annotations

import asyncio
import base64
from typing import Any

from cardhall.server.admission import Gate
from cardhall.server.config import Settings
from cardhall.server.driver import Flusher, Socket, at_frame_start
from hypothesis import given, settings
from hypothesis import strategies as st
from websockets.frames import Close, Frame, Opcode

from .test_driver import Endpoint, Handler, Transport, frame, out

UPGRADE = (
    "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
    f"Sec-WebSocket-Key: {base64.b64encode(b'0123456789abcdef').decode()}\r\n"
    "Sec-WebSocket-Version: 13\r\n\r\n").encode()
MAX_SIZE = 300


class Opening(Endpoint):
    """Accepts every upgrade; keeps the handler it made."""

    handler: Handler | None = None

    def opened(self, socket: Socket) -> Handler:
        self.handler = Handler(socket)
        return self.handler


async def upgraded(first: bytes = UPGRADE) -> tuple[Socket, Transport, Opening]:
    """A socket that read ``first`` (the HTTP upgrade, maybe more) and answered it."""
    endpoint = Opening()
    sock = Socket(endpoint, Gate(Settings(), 100), Flusher(), ping_interval=None,
                  max_size=MAX_SIZE)
    transport = Transport()
    sock.connection_made(transport)
    sock.data_received(first)
    for _ in range(3):
        await asyncio.sleep(0)  # the upgrade is answered in a task
    assert sock.handler is not None
    return sock, transport, endpoint


async def test_a_clean_upgrade_reads_frames_itself() -> None:
    sock, transport, endpoint = await upgraded()
    assert at_frame_start(sock.protocol) and sock._fast
    second = frame(b"b")  # (masked with a key of its own: built once)
    sock.data_received(frame(b"a") + second[:3])  # the second frame in two reads
    assert endpoint.handler is not None and endpoint.handler.messages == [b"a"]
    sock.data_received(second[3:])
    assert endpoint.handler.messages == [b"a", b"b"]
    assert transport.writes[1:] == [out(b"re:a"), out(b"re:b")]  # after the 101
    sock.connection_lost(None)


async def test_a_frame_sent_a_byte_at_a_time_is_parsed_once_it_is_whole() -> None:
    # A slow client's bytes are appended in place; the frame is read once its length is in
    # (not re-parsed from the start at every byte: quadratic time for one large frame).
    # Each read of a frame not whole yet keeps its bytes in a new buffer (Socket._partial);
    # bytes appended in place leave the same one: the buffers seen (kept, so that no id is
    # reused) count the reads. Observed, not patched: a compiled Socket's methods are fixed.
    sock, _, endpoint = await upgraded()
    buffers: list[bytearray] = []
    payload = bytes(range(256)) * 1  # 256 bytes: a 2-byte length, 8 bytes of header
    raw = frame(payload)
    for k in range(len(raw)):
        sock.data_received(raw[k:k + 1])
        partial = sock._partial
        if partial and not any(partial is seen for seen in buffers):
            buffers.append(partial)
    assert endpoint.handler is not None and endpoint.handler.messages == [payload]
    assert not sock._partial
    reads = len(buffers) + 1  # and the read of the whole frame
    assert reads <= 9, reads  # the header's bytes one by one, then the whole frame
    sock.connection_lost(None)


async def test_frame_bytes_behind_the_request_leave_the_protocol_in_charge() -> None:
    # A client that sends part of a frame before the 101 came: the protocol holds those
    # bytes (its parser past the frame's start), so it keeps parsing that socket's frames.
    whole = frame(b"early") + frame(b"late")
    sock, _, endpoint = await upgraded(UPGRADE + whole[:3])
    assert not sock._fast
    sock.data_received(whole[3:])
    assert endpoint.handler is not None and endpoint.handler.messages == [b"early", b"late"]
    sock.connection_lost(None)


# -- the same bytes, both ways --------------------------------------------------------------

def _raw(opcode: Opcode, data: bytes, fin: bool = True, mask: bool = True,
         rsv1: bool = False) -> bytes:
    raw = Frame(opcode, data, fin=fin).serialize(mask=mask, extensions=[])
    return bytes((raw[0] | 0x40,)) + raw[1:] if rsv1 else raw  # RSV1 set by hand


PAYLOAD = st.binary(min_size=0, max_size=200)
FRAMES = st.one_of(
    PAYLOAD.map(lambda d: _raw(Opcode.BINARY, d)),
    st.binary(min_size=126, max_size=MAX_SIZE).map(lambda d: _raw(Opcode.BINARY, d)),
    st.text(max_size=20).map(lambda t: _raw(Opcode.TEXT, t.encode())),
    st.tuples(PAYLOAD, PAYLOAD).map(lambda p: _raw(Opcode.BINARY, p[0], fin=False)
                                    + _raw(Opcode.CONT, p[1])),
    st.just(_raw(Opcode.CONT, b"stray")),
    st.binary(max_size=20).map(lambda d: _raw(Opcode.PING, d)),
    st.binary(max_size=20).map(lambda d: _raw(Opcode.PONG, d)),
    st.just(_raw(Opcode.CLOSE, Close(1000, "bye").serialize())),
    st.just(_raw(Opcode.BINARY, b"x" * (MAX_SIZE + 1))),  # too large: 1009
    st.just(_raw(Opcode.BINARY, b"naked", mask=False)),  # unmasked: 1002
    st.just(_raw(Opcode.BINARY, b"rsv", rsv1=True)),  # an RSV bit: 1002
    st.just(b"\xff\xff\x00"),  # garbage
)


async def _run(chunks: list[bytes], fast: bool, eof: bool) -> tuple[Any, ...]:
    sock, transport, endpoint = await upgraded()
    assert sock._fast and len(transport.writes) == 1  # the 101 (its Date: not compared)
    sock._fast = fast
    for chunk in chunks:
        if not sock.lost:
            sock.data_received(chunk)
    if eof:
        sock.eof_received()
    await asyncio.sleep(0)
    assert endpoint.handler is not None
    seen = (endpoint.handler.messages, b"".join(transport.writes[1:]), sock.close_code,
            sock.state, transport.eof)
    sock.connection_lost(None)
    return seen


@settings(max_examples=300, deadline=None)
@given(frames=st.lists(FRAMES, max_size=8), cuts=st.lists(st.integers(0, 2000), max_size=6),
       eof=st.booleans())
def test_any_bytes_split_anyhow_read_as_the_protocol_reads_them(
        frames: list[bytes], cuts: list[int], eof: bool) -> None:
    data = b"".join(frames)
    points = sorted({c % (len(data) + 1) for c in cuts} | {0, len(data)})
    chunks = [data[a:b] for a, b in zip(points, points[1:], strict=False) if b > a]
    assert asyncio.run(_run(chunks, True, eof)) == asyncio.run(_run(chunks, False, eof))


async def test_a_pong_is_read_without_the_protocol_and_ends_the_keepalive_wait() -> None:
    """The keepalive's pong (issue #43: one per socket per ``ping_interval``) is read by
    the fast path too: the wait for it ends and the next ping is due, as when the protocol
    parses it; a pong carrying other data ends nothing. Neither reaches the protocol."""
    sock, transport, endpoint = await upgraded()
    sock._ping_interval, sock._ping_timeout = 30.0, 30.0
    sock._ping()
    assert sock._pong_timer is not None and sock._ping_data
    fed: list[bytes] = []
    sock.protocol.receive_data = fed.append  # type: ignore[method-assign]
    sock.data_received(_raw(Opcode.PONG, b"not it") + frame(b"a"))
    assert sock._pong_timer is not None and sock._ping_timer is None
    sock.data_received(_raw(Opcode.PONG, sock._ping_data) + frame(b"b"))
    assert sock._pong_timer is None and sock._ping_timer is not None
    assert sock._ping_data == b""
    assert endpoint.handler is not None and endpoint.handler.messages == [b"a", b"b"]
    assert fed == []
    sock.connection_lost(None)
