"""Abuse at the socket level: slowloris (sockets that never finish their HTTP request), the
total connection cap, readers that stop reading, and the PROXY protocol of trusted proxies.

Servers listen on 127.0.0.1 (free ports); clients from "other addresses" bind their sockets
to 127.0.0.2 (all of 127/8 is loopback on Linux). Every loop is bounded in count and time.
"""

from __future__ import annotations

import asyncio
import json
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import AsyncIterator, Iterator
from ipaddress import IPv4Address
from pathlib import Path
from typing import Any

import pytest
import websockets
from cardhall import protocol as p
from cardhall.client.client import Client
from cardhall.bench.procs import free_port
from cardhall.server.admission import proxy_header_ahead
from cardhall.server.config import Settings
from cardhall.server.store.memory_store import MemoryStore
from proxyprotocol.result import ProxyResultIPv4, ProxyResultLocal
from proxyprotocol.v2 import ProxyProtocolV2
from websockets.exceptions import InvalidMessage

from ..conftest import ServerFactory as Factory
from ..conftest import ServeProcess, serving

ROOT = Path(__file__).resolve().parents[2]
PARTIAL_REQUEST = b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n"  # ... and never the blank line


@pytest.fixture
async def aserver() -> AsyncIterator[Factory]:
    """Start servers (memory store, the default limits) on 127.0.0.1; stopped after the
    test."""
    async with serving(MemoryStore) as make:
        yield make


async def until(pred: Any, timeout: float = 5.0) -> None:
    """Wait (polling every 10 ms, at most ``timeout`` s) until ``pred()`` is true."""
    async with asyncio.timeout(timeout):
        while not pred():
            await asyncio.sleep(0.01)


async def tcp(port: int, source: str = "127.0.0.1", data: bytes = b"",
              timeout: float = 3.0) -> socket.socket:
    """A non-blocking TCP socket from ``source`` to 127.0.0.1:``port`` that sent ``data``.

    Raises:
        TimeoutError: not connected within ``timeout`` seconds.
    """
    loop = asyncio.get_running_loop()
    sock = socket.socket()
    sock.setblocking(False)
    try:
        sock.bind((source, 0))
        async with asyncio.timeout(timeout):
            await loop.sock_connect(sock, ("127.0.0.1", port))
            if data:
                await loop.sock_sendall(sock, data)
    except BaseException:
        sock.close()
        raise
    return sock


async def stall(port: int) -> socket.socket:
    """A socket from 127.0.0.1 that sent the start of an HTTP request (or was reset before it
    could: the server may refuse it at accept)."""
    sock = await tcp(port, timeout=5)
    try:
        await asyncio.get_running_loop().sock_sendall(sock, PARTIAL_REQUEST)
    except OSError:
        pass
    return sock


async def closed_by_peer(sock: socket.socket, timeout: float) -> bool:
    """True when the server closes or resets ``sock`` within ``timeout`` seconds (whatever
    it sent before: an HTTP 429/400 or nothing)."""
    loop = asyncio.get_running_loop()
    try:
        async with asyncio.timeout(timeout):
            while await loop.sock_recv(sock, 4096):
                pass
    except (ConnectionResetError, BrokenPipeError):
        return True
    except TimeoutError:
        return False
    return True


async def hello(url: str, sock: socket.socket | None = None, **kwargs: Any) -> Any:
    """A websockets client after its hello (on ``sock`` when given)."""
    ws = await websockets.connect(url, sock=sock, compression=None, **kwargs)
    await ws.send(p.encode(p.Hello(v=1, client="abuse-test")))
    assert isinstance(p.decode(await ws.recv(), side="server"), p.Welcome)
    return ws


def http_get(url: str, headers: dict[str, str] | None = None) -> tuple[int, bytes]:
    """``(status, body)`` of a plain HTTP GET (no PROXY header), as curl sends it."""
    request = urllib.request.Request(url, headers=headers or {})
    with urllib.request.urlopen(request, timeout=5) as response:
        return response.status, response.read()


# -- slowloris ------------------------------------------------------------------------------


#: ``python -c`` program: set the descriptor limit (soft and hard), then run the CLI.
LIMITED = """import resource, sys
resource.setrlimit(resource.RLIMIT_NOFILE, ({nofile}, {nofile}))
from cardhall.cli import main
sys.argv[0] = "cardhall"
main()
"""


