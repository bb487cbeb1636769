"""The Redis store (``server/store/redis_store.py``) on a real redis-server, on what is its own:
a room's keys under its ``{room:ID}`` hash tag, a reload from the latest snapshot and the
log after it, appends of one tick checked one by one, finished rooms whose every key
expires, deleted rooms that leave nothing, the inbox between two processes, and a store
whose Redis is gone answering with typed errors. (Every server test runs on this store too:
conftest's ``server``; the replicated topologies: tests/e2e/test_redis_ha.py.)"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest

from cardhall.bench.procs import free_port
from cardhall.server.store.redis_store import RedisStore
from cardhall.server.store.ports import LogConflict, StoreError

from ..conftest import RedisProcess


def _summary(taken: int = 0) -> dict[str, Any]:
    return {"game": "shop", "mode": None, "status": "waiting", "private": False,
            "taken": taken, "seats": 2}


@pytest.fixture
async def store(redis_server: RedisProcess) -> AsyncIterator[RedisStore]:
    redis_server.flush()
    s = RedisStore(redis_server.url)
    try:
        yield s
    finally:
        await s.close()


async def test_a_room_is_reloaded_from_its_snapshot_and_the_log_after_it(
        store: RedisStore) -> None:
    await store.save_room("r1", {"game": "shop", "code": "WXYZ"}, {"s": 0}, _summary())
    assert sorted(k.decode() for k in await store.redis.keys("cardhall:{room:r1}:*")) == [
        "cardhall:{room:r1}:epoch", "cardhall:{room:r1}:owner", "cardhall:{room:r1}:record",
        "cardhall:{room:r1}:state"]
    await store.append("r1", [["a", 0, ["x"]], ["a", 1, ["y"]]], 0, {"s": 2})
    await store.save_snapshot("r1", 2, {"snap": 2})
    await store.append("r1", [["a", 0, ["z"]]], 2, None)  # the state unchanged
    with pytest.raises(LogConflict):
        await store.append("r1", [["a", 0, ["again"]]], 2, None)
    loaded = await store.load("r1")
    assert loaded is not None
    assert (loaded.record["code"], loaded.state) == ("WXYZ", {"s": 2})
    assert (loaded.snapshot, loaded.snapshot_state_id) == ({"snap": 2}, 2)
    assert loaded.entries == [["a", 0, ["z"]]]
    assert len(await store.log("r1")) == 3
    assert await store.room_by_code("WXYZ") == "r1"
    assert await store.load("nope") is None


async def test_appends_of_one_tick_to_many_rooms_are_each_checked(store: RedisStore) -> None:
    """Appends made together go out in one pipeline, each fenced and checked on its own:
    the one with a wrong ``expect`` alone is refused."""
    for room in ("r1", "r2", "r3"):
        await store.save_room(room, {"game": "shop"}, {}, _summary())
    results = await asyncio.gather(
        store.append("r1", [["a", 0, ["x"]]], 0, None),
        store.append("r2", [["a", 0, ["x"]]], 5, None),
        store.append("r3", [["a", 0, ["x"]]], 0, None), return_exceptions=True)
    assert results[0] is None and results[2] is None
    assert isinstance(results[1], LogConflict)
    assert [len(await store.log(r)) for r in ("r1", "r2", "r3")] == [1, 0, 1]


async def test_a_finished_room_expires_and_a_deleted_one_leaves_nothing(
        store: RedisStore) -> None:
    await store.save_room("r1", {"game": "shop", "code": "ABCD"}, {}, _summary())
    await store.append("r1", [["a", 0, ["x"]]], 0, None)
    await store.finish_room("r1", 60)
    for part in ("record", "state", "log", "epoch"):
        assert 0 < await store.redis.pttl(f"cardhall:{{room:r1}}:{part}") <= 60_000, part
    await store.delete_room("r1")
    assert await store.redis.keys("cardhall:{room:r1}:*") == []
    assert await store.room_by_code("ABCD") is None
    assert await store.index_ids("all", "", 10) == [] and await store.entries(["r1"]) == [None]
    assert "r1" not in store.leases


async def test_the_inbox_carries_a_payload_to_the_other_process(
        store: RedisStore, redis_server: RedisProcess) -> None:
    other = RedisStore(redis_server.url)
    got: asyncio.Queue[bytes] = asyncio.Queue()

    async def handler(payload: bytes) -> None:
        await got.put(payload)

    listening = asyncio.create_task(other.listen(handler))
    try:
        for _ in range(100):  # until its subscription is up
            if await store.publish(other.process_id, b"hello") == 1:
                break
            await asyncio.sleep(0.02)
        assert await asyncio.wait_for(got.get(), 5) == b"hello"
        assert await store.publish("nobody", b"x") == 0
    finally:
        await other.close()
        await asyncio.wait_for(listening, 5)


async def test_a_store_whose_redis_is_gone_answers_with_typed_errors() -> None:
    gone = RedisStore(f"redis://127.0.0.1:{free_port()}", timeout=0.5, wait_seconds=0.2)
    try:
        assert await gone.healthy() is False
        with pytest.raises(StoreError):
            await gone.save_room("r1", {"game": "shop"}, {}, _summary())
        with pytest.raises(StoreError):
            await gone.load("r1")
    finally:
        await gone.close()
