"""Admission at accept: the total and per-address connection caps, the HTTP request-header
deadline, and the PROXY protocol header of trusted proxies.

Every check here runs when a TCP connection is accepted, before any HTTP is read, so a
client that opens sockets and never finishes a request (slowloris) holds at most
``max_connections_per_address`` descriptors, each for at most ``header_timeout`` seconds,
and the whole server never holds more than ``max_connections`` sockets: descriptors stay in
reserve for Redis, logs and other clients.

:class:`Admission` makes these checks for one socket, called from its driver's asyncio
protocol callbacks (``connection_made``, ``data_received``, ``connection_lost``:
:class:`~.driver.Socket`); :class:`Gate` holds the counts of one server. The PROXY protocol
(v1 text and v2 binary, as haproxy's ``send-proxy``/``send-proxy-v2`` send it) is parsed by
the ``proxy-protocol`` library.
"""

from __future__ import annotations

import asyncio
import collections
import ipaddress
import logging
import resource
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from proxyprotocol import ProxyProtocolIncompleteError
from proxyprotocol.detect import ProxyProtocolDetect
from proxyprotocol.result import is_ipv4, is_ipv6

from .limits import AddressCounter, address_key
from .logs import event

if TYPE_CHECKING:
    from .config import Settings

__all__ = ["Admission", "Gate", "default_max_connections", "log_fd_limit",
           "proxy_header_ahead", "raise_fd_limit"]

log = logging.getLogger("cardhall.admission")

#: Longest PROXY header accepted, bytes: a v1 line is at most 107; a v2 header is 16 bytes
#: plus addresses (at most 216) and TLVs (haproxy sends a few dozen bytes of them).
MAX_PROXY_HEADER = 1024
#: Seconds between two ``conn_refused`` log lines of one reason (a flood logs one line a
#: second with the count of the refusals since the last line, not one line per socket).
REFUSAL_LOG_INTERVAL = 1.0

_PROXY = ProxyProtocolDetect()
#: How a PROXY header begins: v2's 12-byte signature (haproxy's ``send-proxy-v2``) and v1's
#: ``PROXY `` (``send-proxy``). No HTTP request begins with either.
PROXY_SIGNATURES = (b"\r\n\r\n\x00\r\nQUIT\n", b"PROXY ")


def proxy_header_ahead(data: bytes) -> bool | None:
    """Whether a stream that begins with ``data`` begins with a PROXY header.

    Args:
        data: The first bytes received on a connection (any number, none included).

    Returns:
        True when ``data`` begins with a signature of :data:`PROXY_SIGNATURES`, False when it
        cannot (e.g. ``b"GET / HTTP/1.1..."``), None while it is too short to tell (a prefix
        of a signature, or empty).
    """
    for signature in PROXY_SIGNATURES:
        n = min(len(data), len(signature))
        if data[:n] == signature[:n]:
            return True if n == len(signature) else None
    return False


def raise_fd_limit(*, announce: bool = True) -> tuple[int, int]:
    """Raise this process's soft limit of open file descriptors (``RLIMIT_NOFILE``) to its
    hard limit, and log both.

    Args:
        announce: Log the limits at INFO now (``event=fd_limit``). False leaves that line to
            the caller (``cardhall serve`` logs it once it listens: :func:`log_fd_limit`,
            so that a port in use is its only line); a refusal is logged at WARNING either
            way.

    Returns:
        ``(soft, hard)`` after the change (the soft limit is unchanged when the system
        refuses: it is logged at WARNING).
    """
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != hard:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
        except (ValueError, OSError) as exc:
            event(log, logging.WARNING, "fd_limit", soft=soft, hard=hard,
                  reason=f"cannot raise the soft limit: {exc}")
            return soft, hard
        if announce:
            log_fd_limit(hard, hard, was=soft)
        return hard, hard
    if announce:
        log_fd_limit(soft, hard)
    return soft, hard


def log_fd_limit(soft: int, hard: int, was: int | None = None) -> None:
    """Log the descriptor limits at INFO (``event=fd_limit soft= hard=``, and ``was=``, the
    soft limit before :func:`raise_fd_limit` raised it, when it did)."""
    facts = {"soft": soft, "hard": hard} if was is None else {"soft": soft, "hard": hard,
                                                               "was": was}
    event(log, logging.INFO, "fd_limit", **facts)


