"""The WebSocket driver: one asyncio protocol per socket, websockets' Sans-I/O core inside.

A :class:`Socket` is what ``loop.create_server`` makes for each accepted connection. It
feeds the bytes it receives to :class:`websockets.server.ServerProtocol` and reads back its
events (``receive_data()``, ``events_received()``): the HTTP request first (answered by the
server: the web app's files, ``/healthz``, ``/metrics``, ``/admin/...``, or the WebSocket
upgrade), then frames. Each whole message is handed to the socket's :class:`Handler` (the
server's :class:`~.connection.Connection`) synchronously, in the callback that read it: no
task, queue or coroutine of the driver's between the socket and the request's handling
(issue #43; ``bench/floor.py`` measures what that saves).

Frames read are parsed here while the WebSocket is open (:meth:`Socket.data_received`): a
whole, final, masked binary frame (RFC 6455 section 5.2, no extension, no fragmented message
under way) is unmasked and handed over without the protocol object, which costs ~10x more
per frame (issue #43); every other frame (text, fragments, pings, pongs, closes, anything
malformed or too large) is fed to the protocol whole, so its parser always starts at a frame
boundary and answers it as websockets does.

Frames to send are collected per socket and written once per loop pass (:class:`Flusher`):
every frame that a pass produced for a socket leaves in one ``transport.writelines``. The
socket being read writes its replies at the end of the callback that read the request.
Keepalive pings, the close handshake and ``max_size`` are the protocol object's, with the
timers here; flow control is the transport's (``pause_writing``/``resume_writing``): while
it is paused, frames wait here, counted (:attr:`Socket.pending`), and the handler decides
when a slow reader has too many waiting (``--max-pending-bytes``).

Admission (connection caps, the header deadline, PROXY headers) is :mod:`.admission`'s;
TLS is the loop's (``create_server(ssl=...)``).
"""

from __future__ import annotations

import asyncio
import collections
import http
import logging
import os
from collections.abc import Awaitable, Sequence
from typing import Any, Final, Protocol

from websockets.extensions.base import ServerExtensionFactory
from websockets.frames import Frame, Opcode
from websockets.http11 import SERVER, Request, Response
from websockets.protocol import State
from websockets.server import ServerProtocol
from websockets.typing import LoggerLike, Origin

from .admission import Admission, Gate

try:  # websockets' C unmasking, as its own frame parser uses it
    from websockets.speedups import apply_mask
except ImportError:  # websockets built without its C extension: its Python one
    from websockets.utils import apply_mask

__all__ = ["Endpoint", "Flusher", "Handler", "Socket", "Transport", "at_frame_start",
           "binary_header"]

log = logging.getLogger("cardhall.driver")

_OPEN: Final = State.OPEN
_CONNECTING: Final = State.CONNECTING
_BINARY: Final = Opcode.BINARY
_TEXT: Final = Opcode.TEXT
_CONT: Final = Opcode.CONT
_PONG: Final = Opcode.PONG
#: Messages a busy handler may leave waiting before the socket stops reading (the rest
#: waits in the kernel's buffers: a flood costs no memory here).
MAX_WAITING = 16

_SHORT_HEADERS: Final = [bytes((0x82, n)) for n in range(126)]
#: The first byte of a final binary frame with no RSV bit: the read path's fast case.
_FIN_BINARY: Final = 0x82
#: The first byte of a pong (final, no RSV bit): read here too, not by the protocol, whose
#: parser costs ~10x more per frame and does nothing with a pong (one per socket per
#: ``ping_interval``: ~1% of the frames a closed loop reads; issue #43).
_FIN_PONG: Final = 0x8A
#: The opcodes RFC 6455 defines (continuation, text, binary, close, ping, pong).
_OPCODES: Final = frozenset((0x0, 0x1, 0x2, 0x8, 0x9, 0xA))


def binary_header(size: int) -> bytes:
    """The header of a final, unmasked binary WebSocket frame (RFC 6455 section 5.2: a
    server's frame, no extension) carrying ``size`` bytes of payload: 2, 4 or 10 bytes."""
    if size < 126:
        return _SHORT_HEADERS[size]
    if size < 1 << 16:
        return b"\x82\x7e" + size.to_bytes(2, "big")
    return b"\x82\x7f" + size.to_bytes(8, "big")