@pytest.fixture
def limited(tmp_path: Path) -> Iterator[ServeProcess]:
    """A ``cardhall serve`` (memory store) whose file descriptors are limited to 256 (soft
    and hard), so running out of them is quick to reach; 20 connections per address."""
    server = ServeProcess(tmp_path, "--max-connections-per-address", "20",
                          launcher=LIMITED.format(nofile=256))
    yield server
    server.stop()


async def test_slowloris_from_one_address_leaves_other_addresses_served(
        limited: ServeProcess) -> None:
    # 300 sockets from 127.0.0.1 (more than the server's 256 descriptors) that begin an HTTP
    # request and stall.
    results = await asyncio.gather(*(stall(limited.port) for _ in range(300)),
                                   return_exceptions=True)
    stalled = [s for s in results if isinstance(s, socket.socket)]
    started = time.monotonic()
    try:
        assert len(stalled) >= 250, results[:5]
        await asyncio.sleep(0.5)  # the server has taken what it will take of them
        # Another address connects, says hello and is answered at once.
        t0 = time.monotonic()
        async with asyncio.timeout(4):
            sock = await tcp(limited.port, source="127.0.0.2")
            ws = await hello(limited.url, sock=sock)
            await ws.send(p.encode(p.ListRooms(id=1)))
            assert isinstance(p.decode(await ws.recv(), side="server"), p.Rooms)
            await ws.close()
        elapsed = time.monotonic() - t0
        # Every stalled socket is closed by the server within the header timeout (3 s) plus
        # a margin: the 280 over the per-address cap at once, the other 20 at 3 s.
        left = 8.0 - (time.monotonic() - started)
        closed = await asyncio.gather(*(closed_by_peer(s, left) for s in stalled))
        print(f"\nother address served in {elapsed:.3f} s; {sum(closed)}/{len(stalled)} "
              f"stalled sockets closed within 8 s")
        assert all(closed), f"{closed.count(False)} stalled sockets still open"
    finally:
        for s in stalled:
            s.close()
    assert limited.proc.poll() is None, limited.stderr()


async def test_a_partial_http_request_is_reset_after_the_header_timeout(
        aserver: Factory) -> None:
    server = await aserver()  # the defaults: 3 s for the request, 10 s for the hello
    sock = await tcp(server.port, data=PARTIAL_REQUEST)
    try:
        t0 = time.monotonic()
        assert await closed_by_peer(sock, 7)
        assert 2.9 <= time.monotonic() - t0 < 7
    finally:
        sock.close()
    assert server.gate.refused["header timeout"] == 1
    await until(lambda: server.gate.open == 0 and len(server.addresses) == 0)
    # A request that arrives in time is served as before, even when its hello comes later.
    ws = await websockets.connect(server.url, compression=None)
    await asyncio.sleep(0.8)
    await ws.send(p.encode(p.Hello(v=1, client="late hello")))
    assert isinstance(p.decode(await ws.recv(), side="server"), p.Welcome)
    await ws.close()


async def test_total_connection_cap_resets_sockets_over_it_at_accept(aserver: Factory) -> None:
    server = await aserver(max_connections=5, max_connections_per_address=None,
                           hello_timeout=30, header_timeout=30)
    socks = [await tcp(server.port) for _ in range(8)]
    try:
        await until(lambda: server.gate.refused["server full"] == 3)
        assert server.gate.open == 5
        over = [await closed_by_peer(s, 0.5) for s in socks]
        assert over.count(True) == 3  # the other 5 are held (their header is still due)
        for s, gone in zip(socks, over, strict=True):
            if not gone:
                s.close()
        await until(lambda: server.gate.open == 0)
        ws = await hello(server.url)  # room again
        await ws.close()
    finally:
        for s in socks:
            s.close()


