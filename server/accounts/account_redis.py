"""The Redis account store (:class:`RedisAccounts`): accounts, tokens and histories shared
by every server process of a lobby, on the room store's Redis.

Key layout (``ID`` an account id; every key of one account shares the hash tag ``{acct:ID}``,
so a Redis Cluster keeps them in one slot; the unique keys and the listing are one key each,
anywhere)::

    cardhall:{acct:ID}:a          string  msgpack account record (identity.Account.record)
    cardhall:{acct:ID}:t:DIGEST   string  msgpack token record; expires (PX) with the token
    cardhall:{acct:ID}:tokens     set     digests of the account's tokens (revoke all); its
                                          members may outlive their records, the set expires
                                          with the longest-lived token
    cardhall:{acct:ID}:procs      set     server processes the account signed in on
                                          (30 days after the last sign-in)
    cardhall:{acct:ID}:seats      hash    room id -> msgpack seat entry (running seats)
    cardhall:{acct:ID}:games      list    msgpack finished games, newest first (LTRIM)
    cardhall:key:user:USERNAME    string  id of the account holding the username
    cardhall:key:KIND:HEX         string  id of the account holding a name key, device or
                                          subject (KIND name|device|subject; HEX: SHA-256 of
                                          the key, so no user text is a key name)
    cardhall:accounts             zset    "USERNAME\\0ID", all scores 0: accounts by username
                                          (admin listing, prefix search with ZRANGEBYLEX)

A unique key is claimed with ``SET NX``; an account and its keys are written key by key
(they live in different slots), the record first, so a key always names an existing
account: a write that finds a key taken releases what it claimed (a script that deletes a
key only while it still names this account) and changes nothing else.
"""

from __future__ import annotations

import hashlib
from collections.abc import Awaitable, Sequence
from typing import Any

import msgpack
from limits.aio.storage import MemoryStorage, RedisStorage, Storage

from .account_store import KeyTaken
from .identity import Account
from ..store.ports import StoreHealth
from ..store.redis_keys import answer

__all__ = ["RedisAccounts"]

ACCOUNTS = "cardhall:accounts"
#: Seconds the note of the processes an account signed in on is kept after its last sign-in.
PROCS_SECONDS = 30 * 86_400

# KEYS[1] a unique key; ARGV[1] an account id -> 1 when the key named that account and was
# deleted, 0 otherwise (never deletes another account's key).
_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""


def _acct(account_id: str, part: str) -> str:
    return f"cardhall:{{acct:{account_id}}}:{part}"


def _key(kind: str, key: str) -> str:
    if kind == "user":
        return f"cardhall:key:user:{key}"
    return f"cardhall:key:{kind}:{hashlib.sha256(key.encode()).hexdigest()[:32]}"


def _pack(obj: Any) -> bytes:
    return msgpack.packb(obj, use_bin_type=True)


def _unpack(data: bytes) -> Any:
    return msgpack.unpackb(data, raw=False)


