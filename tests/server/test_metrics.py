"""Tests of the metrics and health of one process (``cardhall.server.metrics``) over a stub
store, without a server: the exposition's series, the bounded labels, the sum counter, the
per-action series line for line as prometheus_client rendered them (and the latency
histogram against prometheus_client's), and ``/healthz``'s cached probe.
(tests/server/test_ops.py and test_metrics_scrape.py scrape a live server.)"""

from __future__ import annotations

import asyncio
import math
import time
from typing import Any, cast

import prometheus_client
import pytest
from cardhall.server import metrics as M
from cardhall.server.store.ports import Store
from hypothesis import given, settings
from hypothesis import strategies as st
from prometheus_client import CollectorRegistry, Histogram
from prometheus_client.parser import text_string_to_metric_families


class StubStore:
    """What Metrics reads of a store: ``healthy()`` and an error count."""

    def __init__(self) -> None:
        self.errors = 3
        self.probes = 0
        self.answer: bool | Exception = True
        self.delay = 0.0

    async def healthy(self) -> bool:
        self.probes += 1
        if self.delay:
            await asyncio.sleep(self.delay)
        if isinstance(self.answer, Exception):
            raise self.answer
        return self.answer


def _samples(metrics: M.Metrics) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    text = metrics.render().decode()
    return {(s.name, tuple(sorted(s.labels.items()))): s.value
            for family in text_string_to_metric_families(text) for s in family.samples}


def _metrics(store: StubStore | None = None) -> M.Metrics:
    return M.Metrics(cast(Store, store or StubStore()), rooms=lambda: 7, connections=lambda: 9)


def test_gauges_are_read_when_scraped_and_known_labels_start_at_zero() -> None:
    """Rooms and connections come from the callbacks; refusals and closes are exported at 0
    before the first one, so a rate() works from the start."""
    found = _samples(_metrics())
    assert found[("cardhall_rooms", ())] == 7 and found[("cardhall_connections", ())] == 9
    assert found[("cardhall_store_errors_total", ())] == 3
    for code in M.CLOSE_CODES:
        assert found[("cardhall_connections_closed_total", (("code", str(code)),))] == 0
    for reason in M.REFUSAL_REASONS:
        assert found[("cardhall_connections_refused_total", (("reason", reason),))] == 0


def test_actions_total_is_the_sum_over_games_and_modes() -> None:
    """Each room binds its game's children once; ``-`` is the mode of a game without."""
    metrics = _metrics()
    skipper = M.bind_game(metrics, "skipper", "multi")
    shop = M.bind_game(metrics, "shop", None)
    assert skipper is metrics.game("skipper", "multi") and shop is not None
    M.observe_action(skipper, 0.002)
    M.observe_action(skipper, None)
    M.observe_action(shop, 0.5)
    M.observe_action(None, 1.0)  # a bare room: nothing counted
    assert M.bind_game(None, "shop", None) is None
    found = _samples(metrics)
    assert found[("cardhall_actions_total", ())] == 3
    assert found[("cardhall_actions_accepted_total",
                  (("game", "shop"), ("mode", "-")))] == 1
    assert found[("cardhall_action_latency_seconds_count", ())] == 2


def test_finished_games_are_counted_by_outcome_kind() -> None:
    """Every outcome kind exists for a bound game; one finished game adds to its kind only."""
    metrics = _metrics()
    bound = metrics.game("shah", None)
    assert set(bound.finished) == set(M.OUTCOMES)
    bound.finished["won"].inc()
    bound.duration.observe(95.0)
    found = _samples(metrics)
    labels = (("game", "shah"), ("mode", "-"))
    assert found[("cardhall_games_finished_total", (*labels, ("outcome", "won")))] == 1
    assert found[("cardhall_games_finished_total", (*labels, ("outcome", "lost")))] == 0
    buckets = {dict(k[1])["le"]: v for k, v in found.items()
               if k[0] == "cardhall_game_duration_seconds_bucket" and dict(k[1])["game"] == "shah"}
    assert (buckets["60.0"], buckets["120.0"]) == (0, 1)
    metrics.closed(4008)
    metrics.room_refused("rate")
    metrics.sign_in("guest", "ok")
    found = _samples(metrics)
    assert found[("cardhall_connections_closed_total", (("code", "4008"),))] == 1
    assert found[("cardhall_rooms_refused_total", (("reason", "rate"),))] == 1
    assert found[("cardhall_sign_ins_total", (("result", "ok"), ("way", "guest")))] == 1


