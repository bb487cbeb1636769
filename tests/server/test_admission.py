"""Tests of the admission gate's parts without sockets (``cardhall.server.admission``):
trusted proxies, refusals counted and logged at most once a second per reason, the default
connection cap. (tests/server/test_abuse.py drives real sockets through it.)"""

from __future__ import annotations

import logging
import resource

import pytest
from cardhall.server import admission as A
from cardhall.server.config import Settings


def test_only_addresses_in_trusted_networks_are_proxies() -> None:
    """IPv4 and IPv6 networks; junk is not trusted; no networks: nobody is."""
    gate = A.Gate(Settings(trusted_proxies=("10.0.0.0/8", "fd00::/8")), 100)
    assert gate.is_trusted("10.1.2.3") and gate.is_trusted("fd00::5")
    assert not gate.is_trusted("11.0.0.1") and not gate.is_trusted("not-an-ip")
    assert not A.Gate(Settings(), 100).is_trusted("10.1.2.3")
    assert A.Gate(Settings(max_connections_per_address=2), 10).addresses.limit == 2


def test_a_flood_of_refusals_logs_one_line_a_second_per_reason(
        caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every refusal is counted (and told to ``on_refuse``); a line per reason per
    REFUSAL_LOG_INTERVAL, saying how many were refused since the last line."""
    now = [1000.0]
    monkeypatch.setattr(A.time, "monotonic", lambda: now[0])
    told: list[str] = []
    gate = A.Gate(Settings(), 10, on_refuse=told.append)
    caplog.set_level(logging.WARNING, logger="cardhall.admission")
    for _ in range(5):
        gate.refuse("server full", "1.2.3.4")
    gate.refuse("address full", "5.6.7.8")
    now[0] += A.REFUSAL_LOG_INTERVAL
    gate.refuse("server full", "1.2.3.4")
    lines = [(r.reason, r.refused) for r in caplog.records  # type: ignore[attr-defined]
             if r.getMessage() == "conn_refused"]
    assert lines == [("server full", 1), ("address full", 1), ("server full", 5)]
    assert gate.refused == {"server full": 6, "address full": 1} and len(told) == 7


@pytest.mark.parametrize("soft, reserve, cap", [
    (4096, 128, 3968), (200, 128, 100), (1, 128, 1), (resource.RLIM_INFINITY, 128, (1 << 20) - 128),
])
def test_the_default_cap_is_the_soft_limit_less_the_reserve(
        monkeypatch: pytest.MonkeyPatch, soft: int, reserve: int, cap: int) -> None:
    """At least half the soft limit, at least 1; an unlimited soft limit counts as 2**20."""
    monkeypatch.setattr(A.resource, "getrlimit", lambda _which: (soft, soft))
    assert A.default_max_connections(reserve) == cap


def test_raising_the_fd_limit_logs_what_it_was(monkeypatch: pytest.MonkeyPatch,
                                               caplog: pytest.LogCaptureFixture) -> None:
    """Soft raised to hard, logged with ``was``; a refusal keeps the soft limit, at WARNING."""
    limits = [(1024, 4096)]
    monkeypatch.setattr(A.resource, "getrlimit", lambda _which: limits[0])
    monkeypatch.setattr(A.resource, "setrlimit", lambda _which, new: limits.append(new))
    caplog.set_level(logging.INFO, logger="cardhall.admission")
    assert A.raise_fd_limit() == (4096, 4096) and limits[-1] == (4096, 4096)
    assert caplog.records[-1].was == 1024  # type: ignore[attr-defined]

    def refuse(_which: int, _new: tuple[int, int]) -> None:
        raise ValueError("not allowed")

    monkeypatch.setattr(A.resource, "setrlimit", refuse)
    assert A.raise_fd_limit(announce=False) == (1024, 4096)
    assert caplog.records[-1].levelno == logging.WARNING
