"""The :class:`~.store.Leases` port on Redis: fenced room leases and process heartbeats,
shared by every process using the same Redis (a part of
:class:`~cardhall.server.store.redis_store.RedisStore`).

A room's lease is the key ``cardhall:{room:ID}:owner`` holding its :class:`~.store.Lease`
(``"PROCESS#EPOCH"``, expiring after ``lease_seconds`` unless renewed), beside the room's
epoch counter ``cardhall:{room:ID}:epoch``; the scripts that take, renew and release it are
:data:`~.redis_keys.ACQUIRE`, :data:`~.redis_keys.RENEW` and :data:`~.redis_keys.RELEASE`
(registered once by the store, as redis-py's ``Lock`` registers its own), and every fenced
write of the store checks the writer's exact lease in its own script
(:data:`~.redis_keys.APPEND`, :data:`~.redis_keys.SAVE_STATE`): a superseded lease raises
:class:`~.store.OwnershipLost`. A process's heartbeat is ``cardhall:proc:PROC``, expiring
after two leases.
"""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import redis.asyncio as aioredis
from redis.asyncio.cluster import RedisCluster
from redis.commands.core import AsyncScript

from .redis_keys import LobbyKeys, key, text
from .ports import Lease, StoreError

__all__ = ["IN_SYNC_LAG", "RedisLeases", "lease_keys"]

#: A replica that acknowledged the replication stream longer ago than this (s) is not
#: counted as in sync (replicas acknowledge every second).
IN_SYNC_LAG = 2


def lease_keys(room_id: str) -> list[str]:
    """The keys of the lease scripts: the room's lease and its epoch counter."""
    return [key(room_id, "owner"), key(room_id, "epoch")]


