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

A room binds its game's counts once (:meth:`Metrics.game`). The series counted per action or
per message (accepted and refused actions, the action latency, rate-limited messages) are
plain attributes (:class:`Tally`, :class:`LatencyHistogram`: an int, a bucket list found by
``bisect``) read by collectors when scraped, not prometheus_client's children, whose
``inc()`` and ``observe()`` take a lock and check the metric per call (issue #43: about 5% of
the server's CPU per action). The exposition is prometheus_client's, unchanged: the same
names, labels, HELP and TYPE, buckets and ``_created`` samples. Rare events (games started
and finished, closes, refused rooms and sockets, sign-ins) keep prometheus_client's metrics.
Counted on the event loop's thread only (the server's, as every caller of these is).
"""

from __future__ import annotations

import asyncio
import contextlib
import http
import math
import time
from bisect import bisect_left
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import prometheus_client.metrics
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Gauge, Histogram
from prometheus_client import generate_latest
from prometheus_client.core import CounterMetricFamily, HistogramMetricFamily
from prometheus_client.registry import Collector
from prometheus_client.samples import Sample
from prometheus_client.utils import floatToGoString
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
#: A bound as its ``le`` label: prometheus_client's own spelling (untyped there).
_le_label: Callable[[float], str] = floatToGoString


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


class Tally:
    """A counter of a per-action or per-message series, counted in a plain int: what a
    prometheus_client ``Counter`` child was on that path, without its lock and checks per
    call. A collector (:class:`_Counts`, :class:`_GameCounts`) exposes it when scraped.

    Attributes:
        value: The count so far (an int, from 0).
        created: When the series was made (Unix seconds): its ``_created`` sample.
    """

    __slots__ = ("created", "value")

    def __init__(self) -> None:
        self.value = 0
        self.created = time.time()

    def inc(self) -> None:
        """Count one."""
        self.value += 1


class LatencyHistogram:
    """A histogram counted in plain attributes: one bucket's count per observation, found
    with ``bisect``, and the sum; what a prometheus_client ``Histogram`` was on the action
    path (its ``observe()`` locks and walks the buckets), exposed by :class:`_Histogram`.

    Args:
        bounds: The buckets' upper bounds, ascending (``+Inf`` is added when missing).

    Attributes:
        bounds: The upper bounds, ascending, ``+Inf`` last.
        counts: Observations per bucket (not cumulative), one per bound: an observation
            counts in the first bucket whose bound is >= it (a NaN in none).
        sum: The sum of the observations.
        created: When the series was made (Unix seconds): its ``_created`` sample.
        le: The bounds as their ``le`` labels (prometheus_client's spelling: ``"0.0001"``,
            ``"1.0"``, ``"+Inf"``).

    Raises:
        ValueError: ``bounds`` not ascending, or fewer than two buckets with ``+Inf``.
    """

    __slots__ = ("bounds", "counts", "created", "le", "sum")

    def __init__(self, bounds: tuple[float, ...]) -> None:
        upper = [float(b) for b in bounds]
        if upper != sorted(upper):
            raise ValueError("buckets not in ascending order")
        if not upper or upper[-1] != math.inf:
            upper.append(math.inf)
        if len(upper) < 2:
            raise ValueError("a histogram needs at least two buckets")
        self.bounds = upper
        self.counts = [0] * len(upper)
        self.sum = 0.0
        self.created = time.time()
        self.le = [_le_label(b) for b in upper]

    def observe(self, value: float) -> None:
        """Count one observation of ``value`` (seconds, say) and add it to the sum."""
        self.sum += value
        if not math.isnan(value):  # a NaN is in no bucket, as prometheus_client has it
            self.counts[bisect_left(self.bounds, value)] += 1


@dataclass(frozen=True, slots=True)
class GameMetrics:
    """The metrics of one (game, mode), bound once for the rooms of that game
    (:meth:`Metrics.game`).

    Attributes:
        accepted: ``cardhall_actions_accepted_total``'s count of this game.
        refused: ``cardhall_actions_refused_total``'s count of this game.
        latency: ``cardhall_action_latency_seconds`` (all games).
        started: ``cardhall_games_started_total`` child (prometheus_client).
        finished: ``cardhall_games_finished_total`` children by outcome kind.
        duration: ``cardhall_game_duration_seconds`` child (seconds).
    """

    accepted: Tally
    refused: Tally
    latency: LatencyHistogram
    started: Any
    finished: Mapping[str, Any]
    duration: Any


def _created() -> bool:
    """Whether ``_created`` samples are exported: prometheus_client's own switch
    (``disable_created_metrics()``, ``PROMETHEUS_DISABLE_CREATED_SERIES``), read when
    scraped, so that the collectors' series follow its metrics'."""
    return bool(getattr(prometheus_client.metrics, "_use_created", True))


class _Counts(Collector):
    """An unlabelled counter whose value is a :class:`Tally`, read when scraped."""

    def __init__(self, name: str, documentation: str, tally: Tally) -> None:
        self.name, self.documentation, self.tally = name, documentation, tally

    def collect(self) -> Iterator[CounterMetricFamily]:
        """One counter sample (and its ``_created``)."""
        tally = self.tally
        yield CounterMetricFamily(self.name, self.documentation, value=float(tally.value),
                                  created=tally.created if _created() else None)


class _GameCounts(Collector):
    """A counter labelled ``game`` and ``mode``: one sample per bound game (in the order
    they were bound), the :class:`Tally` ``pick`` takes of its :class:`GameMetrics`."""

    def __init__(self, name: str, documentation: str,
                 games: Mapping[tuple[str, str], GameMetrics],
                 pick: Callable[[GameMetrics], Tally]) -> None:
        self.name, self.documentation, self.games, self.pick = name, documentation, games, pick

    def collect(self) -> Iterator[CounterMetricFamily]:
        """The counter's family, a sample (and its ``_created``) per bound game."""
        family = CounterMetricFamily(self.name, self.documentation, labels=("game", "mode"))
        created = _created()
        for key, bound in self.games.items():
            tally = self.pick(bound)
            family.add_metric(key, float(tally.value), tally.created if created else None)
        yield family


