"""The Redis store: rooms shared by many server processes, surviving the crash of any one.

Key layout (``ID`` is the room id; every key of one room shares the hash tag ``{room:ID}``,
so a Redis Cluster keeps them in one slot and the scripts below touch one slot only)::

    cardhall:{room:ID}:record   string  msgpack record (game, options with seed, settings, code)
    cardhall:{room:ID}:state    string  msgpack server state (status, seats with tokens,
                                        members, deadlines)
    cardhall:{room:ID}:log      list    msgpack log entries, append-only
    cardhall:{room:ID}:snap     string  msgpack [state_id, engine snapshot]
    cardhall:{room:ID}:owner    string  the lease "PROC#EPOCH" (owner's process id, epoch);
                                        expires (PX) unless renewed
    cardhall:{room:ID}:epoch    string  integer: acquisitions of the room's lease so far
    cardhall:lobby              hash    room id -> msgpack lobby entry (all processes)
    cardhall:codes              hash    join code -> room id (private rooms)
    cardhall:index:NAME         zset    lobby index NAME (``store.room_indexes``: all,
                                        game:GAME, waiting, waiting:GAME): room ids, all
                                        scores 0, read in id order with ZRANGEBYLEX;
                                        rebuilt from the lobby hash when missing (reindex)
    cardhall:proc:PROC          string  "1" while server process PROC is alive (PX, renewed)
    cardhall:board:GAME:MODE    zset    leaderboard (``server/leaderboard.py``): member = player
                                        name, score = rank value (lower is better: turns, or
                                        minus the points); the best BOARD_SIZE names; no
                                        expiry
    channel cardhall:inbox:PROC         pub/sub inbox of server process PROC

Finished rooms' keys expire (``finish_room``); the lobby and code entries are removed with the
room, or by the orphan scan once the record has expired.

Durability: ``append`` returns only after Redis has the entries. Appends of many rooms made in
one event-loop tick are sent in one pipeline (one round trip), each still fenced by its own
script. With ``appendonly yes`` a Redis restart keeps every acknowledged action.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Mapping, Sequence
from typing import Any

import msgpack
import redis.asyncio as aioredis
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialBackoff
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import RedisError, ResponseError
from redis.exceptions import TimeoutError as RedisTimeoutError
from tenacity import AsyncRetrying, retry_if_exception_type, wait_exponential

from .store import (
    InboxHandler,
    Loaded,
    LogConflict,
    LogEntry,
    OwnershipLost,
    Store,
    StoreError,
    StoreHealth,
    lease_owner,
    new_process_id,
    room_indexes,
)
from .tasks import Background

log = logging.getLogger("cardhall.redis")

LOBBY = "cardhall:lobby"
CODES = "cardhall:codes"
BOARD_PREFIX = "cardhall:board:"

# Lua prelude of the fenced scripts: whether lease ``lease`` ("PROC#EPOCH") holds the room
# whose lease key is ``owner`` and epoch counter ``epoch``: the key is that lease (extended
# by ``ms``), or it expired (the store was down, say) and nobody acquired the room since
# (the counter is still EPOCH), and then it is set again for ``ms``.
_HOLDS = """
local function holds(owner, epoch, lease, ms)
  local v = redis.call('GET', owner)
  if v == lease then
    redis.call('PEXPIRE', owner, ms)
    return true
  end
  if not v and redis.call('GET', epoch) == string.match(lease, '#(%d+)$') then
    redis.call('SET', owner, lease, 'PX', ms)
    return true
  end
  return false
end
"""

# KEYS[1] owner lease, KEYS[2] epoch counter, KEYS[3] log list, KEYS[4] state string
# ARGV[1] the writer's exact lease ("PROC#EPOCH"), ARGV[2] lease length in ms,
# ARGV[3] expected log length, ARGV[4] packed state ('': unchanged, left as it is),
# ARGV[5..] packed log entries
# -> the new log length; error "OWNERSHIP" if that lease does not hold the room (see
#    _HOLDS), "CONFLICT" if the log has another length (under a lease that holds, only this
#    copy wrote: an earlier append of its own landed unanswered, e.g. one redis-py resent).
#    Nothing but the lease is written on error.
_APPEND = _HOLDS + """
if not holds(KEYS[1], KEYS[2], ARGV[1], ARGV[2]) then
  return redis.error_reply('OWNERSHIP lost')
end
if redis.call('LLEN', KEYS[3]) ~= tonumber(ARGV[3]) then
  return redis.error_reply('CONFLICT log length')
