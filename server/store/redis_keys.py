"""The Redis key layout of the Redis store (:mod:`.redis_store`) and its fenced Lua scripts,
each with its KEYS/ARGV contract written above it.

Key layout (``ID`` is the room id; every key of one room shares the hash tag ``{room:ID}``,
so a Redis Cluster keeps them in one slot and the scripts below touch one slot only)::

    cardhall:{room:ID}:record   string  msgpack record (game, options with seed, settings, code)
    cardhall:{room:ID}:state    string  msgpack server state (status, seats with tokens,
                                        members, deadlines)
    cardhall:{room:ID}:log      list    msgpack log entries, append-only
    cardhall:{room:ID}:snap     string  msgpack [state_id, engine snapshot]
    cardhall:{room:ID}:owner    string  the lease "PROC#EPOCH" (owner's process id, epoch);
                                        expires (PX) unless renewed
    cardhall:{room:ID}:epoch    string  integer: the room's latest lease epoch
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

On a Redis Cluster the lobby, the codes and the indexes are split into
:data:`CLUSTER_LOBBY_SHARDS` shards (:class:`LobbyKeys`): ``cardhall:{lobby.S}:lobby``,
``cardhall:{lobby.S}:codes``, ``cardhall:{lobby.S}:index:NAME``, a room's entries in the
shard of its id, a code in the shard of the code; each shard's tag lies in its own part of
the slot space, so the shards spread over the masters instead of making one slot hot. The
inboxes are sharded pub/sub channels there (``SPUBLISH``/``SSUBSCRIBE``).
"""

from __future__ import annotations

import zlib
from collections.abc import Awaitable
from typing import Any

from redis.crc import REDIS_CLUSTER_HASH_SLOTS, key_slot
from redis.exceptions import RedisError, ResponseError

from .ports import LogConflict, OwnershipLost, StoreError, StoreHealth, pack, room_indexes

LOBBY = "cardhall:lobby"
CODES = "cardhall:codes"
BOARD_PREFIX = "cardhall:board:"
#: Lobby shards on a Redis Cluster (one elsewhere: the key names of a single lobby).
CLUSTER_LOBBY_SHARDS = 16

# Lua prelude of the fenced scripts: whether lease ``lease`` ("PROC#EPOCH") holds the room
# whose lease key is ``owner`` and epoch counter ``epoch``: the key is that lease (extended
# by ``ms``), or it expired (the store was down, say) and nobody acquired the room since
# (the counter is still EPOCH), and then it is set again for ``ms``.
HOLDS = """
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
#    HOLDS), "CONFLICT" if the log has another length (under a lease that holds, only this
#    copy wrote: an earlier append of its own landed unanswered, e.g. one redis-py resent).
#    Nothing but the lease is written on error.
APPEND = HOLDS + """
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
# -> 1; error "OWNERSHIP" if that lease does not hold the room (see HOLDS).
SAVE_STATE = HOLDS + """
if not holds(KEYS[1], KEYS[2], ARGV[1], ARGV[2]) then
  return redis.error_reply('OWNERSHIP lost')
end
redis.call('SET', KEYS[3], ARGV[3])
return 1
"""

# KEYS[1] owner lease, KEYS[2] epoch counter (the room's latest epoch)
# ARGV[1] this process id, ARGV[2] lease length in ms, ARGV[3] the highest epoch this
#    process holds for the room (0: none)
# -> the new lease "PROC#EPOCH" when nobody else holds the lease (a lease of this process is
#    replaced: its older copies are fenced off); false when another process holds it. EPOCH
#    is the counter plus one, and above ARGV[3]: a promoted replica may lack an acquisition
#    the old master granted, and the counter must not hand this process that lease again.
ACQUIRE = """
local v = redis.call('GET', KEYS[1])
if v and string.sub(v, 1, #ARGV[1] + 1) ~= ARGV[1] .. '#' then return false end
local epoch = redis.call('INCR', KEYS[2])
if epoch <= tonumber(ARGV[3]) then
  epoch = tonumber(ARGV[3]) + 1
  redis.call('SET', KEYS[2], epoch)
end
local lease = ARGV[1] .. '#' .. epoch
redis.call('SET', KEYS[1], lease, 'PX', ARGV[2])
return lease
"""

# KEYS[1] owner lease, KEYS[2] epoch counter
# ARGV[1] the lease held ("PROC#EPOCH"), ARGV[2] lease length in ms
# -> 1 when that lease holds the room (see HOLDS), extended or set again; 0 otherwise.
RENEW = HOLDS + """
if holds(KEYS[1], KEYS[2], ARGV[1], ARGV[2]) then return 1 end
return 0
"""

# KEYS[1] owner lease
# ARGV[1] this process id
# -> 1 when a lease of this process was deleted, 0 otherwise (never deletes another
#    process's lease).
RELEASE = """
local v = redis.call('GET', KEYS[1])
if v and string.sub(v, 1, #ARGV[1] + 1) == ARGV[1] .. '#' then
  return redis.call('DEL', KEYS[1])
end
return 0
"""


