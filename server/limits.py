"""Abuse limits: a token bucket (messages per second, rooms per minute), token buckets by key
(rooms per minute per client address) and a per-address connection counter; and the key of a
client address under every per-address limit (:func:`address_key`: IPv6 by network).

Both are plain synchronous objects for the event-loop thread: checking a limit never awaits
and never blocks, it answers yes or no (the caller refuses the message, or the connection).

Why a small class rather than a library: the maintained rate limiters on PyPI do not fit a
per-message check on the event loop. ``limits`` (moving/sliding windows) keeps its memory
storage behind per-key ``threading`` locks, reads the wall clock, and restarts a
``threading.Timer`` sweep every 10 ms while hits arrive, so a flood would also cost a thread
start per 10 ms and GIL contention with the loop; ``aiolimiter`` consumes capacity only
through ``await acquire()``, which is built to delay a caller, not to refuse it;
``pyrate-limiter`` runs a background leak thread per limiter. A token bucket is a dozen lines
of arithmetic on :func:`time.monotonic`.
"""

from __future__ import annotations

import ipaddress
import time
from collections.abc import Callable

__all__ = ["AddressCounter", "KeyedBuckets", "TokenBucket", "address_key"]

#: The default length (bits) of the IPv6 prefix that counts as one client address.
IPV6_PREFIX = 64


def address_key(address: str, ipv6_prefix: int = IPV6_PREFIX) -> str:
    """The key a client address counts under in every per-address limit (connections, new
    rooms, sign-ins, new guests, failed look-ups).

    One IPv6 host commonly holds a whole /64 (SLAAC, privacy addresses), so keying on the
    full address would give it 2**64 budgets: IPv6 addresses count by their network.

    Args:
        address: The client's IP address as text (``"203.0.113.7"``, ``"2001:db8::1"``,
            ``"::ffff:203.0.113.7"``), or anything else (``"?"`` when the socket has none).
        ipv6_prefix: Leading bits of an IPv6 address that make its key, 0..128 (64: a
            /64 network; 128: the address itself).

    Returns:
        An IPv4 address unchanged; an IPv4-mapped IPv6 address as its IPv4 address; another
        IPv6 address as its network in CIDR notation (``"2001:db8:1:2::/64"``; with
        ``ipv6_prefix`` 128 the compressed address alone, its zone dropped); text that is
        no IP address unchanged.

    Raises:
        ValueError: ``ipv6_prefix`` is not in 0..128.
    """
    if not 0 <= ipv6_prefix <= 128:
        raise ValueError(f"ipv6_prefix must be in 0..128, not {ipv6_prefix}")
    if ":" not in address:  # IPv4 (or no IP address at all): as it is
        return address
    try:
        ip = ipaddress.IPv6Address(address)
    except ValueError:
        return address
    mapped = ip.ipv4_mapped
    if mapped is not None:
        return str(mapped)
    host = 128 - ipv6_prefix
    net = ipaddress.IPv6Network(((int(ip) >> host) << host, ipv6_prefix))
    return str(net.network_address) if ipv6_prefix == 128 else str(net)


