"""Hardening: abuse limits, slow readers, keepalive, TLS and origins, seat-token secrecy,
impersonation, structured logs. Real servers on 127.0.0.1 (free ports), memory store."""

from __future__ import annotations

import asyncio
import base64
import datetime
import io
import ipaddress
import json
import logging
import os
import random
import socket
import ssl
import statistics
import subprocess
import sys
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import msgpack
import pytest
import websockets
from cardhall import protocol as p
from cardhall.client.bots import play_seat, timed_actions
from cardhall.client.client import Client, ServerError
from cardhall.server.room import state as seating  # Table.find_token: TableState
from cardhall.server import session as session_module
from cardhall.games.bots import strategy
from cardhall.server.limits import AddressCounter, TokenBucket
from cardhall.server.logs import REDACTED, event, formatter
from cardhall.server.store.memory_store import MemoryStore
from websockets.exceptions import InvalidMessage, InvalidStatus
from websockets.protocol import State

from ..conftest import ServerFactory as Factory
from ..conftest import serving

GREEDY = strategy("skipper", "greedy")


@pytest.fixture
async def hserver() -> AsyncIterator[Factory]:
    """Start servers (memory store, the default limits) on 127.0.0.1, a free port; stopped
    after the test."""
    async with serving(MemoryStore) as make:
        yield make


async def raw(url: str, hello: bool = True, **kwargs: Any) -> Any:
    """A bare websockets connection (after the hello unless ``hello=False``)."""
    ws = await websockets.connect(url, compression=None, **kwargs)
    if hello:
        await ws.send(p.encode(p.Hello(v=1, client="raw")))
        assert isinstance(p.decode(await ws.recv(), side="server"), p.Welcome)
    return ws


def record(client: Client) -> list[p.Message]:
    """Every message ``client`` receives from now on, in order."""
    seen: list[p.Message] = []
    orig = client._dispatch

    def spy(msg: p.Message) -> None:
        seen.append(msg)
        orig(msg)

    client._dispatch = spy  # type: ignore[method-assign]
    return seen


async def until(pred: Callable[[], bool], timeout: float = 5.0) -> None:
    """Wait (polling every 10 ms, at most ``timeout`` s) until ``pred()`` is true."""
    async with asyncio.timeout(timeout):
        while not pred():
            await asyncio.sleep(0.01)


# -- the limiters themselves ---------------------------------------------------------------


def test_token_bucket_bursts_then_refills_at_its_rate() -> None:
    now = [100.0]
    bucket = TokenBucket(rate=8, capacity=3, clock=lambda: now[0])
    assert [bucket.take() for _ in range(4)] == [True, True, True, False]
    assert bucket.wait_time() == pytest.approx(0.125)
    now[0] += 0.0625
    assert not bucket.take()
    now[0] += 0.0625
    assert bucket.take() and not bucket.take()
    now[0] += 60
    assert bucket.tokens == 3  # never more than the capacity
    with pytest.raises(ValueError):
        TokenBucket(rate=0, capacity=1)


def test_address_counter() -> None:
    c = AddressCounter(2)
    assert c.acquire("a") and c.acquire("a") and not c.acquire("a") and c.acquire("b")
    c.release("a")
    assert c.count("a") == 1 and c.acquire("a")
    for _ in range(3):
        c.release("a")
    c.release("b")
    assert len(c) == 0
    unlimited = AddressCounter(None)
    assert all(unlimited.acquire("x") for _ in range(1000))


# -- message rate ----------------------------------------------------------------------------


