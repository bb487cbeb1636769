"""The server process: websockets listener, lobby, store, clean shutdown."""

from __future__ import annotations

import asyncio
import logging
import signal
from typing import Any

from websockets.asyncio.server import Server as WsServer
from websockets.asyncio.server import ServerConnection, serve
from websockets.http11 import Request, Response

from .cluster import Cluster
from .config import Settings
from .connection import Connection
from .lobby import Lobby
from .metrics import Metrics
from .store import MemoryStore, Store

log = logging.getLogger("cardhall.server")


class Server:
    """A Cardhall server: one lobby of rooms behind one WebSocket port.

    Args:
        settings: Listening address and limits (see :class:`Settings`).
        store: Room persistence; the embedded :class:`MemoryStore` when None.

    Use ``await server.start()`` then ``await server.stop()``, or ``async with server``;
    ``cardhall serve`` runs :meth:`serve_forever`.
    """

    def __init__(self, settings: Settings | None = None, store: Store | None = None) -> None:
        self.settings = settings or Settings()
        self.store = store or MemoryStore()
        self.cluster = Cluster(self)
        self.lobby = Lobby(self.store, self.settings, self.cluster)
        self.connections: set[Connection] = set()
        self.sessions: dict[str, Connection] = {}
        self.metrics = Metrics(self)
        self.lobby.metrics = self.metrics
        self._ws: WsServer | None = None

    @property
    def port(self) -> int:
        """The bound TCP port (useful with ``port=0``).

        Raises:
            RuntimeError: the server is not started.
        """
        if self._ws is None:
            raise RuntimeError("server not started")
        return int(self._ws.sockets[0].getsockname()[1])

    @property
    def url(self) -> str:
        """``ws://host:port`` of the running server."""
        return f"ws://{self.settings.host}:{self.port}"

    async def start(self) -> None:
        """Bind and start accepting connections.

        Raises:
            OSError: the address is in use or not available.
        """
        s = self.settings
        self._ws = await serve(
            self._handle, s.host, s.port,
            compression="deflate" if s.compression else None,
            max_size=s.max_frame, ping_interval=s.ping_interval, ping_timeout=s.ping_timeout,
            process_request=self._process_request,
        )
        await self.cluster.start()
        log.info("listening on %s (store: %s, process %s)", self.url, type(self.store).__name__,
                 self.store.process_id)

    async def _process_request(self, ws: ServerConnection, request: Request) -> Response | None:
        """HTTP on the WebSocket port: ``/healthz`` and ``/metrics``; anything else goes on
        to the WebSocket handshake."""
        return await self.metrics.http(ws, request)

    async def _handle(self, ws: ServerConnection) -> None:
        conn = Connection(self, ws)
        self.connections.add(conn)
        try:
            await conn.run()
        finally:
            self.connections.discard(conn)

    async def stop(self) -> None:
        """Close every connection (1001, going away), stop the rooms and the store."""
        if self._ws is not None:
            self._ws.close(close_connections=True)
            await self._ws.wait_closed()
            self._ws = None
        await self.cluster.stop()
        await self.lobby.close()
        await self.store.close()

    async def __aenter__(self) -> Server:
        await self.start()
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.stop()

    async def serve_forever(self) -> None:
        """Run until SIGINT or SIGTERM, then shut down cleanly."""
        await self.start()
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        try:
            await stop.wait()
        finally:
            log.info("shutting down")
            await self.stop()


def run(settings: Settings, store: Store | None = None) -> None:
    """Run a server in a new event loop (uvloop when it is installed) until a signal."""
    try:
        import uvloop
    except ImportError:
        runner = asyncio.run
    else:
        runner = uvloop.run
    runner(Server(settings, store).serve_forever())
