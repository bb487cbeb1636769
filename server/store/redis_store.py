"""The Redis store: rooms shared by many server processes, surviving the crash of any one,
on a lone Redis, a Sentinel-watched master with replicas, or a Redis Cluster
(:mod:`.redis_topology`).

The key layout and the Lua scripts are in :mod:`.redis_keys`; the games archive's keys in
:mod:`.redis_archive`.

Finished rooms' keys expire (``finish_room``); the lobby and code entries are removed with the
room, or by the orphan scan once the record has expired.

Durability: ``append`` returns only after Redis has the entries. Appends of many rooms made in
one event-loop tick are sent in one pipeline (one round trip), each still fenced by its own
script. With ``appendonly yes`` a Redis restart keeps every acknowledged action. With
``min_replicas`` > 0 (Sentinel, Cluster) the pipeline ends with ``WAIT N timeout`` (on a
Cluster, one per master written to), N being every replica in sync with that master at the
last look (counted with each heartbeat) and at least ``min_replicas``: an append is
acknowledged only once they all hold it, so a failover keeps it whichever replica it
promotes (Sentinel picks by replication offsets it saw seconds ago); when fewer confirm in
time it fails with :class:`~.store.NotReplicated` (its fate is unknown: the room reloads).
A room's reload or takeover (``load`` with a lease) likewise renews the lease and waits for
the replicas before the room shows anyone what it read.
"""

from __future__ import annotations

import asyncio
import contextlib
import heapq
import logging
from collections.abc import Awaitable, Callable, Iterable, Sequence
from typing import Any, cast

from redis.asyncio.cluster import ClusterNode, RedisCluster
from redis.asyncio.sentinel import SentinelConnectionPool
from redis.commands.core import AsyncScript
from redis.crc import key_slot
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import NoScriptError, RedisClusterException, RedisError, ResponseError
from tenacity import AsyncRetrying, retry_if_exception_type, wait_exponential

from .redis_keys import (
    ACQUIRE,
    APPEND,
    BOARD_PREFIX,
    CLUSTER_LOBBY_SHARDS,
    CODES,
    LOBBY,
    RELEASE,
    RENEW,
    SAVE_STATE,
    LobbyKeys,
    index_key,
    inbox,
    key,
    refusal,
    text,
)
from .redis_archive import RedisArchive
from .redis_leases import RedisLeases, lease_keys
from .redis_topology import RedisTarget
from .ports import (
    InboxHandler, Lease, Loaded, LogEntry, NotReplicated, OwnershipLost, Store, StoreError,
    StoreHealth, new_process_id, pack, unpack)
from ..tasks import Background

__all__ = ["CODES", "LOBBY", "WAIT_SECONDS", "RedisStore", "index_key", "inbox", "key"]

log = logging.getLogger("cardhall.redis")

#: Seconds ``WAIT`` waits for the replicas by default.
WAIT_SECONDS = 0.5
#: Seconds between two checks that a Sentinel store's inbox listens on the master.
INBOX_CHECK_SECONDS = 1.0
#: What redis-py raises when Redis cannot answer: its errors, the Cluster client's own
#: exceptions (``RedisClusterException`` is no ``RedisError``: "cannot be connected", a slot
#: no node serves while the Cluster fails over) and socket errors.
FAILURES: tuple[type[Exception], ...] = (RedisError, RedisClusterException, OSError)