def at_frame_start(protocol: ServerProtocol) -> bool:
    """Whether ``protocol``'s parser holds no byte and waits for the first byte of a frame
    (its innermost generator is the reader's ``at_eof``): only then may the frames that
    follow be read without it (:meth:`Socket._read_frames`). False when a client sent
    bytes of a frame behind its HTTP request before the upgrade was answered (the protocol
    then parses that socket's frames itself), or when websockets' parser is shaped
    otherwise than this checks (the same: slower, never wrong)."""
    if protocol.reader.buffer:
        return False
    gen: Any = protocol.parser
    while getattr(gen, "gi_yieldfrom", None) is not None:
        gen = gen.gi_yieldfrom
    code = getattr(gen, "gi_code", None)
    return code is not None and code.co_name == "at_eof"


class Transport(Protocol):
    """What a socket uses of its asyncio transport (asyncio's, uvloop's, TLS's: typed by
    shape, as a compiled class checks a declared class at run time)."""

    def writelines(self, data: list[bytes]) -> None:
        """Write ``data``, in order."""

    def can_write_eof(self) -> bool:
        """Whether :meth:`write_eof` may be called (not with TLS)."""

    def write_eof(self) -> None:
        """Half-close: nothing more is written."""

    def close(self) -> None:
        """Close once the buffered data is written."""

    def abort(self) -> None:
        """Close now, dropping the buffered data."""

    def pause_reading(self) -> None:
        """Stop calling ``data_received``."""

    def resume_reading(self) -> None:
        """Call ``data_received`` again."""

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        """``peername`` and the like."""


class Handler(Protocol):
    """What a socket hands its messages to once the WebSocket is open (a
    :class:`~.connection.Connection`)."""

    def message(self, data: bytes | str) -> None:
        """Handle one whole message (bytes: binary; str: text), synchronously."""

    def lost(self) -> None:
        """The socket has closed: nothing more is read or written."""


class Endpoint(Protocol):
    """What a socket needs of its server (:class:`~.app.Server`)."""

    def http(self, socket: Socket, request: Request) -> Awaitable[Response | None]:
        """Answer an HTTP request; None lets a WebSocket upgrade go on to the handshake."""

    def opened(self, socket: Socket) -> Handler:
        """A WebSocket is open on ``socket``: the handler of its messages."""


class Flusher:
    """Sockets with frames waiting, written once per loop pass.

    :meth:`due` sockets are all written at the next pass; :meth:`later` ones ``batch`` a
    pass (one broadcast to 1,000 spectators is 1,000 socket writes: between two batches the
    loop reads and answers other requests: issue #35).

    Args:
        batch: Sockets written per pass from the :meth:`later` queue.
    """

    def __init__(self, batch: int = 64) -> None:
        self.batch = batch
        self._due: list[Socket] = []
        self._later: collections.deque[Socket] = collections.deque()
        self._scheduled = False

    def due(self, socket: Socket) -> None:
        """Write ``socket``'s frames at the next pass of its loop."""
        self._due.append(socket)
        if not self._scheduled:
            self._schedule(socket.loop)

    def later(self, socket: Socket) -> None:
        """Write ``socket``'s frames within a few passes of its loop."""
        self._later.append(socket)
        if not self._scheduled:
            self._schedule(socket.loop)

    def _schedule(self, loop: asyncio.AbstractEventLoop) -> None:
        # the socket's loop, not asyncio.get_running_loop(): that makes a getpid(2) system
        # call on every call (CPython 3.11), and this runs once per action
        self._scheduled = True
        loop.call_soon(self.run, loop)

    def run(self, loop: asyncio.AbstractEventLoop) -> None:
        """Write every due socket, and a batch of the later ones (``loop`` calls it)."""
        self._scheduled = False
        due, self._due = self._due, []
        for socket in due:
            socket.flush()
        later = self._later
        for _ in range(min(self.batch, len(later))):
            later.popleft().flush()
        if later or self._due:
            self._schedule(loop)