class RedisAccounts:
    """Accounts in Redis (an :class:`~.account_store.AccountStore`).

    Args:
        client: The room store's ``redis.asyncio`` client (a ``Redis`` or a
            ``RedisCluster``).
        health: The room store's health, told of every answer and failure.

    Every method raises :class:`~.store.StoreError` when Redis cannot be reached.
    """

    shared = True

    def __init__(self, client: Any, health: StoreHealth) -> None:
        self.redis = client
        self.health = health
        self._release = client.register_script(_RELEASE)

    def limits_storage(self) -> Storage:
        """``limits``' Redis storage on the room store's connection pool (every process
        counts together); on a Redis Cluster client (no single pool), a memory storage: each
        process counts alone."""
        pool = getattr(self.redis, "connection_pool", None)
        if pool is None:
            return MemoryStorage()
        return RedisStorage("async+redis://", implementation="redispy",
                            key_prefix="cardhall:limits", connection_pool=pool)

    async def _call(self, coro: Awaitable[Any]) -> Any:
        """One command, its failure told to the store's health (:func:`.redis_keys.answer`).

        Raises:
            StoreError: Redis failed or is unreachable.
        """
        return await answer(self.health, coro)

    async def _pipe(self, *commands: tuple[str, tuple[Any, ...]]) -> list[Any]:
        """Run ``(method, args)`` commands in one pipeline (split per node on a Cluster)."""
        async with self.redis.pipeline(transaction=False) as pipe:
            for method, args in commands:
                getattr(pipe, method)(*args)
            return list(await self._call(pipe.execute()))

    # -- accounts ------------------------------------------------------------------------

    async def _claim(self, account_id: str, keys: Sequence[tuple[str, str]]) -> None:
        """Claim ``keys`` for the account, all or none.

        Raises:
            KeyTaken: one is held by another account (the others are released).
        """
        claimed: list[tuple[str, str]] = []
        for kind, key in keys:
            name = _key(kind, key)
            if not await self._call(self.redis.set(name, account_id, nx=True)):
                holder = await self._call(self.redis.get(name))
                if holder is None or holder.decode() != account_id:
                    await self._unclaim(account_id, claimed)
                    raise KeyTaken(kind)
            claimed.append((kind, key))

    async def _unclaim(self, account_id: str, keys: Sequence[tuple[str, str]]) -> None:
        for kind, key in keys:
            await self._call(self._release(keys=[_key(kind, key)], args=[account_id]))

    async def create(self, account: Account) -> None:
        """Keep the record (SET NX), claim its keys, then list it."""
        record = _acct(account.id, "a")
        if not await self._call(self.redis.set(record, _pack(account.record()), nx=True)):
            raise KeyTaken("id")
        try:
            await self._claim(account.id, account.keys)
        except KeyTaken:
            await self._call(self.redis.delete(record))
            raise
        await self._call(self.redis.zadd(ACCOUNTS, {f"{account.username}\0{account.id}": 0}))

    async def get(self, account_id: str) -> Account | None:
        """GET the record."""
        data = await self._call(self.redis.get(_acct(account_id, "a")))
        return None if data is None else Account.from_record(_unpack(data))

    async def get_many(self, account_ids: Sequence[str]) -> list[Account | None]:
        """The records of ``account_ids`` (one pipeline)."""
        if not account_ids:
            return []
        found = await self._pipe(*(("get", (_acct(a, "a"),)) for a in account_ids))
        return [None if d is None else Account.from_record(_unpack(d)) for d in found]

    async def lookup(self, kind: str, key: str) -> str | None:
        """GET the unique key."""
        holder = await self._call(self.redis.get(_key(kind, key)))
        return None if holder is None else str(holder.decode())

    async def save(self, account: Account, old: Account) -> None:
        """Claim the new keys, write the record, release the dropped keys, relist."""
        await self._claim(account.id, [k for k in account.keys if k not in old.keys])
        await self._call(self.redis.set(_acct(account.id, "a"), _pack(account.record())))
        await self._unclaim(account.id, [k for k in old.keys if k not in account.keys])
        if account.username != old.username:
            await self._pipe(("zrem", (ACCOUNTS, f"{old.username}\0{old.id}")),
                             ("zadd", (ACCOUNTS, {f"{account.username}\0{account.id}": 0})))

    async def page(self, after: str, count: int, prefix: str = "") -> list[Account]:
        """ZRANGEBYLEX from the later of ``after`` and ``prefix``, then the records."""
        low = f"({after}\1" if after and after >= prefix else f"[{prefix}"
        members = await self._call(self.redis.zrangebylex(ACCOUNTS, low, "+", 0, count))
        ids = []
        for member in members:
            username, _, account_id = member.decode().partition("\0")
            if not username.startswith(prefix):
                break
            ids.append(account_id)
        return [a for a in await self.get_many(ids) if a is not None]

    # -- tokens --------------------------------------------------------------------------

    async def put_token(self, account_id: str, digest: str, record: dict[str, Any],
                        ttl: float) -> None:
        """SET the record with PX, add it to the account's set."""
        ms = max(1, int(ttl * 1000))
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.set(_acct(account_id, f"t:{digest}"), _pack(record), px=ms)
            pipe.sadd(_acct(account_id, "tokens"), digest)
            # The set lives as long as its longest-lived token: no dead digests pile up.
            pipe.pexpire(_acct(account_id, "tokens"), ms, gt=True)
            pipe.pexpire(_acct(account_id, "tokens"), ms, nx=True)
            await self._call(pipe.execute())

    async def get_token(self, account_id: str, digest: str) -> dict[str, Any] | None:
        """GET the record (Redis expired it with its token)."""
        data = await self._call(self.redis.get(_acct(account_id, f"t:{digest}")))
        return None if data is None else dict(_unpack(data))

    async def drop_tokens(self, account_id: str, *digests: str) -> None:
        """DEL the records, SREM them."""
        if digests:
            await self._pipe(("delete", tuple(_acct(account_id, f"t:{d}") for d in digests)),
                             ("srem", (_acct(account_id, "tokens"), *digests)))

    async def drop_all_tokens(self, account_id: str) -> int:
        """SMEMBERS, then DEL every record and the set (one slot)."""
        members = await self._call(self.redis.smembers(_acct(account_id, "tokens")))
        names = [_acct(account_id, f"t:{m.decode()}") for m in members]
        found = await self._pipe(("delete", (*names, _acct(account_id, "tokens"))))
        return max(0, int(found[0]) - 1) if names else 0

    async def note_process(self, account_id: str, process_id: str) -> None:
        """SADD the process, keep the set 30 days."""
        await self._pipe(("sadd", (_acct(account_id, "procs"), process_id)),
                         ("expire", (_acct(account_id, "procs"), PROCS_SECONDS)))

    async def processes(self, account_id: str) -> list[str]:
        """SMEMBERS of the processes."""
        members = await self._call(self.redis.smembers(_acct(account_id, "procs")))
        return sorted(m.decode() for m in members)

    # -- history -------------------------------------------------------------------------

    async def set_seat(self, account_id: str, room_id: str,
                       entry: dict[str, Any] | None) -> None:
        """HSET or HDEL the seat entry."""
        if entry is None:
            await self._call(self.redis.hdel(_acct(account_id, "seats"), room_id))
        else:
            await self._call(self.redis.hset(_acct(account_id, "seats"), room_id, _pack(entry)))

    async def seats(self, account_id: str) -> dict[str, dict[str, Any]]:
        """HGETALL of the seat entries."""
        raw = await self._call(self.redis.hgetall(_acct(account_id, "seats")))
        return {k.decode(): dict(_unpack(v)) for k, v in raw.items()}

    async def add_game(self, account_id: str, entry: dict[str, Any], keep: int) -> None:
        """LPUSH, then LTRIM to the newest ``keep``."""
        await self._pipe(("lpush", (_acct(account_id, "games"), _pack(entry))),
                         ("ltrim", (_acct(account_id, "games"), 0, keep - 1)))

    async def games(self, account_id: str, start: int,
                    count: int) -> tuple[list[dict[str, Any]], int]:
        """LRANGE and LLEN."""
        name = _acct(account_id, "games")
        rows, total = await self._pipe(("lrange", (name, start, start + count - 1)),
                                       ("llen", (name,)))
        return [dict(_unpack(r)) for r in rows], int(total)
