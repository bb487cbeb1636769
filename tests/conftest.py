"""Shared fixtures: real servers on 127.0.0.1 with free ports."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import pytest

from cardhall.server.app import Server
from cardhall.server.config import Settings

ServerFactory = Callable[..., Awaitable[Server]]


@pytest.fixture
async def make_server() -> AsyncIterator[ServerFactory]:
    """Start servers on 127.0.0.1, port 0 (a free port); all are stopped after the test."""
    servers: list[Server] = []

    async def make(**settings: Any) -> Server:
        server = Server(Settings(host="127.0.0.1", port=0, **settings))
        await server.start()
        servers.append(server)
        return server

    yield make
    for server in servers:
        await server.stop()


@pytest.fixture
async def server(make_server: ServerFactory) -> Server:
    """One server with default settings."""
    return await make_server()
