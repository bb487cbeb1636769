"""Rated play's queue shared by every server process of a lobby, on Redis (issue #45 item 3).

Keys (``Q`` a rated game type, ``skipper:multi``: every key of one queue shares the hash tag
``{q:Q}``, one slot of a Redis Cluster, so that one script reads and writes them)::

    cardhall:{q:Q}:t          hash    ticket id -> msgpack [key, name, rating, sizes, since
                                      (unix s), process, session]
    cardhall:{q:Q}:m          hash    ticket id -> waves missed (HINCRBY)
    cardhall:{q:Q}:last       hash    rating key -> msgpack list of the keys of its last table
    cardhall:{q:Q}:p:PROC     string  the process is alive (PX: :data:`ALIVE_SECONDS`); each
                                      process with tickets in the queue renews it every wave
    cardhall:{q:Q}:lock       the wave's lock (redis-py's ``Lock``: one process runs a wave
                                      of a queue at a time)

A wave (:meth:`RedisTickets.tickets`, then :meth:`RedisTickets.claim`) runs under the lock:
it reads the tickets, drops those of processes whose alive key expired (a dead process's
tickets wait no longer than :data:`ALIVE_SECONDS`), pairs them (:func:`.matchmaking.pair`),
and *claims* each table with one script that deletes all of its tickets or none (none when
one of them left meanwhile): a ticket is seated once, whichever processes run waves, even
should the lock expire under a stalled process.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any


from ..matchmaking import Ticket
from .ports import StoreHealth, pack, unpack
from .redis_keys import answer

__all__ = ["ALIVE_SECONDS", "CLAIM", "RedisTickets"]

#: Seconds a process's tickets outlive its last sign of life.
ALIVE_SECONDS = 10.0
#: Seconds a wave's lock is held at most (a stalled holder loses it).
LOCK_SECONDS = 10.0

# KEYS[1] the tickets hash, KEYS[2] the missed hash; ARGV ticket ids -> 1 (all deleted) or
# 0 (one was missing: none deleted).
CLAIM = """
for i = 1, #ARGV do
  if redis.call('HEXISTS', KEYS[1], ARGV[i]) == 0 then return 0 end
end
redis.call('HDEL', KEYS[1], unpack(ARGV))
redis.call('HDEL', KEYS[2], unpack(ARGV))
return 1
"""


def _key(queue: str, part: str) -> str:
    return f"cardhall:{{q:{queue}}}:{part}"


class RedisTickets:
    """The queues' tickets in Redis (see the module docstring).

    Args:
        client: The room store's ``redis.asyncio`` client.
        health: The room store's health.
        process_id: This process's id (its inbox's address).
        alive_seconds: :data:`ALIVE_SECONDS`.

    Every method raises :class:`~.store.StoreError` when Redis cannot be reached.
    """

    def __init__(self, client: Any, health: StoreHealth, process_id: str,
                 alive_seconds: float = ALIVE_SECONDS) -> None:
        self.redis, self.health, self.process_id = client, health, process_id
        self.alive_seconds = alive_seconds
        self._claim = client.register_script(CLAIM)

    async def _call(self, coro: Any) -> Any:
        """One command, its failure told to the store's health (:func:`.redis_keys.answer`).

        Raises:
            StoreError: Redis failed or is unreachable.
        """
        return await answer(self.health, coro)

    async def add(self, queue: str, ticket: Ticket, session: str) -> None:
        """Put ``ticket`` of this process's ``session`` in ``queue`` (replacing the tickets of
        its key there), and mark this process alive."""
        for old in [t for t in await self.tickets(queue, drop_dead=False) if t.key == ticket.key]:
            await self.remove(queue, [old.id])
        record = pack([ticket.key, ticket.name, ticket.rating, list(ticket.sizes), time.time(),
                       self.process_id, session])
        await self.alive(queue)
        await self._call(self.redis.hset(_key(queue, "t"), ticket.id, record))

    async def put_back(self, queue: str, tickets: Sequence[Ticket]) -> None:
        """Put claimed ``tickets`` (of :meth:`tickets`: owners ``(process, session)``) back
        in ``queue`` as they were (their table could not be seated)."""
        for t in tickets:
            proc, sess = t.owner
            await self._call(self.redis.hset(_key(queue, "t"), t.id, pack(
                [t.key, t.name, t.rating, list(t.sizes), t.since, proc, sess])))

    async def remove(self, queue: str, ids: Sequence[str]) -> None:
        """Take tickets ``ids`` out of ``queue``."""
        if ids:
            await self._call(self.redis.hdel(_key(queue, "t"), *ids))
            await self._call(self.redis.hdel(_key(queue, "m"), *ids))

    async def alive(self, queue: str) -> None:
        """Renew this process's alive key of ``queue``."""
        await self._call(self.redis.set(_key(queue, f"p:{self.process_id}"), b"1",
                                        px=max(1, int(self.alive_seconds * 1000))))

    async def tickets(self, queue: str, drop_dead: bool = True) -> list[Ticket]:
        """The tickets of ``queue`` (``owner``: ``(process id, session id)``; ``since``: unix
        s), with their missed waves and last tables; with ``drop_dead``, those of processes
        whose alive key expired are deleted, not returned."""
        raw = await self._call(self.redis.hgetall(_key(queue, "t")))
        missed = await self._call(self.redis.hgetall(_key(queue, "m")))
        out: list[Ticket] = []
        for tid, data in raw.items():
            key, name, rating, sizes, since, proc, sess = unpack(data)
            out.append(Ticket(key, name, float(rating), tuple(sizes), since=float(since),
                              owner=(proc, sess), missed=int(missed.get(tid, 0)),
                              id=tid.decode()))
        if drop_dead and out:
            procs = sorted({t.owner[0] for t in out})
            flags = await self._call(self.redis.mget(
                [_key(queue, f"p:{p}") for p in procs]))
            dead = {p for p, f in zip(procs, flags, strict=True) if f is None}
            if dead:
                await self.remove(queue, [t.id for t in out if t.owner[0] in dead])
                out = [t for t in out if t.owner[0] not in dead]
        if out:
            lasts = await self._call(self.redis.hmget(_key(queue, "last"),
                                                      [t.key for t in out]))
            for t, last in zip(out, lasts, strict=True):
                if last is not None:
                    t.last = frozenset(unpack(last))
        return out

    async def claim(self, queue: str, tickets: Sequence[Ticket]) -> bool:
        """Delete ``tickets`` from ``queue`` all at once, or none when one is gone; True when
        claimed (they are this caller's to seat), and their last table noted."""
        ids = [t.id for t in tickets]
        done = int(await self._call(self._claim(keys=[_key(queue, "t"), _key(queue, "m")],
                                                args=ids)))
        if done:
            keys = sorted(t.key for t in tickets)
            await self._call(self.redis.hset(_key(queue, "last"),
                                             mapping={k: pack(keys) for k in keys}))
        return bool(done)

    async def missed(self, queue: str, tickets: Sequence[Ticket]) -> None:
        """One more missed wave for each of ``tickets`` (still waiting)."""
        for t in tickets:
            await self._call(self.redis.hincrby(_key(queue, "m"), t.id, 1))

    async def lock(self, queue: str) -> Any | None:
        """The wave lock of ``queue`` (redis-py's ``Lock``, :data:`LOCK_SECONDS` at most),
        acquired now, or None when another process holds it."""
        lock = self.redis.lock(_key(queue, "lock"), timeout=LOCK_SECONDS, blocking=False)
        return lock if await self._call(lock.acquire()) else None
