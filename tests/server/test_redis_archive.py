"""The games archive in Redis (issue #44 item 2): a record under the room's hash tag with
no expiry (or ``keep`` seconds), indexed by finish time in one sorted set, which pruning
reads in batches; a purge removes the record and its index entry."""

from __future__ import annotations

import pytest

from cardhall.server.store import redis_archive
from cardhall.server.store.redis_keys import key
from cardhall.server.store.redis_store import RedisStore

from ..conftest import RedisProcess


def game(room: str, finished_at: float) -> dict[str, object]:
    return {"room": room, "finished_at": finished_at, "entries": [], "private": True,
            "players": [None]}


async def test_records_keep_prune_and_purge(redis_server: RedisProcess,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    redis_server.flush()
    monkeypatch.setattr(redis_archive, "PRUNE_BATCH", 2)  # several batches
    store = RedisStore(redis_server.url)
    try:
        for n in range(5):
            await store.archive_game(f"r{n}", game(f"r{n}", 100.0 + n))
        await store.archive_game("kept", game("kept", 50.0), keep=3600.0)
        assert await store.archived("r0") == game("r0", 100.0)
        assert await store.archived_ids(0, 3) == ["kept", "r0", "r1"]  # by finish time
        assert await store.archived_ids(4, 10) == ["r3", "r4"]
        assert await store.archived_ids(0, 0) == []
        assert await store.redis.ttl(key("r0", "archive")) == -1  # no expiry
        assert 3500 < await store.redis.ttl(key("kept", "archive")) <= 3600
        await store.redis.delete(key("r1", "archive"))  # expired: its index entry stays
        assert await store.prune_archive(103.0) == 3  # kept, r0, r2 (r1 was gone)
        assert await store.redis.zcard(redis_archive.INDEX) == 2
        assert await store.purge_archived(["r3", "nope"]) == 1
        assert await store.archived("r3") is None and await store.archived("r4") is not None
        assert await store.redis.zrange(redis_archive.INDEX, 0, -1) == [b"r4"]
    finally:
        await store.close()
