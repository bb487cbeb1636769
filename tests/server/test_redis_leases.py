"""Room leases and heartbeats on Redis (``server/store/redis_leases.py``), between two store
processes on one real redis-server: one holder at a time, a new epoch at each acquisition,
writes fenced by the exact lease, renewals that report the leases lost, expiry, heartbeats,
and the orphan scan."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest

from cardhall.server.store.redis_leases import lease_keys
from cardhall.server.store.redis_store import RedisStore
from cardhall.server.store.ports import Lease, OwnershipLost

from ..conftest import RedisProcess


def _summary() -> dict[str, Any]:
    return {"game": "shop", "mode": None, "status": "waiting", "private": False, "taken": 0,
            "seats": 2}


@pytest.fixture
async def pair(redis_server: RedisProcess) -> AsyncIterator[tuple[RedisStore, RedisStore]]:
    """Two store processes (leases of 0.5 s) on one flushed Redis."""
    redis_server.flush()
    a, b = (RedisStore(redis_server.url, lease_seconds=0.5),
            RedisStore(redis_server.url, lease_seconds=0.5))
    try:
        yield a, b
    finally:
        await a.close()
        await b.close()


async def test_one_holder_at_a_time_and_a_new_epoch_each_acquisition(
        pair: tuple[RedisStore, RedisStore]) -> None:
    a, b = pair
    first = await a.save_room("r1", {"game": "shop"}, {"s": 0}, _summary())
    assert first == Lease(a.process_id, 1) and a.leases["r1"] == first
    assert await b.acquire("r1") is None  # a holds it
    assert await b.owner("r1") == a.process_id
    assert await b.owners(["r1", "nope"]) == [a.process_id, None]
    await b.release("r1")  # never another's lease
    assert await a.owner("r1") == a.process_id
    assert await a.redis.get(lease_keys("r1")[0]) == str(first).encode()
    await a.release("r1")
    second = await b.acquire("r1")
    assert second == Lease(b.process_id, 2)


async def test_a_superseded_lease_writes_nothing_and_its_renewal_reports_it_lost(
        pair: tuple[RedisStore, RedisStore]) -> None:
    a, b = pair
    old = await a.save_room("r1", {"game": "shop"}, {"s": 0}, _summary())
    await a.append("r1", [["a", 0, ["x"]]], 0, {"s": 1}, lease=old)
    await a.release("r1")
    new = await b.acquire("r1")
    assert new is not None and new.epoch == 2
    with pytest.raises(OwnershipLost):
        await a.append("r1", [["a", 0, ["y"]]], 1, {"s": 2}, lease=old)
    with pytest.raises(OwnershipLost):
        await a.save_state("r1", {"s": 9}, _summary(), lease=old)
    assert await b.log("r1") == [["a", 0, ["x"]]]
    assert await a.renew({"r1": old}) == ["r1"]
    assert await b.renew({"r1": new}) == []
    await b.append("r1", [["a", 1, ["y"]]], 1, {"s": 2}, lease=new)
    assert len(await a.log("r1")) == 2


async def test_a_lease_not_renewed_expires_and_another_process_takes_the_room(
        pair: tuple[RedisStore, RedisStore]) -> None:
    a, b = pair
    await a.save_room("r1", {"game": "shop"}, {"s": 0}, _summary())
    assert 0 < await a.redis.pttl(lease_keys("r1")[0]) <= 500
    await asyncio.sleep(0.3)
    assert await a.renew({"r1": a.leases["r1"]}) == []  # renewed: 0.5 s from now
    await asyncio.sleep(0.3)
    assert await b.acquire("r1") is None
    await asyncio.sleep(0.4)
    taken = await b.acquire("r1")
    assert taken is not None and taken.epoch == 2


async def test_heartbeats_tell_which_processes_are_alive(
        pair: tuple[RedisStore, RedisStore]) -> None:
    a, b = pair
    assert not await b.alive(a.process_id)
    await a.heartbeat()
    assert await b.alive(a.process_id)
    assert 0 < await a.redis.pttl(f"cardhall:proc:{a.process_id}") <= 1000  # two leases
    await asyncio.sleep(1.1)
    assert not await b.alive(a.process_id)


async def test_orphans_are_listed_rooms_with_a_record_and_no_lease(
        pair: tuple[RedisStore, RedisStore]) -> None:
    a, b = pair
    await a.save_room("held", {"game": "shop"}, {}, _summary())
    await a.save_room("orphan", {"game": "shop"}, {}, _summary())
    await a.save_room("gone", {"game": "shop"}, {}, _summary())
    await a.release("orphan")
    await a.release("gone")
    await a.redis.delete("cardhall:{room:gone}:record")  # its record expired
    assert await b.orphans() == ["orphan"]
    assert await b.index_ids("all", "", 10) == ["held", "orphan"]  # "gone" left the lobby