async def test_rate_limit_refuses_with_rate_limited_then_closes_4008(hserver: Factory) -> None:
    server = await hserver(msg_rate=20, msg_burst=10, max_rate_strikes=5, rate_strike_window=10)
    ws = await raw(server.url)
    for i in range(60):
        try:
            await ws.send(p.encode(p.Ping(id=i)))
        except websockets.ConnectionClosed:
            break
    pongs, limited = [], []
    try:
        async with asyncio.timeout(10):
            async for frame in ws:
                msg = p.decode(frame, side="server")
                if isinstance(msg, p.Pong):
                    pongs.append(msg.re)
                else:
                    assert isinstance(msg, p.Error) and msg.code == "rate/limited", msg
                    limited.append(msg.re)
    except websockets.ConnectionClosed:
        pass
    assert ws.close_code == 4008
    assert pongs[:9] == list(range(9))  # the burst (the hello took a token)
    assert len(limited) == 6  # every refusal answered, with its id; the 6th closes
    assert all(isinstance(re, int) for re in limited)
    assert not server.connections or all(c.closed for c in server.connections)


async def test_a_client_within_the_rate_is_never_limited(hserver: Factory) -> None:
    server = await hserver(msg_rate=200, msg_burst=20)
    async with Client(server.url) as c:
        for _ in range(60):
            await c.ping()
            await asyncio.sleep(0.006)


FLOODER = r'''
import asyncio, json, sys, msgpack, websockets
from cardhall import protocol as p

async def main(url, room):
    stats = {"sent": 0, "limited": 0, "other": 0, "closes": {}, "connections": 0}
    flooding = asyncio.Event()
    done = asyncio.Event()

    async def control():
        loop = asyncio.get_running_loop()
        while True:
            line = (await loop.run_in_executor(None, sys.stdin.readline)).strip()
            if line == "flood":
                flooding.set()
            elif line == "pause":
                flooding.clear()
            else:
                done.set()
                return

    async def read(ws):
        try:
            async for frame in ws:
                msg = p.decode(frame, side="server")
                if isinstance(msg, p.Error) and msg.code == "rate/limited":
                    stats["limited"] += 1
                else:
                    stats["other"] += 1
        except websockets.ConnectionClosed:
            pass

    frames = [p.encode(p.Ping(id=1)), p.encode(p.ListRooms(id=2)),
              p.encode(p.Act(id=3, room=room, state_id=0, action=["end"])),
              p.encode(p.GetView(id=4, room=room)), b"\xc1garbage"]
    ctl = asyncio.get_running_loop().create_task(control())
    print("ready", flush=True)
    while not done.is_set():
        await asyncio.wait([asyncio.ensure_future(flooding.wait()),
                            asyncio.ensure_future(done.wait())],
                           return_when=asyncio.FIRST_COMPLETED)
        if done.is_set():
            break
        ws = await websockets.connect(url, compression=None)
        stats["connections"] += 1
        await ws.send(p.encode(p.Hello(v=1, client="flooder")))
        reader = asyncio.get_running_loop().create_task(read(ws))
        try:
            k = 0
            while flooding.is_set() and not done.is_set():
                await ws.send(frames[k % len(frames)])
                stats["sent"] += 1
                k += 1
                if k % 64 == 0:
                    await asyncio.sleep(0)
        except websockets.ConnectionClosed:
            pass
        await ws.close()
        await reader
        code = str(ws.close_code)
        stats["closes"][code] = stats["closes"].get(code, 0) + 1
    print(json.dumps(stats), flush=True)
    ctl.cancel()

asyncio.run(main(sys.argv[1], sys.argv[2]))
'''


async def rtt_block(url: str, n: int, rng: random.Random, pace: float) -> list[float]:
    """Round trips (s) of ``n`` actions of solo Skipper games (act sent -> its update),
    one action every ``pace`` seconds; a new connection per game."""
    rtts: list[float] = []
    while len(rtts) < n:
        async with Client(url, name="rtt") as c:
            room = (await c.create_room("skipper", options={"seed": rng.randrange(10**6)})).room
            await c.join(room)
            rtts += await timed_actions(c, room, GREEDY, rng, n - len(rtts), pace)
    return rtts