class TokenBucket:
    """A token bucket: ``capacity`` tokens, refilled continuously at ``rate`` tokens a second.

    A fresh bucket is full, so a client may send a burst of ``capacity`` messages at once and
    then ``rate`` messages a second on average.

    Args:
        rate: Tokens added per second (e.g. messages/s). Must be > 0.
        capacity: Most tokens the bucket holds (the burst size). Must be >= 1.
        clock: Monotonic clock in seconds (tests pass a fake one).

    Raises:
        ValueError: ``rate`` <= 0 or ``capacity`` < 1.
    """

    __slots__ = ("_clock", "_stamp", "_tokens", "capacity", "rate")

    def __init__(self, rate: float, capacity: float,
                 clock: Callable[[], float] = time.monotonic) -> None:
        if rate <= 0 or capacity < 1:
            raise ValueError(f"token bucket needs rate > 0 and capacity >= 1, got {rate}, "
                             f"{capacity}")
        self.rate = float(rate)
        self.capacity = float(capacity)
        self._clock = clock
        self._tokens = self.capacity
        self._stamp = clock()

    def _refill(self) -> float:
        now = self._clock()
        self._tokens = min(self.capacity, self._tokens + (now - self._stamp) * self.rate)
        self._stamp = now
        return self._tokens

    def take(self, n: float = 1.0) -> bool:
        """Take ``n`` tokens if there are that many. Returns False (and takes none) if not."""
        if self._refill() >= n:
            self._tokens -= n
            return True
        return False

    def wait_time(self, n: float = 1.0) -> float:
        """Seconds until ``n`` tokens are there (0.0 when they are there now)."""
        missing = n - self._refill()
        return max(0.0, missing / self.rate)

    @property
    def tokens(self) -> float:
        """Tokens in the bucket now."""
        return self._refill()


class KeyedBuckets:
    """One :class:`TokenBucket` per key (a client address, later an account), made full on
    a key's first use.

    A bucket that has refilled to full holds nothing a fresh one would not, so such buckets
    are dropped once more than ``max_keys`` keys are held (a sweep of all of them, at most
    once per ``max_keys`` new keys): memory stays bounded by the keys active within about
    ``capacity / rate`` seconds.

    Args:
        rate: Tokens added per second to each bucket. Must be > 0.
        capacity: Most tokens a bucket holds (the burst). Must be >= 1.
        max_keys: Keys held before full buckets are swept out.
        clock: Monotonic clock in seconds (tests pass a fake one).

    Raises:
        ValueError: ``rate`` <= 0 or ``capacity`` < 1.
    """

    def __init__(self, rate: float, capacity: float, max_keys: int = 10_000,
                 clock: Callable[[], float] = time.monotonic) -> None:
        TokenBucket(rate, capacity, clock)  # checks the arguments
        self.rate, self.capacity, self.max_keys = rate, capacity, max_keys
        self._clock = clock
        self._buckets: dict[str, TokenBucket] = {}
        self._sweep_at = max_keys

    def take(self, key: str, n: float = 1.0) -> bool:
        """Take ``n`` tokens from ``key``'s bucket if it holds that many. Returns False (and
        takes none) if not."""
        bucket = self._buckets.get(key)
        if bucket is None:
            if len(self._buckets) >= self._sweep_at:
                self._sweep()
            bucket = self._buckets[key] = TokenBucket(self.rate, self.capacity, self._clock)
        return bucket.take(n)

    def _sweep(self) -> None:
        self._buckets = {k: b for k, b in self._buckets.items() if b.tokens < b.capacity}
        self._sweep_at = len(self._buckets) + self.max_keys

    def __len__(self) -> int:
        """Number of keys held."""
        return len(self._buckets)


class AddressCounter:
    """Open connections per client address, with a cap.

    Args:
        limit: Most connections one address may hold at once; None: no limit (still counted).
    """

    def __init__(self, limit: int | None) -> None:
        self.limit = limit
        self._open: dict[str, int] = {}

    def acquire(self, address: str) -> bool:
        """Count one more connection from ``address``. Returns False (and counts nothing)
        when the address already holds ``limit`` connections."""
        n = self._open.get(address, 0)
        if self.limit is not None and n >= self.limit:
            return False
        self._open[address] = n + 1
        return True

    def release(self, address: str) -> None:
        """Count one connection from ``address`` less (it closed)."""
        n = self._open.get(address, 0) - 1
        if n > 0:
            self._open[address] = n
        else:
            self._open.pop(address, None)

    def count(self, address: str) -> int:
        """Connections ``address`` holds now."""
        return self._open.get(address, 0)

    def __len__(self) -> int:
        """Number of addresses with at least one connection."""
        return len(self._open)