async def test_health_reuses_a_fresh_answer_and_fails_a_silent_store(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """One probe answers the requests within HEALTH_FRESH_SECONDS; a store that does not
    answer within HEALTH_PROBE_SECONDS is unhealthy; an exception is unhealthy too."""
    monkeypatch.setattr(M, "HEALTH_PROBE_SECONDS", 0.02)
    store = StubStore()
    health = M.Health(cast(Store, store))
    assert await health.check() and await health.check()
    assert store.probes == 1
    monkeypatch.setattr(M, "HEALTH_FRESH_SECONDS", 0.0)
    store.delay = 5.0
    results: list[Any] = await asyncio.gather(*(health.check() for _ in range(5)))
    assert results == [False] * 5 and store.probes == 2  # one probe for all five
    await health.close()
    store.delay, store.answer = 0.0, RuntimeError("bug")
    assert not await health.check()
    store.answer = True
    assert await health.check()
    await health.close()


#: What ``/metrics`` says of the per-action series after :func:`_act_sequence`, line for
#: line, as prometheus_client's own Counter and Histogram rendered them (a ``_created``
#: sample's value, a timestamp, is ``T``): names, labels, HELP and TYPE, the latency
#: buckets' boundaries and counts, the sum. Taken from the exposition before these series
#: moved off prometheus_client's children (issue #43).
PER_ACTION_EXPOSITION = """\
# HELP cardhall_actions_accepted_total Actions applied and stored, by game
# TYPE cardhall_actions_accepted_total counter
cardhall_actions_accepted_total{game="skipper",mode="multi"} 8.0
cardhall_actions_accepted_total{game="shop",mode="-"} 3.0
# HELP cardhall_actions_accepted_created Actions applied and stored, by game
# TYPE cardhall_actions_accepted_created gauge
cardhall_actions_accepted_created{game="skipper",mode="multi"} T
cardhall_actions_accepted_created{game="shop",mode="-"} T
# HELP cardhall_actions_total Actions accepted by this process's rooms
# TYPE cardhall_actions_total counter
cardhall_actions_total 11.0
# HELP cardhall_actions_refused_total Act requests refused with an error, by game
# TYPE cardhall_actions_refused_total counter
cardhall_actions_refused_total{game="skipper",mode="multi"} 2.0
cardhall_actions_refused_total{game="shop",mode="-"} 1.0
# HELP cardhall_actions_refused_created Act requests refused with an error, by game
# TYPE cardhall_actions_refused_created gauge
cardhall_actions_refused_created{game="skipper",mode="multi"} T
cardhall_actions_refused_created{game="shop",mode="-"} T
# HELP cardhall_messages_rate_limited_total Messages refused with rate/limited
# TYPE cardhall_messages_rate_limited_total counter
cardhall_messages_rate_limited_total 3.0
# HELP cardhall_messages_rate_limited_created Messages refused with rate/limited
# TYPE cardhall_messages_rate_limited_created gauge
cardhall_messages_rate_limited_created T
# HELP cardhall_action_latency_seconds Seconds from an act request to its ok reply
# TYPE cardhall_action_latency_seconds histogram
cardhall_action_latency_seconds_bucket{le="0.0001"} 2.0
cardhall_action_latency_seconds_bucket{le="0.00025"} 3.0
cardhall_action_latency_seconds_bucket{le="0.0005"} 3.0
cardhall_action_latency_seconds_bucket{le="0.001"} 5.0
cardhall_action_latency_seconds_bucket{le="0.0025"} 5.0
cardhall_action_latency_seconds_bucket{le="0.005"} 5.0
cardhall_action_latency_seconds_bucket{le="0.01"} 5.0
cardhall_action_latency_seconds_bucket{le="0.025"} 6.0
cardhall_action_latency_seconds_bucket{le="0.05"} 6.0
cardhall_action_latency_seconds_bucket{le="0.1"} 6.0
cardhall_action_latency_seconds_bucket{le="0.25"} 6.0
cardhall_action_latency_seconds_bucket{le="1.0"} 8.0
cardhall_action_latency_seconds_bucket{le="+Inf"} 9.0
cardhall_action_latency_seconds_count 9.0
cardhall_action_latency_seconds_sum 4.822159999999999
# HELP cardhall_action_latency_seconds_created Seconds from an act request to its ok reply
# TYPE cardhall_action_latency_seconds_created gauge
cardhall_action_latency_seconds_created T
"""

#: The families of ``/metrics``, in order, with their types (every one, moved or not).
FAMILIES = [
    ("cardhall_rooms", "gauge"), ("cardhall_connections", "gauge"),
    ("cardhall_actions_accepted_total", "counter"),
    ("cardhall_actions_accepted_created", "gauge"), ("cardhall_actions_total", "counter"),
    ("cardhall_actions_refused_total", "counter"), ("cardhall_actions_refused_created", "gauge"),
    ("cardhall_games_started_total", "counter"), ("cardhall_games_started_created", "gauge"),
    ("cardhall_games_finished_total", "counter"), ("cardhall_games_finished_created", "gauge"),
    ("cardhall_game_duration_seconds", "histogram"),
    ("cardhall_game_duration_seconds_created", "gauge"),
    ("cardhall_messages_rate_limited_total", "counter"),
    ("cardhall_messages_rate_limited_created", "gauge"),
    ("cardhall_connections_closed_total", "counter"),
    ("cardhall_connections_closed_created", "gauge"),
    ("cardhall_rooms_refused_total", "counter"), ("cardhall_rooms_refused_created", "gauge"),
    ("cardhall_action_latency_seconds", "histogram"),
    ("cardhall_action_latency_seconds_created", "gauge"),
    ("cardhall_store_errors_total", "counter"),
    ("cardhall_connections_refused_total", "counter"),
    ("cardhall_connections_refused_created", "gauge"), ("cardhall_sign_ins_total", "counter")]

#: The per-action families of :data:`PER_ACTION_EXPOSITION`.
PER_ACTION = ("cardhall_actions_accepted_", "cardhall_actions_total",
              "cardhall_actions_refused_", "cardhall_messages_rate_limited_",
              "cardhall_action_latency_seconds")


def _act_sequence(metrics: M.Metrics) -> None:
    """Eight accepted actions of Skipper ``multi`` (seven with a latency: on a bucket's
    boundary, just above one, in the last, above every one; a bot's without) and three of
    Shop (below the first boundary, between two, none); three refused acts; three
    rate-limited messages."""
    skipper, shop = metrics.game("skipper", "multi"), metrics.game("shop", None)
    for seconds in (0.0001, 0.00011, 0.001, 0.0009, 1.0, 3.5, 0.3, None):
        M.observe_action(skipper, seconds)
    for seconds in (0.00005, 0.02, None):
        M.observe_action(shop, seconds)
    for bound in (skipper, skipper, shop):
        bound.refused.inc()
    for _ in range(3):
        metrics.rate_limited.inc()


def _per_action(text: str) -> str:
    """The lines of ``text`` (an exposition) of the per-action families, ``_created``
    values replaced by ``T``."""
    lines = []
    for line in text.splitlines():
        name = line.split(" ")[2] if line.startswith("#") else line
        if name.startswith(PER_ACTION):
            if not line.startswith("#") and "_created" in line.split(" ")[0]:
                line = line.rsplit(" ", 1)[0] + " T"
            lines.append(line + "\n")
    return "".join(lines)


def test_per_action_exposition_is_prometheus_clients_to_the_line() -> None:
    """The accepted, refused and rate-limited counters and the latency histogram render as
    prometheus_client's Counter and Histogram did (:data:`PER_ACTION_EXPOSITION`), and the
    families keep their order and types; each ``_created`` is when its series was made."""
    t0 = time.time()
    metrics = _metrics()
    _act_sequence(metrics)
    t1 = time.time()
    text = metrics.render().decode()
    assert _per_action(text) == PER_ACTION_EXPOSITION
    types = [tuple(line.split(" ")[2:4]) for line in text.splitlines()
             if line.startswith("# TYPE")]
    assert types == FAMILIES
    created = [float(line.rsplit(" ", 1)[1]) for line in text.splitlines()
               if line.startswith(PER_ACTION) and "_created" in line.split(" ")[0]]
    assert len(created) == 6 and all(t0 <= t <= t1 for t in created)
    parsed = _samples(metrics)  # and Prometheus' own parser reads it back
    assert parsed[("cardhall_action_latency_seconds_count", ())] == 9


def test_created_series_follow_prometheus_clients_switch() -> None:
    """``disable_created_metrics()`` drops the ``_created`` series of the per-action
    families as it does prometheus_client's own metrics'."""
    metrics = _metrics()
    _act_sequence(metrics)
    prometheus_client.disable_created_metrics()
    try:
        text = metrics.render().decode()
    finally:
        prometheus_client.enable_created_metrics()
    assert "_created" not in text
    assert _per_action(text) == "".join(
        line + "\n" for line in PER_ACTION_EXPOSITION.splitlines()
        if "_created" not in line)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(st.floats(allow_nan=True, allow_infinity=True),
                          st.sampled_from(M.LATENCY_BUCKETS)), max_size=40))
def test_latency_histogram_counts_as_prometheus_clients_histogram(values: list[float]) -> None:
    """Any observations, boundaries, infinities, negatives and NaN included: the same
    buckets, count and sum as prometheus_client's ``Histogram`` of the same bounds."""
    registry = CollectorRegistry()
    theirs = Histogram("h", "h", buckets=M.LATENCY_BUCKETS, registry=registry)
    ours = M.LatencyHistogram(M.LATENCY_BUCKETS)
    mine = CollectorRegistry()
    mine.register(M._Histogram("h", "h", ours))
    for value in values:
        theirs.observe(value)
        ours.observe(value)

    def samples(r: CollectorRegistry) -> list[tuple[str, dict[str, str], float]]:
        return [(s.name, s.labels, s.value) for f in r.collect() for s in f.samples
                if not s.name.endswith("_created")]

    assert repr(samples(mine)) == repr(samples(registry))  # repr: NaN sums compare too


def test_latency_histogram_refuses_unsorted_bounds() -> None:
    with pytest.raises(ValueError, match="ascending"):
        M.LatencyHistogram((1.0, 0.5))
    assert M.LatencyHistogram((1.0, math.inf)).le == ["1.0", "+Inf"]
