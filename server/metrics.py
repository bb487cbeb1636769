"""Health and Prometheus metrics, served over HTTP on the WebSocket port.

``GET /healthz``: 200 ``ok`` when the process and its store answer, else 503; answered within
``HEALTH_PROBE_SECONDS`` (0.5 s) whatever the store does (:class:`Health`).
``GET /metrics``: Prometheus text format (``prometheus_client``), one registry per server:

    cardhall_rooms                      rooms run by this process (gauge)
    cardhall_connections                open client connections (gauge)
    cardhall_actions_total              actions accepted by this process's rooms (counter;
                                        the sum of cardhall_actions_accepted_total)
    cardhall_action_latency_seconds     ``act`` received -> ``ok`` sent, seconds (histogram)
    cardhall_store_errors_total         store (Redis) errors seen by this process (counter)
    cardhall_connections_refused_total  sockets reset at accept, by ``reason`` (counter)

Per game, labelled ``game`` (engine name) and ``mode`` (the game's mode, ``-`` for a game
without modes); both come from closed sets, so the series are bounded (never a room id or
an address in a label):

    cardhall_games_started_total        games started (counter)
    cardhall_games_finished_total       games finished, also by ``outcome``: ``won``,
                                        ``lost``, ``limit``, ``abandoned`` (counter;
                                        :func:`~cardhall.games.outcome_kind`)
    cardhall_game_duration_seconds      start to finish of a game, seconds (histogram)
    cardhall_actions_accepted_total     actions applied and stored (counter)
    cardhall_actions_refused_total      ``act`` requests a room answered with an error
                                        (not seated, not started, over, stale, illegal)

Limits (abuse and capacity):

    cardhall_messages_rate_limited_total  messages refused with ``rate/limited`` (counter)
    cardhall_connections_closed_total     connections the server closed, by close ``code``
                                          (4008: rate limit; 4009: slow reader; ...)
    cardhall_rooms_refused_total          ``room/limit`` refusals, by ``reason``: ``rate``
                                          (rooms per minute of a connection or an address)
                                          or ``capacity`` (the process's ``max_rooms``)

A room binds its labelled children once (:meth:`Metrics.game`), so an accepted action costs
one counter increment and one histogram observation, as before the labels.
"""

from __future__ import annotations

import asyncio
import contextlib
import http
import math
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Gauge, Histogram
from prometheus_client import generate_latest
from prometheus_client.core import CounterMetricFamily
from prometheus_client.registry import Collector
from websockets.http11 import Request, Response

from ..games import OUTCOMES
from .store.ports import Store

if TYPE_CHECKING:
    from .web import Responder

#: Histogram buckets of the action latency, seconds (100 us .. 1 s).
LATENCY_BUCKETS = (1e-4, 2.5e-4, 5e-4, 1e-3, 2.5e-3, 5e-3, 1e-2, 2.5e-2, 5e-2, 0.1, 0.25, 1.0)
#: Histogram buckets of game durations, seconds (10 s .. 2 h).
DURATION_BUCKETS = (10.0, 30.0, 60.0, 120.0, 300.0, 600.0, 1200.0, 1800.0, 3600.0, 7200.0)
#: Reasons of ``cardhall_connections_refused_total`` (:mod:`.admission`), exported at 0.
REFUSAL_REASONS = ("server full", "address full", "header timeout", "bad proxy header")
#: Close codes of ``cardhall_connections_closed_total`` exported at 0 before any close:
#: 4000 protocol, 4001 hello timeout, 4008 rate limit, 4009 slow reader (protocol/README.md).
CLOSE_CODES = (4000, 4001, 4008, 4009)
#: Reasons of ``cardhall_rooms_refused_total``.
ROOM_REFUSALS = ("rate", "capacity")
#: The ``mode`` label of a game without modes.
NO_MODE = "-"


#: Seconds a ``/healthz`` answer is reused before the store is probed again.
HEALTH_FRESH_SECONDS = 0.5
#: Seconds a ``/healthz`` request waits for the store's probe at most: a store that has not
#: answered by then (Redis paused, say) is unhealthy.
HEALTH_PROBE_SECONDS = 0.5