def default_max_connections(reserve: int) -> int:
    """The total connection cap when none is set: the soft descriptor limit less
    ``reserve`` descriptors (at least half the soft limit, so a low limit still serves).

    Args:
        reserve: Descriptors kept for everything but client sockets (Redis, logs, the
            listening socket, sockets accepted but not yet counted).

    Returns:
        Most client sockets the server holds at once (>= 1).
    """
    soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    if soft == resource.RLIM_INFINITY:
        soft = 1 << 20
    return max(1, soft - reserve, soft // 2)


class Gate:
    """Admission counts of one server: open sockets in all, and per client address.

    Args:
        settings: ``max_connections_per_address``, ``header_timeout``, ``trusted_proxies``
            and ``ipv6_prefix`` are read from it.
        max_connections: Most sockets (handshakes included) held at once.
        on_refuse: Called with the reason of each refused socket (the metrics counter).

    Attributes:
        addresses: Open connections per client address key (:func:`~.limits.address_key`
            of the real client's address for a connection through a trusted proxy: an
            IPv6 address counts by its ``ipv6_prefix`` network).
        open: Sockets counted now.
        refused: Sockets refused so far, by reason (``server full``, ``address full``,
            ``bad proxy header``, ``header timeout``).
    """

    def __init__(self, settings: Settings, max_connections: int,
                 on_refuse: Callable[[str], None] | None = None) -> None:
        self.settings = settings
        self.max_connections = max_connections
        self.addresses = AddressCounter(settings.max_connections_per_address)
        self.trusted = tuple(ipaddress.ip_network(net, strict=False)
                             for net in settings.trusted_proxies)
        self.open = 0
        self.refused: collections.Counter[str] = collections.Counter()
        self._on_refuse = on_refuse
        self._logged: dict[str, tuple[float, int]] = {}  # reason -> (last line, count then)

    def is_trusted(self, address: str) -> bool:
        """True when ``address`` is in one of ``trusted_proxies`` (its connections must begin
        with a PROXY header)."""
        if not self.trusted:
            return False
        try:
            ip = ipaddress.ip_address(address)
        except ValueError:
            return False
        return any(ip in net for net in self.trusted)

    def refuse(self, reason: str, addr: str) -> None:
        """Count a refused socket, and log it (``conn_refused``, WARNING) at most once every
        ``REFUSAL_LOG_INTERVAL`` seconds per reason, with how many were refused since."""
        self.refused[reason] += 1
        if self._on_refuse is not None:
            self._on_refuse(reason)
        now = time.monotonic()
        last, count = self._logged.get(reason, (-REFUSAL_LOG_INTERVAL, 0))
        if now - last >= REFUSAL_LOG_INTERVAL:
            event(log, logging.WARNING, "conn_refused", addr=addr, reason=reason,
                  refused=self.refused[reason] - count)
            self._logged[reason] = (now, self.refused[reason])


class Transport(Protocol):
    """What admission uses of a socket's transport (the driver's has more)."""

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        """``peername`` and the like."""

    def abort(self) -> None:
        """Close now (a TCP reset)."""


class Admission:
    """One socket's admission by a :class:`Gate` (its driver, :class:`~.driver.Socket`,
    calls it from its asyncio protocol callbacks).

    * :meth:`made` (``connection_made``): over ``max_connections`` sockets in all, or over
      ``max_connections_per_address`` from this address, the transport is aborted at once
      (a TCP reset; no HTTP is read). Otherwise a timer of ``header_timeout`` seconds starts:
      a connection whose HTTP request (and PROXY header) has not fully arrived by then is
      aborted.
    * :meth:`received` (``data_received``): from a trusted proxy (``trusted_proxies``), a
      stream that begins with a PROXY protocol v1 or v2 signature
      (:func:`proxy_header_ahead`) is read as a PROXY header; the client address it names is
      counted against the per-address cap and is this connection's :attr:`client`. A
      malformed header aborts the connection. A stream that begins otherwise (an operator's
      ``curl .../metrics`` or ``cardhall admin`` on the proxy's host) is a direct connection
      of that host, counted under its own address. Only trusted hosts are read this way: a
      proxy in front of players always sends the header, so no player can choose to skip it.
    * :meth:`lost` (``connection_lost``): the counts are given back.

    With TLS (``certfile``), asyncio calls ``connection_made`` after the TLS handshake, which
    is bounded by ``header_timeout`` too (``ssl_handshake_timeout``).

    Args:
        gate: The counts and limits of the server.
        requested: Tells whether the socket's HTTP request has fully arrived (read when the
            header timer fires).

    Attributes:
        client: The client's ``(host, port)`` named by a PROXY header; None: none was.
    """

    def __init__(self, gate: Gate, requested: Callable[[], bool]) -> None:
        self.gate = gate
        self.client: tuple[str, int] | None = None
        self._requested = requested
        self._transport: Transport | None = None
        self._counted = False
        self._address: str | None = None  # the key counted in gate.addresses
        self._proxy_buffer: bytearray | None = None  # bytes received while a PROXY header
        self._proxy_header: bytearray | None = None  # is awaited, and that header so far
        self._timer: asyncio.TimerHandle | None = None

    def socket_ip(self) -> str:
        """The IP address at the socket's other end (the proxy's, behind one); ``"?"`` when
        none."""
        transport = self._transport
        remote = None if transport is None else transport.get_extra_info("peername")
        return str(remote[0]) if isinstance(remote, tuple) and remote else "?"

    def made(self, transport: Transport) -> bool:
        """Count the socket at accept; abort it at once and return False when a cap is
        reached."""
        self._transport = transport
        gate = self.gate
        addr = self.socket_ip()
        if gate.open >= gate.max_connections:
            gate.refuse("server full", addr)
            transport.abort()
            return False
        gate.open += 1
        self._counted = True
        if gate.is_trusted(addr):
            self._proxy_buffer = bytearray()
            self._proxy_header = bytearray()
        elif not self._count(addr):
            return False
        self._timer = asyncio.get_running_loop().call_later(gate.settings.header_timeout,
                                                            self._header_expired)
        return True

    def _count(self, addr: str) -> bool:
        """Count ``addr``'s connection under its key (:func:`~.limits.address_key`); abort
        and return False when that key holds too many."""
        gate = self.gate
        key = address_key(addr, gate.settings.ipv6_prefix)
        if not gate.addresses.acquire(key):
            gate.refuse("address full", addr)
            self._abort()
            return False
        self._address = key
        return True

    def _abort(self) -> None:
        if self._transport is not None:
            self._transport.abort()

    def _header_expired(self) -> None:
        self._timer = None
        if not self._requested():
            self.gate.refuse("header timeout", self._address or self.socket_ip())
            self._abort()

    def requested(self) -> None:
        """The HTTP request has arrived: the header timer is not needed any more."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def received(self, data: bytes) -> bytes:
        """The bytes of ``data`` to hand to websockets: all of them, unless a PROXY header is
        due (then the bytes after it once it is complete; b"" while it is incomplete, or when
        the connection was aborted)."""
        if self._proxy_buffer is None:
            return data
        return self._read_proxy(data)

    def _read_proxy(self, data: bytes) -> bytes:
        """Add ``data`` to the PROXY header being read. Returns the bytes after a complete
        header (b"" while it is incomplete, or when the connection was aborted)."""
        buffer = self._proxy_buffer
        assert buffer is not None
        buffer += data
        header = self._proxy_header
        assert header is not None
        if not header:
            ahead = proxy_header_ahead(bytes(buffer[:len(PROXY_SIGNATURES[0])]))
            if ahead is None:
                return b""  # a signature's first bytes so far: wait for the rest
            if not ahead:  # the trusted host itself, without a proxy in between
                self._proxy_buffer = self._proxy_header = None
                return bytes(buffer) if self._count(self.socket_ip()) else b""
        while True:
            try:
                result = _PROXY.unpack(bytes(header))
                break
            except ProxyProtocolIncompleteError as exc:
                want = exc.want_read
                if want.want_bytes is not None:
                    if len(buffer) < want.want_bytes:
                        return self._proxy_short()
                    n = want.want_bytes
                else:
                    end = buffer.find(b"\n")
                    if end < 0:
                        return self._proxy_short()
                    n = end + 1
                header += buffer[:n]
                del buffer[:n]
                if len(header) > MAX_PROXY_HEADER:
                    return self._proxy_bad("header too long")
            except Exception as exc:  # noqa: BLE001 - syntax, checksum, address errors are
                # ValueErrors, a v2 address block shorter than its family's is struct.error:
                # any of them is a bad header, never an error of the event loop.
                return self._proxy_bad(str(exc) or type(exc).__name__)
        self._proxy_buffer = self._proxy_header = None
        if is_ipv4(result) or is_ipv6(result):
            self.client = (str(result.source[0]), int(result.source[1]))
        # LOCAL (a health check of the proxy itself) or UNKNOWN: the proxy's own address.
        addr = self.client[0] if self.client is not None else self.socket_ip()
        if not self._count(addr):
            return b""
        return bytes(buffer)

    def _proxy_short(self) -> bytes:
        assert self._proxy_buffer is not None and self._proxy_header is not None
        if len(self._proxy_buffer) + len(self._proxy_header) > MAX_PROXY_HEADER:
            return self._proxy_bad("header too long")
        return b""

    def _proxy_bad(self, why: str) -> bytes:
        self._proxy_buffer = self._proxy_header = None
        addr = self.socket_ip()
        event(log, logging.DEBUG, "proxy_header_refused", addr=addr, reason=why)
        self.gate.refuse("bad proxy header", addr)
        self._abort()
        return b""

    def lost(self) -> None:
        """Give the counts back (the socket closed)."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self._address is not None:
            self.gate.addresses.release(self._address)
            self._address = None
        if self._counted:
            self.gate.open -= 1
            self._counted = False
