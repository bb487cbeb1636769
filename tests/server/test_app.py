"""The server process (``server/app.py``): the account store it picks for each room store, its
address, ``/healthz`` on its port, and a shutdown that closes clients with 1001 and honours
the close grace."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
import websockets

from cardhall import protocol as p
from cardhall.server.app import Server, accounts_for
from cardhall.server.config import Settings
from cardhall.server.store.memory_store import MemoryStore
from cardhall.server.store.redis_store import RedisStore
from cardhall.server.store.sqlite_store import SQLiteStore

from ..conftest import ServerFactory


async def test_shutdown_honours_close_grace_with_a_client_that_does_not_read(
        make_server: ServerFactory) -> None:
    """Issue #35 defect 7: a shutdown waits ``close_grace`` seconds (here 0.5) for a client
    to answer its close frame, not websockets' default close timeout of 10 s."""
    server = await make_server(close_grace=0.5)
    ws = await websockets.connect(server.url, compression=None)
    await ws.send(p.encode(p.Hello(v=p.PROTOCOL_VERSION, client="deaf")))
    await ws.recv()
    ws.transport.pause_reading()  # from now on it reads nothing: no close frame back
    loop = asyncio.get_running_loop()
    t0 = loop.time()
    await server.stop()
    took = loop.time() - t0
    ws.transport.abort()
    assert took < 3.0, f"the shutdown took {took:.1f} s"


def test_the_account_store_shares_the_room_stores_backend(
        tmp_path: Path, redis_server: Any) -> None:
    """:func:`accounts_for`: accounts on the room store's Redis, in the SQLite store's data
    file, else in this process; ``Server`` takes that one when given none."""
    from cardhall.server.accounts.account_memory import MemoryAccounts
    from cardhall.server.accounts.account_redis import RedisAccounts
    from cardhall.server.accounts.account_sqlite import SQLiteAccounts

    assert isinstance(accounts_for(MemoryStore()), MemoryAccounts)
    sqlite = SQLiteStore(tmp_path / "data.db")
    assert isinstance(accounts_for(sqlite), SQLiteAccounts)
    assert isinstance(Server(Settings(), sqlite).accounts, SQLiteAccounts)
    assert isinstance(accounts_for(RedisStore(redis_server.url)), RedisAccounts)


async def test_a_started_server_tells_its_url_and_a_stop_closes_clients_with_1001(
        make_server: ServerFactory) -> None:
    """``url`` names the bound port (``port=0``: a free one), before start ``port`` raises,
    and ``stop`` closes every connection with 1001 (going away) and frees the port."""
    with pytest.raises(RuntimeError):
        _ = Server(Settings(host="127.0.0.1", port=0)).port
    server = await make_server()
    assert server.url == f"ws://127.0.0.1:{server.port}" and server.port > 0
    ws = await websockets.connect(server.url, compression=None)
    await ws.send(p.encode(p.Hello(v=1, client="app-test")))
    assert isinstance(p.decode(await ws.recv(), side="server"), p.Welcome)
    assert len(server.connections) == 1
    port = server.port
    await server.stop()
    await asyncio.wait_for(ws.wait_closed(), 5)
    assert ws.close_code == 1001
    with pytest.raises(OSError):  # nothing listens any more
        await asyncio.open_connection("127.0.0.1", port)


async def test_healthz_answers_over_http_on_the_websocket_port(server: Server) -> None:
    """``/healthz`` is served by the process on its WebSocket port (200 while it is well)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
    writer.write(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    head = (await asyncio.wait_for(reader.read(4096), 5)).split(b"\r\n", 1)[0]
    writer.close()
    assert head.startswith(b"HTTP/1.1 200"), head