@pytest.mark.slow
async def test_flood_is_limited_and_a_room_beside_it_keeps_its_round_trip(
        hserver: Factory) -> None:
    server = await hserver()  # the default limits
    async with Client(server.url) as host:
        target = (await host.create_room("skipper", mode="multi", seats=2)).room
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-c", FLOODER, server.url, target, stdin=subprocess.PIPE,
        stdout=subprocess.PIPE)
    assert proc.stdin is not None and proc.stdout is not None
    rng = random.Random(5)
    try:
        async with asyncio.timeout(60):
            assert (await proc.stdout.readline()).strip() == b"ready"
            await rtt_block(server.url, 20, rng, 0.01)  # warm up
            unloaded: list[float] = []
            loaded: list[float] = []
            # Alternate blocks, so drift in the machine's background load hits both alike.
            for _ in range(5):
                unloaded += await rtt_block(server.url, 30, rng, 0.01)
                proc.stdin.write(b"flood\n")
                await proc.stdin.drain()
                await asyncio.sleep(0.2)  # the burst is spent; the flood goes on
                loaded += await rtt_block(server.url, 30, rng, 0.01)
                proc.stdin.write(b"pause\n")
                await proc.stdin.drain()
            proc.stdin.write(b"quit\n")
            await proc.stdin.drain()
            stats = json.loads((await proc.stdout.readline()).decode())
            await proc.wait()
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
    base, flood = statistics.median(unloaded), statistics.median(loaded)
    ratio = flood / base
    print(f"\nflood: unloaded median {base * 1e6:.0f} us, under flood {flood * 1e6:.0f} us, "
          f"ratio {ratio:.2f}; flooder {stats}")
    assert stats["limited"] > 0 and stats["sent"] > 10 * stats["other"]
    assert stats["closes"].get("4008", 0) >= 1
    assert ratio <= 2.0


# -- connections, rooms, frames, idle sockets -------------------------------------------------


async def test_connections_per_address_are_capped_at_accept(hserver: Factory) -> None:
    server = await hserver(max_connections_per_address=3)
    conns = [await raw(server.url) for _ in range(3)]
    with pytest.raises((InvalidMessage, OSError)):  # reset at accept: no HTTP response
        await raw(server.url)
    assert server.gate.refused["address full"] == 1
    await conns.pop().close()
    await until(lambda: server.addresses.count("127.0.0.1") == 2)
    conns.append(await raw(server.url))
    for ws in conns:
        await ws.close()
    await until(lambda: len(server.addresses) == 0)


async def test_idle_sockets_are_dropped(hserver: Factory) -> None:
    server = await hserver(hello_timeout=0.3, max_connections_per_address=2)
    # A TCP socket that never sends its HTTP upgrade: closed after hello_timeout.
    loop = asyncio.get_running_loop()
    sock = socket.create_connection(("127.0.0.1", server.port))
    sock.setblocking(False)
    try:
        async with asyncio.timeout(5):
            assert await loop.sock_recv(sock, 1024) in (b"", )
    except ConnectionResetError:
        pass
    finally:
        sock.close()
    # Upgraded but silent: 4001; its address slot is given back.
    ws = await raw(server.url, hello=False)
    await ws.wait_closed()
    assert ws.close_code == 4001
    await until(lambda: server.addresses.count("127.0.0.1") == 0)


async def test_keepalive_drops_a_peer_that_never_answers_pings(hserver: Factory) -> None:
    server = await hserver(ping_interval=0.1, ping_timeout=0.2)
    ws = await raw(server.url)
    await until(lambda: len(server.connections) == 1)
    conn = next(iter(server.connections))
    ws.transport.pause_reading()  # never sees the pings, never answers them
    await until(lambda: conn.ws.state is not State.OPEN, timeout=3)  # the server gave up
    ws.transport.resume_reading()  # now it reads the server's close frame
    await ws.wait_closed()
    assert ws.close_code == 1011 and "keepalive" in (ws.close_reason or "")
    await until(lambda: not server.connections)


