"""Where the shared Redis is: one server, a master watched by Sentinel, or a Redis Cluster.

:class:`RedisTarget` holds one of three connection forms and makes the ``redis.asyncio``
client for it (:meth:`RedisTarget.connect`):

* ``url``: a lone Redis, ``redis://[[USER]:PASSWORD@]HOST:PORT/DB`` (``rediss://`` for TLS,
  ``unix://PATH?db=N``);
* ``sentinels`` + ``service``: the master that these Sentinel nodes name ``service``
  (:mod:`redis.asyncio.sentinel`); a connection that meets ``READONLY`` (its master was
  demoted) or loses its master asks the Sentinels again;
* ``cluster``: seed nodes of a Redis Cluster (:mod:`redis.asyncio.cluster`), which finds the
  others and follows slot moves and failovers.

Passwords (``password``, ``username``, ``sentinel_password``) and TLS (``tls``,
``tls_ca_file``) apply to every form. Nothing here holds a password in its text form
(:meth:`RedisTarget.describe`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, cast

import redis.asyncio as aioredis
from redis.asyncio.cluster import ClusterNode, RedisCluster
from redis.asyncio.connection import BlockingConnectionPool
from redis.asyncio.retry import Retry
from redis.asyncio.connection import SSLConnection
from redis.asyncio.sentinel import (
    MasterNotFoundError,
    Sentinel,
    SentinelConnectionPool,
    SentinelManagedConnection,
)
from redis.backoff import ExponentialBackoff
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import RedisClusterException
from redis.exceptions import TimeoutError as RedisTimeoutError

#: The Sentinel master name when none is given.
DEFAULT_SERVICE = "cardhall"

Node = tuple[str, int]
Closer = Callable[[], Awaitable[None]]


def parse_node(text: str) -> Node:
    """``HOST:PORT`` (``[V6ADDR]:PORT`` for an IPv6 address) as ``(host, port)``.

    Raises:
        ValueError: no port, a port outside 1..65535, or no host.
    """
    host, sep, port = text.strip().rpartition(":")
    host = host[1:-1] if host.startswith("[") and host.endswith("]") else host
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ValueError(f"{text!r} is not HOST:PORT")
    return host, int(port)


class FollowingSentinelConnection(SentinelManagedConnection):
    """redis-py's Sentinel-managed connection, which asks the Sentinels for the master's
    address whenever it connects, also when redis-py reconnects it inside a command's retry:
    redis-py 8.1 reconnects a dropped connection there at its old address (``Connection.
    connect_check_health``, not the Sentinel-aware ``connect``), so every retry of a command
    whose master was failed over went to the old master until the retries ran out."""

    _resolved = False  # connect_to just asked the Sentinels

    async def connect_to(self, address: tuple[str, int]) -> None:
        """Connect to ``address`` (the Sentinels' answer of a moment ago)."""
        self._resolved = True
        try:
            await cast(Any, super()).connect_to(address)
        finally:
            self._resolved = False

    async def _connect(self) -> None:
        if not self._resolved and self.connection_pool.is_master:
            self.host, self.port = await self.connection_pool.get_master_address()
        await cast(Any, super())._connect()


class FollowingSentinelSSLConnection(FollowingSentinelConnection, SSLConnection):
    """:class:`FollowingSentinelConnection` over TLS."""


class BlockingSentinelPool(SentinelConnectionPool, BlockingConnectionPool):
    """redis-py's Sentinel pool (the master's address asked of the Sentinels at every new
    connection) that, like :class:`~redis.asyncio.BlockingConnectionPool`, makes a burst of
    requests wait up to ``timeout`` seconds for one of its ``max_connections`` sockets
    instead of failing with "Too many connections".

    A connection given back while connected to another address than the master the
    Sentinels named last is closed (``SentinelConnectionPool.owns_connection`` says so, but
    redis-py 8.1's asyncio pool never asks it): after a failover, a connection to the old
    master must not be used again, least of all once that master is back from a partition
    and still takes writes until the Sentinels demote it."""

    async def release(self, connection: Any) -> None:
        """Give ``connection`` back, closed first when it is not on the master."""
        master = self.master_address
        if (self.is_master and master is not None and connection.is_connected
                and (connection.host, int(connection.port)) != (master[0], int(master[1]))):
            await connection.disconnect()
        await super().release(connection)


@dataclass(frozen=True)
class RedisTarget:
    """One connection form and its credentials (exactly one of ``url``, ``sentinels``,
    ``cluster`` is set).

    Attributes:
        url: A lone Redis: ``redis://``, ``rediss://`` (TLS) or ``unix://`` URL.
        sentinels: Sentinel nodes ``(host, port)`` watching the master ``service``.
        service: The Sentinel master name (``sentinel monitor NAME ...``).
        cluster: Seed nodes ``(host, port)`` of a Redis Cluster (one is enough; more
            survive the loss of one).
        db: Database number with ``sentinels`` (a ``url`` carries its own; a cluster has
            database 0 only).
        password: ``AUTH`` password of the data nodes (None: none, or the URL's).
        username: ACL user of the data nodes (None: ``default``, or the URL's).
        sentinel_password: ``AUTH`` password of the Sentinel nodes themselves (None: none).
        tls: TLS to every node, Sentinels included (a ``rediss://`` URL implies it).
        tls_ca_file: PEM file of the certificate authorities that sign the nodes'
            certificates (None: the system's).

    Raises:
        ValueError: not exactly one form, an empty node list, or a database other than 0
            with ``cluster``.
    """

    url: str | None = None
    sentinels: tuple[Node, ...] = ()
    service: str = DEFAULT_SERVICE
    cluster: tuple[Node, ...] = ()
    db: int = 0
    password: str | None = None
    username: str | None = None
    sentinel_password: str | None = None
    tls: bool = False
    tls_ca_file: str | None = None

    def __post_init__(self) -> None:
        forms = [bool(self.url), bool(self.sentinels), bool(self.cluster)]
        if sum(forms) != 1:
            raise ValueError("give exactly one of a Redis URL, Sentinel nodes or Cluster nodes")
        if self.cluster and self.db:
            raise ValueError("a Redis Cluster has database 0 only")
        if self.db < 0:
            raise ValueError("the database number is 0 or more")
        if self.url and self.tls and not self.url.startswith("rediss://"):
            raise ValueError("TLS to a Redis URL: give a rediss:// URL")

    @property
    def kind(self) -> str:
        """``"url"``, ``"sentinel"`` or ``"cluster"``."""
        return "url" if self.url else "sentinel" if self.sentinels else "cluster"

    @property
    def is_cluster(self) -> bool:
        """A Redis Cluster (keys spread over nodes by hash slot)."""
        return bool(self.cluster)

    def default_min_replicas(self) -> int:
        """Replicas that must confirm a write before it is acknowledged, unless told
        otherwise: 1 with Sentinel or Cluster (a failover promotes a replica, which must hold
        every acknowledged action), 0 for a lone Redis."""
        return 0 if self.url else 1

    def describe(self) -> str:
        """The form in words, without any password (for logs and error messages)."""
        if self.url:
            from urllib.parse import urlsplit

            parts = urlsplit(self.url)
            if parts.password is not None:
                host = parts.netloc.rpartition("@")[2]
                user = f"{parts.username}:***@" if parts.username else ":***@"
                return parts._replace(netloc=user + host).geturl()
            return self.url
        nodes = ",".join(f"{h}:{p}" for h, p in self.sentinels or self.cluster)
        if self.sentinels:
            return f"Sentinel master {self.service!r} (db {self.db}) via {nodes}"
        return f"Redis Cluster via {nodes}"

    def _tls(self) -> dict[str, Any]:
        """redis-py's TLS arguments (a ``rediss://`` URL chooses TLS itself: only its CA)."""
        if self.url:
            secure = self.url.startswith("rediss://")
            return {"ssl_ca_certs": self.tls_ca_file} if secure and self.tls_ca_file else {}
        if not self.tls:
            return {}
        return {"ssl": True, "ssl_ca_certs": self.tls_ca_file}

    def _auth(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if self.password is not None:
            out["password"] = self.password
        if self.username is not None:
            out["username"] = self.username
        return out

    def connect(self, *, timeout: float, max_connections: int,
                retries: int = 3) -> tuple[aioredis.Redis | RedisCluster, Closer]:
        """A ``redis.asyncio`` client for this target (no connection is made yet).

        Args:
            timeout: Seconds a command, a connection attempt or the wait for a pooled
                connection may take.
            max_connections: Sockets per data node at most.
            retries: Tries after a connection error or timeout (exponential backoff from
                50 ms to 0.5 s); a write resent this way is fenced by its script.

        Returns:
            The client, :class:`redis.asyncio.Redis` (lone or Sentinel-managed master) or
            :class:`redis.asyncio.cluster.RedisCluster`, and a coroutine function that closes
            it and everything it made (the Sentinel clients, the pool).
        """
        common: dict[str, Any] = {
            "socket_timeout": timeout, "socket_connect_timeout": timeout,
            "retry": Retry(ExponentialBackoff(cap=0.5, base=0.05), retries),
            **self._auth()}
        if self.url:
            # A blocking pool: a burst of requests waits for a free socket instead of
            # failing with "Too many connections". The URL's own password wins.
            pool = BlockingConnectionPool.from_url(
                self.url, max_connections=max_connections, timeout=timeout,
                retry_on_error=[RedisConnectionError, RedisTimeoutError],
                health_check_interval=5, **common, **self._tls())
            lone = aioredis.Redis(connection_pool=pool)

            async def close_lone() -> None:
                await lone.aclose()
                await pool.aclose()  # a pool passed in is not closed by the client

            return lone, close_lone
        if self.sentinels:
            sentinel_kwargs: dict[str, Any] = {
                "socket_timeout": timeout, "socket_connect_timeout": timeout, **self._tls()}
            if self.sentinel_password is not None:
                sentinel_kwargs["password"] = self.sentinel_password
            sentinel: Sentinel = cast(Any, Sentinel)(
                list(self.sentinels), sentinel_kwargs=sentinel_kwargs)
            client: aioredis.Redis = sentinel.master_for(
                self.service, connection_pool_class=BlockingSentinelPool, db=self.db,
                connection_class=FollowingSentinelSSLConnection if self.tls
                else FollowingSentinelConnection,
                max_connections=max_connections, timeout=timeout,
                retry_on_error=[RedisConnectionError, RedisTimeoutError],
                health_check_interval=5, **common, **self._tls())

            async def close_sentinel() -> None:
                await client.aclose()
                await sentinel.aclose()

            return client, close_sentinel
        cluster = RedisCluster(
            startup_nodes=[ClusterNode(h, p) for h, p in self.cluster],
            # Rooms on the other masters go on while one master's slots fail over.
            require_full_coverage=False, max_connections=max_connections,
            retry_on_error=[RedisConnectionError, RedisTimeoutError],
            **common, **self._tls())
        return cluster, cluster.aclose

    async def probe(self, timeout: float = 5.0) -> None:
        """Connect and ``PING`` (the master through the Sentinels; a Cluster's nodes).

        Raises:
            redis.exceptions.RedisError: no answer (the message says why).
            OSError: the connection failed below redis-py.
        """
        client, close = self.connect(timeout=timeout, max_connections=2, retries=0)
        try:
            async with asyncio.timeout(timeout * 2):
                await client.ping()
        except MasterNotFoundError:  # its text holds redis-py's long client reprs
            raise RedisConnectionError(
                f"no Sentinel answered with a master named {self.service!r}") from None
        except RedisClusterException as exc:  # not a RedisError
            raise RedisConnectionError(str(exc)) from None
        finally:
            await close()