class RedisLeases:
    """Room leases and heartbeats in Redis (see the module docstring).

    Attributes:
        leases: The lease this process took last for each room (the store's writes given
            no lease use it).
        in_sync: Replicas in sync with each master at the last :meth:`heartbeat` (by master
            name, ``""`` for the only one; counted with ``min_replicas`` only).
    """

    leases: dict[str, Lease]
    in_sync: dict[str, int]

    if TYPE_CHECKING:  # RedisStore's, beside this part
        redis: aioredis.Redis | RedisCluster
        process_id: str
        keys: LobbyKeys
        min_replicas: int
        _acquire: AsyncScript
        _renew: AsyncScript
        _release: AsyncScript

        @property
        def _ms(self) -> int: ...

        async def _call(self, coro: Awaitable[Any]) -> Any: ...

        async def _pipe(self, build: Callable[[Any], Awaitable[None]],
                        wait_for: Iterable[str] = ()) -> list[Any]: ...

        async def _queue_script(self, pipe: Any, script: AsyncScript, keys: Sequence[str],
                                args: Sequence[Any]) -> None: ...

        async def entries(self, room_ids: Sequence[str]) -> list[dict[str, Any] | None]: ...

    def _held_epoch(self, room_id: str) -> int:
        """The epoch of the lease this process took last for the room (0: none)."""
        lease = self.leases.get(room_id)
        return 0 if lease is None else lease.epoch

    async def acquire(self, room_id: str) -> Lease | None:
        """A new lease (a new epoch, above any this process holds) unless another process
        holds the room."""
        res = await self._call(self._acquire(
            keys=lease_keys(room_id),
            args=[self.process_id, self._ms, self._held_epoch(room_id)]))
        if not res:
            return None
        lease = self.leases[room_id] = Lease.parse(text(res))
        return lease

    async def renew(self, leases: Mapping[str, Lease]) -> list[str]:
        """Extend every lease in one pipeline; returns the rooms whose lease is lost."""
        if not leases:
            return []

        async def build(pipe: Any) -> None:
            for room_id, lease in leases.items():
                await self._queue_script(pipe, self._renew, lease_keys(room_id),
                                         [str(lease), self._ms])

        results = await self._pipe(build)
        return [r for r, ok in zip(leases, results) if not ok]

    async def release(self, room_id: str) -> None:
        """Delete our lease (never another's)."""
        self.leases.pop(room_id, None)
        with contextlib.suppress(StoreError):
            await self._call(self._release(keys=[key(room_id, "owner")],
                                           args=[self.process_id]))

    async def owner(self, room_id: str) -> str | None:
        """The lease holder's process id."""
        value = await self._call(self.redis.get(key(room_id, "owner")))
        return Lease.holder(value) if value is not None else None

    async def owners(self, room_ids: Sequence[str]) -> list[str | None]:
        """The lease holders' process ids, in one ``MGET`` (per master on a Cluster)."""
        if not room_ids:
            return []
        keys = [key(r, "owner") for r in room_ids]
        if isinstance(self.redis, RedisCluster):
            values = await self._call(self.redis.mget_nonatomic(keys))
        else:
            values = await self._call(self.redis.mget(keys))
        return [Lease.holder(v) if v is not None else None for v in values]

    async def orphans(self) -> list[str]:
        """Rooms listed in the lobby with a record but no lease; entries whose record has
        expired are removed from the lobby on the way."""
        async def names(pipe: Any) -> None:
            for shard in range(self.keys.shards):
                pipe.hkeys(self.keys.lobby(shard))

        rooms = [r.decode() for part in await self._pipe(names) for r in part]
        if not rooms:
            return []

        async def flags(pipe: Any) -> None:
            for room_id in rooms:
                pipe.exists(key(room_id, "record"))
                pipe.exists(key(room_id, "owner"))

        found = await self._pipe(flags)
        out, gone = [], []
        for i, room_id in enumerate(rooms):
            has_record, has_owner = found[2 * i], found[2 * i + 1]
            if not has_record:
                gone.append(room_id)
            elif not has_owner:
                out.append(room_id)
        if gone:
            games = {e["game"] for e in await self.entries(gone) if e is not None}

            async def clean(pipe: Any) -> None:
                for room_id in gone:
                    shard = self.keys.shard(room_id)
                    pipe.hdel(self.keys.lobby(shard), room_id)
                    for game in games:
                        for index in self.keys.all_indexes(shard, game):
                            pipe.zrem(index, room_id)

            await self._pipe(clean)
        return out

    async def heartbeat(self) -> None:
        """SET cardhall:proc:PROC with an expiry of two leases; then, with
        ``min_replicas``, count the replicas in sync with each master (:attr:`in_sync`)."""
        await self._call(self.redis.set(f"cardhall:proc:{self.process_id}", b"1",
                                        px=2 * self._ms))
        if self.min_replicas:
            with contextlib.suppress(StoreError):  # counted again next time
                await self._count_replicas()

    async def _count_replicas(self) -> None:
        """``INFO replication`` of each master: its replicas that are ``online`` and
        acknowledged within :data:`IN_SYNC_LAG` seconds (a frozen or cut-off replica drops
        out within seconds, long before the master's ``repl-timeout``).

        Raises:
            StoreError: a master did not answer.
        """
        if isinstance(self.redis, RedisCluster):
            infos = await self._call(self.redis.info(
                "replication", target_nodes=RedisCluster.PRIMARIES))
            if "role" in infos:  # one master: redis-py gives its answer alone
                infos = {self.redis.get_primaries()[0].name: infos}
        else:
            infos = {"": await self._call(self.redis.info("replication"))}
        self.in_sync = {name: sum(1 for k, v in info.items()
                                  if k.startswith("slave") and isinstance(v, dict)
                                  and v.get("state") == "online"
                                  and int(v.get("lag", 0)) <= IN_SYNC_LAG)
                        for name, info in infos.items()}

    async def alive(self, process_id: str) -> bool:
        """EXISTS cardhall:proc:PROC."""
        return bool(await self._call(self.redis.exists(f"cardhall:proc:{process_id}")))
