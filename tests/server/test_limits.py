"""Tests of the abuse limits (``cardhall.server.limits``) on a fake clock: what
tests/server/test_hardening.py does not cover (takes of several tokens, keyed buckets and
their sweep)."""

from __future__ import annotations

import pytest
from cardhall.server.limits import KeyedBuckets, TokenBucket, address_key


class Clock:
    """A monotonic clock that moves only when told (seconds)."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_refused_take_takes_nothing_and_wait_time_says_when() -> None:
    """Asking for more than is there leaves the tokens alone; at 2 tokens/s one missing token
    is 0.5 s away, and the bucket never fills past its capacity."""
    clock = Clock()
    bucket = TokenBucket(rate=2, capacity=3, clock=clock)
    assert bucket.take(2.5) and bucket.tokens == pytest.approx(0.5)
    assert not bucket.take(1) and bucket.tokens == pytest.approx(0.5)
    assert bucket.wait_time(1) == pytest.approx(0.25)
    assert bucket.wait_time(0.5) == 0.0


def test_keyed_buckets_are_one_burst_per_key() -> None:
    """Each key has its own full bucket: one address's flood does not spend another's."""
    clock = Clock()
    buckets = KeyedBuckets(rate=1, capacity=2, clock=clock)
    assert [buckets.take("a") for _ in range(3)] == [True, True, False]
    assert buckets.take("b") and len(buckets) == 2
    clock.now += 1
    assert buckets.take("a") and not buckets.take("a")


def test_full_buckets_are_swept_once_more_than_max_keys_are_held() -> None:
    """Memory stays bounded: buckets that refilled are dropped, a spent one is kept (it still
    limits its key); a sweep runs at most once per ``max_keys`` new keys."""
    clock = Clock()
    buckets = KeyedBuckets(rate=1, capacity=5, max_keys=3, clock=clock)
    for key in ("a", "b", "c"):
        assert buckets.take(key)
    clock.now += 10  # a, b and c are full again
    assert buckets.take("spent", 5)
    assert len(buckets) == 1  # the sweep ran before "spent" was added
    for key in ("d", "e"):
        assert buckets.take(key)
    assert len(buckets) == 3  # below the sweep point (0 left + 3), no sweep
    clock.now += 10  # d and e are full again; "spent" is spent once more
    assert buckets.take("spent", 5)
    assert buckets.take("f")
    assert len(buckets) == 2  # spent (empty) and f; d and e were full
    assert not buckets.take("spent")
    clock.now += 10  # f is full again, spent is spent again
    assert buckets.take("spent", 5) and buckets.take("g") and buckets.take("h")
    assert len(buckets) == 4  # the next sweep waits for max_keys new keys (2 kept + 3)


@pytest.mark.parametrize("rate, capacity", [(0, 1), (-1, 5), (1, 0.5)])
def test_keyed_buckets_check_their_arguments(rate: float, capacity: float) -> None:
    """The same ValueError a single bucket raises, at construction."""
    with pytest.raises(ValueError, match="rate > 0 and capacity >= 1"):
        KeyedBuckets(rate, capacity)


def test_address_key_groups_ipv6_by_network() -> None:
    """Issue #41 item 5: IPv4 unchanged, IPv4-mapped IPv6 as IPv4, other IPv6 by its /64 (or
    the prefix asked for; 128: the address alone), anything else unchanged."""
    assert address_key("203.0.113.7") == "203.0.113.7"
    assert address_key("::ffff:203.0.113.7") == "203.0.113.7"
    assert address_key("2001:db8:1:2:3:4:5:6") == "2001:db8:1:2::/64"
    assert address_key("2001:DB8:1:2::9") == address_key("2001:db8:1:2:ffff::1")
    assert address_key("2001:db8:1:3::9") == "2001:db8:1:3::/64"
    assert address_key("2001:db8:1:2:3::6", 48) == "2001:db8:1::/48"
    assert address_key("2001:db8:1:2:3::6", 128) == "2001:db8:1:2:3::6"
    assert address_key("fe80::1%eth0", 128) == "fe80::1"
    assert address_key("2001:db8::1", 0) == "::/0"
    for other in ("?", "", "not:an:address"):
        assert address_key(other) == other
    for bad in (-1, 129):
        with pytest.raises(ValueError):
            address_key("2001:db8::1", bad)
