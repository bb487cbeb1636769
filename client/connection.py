"""A client's connection to a Cardhall server: one WebSocket at a time, kept up across drops.

:class:`Connection` is the part of :class:`~cardhall.client.client.Client` below the
protocol's requests (which are ``Client``'s methods): the hello, signing in, reconnection,
requests matched to their replies, the views kept (deltas applied) and the pushes queued.

It signs in after the hello when it is given a way (protocol/README.md "Accounts"): a
guest device secret, an access token (and its refresh token), a username and password, or
an operator's JWT; with none it plays as an anonymous guest. ``name`` is the display name it
asks for (:meth:`Client.set_name`). It keeps each room's current view (applying deltas),
remembers seat tokens, and, when the connection drops, reconnects (to the next URL when given
several) with exponential backoff, signs in again (with its access token, refreshed when it
expired) and resumes every held seat and spectated room. A seat the server took for
disconnected while the connection is up (a ``seat_event dropped`` for the client's own
seat, or a request refused with ``room/not_seated`` in a room it holds a token for) is
resumed too, and the refused request sent again once. A resume refused for now (a failover
under way: ``server/unavailable``), or a room's spectate after a reconnection, is asked
again with backoff.
"""

from __future__ import annotations

import asyncio
import collections
import copy
import dataclasses
import itertools
import logging
import secrets
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from typing import Any, Self

import websockets
from tenacity import (
    AsyncRetrying,
    RetryCallState,
    retry_if_exception,
    retry_if_exception_type,
    stop_after_attempt,
    stop_after_delay,
    wait_exponential,
    wait_exponential_jitter,
)
from websockets.asyncio.client import ClientConnection
from websockets.exceptions import ConnectionClosed

from .. import protocol as p

log = logging.getLogger("cardhall.client")

#: ``hello.client`` of this client library.
SOFTWARE = "cardhall-python/0.1"
#: Seconds a closing handshake may take before the socket is dropped (a stuck server never
#: answers it; websockets' default is 10 s).
CLOSE_TIMEOUT = 2.0


def new_device_secret() -> str:
    """A new guest device secret: 32 random bytes, URL-safe base64 (43 characters). Keep it:
    the same secret signs in to the same guest account."""
    return secrets.token_urlsafe(32)


#: Server pushes that ``updates()`` yields.
Push = p.Update | p.SeatEvent | p.GameOver | p.Left | p.Started | p.ChatLines
#: Chat lines a client keeps per room (:attr:`Client.chat`).
CHAT_KEPT = 200
#: Refusals that mean "not now" rather than "not this": the store is down or a room reloads
#: (``server/unavailable``), or the message rate is spent (``rate/limited``). A patient
#: request (:func:`patiently`) asks again after a pause.
BUSY_CODES = frozenset({"server/unavailable", "rate/limited"})
#: Most tries of one patient request, the first included (the waits between them: 0.05 s
#: doubling up to 2 s, about 9 s in all).
PATIENT_ATTEMPTS = 10


class ServerError(Exception):
    """The server answered a request with an ``error``.

    Attributes:
        code: Namespaced error code, e.g. ``"action/stale_state"``.
        message: The server's explanation.
    """

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


def patiently(seconds: float, *, attempts: int | None = PATIENT_ATTEMPTS,
              codes: frozenset[str] = BUSY_CODES, unanswered: bool = False,
              before_sleep: Callable[[RetryCallState], None] | None = None) -> AsyncRetrying:
    """The client's one retry policy for a request the server refused for now (tenacity):
    asked again while the refusal's code is one of ``codes`` (with ``unanswered``, also
    after a try that got no reply in time, ``TimeoutError``), after an exponential backoff
    with jitter (0.05 s doubling up to 2 s, plus up to 0.05 s), at most ``attempts`` tries
    and ``seconds`` seconds; then the last refusal is raised. Any other error is raised at
    once.

    ::

        async for attempt in patiently(30.0):
            with attempt:
                reply = await conn.request(msg)

    Args:
        seconds: Most seconds from the first try to the last (the last try's own wait for a
            reply not counted).
        attempts: Most tries, the first included (:data:`PATIENT_ATTEMPTS`); None: only
            ``seconds`` bounds them.
        codes: The ``error`` codes asked again.
        unanswered: Ask again after a ``TimeoutError`` too: only for a request the server
            may get twice with the same outcome (a ``resume``, a ``spectate``).
        before_sleep: Called before each pause with tenacity's state (``attempt_number``
            from 1, ``next_action.sleep`` in seconds, ``outcome``).
    """
    return AsyncRetrying(
        wait=wait_exponential_jitter(multiplier=0.05, max=2.0, jitter=0.05),
        stop=(stop_after_delay(seconds) if attempts is None
              else stop_after_attempt(attempts) | stop_after_delay(seconds)),
        retry=retry_if_exception(lambda e: (isinstance(e, ServerError) and e.code in codes)
                                 or (unanswered and isinstance(e, TimeoutError))),
        before_sleep=before_sleep, reraise=True)


