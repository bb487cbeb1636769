"""The games archive (:class:`~.store.Archive`, issue #44 item 2) in Redis.

Keys::

    cardhall:{room:ID}:archive   the archived record (msgpack; see store.Archive): no expiry,
                                 or the operator's ``--history-days`` from the finish
    cardhall:archive             sorted set: room id -> finished_at (unix s), what pruning
                                 reads (:meth:`RedisArchive.prune_archive`)

A finished room's other keys expire with its lobby listing (``--finished-ttl``); the
archive key has its own time to live, or none. The record and the sorted set live in
different hash slots, so they are written by two commands (a pipeline), never one script:
a record whose index entry is lost is still read, and only outlives pruning; an index entry
without its record is dropped by the next prune.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any

from .redis_keys import key, text
from .ports import pack, unpack

__all__ = ["INDEX", "RedisArchive"]

#: The sorted set of archived games by finish time.
INDEX = "cardhall:archive"
#: Index entries pruned per round trip.
PRUNE_BATCH = 500


class RedisArchive:
    """The games archive of :class:`~.redis_store.RedisStore` (a part of it)."""

    redis: Any

    if TYPE_CHECKING:  # RedisStore's
        async def _call(self, coro: Awaitable[Any]) -> Any: ...

        async def _pipe(self, build: Callable[[Any], Awaitable[None]],
                        wait_for: Any = ()) -> list[Any]: ...

    async def archive_game(self, room_id: str, game: dict[str, Any],
                           keep: float | None = None) -> None:
        """``SET`` the record (with ``PX keep`` when given) and ``ZADD`` its finish time.

        Raises:
            StoreError: Redis is unavailable.
        """
        data = pack(game)

        async def build(pipe: Any) -> None:
            px = max(1, int(keep * 1000)) if keep is not None else None
            pipe.set(key(room_id, "archive"), data, px=px)
            pipe.zadd(INDEX, {room_id: float(game["finished_at"])})

        await self._pipe(build)

    async def archived(self, room_id: str) -> dict[str, Any] | None:
        """``GET`` the record.

        Raises:
            StoreError: Redis is unavailable.
        """
        data = await self._call(self.redis.get(key(room_id, "archive")))
        return None if data is None else dict(unpack(data))

    async def archived_ids(self, offset: int, limit: int) -> list[str]:
        """``ZRANGE`` a page of the index (by finish time; ties by room id). A record lost
        from under its index entry is still listed (:meth:`archived` then says None).

        Raises:
            StoreError: Redis is unavailable.
        """
        if limit <= 0:
            return []
        return [text(r) for r in await self._call(
            self.redis.zrange(INDEX, offset, offset + limit - 1))]

    async def prune_archive(self, before: float) -> int:
        """Delete the records the index says finished before ``before`` (unix s), in
        batches; returns how many records existed among them.

        Raises:
            StoreError: Redis is unavailable.
        """
        count = 0
        while True:
            ids = [text(r) for r in await self._call(self.redis.zrangebyscore(
                INDEX, "-inf", f"({before}", start=0, num=PRUNE_BATCH))]
            if not ids:
                return count
            count += await self.purge_archived(ids)

    async def purge_archived(self, room_ids: Sequence[str]) -> int:
        """``DEL`` the records of ``room_ids`` and ``ZREM`` them from the index.

        Raises:
            StoreError: Redis is unavailable.
        """
        ids = sorted(set(room_ids))
        if not ids:
            return 0

        async def build(pipe: Any) -> None:
            for room_id in ids:
                pipe.delete(key(room_id, "archive"))
            pipe.zrem(INDEX, *ids)

        results = await self._pipe(build)
        return sum(int(r) for r in results[:-1])
