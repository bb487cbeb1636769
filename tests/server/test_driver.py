"""The socket driver (issue #43): messages handed over in the callback that read them, every
frame of a loop pass for one socket in one ``writelines``, the protocol's own frames (pongs,
closes) in order with ours, flow control, fragments."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from websockets.frames import Close, Frame, Opcode
from websockets.protocol import State
from websockets.server import ServerProtocol

from cardhall.server.admission import Gate
from cardhall.server.config import Settings
from cardhall.server.driver import Flusher, Socket, binary_header


class Transport:
    """Stands in for an asyncio transport: records every ``writelines``."""

    def __init__(self) -> None:
        self.writes: list[bytes] = []
        self.eof = self.aborted = self.closed = self.reading_paused = False

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return ("127.0.0.1", 5000) if name == "peername" else default

    def writelines(self, data: list[bytes]) -> None:
        self.writes.append(b"".join(data))

    def can_write_eof(self) -> bool:
        return True

    def write_eof(self) -> None:
        self.eof = True

    def abort(self) -> None:
        self.aborted = True

    def close(self) -> None:
        self.closed = True

    def is_closing(self) -> bool:
        return self.closed or self.aborted

    def pause_reading(self) -> None:
        self.reading_paused = True

    def resume_reading(self) -> None:
        self.reading_paused = False


class Handler:
    """Records the messages; may answer each one (``reply``) on its socket and others."""

    def __init__(self, sock: Socket, others: tuple[Socket, ...] = ()) -> None:
        self.sock, self.others = sock, others
        self.messages: list[bytes | str] = []
        self.gone = False

    def message(self, data: bytes | str) -> None:
        self.messages.append(data)
        self.sock.send((b"re:" + (data if isinstance(data, bytes) else data.encode()),))
        for other in self.others:
            other.send((b"fan-out",))

    def lost(self) -> None:
        self.gone = True


class Endpoint:
    async def http(self, socket: Socket, request: Any) -> None:
        return None

    def opened(self, socket: Socket) -> Handler:
        return Handler(socket)


def open_socket(flusher: Flusher) -> tuple[Socket, Transport]:
    """A socket whose WebSocket is open, on a recording transport."""
    sock = Socket(Endpoint(), Gate(Settings(), 100), flusher, ping_interval=None)
    transport = Transport()
    sock.connection_made(transport)
    sock.protocol = ServerProtocol(state=State.OPEN)  # as after the upgrade
    sock.admission.requested()  # no header timer
    return sock, transport


def frame(data: bytes, opcode: Opcode = Opcode.BINARY, fin: bool = True) -> bytes:
    """A client's (masked) frame."""
    return Frame(opcode, data, fin=fin).serialize(mask=True, extensions=[])


def out(*payloads: bytes) -> bytes:
    return b"".join(binary_header(len(d)) + d for d in payloads)


async def test_the_frames_of_one_loop_pass_leave_in_one_write() -> None:
    flusher = Flusher()
    sock, transport = open_socket(flusher)
    sock.send((b"a",))
    sock.send((b"bb", b"c"))
    assert transport.writes == [] and sock.pending == 4
    await asyncio.sleep(0)
    assert transport.writes == [out(b"a", b"bb", b"c")] and sock.pending == 0
    sock.connection_lost(None)


async def test_the_socket_being_read_answers_in_the_same_callback_others_at_the_pass() -> None:
    flusher = Flusher()
    sock, transport = open_socket(flusher)
    other, other_transport = open_socket(flusher)
    handler = Handler(sock, (other,))
    sock.handler = handler
    sock.data_received(frame(b"1") + frame(b"2"))
    assert handler.messages == [b"1", b"2"]
    assert transport.writes == [out(b"re:1", b"re:2")]  # one write, before any loop pass
    assert other_transport.writes == []
    await asyncio.sleep(0)
    assert other_transport.writes == [out(b"fan-out", b"fan-out")]
    sock.connection_lost(None)
    other.connection_lost(None)
    assert handler.gone


