"""The server process: the listener (:mod:`.driver` sockets), lobby, store, clean shutdown."""

from __future__ import annotations

import asyncio
import gc
import logging
import signal
import ssl
from collections.abc import Callable
from functools import partial
from http import HTTPStatus
from typing import Any, cast

from websockets.extensions.permessage_deflate import enable_server_permessage_deflate
from websockets.http11 import Request, Response
from websockets.typing import Origin

from . import web
from .accounts.account_memory import MemoryAccounts
from .accounts.account_redis import RedisAccounts
from .accounts.account_sqlite import SQLiteAccounts
from .accounts.account_store import AccountStore
from .admin import Admin
from .archive import Pruner
from .admission import (
    Gate,
    default_max_connections,
    log_fd_limit,
    raise_fd_limit,
)
from .accounts.auth import Auth
from .cluster import Cluster
from .config import Settings
from .connection import Connection, peer_address
from .driver import Flusher, Socket
from .history import Ledger
from .limits import AddressCounter, KeyedBuckets
from .visibility import Lookups
from .lobby import Lobby
from .logs import event
from .metrics import Metrics
from .rated import SERVER_BOT, Rater, ratings_for
from .rated_queue import RatedQueue
from .store.memory_store import MemoryStore
from .store.ports import Store
from .tasks import SHUTDOWN_GRACE

log = logging.getLogger("cardhall.server")
#: The websockets library's logger for our connections. At DEBUG it would dump frames, and
#: frames hold seat tokens: it never logs below INFO, whatever the process's level.
ws_log = logging.getLogger("cardhall.websockets")
#: Paths whose requests are logged at DEBUG, not INFO: load balancers ask every second.
QUIET_PATHS = frozenset({"/healthz"})


#: websockets' INFO lines the server logs itself, with more: ``http_request`` for each answer
#: of ``_process_request`` (with the path), ``conn_open`` and ``conn_closed`` (with the
#: session, address and close code) for each WebSocket.
_WS_SAID_BY_US = frozenset({"HTTP response sent (%d %s)", "connection open",
                            "connection closed"})


def _ws_filter(record: logging.LogRecord) -> bool:
    """websockets' records worth a line: INFO and above, except the lines the server logs
    itself (:data:`_WS_SAID_BY_US`: one socket would make two lines), and its INFO lines
    about the connection of a request for a quiet path (:data:`QUIET_PATHS`).

    A kept record's ``websocket`` field (websockets' connection object, which would render
    as its address in memory) is replaced by the client's address, ``addr`` as in the
    server's own lines (behind a trusted proxy, the address its PROXY header named)."""
    if record.levelno < logging.INFO or record.msg in _WS_SAID_BY_US:
        return False
    ws = record.__dict__.get("websocket")
    request = getattr(ws, "request", None)
    if (record.levelno == logging.INFO and request is not None
            and request.path in QUIET_PATHS):
        return False
    if ws is not None:
        del record.__dict__["websocket"]
        if "addr" not in record.__dict__:
            try:
                remote = ws.remote_address
            except AttributeError:  # no transport (any more): no address to give
                remote = None
            record.addr = str(remote[0]) if isinstance(remote, tuple) and remote else "?"
    return True


# A filter, not a level: a level of INFO here would also log its INFO lines (one per socket)
# when the process runs at WARNING.
ws_log.addFilter(_ws_filter)


def accounts_for(store: Store) -> AccountStore:
    """The account store that shares ``store``'s backend: accounts on the room store's
    Redis when it has a Redis client (its ``redis`` attribute), in the SQLite store's data
    file when it has one (its ``file``: schema v3 of :mod:`.sqlite_file`), else in this
    process."""
    client = getattr(store, "redis", None)
    if client is not None:
        return RedisAccounts(client, store.health)
    data = getattr(store, "file", None)
    if data is not None:
        return SQLiteAccounts(data.write, partial(data.reading, fold=False))
    return MemoryAccounts()