async def test_rooms_per_connection_per_minute_and_per_process(hserver: Factory) -> None:
    server = await hserver(rooms_per_minute=3, max_rooms=5)
    async with Client(server.url) as a, Client(server.url) as b:
        for _ in range(3):  # joined: only rooms somebody sits in count against the cap
            await a.join((await a.create_room("skipper", mode="multi", seats=2)).room)
        with pytest.raises(ServerError) as err:
            await a.create_room("skipper")
        assert err.value.code == "room/limit"
        with pytest.raises(ServerError) as err:
            await a.quick_join("skipper")
        assert err.value.code == "room/limit"
        await b.join((await b.create_room("skipper", mode="multi", seats=2)).room)
        await b.join((await b.create_room("skipper", mode="multi", seats=2)).room)
        with pytest.raises(ServerError) as err:
            await b.create_room("skipper")  # 5 rooms: the process is full
        assert err.value.code == "room/limit" and "at most 5" in err.value.message


async def test_slow_reader_is_dropped_and_memory_stays_bounded(hserver: Factory) -> None:
    limit = 64 * 1024
    # close_grace: time enough for the readers below to read the backlog and the close frame
    # (a reader that never reads is reset after 2 s: test_abuse.py).
    server = await hserver(max_pending_bytes=limit, msg_rate=None, rooms_per_minute=None,
                           close_grace=30)
    async with Client(server.url) as host:
        for _ in range(40):
            await host.create_room("skipper", options={"seed": 1})
        listing = await host.list_rooms()
    reply_size = len(p.encode(p.Rooms(rooms=[p.RoomSummary(**r) for r in listing], re=1)))
    readers = []
    for _ in range(3):
        sock = socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        sock.connect(("127.0.0.1", server.port))
        readers.append(await raw(server.url, sock=sock, max_queue=4))
    conns = list(server.connections)
    peak = 0
    frame = p.encode(p.ListRooms(id=1))
    try:
        async with asyncio.timeout(20):
            for i in range(20_000):
                if all(c.closed for c in conns):
                    break
                for ws in readers:  # requests go out; the replies are never read
                    await ws.send(frame)
                peak = max(peak, *(c._pending for c in conns))
                if i % 16 == 0:
                    await asyncio.sleep(0)
    except websockets.ConnectionClosed:
        pass
    await until(lambda: all(c.closed for c in conns), timeout=10)
    assert all(c._close_with is not None and c._close_with[0] == 4009 for c in conns)
    assert peak <= limit + reply_size  # never buffered beyond the limit (+ the last frame)
    # The client, once it reads, finds the backlog that was in flight and then 4009.
    for ws in readers:
        try:
            async with asyncio.timeout(15):
                async for _ in ws:
                    pass
        except websockets.ConnectionClosed:
            pass
        assert ws.close_code == 4009
    await until(lambda: not server.connections)


# -- TLS and origins -------------------------------------------------------------------------


