"""One client connection: the hello, request dispatch, and what goes out to the socket.

The socket's driver (:class:`~.driver.Socket`, on websockets' Sans-I/O core) hands each
whole message to :meth:`Connection.message` in the callback that read it. A request is
handled there with plain calls: admission (the message rate), decoding, the abuse limits,
then the request's handler, run at once up to its first wait (:func:`~.tasks.start_eagerly`).
An ``act`` in an idle room with a store that answers at once (memory, SQLite:
:attr:`Store.answers_at_once`) is applied, stored and its updates queued before the callback
returns, with no task (issue #23, issue #43); one that must wait (the SQLite store's group
commit, a busy room) goes on in a task from there, and the connection's later messages wait
for it, in order. With a store that needs a task of its own (Redis: redis-py reads under
``asyncio.timeout``) every request runs in a task. Frames go out through the socket: one
``writelines`` per socket per loop pass (:class:`~.driver.Flusher`).

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
from collections.abc import Coroutine
from typing import Any, Final, Protocol

from mypy_extensions import mypyc_attr

from .. import protocol as p
from .accounts.account_store import AccountStore
from .accounts.auth import Auth, anonymous_name
from .cluster import Cluster
from .config import Settings
from .driver import MAX_WAITING, Socket, binary_header
from .limits import KeyedBuckets, TokenBucket
from .visibility import Lookups
from .lobby import Lobby
from .logs import event
from .metrics import Metrics
from .room import Room, dropped
from .session import Session
from .store.ports import Store
from .tasks import start_eagerly

__all__ = ["CLOSE_HELLO_TIMEOUT", "CLOSE_PROTOCOL", "CLOSE_RATE_LIMIT", "CLOSE_SLOW_READER",
           "Connection", "Hub", "binary_header", "peer_address"]

log = logging.getLogger("cardhall.connection")

CLOSE_PROTOCOL = 4000
CLOSE_HELLO_TIMEOUT = 4001
CLOSE_RATE_LIMIT = 4008
CLOSE_SLOW_READER = 4009
#: Close codes logged at INFO (ordinary client trouble); the others at WARNING (abuse).
_ROUTINE_CLOSES = frozenset({1009, CLOSE_HELLO_TIMEOUT, 4002})
#: The act's record, a C static in the compiled build (``p.Act`` reads the package's
#: attribute per frame).
_ACT: Final = p.Act


def peer_address(ws: Any) -> str:
    """The client's IP address from ``ws.remote_address`` (a :class:`~.driver.Socket`'s:
    behind a trusted proxy, the one its PROXY header named); ``"?"`` when it has none."""
    try:
        return str(ws.remote_address[0])
    except (TypeError, IndexError, OSError, AttributeError):
        return "?"


class Hub(Protocol):
    """What a connection needs of its server (:class:`~cardhall.server.app.Server`),
    declared here so that connections do not import the app: its ``settings`` (limits),
    ``store``, ``lobby``, ``cluster``, the open connections (``connections``) and by session
    id (``sessions``)."""

    settings: Settings
    store: Store
    lobby: Lobby
    cluster: Cluster
    connections: set[Connection]
    sessions: dict[str, Connection]
    metrics: Metrics
    #: New rooms per creator key (``rooms_per_minute_per_address``); None: no such limit.
    creators: KeyedBuckets | None
    auth: Auth
    accounts: AccountStore
    lookups: Lookups  # failed look-ups of rooms (:mod:`.visibility`)
    queue: Any  # rated play's queue (:class:`~.rated_queue.RatedQueue`, a layer above)


# Compiled (setup.py); subclassed by tests (:attr:`Server.connection_class`).
@mypyc_attr(allow_interpreted_subclasses=True)
class Connection(Session):
    """A client connection on the server (its requests are handled by :class:`Session`).

    Made by the server when a WebSocket opens on ``ws`` (:meth:`Server.opened`), which then
    calls :meth:`opened`; the socket calls :meth:`message` for each message and
    :meth:`lost` once it has closed.

    Args:
        server: The server it belongs to.
        ws: The socket's driver.

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

    def __init__(self, server: Hub, ws: Socket) -> None:
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
        self._close_with: tuple[int, str] | None = None
        self._hello: p.ServerHandshake | None = None  # until the hello is answered
        self._hello_timer: asyncio.TimerHandle | None = None
        #: A request that waits (see :meth:`message`); the messages behind it wait for it.
        self._inflight: asyncio.Task[None] | None = None
        self._inflight_act: p.Act | None = None  # when it is an act run without handle()
        self._waiting: collections.deque[bytes | str] = collections.deque()
        self._eager = server.store.answers_at_once
        self._frame_task = f"frame-{self.session_id}"  # its name (built once, not per frame)
        self._max_pending = server.settings.max_pending_bytes
        self._max_frame = server.settings.max_frame  # read per frame: read once (frozen)
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

    @property
    def _pending(self) -> int:
        """Bytes queued for this client and not written yet."""
        return self.ws.pending

    def send(self, msg: p.Message) -> None:
        """Queue ``msg`` for this client without waiting.

        A client whose queued bytes exceed ``max_pending_bytes`` is a slow reader: it is
        closed with 4009 rather than buffered without bound.
        """
        if not self.closed:
            self.send_raw(p.encode(msg))

    def send_raw(self, *frames: bytes) -> None:
        """Queue encoded frames, in order (:meth:`send` after encoding; a broadcast packs its
        frames itself; frames relayed from another server process arrive encoded): written
        with every other frame of this loop pass in one socket write (:meth:`Socket.send`).
        """
        if not self.closed and self.ws.send(frames) > self._max_pending and self.ws.paused:
            self._slow()

    def send_later(self, frame: bytes) -> None:
        """Queue ``frame`` behind any frame queued already, to be written within a few loop
        passes (one of a broadcast to many spectators: :meth:`Flusher.later`); counted
        against ``max_pending_bytes`` as any queued frame is."""
        if not self.closed and self.ws.send_later(frame) > self._max_pending and self.ws.paused:
            self._slow()

    def push(self) -> None:
        """Write the queued frames now (:meth:`Socket.flush`) rather than at the end of the
        loop pass or of the callback reading this client's request: the acting seat's
        reply leaves before the rest of its broadcast is built (issue #43). While the
        transport is paused they keep waiting."""
        if not self.closed:
            self.ws.flush()

    def _slow(self) -> None:
        log.warning("slow reader dropped session=%s pending=%d", self.session_id,
                    self.ws.pending)
        self._abort(CLOSE_SLOW_READER, "slow reader: too many bytes pending", flush=False)

    def _abort(self, code: int, reason: str, *, flush: bool = True) -> None:
        """Stop accepting frames to send and close with ``code`` after the queued ones (or,
        with ``flush=False``, none of them); abort the socket if the close has not ended
        ``close_grace`` seconds later."""
        if self.closed:
            return
        self.closed = True
        self.hub.metrics.closed(code)
        event(log, logging.INFO if code in _ROUTINE_CLOSES else logging.WARNING, "conn_closing",
              session=self.session_id, addr=self.addr, code=code, reason=reason)
        self._close_with = (code, reason)
        self._waiting.clear()
        self.ws.close(code, reason, keep=flush)
        # A client that reads nothing would keep the socket open with its buffers full
        # until it went away: after close_grace the transport is aborted.
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
        if self.ws.lost:
            return
        code = self._close_with[0] if self._close_with is not None else None
        event(log, logging.WARNING, "conn_aborted", session=self.session_id, addr=self.addr,
              code=code, reason="not closed within close_grace")
        self.ws.abort()

    # -- the connection's life ----------------------------------------------------------------

    def opened(self) -> None:
        """The WebSocket is open: count the connection and wait ``hello_timeout`` seconds
        for its hello."""
        self.hub.sessions[self.session_id] = self
        s = self.hub.settings
        self._hello = p.ServerHandshake(server=s.server_name, session=self.session_id,
                                        max_frame=s.max_frame)
        self._hello_timer = asyncio.get_running_loop().call_later(s.hello_timeout,
                                                                  self._hello_expired)

    def _hello_expired(self) -> None:
        self._hello_timer = None
        if self._hello is not None:
            self._abort(CLOSE_HELLO_TIMEOUT, "no hello in time")

    def lost(self) -> None:
        """The socket has closed: leave the rooms (once a request still running has ended,
        as it would have in the reader's task) and forget the connection."""
        self.closed = True
        self._waiting.clear()
        if self._hello_timer is not None:
            self._hello_timer.cancel()
            self._hello_timer = None
        inflight = self._inflight
        if inflight is not None and not inflight.done():
            inflight.add_done_callback(lambda _: self._forget())
        else:
            self._forget()

    def _forget(self) -> None:
        """Drop the connection from the server, its sign-in and its rooms."""
        self.hub.sessions.pop(self.session_id, None)
        self.hub.auth.unbind(self)
        for room in list(self.rooms.values()):
            room.post(functools.partial(dropped, room, self))
        self.rooms.clear()
        self.hub.cluster.local_closed(self)
        self.hub.connections.discard(self)

    async def finished(self) -> None:
        """Wait for the request still running when the socket closed (server shutdown)."""
        inflight = self._inflight
        if inflight is not None and not inflight.done():
            await asyncio.wait({inflight})

    # -- reading ------------------------------------------------------------------------------

    def message(self, data: bytes | str) -> None:
        """Handle one whole message from the socket, now: plain calls up to the request's
        first wait. While an earlier request waits, the message waits behind it (in order;
        the socket stops reading once :data:`~.driver.MAX_WAITING` messages wait)."""
        if self.closed:
            return  # once closing, frames still coming are read and dropped
        inflight = self._inflight
        if inflight is not None or self._waiting:
            self._waiting.append(data)
            if len(self._waiting) >= MAX_WAITING:
                self.ws.pause_reading()
            return
        self._frame(data)

    def _frame(self, data: bytes | str) -> None:
        """Handle ``data``; a request that waits is kept as :attr:`_inflight`."""
        try:
            task = self._request(data)
        except Exception as exc:  # every request's failure is answered: a bug of ours
            self._frame_failed(exc)
            return
        if task is not None:
            self._inflight = task
            task.add_done_callback(self._frame_done)
        else:
            self._inflight_act = None

    def _frame_done(self, task: asyncio.Task[None]) -> None:
        """The request that waited has ended: answer its failure, then handle the messages
        that waited behind it."""
        self._inflight = None
        act, self._inflight_act = self._inflight_act, None
        if not task.cancelled() and (exc := task.exception()) is not None:
            if act is not None and isinstance(exc, Exception):
                self.refusal(exc, act)
            else:
                self._frame_failed(exc)
        waiting = self._waiting
        while waiting and self._inflight is None and not self.closed:
            self._frame(waiting.popleft())
        if not waiting:
            self.ws.resume_reading()

    def _frame_failed(self, exc: BaseException) -> None:
        """A message's handling raised (a bug: every request's failure is answered by
        :meth:`Session.refusal`): log it and close with 1011, as websockets does when the
        reader fails."""
        log.error("bug handling a frame session=%s", self.session_id, exc_info=exc)
        self._abort(1011, "internal error")

    def _go(self, coro: Coroutine[Any, Any, None]) -> asyncio.Task[None] | None:
        """Run ``coro`` now up to its first wait (a store that answers at once), or in a
        task (one that needs a task of its own: Redis)."""
        if self._eager:
            return start_eagerly(coro, self._frame_task)
        return asyncio.get_running_loop().create_task(coro, name=self._frame_task)

    def _request(self, data: bytes | str) -> asyncio.Task[None] | None:
        """Admit, decode and handle one message; returns the task it goes on in when it
        waits (None when it is done)."""
        if not self._admit():
            return self._refuse(data)
        try:
            msg = p.decode(data, side="client", max_size=self._max_frame)
        except p.ProtocolError as exc:
            self._bad(exc)
            return None
        hello = self._hello
        if hello is not None:
            self._greet(hello, msg)
            return None
        if type(msg) is _ACT:  # the hot path: an action in a room of this process
            # (no room limit or chat limit applies to an act: _may_create, _may_chat)
            room_id = msg.room
            room = self.rooms.get(room_id)
            if room is not None and self.hub.lobby.rooms.get(room_id) is room:
                try:
                    if self._eager:  # as plain calls when the room is idle (Room.act_now)
                        rest = room.act_now(self, msg)
                        task = None if rest is None else start_eagerly(rest, self._frame_task)
                    else:  # redis-py needs a task of its own from the start
                        task = self._go(room.play(self, msg))
                except Exception as exc:  # refused, or the store failed: answered
                    self.refusal(exc, msg)
                    return None
                self._inflight_act = msg
                return task
        elif not self._may_create(msg) or not self._may_chat(msg):
            return None
        return self._go(self.handle(msg))

    def _greet(self, hello: p.ServerHandshake, msg: p.Message) -> None:
        """The hello: answered with ``welcome`` (or a protocol error)."""
        try:
            welcome = hello.receive(msg)
        except p.ProtocolError as exc:
            self._bad(exc)
            return
        if welcome is not None:
            assert isinstance(msg, p.Hello)
            self.software = msg.client
            self.wire = msg.v
            # version 2: an accepted act is answered by the actor's update unless asked
            self.act_reply = msg.act_reply or ("update" if msg.v >= 2 else "ok")
            self.send(welcome)
        if hello.done:
            self._hello = None
            if self._hello_timer is not None:
                self._hello_timer.cancel()
                self._hello_timer = None

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

    def _refuse(self, frame: bytes | str) -> asyncio.Task[None] | None:
        """Refuse ``frame`` for want of a token: ``rate/limited`` (echoing its ``id`` when it
        has a valid one). The refusal is a strike, and a connection out of strikes
        (``max_rate_strikes`` within ``rate_strike_window``) is closed with 4008. After a
        refusal the connection's later messages wait until the bucket holds a token again
        (the task returned), so a flood costs the server one refused frame per token, not
        one per frame sent (the rest waits in the socket buffers)."""
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
            return None
        if self.refused == 1:
            event(log, logging.INFO, "rate_limited", session=self.session_id, addr=self.addr,
                  code="rate/limited")
        return asyncio.get_running_loop().create_task(asyncio.sleep(bucket.wait_time()))

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