class ConnectionLost(Exception):
    """The connection dropped while a request was in flight (it may or may not have been
    applied: retry with the same ``state_id`` to be safe)."""


class _NotSent(ConnectionLost):
    """The request could not be sent at all: the connection was already closed."""


class Connection:
    """A client's connection to a Cardhall server, kept up across drops (use as an async
    context manager): the hello, signing in, reconnection and resumes, requests matched to
    their replies, the views kept and the pushes queued. :class:`~.client.Client` adds the
    protocol's requests as methods.

    Args:
        urls: One ``ws://`` URL or several; reconnection moves on to the next one.
        name: The display name to take once connected (signed in or not: see
            :meth:`set_name`); a name the server refuses (another account holds one like it)
            is logged and the server's name kept. None: the server's name.
        software: The client software's name and version, sent as ``hello.client``.
        guest: A device secret (at least 22 characters; :func:`new_device_secret`): sign in
            to the guest account it names (made the first time).
        token: An access token: sign in with it (``restore``).
        refresh: Its refresh token: traded for a new pair when ``token`` has expired.
        username: With ``password``: sign in (``login``), or with ``register`` register
            (upgrading the ``guest`` account when one is given too).
        password: The password of ``username``.
        register: Register ``username`` and ``password`` instead of logging in (once: later
            connections use the access token).
        jwt: An operator's JWT to sign in with (``login`` with ``jwt``).
        device: The remembered-device token an earlier ``account`` reply gave for
            ``username`` (sent with its ``login``: a guesser elsewhere does not lock this
            device out); each password sign-in replaces it (:attr:`device`).
        on_account: Called with every ``account`` reply (new tokens included), to keep the
            tokens (``cardhall play`` writes them to its state folder).
        reconnect: Reconnect and resume seats when the connection drops.
        reconnect_timeout: Seconds to keep trying to reconnect before giving up.
        request_timeout: Seconds to wait for a reply before raising ``TimeoutError``.
        resume_timeout: Seconds to wait for the reply to a seat's ``resume`` (or a room's
            ``spectate``) after a reconnection or a dropped seat before asking again (the
            room's server may stall while another takes its room over, and the request
            sent to the stalled one is never answered); several tries fit in
            ``reconnect_timeout``.
        max_frame: Largest frame accepted from the server, in bytes (None: no limit).
        keep_records: Keep every view this client is sent (the full views and deltas it
            applied, per room), so that :meth:`game_record` can show ``cardhall verify``
            what the player saw. Off by default: a long game's deltas take some memory.
        on_connection: Called (in the event loop) as the connection comes and goes, with
            an event name and a map of facts: ``"lost"`` (the connection dropped; the client
            reconnects), ``"retry"`` after each failed reconnection attempt (``attempt``
            number from 1, ``wait`` seconds before the next one, ``error`` text),
            ``"back"`` (reconnected and the seats resumed, or tried: ``url``, and
            ``lost_rooms``, the rooms whose seat or watch could not be taken back),
            ``"gave_up"`` (``error``), and ``"busy"`` before a patient request is asked
            again (:meth:`Client.request_patiently`: ``request``, ``code``, ``attempt``,
            ``wait``). None: nobody is told.
        act_reply: ``hello.act_reply``: ``"update"`` (default) has an accepted action
            answered by this seat's update carrying the act's id, one frame instead of an
            ``ok`` and the update; ``"ok"`` asks for the ``ok``. :meth:`act` works with both
            (with ``"update"`` the view is already updated when it returns).
        ping_interval: Seconds between the liveness pings (WebSocket pings) the client sends
            (2). A server that does not answer one within ``ping_timeout`` seconds (4) is
            taken for stuck (a paused or wedged process keeps the socket open): the
            connection is dropped, and with ``reconnect`` on, the client reconnects (to the
            next URL, or through the proxy) and resumes its seats, within seconds rather
            than whenever the process wakes. None: no pings.
        ping_timeout: See ``ping_interval`` (None: wait for a pong for ever).
        open_timeout: Seconds a connection attempt (TCP, WebSocket handshake and hello) may
            take before the next URL is tried (5): a paused server accepts TCP connections
            and never answers them.

    Attributes:
        account: The last ``account`` reply (who the client is signed in as), or None.
        name: The display name the server gave the connection.
        token: The access token held (None: none).
        device: The remembered-device token held (None: none), the last an ``account``
            reply brought.
        views: The current view of each room this client is in, by room id.
        seats: ``room -> (seat, token)`` for every seat held.
        session_id: The server's session id of the current connection (``welcome.session``).
        commitments: The deal commitment of each room, as first published (in ``started``
            or a view's room facts), by room id; kept even if the server changes it later.
        reveals: The ``game_over`` of each finished room (with the revealed seed and salt),
            by room id.
        seat_resumes: Seats taken back that the server had dropped while this client was
            connected (see the module docstring).
        chat: The chat lines of each room (maps as in ``chat_lines``: ``n``, ``seat``,
            ``name``, ``at`` and ``text`` or ``emote``), oldest first, the last
            :data:`CHAT_KEPT`, without repeats (a resume's history is merged by ``n``).
        muted: Names whose chat lines this client hides (a mute for oneself only: the
            lines still arrive, :attr:`chat` keeps them, :meth:`chat_lines` leaves them
            out).
    """

    def __init__(self, urls: str | Sequence[str], *, name: str | None = None,
                 software: str = SOFTWARE, guest: str | None = None,
                 token: str | None = None, refresh: str | None = None,
                 username: str | None = None, password: str | None = None,
                 register: bool = False, jwt: str | None = None, device: str | None = None,
                 on_account: Callable[[p.Account], None] | None = None,
                 reconnect: bool = True, reconnect_timeout: float = 30.0,
                 request_timeout: float = 30.0, resume_timeout: float = 10.0,
                 max_frame: int | None = 1 << 20,
                 keep_records: bool = False,
                 on_connection: Callable[[str, dict[str, Any]], None] | None = None,
                 act_reply: str = "update", ping_interval: float | None = 2.0,
                 ping_timeout: float | None = 4.0, open_timeout: float = 5.0) -> None:
        self.on_connection = on_connection
        self.urls = [urls] if isinstance(urls, str) else list(urls)
        if not self.urls:
            raise ValueError("at least one URL is needed")
        if (username is None) != (password is None):
            raise ValueError("give username and password together")
        self.wanted_name = name
        self.name = ""
        self.software = software
        self.guest_secret = guest
        self.token, self.refresh_token = token, refresh
        self.username, self.password, self._register = username, password, register
        self.jwt = jwt
        self.device = device
        self.on_account = on_account
        self.account: p.Account | None = None
        self.reconnect = reconnect
        self.reconnect_timeout = reconnect_timeout
        self.request_timeout = request_timeout
        self.resume_timeout = resume_timeout
        self.max_frame = max_frame
        self.act_reply = act_reply
        self.ping_interval, self.ping_timeout = ping_interval, ping_timeout
        self.open_timeout = open_timeout
        self.views: dict[str, dict[str, Any]] = {}
        self.seats: dict[str, tuple[int, str]] = {}
        self.spectating: set[str] = set()
        self.commitments: dict[str, str] = {}
        self.reveals: dict[str, p.GameOver] = {}
        self.chat: dict[str, collections.deque[dict[str, Any]]] = {}
        self.muted: set[str] = set()
        self.keep_records = keep_records
        #: Per room: ``[state_id, "view" or "delta", map]`` for every view or delta applied.
        self._seen: dict[str, list[list[Any]]] = {}
        self._joined_as: dict[str, int | None] = {}  # seat of the last joined, by room
        self.session_id = ""
        self.url = self.urls[0]
        self._url_cycle = itertools.cycle(self.urls)
        self._ws: ClientConnection | None = None
        self._ids = itertools.count(1)
        self._pending: dict[int, asyncio.Future[p.Message]] = {}
        self._pushes: asyncio.Queue[Push | None] = asyncio.Queue()
        self._reader: asyncio.Task[None] | None = None
        self._closing = False
        self._desynced: set[str] = set()
        self._recovering: asyncio.Task[None] | None = None
        # Set while requests may go out: cleared when the connection drops, set again once
        # the seats and rooms were resumed (or the client gave up), so that no request
        # reaches a new connection ahead of the resumes (an act before its seat's resume
        # would be refused as room/not_seated).
        self._ready = asyncio.Event()
        self.reconnects = 0
        #: The last unsolicited ``error`` messages (no ``re``), newest last: e.g.
        #: ``room/closed`` or ``room/kicked`` before an unsolicited ``left``.
        self.notices: collections.deque[p.Error] = collections.deque(maxlen=32)
        #: Resumes of seats the server dropped while connected (one per room at a time).
        self._resuming: dict[str, asyncio.Task[bool]] = {}
        self.seat_resumes = 0
        #: ``matched`` messages of rated play's queue, in arrival order (``Client.matched``).
        self.matches: asyncio.Queue[p.Matched] = asyncio.Queue()
        #: Updates ignored as older than the view held (see :meth:`_stale`).
        self.stale_updates = 0

    # -- connection ----------------------------------------------------------------------

    async def __aenter__(self) -> Self:
        await self.connect()
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.close()

    async def connect(self) -> None:
        """Connect to the first URL that answers and complete the hello.

        Raises:
            OSError / websockets errors: no URL could be reached.
            ServerError: the server refused the hello (e.g. ``protocol/version``).
        """
        last: BaseException | None = None
        for _ in range(len(self.urls)):
            url = next(self._url_cycle)
            try:
                await self._open(url)
                await self._sign_in()
                self._ready.set()
                return
            except (OSError, websockets.exceptions.WebSocketException, TimeoutError) as exc:
                last = exc
        assert last is not None
        raise last

    async def _open(self, url: str) -> None:
        ws = await websockets.connect(
            url, compression=None, max_size=self.max_frame, open_timeout=self.open_timeout,
            ping_interval=self.ping_interval, ping_timeout=self.ping_timeout,
            # A stuck server answers no close frame either: give it up after CLOSE_TIMEOUT.
            close_timeout=CLOSE_TIMEOUT)
        await ws.send(p.encode(p.Hello(v=p.PROTOCOL_VERSION, client=self.software, id=0,
                                       act_reply=self.act_reply)))
        async with asyncio.timeout(self.open_timeout):
            reply = p.decode(await ws.recv(), side="server", max_size=self.max_frame)
        if isinstance(reply, p.Error):
            await ws.close()
            raise ServerError(reply.code, reply.message)
        if not isinstance(reply, p.Welcome):
            await ws.close()
            raise ServerError("protocol/unexpected", f"expected welcome, got {reply.TYPE}")
        if self._closing:  # close() was called while this connection was being opened
            await ws.close()
            raise ConnectionLost("client closed")
        self._ws, self.url, self.session_id = ws, url, reply.session
        self.name = "Guest-" + reply.session[:6].upper()  # the spec's anonymous name
        self._reader = asyncio.get_running_loop().create_task(self._read(ws))

    async def _sign_in(self) -> None:
        """Sign in the way the client was given (see the class docstring), then ask for
        its display name. Run on every (re)connection, before anything else is sent.

        Raises:
            ServerError: the server refused the sign-in (``auth/*``); ``auth/expired`` when
                the client had an access token and no other way in, and it expired.
        """
        had_token = self.token is not None
        reply = await self._restore() if had_token else None
        if reply is None:
            reply = await self._sign_in_afresh()
        if reply is None and had_token:
            raise ServerError("auth/expired", "the access token (and its refresh token) "
                              "expired or was revoked: sign in again")
        if reply is not None:
            self._signed_in(reply)
        if self.wanted_name and self.wanted_name != self.name:
            try:
                self._signed_in(await self._request(p.SetName(name=self.wanted_name)))
            except ServerError as exc:  # another account holds it: keep the server's name
                log.info("name %r refused: %s", self.wanted_name, exc)
                self.wanted_name = None  # not asked again on reconnections

    async def _sign_in_afresh(self) -> p.Message | None:
        """Sign in with the username and password, the JWT or the device secret, whichever
        the client has (None: it has none, and plays as an anonymous guest).

        Raises:
            ServerError: the server refused the sign-in.
        """
        if self.username is not None and self.password is not None:
            if self._register:
                return await self._request(p.Register(username=self.username,
                                                      password=self.password))
            return await self._request(p.Login(username=self.username, password=self.password,
                                               device=self.device))
        if self.jwt is not None:
            return await self._request(p.Login(jwt=self.jwt))
        if self.guest_secret is not None:
            return await self._request(p.Guest(secret=self.guest_secret))
        return None

    async def _restore(self) -> p.Message | None:
        """``restore`` the access token, or ``refresh`` it when it expired; None (and the
        tokens forgotten) when both expired or were revoked.

        Raises:
            ServerError: the server refused them otherwise (``auth/banned``, say).
        """
        assert self.token is not None
        for msg in (p.Restore(token=self.token),
                    p.Refresh(token=self.refresh_token) if self.refresh_token else None):
            if msg is None:
                break
            try:
                return await self._request(msg)
            except ServerError as exc:
                if exc.code != "auth/expired":
                    raise
        self.token = self.refresh_token = None
        return None

    def _signed_in(self, reply: p.Message) -> None:
        """Keep what an ``account`` reply says (new tokens replace the old ones)."""
        assert isinstance(reply, p.Account)
        self.account, self.name = reply, reply.name
        if reply.token is not None:
            self.token, self.refresh_token = reply.token, reply.refresh
            self._register = False  # registered: later connections restore the sign-in
        if reply.device is not None:
            self.device = reply.device
        if self.on_account is not None:
            try:
                self.on_account(reply)
            except Exception:  # the callback's bug must not stop the sign-in
                log.exception("on_account callback failed")

    async def close(self) -> None:
        """Close the connection (seats are held by the server for their grace window)."""
        self._closing = True
        self._ready.set()  # requests waiting for a recovery fail now (ConnectionLost)
        if self._recovering is not None:
            self._recovering.cancel()
            try:
                await self._recovering
            except (asyncio.CancelledError, Exception):
                pass
        if self._ws is not None:
            await self._ws.close()
        if self._reader is not None:
            self._reader.cancel()
            try:
                await self._reader
            except (asyncio.CancelledError, Exception):
                pass
        for task in list(self._resuming.values()):
            task.cancel()
        if self._resuming:
            await asyncio.gather(*self._resuming.values(), return_exceptions=True)
        self._fail_pending(ConnectionLost("client closed"))
        self._pushes.put_nowait(None)

    async def drop(self) -> None:
        """Cut the connection abruptly, as a network failure would (for tests and drills);
        with ``reconnect`` on, the client then reconnects and resumes its seats."""
        if self._ws is not None:
            self._ws.transport.abort()

    async def _refetch(self, room: str) -> None:
        """Fetch the full view of ``room`` after a missed update; asked again with backoff
        while the room answers ``server/unavailable`` (it reloads after a failed write), for
        at most ``reconnect_timeout`` seconds (:func:`patiently`)."""
        try:
            async for attempt in patiently(self.reconnect_timeout, attempts=None,
                                           codes=frozenset({"server/unavailable"})):
                with attempt:
                    await self.request(p.GetView(room=room))
        except (ServerError, ConnectionLost, TimeoutError) as exc:
            log.warning("could not fetch the view of room %s again: %s", room, exc)

    def _fail_pending(self, exc: BaseException) -> None:
        """Fail every request waiting for its reply with ``exc``. Each future's exception
        is marked retrieved: its caller still gets it, but a caller cancelled in the same
        moment (a timeout, an app that stops when the connection drops) never reads it,
        and asyncio would log "Future exception was never retrieved" for each."""
        for fut in self._pending.values():
            if not fut.done():
                fut.set_exception(exc)
                fut.exception()
        self._pending.clear()

    async def _read(self, ws: ClientConnection) -> None:
        try:
            async for frame in ws:
                msg = p.decode(frame, side="server", max_size=self.max_frame)
                self._dispatch(msg)
        except ConnectionClosed:
            pass
        except p.ProtocolError as exc:
            log.error("server sent a bad frame: %s", exc)
            await ws.close(4000, "bad frame from server")
        if self._closing:
            return
        self._fail_pending(ConnectionLost("connection lost"))
        if not self.reconnect:
            self._pushes.put_nowait(None)
            return
        self._tell("lost", {"url": self.url})
        self._ready.clear()
        previous = self._recovering
        if previous is not None and not previous.done():
            previous.cancel()  # dropped again while resuming: that recovery's work is void
        self._recovering = asyncio.get_running_loop().create_task(self._recover())

    async def _recover(self) -> None:
        """Reconnect with exponential backoff (tenacity), then resume seats and rooms; other
        requests wait until this is over (:meth:`request`). Only the latest recovery lets
        them go: one cut short by a new drop does not."""
        try:
            await self._reconnect()
        finally:
            if self._recovering is asyncio.current_task():
                self._ready.set()

    async def _reconnect(self) -> None:
        try:
            async for attempt in AsyncRetrying(
                    wait=wait_exponential(multiplier=0.05, max=2.0),
                    stop=stop_after_delay(self.reconnect_timeout),
                    retry=retry_if_exception_type(
                        (OSError, websockets.exceptions.WebSocketException, TimeoutError))
                    & (lambda _: not self._closing),
                    before_sleep=lambda state: self._tell("retry", {
                        "attempt": state.attempt_number,
                        "wait": state.next_action.sleep if state.next_action else 0.0,
                        "error": str(state.outcome.exception()) if state.outcome else ""}),
                    reraise=True):
                with attempt:
                    await self._open(next(self._url_cycle))
            await self._sign_in()
        except Exception as exc:
            log.error("could not reconnect: %s", exc)
            self._tell("gave_up", {"error": str(exc)})
            self._pushes.put_nowait(None)
            return
        self.reconnects += 1
        lost: list[str] = []
        for room, (_, token) in list(self.seats.items()):
            try:
                await self._back(self._request, p.Resume(room=room, token=token or None))
            except (ServerError, ConnectionLost, TimeoutError) as exc:
                log.warning("could not resume room %s: %s", room, exc)
                lost.append(room)
        for room in list(self.spectating):
            try:
                await self._back(self._request, p.Spectate(room=room))
            except (ServerError, ConnectionLost, TimeoutError) as exc:
                log.warning("could not watch room %s again: %s", room, exc)
                lost.append(room)
        self._tell("back", {"url": self.url, "lost_rooms": lost})

    def _tell(self, event: str, facts: dict[str, Any]) -> None:
        """Call :attr:`on_connection` (a failing callback is logged, never raised)."""
        if self.on_connection is None:
            return
        try:
            self.on_connection(event, facts)
        except Exception:  # the callback's bug must not stop the reconnection
            log.exception("on_connection callback failed")

    async def _back(self, send: Callable[[p.ClientMessage], Awaitable[p.Message]],
                    msg: p.Resume | p.Spectate) -> None:
        """Send ``msg`` (a seat's ``resume`` or a room's ``spectate`` again) through ``send``,
        asked again while the server refuses it for now (a failover under way:
        :data:`BUSY_CODES`) or leaves it unanswered for ``resume_timeout`` seconds (both
        requests may reach the server twice), at most :data:`PATIENT_ATTEMPTS` tries within
        ``reconnect_timeout`` (:func:`patiently`).

        Raises:
            ServerError: the server refused it (a busy code after the last try).
            TimeoutError: the last try got no reply in time.
            ConnectionLost: as ``send`` raises it.
        """
        async for attempt in patiently(self.reconnect_timeout, codes=BUSY_CODES,
                                       unanswered=True):
            with attempt:
                async with asyncio.timeout(self.resume_timeout):
                    await send(msg)

    def _resume_seat(self, room: str) -> asyncio.Task[bool]:
        """Resume the seat held in ``room`` with its token, on the current connection (one
        resume per room at a time). The task's result: whether the seat is back."""
        task = self._resuming.get(room)
        if task is not None and not task.done():
            return task

        async def resume() -> bool:
            held = self.seats.get(room)
            if held is None:
                return False
            try:
                await self._back(self.request, p.Resume(room=room, token=held[1] or None))
            except (ServerError, ConnectionLost, TimeoutError) as exc:
                log.warning("could not resume the dropped seat of room %s: %s", room, exc)
                return False
            self.seat_resumes += 1
            return True

        task = self._resuming[room] = asyncio.get_running_loop().create_task(resume())
        return task

    def _dispatch(self, msg: p.Message) -> None:
        # Views are the client's own copies: pointer deltas change them in place, and callers
        # may keep the messages they were given.
        if (isinstance(msg, p.SeatEvent) and msg.event == "dropped" and not self._closing
                and self.seats.get(msg.room, (None,))[0] == msg.seat):
            # The server took this connection for gone (e.g. its server process looked dead
            # to the room's owner): take the seat back.
            log.warning("the server dropped our seat %d of room %s: resuming", msg.seat,
                        msg.room)
            self._resume_seat(msg.room)
        if isinstance(msg, p.Joined):
            self.views[msg.room] = copy.deepcopy(msg.view)
            self._desynced.discard(msg.room)
            if msg.seat is not None and msg.token is not None:
                self.seats[msg.room] = (msg.seat, msg.token)
            elif msg.seat is not None and msg.room not in self.seats:
                self.seats[msg.room] = (msg.seat, "")  # resumed by account: no token
            self._joined_as[msg.room] = msg.seat
            self._saw(msg.room, msg.view.get("state_id"), "view", msg.view)
        elif isinstance(msg, p.Update):
            if self._stale(msg):
                self.stale_updates += 1
                log.warning("room %s: ignored an update of state %d older than the view's",
                            msg.room, msg.state_id)
                self._resolve(msg)  # an act's reply all the same: the act was answered
                return
            if msg.view is not None:
                self.views[msg.room] = copy.deepcopy(msg.view)
                self._desynced.discard(msg.room)
                self._saw(msg.room, msg.state_id, "view", msg.view)
            elif msg.delta is not None and msg.room not in self._desynced:
                view = self.views.setdefault(msg.room, {})
                if msg.state_id > view.get("state_id", msg.state_id) + 1:
                    # An update went missing: deltas no longer fit; fetch the full view.
                    self._desynced.add(msg.room)
                    asyncio.ensure_future(self._refetch(msg.room))
                else:
                    p.apply_update(view, copy.deepcopy(msg.delta), msg.state_id)
                    self._saw(msg.room, msg.state_id, "delta", msg.delta)
        elif isinstance(msg, p.Started):
            if msg.commitment is not None:
                self.commitments.setdefault(msg.room, msg.commitment)
        elif isinstance(msg, p.GameOver):
            self.reveals[msg.room] = msg
        elif isinstance(msg, p.ChatLines):
            kept = self.chat.setdefault(msg.room, collections.deque(maxlen=CHAT_KEPT))
            last = kept[-1]["n"] if kept else 0
            kept.extend(line for line in msg.lines if line["n"] > last)
        elif isinstance(msg, p.Left):
            self.seats.pop(msg.room, None)
            self.spectating.discard(msg.room)
        elif isinstance(msg, p.Error) and msg.re is None:
            log.warning("server: %s: %s", msg.code, msg.message)
            self.notices.append(msg)
        elif isinstance(msg, p.Matched):
            self.matches.put_nowait(msg)
        self._resolve(msg)
        if isinstance(msg, (p.Update, p.SeatEvent, p.GameOver, p.Left, p.Started,
                            p.ChatLines)):
            self._pushes.put_nowait(msg)

    def _resolve(self, msg: p.Message) -> None:
        """Hand ``msg`` to the request it answers (its ``re``), if one waits for it."""
        re = getattr(msg, "re", None)
        fut = self._pending.pop(re, None) if isinstance(re, int) else None
        if fut is not None and not fut.done():
            fut.set_result(msg)

    def _stale(self, msg: p.Update) -> bool:
        """True when ``msg`` is older than the view held of its room (protocol/README.md,
        "Updates and stale frames"): a delta or an unrequested full view whose
        ``state_id`` is below the view's. A delta at the view's own ``state_id`` (room
        facts: seats, deadlines) applies; a full view that answers a request is taken."""
        view = self.views.get(msg.room)
        held = None if view is None else view.get("state_id")
        if not isinstance(held, int) or msg.state_id >= held:
            return False
        return msg.view is None or not (isinstance(msg.re, int) and msg.re in self._pending)

    def _saw(self, room: str, state_id: Any, kind: str, data: dict[str, Any]) -> None:
        """Note the deal commitment of a view, and with ``keep_records`` keep what was
        applied (the message's own map: the client never changes it, it changes copies)."""
        if kind == "view":
            facts = data.get("room")
            commitment = facts.get("commitment") if isinstance(facts, dict) else None
            if isinstance(commitment, str):
                self.commitments.setdefault(room, commitment)
        if self.keep_records:
            self._seen.setdefault(room, []).append([state_id, kind, data])

    # -- requests --------------------------------------------------------------------------

    async def request(self, msg: p.ClientMessage) -> p.Message:
        """Send a request (its ``id`` is set here) and return the reply.

        With ``reconnect`` on, a request made while the connection is down (dropped, and
        the client reconnecting) waits until the reconnection and the resumes of its seats
        and rooms are over (at most about ``reconnect_timeout`` plus ``request_timeout`` per
        room), then goes out on the new connection: it never overtakes a resume. Refused
        with ``room/not_seated`` in a room whose seat token the client holds (the server took
        the client for disconnected), it resumes that seat and sends the request once more.

        Raises:
            ServerError: the server answered with an error.
            ConnectionLost: the connection dropped after the request went out and before
                its reply, or could not be restored.
            TimeoutError: no reply within ``request_timeout`` seconds.
        """
        seat_back = resent = False  # each of the two retries is made at most once
        while True:
            if not self._ready.is_set() and self._ws is not None:
                await self._ready.wait()
                if self._closing:
                    raise ConnectionLost("client closed")
            reader = self._reader
            try:
                return await self._request(msg)
            except ServerError as exc:
                # Refused as not seated in a room whose seat token we hold: the server
                # dropped the seat while we were connected. Resume it and try once more.
                room = getattr(msg, "room", None)
                if (exc.code != "room/not_seated" or seat_back or room not in self.seats
                        or isinstance(msg, (p.Resume, p.Leave)) or self._closing
                        or not await self._resume_seat(room)):
                    raise
                seat_back = True
                continue  # the retry (one more pass of this loop)
            except _NotSent:  # a second try only for a request that never went out
                if not self.reconnect or self._closing or resent or reader is None:
                    raise
                resent = True
                # The socket was found closed before its reader noticed: once it has, the
                # recovery is under way (and _ready cleared) or over.
                await asyncio.wait([reader])

    async def _request(self, msg: p.ClientMessage) -> p.Message:
        """:meth:`request` without waiting for a recovery (the recovery's own requests)."""
        if self._ws is None:
            raise ConnectionLost("not connected")
        rid = next(self._ids)
        fut: asyncio.Future[p.Message] = asyncio.get_running_loop().create_future()
        self._pending[rid] = fut
        msg = dataclasses.replace(msg, id=rid)
        try:
            await self._ws.send(p.encode(msg))
        except ConnectionClosed:
            self._pending.pop(rid, None)
            raise _NotSent("connection lost") from None
        try:
            async with asyncio.timeout(self.request_timeout):
                reply = await fut
        finally:
            self._pending.pop(rid, None)
        if isinstance(reply, p.Error):
            raise ServerError(reply.code, reply.message)
        return reply

    async def ping(self) -> float:
        """Round trip of a ping, in seconds."""
        t0 = time.perf_counter()
        await self.request(p.Ping())
        return time.perf_counter() - t0

    async def updates(self) -> AsyncIterator[Push]:
        """Server pushes in arrival order: ``update`` (views already applied to
        :attr:`views`), ``seat_event``, ``game_over``, ``left``, ``started``, ``chat_lines``
        (already kept in :attr:`chat`). Ends when the client is closed or cannot
        reconnect."""
        while True:
            msg = await self._pushes.get()
            if msg is None:
                return
            yield msg