class RedisStore(RedisArchive, RedisLeases, Store):
    """Rooms in Redis (``redis.asyncio``), shared by every process using the same Redis.

    Args:
        target: Where Redis is (:class:`~.redis_topology.RedisTarget`), or the URL of a lone
            Redis (``redis://HOST:PORT/DB``).
        lease_seconds: Room lease length (s); an owner renews every third of it, and a dead
            owner's rooms are taken over at most this long (plus one scan) after its death.
        timeout: Seconds a single Redis command may take (or wait for a pooled connection)
            before it fails.
        max_connections: Sockets to each Redis node at most (requests beyond wait for one).
        min_replicas: Replicas that must confirm an action (``WAIT``) before it is
            acknowledged, at least: with it, every replica in sync with the master must
            (:attr:`in_sync`). None: the target's default (1 with Sentinel or Cluster, 0
            for a lone Redis).
        wait_seconds: Seconds ``WAIT`` waits for them (below ``timeout``).

    Connection errors are retried by redis-py (exponential backoff, 3 tries; with Sentinel
    each new connection asks the Sentinels for the master, and ``READONLY`` from a demoted
    master is a connection error); beyond that every method raises :class:`StoreError`.
    Every fenced write checks the writer's exact lease on whichever master answers, so a
    process that reaches a newly promoted master re-checks its leases by writing. Every
    call's answer (and how long it took) or failure is reported to :attr:`health` (a
    :class:`~.store.StoreHealth`).

    Raises:
        ValueError: ``min_replicas`` below 0, or ``wait_seconds`` not below ``timeout``.
    """

    shared = True
    durable = True  # with appendonly yes (docs/operations.md)

    def __init__(self, target: RedisTarget | str, *, lease_seconds: float = 3.0,
                 timeout: float = 2.0, max_connections: int = 32,
                 min_replicas: int | None = None, wait_seconds: float = WAIT_SECONDS) -> None:
        self.target = RedisTarget(url=target) if isinstance(target, str) else target
        self.url = self.target.url or self.target.describe()
        self.min_replicas = (self.target.default_min_replicas() if min_replicas is None
                             else min_replicas)
        if self.min_replicas < 0 or not 0 < wait_seconds < timeout:
            raise ValueError("min_replicas >= 0 and 0 < wait_seconds < timeout")
        self.wait_ms = max(1, int(wait_seconds * 1000))
        self.process_id = new_process_id()
        self.lease_seconds = lease_seconds
        self.health = StoreHealth(lease_seconds)
        self.redis, self._close_client = self.target.connect(
            timeout=timeout, max_connections=max_connections)
        self.cluster = self.target.is_cluster
        self.keys = LobbyKeys(CLUSTER_LOBBY_SHARDS if self.cluster else 1)
        self._append = self.redis.register_script(APPEND)
        self._save_state = self.redis.register_script(SAVE_STATE)
        self._renew = self.redis.register_script(RENEW)
        self._acquire = self.redis.register_script(ACQUIRE)
        self._release = self.redis.register_script(RELEASE)
        self._scripts = (self._append, self._save_state, self._renew, self._acquire,
                         self._release)
        self._batch: list[_Append] = []
        self._flush_scheduled = False
        self._closed = False
        self._background = Background()  # the batched appends' flushes
        self._indexed = False  # the lobby indexes were checked (see index_ids)
        self.errors = 0
        #: The lease this process took last for each room (writes given no lease use it).
        self.leases: dict[str, Lease] = {}
        #: Replicas in sync with each master at the last look (by master name: ``""`` for
        #: the only one; see :meth:`_count_replicas`): ``WAIT`` asks for all of them.
        self.in_sync: dict[str, int] = {}

    @property
    def _ms(self) -> int:
        return int(self.lease_seconds * 1000)

    async def _call(self, coro: Awaitable[Any]) -> Any:
        asked_at = self.health.now()
        try:
            result = await coro
        except NoScriptError as exc:  # a node without the scripts (promoted, restarted)
            self.health.answered(asked_at)
            raise _NoScript(f"redis: {exc}") from None
        except ResponseError as exc:
            self.health.answered(asked_at)
            if (refused := refusal(exc)) is not None:
                raise refused from None
            self.errors += 1
            raise StoreError(f"redis: {exc}") from None
        except FAILURES as exc:
            raise self._unavailable(exc) from None
        self.health.answered(asked_at)
        return result

    def _unavailable(self, exc: Exception) -> StoreError:
        """Count a failure to reach Redis and return the error to raise."""
        self.health.failed()
        self.errors += 1
        return StoreError(f"redis unavailable: {exc}")

    async def _pipe(self, build: Callable[[Any], Awaitable[None]],
                    wait_for: Iterable[str] = ()) -> list[Any]:
        """Run the commands ``build(pipe)`` queues on a fresh pipeline (redis-py splits it
        per node on a Cluster) and return their results; raise the first error as
        :meth:`_call` does. With ``wait_for`` keys (and ``min_replicas``), the pipeline ends
        with ``WAIT`` on the node of each (:class:`NotReplicated` when too few replicas
        confirm). The commands must be safe to run twice: a reply ``NOSCRIPT`` (a node that
        lacks the scripts: a promoted replica, a restarted master) loads the scripts on every
        master and runs the pipeline once more."""
        for again in (False, True):
            try:
                async with self.redis.pipeline(transaction=False) as pipe:  # see _flush
                    await build(pipe)
                    waits = self._queue_waits(pipe, wait_for)
                    results = await self._call(pipe.execute())
            except _NoScript:
                if again:
                    raise
                await self._load_scripts()
                continue
            except FAILURES as exc:  # a Cluster pipeline connects as it is entered
                raise self._unavailable(exc) from None
            if waits:
                for wait, res in zip(waits.values(), results[-len(waits):]):
                    if (err := self._confirmed(wait, res)) is not None:
                        await self._rediscover()
                        raise err
                results = results[:-len(waits)]
            return list(results)
        raise AssertionError("unreachable")

    async def _queue_script(self, pipe: Any, script: AsyncScript, keys: Sequence[str],
                            args: Sequence[Any]) -> None:
        """Queue ``script`` on ``pipe`` (its ``EVALSHA``: a Cluster pipeline refuses the
        script object's own call; a ``NOSCRIPT`` reply is handled by the caller)."""
        if self.cluster:
            pipe.execute_command("EVALSHA", script.sha, len(keys), *keys, *args)
        else:
            await script(keys=keys, args=args, client=pipe)

    async def _load_scripts(self) -> None:
        """``SCRIPT LOAD`` every script (on every master of a Cluster)."""
        for script in self._scripts:
            await self._call(self.redis.script_load(script.script))

    # -- replication ---------------------------------------------------------------------

    def _node(self, key_name: str) -> ClusterNode | None:
        """The Cluster master that holds ``key_name`` now (None for a lone Redis or a
        Sentinel master)."""
        if not self.cluster:
            return None
        assert isinstance(self.redis, RedisCluster)
        return self.redis.get_node_from_key(key_name)

    def _node_name(self, key_name: str) -> str:
        """The name of :meth:`_node` (``""`` for the only master)."""
        node = self._node(key_name)
        return node.name if node is not None else ""

    def _queue_waits(self, pipe: Any, keys: Iterable[str]) -> dict[str, _Wait]:
        """Queue ``WAIT N ms`` on ``pipe`` (after the writes queued so far): once, or on a
        Cluster once per master holding one of ``keys`` (by master name: see
        :meth:`_node_name`). N is ``min_replicas``, or more: every replica that master had
        in sync at the last look (:attr:`in_sync`), since a failover may promote any of
        them. Nothing without ``min_replicas``."""
        if not self.min_replicas:
            return {}
        waits: dict[str, _Wait] = {}
        for k in keys:
            node = self._node(k)
            name = node.name if node is not None else ""
            if name not in waits:
                wait = waits[name] = _Wait(node, max(self.min_replicas,
                                                     self.in_sync.get(name, 0)))
                if node is None:
                    pipe.execute_command("WAIT", wait.replicas, self.wait_ms)
                else:
                    pipe.execute_command("WAIT", wait.replicas, self.wait_ms,
                                         target_nodes=node)
            waits[name].slots.add(key_slot(k.encode()))
        return waits

    async def _rediscover(self) -> None:
        """Too few replicas confirmed a write. With Sentinel, the master written to may be
        an old one back from a partition that the Sentinels have not demoted yet (they wait
        seconds before they do): ask them for the master again, which drops the idle
        connections to the old one when it changed (redis-py's
        ``SentinelConnectionPool.get_master_address``). Errors are left to the next call."""
        pool = getattr(self.redis, "connection_pool", None)
        if isinstance(pool, SentinelConnectionPool):
            with contextlib.suppress(*FAILURES):
                await cast(Any, pool).get_master_address()

    def _confirmed(self, wait: _Wait, result: Any) -> StoreError | None:
        """None when ``WAIT`` answered ``result`` >= the replicas it asked for on the master that
        still holds every slot it was for; else the error to report."""
        if isinstance(result, Exception):
            return NotReplicated(f"WAIT failed: {result}")
        if int(result) < wait.replicas:
            return NotReplicated(
                f"{result} of {wait.replicas} replica(s) confirmed the write within "
                f"{self.wait_ms} ms; it may be lost on a failover, so it is not acknowledged")
        if wait.node is not None:
            assert isinstance(self.redis, RedisCluster)
            for slot in wait.slots:
                now = self.redis.nodes_manager.get_node_from_slot(slot)
                if now is None or now.name != wait.node.name:  # moved: written elsewhere
                    return NotReplicated(f"slot {slot} moved during the write")
        return None

    # -- rooms -------------------------------------------------------------------------

    def _room_keys(self, room_id: str, *parts: str) -> list[str]:
        return [key(room_id, part) for part in parts]

    async def save_room(self, room_id: str, record: dict[str, Any], state: dict[str, Any],
                        summary: dict[str, Any]) -> Lease:
        """Create the room and take its lease (one pipeline, replicated when asked);
        returns the lease."""
        code = record.get("code")

        async def build(pipe: Any) -> None:
            await self._queue_script(pipe, self._acquire, lease_keys(room_id),
                                     [self.process_id, self._ms, 0])
            pipe.set(key(room_id, "record"), pack(record))
            pipe.set(key(room_id, "state"), pack(state))
            self.keys.put(pipe, room_id, summary)
            if code:
                pipe.hset(self.keys.codes(self.keys.shard(code)), code, room_id)

        wait_for = [key(room_id, "owner"), self.keys.lobby(self.keys.shard(room_id))]
        if code:
            wait_for.append(self.keys.codes(self.keys.shard(code)))
        results = await self._pipe(build, wait_for)
        if not results[0]:  # a fresh random id is never held by another process
            raise OwnershipLost(f"room {room_id} is owned by another process")
        lease = self.leases[room_id] = Lease.parse(text(results[0]))
        return lease

    def _lease(self, room_id: str, lease: Lease | None) -> str:
        """The stored form of ``lease``, or of the lease this process took last for the room
        (``""``: none, which holds no room)."""
        if lease is None:
            lease = self.leases.get(room_id)
        return "" if lease is None else str(lease)

    async def save_state(self, room_id: str, state: dict[str, Any],
                         summary: dict[str, Any], *, lease: Lease | None = None) -> None:
        """Fenced state write, then the lobby entry and indexes (one pipeline; replicated
        when asked)."""
        keys = self._room_keys(room_id, "owner", "epoch", "state")
        args: list[Any] = [self._lease(room_id, lease), self._ms, pack(state)]
        if self.min_replicas:
            async def fenced(pipe: Any) -> None:
                await self._queue_script(pipe, self._save_state, keys, args)

            await self._pipe(fenced, [key(room_id, "state")])
        else:
            await self._call(self._save_state(keys=keys, args=args))

        async def index(pipe: Any) -> None:
            self.keys.put(pipe, room_id, summary)

        await self._pipe(index, [self.keys.lobby(self.keys.shard(room_id))])

    async def append(self, room_id: str, entries: Sequence[LogEntry], expect: int,
                     state: dict[str, Any] | None, *, lease: Lease | None = None) -> None:
        """Fenced append; batched with the other rooms' appends of this loop tick, and
        replicated to ``min_replicas`` before it returns. The state goes as an empty string
        when None (unchanged): the script leaves it be."""
        fut: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        keys = self._room_keys(room_id, "owner", "epoch", "log", "state")
        args = [self._lease(room_id, lease), self._ms, expect,
                b"" if state is None else pack(state),
                *(pack(e) for e in entries)]
        self._queue(_Append(keys, args, fut))
        await fut

    def _queue(self, item: _Append) -> None:
        self._batch.append(item)
        if not self._flush_scheduled:
            self._flush_scheduled = True
            self._background.spawn_soon(self._flush)

    async def _flush(self) -> None:
        batch, self._batch, self._flush_scheduled = self._batch, [], False
        if not batch:
            return
        # ``async with``: the pipeline gives its connection back even when loading its script
        # fails (redis-py keeps it then, and warns "Unclosed client session" when collected).
        asked_at = self.health.now()
        nodes = [self._node_name(item.keys[2]) for item in batch]
        try:
            pipe: Any
            async with self.redis.pipeline(transaction=False) as pipe:
                for item in batch:
                    await self._queue_script(pipe, self._append, item.keys, item.args)  # queued
                waits = self._queue_waits(pipe, (item.keys[2] for item in batch))
                results = await pipe.execute(raise_on_error=False)
        except FAILURES as exc:
            error = self._unavailable(exc)
            for item in batch:
                _fail(item.fut, StoreError(str(error)))
            return
        except asyncio.CancelledError:  # the store is closing: nothing may be assumed written
            for item in batch:
                _fail(item.fut, StoreError("the store closed during the append"))
            raise
        self.health.answered(asked_at)
        confirmed = {name: self._confirmed(w, r)
                     for (name, w), r in zip(waits.items(), results[len(batch):])}
        if any(err is not None for err in confirmed.values()):
            await self._rediscover()
        retry = []
        for item, node, res in zip(batch, nodes, results):
            if item.fut.done():
                continue
            if isinstance(res, NoScriptError) and not item.retried:
                item.retried = True  # it did not run: send it again once the scripts are in
                retry.append(item)
                continue
            refused = refusal(res) if isinstance(res, ResponseError) else None
            if refused is not None:
                item.fut.set_exception(refused)
            elif isinstance(res, Exception):
                self.errors += 1
                item.fut.set_exception(StoreError(f"redis: {res}"))
            elif waits and (err := confirmed.get(node, _uncovered())) is not None:
                item.fut.set_exception(err)
            else:
                item.fut.set_result(res)
        if retry:
            try:
                await self._load_scripts()
            except StoreError as exc:
                for item in retry:
                    _fail(item.fut, exc)
                return
            for item in retry:
                self._queue(item)

    async def save_snapshot(self, room_id: str, state_id: int, snapshot: dict[str, Any]) -> None:
        """Keep the latest snapshot (not waited for: the log holds everything after the
        snapshot before it)."""
        await self._call(self.redis.set(key(room_id, "snap"), pack([state_id, snapshot])))

    async def load(self, room_id: str, *, lease: Lease | None = None) -> Loaded | None:
        """Record, state, snapshot and the log after the snapshot. With a lease and
        ``min_replicas``: the lease is renewed and ``WAIT`` confirms, in the pipeline that
        reads the log, that the replicas hold everything read (:class:`NotReplicated`
        otherwise; :class:`OwnershipLost` when the lease does not hold)."""

        async def head(pipe: Any) -> None:
            pipe.get(key(room_id, "record"))
            pipe.get(key(room_id, "state"))
            pipe.get(key(room_id, "snap"))

        record, state, snap = await self._pipe(head)
        if record is None:
            return None
        sid, snapshot = unpack(snap) if snap is not None else (0, None)
        if lease is None or not self.min_replicas:
            raw = await self._call(self.redis.lrange(key(room_id, "log"), sid, -1))
            return Loaded(unpack(record), unpack(state) if state else None, snapshot, sid,
                          [unpack(e) for e in raw])

        async def tail(pipe: Any) -> None:
            # The renewal is a write: WAIT then covers all that was read before it.
            await self._queue_script(pipe, self._renew, lease_keys(room_id),
                                     [str(lease), self._ms])
            pipe.lrange(key(room_id, "log"), sid, -1)

        results = await self._pipe(tail, [key(room_id, "log")])
        if not results[0]:
            raise OwnershipLost(f"the lease {lease} of {room_id} does not hold any more")
        return Loaded(unpack(record), unpack(state) if state else None, snapshot, sid,
                      [unpack(e) for e in results[-1]])

    async def log(self, room_id: str) -> list[LogEntry]:
        """The whole log."""
        raw = await self._call(self.redis.lrange(key(room_id, "log"), 0, -1))
        return [unpack(e) for e in raw]

    async def list_rooms(self) -> list[dict[str, Any]]:
        """Every lobby entry (``HGETALL`` of each shard)."""
        async def build(pipe: Any) -> None:
            for shard in range(self.keys.shards):
                pipe.hgetall(self.keys.lobby(shard))

        return [unpack(v) for part in await self._pipe(build) for v in part.values()]

    async def index_ids(self, index: str, after: str, count: int) -> list[str]:
        """ZRANGEBYLEX on the index's sorted set of each shard, merged (the first call of a
        process rebuilds the indexes of a lobby written by a version without them:
        :meth:`reindex`)."""
        if not self._indexed:
            if not await self._call(self.redis.exists(self.keys.index(0, "all"))):
                await self.reindex()
            self._indexed = True
        low = f"({after}" if after else "-"

        async def build(pipe: Any) -> None:
            for shard in range(self.keys.shards):
                pipe.zrangebylex(self.keys.index(shard, index), low, "+", 0, count)

        parts = await self._pipe(build)
        if len(parts) == 1:
            return [r.decode() for r in parts[0]]
        merged = heapq.merge(*parts)
        return [r.decode() for r, _ in zip(merged, range(count))]

    async def reindex(self) -> int:
        """Put every room of the lobby hash into its indexes (HSCAN, batches of 500): for a
        lobby written before the indexes existed, or to repair them. Index entries are only
        added or removed, never the lobby entries themselves; a room that changes meanwhile
        fixes its own memberships with its next state write. Returns the rooms indexed.

        Raises:
            StoreError: the store is unavailable.
        """
        count = 0
        for shard in range(self.keys.shards):
            cursor = 0
            while True:
                cursor, batch = await self._call(
                    self.redis.hscan(self.keys.lobby(shard), cursor, count=500))
                if batch:
                    async def build(pipe: Any, batch: dict[bytes, bytes] = batch) -> None:
                        for room_id, raw in batch.items():
                            self.keys.reindex(pipe, room_id.decode(), unpack(raw))

                    await self._pipe(build)
                    count += len(batch)
                if cursor == 0:
                    break
        return count

    async def entries(self, room_ids: Sequence[str]) -> list[dict[str, Any] | None]:
        """HMGET on the lobby hash (of each shard holding one of them)."""
        if not room_ids:
            return []
        by_shard: dict[int, list[int]] = {}
        for i, room_id in enumerate(room_ids):
            by_shard.setdefault(self.keys.shard(room_id), []).append(i)

        async def build(pipe: Any) -> None:
            for shard, where in by_shard.items():
                pipe.hmget(self.keys.lobby(shard), [room_ids[i] for i in where])

        out: list[dict[str, Any] | None] = [None] * len(room_ids)
        for where, raw in zip(by_shard.values(), await self._pipe(build)):
            for i, v in zip(where, raw):
                out[i] = None if v is None else unpack(v)
        return out

    async def room_by_code(self, code: str) -> str | None:
        """Room id of a join code."""
        room_id = await self._call(self.redis.hget(self.keys.codes(self.keys.shard(code)),
                                                   code))
        return room_id.decode() if room_id is not None else None

    async def finish_room(self, room_id: str, ttl: float) -> None:
        """Every key of the room expires after ``ttl`` seconds."""
        async def build(pipe: Any) -> None:
            for part in ("record", "state", "log", "snap", "epoch"):
                pipe.pexpire(key(room_id, part), max(1, int(ttl * 1000)))

        await self._pipe(build)

    async def delete_room(self, room_id: str) -> None:
        """Delete every key of the room, its lobby entry and its code."""
        shard = self.keys.shard(room_id)

        async def read(pipe: Any) -> None:
            pipe.get(key(room_id, "record"))
            pipe.hget(self.keys.lobby(shard), room_id)

        record, entry = await self._pipe(read)
        rec = unpack(record) if record is not None else None
        game = rec["game"] if rec is not None else unpack(entry)["game"] if entry else None

        async def build(pipe: Any) -> None:
            pipe.delete(*self._room_keys(room_id, "record", "state", "log", "snap", "epoch"))
            await self._queue_script(pipe, self._release, [key(room_id, "owner")],
                                     [self.process_id])
            pipe.hdel(self.keys.lobby(shard), room_id)
            if rec is not None and rec.get("code"):
                pipe.hdel(self.keys.codes(self.keys.shard(rec["code"])), rec["code"])
            if game is not None:
                for index in self.keys.all_indexes(shard, game):
                    pipe.zrem(index, room_id)

        self.leases.pop(room_id, None)
        await self._pipe(build)

    # -- messages ------------------------------------------------------------------------

    async def record_score(self, board: str, name: str, value: int, size: int) -> bool:
        """``ZADD LT CH`` (only a lower value replaces the name's entry; a new name is
        added), then ``ZREMRANGEBYRANK size -1`` (drop all but the best ``size``), in one
        MULTI (one key: one slot on a Cluster)."""
        try:
            async with self.redis.pipeline(transaction=True) as pipe:
                pipe.zadd(BOARD_PREFIX + board, {name: value}, lt=True, ch=True)
                pipe.zremrangebyrank(BOARD_PREFIX + board, size, -1)
                changed, _ = await self._call(pipe.execute())
        except FAILURES as exc:  # a Cluster pipeline connects as it is entered
            raise self._unavailable(exc) from None
        return bool(changed)

    async def board_page(self, board: str, start: int, count: int
                         ) -> tuple[list[tuple[str, int]], int]:
        """``ZRANGE start stop WITHSCORES`` and ``ZCARD`` (ties are in name order, as in a
        sorted set of equal scores)."""
        if count <= 0:
            return [], int(await self._call(self.redis.zcard(BOARD_PREFIX + board)))

        async def build(pipe: Any) -> None:
            pipe.zrange(BOARD_PREFIX + board, start, start + count - 1, withscores=True)
            pipe.zcard(BOARD_PREFIX + board)

        rows, total = await self._pipe(build)
        return [(n.decode(), int(v)) for n, v in rows], int(total)

    async def board_rank(self, board: str, name: str) -> tuple[int, int] | None:
        """``ZRANK`` and ``ZSCORE`` of the name."""
        async def build(pipe: Any) -> None:
            pipe.zrank(BOARD_PREFIX + board, name)
            pipe.zscore(BOARD_PREFIX + board, name)

        rank, value = await self._pipe(build)
        return None if rank is None or value is None else (int(rank), int(value))

    async def publish(self, process_id: str, payload: bytes) -> int:
        """PUBLISH to the process's inbox channel (SPUBLISH on a Cluster: the channel lives
        on the master of its slot, not on every node)."""
        if self.cluster:
            return int(await self._call(self.redis.spublish(inbox(process_id), payload)))
        return int(await self._call(self.redis.publish(inbox(process_id), payload)))

    async def listen(self, handler: InboxHandler) -> None:
        """Subscribe to this process's inbox; resubscribe with backoff after Redis
        restarts or failovers; return on :meth:`close`."""
        while not self._closed:
            try:
                async for attempt in AsyncRetrying(
                        wait=wait_exponential(multiplier=0.05, max=1.0),
                        retry=retry_if_exception_type(FAILURES)):
                    with attempt:
                        await self._listen_once(handler)
                return
            except asyncio.CancelledError:
                return

    async def _listen_once(self, handler: InboxHandler) -> None:
        pubsub = self.redis.pubsub(ignore_subscribe_messages=True)
        channel = inbox(self.process_id)
        checked = asyncio.get_running_loop().time()
        try:
            if self.cluster:
                await pubsub.ssubscribe(channel)
            else:
                await pubsub.subscribe(channel)
            while not self._closed:
                if self.cluster:
                    msg = await cast(Any, pubsub).get_sharded_message(
                        ignore_subscribe_messages=True, timeout=1.0)
                else:
                    msg = await pubsub.get_message(timeout=1.0)
                if msg is not None and msg["type"] in ("message", "smessage"):
                    try:
                        await handler(msg["data"])
                    except Exception:  # one bad message must not stop the inbox
                        log.exception("inbox handler failed")
                now = asyncio.get_running_loop().time()
                if now - checked >= INBOX_CHECK_SECONDS:
                    checked = now
                    await self._inbox_on_master(pubsub)
        finally:
            with contextlib.suppress(Exception):
                await cast(Any, pubsub).aclose()

    async def _inbox_on_master(self, pubsub: Any) -> None:
        """With Sentinel: the inbox must listen on the master the Sentinels name, where the
        other processes publish. A master back from a partition answers its old subscribers
        for seconds before the Sentinels demote it; every :data:`INBOX_CHECK_SECONDS` the
        Sentinels are asked, and a subscription elsewhere is made again.

        Raises:
            redis.exceptions.ConnectionError: the subscription is not on the master.
        """
        pool = getattr(self.redis, "connection_pool", None)
        conn = getattr(pubsub, "connection", None)
        if not isinstance(pool, SentinelConnectionPool) or conn is None:
            return
        try:
            master = await cast(Any, pool).get_master_address()
        except FAILURES:
            return  # no Sentinel answers now: keep listening
        if (conn.host, int(conn.port)) != (master[0], int(master[1])):
            raise RedisConnectionError(f"the inbox listens on {conn.host}:{conn.port}, the "
                                       f"master is {master[0]}:{master[1]}: subscribing again")

    async def healthy(self) -> bool:
        """PING answers (on a Cluster: some master answers; the rooms of a master being
        failed over wait, the others go on)."""
        try:
            if isinstance(self.redis, RedisCluster):
                for node in self.redis.get_primaries():
                    with contextlib.suppress(*FAILURES):
                        if await self.redis.ping(target_nodes=node):
                            return True
                return False
            return bool(await self.redis.ping())
        except FAILURES:
            return False

    async def close(self) -> None:
        """Stop listening, stop the pending append flushes, close the connections."""
        self._closed = True
        await self._background.close()
        with contextlib.suppress(Exception):
            await self._close_client()