def self_signed(tmp: Path) -> tuple[Path, Path]:
    """A self-signed certificate for 127.0.0.1 and its key, as PEM files."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name)
            .public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName(
                [x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), critical=False)
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .sign(key, hashes.SHA256()))
    certfile, keyfile = tmp / "cert.pem", tmp / "key.pem"
    certfile.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    keyfile.write_bytes(key.private_bytes(serialization.Encoding.PEM,
                                          serialization.PrivateFormat.PKCS8,
                                          serialization.NoEncryption()))
    return certfile, keyfile


async def test_tls_serves_wss(hserver: Factory, tmp_path: Path) -> None:
    certfile, keyfile = self_signed(tmp_path)
    server = await hserver(certfile=str(certfile), keyfile=str(keyfile))
    assert server.url.startswith("wss://127.0.0.1:")
    trust = ssl.create_default_context(cafile=str(certfile))
    ws = await raw(server.url, ssl=trust)
    await ws.send(p.encode(p.Ping(id=7)))
    pong = p.decode(await ws.recv(), side="server")
    assert isinstance(pong, p.Pong) and pong.re == 7
    await ws.close()
    with pytest.raises(ssl.SSLCertVerificationError):  # a client that does not trust it
        await raw(server.url, ssl=ssl.create_default_context())
    with pytest.raises((websockets.InvalidMessage, OSError, EOFError)):  # plain ws://
        await raw(server.url.replace("wss://", "ws://"), open_timeout=2)


async def test_origin_allow_list(hserver: Factory) -> None:
    server = await hserver(origins=("https://cards.example",))
    ok = await raw(server.url, origin="https://cards.example")
    await ok.close()
    bot = await raw(server.url)  # no Origin header: not a browser
    await bot.close()
    with pytest.raises(InvalidStatus) as err:
        await raw(server.url, origin="https://evil.example")
    assert err.value.response.status_code == 403


# -- seat tokens and impersonation -----------------------------------------------------------


async def test_seat_tokens_are_unguessable_and_compared_in_constant_time(
        hserver: Factory, monkeypatch: pytest.MonkeyPatch) -> None:
    server = await hserver(rooms_per_minute=None)
    tokens = set()
    async with Client(server.url) as c:
        for _ in range(20):
            room = (await c.create_room("skipper")).room
            joined = await c.join(room)
            assert joined.token is not None
            raw_bytes = base64.urlsafe_b64decode(joined.token + "=" * (-len(joined.token) % 4))
            assert len(raw_bytes) * 8 >= 128
            tokens.add(joined.token)
        assert len(tokens) == 20
        compared = []
        real = seating.hmac.compare_digest

        def spy(a: Any, b: Any) -> bool:
            compared.append((a, b))
            return real(a, b)

        monkeypatch.setattr(seating.hmac, "compare_digest", spy)
        async with Client(server.url, reconnect=False) as other:
            with pytest.raises(ServerError):
                await other.resume(room, joined.token[:-1] + ("A" if joined.token[-1] != "A"
                                                              else "B"))
            assert (await other.resume(room, joined.token)).seat == joined.seat
        assert compared


async def test_tokens_never_reach_other_seats_spectators_the_lobby_or_the_logs(
        hserver: Factory, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    server = await hserver(msg_rate=None)
    players = [Client(server.url, name=f"p{i}") for i in range(3)]
    watcher, lister = Client(server.url, name="w"), Client(server.url, name="l")
    for c in [*players, watcher, lister]:
        await c.connect()
    seen = {id(c): record(c) for c in [*players, watcher, lister]}
    try:
        room = (await players[0].create_room("skipper", mode="multi", seats=3)).room
        await watcher.spectate(room)
        joins = [await c.join(room) for c in players]
        tokens = {j.seat: j.token for j in joins}
        assert all(tokens.values())
        listing = await lister.list_rooms()
        # A seat drops and resumes, a stranger tries a bad token, mid-game.
        async with Client(server.url, reconnect=False) as stranger:
            with pytest.raises(ServerError):
                await stranger.resume(room, "x" * 32)
        tasks = [play_seat(c, room, j.seat or 0, GREEDY, random.Random(i))
                 for i, (c, j) in enumerate(zip(players, joins))]
        tasks.append(play_seat(watcher, room, -1, GREEDY, random.Random(9)))

        async def drop_later() -> None:
            await asyncio.sleep(0.05)
            await players[1].drop()

        asyncio.get_running_loop().create_task(drop_later())
        async with asyncio.timeout(60):
            await asyncio.gather(*tasks)
        assert players[1].reconnects == 1
        await lister.list_rooms()
    finally:
        for c in [*players, watcher, lister]:
            await c.close()
    for c, j in zip(players, joins):
        others = [t for s, t in tokens.items() if s != j.seat]
        text = "\n".join(map(repr, seen[id(c)]))
        assert not any(t in text for t in others if t)
    for c in (watcher, lister):
        text = "\n".join(map(repr, seen[id(c)])) + repr(listing)
        assert not any(t in text for t in tokens.values() if t)
    # The server's records (the clients in this process log their own frames at DEBUG).
    server_side = [r for r in caplog.records
                   if not r.name.startswith(("cardhall.client", "websockets.client"))]
    assert any(r.name == "cardhall.server" for r in server_side)  # conn_open, conn_closed
    leaks = [r.getMessage() for r in server_side
             if any(t and (t in repr(r.__dict__) or t in r.getMessage())
                    for t in tokens.values())]
    assert not leaks


async def test_a_client_cannot_act_resume_or_read_for_another_seat_or_room(
        hserver: Factory) -> None:
    server = await hserver()
    async with (Client(server.url, name="a") as a, Client(server.url, name="b") as b,
                Client(server.url, name="c", reconnect=False) as c):
        room = (await a.create_room("skipper", mode="multi", seats=2)).room
        secret = (await a.create_room("skipper", mode="multi", seats=2, private=True)).room
        ja, jb = await a.join(room), await b.join(room)
        other = (await c.create_room("skipper", mode="multi", seats=2)).room
        jc = await c.join(other)
        c_seen = record(c)
        await until(lambda: a.views[room]["room"]["status"] == "playing")
        sid = a.views[room]["state_id"]
        to_act = a.views[room]["to_act"]
        idle, idle_seat = (b, jb.seat) if to_act == [ja.seat] else (a, ja.seat)
        assert idle_seat not in to_act

        async def code(coro: Any) -> str:
            with pytest.raises(ServerError) as err:
                await coro
            return err.value.code

        # Acting: out of turn, from outside the room, or claiming a seat in the frame.
        assert await code(idle.act(room, ["end"], sid)) == "action/not_your_turn"
        assert await code(c.act(room, ["end"], sid)) == "room/not_seated"
        ws = await raw(server.url)
        await ws.send(msgpack.packb({"t": "act", "id": 1, "room": room, "state_id": sid,
                                     "action": ["end"], "seat": to_act[0]}))
        reply = p.decode(await ws.recv(), side="server")
        assert isinstance(reply, p.Error) and reply.code == "protocol/unknown_field"
        await ws.close()
        # Resuming: with another room's token, or a token one character off.
        assert jc.token and ja.token
        assert await code(c.resume(room, jc.token)) == "room/bad_token"
        assert await code(c.resume(other, ja.token)) == "room/bad_token"
        flipped = ja.token[:-1] + ("A" if ja.token[-1] != "A" else "B")
        assert await code(c.resume(room, flipped)) == "room/bad_token"
        assert await code(c.resume(room, ja.token[:-2])) == "room/bad_token"
        assert await code(c.resume(room, ja.token.upper()
                                   if ja.token.upper() != ja.token else "Z" * 32)) == \
            "room/bad_token"
        # Reading: another room's view, a private room by id.
        assert await code(c.get_view(room)) == "room/not_seated"
        assert await code(c.spectate(secret)) == "room/not_found"
        assert await code(c.join(secret)) == "room/not_found"
        await a.act(room, a.views[room]["legal_actions"][0], sid) if to_act == [ja.seat] \
            else await b.act(room, b.views[room]["legal_actions"][0], sid)
        await asyncio.sleep(0.1)
    assert not [m for m in c_seen if getattr(m, "room", None) == room and
                not isinstance(m, p.Error)]
    assert all(getattr(m, "room", other) in (other, None) for m in c_seen)


# -- logs and internal errors ----------------------------------------------------------------


def test_log_lines_are_one_line_structured_and_redact_tokens() -> None:
    out = io.StringIO()
    handler = logging.StreamHandler(out)
    log = logging.getLogger("cardhall.test_logs")
    log.propagate = False
    log.addHandler(handler)
    try:
        for fmt in ("kv", "json"):
            out.seek(0)
            out.truncate()
            handler.setFormatter(formatter(fmt))
            event(log, logging.WARNING, "conn_closing", session="s1", room="r1", seat=2,
                  code=4008, reason="rate limit", token="SECRET-TOKEN")
            try:
                raise ValueError("boom\nsecond line")
            except ValueError:
                log.exception("internal_error", extra={"room": "r1", "code": "server/internal"})
            lines = out.getvalue().splitlines()
            assert len(lines) == 2, lines
            assert "SECRET-TOKEN" not in out.getvalue()
            if fmt == "json":
                first, second = map(json.loads, lines)
                assert first["event"] == "conn_closing" and first["code"] == 4008
                assert first["room"] == "r1" and first["seat"] == 2
                assert first["token"] == REDACTED and "timestamp" in first
                assert "Traceback" in second["exception"]
            else:
                assert lines[0].split(" ")[1:6] == ["level=warning", "logger=cardhall.test_logs",
                                                    "event=conn_closing", "session=s1",
                                                    "room=r1"]
                assert "seat=2 code=4008" in lines[0] and 'reason="rate limit"' in lines[0]
                assert "exception=" in lines[1] and "Traceback" in lines[1]
        with pytest.raises(ValueError):
            formatter("xml")  # type: ignore[arg-type]
    finally:
        log.removeHandler(handler)
        log.propagate = True


async def test_a_bug_is_logged_once_and_the_client_gets_no_traceback(
        hserver: Factory, monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture) -> None:
    async def boom(self: Any, msg: p.Ping) -> None:
        raise RuntimeError("secret internals /srv/cardhall/x.py line 12")

    monkeypatch.setitem(session_module.HANDLERS, p.Ping, boom)
    server = await hserver()
    ws = await raw(server.url)
    await ws.send(p.encode(p.Ping(id=3)))
    reply = p.decode(await ws.recv(), side="server")
    assert isinstance(reply, p.Error) and reply.code == "server/internal" and reply.re == 3
    assert "Traceback" not in reply.message and "secret" not in reply.message
    await ws.send(p.encode(p.ListRooms(id=4)))  # the connection goes on
    assert isinstance(p.decode(await ws.recv(), side="server"), p.Rooms)
    await ws.close()
    bugs = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert len(bugs) == 1 and bugs[0].exc_info is not None


def test_cli_serve_has_the_hardening_options() -> None:
    from cardhall.cli import main
    from click.testing import CliRunner

    result = CliRunner().invoke(main, ["serve", "--help"])
    assert result.exit_code == 0
    for opt in ("--certfile", "--keyfile", "--origin", "--log-format", "--msg-rate",
                "--msg-burst", "--max-connections-per-address", "--rooms-per-minute"):
        assert opt in result.output
    assert os.path.exists(Path(__file__).parents[2] / "benchmarks" / "soak.py")


def test_websockets_lines_follow_the_process_level_but_never_go_below_info() -> None:
    """The websockets library's logger for our connections never logs below INFO (its
    DEBUG lines dump frames, and frames hold seat tokens), and at ``--log-level WARNING``
    it does not log its INFO lines (one per socket opened or closed) either."""
    import io
    import logging

    from cardhall.server.app import ws_log
    from cardhall.server.logs import configure

    root = logging.getLogger()
    handlers, level_before = root.handlers[:], root.level
    try:
        for level, shown in (("WARNING", ["warn"]), ("DEBUG", ["info", "warn"])):
            out = io.StringIO()
            configure(level, stream=out)
            ws_log.debug("frame")
            ws_log.info("info")
            ws_log.warning("warn")
            assert [w for w in ("frame", "info", "warn") if w in out.getvalue()] == shown
    finally:
        root.handlers[:] = handlers
        root.setLevel(level_before)