async def test_a_fan_out_asks_asyncio_for_no_loop(monkeypatch: pytest.MonkeyPatch) -> None:
    """The frames of a broadcast are written on the socket's own loop:
    ``asyncio.get_running_loop()`` costs a ``getpid(2)`` system call per call (CPython
    3.11), and the flusher is scheduled once per action."""
    flusher = Flusher()
    sock, transport = open_socket(flusher)
    other, other_transport = open_socket(flusher)
    sock.handler = Handler(sock, (other,))
    asked: list[bool] = []
    real = asyncio.get_running_loop
    monkeypatch.setattr(asyncio, "get_running_loop", lambda: asked.append(True) or real())
    sock.data_received(frame(b"1"))
    other.send_later(b"late")
    await asyncio.sleep(0)
    assert transport.writes == [out(b"re:1")]
    assert other_transport.writes == [out(b"fan-out", b"late")]
    assert asked == []
    sock.connection_lost(None)
    other.connection_lost(None)


async def test_later_frames_go_a_batch_of_sockets_per_loop_pass() -> None:
    flusher = Flusher(batch=2)
    pairs = [open_socket(flusher) for _ in range(5)]
    for sock, _ in pairs:
        sock.send_later(b"x")
    written = []
    for _ in range(3):
        await asyncio.sleep(0)
        written.append(sum(1 for _, t in pairs if t.writes))
    assert written == [2, 4, 5]


async def test_a_paused_transport_keeps_the_frames_until_it_resumes() -> None:
    flusher = Flusher()
    sock, transport = open_socket(flusher)
    sock.pause_writing()
    sock.send((b"a",))
    await asyncio.sleep(0)
    sock.send((b"b",))
    await asyncio.sleep(0)
    assert transport.writes == [] and sock.pending == 2
    sock.resume_writing()
    assert transport.writes == [out(b"a", b"b")] and sock.pending == 0


async def test_fragments_and_text_reach_the_handler_whole() -> None:
    sock, _ = open_socket(Flusher())
    handler = Handler(sock)
    sock.handler = handler
    sock.data_received(frame(b"ab", fin=False) + frame(b"cd", Opcode.CONT, fin=False))
    assert handler.messages == []
    sock.data_received(frame(b"e", Opcode.CONT) + frame(b"hi", Opcode.TEXT))
    assert handler.messages == [b"abcde", "hi"]


async def test_a_ping_is_answered_in_order_with_the_replies() -> None:
    sock, transport = open_socket(Flusher())
    sock.handler = Handler(sock)
    sock.data_received(frame(b"1") + frame(b"p", Opcode.PING))
    pong = Frame(Opcode.PONG, b"p").serialize(mask=False, extensions=[])
    assert transport.writes == [pong + out(b"re:1")]  # the protocol's first, one write


async def test_a_close_writes_the_queued_frames_first_or_drops_them() -> None:
    for keep in (True, False):
        sock, transport = open_socket(Flusher())
        sock.pause_writing()  # a slow reader's frames wait here
        sock.send((b"queued",))
        sock.close(4009, "slow", keep=keep)
        close = Frame(Opcode.CLOSE, Close(4009, "slow").serialize()).serialize(
            mask=False, extensions=[])
        assert b"".join(transport.writes) == (out(b"queued") if keep else b"") + close
        assert sock.state is State.CLOSING
        sock.data_received(frame(Close(4009, "slow").serialize(), Opcode.CLOSE))
        assert transport.eof  # the close handshake done: the server half-closes TCP
        sock.connection_lost(None)
        assert sock.lost


async def test_lost_is_set_by_connection_lost_and_a_lost_socket_writes_nothing() -> None:
    # Socket.lost is a flag set when the socket closes (read at every flush: issue #43),
    # not a look at the ``done`` future; once set, frames queued or sent are never written.
    flusher = Flusher()
    sock, transport = open_socket(flusher)
    assert not sock.lost and not sock.done.done()
    sock.send((b"a",))
    sock.flush()
    assert transport.writes == [out(b"a")]
    sock.send((b"b",))
    sock.connection_lost(None)
    assert sock.lost and sock.done.done()
    sock.send((b"c",))
    sock.flush(force=True)
    await asyncio.sleep(0)
    assert transport.writes == [out(b"a")]


async def test_a_flush_with_nothing_queued_writes_nothing() -> None:
    # The end of most reads (the room answers later): no empty writelines.
    sock, transport = open_socket(Flusher())
    sock.flush()
    sock.data_received(frame(b"")[:1])  # half a header: nothing read, nothing to answer
    assert transport.writes == []
    sock.connection_lost(None)
