"""Ratings (:class:`~.ratings.Ratings`, issue #45) in Redis, shared by every server process
of a lobby.

Keys (``B`` a rated game type, ``skipper:multi``; every key of one type shares the hash tag
``{rt:B}``, so that a Redis Cluster keeps them in one slot and one script writes them)::

    cardhall:{rt:B}:r         hash    key -> msgpack {name, guest, mu, sigma, games}
    cardhall:{rt:B}:o         zset    key -> ordinal (mu - 3 sigma): the listing's order
    cardhall:{rt:B}:h:KEY     list    msgpack [at, game, mu, sigma, games], newest first
                                      (ratings.HISTORY kept)
    cardhall:{rt:B}:g:GAME    string  msgpack list of Change.record: the game is rated
    cardhall:{rt:B}:gl        zset    game -> unix s of its finish: the rated games, for
                                      cardhall migrate (games rated before it existed are
                                      added at 0 by a SCAN of their keys)

Rating a game is a compare-and-set: the process reads the seats' records, computes, and one
script (:data:`RATE`) writes the new ratings, their history and the game's key only if the
game's key is absent and every seat's record is still the one read; when another process
wrote one of them in between, the process reads again and recomputes (a few attempts,
``tenacity``). Two processes that finish or report one game both try: one rates it, the
other finds its key and does nothing.
"""

from __future__ import annotations

from collections.abc import Awaitable, Sequence
from typing import Any

from redis.exceptions import RedisError
from tenacity import AsyncRetrying, retry_if_exception_type, stop_after_attempt

from ..ratings import HISTORY, Change, Entry, RatedGame, Rating, best_first, changes
from .ports import StoreError, StoreHealth, pack, unpack
from .redis_keys import answer

__all__ = ["RATE", "RedisRatings"]

#: Attempts of one rating when other processes keep writing the same seats' ratings.
ATTEMPTS = 20

# KEYS: 1 the ratings hash, 2 the order zset, 3 the game's key, 4 the games zset, 4+i the
# i-th seat's history. ARGV: 1 n seats, 2 the packed changes, 3 HISTORY, 4 the finish time,
# 5 the game's id; per seat i (base b = 5 + 5 (i - 1)): b+1 key, b+2 the record read (''
# when none), b+3 the new record, b+4 ordinal, b+5 the history entry. Returns 1 (rated), 0
# (rated before), -1 (a record changed: read again).
RATE = """
if redis.call('EXISTS', KEYS[3]) == 1 then return 0 end
local n = tonumber(ARGV[1])
for i = 1, n do
  local b = 5 + 5 * (i - 1)
  local cur = redis.call('HGET', KEYS[1], ARGV[b + 1])
  if (cur or '') ~= ARGV[b + 2] then return -1 end
end
for i = 1, n do
  local b = 5 + 5 * (i - 1)
  redis.call('HSET', KEYS[1], ARGV[b + 1], ARGV[b + 3])
  redis.call('ZADD', KEYS[2], ARGV[b + 4], ARGV[b + 1])
  redis.call('LPUSH', KEYS[4 + i], ARGV[b + 5])
  redis.call('LTRIM', KEYS[4 + i], 0, tonumber(ARGV[3]) - 1)
end
redis.call('SET', KEYS[3], ARGV[2])
redis.call('ZADD', KEYS[4], ARGV[4], ARGV[5])
return 1
"""


def _key(board: str, part: str) -> str:
    return f"cardhall:{{rt:{board}}}:{part}"


def _entry(key: str, raw: bytes) -> Entry:
    """The list entry of ``key`` from its packed record in the ratings hash."""
    rec = unpack(raw)
    return Entry(key, str(rec["name"]), Rating.of(rec), bool(rec["guest"]))


class _Changed(Exception):
    """A seat's record changed between the read and the script: read again."""