end
for i = 5, #ARGV do redis.call('RPUSH', KEYS[3], ARGV[i]) end
if ARGV[4] ~= '' then redis.call('SET', KEYS[4], ARGV[4]) end
return redis.call('LLEN', KEYS[3])
"""

# KEYS[1] owner lease, KEYS[2] epoch counter, KEYS[3] state string
# ARGV[1] the writer's exact lease, ARGV[2] lease length in ms, ARGV[3] packed state
# -> 1; error "OWNERSHIP" if that lease does not hold the room (see _HOLDS).
_SAVE_STATE = _HOLDS + """
if not holds(KEYS[1], KEYS[2], ARGV[1], ARGV[2]) then
  return redis.error_reply('OWNERSHIP lost')
end
redis.call('SET', KEYS[3], ARGV[3])
return 1
"""

# KEYS[1] owner lease, KEYS[2] epoch counter (the room's acquisitions so far)
# ARGV[1] this process id, ARGV[2] lease length in ms
# -> the new lease "PROC#EPOCH" (epoch = the counter, incremented) when nobody else holds
#    the lease (a lease of this process is replaced: its older copies are fenced off);
#    false when another process holds it.
_ACQUIRE = """
local v = redis.call('GET', KEYS[1])
if v and string.sub(v, 1, #ARGV[1] + 1) ~= ARGV[1] .. '#' then return false end
local lease = ARGV[1] .. '#' .. redis.call('INCR', KEYS[2])
redis.call('SET', KEYS[1], lease, 'PX', ARGV[2])
return lease
"""

# KEYS[1] owner lease, KEYS[2] epoch counter
# ARGV[1] the lease held ("PROC#EPOCH"), ARGV[2] lease length in ms
# -> 1 when that lease holds the room (see _HOLDS), extended or set again; 0 otherwise.
_RENEW = _HOLDS + """
if holds(KEYS[1], KEYS[2], ARGV[1], ARGV[2]) then return 1 end
return 0
"""

# KEYS[1] owner lease
# ARGV[1] this process id
# -> 1 when a lease of this process was deleted, 0 otherwise (never deletes another
#    process's lease).
_RELEASE = """
local v = redis.call('GET', KEYS[1])
if v and string.sub(v, 1, #ARGV[1] + 1) == ARGV[1] .. '#' then
  return redis.call('DEL', KEYS[1])
end
return 0
"""


def key(room_id: str, part: str) -> str:
    """The Redis key of ``part`` (record, state, log, snap, owner) of room ``room_id``."""
    return f"cardhall:{{room:{room_id}}}:{part}"


def index_key(name: str) -> str:
    """The Redis key of lobby index ``name`` (see ``store.room_indexes``)."""
    return f"cardhall:index:{name}"


def _all_indexes(game: str) -> list[str]:
    """The keys of every lobby index a room of ``game`` may be in."""
    return [index_key(n) for n in ("all", f"game:{game}", "waiting", f"waiting:{game}")]


def _index_lobby(pipe: Any, room_id: str, summary: dict[str, Any]) -> None:
    """Queue on ``pipe``: the lobby entry of ``room_id`` and its index memberships."""
    pipe.hset(LOBBY, room_id, _pack(summary))
    _index_room(pipe, room_id, summary)


def _index_room(pipe: Any, room_id: str, summary: dict[str, Any]) -> None:
    """Queue on ``pipe``: ``room_id`` into the indexes of ``summary``, out of the others."""
    keys = {index_key(name) for name in room_indexes(summary)}
    for index in _all_indexes(summary["game"]):
        if index in keys:
            pipe.zadd(index, {room_id: 0})
        else:
            pipe.zrem(index, room_id)


def inbox(process_id: str) -> str:
    """The pub/sub channel of a server process."""
    return f"cardhall:inbox:{process_id}"


def _refusal(exc: ResponseError) -> StoreError | None:
    """The store error of a fenced script's refusal (``OWNERSHIP ...`` ->
    :class:`OwnershipLost`, ``CONFLICT ...`` -> :class:`LogConflict`), or None for any
    other error reply."""
    text = str(exc)
    if text.startswith("OWNERSHIP"):
        return OwnershipLost(text)
    if text.startswith("CONFLICT"):
        return LogConflict(text)
    return None


def _pack(obj: Any) -> bytes:
    return msgpack.packb(obj, use_bin_type=True)


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


def _unpack(data: bytes) -> Any:
    return msgpack.unpackb(data, raw=False, strict_map_key=False)


class RedisStore(Store):
    """Rooms in Redis (``redis.asyncio``), shared by every process using the same URL.

    Args:
        url: ``redis://HOST:PORT/DB``.
        lease_seconds: Room lease length (s); an owner renews every third of it, and a dead
            owner's rooms are taken over at most this long (plus one scan) after its death.
        timeout: Seconds a single Redis command may take (or wait for a pooled connection)
            before it fails.
        max_connections: Sockets to Redis at most (requests beyond wait for one).

    Connection errors are retried by redis-py (exponential backoff, 3 tries); beyond that
    every method raises :class:`StoreError`. Every call's answer (and how long it took) or
    failure is reported to :attr:`health` (a :class:`~.store.StoreHealth`).
    """

    shared = True
    durable = True  # with appendonly yes (docs/operations.md)

    def __init__(self, url: str, *, lease_seconds: float = 3.0, timeout: float = 2.0,
                 max_connections: int = 32) -> None:
        self.url = url
        self.process_id = new_process_id()
        self.lease_seconds = lease_seconds
        self.health = StoreHealth(lease_seconds)
        # A blocking pool: at most ``max_connections`` sockets, and a burst of requests waits
        # for a free one instead of failing with "Too many connections".
        pool = aioredis.BlockingConnectionPool.from_url(
            url, max_connections=max_connections, timeout=timeout,
            socket_timeout=timeout, socket_connect_timeout=timeout,
            retry=Retry(ExponentialBackoff(cap=0.5, base=0.05), 3),
            retry_on_error=[RedisConnectionError, RedisTimeoutError],
            health_check_interval=5)
        self.pool = pool
        self.redis = aioredis.Redis(connection_pool=pool)
        self._append = self.redis.register_script(_APPEND)
        self._save_state = self.redis.register_script(_SAVE_STATE)
        self._renew = self.redis.register_script(_RENEW)
        self._acquire = self.redis.register_script(_ACQUIRE)
        self._release = self.redis.register_script(_RELEASE)
        self._batch: list[tuple[list[str], list[Any], asyncio.Future[Any]]] = []
        self._flush_scheduled = False
        self._closed = False
        self._background = Background()  # the batched appends' flushes
        self._indexed = False  # the lobby indexes were checked (see index_ids)
        self.errors = 0
        #: The lease this process took last for each room (writes given no lease use it).
        self.leases: dict[str, str] = {}

    @property
    def _ms(self) -> int:
        return int(self.lease_seconds * 1000)

    async def _call(self, coro: Any) -> Any:
        asked_at = self.health.now()
        try:
            result = await coro
        except ResponseError as exc:
            self.health.answered(asked_at)
            if (refused := _refusal(exc)) is not None:
                raise refused from None
            self.errors += 1
            raise StoreError(f"redis: {exc}") from None
        except (RedisError, OSError) as exc:
            self.health.failed()
            self.errors += 1
            raise StoreError(f"redis unavailable: {exc}") from None
        self.health.answered(asked_at)
        return result

    # -- rooms -------------------------------------------------------------------------

    async def save_room(self, room_id: str, record: dict[str, Any], state: dict[str, Any],
                        summary: dict[str, Any]) -> str:
        """Create the room and take its lease (one pipeline); returns the lease."""
        async with self.redis.pipeline(transaction=False) as pipe:  # see _flush
            await self._acquire(keys=[key(room_id, "owner"), key(room_id, "epoch")],
                                args=[self.process_id, self._ms], client=pipe)
            pipe.set(key(room_id, "record"), _pack(record))
            pipe.set(key(room_id, "state"), _pack(state))
            _index_lobby(pipe, room_id, summary)
            if record.get("code"):
                pipe.hset(CODES, record["code"], room_id)
            results = await self._call(pipe.execute())
        if not results[0]:  # a fresh random id is never held by another process
            raise OwnershipLost(f"room {room_id} is owned by another process")
        lease = self.leases[room_id] = _text(results[0])
        return lease

    def _lease(self, room_id: str, lease: str | None) -> str:
        return lease if lease is not None else self.leases.get(room_id, "")

    async def save_state(self, room_id: str, state: dict[str, Any],
                         summary: dict[str, Any], *, lease: str | None = None) -> None:
        """Fenced state write, then the lobby entry and indexes (one pipeline)."""
        await self._call(self._save_state(
            keys=[key(room_id, "owner"), key(room_id, "epoch"), key(room_id, "state")],
            args=[self._lease(room_id, lease), self._ms, _pack(state)]))
        pipe = self.redis.pipeline(transaction=False)
        _index_lobby(pipe, room_id, summary)
        await self._call(pipe.execute())

    async def append(self, room_id: str, entries: Sequence[LogEntry], expect: int,
                     state: dict[str, Any] | None, *, lease: str | None = None) -> None:
        """Fenced append; batched with the other rooms' appends of this loop tick. The
        state goes as an empty string when None (unchanged): the script leaves it be."""
        fut: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        keys = [key(room_id, "owner"), key(room_id, "epoch"), key(room_id, "log"),
                key(room_id, "state")]
        args = [self._lease(room_id, lease), self._ms, expect,
                b"" if state is None else _pack(state),
                *(_pack(e) for e in entries)]
        self._batch.append((keys, args, fut))
        if not self._flush_scheduled:
            self._flush_scheduled = True
            self._background.spawn_soon(self._flush)
        await fut

    async def _flush(self) -> None:
        batch, self._batch, self._flush_scheduled = self._batch, [], False
        if not batch:
            return
        # ``async with``: the pipeline gives its connection back even when loading its script
        # fails (redis-py keeps it then, and warns "Unclosed client session" when collected).
        asked_at = self.health.now()
        try:
            async with self.redis.pipeline(transaction=False) as pipe:
                for keys, args, _ in batch:
                    await self._append(keys=keys, args=args, client=pipe)  # queued on the pipe
                results = await pipe.execute(raise_on_error=False)
        except (RedisError, OSError) as exc:
            self.health.failed()
            self.errors += 1
            for _, _, fut in batch:
                if not fut.done():
                    fut.set_exception(StoreError(f"redis unavailable: {exc}"))
            return
        except asyncio.CancelledError:  # the store is closing: nothing may be assumed written
            for _, _, fut in batch:
                if not fut.done():
                    fut.set_exception(StoreError("the store closed during the append"))
            raise
        self.health.answered(asked_at)
        for (_, _, fut), res in zip(batch, results):
            if fut.done():
                continue
            refused = _refusal(res) if isinstance(res, ResponseError) else None
            if refused is not None:
                fut.set_exception(refused)
            elif isinstance(res, Exception):
                self.errors += 1
                fut.set_exception(StoreError(f"redis: {res}"))
            else:
                fut.set_result(res)

    async def save_snapshot(self, room_id: str, state_id: int, snapshot: dict[str, Any]) -> None:
        """Keep the latest snapshot."""
        await self._call(self.redis.set(key(room_id, "snap"), _pack([state_id, snapshot])))

    async def load(self, room_id: str) -> Loaded | None:
        """Record, state, snapshot and the log after the snapshot."""
        pipe = self.redis.pipeline(transaction=False)
        pipe.get(key(room_id, "record"))
        pipe.get(key(room_id, "state"))
        pipe.get(key(room_id, "snap"))
        record, state, snap = await self._call(pipe.execute())
        if record is None:
            return None
        sid, snapshot = _unpack(snap) if snap is not None else (0, None)
        raw = await self._call(self.redis.lrange(key(room_id, "log"), sid, -1))
        return Loaded(_unpack(record), _unpack(state) if state else None, snapshot, sid,
                      [_unpack(e) for e in raw])

    async def log(self, room_id: str) -> list[LogEntry]:
        """The whole log."""
        raw = await self._call(self.redis.lrange(key(room_id, "log"), 0, -1))
        return [_unpack(e) for e in raw]

    async def list_rooms(self) -> list[dict[str, Any]]:
        """Every lobby entry."""
        raw = await self._call(self.redis.hgetall(LOBBY))
        return [_unpack(v) for v in raw.values()]

    async def index_ids(self, index: str, after: str, count: int) -> list[str]:
        """ZRANGEBYLEX on the index's sorted set (the first call of a process rebuilds the
        indexes of a lobby written by a version without them: :meth:`reindex`)."""
        if not self._indexed:
            if not await self._call(self.redis.exists(index_key("all"))):
                await self.reindex()
            self._indexed = True
        low = f"({after}" if after else "-"
        raw = await self._call(self.redis.zrangebylex(index_key(index), low, "+", 0, count))
        return [r.decode() for r in raw]

    async def reindex(self) -> int:
        """Put every room of the lobby hash into its indexes (HSCAN, batches of 500): for a
        lobby written before the indexes existed, or to repair them. Index entries are only
        added or removed, never the lobby entries themselves; a room that changes meanwhile
        fixes its own memberships with its next state write. Returns the rooms indexed.

        Raises:
            StoreError: the store is unavailable.
        """
        count, cursor = 0, 0
        while True:
            cursor, batch = await self._call(self.redis.hscan(LOBBY, cursor, count=500))
            if batch:
                pipe = self.redis.pipeline(transaction=False)
                for room_id, raw in batch.items():
                    _index_room(pipe, room_id.decode(), _unpack(raw))
                await self._call(pipe.execute())
                count += len(batch)
            if cursor == 0:
                return count

    async def entries(self, room_ids: Sequence[str]) -> list[dict[str, Any] | None]:
        """HMGET on the lobby hash."""
        if not room_ids:
            return []
        raw = await self._call(self.redis.hmget(LOBBY, list(room_ids)))
        return [None if v is None else _unpack(v) for v in raw]

    async def room_by_code(self, code: str) -> str | None:
        """Room id of a join code."""
        room_id = await self._call(self.redis.hget(CODES, code))
        return room_id.decode() if room_id is not None else None

    async def finish_room(self, room_id: str, ttl: float) -> None:
        """Every key of the room expires after ``ttl`` seconds."""
        pipe = self.redis.pipeline(transaction=False)
        for part in ("record", "state", "log", "snap", "epoch"):
            pipe.pexpire(key(room_id, part), max(1, int(ttl * 1000)))
        await self._call(pipe.execute())

    async def delete_room(self, room_id: str) -> None:
        """Delete every key of the room, its lobby entry and its code."""
        pipe = self.redis.pipeline(transaction=False)
        pipe.get(key(room_id, "record"))
        pipe.hget(LOBBY, room_id)
        record, entry = await self._call(pipe.execute())
        async with self.redis.pipeline(transaction=False) as pipe:  # see _flush
            pipe.delete(*(key(room_id, part)
                          for part in ("record", "state", "log", "snap", "epoch")))
            await self._release(keys=[key(room_id, "owner")], args=[self.process_id],
                                client=pipe)
            self.leases.pop(room_id, None)
            pipe.hdel(LOBBY, room_id)
            rec = _unpack(record) if record is not None else None
            if rec is not None and rec.get("code"):
                pipe.hdel(CODES, rec["code"])
            game = rec["game"] if rec is not None else _unpack(entry)["game"] if entry else None
            if game is not None:
                for index in _all_indexes(game):
                    pipe.zrem(index, room_id)
            await self._call(pipe.execute())

    # -- ownership -----------------------------------------------------------------------

    async def acquire(self, room_id: str) -> str | None:
        """A new lease (new epoch) unless another process holds the room."""
        res = await self._call(self._acquire(keys=[key(room_id, "owner"), key(room_id, "epoch")],
                                             args=[self.process_id, self._ms]))
        if not res:
            return None
        lease = self.leases[room_id] = _text(res)
        return lease

    async def renew(self, leases: Mapping[str, str]) -> list[str]:
        """Extend every lease in one pipeline; returns the rooms whose lease is lost."""
        if not leases:
            return []
        async with self.redis.pipeline(transaction=False) as pipe:  # see _flush
            for room_id, lease in leases.items():
                await self._renew(keys=[key(room_id, "owner"), key(room_id, "epoch")],
                                  args=[lease, self._ms], client=pipe)
            results = await self._call(pipe.execute())
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
        return lease_owner(value.decode()) if value is not None else None

    async def owners(self, room_ids: Sequence[str]) -> list[str | None]:
        """The lease holders' process ids, in one ``MGET``."""
        if not room_ids:
            return []
        values = await self._call(self.redis.mget([key(r, "owner") for r in room_ids]))
        return [lease_owner(v.decode()) if v is not None else None for v in values]

    async def orphans(self) -> list[str]:
        """Rooms listed in the lobby with a record but no lease; entries whose record has
        expired are removed from the lobby on the way."""
        rooms = [r.decode() for r in await self._call(self.redis.hkeys(LOBBY))]
        if not rooms:
            return []
        pipe = self.redis.pipeline(transaction=False)
        for room_id in rooms:
            pipe.exists(key(room_id, "record"))
            pipe.exists(key(room_id, "owner"))
        flags = await self._call(pipe.execute())
        out, gone = [], []
        for i, room_id in enumerate(rooms):
            has_record, has_owner = flags[2 * i], flags[2 * i + 1]
            if not has_record:
                gone.append(room_id)
            elif not has_owner:
                out.append(room_id)
        if gone:
            games = {e["game"] for e in await self.entries(gone) if e is not None}
            pipe = self.redis.pipeline(transaction=False)
            pipe.hdel(LOBBY, *gone)
            for game in games:
                for index in _all_indexes(game):
                    pipe.zrem(index, *gone)
            await self._call(pipe.execute())
        return out

    # -- processes -------------------------------------------------------------------------

    async def heartbeat(self) -> None:
        """SET cardhall:proc:PROC with an expiry of two leases."""
        await self._call(self.redis.set(f"cardhall:proc:{self.process_id}", b"1",
                                        px=2 * self._ms))

    async def alive(self, process_id: str) -> bool:
        """EXISTS cardhall:proc:PROC."""
        return bool(await self._call(self.redis.exists(f"cardhall:proc:{process_id}")))

    # -- messages ------------------------------------------------------------------------

    async def record_score(self, board: str, name: str, value: int, size: int) -> bool:
        """``ZADD LT CH`` (only a lower value replaces the name's entry; a new name is
        added), then ``ZREMRANGEBYRANK size -1`` (drop all but the best ``size``), in one
        MULTI."""
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.zadd(BOARD_PREFIX + board, {name: value}, lt=True, ch=True)
            pipe.zremrangebyrank(BOARD_PREFIX + board, size, -1)
            changed, _ = await self._call(pipe.execute())
        return bool(changed)

    async def board_page(self, board: str, start: int, count: int
                         ) -> tuple[list[tuple[str, int]], int]:
        """``ZRANGE start stop WITHSCORES`` and ``ZCARD`` (ties are in name order, as in a
        sorted set of equal scores)."""
        if count <= 0:
            return [], int(await self._call(self.redis.zcard(BOARD_PREFIX + board)))
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.zrange(BOARD_PREFIX + board, start, start + count - 1, withscores=True)
            pipe.zcard(BOARD_PREFIX + board)
            rows, total = await self._call(pipe.execute())
        return [(n.decode(), int(v)) for n, v in rows], int(total)

    async def board_rank(self, board: str, name: str) -> tuple[int, int] | None:
        """``ZRANK`` and ``ZSCORE`` of the name."""
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.zrank(BOARD_PREFIX + board, name)
            pipe.zscore(BOARD_PREFIX + board, name)
            rank, value = await self._call(pipe.execute())
        return None if rank is None or value is None else (int(rank), int(value))

    async def publish(self, process_id: str, payload: bytes) -> int:
        """PUBLISH to the process's inbox channel."""
        return int(await self._call(self.redis.publish(inbox(process_id), payload)))

    async def listen(self, handler: InboxHandler) -> None:
        """Subscribe to this process's inbox; resubscribe with backoff after Redis
        restarts; return on :meth:`close`."""
        while not self._closed:
            try:
                async for attempt in AsyncRetrying(
                        wait=wait_exponential(multiplier=0.05, max=1.0),
                        retry=retry_if_exception_type((RedisError, OSError))):
                    with attempt:
                        await self._listen_once(handler)
                return
            except asyncio.CancelledError:
                return

    async def _listen_once(self, handler: InboxHandler) -> None:
        pubsub = self.redis.pubsub(ignore_subscribe_messages=True)
        try:
            await pubsub.subscribe(inbox(self.process_id))
            while not self._closed:
                msg = await pubsub.get_message(timeout=1.0)
                if msg is not None and msg["type"] == "message":
                    try:
                        await handler(msg["data"])
                    except Exception:  # one bad message must not stop the inbox
                        log.exception("inbox handler failed")
        finally:
            with contextlib.suppress(Exception):
                await pubsub.aclose()  # type: ignore[no-untyped-call]  # unannotated in redis-py

    async def healthy(self) -> bool:
        """PING answers."""
        try:
            return bool(await self.redis.ping())
        except (RedisError, OSError):
            return False

    async def close(self) -> None:
        """Stop listening, stop the pending append flushes, close the connection pool."""
        self._closed = True
        await self._background.close()
        with contextlib.suppress(Exception):
            await self.redis.aclose()
        with contextlib.suppress(Exception):
            await self.pool.aclose()  # a pool passed in is not closed by the client