class Health:
    """The store's health as ``/healthz`` tells it, from a cached probe (issue #35: a
    paused Redis held ``/healthz`` for seconds, answering 200 or nothing).

    A request within ``HEALTH_FRESH_SECONDS`` of the last answer gets it again; otherwise
    it starts a probe (:meth:`Store.healthy`), or joins the one already running (never more
    than one at a time, however many requests come), and waits for it
    ``HEALTH_PROBE_SECONDS`` at most: no answer by then is unhealthy, and is the answer
    until the probe ends (it runs on, bounded by the store's own timeouts).

    Args:
        store: The store to probe.
    """

    def __init__(self, store: Store) -> None:
        self.store = store
        self._ok = True
        self._at = -math.inf  # loop time of the last answer
        self._probe: asyncio.Task[None] | None = None

    async def check(self) -> bool:
        """Whether the store answers (see the class docstring): True or False within
        ``HEALTH_PROBE_SECONDS``."""
        loop = asyncio.get_running_loop()
        if loop.time() - self._at < HEALTH_FRESH_SECONDS:
            return self._ok
        if self._probe is None or self._probe.done():
            self._probe = loop.create_task(self._run(), name="healthz-probe")
        await asyncio.wait({self._probe}, timeout=HEALTH_PROBE_SECONDS)
        if not self._probe.done():
            self._ok, self._at = False, loop.time()
        return self._ok

    async def _run(self) -> None:
        try:
            ok = await self.store.healthy()
        except Exception:  # healthy() answers False for store errors: anything else too
            ok = False
        self._ok, self._at = ok, asyncio.get_running_loop().time()

    async def close(self) -> None:
        """Stop a probe still running (the server stops)."""
        probe, self._probe = self._probe, None
        if probe is not None and not probe.done():
            probe.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await probe


@dataclass(frozen=True, slots=True)
class GameMetrics:
    """The metrics of one (game, mode), their labelled children bound once, for the rooms
    of that game (:meth:`Metrics.game`).

    Attributes:
        accepted: ``cardhall_actions_accepted_total`` child.
        refused: ``cardhall_actions_refused_total`` child.
        latency: ``cardhall_action_latency_seconds`` (all games).
        started: ``cardhall_games_started_total`` child.
        finished: ``cardhall_games_finished_total`` children by outcome kind.
        duration: ``cardhall_game_duration_seconds`` child (seconds).
    """

    accepted: Any
    refused: Any
    latency: Any
    started: Any
    finished: Mapping[str, Any]
    duration: Any


class _StoreErrors(Collector):
    """``cardhall_store_errors``: the store's error count, read when scraped."""

    def __init__(self, store: Store) -> None:
        self.store = store

    def collect(self) -> Iterator[CounterMetricFamily]:
        """One counter sample: the errors the store has seen (0 for the in-memory store)."""
        yield CounterMetricFamily("cardhall_store_errors", "Store (Redis) errors seen",
                                  value=float(getattr(self.store, "errors", 0)))