def _uncovered() -> NotReplicated:
    """The error of an append whose master no ``WAIT`` of its flush covered (cannot happen
    while the slot map holds still between queueing the appends and their waits)."""
    return NotReplicated("no WAIT reached the room's master")


class _NoScript(StoreError):
    """A node answered ``NOSCRIPT``: the script did not run (see :meth:`RedisStore._pipe`)."""


class _Append:
    """One room's append waiting for its flush: its script's keys and arguments, and the
    future its writer awaits."""

    __slots__ = ("keys", "args", "fut", "retried")

    def __init__(self, keys: list[str], args: list[Any], fut: asyncio.Future[Any]) -> None:
        self.keys = keys
        self.args = args
        self.fut = fut
        self.retried = False


class _Wait:
    """A ``WAIT`` queued on a pipeline: the Cluster master it went to (None: the only
    master), the replicas it asked for, and the slots it was for (to see whether one moved
    meanwhile)."""

    __slots__ = ("node", "replicas", "slots")

    def __init__(self, node: ClusterNode | None, replicas: int) -> None:
        self.node = node
        self.replicas = replicas
        self.slots: set[int] = set()


def _fail(fut: asyncio.Future[Any], exc: StoreError) -> None:
    if not fut.done():
        fut.set_exception(exc)
