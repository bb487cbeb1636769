"""Tests of the metrics and health of one process (``cardhall.server.metrics``) over a stub
store, without a server: the exposition's series, the bounded labels, the sum counter, and
``/healthz``'s cached probe. (tests/server/test_ops.py scrapes a live server.)"""

from __future__ import annotations

import asyncio
from typing import Any, cast

import pytest
from cardhall.server import metrics as M
from cardhall.server.store.ports import Store
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