class _Sum(Collector):
    """An unlabelled counter that is the sum of a labelled one's children, read when scraped
    (``cardhall_actions_total``: the sum over games, at no cost per action)."""

    def __init__(self, name: str, documentation: str, counter: Counter) -> None:
        self.name, self.documentation, self.counter = name, documentation, counter

    def collect(self) -> Iterator[CounterMetricFamily]:
        """One counter sample: the sum of the ``_total`` samples of the labelled counter."""
        total = sum(sample.value for family in self.counter.collect()
                    for sample in family.samples if sample.name.endswith("_total"))
        yield CounterMetricFamily(self.name, self.documentation, value=total)


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
        #: ``/healthz``'s view of the store (:class:`Health`).
        self.health = Health(store)
        self.registry = CollectorRegistry()
        Gauge("cardhall_rooms", "Rooms run by this process",
              registry=self.registry).set_function(rooms)
        Gauge("cardhall_connections", "Open client connections",
              registry=self.registry).set_function(connections)
        labels = ["game", "mode"]
        self._accepted = Counter("cardhall_actions_accepted", "Actions applied and stored, "
                                 "by game", labels, registry=self.registry)
        self.registry.register(_Sum("cardhall_actions", "Actions accepted by this process's "
                                    "rooms", self._accepted))
        self._refused_actions = Counter("cardhall_actions_refused", "Act requests refused "
                                        "with an error, by game", labels,
                                        registry=self.registry)
        self._started = Counter("cardhall_games_started", "Games started, by game", labels,
                                registry=self.registry)
        self._finished = Counter("cardhall_games_finished", "Games finished, by game and "
                                 "outcome kind", [*labels, "outcome"], registry=self.registry)
        self._duration = Histogram("cardhall_game_duration_seconds", "Seconds from a game's "
                                   "start to its end", labels, buckets=DURATION_BUCKETS,
                                   registry=self.registry)
        self._games: dict[tuple[str, str], GameMetrics] = {}
        self.rate_limited = Counter("cardhall_messages_rate_limited", "Messages refused with "
                                    "rate/limited", registry=self.registry)
        self._closed = Counter("cardhall_connections_closed", "Connections the server "
                               "closed, by close code", ["code"], registry=self.registry)
        for code in CLOSE_CODES:
            self._closed.labels(str(code))
        self._rooms_refused = Counter("cardhall_rooms_refused", "Rooms refused with "
                                      "room/limit, by reason", ["reason"],
                                      registry=self.registry)
        for reason in ROOM_REFUSALS:
            self._rooms_refused.labels(reason)
        self.latency = Histogram("cardhall_action_latency_seconds",
                                 "Seconds from an act request to its ok reply",
                                 buckets=LATENCY_BUCKETS, registry=self.registry)
        self.registry.register(_StoreErrors(store))
        self._refused = Counter("cardhall_connections_refused",
                                "Sockets reset at admission, by reason", ["reason"],
                                registry=self.registry)
        for reason in REFUSAL_REASONS:
            self._refused.labels(reason)
        self._sign_ins = Counter("cardhall_sign_ins", "Sign-in requests, by way (guest, "
                                 "register, login, jwt, restore, refresh) and result (ok, or "
                                 "the auth/* error code)", ["way", "result"],
                                 registry=self.registry)

    def sign_in(self, way: str, result: str) -> None:
        """Count one sign-in request (``way``: the request's kind, a closed set; ``result``:
        ``"ok"`` or its error code, a closed set: never a name, secret or token)."""
        self._sign_ins.labels(way, result).inc()

    def game(self, game: str, mode: str | None) -> GameMetrics:
        """The metrics of ``game`` in ``mode`` (None: a game without modes), made once per
        pair and shared by its rooms: a room binds them when it is made or loaded, so its
        actions touch no label lookup.

        Args:
            game: The engine's registry name (a closed set).
            mode: The game's ``mode`` option (a closed set per game), or None.
        """
        key = (game, NO_MODE if mode is None else str(mode))
        found = self._games.get(key)
        if found is None:
            found = self._games[key] = GameMetrics(
                accepted=self._accepted.labels(*key), refused=self._refused_actions.labels(*key),
                latency=self.latency, started=self._started.labels(*key),
                finished={kind: self._finished.labels(*key, kind) for kind in OUTCOMES},
                duration=self._duration.labels(*key))
        return found

    def closed(self, code: int) -> None:
        """Count one connection the server closes with ``code`` (a Cardhall close code)."""
        self._closed.labels(str(code)).inc()

    def room_refused(self, reason: str) -> None:
        """Count one ``room/limit`` refusal (``reason``: ``rate`` or ``capacity``)."""
        self._rooms_refused.labels(reason).inc()

    def refused(self, reason: str) -> None:
        """Count one socket refused at admission (``reason``: server full, address full,
        bad proxy header, header timeout)."""
        self._refused.labels(reason).inc()

    def render(self) -> bytes:
        """The Prometheus text exposition of every metric."""
        return generate_latest(self.registry)

    async def http(self, connection: Responder, request: Request) -> Response | None:
        """Answer ``/healthz`` and ``/metrics``; None for anything else (a WebSocket
        handshake goes on)."""
        if request.path == "/healthz":
            ok = await self.health.check()
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


def bind_game(metrics: Metrics | None, game: str, mode: str | None) -> GameMetrics | None:
    """``metrics.game(game, mode)``, or None without metrics (a bare room in tests)."""
    return None if metrics is None else metrics.game(game, mode)


def observe_action(metrics: GameMetrics | None, seconds: float | None) -> None:
    """Count one accepted action of a room (``metrics``: its bound :class:`GameMetrics`;
    None counts nothing), and its request latency in seconds when it had one."""
    if metrics is None:
        return
    metrics.accepted.inc()
    if seconds is not None:
        metrics.latency.observe(seconds)