def key(room_id: str, part: str) -> str:
    """The Redis key of ``part`` (record, state, log, snap, owner) of room ``room_id``."""
    return f"cardhall:{{room:{room_id}}}:{part}"


def _shard_tags(shards: int) -> list[str]:
    """Hash tags of ``shards`` lobby shards, shard ``i``'s slot in the ``i``-th equal part of
    the slot space (a cluster's masters own contiguous slot ranges, so the shards spread
    evenly over them)."""
    tags = []
    for i in range(shards):
        j = 0
        while key_slot(f"lobby.{i}.{j}".encode()) * shards // REDIS_CLUSTER_HASH_SLOTS != i:
            j += 1
        tags.append(f"lobby.{i}.{j}")
    return tags


class LobbyKeys:
    """The names of the lobby's keys (lobby hash, codes, indexes) in ``shards`` shards.

    One shard uses the key names ``cardhall:lobby``, ``cardhall:codes`` and
    ``cardhall:index:NAME``; more shards prefix each with their hash tag,
    ``cardhall:{lobby.S}:...`` (:func:`_shard_tags`). A room's entry and index memberships
    live in the shard of its id, a join code in the shard of the code.

    Args:
        shards: Number of shards (1: a lone Redis or a Sentinel master).
    """

    def __init__(self, shards: int) -> None:
        self.shards = shards
        self._prefixes = (["cardhall:"] if shards == 1
                          else [f"cardhall:{{{t}}}:" for t in _shard_tags(shards)])

    def shard(self, text: str) -> int:
        """The shard of a room id or join code."""
        return zlib.crc32(text.encode()) % self.shards if self.shards > 1 else 0

    def lobby(self, shard: int) -> str:
        """The lobby hash of ``shard``."""
        return self._prefixes[shard] + "lobby"

    def codes(self, shard: int) -> str:
        """The join-code hash of ``shard``."""
        return self._prefixes[shard] + "codes"

    def index(self, shard: int, name: str) -> str:
        """Lobby index ``name`` (see ``store.room_indexes``) of ``shard``."""
        return f"{self._prefixes[shard]}index:{name}"

    def all_indexes(self, shard: int, game: str) -> list[str]:
        """The keys of every index of ``shard`` a room of ``game`` may be in."""
        return [self.index(shard, n)
                for n in ("all", f"game:{game}", "waiting", f"waiting:{game}")]

    def put(self, pipe: Any, room_id: str, summary: dict[str, Any]) -> None:
        """Queue on ``pipe``: the lobby entry of ``room_id`` and its index memberships."""
        pipe.hset(self.lobby(self.shard(room_id)), room_id, pack(summary))
        self.reindex(pipe, room_id, summary)

    def reindex(self, pipe: Any, room_id: str, summary: dict[str, Any]) -> None:
        """Queue on ``pipe``: ``room_id`` into the indexes of ``summary``, out of the
        others."""
        shard = self.shard(room_id)
        keys = {self.index(shard, name) for name in room_indexes(summary)}
        for index in self.all_indexes(shard, summary["game"]):
            if index in keys:
                pipe.zadd(index, {room_id: 0})
            else:
                pipe.zrem(index, room_id)


def index_key(name: str) -> str:
    """The Redis key of lobby index ``name`` of a single (unsharded) lobby."""
    return f"cardhall:index:{name}"


def inbox(process_id: str) -> str:
    """The pub/sub channel of a server process (a sharded channel on a Redis Cluster)."""
    return f"cardhall:inbox:{process_id}"


def refusal(exc: ResponseError) -> StoreError | None:
    """The store error of a fenced script's refusal (``OWNERSHIP ...`` ->
    :class:`OwnershipLost`, ``CONFLICT ...`` -> :class:`LogConflict`), or None for any
    other error reply."""
    text = str(exc)
    if text.startswith("OWNERSHIP"):
        return OwnershipLost(text)
    if text.startswith("CONFLICT"):
        return LogConflict(text)
    return None


async def answer(health: StoreHealth, coro: Awaitable[Any]) -> Any:
    """Await one Redis command ``coro`` of a store part beside the room store (accounts,
    ratings, the queue) and tell ``health`` how it went: the reply, or a failure.

    Raises:
        StoreError: Redis answered with an error, or could not be reached (``OSError``).
    """
    asked_at = health.now()
    try:
        result = await coro
    except RedisError as exc:
        health.failed()
        raise StoreError(f"redis: {exc}") from None
    except OSError as exc:
        health.failed()
        raise StoreError(f"redis unavailable: {exc}") from None
    health.answered(asked_at)
    return result


def text(value: bytes | str) -> str:
    """A Redis reply as text (UTF-8)."""
    return value.decode() if isinstance(value, bytes) else value

