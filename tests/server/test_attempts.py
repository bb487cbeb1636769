"""Tests of sign-in attempts (``cardhall.server.attempts``) on each account store (memory,
SQLite, Redis): attempts made at once never pass a limit together. The same end to end,
over servers: tests/server/test_auth.py."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from cardhall.server.account_memory import MemoryAccounts
from cardhall.server.account_redis import RedisAccounts
from cardhall.server.account_sqlite import SQLiteAccounts, create_tables, plain
from cardhall.server.account_store import AccountStore
from cardhall.server.attempts import Attempts
from cardhall.server.redis_store import RedisStore

from ..conftest import RedisProcess

@pytest.fixture(params=["memory", "sqlite", "redis"])
async def accounts(request: pytest.FixtureRequest) -> AsyncIterator[AccountStore]:
    if request.param == "memory":
        yield MemoryAccounts()
        return
    if request.param == "sqlite":
        import sqlite3

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


async def test_attempts_made_at_once_are_counted_before_any_passes(
        accounts: AccountStore) -> None:
    """60 reservations for one account at once: exactly 10 pass (``10/5 minutes``), in the
    store's own ``limits`` storage (Redis: shared by every process); another account has a
    budget of its own, as has each address."""
    attempts = Attempts(accounts.limits_storage(), "10/5 minutes", "3/minute", "1/minute")
    passed = await asyncio.gather(*(attempts.reserve("alice") for _ in range(60)))
    assert passed.count(True) == 10
    assert await attempts.reserve("bob")
    assert [await attempts.from_address("192.0.2.1") for _ in range(4)] == [
        True, True, True, False]
    assert await attempts.from_address("192.0.2.2")
    assert [await attempts.new_guest("192.0.2.1") for _ in range(2)] == [True, False]

