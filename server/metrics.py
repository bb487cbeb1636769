"""Health and Prometheus metrics, served over HTTP on the WebSocket port.

``GET /healthz``: 200 ``ok`` when the process and its store answer, else 503.
``GET /metrics``: Prometheus text format (``prometheus_client``), one registry per server:

    cardhall_rooms                      rooms run by this process (gauge)
    cardhall_connections                open client connections (gauge)
    cardhall_actions_total              actions accepted by this process's rooms (counter)
    cardhall_action_latency_seconds     ``act`` received -> ``ok`` sent, seconds (histogram)
    cardhall_store_errors_total         store (Redis) errors seen by this process (counter)
    cardhall_connections_refused_total  sockets reset at accept, by ``reason`` (counter)
"""

from __future__ import annotations

import http
from collections.abc import Callable, Iterator
from typing import Any

from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Gauge, Histogram
from prometheus_client import generate_latest
from prometheus_client.core import CounterMetricFamily
from prometheus_client.registry import Collector
from websockets.asyncio.server import ServerConnection
from websockets.http11 import Request, Response

from .store import Store

#: Histogram buckets of the action latency, seconds (100 us .. 1 s).
LATENCY_BUCKETS = (1e-4, 2.5e-4, 5e-4, 1e-3, 2.5e-3, 5e-3, 1e-2, 2.5e-2, 5e-2, 0.1, 0.25, 1.0)


class _StoreErrors(Collector):
    """``cardhall_store_errors``: the store's error count, read when scraped."""

    def __init__(self, store: Store) -> None:
        self.store = store

    def collect(self) -> Iterator[CounterMetricFamily]:
        """One counter sample: the errors the store has seen (0 for the in-memory store)."""
        yield CounterMetricFamily("cardhall_store_errors", "Store (Redis) errors seen",
                                  value=float(getattr(self.store, "errors", 0)))


class Metrics:
    """The metrics of one server process.

    Args:
        store: The process's store (its health and error count are reported).
        rooms: Returns the number of rooms this process runs (read when scraped).
        connections: Returns the number of open client connections (read when scraped).
    """

    def __init__(self, store: Store, rooms: Callable[[], int],
                 connections: Callable[[], int]) -> None:
        self.store = store
        self.registry = CollectorRegistry()
        Gauge("cardhall_rooms", "Rooms run by this process",
              registry=self.registry).set_function(rooms)
        Gauge("cardhall_connections", "Open client connections",
              registry=self.registry).set_function(connections)
        self.actions = Counter("cardhall_actions", "Actions accepted by this process's rooms",
                               registry=self.registry)
        self.latency = Histogram("cardhall_action_latency_seconds",
                                 "Seconds from an act request to its ok reply",
                                 buckets=LATENCY_BUCKETS, registry=self.registry)
        self.registry.register(_StoreErrors(store))
        self._refused = Counter("cardhall_connections_refused",
                                "Sockets reset at admission, by reason", ["reason"],
                                registry=self.registry)

    def refused(self, reason: str) -> None:
        """Count one socket refused at admission (``reason``: server full, address full,
        bad proxy header, header timeout)."""
        self._refused.labels(reason).inc()

    def render(self) -> bytes:
        """The Prometheus text exposition of every metric."""
        return generate_latest(self.registry)

    async def http(self, connection: ServerConnection, request: Request) -> Response | None:
        """Answer ``/healthz`` and ``/metrics``; None for anything else (a WebSocket
        handshake goes on)."""
        if request.path == "/healthz":
            ok = await self.store.healthy()
            status = http.HTTPStatus.OK if ok else http.HTTPStatus.SERVICE_UNAVAILABLE
            return connection.respond(status, "ok\n" if ok else "store unavailable\n")
        if request.path == "/metrics":
            response = connection.respond(http.HTTPStatus.OK, "")
            body = self.render()
            headers = response.headers.copy()
            del headers["Content-Type"]  # Headers is a multi-dict: replace, do not append
            del headers["Content-Length"]
            headers["Content-Type"] = CONTENT_TYPE_LATEST
            headers["Content-Length"] = str(len(body))
            return Response(response.status_code, response.reason_phrase, headers, body)
        return None


def observe_action(metrics: Any, seconds: float | None) -> None:
    """Count one accepted action (and its request latency in seconds, when it had one)."""
    if metrics is None:
        return
    metrics.actions.inc()
    if seconds is not None:
        metrics.latency.observe(seconds)
