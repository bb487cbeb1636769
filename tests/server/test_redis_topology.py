"""Tests of the Redis connection forms (``cardhall.server.store.redis_topology``) without a Redis:
node parsing, the form's checks, descriptions that never show a password, and a probe of
nothing failing fast. (tests/e2e/test_redis_ha.py connects to real Sentinels and Clusters.)"""

from __future__ import annotations

import time

import pytest
import redis
from cardhall.server.store.redis_topology import RedisTarget, parse_node


@pytest.mark.parametrize("text, node", [
    ("127.0.0.1:6379", ("127.0.0.1", 6379)), (" redis-a:26379 ", ("redis-a", 26379)),
    ("[::1]:7000", ("::1", 7000)), ("h:65535", ("h", 65535)),
])
def test_nodes_are_host_and_port(text: str, node: tuple[str, int]) -> None:
    """An IPv6 address in brackets loses them."""
    assert parse_node(text) == node


@pytest.mark.parametrize("text", ["h", ":6379", "h:", "h:0", "h:65536", "h:port", "h:-1", ""])
def test_a_node_without_a_good_port_or_a_host_is_refused(text: str) -> None:
    """ValueError naming the text (``cardhall serve`` shows it as a bad parameter)."""
    with pytest.raises(ValueError, match="is not HOST:PORT"):
        parse_node(text)


@pytest.mark.parametrize("fields, needle", [
    ({}, "exactly one of"),
    ({"url": "redis://h:1/0", "cluster": (("h", 1),)}, "exactly one of"),
    ({"cluster": (("h", 1),), "db": 2}, "database 0 only"),
    ({"sentinels": (("h", 1),), "db": -1}, "0 or more"),
    ({"url": "redis://h:1/0", "tls": True}, "give a rediss:// URL"),
])
def test_a_target_is_exactly_one_consistent_form(fields: dict[str, object], needle: str) -> None:
    """Each inconsistency is a ValueError saying what to give."""
    with pytest.raises(ValueError, match=needle):
        RedisTarget(**fields)  # type: ignore[arg-type]


def test_kinds_and_the_replicas_a_write_waits_for() -> None:
    """A lone Redis waits for none; Sentinel and Cluster for one (a failover promotes a
    replica, which must hold every acknowledged action)."""
    lone = RedisTarget(url="rediss://h:1/0", tls=True)
    sentinel = RedisTarget(sentinels=(("s1", 26379), ("s2", 26379)), db=3)
    cluster = RedisTarget(cluster=(("c1", 7000),))
    assert [t.kind for t in (lone, sentinel, cluster)] == ["url", "sentinel", "cluster"]
    assert [t.default_min_replicas() for t in (lone, sentinel, cluster)] == [0, 1, 1]
    assert cluster.is_cluster and not sentinel.is_cluster


@pytest.mark.parametrize("target, said", [
    (RedisTarget(url="redis://:hunter2@h:6379/0"), "redis://:***@h:6379/0"),
    (RedisTarget(url="redis://app:hunter2@h:6379/1"), "redis://app:***@h:6379/1"),
    (RedisTarget(url="redis://h:6379/0", password="hunter2"), "redis://h:6379/0"),
    (RedisTarget(sentinels=(("s1", 1), ("s2", 2)), service="cardhall", db=2,
                 sentinel_password="hunter2"),
     "Sentinel master 'cardhall' (db 2) via s1:1,s2:2"),
    (RedisTarget(cluster=(("c1", 7000), ("c2", 7001)), password="hunter2"),
     "Redis Cluster via c1:7000,c2:7001"),
])
def test_a_description_never_shows_a_password(target: RedisTarget, said: str) -> None:
    """What logs and error lines say of the target."""
    assert target.describe() == said and "hunter2" not in target.describe()


async def test_probing_nothing_fails_within_its_timeout() -> None:
    """A port where nothing listens: a connection error, not a hang."""
    start = time.monotonic()
    with pytest.raises((redis.RedisError, OSError, TimeoutError)):
        await RedisTarget(url="redis://127.0.0.1:1/0").probe(timeout=1.0)
    assert time.monotonic() - start < 5.0