class Server:
    """A Cardhall server: one lobby of rooms behind one WebSocket port.

    Args:
        settings: Listening address and limits (see :class:`Settings`).
        store: Room persistence; a :class:`MemoryStore` when None (``cardhall serve``
            passes its SQLite store unless told otherwise).
        accounts: Accounts, their tokens and histories (:mod:`.account_store`); None: the one
            that shares ``store``'s backend (:func:`accounts_for`).

    Raises:
        ValueError, OSError: the operator JWT key cannot be used (:mod:`.operator_jwt`).

    Use ``await server.start()`` then ``await server.stop()``, or ``async with server``;
    ``cardhall serve`` runs :meth:`serve_forever`.
    """

    #: The class of the connections it serves (``(server, socket)``): a test's subclass of
    #: :class:`Connection` goes here (the compiled build's classes take no patched method).
    connection_class: type[Connection] = Connection

    def __init__(self, settings: Settings | None = None, store: Store | None = None,
                 accounts: AccountStore | None = None) -> None:
        self.settings = settings or Settings()
        self.store = store or MemoryStore()
        self.accounts = accounts or accounts_for(self.store)
        self.cluster = Cluster(self)
        self.lobby = Lobby(self.store, self.settings, self.cluster)
        self.ledger = self.lobby.ledger = Ledger(self.accounts)
        #: Rated rooms and ratings (issue #45, :mod:`.rated`).
        self.ratings = ratings_for(self.store)
        self.rater = self.lobby.rater = Rater(self.ratings, self.accounts, SERVER_BOT,
                                              self.settings.rated_boards)
        self.connections: set[Connection] = set()
        self.sessions: dict[str, Connection] = {}
        self.queue = RatedQueue(self.lobby, self.ratings,
                                bot_after=self.settings.queue_bot_after,
                                wave_seconds=self.settings.queue_wave_seconds,
                                store=self.store, sessions=self.sessions)  # #45
        self.metrics = Metrics(self.store, lambda: len(self.lobby.rooms),
                               lambda: len(self.connections))
        self.lobby.metrics = self.metrics
        self.auth = Auth(self.settings, self.accounts, self.store.process_id,
                         self.store.publish, self.metrics.sign_in)
        self.admin = Admin(self, self.settings.admin_token)
        self._listener: asyncio.Server | None = None
        #: Every accepted socket until it closes (handshakes included).
        self.sockets: set[Socket] = set()
        s = self.settings
        self.gate = Gate(s, s.max_connections or default_max_connections(s.fd_reserve),
                         self.metrics.refused)
        n = s.rooms_per_minute_per_address
        self.creators = KeyedBuckets(n / 60.0, n) if n else None
        #: Failed look-ups of rooms per address key and account (:mod:`.visibility`).
        self.lookups = Lookups(self.accounts.limits_storage(), s.lookup_limit)
        self.flusher = Flusher()
        #: Prunes the games archive (``history_days``: :mod:`.archive`).
        self.pruner = Pruner(self.store, s.history_days)

    @property
    def addresses(self) -> AddressCounter:
        """Open connections per client address (see :class:`Gate`)."""
        return self.gate.addresses

    @property
    def port(self) -> int:
        """The bound TCP port (useful with ``port=0``).

        Raises:
            RuntimeError: the server is not started.
        """
        if self._listener is None:
            raise RuntimeError("server not started")
        return int(self._listener.sockets[0].getsockname()[1])

    @property
    def url(self) -> str:
        """``ws://host:port`` of the running server."""
        scheme = "wss" if self.settings.certfile else "ws"
        return f"{scheme}://{self.settings.host}:{self.port}"

    async def start(self) -> None:
        """Bind and start accepting connections.

        With a durable store of this process alone (SQLite), the rooms it holds are then
        loaded in the background (:meth:`Cluster.restore`; :attr:`Cluster.restored` is set
        once they all are): a restart takes every room in play over.

        Raises:
            OSError: the address is in use or not available, or the TLS certificate or key
                cannot be read (:class:`ssl.SSLError` is an OSError).
        """
        s = self.settings
        # With TLS, the handshake before any HTTP is bounded by the header timeout too.
        tls: dict[str, Any] = {"ssl_handshake_timeout": s.header_timeout} if s.certfile else {}
        origins = None if s.origins is None else [*map(Origin, s.origins), None]
        extensions = enable_server_permessage_deflate(None) if s.compression else None

        def accept() -> Socket:
            sock = Socket(self, self.gate, self.flusher, origins=origins,
                          extensions=extensions, max_size=s.max_frame,
                          ping_interval=s.ping_interval, ping_timeout=s.ping_timeout,
                          close_timeout=s.close_grace, logger=ws_log)
            self.sockets.add(sock)
            sock.done.add_done_callback(lambda _: self.sockets.discard(sock))
            return sock

        loop = asyncio.get_running_loop()
        self._listener = await loop.create_server(
            cast("Callable[[], asyncio.Protocol]", accept), s.host, s.port, ssl=self._tls(),
            **tls)
        await self.cluster.start()
        self.pruner.start()
        log.info("listening on %s (store: %s, process %s)", self.url, type(self.store).__name__,
                 self.store.process_id)

    def _tls(self) -> ssl.SSLContext | None:
        """The server's TLS context from ``certfile``/``keyfile``, or None (plain ws).

        Raises:
            OSError: a file cannot be read; :class:`ssl.SSLError` when it is not a valid PEM
                certificate chain or key.
        """
        s = self.settings
        if s.certfile is None:
            return None
        return tls_context(s.certfile, s.keyfile)

    async def http(self, socket: Socket, request: Request) -> Response | None:
        """HTTP on the WebSocket port: ``/healthz``, ``/metrics`` and the web app's files
        (:mod:`.web`, for a GET that is not a WebSocket upgrade); None lets a WebSocket
        upgrade go on to the handshake (connections were admitted at accept:
        :mod:`.admission`). ``/admin/...`` is the admin API (:mod:`.admin`); while the
        process drains or shuts down, ``/healthz`` and WebSocket upgrades answer 503."""
        response = await self.admin.http(socket, request)
        if response is None and (self.admin.draining or self._listener is None) and (
                request.path == "/healthz" or web.is_upgrade(request)):
            response = socket.respond(HTTPStatus.SERVICE_UNAVAILABLE, "draining\n")
        if response is None:
            response = await self.metrics.http(socket, request)
        if response is None:
            response = await self.rater.http(socket, request)
        if response is None:
            response = web.respond(socket, request)
        if response is not None:  # an HTTP answer, not an upgrade: one access line
            event(log, logging.DEBUG if request.path in QUIET_PATHS else logging.INFO,
                  "http_request", addr=peer_address(socket), path=request.path,
                  code=response.status_code)
        return response

    def opened(self, socket: Socket) -> Connection:
        """A WebSocket is open on ``socket``: its connection (:attr:`connection_class`),
        waiting for the hello."""
        conn = self.connection_class(self, socket)
        self.connections.add(conn)
        event(log, logging.INFO, "conn_open", session=conn.session_id, addr=conn.addr)
        socket.done.add_done_callback(lambda _: event(
            log, logging.INFO, "conn_closed", session=conn.session_id, addr=conn.addr,
            code=socket.close_code, client=conn.software, account=conn.account or None))
        socket.done.add_done_callback(lambda _: self.queue.closed(conn))
        conn.opened()
        return conn

    async def stop(self) -> None:
        """Stop listening, close every connection (1001, going away; a socket still in its
        HTTP handshake at once) and wait ``close_grace`` seconds at most for them to close
        (then they are aborted), let the requests they began end, then stop the rooms and
        the store."""
        listener, self._listener = self._listener, None
        if listener is not None:
            listener.close()
            for sock in list(self.sockets):
                handler = sock.handler
                if isinstance(handler, Connection):
                    handler.close_with(1001, "server shutting down")
                else:
                    sock.close(1001, "server shutting down")
            if self.sockets:
                await asyncio.wait([s.done for s in self.sockets],
                                   timeout=self.settings.close_grace)
            for sock in list(self.sockets):
                sock.abort()
            if self.sockets:
                await asyncio.wait([s.done for s in self.sockets], timeout=1.0)
            for conn in list(self.connections):
                await conn.finished()
            await listener.wait_closed()
        await self.admin.close()
        await self.pruner.close()
        await self.cluster.stop()
        await self.lobby.close()
        # Frames the closing rooms queued for members on other processes: sent if they can
        # be within the grace, rather than cancelled.
        await self.cluster.background.close(grace=SHUTDOWN_GRACE)
        await self.metrics.health.close()
        await self.ledger.close()
        await self.rater.close()
        await self.queue.close()
        await self.auth.close()
        await self.store.close()

    async def __aenter__(self) -> Server:
        await self.start()
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.stop()

    async def serve_forever(self, on_listening: Callable[[Server], None] | None = None) -> None:
        """Run until SIGINT or SIGTERM, then shut down cleanly.

        Args:
            on_listening: Called once the server listens (not when it cannot), e.g. to print
                its address; None: nothing is called.

        Raises:
            OSError: as :meth:`start`.
        """
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):  # before listening: no signal is missed
            loop.add_signal_handler(sig, stop.set)
        try:
            await self.start()
        except BaseException:  # the store is open (a data file locked): close it, then fail
            await self.stop()
            raise
        if on_listening is not None:
            on_listening(self)
        try:
            await stop.wait()
        finally:
            log.info("shutting down")
            await self.stop()