class Socket:
    """One accepted connection: an asyncio protocol (``loop.create_server`` calls its
    ``connection_made``, ``data_received``... by name) driving a websockets
    :class:`ServerProtocol`.

    Args:
        server: Answers HTTP and makes the handler once the WebSocket is open.
        gate: Admission counts and limits (:class:`~.admission.Admission`).
        flusher: Writes queued frames once per loop pass.
        origins: Accepted ``Origin`` headers (None: any); a missing header is accepted when
            None is among them.
        extensions: websockets' server extensions (permessage-deflate), or None.
        max_size: Largest incoming message, bytes (close 1009 beyond it).
        ping_interval: Seconds between keepalive pings; None: no pings.
        ping_timeout: Seconds a ping waits for its pong before the connection is closed
            with 1011; None: forever.
        close_timeout: Seconds the TCP close may take once the close handshake is done or
            begun before the socket is aborted.
        logger: websockets' logger for this connection.

    Attributes:
        protocol: websockets' Sans-I/O protocol object.
        transport: The asyncio transport (None until ``connection_made``).
        request: The HTTP request, once it has arrived.
        handler: Who handles the messages (None until the WebSocket is open).
        paused: The transport asked for no more writes (its buffer is full).
        pending: Bytes of frames waiting to be written.
        done: Resolved once the socket is closed (``connection_lost``).
        loop: The event loop it was accepted on (it runs there until it closes).
    """

    def __init__(self, server: Endpoint, gate: Gate, flusher: Flusher, *,
                 origins: list[Origin | None] | None = None,
                 extensions: Sequence[ServerExtensionFactory] | None = None,
                 max_size: int | None = 65536, ping_interval: float | None = 20.0,
                 ping_timeout: float | None = 20.0, close_timeout: float = 2.0,
                 logger: LoggerLike | None = None) -> None:
        self.server = server
        self.flusher = flusher
        self.protocol = ServerProtocol(
            origins=origins, extensions=extensions, max_size=max_size,
            logger=logging.LoggerAdapter(logger or log, {"websocket": self}))
        self.admission = Admission(gate, self._requested)
        self.transport: Transport | None = None
        self.request: Request | None = None
        self.handler: Handler | None = None
        self.paused = False
        self.pending = 0
        self.loop = asyncio.get_running_loop()
        self.done: asyncio.Future[None] = self.loop.create_future()
        self._out: list[bytes] = []
        self._gone = False  # closed (connection_lost): :attr:`lost`, read without a call
        self._queued = False  # in the flusher's lists (or being read: written at its end)
        self._reading = False
        self._extended = False  # frames go through the protocol (extensions: compression)
        self._fragments: list[bytes] | None = None
        self._text = False
        self._early: list[bytes | str] = []  # messages read before the handler existed
        self._ping_interval = ping_interval
        self._ping_timeout = ping_timeout
        self._close_timeout = close_timeout
        self._ping_data = b""
        self._ping_timer: asyncio.TimerHandle | None = None
        self._pong_timer: asyncio.TimerHandle | None = None
        self._close_timer: asyncio.TimerHandle | None = None
        self._read_paused = False
        self._partial = bytearray()  # the start of a frame not whole yet (open WebSocket)
        self._needed = 0  # its whole length once its header is in (0: not known yet)
        self._fast = False  # frames read by _read_frames (set once the WebSocket opens)

    # -- what the handler and the server read ----------------------------------------------

    @property
    def remote_address(self) -> Any:
        """The client's ``(host, port)``: from the PROXY header on a connection through a
        trusted proxy, else the socket's other end (None without a transport)."""
        client = self.admission.client
        if client is not None:
            return client
        return None if self.transport is None else self.transport.get_extra_info("peername")

    @property
    def state(self) -> State:
        """The WebSocket's state (websockets' ``State``: CONNECTING .. CLOSED)."""
        return self.protocol.state

    @property
    def close_code(self) -> int | None:
        """The close code received or sent (websockets' rule), None while open."""
        return self.protocol.close_code

    @property
    def lost(self) -> bool:
        """Whether the socket has closed (``connection_lost``)."""
        return self._gone

    def respond(self, status: http.HTTPStatus, text: str) -> Response:
        """A plain-text HTTP response with ``status`` (websockets' ``reject``)."""
        return self.protocol.reject(status, text)

    # -- sending ------------------------------------------------------------------------------

    def send(self, frames: tuple[bytes, ...]) -> int:
        """Queue binary ``frames`` to be written, in order, at the end of this loop pass.

        Returns:
            The bytes waiting to be written now (:attr:`pending`).
        """
        self._out.extend(frames)
        size = self.pending
        for frame in frames:
            size += len(frame)
        self.pending = size
        if not self._queued:
            self._queued = True
            if not self._reading:
                self.flusher.due(self)
        return size

    def send_later(self, frame: bytes) -> int:
        """Queue ``frame`` as :meth:`send` does, to be written within a few loop passes
        (:meth:`Flusher.later`) unless other frames are written first."""
        self._out.append(frame)
        self.pending += len(frame)
        if not self._queued:
            self._queued = True
            if not self._reading:
                self.flusher.later(self)
        return self.pending

    def discard(self) -> None:
        """Drop the frames not written yet."""
        self._out = []
        self.pending = 0

    def flush(self, force: bool = False) -> None:
        """Write what the protocol has to send (pongs, close frames) and the queued frames,
        in one ``writelines``. While the transport is paused the queued frames wait (unless
        ``force``); once the WebSocket is not open they are dropped."""
        self._queued = False
        transport = self.transport
        if transport is None or self._gone:
            return
        protocol = self.protocol
        frames = self._out
        if protocol.writes:
            out = protocol.data_to_send()
        elif not frames:
            return  # nothing to write (the end of most reads)
        else:
            out = []
        eof = bool(out) and not out[-1]  # b"": the protocol's end of stream, always last
        if eof:
            out.pop()
        if frames and (force or not self.paused):
            self._out = []
            self.pending = 0
            if protocol.state is _OPEN:
                if self._extended:
                    for frame in frames:
                        protocol.send_binary(frame)
                    out += protocol.data_to_send()
                else:
                    for frame in frames:
                        size = len(frame)
                        out.append(_SHORT_HEADERS[size] if size < 126 else binary_header(size))
                        out.append(frame)
        if out:
            transport.writelines(out)
        if eof:
            self._end()

    def _end(self) -> None:
        """The protocol's end of stream: half-close (TCP) or close (TLS) the transport."""
        transport = self.transport
        assert transport is not None
        if transport.can_write_eof():
            try:
                transport.write_eof()
            except (OSError, RuntimeError):  # uvloop raises RuntimeError once closing
                transport.close()
        else:
            transport.close()

    def close(self, code: int, reason: str, *, keep: bool = True) -> None:
        """Begin the close handshake with ``code``: after the queued frames (written even
        to a paused transport) when ``keep``, else dropping them. A socket whose WebSocket
        is not open yet is closed at once."""
        if self._gone or self.transport is None:
            return
        if self.protocol.state is _OPEN:
            if not keep:
                self.discard()
            self.flush(force=True)
            self.protocol.send_close(code, reason)
            self.flush()
            self._closing()
        elif self.protocol.state is _CONNECTING:
            self.transport.close()

    def abort(self) -> None:
        """Reset the connection now (nothing more is written)."""
        if self.transport is not None and not self._gone:
            self.transport.abort()

    def pause_reading(self) -> None:
        """Stop reading the socket (a busy handler has enough messages waiting)."""
        if not self._read_paused and self.transport is not None and not self._gone:
            self._read_paused = True
            self.transport.pause_reading()

    def resume_reading(self) -> None:
        """Read the socket again."""
        if self._read_paused and self.transport is not None and not self._gone:
            self._read_paused = False
            self.transport.resume_reading()

    def _closing(self) -> None:
        """Abort the transport ``close_timeout`` seconds after a close was begun or
        answered, when the peer has not closed it by then."""
        if self._close_timer is None and self.protocol.close_expected():
            self._close_timer = self.loop.call_later(
                self._close_timeout, self.abort)

    # -- asyncio protocol callbacks --------------------------------------------------------

    def connection_made(self, transport: Transport) -> None:
        """Admit the socket (:meth:`Admission.made`), or abort it."""
        self.transport = transport
        self.admission.made(transport)

    def data_received(self, data: bytes) -> None:
        """Read ``data``: frames of the open WebSocket through :meth:`_read_frames`, the
        rest fed to the protocol; hand the messages over, then write once."""
        if self.admission.client is None:  # a PROXY header may be due
            data = self.admission.received(data)
            if not data:
                return
        protocol = self.protocol
        self._reading = True
        try:
            if self._fast and protocol.state is _OPEN:
                partial = self._partial
                if not partial:
                    self._read_frames(data)
                else:  # appended in place: a frame sent a byte at a time costs linear time
                    partial += data
                    if len(partial) >= self._needed:
                        self._partial = bytearray()
                        self._read_frames(bytes(partial))
            else:
                if self._partial:  # the WebSocket closed since: the protocol discards it
                    data = bytes(self._partial) + data
                    self._partial = bytearray()
                self._feed(data)
        finally:
            self._reading = False
        self.flush()
        if protocol.state is not _OPEN:
            self._closing()

    def _feed(self, data: bytes) -> None:
        """Feed ``data`` to the protocol and handle the events it parsed."""
        protocol = self.protocol
        protocol.receive_data(data)
        for event in protocol.events_received():
            if type(event) is Frame:
                self._frame(event)
            else:
                assert isinstance(event, Request)
                self._request(event)

    def _read_frames(self, data: bytes) -> None:
        """Take the whole frames at the start of ``data`` (the open WebSocket's bytes): a
        final, masked binary frame no larger than ``max_size`` while no fragmented message
        is under way goes to the handler here, and so is a pong (final, at most 125 bytes:
        the keepalive's answer when it carries the ping's data); any other frame is fed to
        the protocol whole (:meth:`_feed`). A frame not whole yet waits in :attr:`_partial`,
        unless its first bytes are enough for the protocol to refuse it (an unknown opcode,
        no mask, a size past ``max_size``): fed at once, so it closes as early as it would
        alone. Stops feeding once the WebSocket is no longer open (the protocol discards the
        rest)."""
        protocol = self.protocol
        end = len(data)
        at = 0
        self._needed = 0
        while at < end:
            if protocol.state is not _OPEN:
                self._feed(data[at:])
                return
            if end - at < 2:
                break
            first, second = data[at], data[at + 1]
            if (first & 0x0F) not in _OPCODES or not second & 0x80:
                self._feed(data[at:])  # refused from its first two bytes
                return
            size = second & 0x7F
            head = 2
            if size == 126:
                head = 4
                if end - at < 4:
                    break
                size = (data[at + 2] << 8) | data[at + 3]
            elif size == 127:
                head = 10
                if end - at < 10:
                    break
                size = int.from_bytes(data[at + 2:at + 10], "big")
            head += 4  # the mask
            whole = at + head + size
            max_size = protocol.max_message_size
            if max_size is not None and protocol.current_size is not None:
                max_size -= protocol.current_size
            if max_size is not None and size > max_size:
                self._feed(data[at:])  # the protocol refuses it from its header
                return
            if whole > end:
                self._needed = whole - at
                break
            if first == _FIN_BINARY and protocol.current_size is None:
                self._deliver(apply_mask(data[at + head:whole], data[at + head - 4:at + head]))
            elif first == _FIN_PONG and size <= 125:  # a keepalive's answer, as _frame reads it
                if apply_mask(data[at + head:whole], data[at + head - 4:at + head]) \
                        == self._ping_data:
                    self._pong()
            else:
                self._feed(data[at:whole])
            at = whole
        if at < end:
            self._partial = bytearray(data[at:])

    def eof_received(self) -> None:
        """The peer closed its side: the protocol ends; the transport closes."""
        self.protocol.receive_eof()
        self.protocol.events_received()
        self.flush()

    def pause_writing(self) -> None:
        """The transport's buffer is full: frames wait here."""
        self.paused = True

    def resume_writing(self) -> None:
        """The transport takes data again: write what waits."""
        self.paused = False
        self.flush()

    def connection_lost(self, exc: Exception | None) -> None:
        """The socket closed: stop the timers, give the admission counts back, tell the
        handler."""
        self.protocol.receive_eof()
        for timer in (self._ping_timer, self._pong_timer, self._close_timer):
            if timer is not None:
                timer.cancel()
        self._ping_timer = self._pong_timer = self._close_timer = None
        self._out = []
        self.pending = 0
        self.admission.lost()
        self._gone = True
        if not self.done.done():
            self.done.set_result(None)
        handler = self.handler
        if handler is not None:
            handler.lost()

    # -- reading ------------------------------------------------------------------------------

    def _frame(self, frame: Frame) -> None:
        """A frame the protocol parsed: a whole message goes to the handler; fragments are
        joined; a pong ends the keepalive wait (pings and closes the protocol answers)."""
        opcode = frame.opcode
        if opcode is _BINARY or opcode is _TEXT:
            if frame.fin:
                data = frame.data
                if type(data) is not bytes:
                    data = bytes(data)
                self._deliver(data.decode() if opcode is _TEXT else data)
            else:
                self._fragments = [bytes(frame.data)]
                self._text = opcode is _TEXT
        elif opcode is _CONT:
            fragments = self._fragments
            if fragments is None:
                return  # the protocol refuses a stray continuation itself
            fragments.append(bytes(frame.data))
            if frame.fin:
                self._fragments = None
                data = b"".join(fragments)
                self._deliver(data.decode() if self._text else data)
        elif opcode is _PONG and frame.data == self._ping_data:
            self._pong()

    def _deliver(self, data: bytes | str) -> None:
        handler = self.handler
        if handler is None:
            self._early.append(data)  # sent before the upgrade's answer: kept for the handler
        else:
            handler.message(data)

    def _requested(self) -> bool:
        return self.request is not None

    def _request(self, request: Request) -> None:
        """The HTTP request: answered by the server, in a task (the admin API and the
        metrics may wait for the store)."""
        self.request = request
        self.admission.requested()
        self.loop.create_task(self._answer(request))

    async def _answer(self, request: Request) -> None:
        protocol = self.protocol
        try:
            response = await self.server.http(self, request)
        except Exception as exc:  # noqa: BLE001 - our bug: a 500, logged, as websockets does
            protocol.handshake_exc = exc
            log.error("process_request failed", exc_info=True)
            response = protocol.reject(http.HTTPStatus.INTERNAL_SERVER_ERROR,
                                       "Failed to open a WebSocket connection.\n"
                                       "See server log for more information.\n")
        if response is None:
            response = protocol.accept(request)
        response.headers["Server"] = SERVER
        if self._gone or protocol.state is not _CONNECTING:
            return
        protocol.send_response(response)
        if response.status_code == 101:  # the protocol is OPEN
            self._extended = bool(protocol.extensions)
            self._fast = not self._extended and not protocol.debug and at_frame_start(protocol)
            self.handler = self.server.opened(self)
            if self._ping_interval is not None:
                self._ping_timer = self.loop.call_later(
                    self._ping_interval, self._ping)
            early, self._early = self._early, []
            self._reading = True
            try:
                for data in early:
                    self.handler.message(data)
            finally:
                self._reading = False
        self.flush()
        self._closing()

    # -- keepalive ----------------------------------------------------------------------------

    def _ping(self) -> None:
        """Send a keepalive ping; the pong is awaited ``ping_timeout`` seconds."""
        self._ping_timer = None
        if self._gone or self.protocol.state is not _OPEN:
            return
        self._ping_data = os.urandom(4)
        self.protocol.send_ping(self._ping_data)
        self.flush()
        loop = self.loop
        if self._ping_timeout is None:
            assert self._ping_interval is not None
            self._ping_timer = loop.call_later(self._ping_interval, self._ping)
        else:
            self._pong_timer = loop.call_later(self._ping_timeout, self._pong_missed)

    def _pong(self) -> None:
        """The keepalive pong: the next ping after ``ping_interval``."""
        self._ping_data = b""
        if self._pong_timer is not None:
            self._pong_timer.cancel()
            self._pong_timer = None
            assert self._ping_interval is not None
            self._ping_timer = self.loop.call_later(
                self._ping_interval, self._ping)

    def _pong_missed(self) -> None:
        """No pong in time: close with 1011, as websockets' keepalive does."""
        self._pong_timer = None
        if self._gone or self.protocol.state is not _OPEN:
            return
        self.protocol.fail(1011, "keepalive ping timeout")
        self.flush()
        self._closing()