def test_serve_raises_the_soft_descriptor_limit_to_the_hard_one() -> None:
    code = ("import resource; resource.setrlimit(resource.RLIMIT_NOFILE, (200, 512)); "
            "from cardhall.server.admission import raise_fd_limit, default_max_connections; "
            "print(raise_fd_limit(), resource.getrlimit(resource.RLIMIT_NOFILE), "
            "default_max_connections(128))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=60, check=True).stdout
    assert out.split() == ["(512,", "512)", "(512,", "512)", "384"]


# -- a reader that stops reading ------------------------------------------------------------


async def test_a_slow_reader_that_never_reads_again_is_torn_down(aserver: Factory) -> None:
    server = await aserver(max_pending_bytes=64 * 1024, msg_rate=None, rooms_per_minute=None)
    async with Client(server.url) as host:
        for _ in range(40):  # a long room list: every list_rooms reply is a few KiB
            await host.create_room("skipper", options={"seed": 1})
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.connect(("127.0.0.1", server.port))
    ws = await hello(server.url, sock=sock, max_queue=4)
    await until(lambda: len(server.connections) == 1)
    conn = next(iter(server.connections))
    frame = p.encode(p.ListRooms(id=2))
    try:
        async with asyncio.timeout(20):
            for i in range(20_000):  # requests go out; the replies are never read
                if conn.closed:
                    break
                await ws.send(frame)
                if i % 16 == 0:
                    await asyncio.sleep(0)
    except websockets.ConnectionClosed:
        pass
    assert conn._close_with is not None and conn._close_with[0] == 4009
    t0 = time.monotonic()
    # The client still holds its socket and reads nothing: the server aborts its side after
    # close_grace (2 s) rather than keep it, buffers full, until the client goes.
    await until(lambda: not server.connections and server.addresses.count("127.0.0.1") == 0,
                timeout=10)
    print(f"\nslow reader's socket gone {time.monotonic() - t0:.2f} s after 4009")
    ws.transport.abort()


# -- the PROXY protocol -----------------------------------------------------------------------


def proxy_v1(client: str, port: int = 40000) -> bytes:
    """A PROXY protocol v1 line naming ``client`` (IPv4)."""
    return f"PROXY TCP4 {client} 127.0.0.1 {port} 8765\r\n".encode()


def proxy_v2(client: str | None, port: int = 40000) -> bytes:
    """A PROXY protocol v2 header naming ``client`` (IPv4); None: the LOCAL command (a
    proxy's own health check)."""
    if client is None:
        return ProxyProtocolV2().pack(ProxyResultLocal())
    return ProxyProtocolV2().pack(ProxyResultIPv4((IPv4Address(client), port),
                                                  (IPv4Address("127.0.0.1"), 8765)))


async def test_proxy_protocol_from_a_trusted_proxy_caps_each_real_address(
        aserver: Factory) -> None:
    server = await aserver(trusted_proxies=("127.0.0.1/32",), max_connections_per_address=2)
    a1 = await hello(server.url, sock=await tcp(server.port, data=proxy_v1("203.0.113.7")))
    a2 = await hello(server.url, sock=await tcp(server.port, data=proxy_v2("203.0.113.7")))
    assert server.addresses.count("203.0.113.7") == 2
    assert server.addresses.count("127.0.0.1") == 0  # the proxy itself is not capped
    assert {c.addr for c in server.connections} == {"203.0.113.7"}
    # A third from the same client is refused, through either header version...
    for header in (proxy_v1("203.0.113.7", 40001), proxy_v2("203.0.113.7", 40002)):
        with pytest.raises((InvalidMessage, OSError)):
            await hello(server.url, sock=await tcp(server.port, data=header))
    assert server.gate.refused["address full"] == 2
    # ... while another client through the same proxy is served.
    b = await hello(server.url, sock=await tcp(server.port, data=proxy_v2("198.51.100.9")))
    assert server.addresses.count("198.51.100.9") == 1
    # The header may come in pieces, with the HTTP request in the same segment as its end.
    loop = asyncio.get_running_loop()
    sock = await tcp(server.port)
    header = proxy_v2("198.51.100.10")
    await loop.sock_sendall(sock, header[:5])
    await asyncio.sleep(0.05)
    await loop.sock_sendall(sock, header[5:20])
    await asyncio.sleep(0.05)
    await loop.sock_sendall(sock, header[20:])
    c = await hello(server.url, sock=sock)
    assert server.addresses.count("198.51.100.10") == 1
    for ws in (a1, a2, b, c):
        await ws.close()
    await until(lambda: len(server.addresses) == 0 and server.gate.open == 0)


async def test_proxy_protocol_refusals(aserver: Factory) -> None:
    server = await aserver(trusted_proxies=("127.0.0.1/32",))
    # From the trusted proxy, a connection that begins a header but not a valid one is reset.
    v2 = b"\r\n\r\n\x00\r\nQUIT\n"
    for data in (b"PROXY TCP4 not-an-address 127.0.0.1 1 2\r\n",
                 v2 + b"\x99\x11\x00\x0c" + bytes(12),  # version 9
                 v2 + b"\x21\x11\x00\x04" + bytes(4),  # IPv4 in 4 bytes
                 b"PROXY TCP4 " + b"1" * 2000):  # no end of line
        with pytest.raises((InvalidMessage, OSError)):
            await hello(server.url, sock=await tcp(server.port, data=data))
    await until(lambda: server.gate.refused["bad proxy header"] == 4)
    # An untrusted source may not claim another address: its PROXY header is not HTTP, and
    # websockets ends the connection without a response.
    with pytest.raises((InvalidMessage, OSError)):
        await hello(server.url, sock=await tcp(server.port, source="127.0.0.2",
                                               data=proxy_v1("203.0.113.7")))
    assert server.addresses.count("203.0.113.7") == 0
    await until(lambda: server.addresses.count("127.0.0.2") == 0)
    # Without a header it is an ordinary client, counted under its own address.
    ws = await hello(server.url, sock=await tcp(server.port, source="127.0.0.2"))
    assert server.addresses.count("127.0.0.2") == 1
    assert {c.addr for c in server.connections} == {"127.0.0.2"}
    await ws.close()
    # The proxy's own health check (v2 LOCAL) is answered, under the proxy's address.
    loop = asyncio.get_running_loop()
    sock = await tcp(server.port, data=proxy_v2(None) + b"GET /healthz HTTP/1.1\r\n"
                     b"Host: x\r\n\r\n")
    try:
        async with asyncio.timeout(5):
            reply = await loop.sock_recv(sock, 4096)
        assert reply.startswith(b"HTTP/1.1 200")
    finally:
        sock.close()


def test_a_proxy_header_is_told_from_a_request_by_its_first_bytes() -> None:
    v2 = b"\r\n\r\n\x00\r\nQUIT\n"
    assert proxy_header_ahead(v2 + b"\x21\x11") and proxy_header_ahead(b"PROXY TCP4 ")
    for unsure in (b"", v2[:11], b"PROXY", b"P"):
        assert proxy_header_ahead(unsure) is None
    for direct in (b"GET /metrics HTTP/1.1\r\n", b"POST /admin/drain", b"PUT", b"\r\n\r\n1"):
        assert proxy_header_ahead(direct) is False


async def test_the_trusted_proxys_host_reaches_the_server_directly(aserver: Factory) -> None:
    # issue #33: behind haproxy (--trusted-proxy 127.0.0.1/32), an operator on the same host
    # scrapes /metrics and calls the admin API without a PROXY header; a player's
    # connection through the proxy still begins with one (the other tests).
    server = await aserver(trusted_proxies=("127.0.0.1/32",), admin_token="t0ken")
    status, body = await asyncio.to_thread(http_get, f"http://127.0.0.1:{server.port}/metrics")
    assert status == 200 and b"cardhall_" in body
    status, body = await asyncio.to_thread(
        http_get, f"http://127.0.0.1:{server.port}/admin/rooms",
        {"Authorization": "Bearer t0ken"})
    assert status == 200 and json.loads(body) == {"rooms": [], "cursor": None}
    ws = await hello(server.url)  # a WebSocket client too, counted under its own address
    assert server.addresses.count("127.0.0.1") == 1
    assert {c.addr for c in server.connections} == {"127.0.0.1"}
    await ws.close()
    assert server.gate.refused["bad proxy header"] == 0


def test_settings_refuse_bad_trusted_proxies_and_proxy_protocol_with_tls() -> None:
    with pytest.raises(ValueError, match="not an IP address"):
        Settings(trusted_proxies=("haproxy",))
    with pytest.raises(ValueError, match="TLS"):
        Settings(trusted_proxies=("10.0.0.0/8",), certfile="cert.pem")
    assert Settings(trusted_proxies=("10.0.0.5", "fd00::/8")).trusted_proxies


async def test_behind_the_shipped_haproxy_each_player_is_capped_by_its_own_address(
        aserver: Factory, tmp_path: Path) -> None:
    if shutil.which("haproxy") is None:
        pytest.skip("haproxy is not installed")
    server = await aserver(trusted_proxies=("127.0.0.1/32",), max_connections_per_address=2)
    port = free_port()
    cfg = (ROOT / "deploy" / "haproxy.cfg").read_text()
    cfg = re.sub(r"bind \*:8443 ssl crt \S+", f"bind 127.0.0.1:{port}", cfg)  # no TLS here
    cfg = cfg.replace("cardhall-1:8765", f"127.0.0.1:{server.port}")
    cfg = "\n".join(line for line in cfg.splitlines() if "cardhall-2" not in line) + "\n"
    assert "send-proxy-v2" in cfg
    (tmp_path / "haproxy.cfg").write_text(cfg)
    proxy = await asyncio.create_subprocess_exec(
        "haproxy", "-f", str(tmp_path / "haproxy.cfg"), "-db",
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"ws://127.0.0.1:{port}"
    players: list[Any] = []
    try:
        async with asyncio.timeout(20):  # haproxy up, its health check passed (v2 LOCAL)
            while True:
                try:
                    players.append(await hello(url, sock=await tcp(port, source="127.0.0.2")))
                    break
                except (OSError, InvalidMessage, websockets.InvalidStatus):
                    await asyncio.sleep(0.2)
        players.append(await hello(url, sock=await tcp(port, source="127.0.0.2")))
        assert server.addresses.count("127.0.0.2") == 2
        with pytest.raises((OSError, InvalidMessage, websockets.InvalidStatus)):
            await hello(url, sock=await tcp(port, source="127.0.0.2"))  # its third
        assert server.gate.refused["address full"] == 1
        players.append(await hello(url, sock=await tcp(port, source="127.0.0.3")))
        assert server.addresses.count("127.0.0.3") == 1
        assert sorted(c.addr for c in server.connections) == ["127.0.0.2", "127.0.0.2",
                                                              "127.0.0.3"]
    finally:
        for ws in players:
            await ws.close()
        proxy.terminate()
        await proxy.wait()


async def test_connections_per_address_count_an_ipv6_network_as_one_address(
        aserver: Factory) -> None:
    """Issue #41 item 5: two addresses of one /64 share one connection budget, another /64
    has its own, and an IPv4-mapped address counts as its IPv4 address."""
    server = await aserver(trusted_proxies=("127.0.0.1/32",), max_connections_per_address=2)

    def v1(client: str) -> bytes:
        family = "TCP6" if ":" in client else "TCP4"
        here = "::1" if family == "TCP6" else "127.0.0.1"
        return f"PROXY {family} {client} {here} 40000 8765\r\n".encode()

    a = await hello(server.url, sock=await tcp(server.port, data=v1("2001:db8:1:2::a")))
    b = await hello(server.url, sock=await tcp(server.port, data=v1("2001:db8:1:2:ffff::b")))
    assert server.addresses.count("2001:db8:1:2::/64") == 2
    with pytest.raises((InvalidMessage, OSError)):  # a third address of that /64: refused
        await hello(server.url, sock=await tcp(server.port, data=v1("2001:db8:1:2::c")))
    assert server.gate.refused["address full"] == 1
    c = await hello(server.url, sock=await tcp(server.port, data=v1("2001:db8:1:3::a")))
    d = await hello(server.url, sock=await tcp(server.port, data=v1("::ffff:203.0.113.5")))
    assert server.addresses.count("2001:db8:1:3::/64") == 1
    assert server.addresses.count("203.0.113.5") == 1
    for ws in (a, b, c, d):
        await ws.close()
    await until(lambda: len(server.addresses) == 0 and server.gate.open == 0)


async def test_new_rooms_and_guests_count_an_ipv6_network_as_one_address(
        aserver: Factory) -> None:
    """Issue #41 item 5, the other per-address limits: new rooms (``room/limit``) and new
    guest accounts (``auth/rate_limited``) of two addresses of one /64 share a budget; an
    address of another /64 has its own."""
    server = await aserver(trusted_proxies=("127.0.0.1/32",), rooms_per_minute=None,
                           rooms_per_minute_per_address=1, auth_guest_limit="1/minute",
                           msg_rate=None)

    async def answer(client: str, msg: p.ClientMessage) -> str:
        header = f"PROXY TCP6 {client} ::1 40000 8765\r\n".encode()
        ws = await hello(server.url, sock=await tcp(server.port, data=header))
        try:
            await ws.send(p.encode(msg))
            reply = p.decode(await asyncio.wait_for(ws.recv(), 5), side="server")
        finally:
            await ws.close()
        return reply.code if isinstance(reply, p.Error) else type(reply).__name__

    create = p.CreateRoom(game="skipper", seats=1, id=1)
    assert await answer("2001:db8:1:2::a", create) == "RoomCreated"
    assert await answer("2001:db8:1:2::b", create) == "room/limit"
    assert await answer("2001:db8:1:3::a", create) == "RoomCreated"
    guests = [p.Guest(secret=c * 32, id=1) for c in "xyz"]
    assert await answer("2001:db8:1:2::a", guests[0]) == "Account"
    assert await answer("2001:db8:1:2::b", guests[1]) == "auth/rate_limited"
    assert await answer("2001:db8:1:3::a", guests[2]) == "Account"
