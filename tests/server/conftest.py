"""Fixtures shared by the server's tests (tests/conftest.py has the servers' own)."""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator

import pytest

from cardhall.server.accounts.account_memory import MemoryAccounts
from cardhall.server.accounts.account_redis import RedisAccounts
from cardhall.server.accounts.account_sqlite import SQLiteAccounts, create_tables, plain
from cardhall.server.accounts.account_store import AccountStore
from cardhall.server.store.redis_store import RedisStore

from ..conftest import RedisProcess


@pytest.fixture(params=["memory", "sqlite", "redis"])
async def accounts(request: pytest.FixtureRequest) -> AsyncIterator[AccountStore]:
    """An empty account store of each backend in turn: memory, SQLite (a file in memory)
    and Redis (the session's ``redis_server``, flushed)."""
    if request.param == "memory":
        yield MemoryAccounts()
        return
    if request.param == "sqlite":
        db = sqlite3.connect(":memory:", isolation_level=None)
        create_tables(db)
        yield SQLiteAccounts(*plain(db))
        db.close()
        return
    redis_proc: RedisProcess = request.getfixturevalue("redis_server")
    redis_proc.flush()
    store = RedisStore(redis_proc.url)
    try:
        yield RedisAccounts(store.redis, store.health)
    finally:
        await store.close()
