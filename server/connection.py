"""One client connection: the handshake, request dispatch, and a bounded outgoing queue.

Requests are read by the connection's task (``async for frame in ws``), one at a time. With
a store that answers at once (memory, SQLite: :attr:`Store.answers_at_once`), a frame that
arrives while that reader is idle is handled at once in websockets' protocol callback that
parsed it instead (:meth:`Connection._frame_now`): an ``act`` is applied, stored and its
updates written before the callback returns, with no queue and no task to wake (issue #23,
benchmarks/RESULTS.md); one that waits (the SQLite store's group commit) goes on in a task
from there.

Faults are split as h11 does (DESIGN "Protocol"): a client's malformed frame gets an error reply
(and, after ``max_bad_frames`` of them, a close with 4000); a refused request gets an error
reply with its namespaced code; anything else is our bug, logged and answered with
``server/internal`` — never with a traceback.
"""

from __future__ import annotations

import asyncio
import collections
import functools
import logging
import secrets
from typing import Final, Protocol

from mypy_extensions import mypyc_attr
from websockets.asyncio.server import ServerConnection
from websockets.server import ServerProtocol
from websockets.exceptions import ConnectionClosed
from websockets.protocol import State

from .. import protocol as p
from .account_store import AccountStore
from .admission import AdmittedConnection
from .auth import Auth, anonymous_name
from .cluster import Cluster
from .config import Settings
from .limits import KeyedBuckets, TokenBucket
from .visibility import Lookups
from .lobby import Lobby
from .logs import event
from .metrics import Metrics
from .room import Room
from .session import Session
from .store import Store
from .tasks import cancel_until_done, start_eagerly

log = logging.getLogger("cardhall.connection")

CLOSE_PROTOCOL = 4000
CLOSE_HELLO_TIMEOUT = 4001
CLOSE_RATE_LIMIT = 4008
CLOSE_SLOW_READER = 4009
_OPEN: Final = State.OPEN  # Final: a C static in the compiled build, read per write
#: Close codes logged at INFO (ordinary client trouble); the others at WARNING (abuse).
_ROUTINE_CLOSES = frozenset({1009, CLOSE_HELLO_TIMEOUT, 4002})


_SHORT_HEADERS: Final = [bytes((0x82, n)) for n in range(126)]


def binary_header(size: int) -> bytes:
    """The header of a final, unmasked binary WebSocket frame (RFC 6455 section 5.2: a
    server's frame, no extension) carrying ``size`` bytes of payload: 2, 4 or 10 bytes."""
    if size < 126:
        return _SHORT_HEADERS[size]
    if size < 1 << 16:
        return b"\x82\x7e" + size.to_bytes(2, "big")
    return b"\x82\x7f" + size.to_bytes(8, "big")


def peer_address(ws: ServerConnection) -> str:
    """The client's IP address (``"?"`` when the socket has none, e.g. a Unix socket)."""
    try:
        return str(ws.remote_address[0])
    except (TypeError, IndexError, OSError):
        return "?"


class Lane:
    """Frames for many connections, written a batch of connections per loop iteration
    (:meth:`Connection.send_later`): a broadcast to 1,000 spectators is 1,000 socket
    writes, and between two batches the loop reads and answers other requests (a player's
    next action) instead of waiting for all of them (issue #35).

    Args:
        batch: Connections written per loop iteration.
    """

    def __init__(self, batch: int = 64) -> None:
        self.batch = batch
        self._conns: collections.deque[Connection] = collections.deque()
        self._scheduled = False

    def add(self, conn: Connection) -> None:
        """Have ``conn``'s queued frames written within a few loop iterations."""
        self._conns.append(conn)
        if not self._scheduled:
            self._scheduled = True
            asyncio.get_running_loop().call_soon(self._drain)

    def _drain(self) -> None:
        self._scheduled = False
        conns = self._conns
        for _ in range(min(self.batch, len(conns))):
            conns.popleft().flush_later()
        if conns:
            self._scheduled = True
            asyncio.get_running_loop().call_soon(self._drain)