class _Histogram(Collector):
    """An unlabelled histogram whose counts are a :class:`LatencyHistogram`'s, read when
    scraped: cumulative buckets, ``_count``, ``_sum`` and ``_created``, as
    prometheus_client's ``Histogram`` renders them."""

    def __init__(self, name: str, documentation: str, histogram: LatencyHistogram) -> None:
        self.name, self.documentation, self.histogram = name, documentation, histogram

    def collect(self) -> Iterator[HistogramMetricFamily]:
        """The histogram's family."""
        h = self.histogram
        buckets: list[tuple[str, float]] = []
        total = 0.0
        for le, count in zip(h.le, h.counts):
            total += count
            buckets.append((le, total))
        family = HistogramMetricFamily(self.name, self.documentation, buckets=buckets,
                                       sum_value=h.sum)
        if _created():
            family.samples.append(Sample(self.name + "_created", {}, h.created, None))
        yield family


def _accepted(bound: GameMetrics) -> Tally:
    return bound.accepted


def _refused(bound: GameMetrics) -> Tally:
    return bound.refused


class _StoreErrors(Collector):
    """``cardhall_store_errors``: the store's error count, read when scraped."""

    def __init__(self, store: Store) -> None:
        self.store = store

    def collect(self) -> Iterator[CounterMetricFamily]:
        """One counter sample: the errors the store has seen (0 for the in-memory store)."""
        yield CounterMetricFamily("cardhall_store_errors", "Store (Redis) errors seen",
                                  value=float(getattr(self.store, "errors", 0)))


class _Sum(Collector):
    """An unlabelled counter that is the sum over the bound games of the :class:`Tally`
    ``pick`` takes, read when scraped (``cardhall_actions_total``: the sum of
    ``cardhall_actions_accepted_total``, at no cost per action; no ``_created`` sample)."""

    def __init__(self, name: str, documentation: str,
                 games: Mapping[tuple[str, str], GameMetrics],
                 pick: Callable[[GameMetrics], Tally]) -> None:
        self.name, self.documentation, self.games, self.pick = name, documentation, games, pick

    def collect(self) -> Iterator[CounterMetricFamily]:
        """One counter sample: the sum."""
        total = sum(self.pick(bound).value for bound in self.games.values())
        yield CounterMetricFamily(self.name, self.documentation, value=float(total))


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
        self._games: dict[tuple[str, str], GameMetrics] = {}
        register = self.registry.register  # the families in the order /metrics shows them
        register(_GameCounts("cardhall_actions_accepted", "Actions applied and stored, by "
                             "game", self._games, _accepted))
        register(_Sum("cardhall_actions", "Actions accepted by this process's rooms",
                      self._games, _accepted))
        register(_GameCounts("cardhall_actions_refused", "Act requests refused with an "
                             "error, by game", self._games, _refused))
        self._started = Counter("cardhall_games_started", "Games started, by game", labels,
                                registry=self.registry)
        self._finished = Counter("cardhall_games_finished", "Games finished, by game and "
                                 "outcome kind", [*labels, "outcome"], registry=self.registry)
        self._duration = Histogram("cardhall_game_duration_seconds", "Seconds from a game's "
                                   "start to its end", labels, buckets=DURATION_BUCKETS,
                                   registry=self.registry)
        #: ``cardhall_messages_rate_limited_total``'s count.
        self.rate_limited = Tally()
        register(_Counts("cardhall_messages_rate_limited", "Messages refused with "
                         "rate/limited", self.rate_limited))
        self._closed = Counter("cardhall_connections_closed", "Connections the server "
                               "closed, by close code", ["code"], registry=self.registry)
        for code in CLOSE_CODES:
            self._closed.labels(str(code))
        self._rooms_refused = Counter("cardhall_rooms_refused", "Rooms refused with "
                                      "room/limit, by reason", ["reason"],
                                      registry=self.registry)
        for reason in ROOM_REFUSALS:
            self._rooms_refused.labels(reason)
        #: ``cardhall_action_latency_seconds``'s counts (all games).
        self.latency = LatencyHistogram(LATENCY_BUCKETS)
        register(_Histogram("cardhall_action_latency_seconds", "Seconds from an act request "
                            "to its ok reply", self.latency))
        register(_StoreErrors(store))
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
                accepted=Tally(), refused=Tally(), latency=self.latency,
                started=self._started.labels(*key),
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
    None counts nothing), and its request latency in seconds when it had one: an int
    incremented and a bucket counted, no lock (:class:`Tally`, :class:`LatencyHistogram`)."""
    if metrics is None:
        return
    metrics.accepted.value += 1
    if seconds is not None:
        metrics.latency.observe(seconds)