def tls_context(certfile: str, keyfile: str | None = None) -> ssl.SSLContext:
    """A server TLS context (TLS 1.2 or newer) from a PEM certificate chain and its key.

    Args:
        certfile: Path of the PEM certificate chain.
        keyfile: Path of the PEM private key (None: the key is inside ``certfile``).

    Raises:
        OSError: a file cannot be read; :class:`ssl.SSLError` (an OSError) when it is not a
            valid PEM certificate chain or key.
    """
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    context.load_cert_chain(certfile, keyfile)
    return context


def tune_gc(threshold: int | None) -> None:
    """Tune this process's cycle collector for a long-running event loop: collect now,
    freeze what is alive (modules, classes: they are never garbage) out of later
    collections, and run the young generation every ``threshold`` container allocations
    instead of Python's 700. None: leave the collector alone."""
    if threshold is None:
        return
    gc.collect()
    gc.freeze()
    _, older, oldest = gc.get_threshold()
    gc.set_threshold(threshold, older, oldest)


def run(settings: Settings, store: Store | None = None,
        on_listening: Callable[[Server], None] | None = None) -> None:
    """Run a server in a new event loop (uvloop when it is installed) until a signal, with
    the soft descriptor limit raised to the hard one (:func:`raise_fd_limit`) and the
    collector tuned by ``settings.gc_threshold`` (:func:`tune_gc`).

    Nothing is logged before the server listens: a port in use (an OSError) is the caller's
    one line to print. Then the descriptor limits are logged and ``on_listening(server)``
    is called (None: nothing is).

    Raises:
        OSError: the address is in use or not available (as :meth:`Server.start`).
    """
    try:
        import uvloop
    except ImportError:
        runner = asyncio.run
    else:
        runner = uvloop.run
    # before the Server: its connection cap is derived from the limit
    limits = raise_fd_limit(announce=False)
    server = Server(settings, store)
    tune_gc(settings.gc_threshold)

    def listening(started: Server) -> None:
        log_fd_limit(*limits)
        if on_listening is not None:
            on_listening(started)

    runner(server.serve_forever(listening))