class RedisRatings:
    """Ratings in Redis (a :class:`~.ratings.Ratings`).

    Args:
        client: The room store's ``redis.asyncio`` client (a ``Redis`` or a
            ``RedisCluster``).
        health: The room store's health, told of every answer and failure.

    Every method raises :class:`~.store.StoreError` when Redis cannot be reached.
    """

    def __init__(self, client: Any, health: StoreHealth) -> None:
        self.redis = client
        self.health = health
        self._rate = client.register_script(RATE)

    async def _call(self, coro: Awaitable[Any]) -> Any:
        """One command, its failure told to the store's health (:func:`.redis_keys.answer`).

        Raises:
            StoreError: Redis failed or is unreachable.
        """
        return await answer(self.health, coro)

    async def rate(self, game: RatedGame) -> list[Change] | None:
        """See :meth:`~.ratings.Ratings.rate` (compare-and-set, see the module docstring).

        Raises:
            StoreError: Redis is unavailable, or the seats' ratings changed under every one
                of :data:`ATTEMPTS` attempts.
        """
        try:
            async for attempt in AsyncRetrying(retry=retry_if_exception_type(_Changed),
                                               stop=stop_after_attempt(ATTEMPTS),
                                               reraise=True):
                with attempt:
                    return await self._rate_once(game)
        except _Changed:
            raise StoreError(f"game {game.id}: its seats' ratings kept changing") from None
        raise AssertionError("unreachable")  # pragma: no cover

    async def _rate_once(self, game: RatedGame) -> list[Change] | None:
        seats = [(s, s.key) for s in game.seats if s.key is not None]
        keys = [k for _, k in seats]
        raw = await self._call(self.redis.hmget(_key(game.board, "r"), keys)) if keys else []
        read = {k: r for k, r in zip(keys, raw, strict=True) if r is not None}
        done = changes(game, {k: Rating.of(unpack(r)) for k, r in read.items()})
        argv: list[Any] = [len(seats), pack([c.record() for c in done]), HISTORY, game.at,
                           game.id]
        hist: list[str] = []
        for change, seat in zip(done, game.seats, strict=True):
            if change.key is None:
                continue
            a = change.after
            argv += [change.key, read.get(change.key, b""),
                     pack({"name": change.name, "guest": seat.guest, "mu": a.mu,
                           "sigma": a.sigma, "games": a.games}),
                     a.ordinal, pack([game.at, game.id, a.mu, a.sigma, a.games])]
            hist.append(_key(game.board, f"h:{change.key}"))
        keys_ = [_key(game.board, "r"), _key(game.board, "o"),
                 _key(game.board, f"g:{game.id}"), _key(game.board, "gl"), *hist]
        status = int(await self._call(self._rate(keys=keys_, args=argv)))
        if status < 0:
            raise _Changed
        return done if status else None

    async def ratings(self, board: str, keys: Sequence[str]) -> dict[str, Rating]:
        """See :meth:`~.ratings.Ratings.ratings`.

        Raises:
            StoreError: Redis is unavailable.
        """
        if not keys:
            return {}
        raw = await self._call(self.redis.hmget(_key(board, "r"), list(keys)))
        return {k: Rating.of(unpack(r)) for k, r in zip(keys, raw, strict=True)
                if r is not None}

    async def entries(self, board: str, keys: Sequence[str]) -> list[Entry]:
        """See :meth:`~.ratings.Ratings.entries` (one ``HMGET``).

        Raises:
            StoreError: Redis is unavailable.
        """
        wanted = list(dict.fromkeys(keys))
        if not wanted:
            return []
        raw = await self._call(self.redis.hmget(_key(board, "r"), wanted))
        return [_entry(k, r) for k, r in zip(wanted, raw, strict=True) if r is not None]

    async def listing(self, board: str, limit: int = 100, offset: int = 0) -> list[Entry]:
        """See :meth:`~.ratings.Ratings.listing`.

        Raises:
            StoreError: Redis is unavailable.
        """
        if limit <= 0:
            return []
        keys = [k.decode() for k in await self._call(
            self.redis.zrevrange(_key(board, "o"), offset, offset + limit - 1))]
        if not keys:
            return []
        raw = await self._call(self.redis.hmget(_key(board, "r"), keys))
        entries = [_entry(k, r) for k, r in zip(keys, raw, strict=True) if r is not None]
        return best_first(entries, limit)

    async def game_changes(self, board: str, game: str) -> list[Change] | None:
        """See :meth:`~.ratings.Ratings.game_changes`.

        Raises:
            StoreError: Redis is unavailable.
        """
        raw = await self._call(self.redis.get(_key(board, f"g:{game}")))
        return None if raw is None else [Change.of(c) for c in unpack(raw)]

    async def history(self, board: str, key: str, limit: int = HISTORY
                      ) -> list[tuple[float, str, Rating]]:
        """See :meth:`~.ratings.Ratings.history`.

        Raises:
            StoreError: Redis is unavailable.
        """
        raw = await self._call(self.redis.lrange(_key(board, f"h:{key}"), 0, limit - 1))
        out = []
        for item in raw:
            at, g, mu, sigma, games = unpack(item)
            out.append((float(at), str(g), Rating(mu, sigma, games)))
        return out

    async def rated_ids(self, board: str, offset: int, limit: int
                        ) -> list[tuple[str, float]]:
        """See :meth:`~.ratings.Ratings.rated_ids`.

        Raises:
            StoreError: Redis is unavailable.
        """
        if limit <= 0:
            return []
        if offset == 0:
            await self._index_games(board)
        rows = await self._call(self.redis.zrange(_key(board, "gl"), offset,
                                                  offset + limit - 1, withscores=True))
        return [(g.decode(), float(at)) for g, at in rows]

    async def _index_games(self, board: str) -> None:
        """Add to the games zset the rated games of ``board`` it lacks (rated before it
        existed), at time 0 (the oldest): one ``SCAN`` of their keys."""
        prefix = _key(board, "g:")
        found: dict[str, float] = {}
        try:
            async for raw in self.redis.scan_iter(match=prefix.replace("[", "\\[") + "*",
                                                  count=1000):
                found[raw.decode()[len(prefix):]] = 0.0
        except (RedisError, OSError) as exc:
            self.health.failed()
            raise StoreError(f"redis: {exc}") from None
        if found:
            await self._call(self.redis.zadd(_key(board, "gl"), found, nx=True))

    async def put_entry(self, board: str, entry: Entry,
                        history: Sequence[tuple[float, str, Rating]]) -> bool:
        """See :meth:`~.ratings.Ratings.put_entry` (the target is in no server's use: the
        record is set if absent, then its order and history).

        Raises:
            StoreError: Redis is unavailable.
        """
        r = entry.rating
        record = pack({"name": entry.name, "guest": entry.guest, "mu": r.mu,
                       "sigma": r.sigma, "games": r.games})
        if not await self._call(self.redis.hsetnx(_key(board, "r"), entry.key, record)):
            return False
        await self._call(self.redis.zadd(_key(board, "o"), {entry.key: r.ordinal}))
        kept = [pack([at, g, h.mu, h.sigma, h.games]) for at, g, h in list(history)[:HISTORY]]
        hist = _key(board, f"h:{entry.key}")
        await self._call(self.redis.delete(hist))
        if kept:
            await self._call(self.redis.rpush(hist, *kept))
        return True

    async def put_game(self, board: str, game: str, done: Sequence[Change],
                       at: float) -> bool:
        """See :meth:`~.ratings.Ratings.put_game`.

        Raises:
            StoreError: Redis is unavailable.
        """
        packed = pack([c.record() for c in done])
        if not await self._call(self.redis.set(_key(board, f"g:{game}"), packed, nx=True)):
            return False
        await self._call(self.redis.zadd(_key(board, "gl"), {game: at}))
        return True