class Hub(Protocol):
    """What a connection needs of its server (:class:`~cardhall.server.app.Server`),
    declared here so that connections do not import the app: its ``settings`` (limits),
    ``store``, ``lobby``, ``cluster`` and the open connections by session id
    (``sessions``)."""

    settings: Settings
    store: Store
    lobby: Lobby
    cluster: Cluster
    sessions: dict[str, Connection]
    metrics: Metrics
    #: New rooms per creator key (``rooms_per_minute_per_address``); None: no such limit.
    creators: KeyedBuckets | None
    #: Writes frames queued by :meth:`Connection.send_later`.
    lane: Lane
    auth: Auth
    accounts: AccountStore
    lookups: Lookups  # failed look-ups of rooms (:mod:`.visibility`)


# Compiled (setup.py); subclassed by tests (:attr:`Server.connection_class`).
@mypyc_attr(allow_interpreted_subclasses=True)
class Connection(Session):
    """A client connection on the server (its requests are handled by :class:`Session`).

    Args:
        server: The server it belongs to.
        ws: The websockets connection.

    Attributes:
        session: Random session id (16 hex characters), also the host identity of rooms it
            creates.
        account: The id of the account it is signed in to (``""``: none, an anonymous
            guest): see :mod:`.auth`.
        name: That account's display name, or the anonymous guest's (``Guest-`` and six
            characters of the session id).
        software: The client software its hello named (``hello.client``).
        rooms: Rooms this connection is seated in or watching, by id.
    """

    def __init__(self, server: Hub, ws: ServerConnection) -> None:
        self.server = server
        #: The same server, typed as what a connection needs of it (:class:`Hub`; the
        #: ``server`` of :class:`Session` is what a session needs of it).
        self.hub = server
        self.ws = ws
        self.session_id = secrets.token_hex(8)
        self.process = server.store.process_id
        self.remote_rooms: set[str] = set()
        self.account = self.login = ""
        self.name = anonymous_name(self.session_id)
        self.software = ""
        self.rooms: dict[str, Room] = {}
        self.bad_frames = 0
        self.closed = False
        self._out: collections.deque[bytes] = collections.deque()
        self._pending = 0
        self._writer: asyncio.Task[None] | None = None  # runs only while there is output
        self._laned = False  # frames queued by send_later wait for the server's Lane
        self._close_with: tuple[int, str] | None = None
        #: A request handled in the protocol callback that is still waiting (see
        #: :meth:`_frame_now`): later frames wait for it.
        self._inflight: asyncio.Task[None] | None = None
        self._frame_task = f"frame-{self.session_id}"  # its name (built once, not per frame)
        #: What :meth:`_write_now` reads of ``ws`` on every write and what never changes
        #: once the connection is open: its Sans-I/O protocol, its transport, and whether
        #: frames need the protocol's serializer (extensions, debug logging). Read at the
        #: first write (attribute reads of a cold Python object: ~1 us per write before).
        self._protocol: ServerProtocol | None = None
        self._transport: asyncio.Transport | None = None
        self._extended = False
        # Abuse limits (see Settings): messages/s, refusals before 4008, rooms/minute.
        s = server.settings
        self.addr = peer_address(ws)
        self.refused = 0
        self._bucket = TokenBucket(s.msg_rate, s.msg_burst) if s.msg_rate else None
        self._strikes = TokenBucket(s.max_rate_strikes / s.rate_strike_window,
                                    s.max_rate_strikes)
        self._room_bucket = (TokenBucket(s.rooms_per_minute / 60.0, s.rooms_per_minute)
                             if s.rooms_per_minute else None)
        self._chat_bucket = TokenBucket(s.chat_rate, s.chat_burst) if s.chat_rate else None

    # -- sending ---------------------------------------------------------------------------

    def send(self, msg: p.Message) -> None:
        """Queue ``msg`` for this client without waiting.

        A client whose queued bytes exceed ``max_pending_bytes`` is a slow reader: it is
        closed with 4009 rather than buffered without bound.
        """
        if not self.closed:
            self.send_raw(p.encode(msg))

    def send_raw(self, *frames: bytes) -> None:
        """Queue encoded frames, in order (:meth:`send` after encoding; a broadcast packs its
        frames itself; frames relayed from another server process arrive encoded).

        Written at once, in one socket write, when nothing is queued ahead of them and the
        transport takes data (:meth:`_write_now`); else queued for the writer task.
        """
        if self.closed or (not self._out and self._write_now(frames)):
            return
        self._pending += sum(map(len, frames))
        if self._pending > self.hub.settings.max_pending_bytes:
            log.warning("slow reader dropped session=%s pending=%d", self.session_id, self._pending)
            self._abort(CLOSE_SLOW_READER, "slow reader: too many bytes pending", flush=False)
            return
        self._out.extend(frames)
        if not self._laned:  # the lane writes what is queued (in order) without a task
            self._start_writer()

    def send_later(self, frame: bytes) -> None:
        """Queue ``frame`` behind any frame queued already, to be written by the server's
        :class:`Lane` within a few loop iterations (one of a broadcast to many spectators);
        frames sent meanwhile queue behind it. Counted against ``max_pending_bytes`` as a
        queued frame is."""
        if self.closed:
            return
        self._pending += len(frame)
        if self._pending > self.hub.settings.max_pending_bytes:
            log.warning("slow reader dropped session=%s pending=%d", self.session_id, self._pending)
            self._abort(CLOSE_SLOW_READER, "slow reader: too many bytes pending", flush=False)
            return
        self._out.append(frame)
        if not self._laned and (self._writer is None or self._writer.done()):
            self._laned = True
            self.hub.lane.add(self)

    def flush_later(self) -> None:
        """Write what :meth:`send_later` queued (the :class:`Lane` calls it): at once when
        the socket takes it, else through the writer task."""
        self._laned = False
        if self.closed or not self._out or (self._writer is not None
                                             and not self._writer.done()):
            return
        frames = tuple(self._out)
        if self._write_now(frames):
            self._out.clear()
            self._pending -= sum(map(len, frames))
        else:
            self._start_writer()

    def _write_now(self, frames: tuple[bytes, ...]) -> bool:
        """Write ``frames`` to the socket now when ``ws.send`` would not wait: no writer
        task of ours running, the connection open, the transport not paused for flow control.

        That is what ``await ws.send(frame)`` does on that path (websockets' Sans-I/O
        ``protocol.send_binary``, then its bytes to the transport), without a task per frame,
        and with the frames of one call in one ``transport.writelines`` (an ``ok`` and the
        acting seat's ``update`` leave in one segment). On a connection without extensions
        (no compression) the frame header is :func:`binary_header` written ahead of the
        payload as it is, after anything the protocol object had queued (a pong), instead
        of a websockets ``Frame`` serialized per frame: the same bytes. Returns False (the
        caller queues them) otherwise, or when this websockets version lacks the attributes
        read here.
        """
        if self._writer is not None and not self._writer.done():
            return False
        ws = self.ws
        try:
            protocol, transport = self._protocol, self._transport
            if protocol is None or transport is None:  # read once: fixed after the handshake
                protocol, transport = ws.protocol, ws.transport
                self._protocol, self._transport = protocol, transport
                self._extended = bool(protocol.extensions or protocol.debug)
            if (ws.send_in_progress is not None or ws.paused or protocol.state is not _OPEN
                    or transport.is_closing()):
                return False
            plain = not (self._extended or protocol.expect_continuation_frame)
        except AttributeError:  # another websockets version: the writer task does it
            return False
        if plain:
            out = protocol.data_to_send() if protocol.writes else []
            for data in frames:
                out.append(binary_header(len(data)))
                out.append(data)
        else:
            for data in frames:
                protocol.send_binary(data)
            out = protocol.data_to_send()
        # Only data frames were added to an OPEN connection: no EOF marker (b"") among them.
        transport.writelines(out)
        return True

    def _start_writer(self) -> None:
        # A writer task exists only while there is something to write: an idle connection
        # holds no task (about 1-2 KiB less per idle connection).
        if self._writer is None or self._writer.done():
            self._writer = asyncio.get_running_loop().create_task(self._write())

    async def _write(self) -> None:
        """The only task that writes to the socket: queued frames in order, then any close;
        it ends when the queue is empty."""
        try:
            while self._out:
                data = self._out.popleft()
                await self.ws.send(data)
                self._pending -= len(data)
            if self._close_with is not None:
                await self.ws.close(*self._close_with)
        except ConnectionClosed:
            pass

    def _abort(self, code: int, reason: str, *, flush: bool = True) -> None:
        """Stop accepting frames to send and close with ``code`` once the queued ones (or,
        with ``flush=False``, none of them) are written; abort the socket if that has not
        ended ``close_grace`` seconds later."""
        if self.closed:
            return
        self.closed = True
        self.hub.metrics.closed(code)
        event(log, logging.INFO if code in _ROUTINE_CLOSES else logging.WARNING, "conn_closing",
              session=self.session_id, addr=self.addr, code=code, reason=reason)
        if not flush:
            self._out.clear()
        self._close_with = (code, reason)
        self._start_writer()
        # A client that reads nothing would keep the writer in ws.send()'s drain, and the
        # socket open with its buffers full, until it went away: after close_grace the
        # transport is aborted, whatever the writer is doing.
        asyncio.get_running_loop().call_later(self.hub.settings.close_grace,
                                              self._close_deadline)

    def close_with(self, code: int, reason: str) -> None:
        """Close the connection with ``code`` once the frames queued for it are written
        (e.g. 1012 when the server drains: :mod:`.admin`); its socket is aborted if the
        close has not ended ``close_grace`` seconds later."""
        self._abort(code, reason)

    def _close_deadline(self) -> None:
        """Abort the socket when the close begun by :meth:`_abort` has not ended within
        ``close_grace`` seconds (a reset; the client may never see the close frame)."""
        ws = self.ws
        if ws.connection_lost_waiter.done():
            return
        code = self._close_with[0] if self._close_with is not None else None
        event(log, logging.WARNING, "conn_aborted", session=self.session_id, addr=self.addr,
              code=code, reason="not closed within close_grace")
        ws.transport.abort()

    # -- the connection's life ----------------------------------------------------------------

    async def run(self) -> None:
        """Serve the connection until it closes: hello first, then requests in order."""
        self.hub.sessions[self.session_id] = self
        try:
            if (await self._handshake() and isinstance(self.ws, AdmittedConnection)
                    and self.hub.store.answers_at_once):
                self.ws.frame_handler = self._frame_now
            async for frame in self.ws:
                if self._inflight is not None:  # an earlier frame is still being handled
                    await asyncio.wait({self._inflight})
                # Once closing, frames still coming are read and dropped: a paused reader
                # would never see the client's close frame (the close would hang until
                # close_timeout and end as 1006 instead of our code).
                if not self.closed:
                    await self._frame(frame)
        except ConnectionClosed:
            pass
        finally:
            if isinstance(self.ws, AdmittedConnection):
                self.ws.frame_handler = None
            inflight = self._inflight
            if inflight is not None and not inflight.done():  # let it end as a reader's would
                me = asyncio.current_task()
                if me is not None and me.cancelling():
                    await cancel_until_done(inflight)
                else:
                    await asyncio.wait({inflight})
            self.closed = True
            self.hub.sessions.pop(self.session_id, None)
            self.hub.auth.unbind(self)
            for room in list(self.rooms.values()):
                room.post(functools.partial(room.dropped, self))
            self.rooms.clear()
            self.hub.cluster.local_closed(self)
            if self._writer is not None:
                if self._close_with is not None:  # let the writer flush and close
                    try:
                        async with asyncio.timeout(5):
                            await self._writer
                    except TimeoutError:
                        pass
                await cancel_until_done(self._writer)

    async def _handshake(self) -> bool:
        settings = self.hub.settings
        hs = p.ServerHandshake(server=settings.server_name, session=self.session_id,
                               max_frame=settings.max_frame)
        try:
            async with asyncio.timeout(settings.hello_timeout):
                while not hs.done:
                    frame = await self.ws.recv()
                    if not self._admit():
                        await self._refuse(frame)
                        if self.closed:
                            return False
                        continue
                    try:
                        msg = p.decode(frame, side="client", max_size=settings.max_frame)
                        welcome = hs.receive(msg)
                    except p.ProtocolError as exc:
                        if not self._bad(exc):
                            return False
                        continue
                    if welcome is not None:
                        assert isinstance(msg, p.Hello)
                        self.software = msg.client
                        self.act_reply = msg.act_reply or "ok"
                        self.send(welcome)
        except TimeoutError:
            self._abort(CLOSE_HELLO_TIMEOUT, "no hello in time")
            return False
        return True

    def _bad(self, exc: p.ProtocolError) -> bool:
        """Answer a protocol error; returns False when the connection is being closed."""
        self.send(p.error_reply(exc))
        if exc.close_code is not None:
            self._abort(exc.close_code, exc.code)
            return False
        self.bad_frames += 1
        if self.bad_frames > self.hub.settings.max_bad_frames:
            log.warning("closing session=%s after %d bad frames", self.session_id, self.bad_frames)
            self._abort(CLOSE_PROTOCOL, "too many bad frames")
            return False
        return True

    def _admit(self) -> bool:
        """Take a token for a frame from this connection's message bucket (``msg_rate``).

        Returns:
            True when the frame may be decoded and handled; False when the bucket is empty
            (the caller then refuses the frame: :meth:`_refuse`).
        """
        bucket = self._bucket
        return bucket is None or bucket.take()

    async def _refuse(self, frame: bytes | str) -> None:
        """Refuse ``frame`` for want of a token: ``rate/limited`` (echoing its ``id`` when it
        has a valid one). The refusal is a strike, and a connection out of strikes
        (``max_rate_strikes`` within ``rate_strike_window``) is closed with 4008. After a
        refusal the reader sleeps until the bucket holds a token again, so a flood costs the
        server one refused frame per token, not one per frame sent (the rest waits in the
        socket buffers)."""
        bucket = self._bucket
        assert bucket is not None
        s = self.hub.settings
        self.refused += 1
        self.hub.metrics.rate_limited.inc()
        try:
            re = p.reply_id(p.decode(frame, side="client", max_size=s.max_frame))
        except p.ProtocolError as exc:
            re = exc.re
        self.send_error("rate/limited", f"more than {s.msg_rate:g} messages/s (burst "
                        f"{s.msg_burst}); slow down", re)
        if not self._strikes.take():
            self._abort(CLOSE_RATE_LIMIT, "rate limit: too many messages")
            return
        if self.refused == 1:
            event(log, logging.INFO, "rate_limited", session=self.session_id, addr=self.addr,
                  code="rate/limited")
        await asyncio.sleep(bucket.wait_time())

    def creator(self) -> str:
        """Whose allowance of new rooms a ``create_room`` or ``quick_join`` of this
        connection spends (``rooms_per_minute_per_address``): ``"acct:ID"``, the registered
        account it is signed in to (players behind one address each have theirs), else
        ``"addr:KEY"``, the key of the client's address (:attr:`address_key`; behind a
        trusted proxy, of the one its PROXY header named): a guest account spends its
        address's (guests are made on demand: one each must not be a fresh allowance)."""
        if self.account and not self.guest:
            return f"acct:{self.account}"
        return f"addr:{self.address_key}"

    def _may_create(self, msg: p.Message) -> bool:
        """Apply ``rooms_per_minute`` (this connection's) and
        ``rooms_per_minute_per_address`` (all connections of its :meth:`creator`'s) to
        ``create_room`` and ``quick_join`` (which may create a room); a request beyond
        either is answered with ``room/limit``.

        Returns:
            True when the request may be handled.
        """
        if not isinstance(msg, (p.CreateRoom, p.QuickJoin)):
            return True
        s = self.hub.settings
        bucket = self._room_bucket
        if bucket is not None and not bucket.take():
            why = f"at most {s.rooms_per_minute} new rooms a minute per connection"
        elif (creators := self.hub.creators) is not None and not creators.take(
                self.creator()):
            why = (f"at most {s.rooms_per_minute_per_address} new rooms a minute from one "
                   "address")
        else:
            return True
        self.hub.metrics.room_refused("rate")
        self.send_error("room/limit", why, p.reply_id(msg))
        event(log, logging.INFO, "room_limited", session=self.session_id, addr=self.addr,
              code="room/limit", request=msg.TYPE)
        return False

    def _may_chat(self, msg: p.Message) -> bool:
        """Apply ``chat_rate`` to ``chat`` (lines and emotes); a line beyond it is answered
        with ``rate/limited`` (not a strike: the connection is not closed for chatting).

        Returns:
            True when the request may be handled.
        """
        bucket = self._chat_bucket
        if bucket is None or type(msg) is not p.Chat or bucket.take():
            return True
        s = self.hub.settings
        self.send_error("rate/limited", f"at most {s.chat_rate:g} chat lines a second (burst "
                        f"{s.chat_burst}): wait {bucket.wait_time():.1f} s", p.reply_id(msg))
        return False

    def _frame_now(self, frame: bytes) -> bool:
        """Handle ``frame`` (a whole binary message) at once, in websockets' protocol
        callback that parsed it, while this connection's reader waits for the next message
        (:meth:`AdmittedConnection.process_event`): with a store that never waits
        (:attr:`Store.answers_at_once`), a request is answered without a trip round the
        loop (an ``act`` in an idle room: applied, stored and its updates written). A
        request that must wait (a busy room, a rate-limit pause) goes on in a task, and
        the frames after it wait for that task.

        Returns:
            False when the frame is left to the reader: the connection is closing, or an
            earlier frame is still being handled. True otherwise.
        """
        inflight = self._inflight
        if self.closed or (inflight is not None and not inflight.done()):
            return False
        try:
            task = start_eagerly(self._frame(frame), self._frame_task)
        except Exception as exc:  # _frame answers every failure itself: a bug of ours
            self._frame_failed(exc)
            return True
        if task is not None:
            task.add_done_callback(self._frame_done)
        self._inflight = task
        return True

    def _frame_done(self, task: asyncio.Task[None]) -> None:
        """The task of a frame :meth:`_frame_now` began has ended: report a failure."""
        if not task.cancelled() and (exc := task.exception()) is not None:
            self._frame_failed(exc)

    def _frame_failed(self, exc: BaseException) -> None:
        """A frame's handling raised (a bug: :meth:`_frame` answers every request's failure
        itself): log it and close with 1011, as websockets does when the reader fails."""
        log.error("bug handling a frame session=%s", self.session_id, exc_info=exc)
        self._abort(1011, "internal error")

    async def _frame(self, frame: bytes | str) -> None:
        if not self._admit():
            await self._refuse(frame)
            return
        try:
            msg = p.decode(frame, side="client", max_size=self.hub.settings.max_frame)
        except p.ProtocolError as exc:
            self._bad(exc)
            return
        if not self._may_create(msg) or not self._may_chat(msg):
            return
        await self.handle(msg)
