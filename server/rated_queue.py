"""Rated play's queue on the wire (issue #45 item 3): ``queue_join`` and ``queue_leave``, and
the rated rooms the waves fill.

A signed-in connection (a guest account counts) sends ``queue_join {game, mode, seats}`` for
a rated game type (:data:`~.ratings.RATED`); the server answers ``queued`` with its rating,
and puts a ticket in this process's :class:`~.matchmaking.Matchmaker`. When a wave makes a
table (:meth:`RatedQueue.seat`), the server creates a rated room (``rated`` room option: see
:mod:`.rated`) of the table's size, the first ticket's connection its host, and seats every
ticket's connection in it (each gets ``joined``, unsolicited); a table with bots is started
at once (the empty seats get server bots of the strategy whose rating is nearest the
table's: :meth:`RatedQueue.room_options`); then each player gets ``matched``. A connection
that closes leaves the queue; ``queue_leave`` leaves it on request (answered ``ok``).

Errors of ``queue_join``: ``auth/required`` (no account), ``lobby/unknown_game`` (not a
rated game type), ``server/unavailable`` (the ratings store).

On a Redis store the queue is the lobby's, one per game type (:mod:`.store.queue_redis`): every
process puts its connections' tickets there and runs the waves of the queues it has
tickets in, one process at a time per queue (redis-py's ``Lock``), every ``wave_seconds``
or at once when a join makes the queue ``wave_at`` tickets long (on the process of that
join), each table claimed at once so that no ticket is seated twice. A table is seated by
the process of its first ticket (told through its inbox, ``queue_table``, when another
process made it), which creates the room and seats its own connections; each other
player's process is told (``queue_seat``) and joins its connection to the room (a ``join``,
forwarded to the room's process as any other).
"""

from __future__ import annotations

import asyncio
import logging
import statistics
import time
from typing import Any

import msgpack
from redis.exceptions import LockError

from .. import protocol as p
from ..games import OptionError
from ..games.bots import strategy
from .matchmaking import Matchmaker, Table, Ticket, pair
from .store.queue_redis import RedisTickets
from .ratings import Rating, Ratings, board_id, is_rated
from .store.ports import StoreError
from .phases import RoomError
from .tasks import Background, cancel_until_done

__all__ = ["BOT_STRATEGIES", "JOIN_SECONDS", "RatedQueue"]

log = logging.getLogger("cardhall.queue")

#: The server bots' strategies a table with bots may get (the room option's choices).
BOT_STRATEGIES = ("greedy", "random", "expert")
#: Seconds a table with bots waits for its players' joins (from other processes) before
#: it starts.
JOIN_SECONDS = 5.0


class RatedQueue:
    """The queue requests of this process's connections, and the seating of its tables.

    Args:
        lobby: The lobby (:class:`~.lobby.Lobby`): creates the rated rooms.
        ratings: Where ratings live (a ticket's rating).
        bot_after: ``--queue-bot-after`` seconds, or None (bots never fill).
        wave_seconds: Seconds between two waves.
        matchmaker: Options of the :class:`~.matchmaking.Matchmaker` (``wave_at``,
            ``window``, ``widen``, ``clock``).
    """

    def __init__(self, lobby: Any, ratings: Ratings, *, bot_after: float | None = None,
                 wave_seconds: float = 3.0, store: Any = None,
                 sessions: dict[str, Any] | None = None, **matchmaker: Any) -> None:
        self.lobby, self.ratings = lobby, ratings
        self.bot_after, self.wave_seconds = bot_after, wave_seconds
        self.matchmaker = Matchmaker(self.seat, bot_after=bot_after,
                                     wave_seconds=wave_seconds, **matchmaker)
        self.window, self.widen = self.matchmaker.window, self.matchmaker.widen
        #: The lobby's queues on Redis, or None (this process's queue: :attr:`matchmaker`).
        self.shared: RedisTickets | None = None
        client = getattr(store, "redis", None)
        if client is not None:
            self.shared = RedisTickets(client, store.health, store.process_id)
        self.store = store
        #: This process's connections by session id (the server's).
        self.sessions: dict[str, Any] = sessions if sessions is not None else {}
        #: Shared queues: this process's tickets, id -> (queue, connection).
        self.local: dict[str, tuple[str, Any]] = {}
        self.background = Background()
        self._task: asyncio.Task[None] | None = None
        self._now = asyncio.Event()  # a shared queue is long enough: a wave at once

    async def request(self, conn: Any, msg: p.QueueJoin | p.QueueLeave) -> None:
        """Answer ``queue_join`` (``queued``) or ``queue_leave`` (``ok``) of ``conn`` (a
        :class:`~.session.Session`).

        Raises:
            RoomError: see the module docstring.
        """
        if isinstance(msg, p.QueueLeave):
            if conn.account:
                self.matchmaker.leave(conn.account, msg.game)
            self.matchmaker.leave_owner(conn)
            await self._leave_shared(conn, msg.game)
            conn.send(p.Ok(re=msg.id))
            return
        if not conn.account:
            raise RoomError("auth/required", "rated play needs an account (a guest one "
                            "will do): sign in first")
        if not is_rated(msg.game, msg.mode):
            raise RoomError("lobby/unknown_game", f"{msg.game} {msg.mode} is not rated "
                            "(rated: skipper multi and race)")
        try:
            found = await self.ratings.ratings(board_id(msg.game, msg.mode), [conn.account])
        except StoreError:
            raise RoomError("server/unavailable", "the ratings are unavailable; try again "
                            "soon") from None
        rating = found.get(conn.account, Rating())
        ticket = Ticket(conn.account, conn.name, float(rating.shown),
                        tuple(sorted(set(msg.seats), reverse=True)), owner=conn)
        if self.shared is None:
            self.matchmaker.join(msg.game, msg.mode, ticket)
            waiting = self.matchmaker.waiting(msg.game, msg.mode)
        else:
            queue = board_id(msg.game, msg.mode)
            try:
                await self.shared.add(queue, ticket, conn.session_id)
                waiting = len(await self.shared.tickets(queue, drop_dead=False))
            except StoreError:
                raise RoomError("server/unavailable", "the queue is unavailable; try again "
                                "soon") from None
            for tid, (q, c) in list(self.local.items()):
                if q == queue and c.account == conn.account:
                    del self.local[tid]
            self.local[ticket.id] = (queue, conn)
            if waiting >= self.matchmaker.wave_at:
                self._now.set()
            if self._task is None:
                self._task = asyncio.get_running_loop().create_task(self._waves(),
                                                                    name="shared-queue")
        conn.send(p.Queued(game=msg.game, mode=msg.mode, seats=list(msg.seats),
                           rating=rating.shown, provisional=rating.provisional,
                           waiting=waiting, re=msg.id))

    async def seat(self, game: str, mode: str, table: Table) -> None:
        """Create the rated room of ``table`` and seat its players (module docstring); a
        player who cannot be seated (someone else took the seat first through the lobby)
        goes back to the queue, and one whose connection closed is skipped.

        Raises:
            RoomError, StoreError: the room could not be created.
        """
        host = table.tickets[0].owner
        options = await self.room_options(game, mode, table)
        ask = p.CreateRoom(game=game, mode=mode, seats=table.seats, options=options)
        room = await self.lobby.create(host, ask, options)
        seated = []
        for ticket in table.tickets:
            conn = ticket.owner
            try:
                await room.submit(lambda c=conn: room.apply(room.table.join(c, None, None)))
            except (RoomError, StoreError) as exc:
                log.warning("queue: %s not seated in room %s: %s", ticket.name, room.id, exc)
                if self.sessions.get(conn.session_id) is conn:
                    self.matchmaker.join(game, mode, ticket)  # waits for the next wave
            else:
                seated.append(ticket)
        if table.bots:
            try:
                await room.submit(lambda: room.apply(room.table.start(host, None)))
            except (RoomError, StoreError) as exc:
                log.warning("queue: room %s not started: %s", room.id, exc)
        spread = round(table.spread)
        for ticket in seated:
            ticket.owner.send(p.Matched(room=room.id, game=game, mode=mode, seats=table.seats,
                                        bots=table.bots, host=ticket.owner is host,
                                        spread=spread))
        log.info("queue: room %s %s %s: %s (spread %d, %d bots)", room.id, game, mode,
                 ", ".join(t.name for t in table.tickets), spread, table.bots)

    async def room_options(self, game: str, mode: str, table: Table) -> dict[str, Any]:
        """The room options of ``table``'s rated room: ``rated``, and for a table with bots
        the server bots' strategy whose rating is nearest the mean of the players' (a
        strategy never rated counts as a new player, 1500; equal distances: the first of
        :data:`BOT_STRATEGIES`)."""
        options: dict[str, Any] = {"rated": True}
        if not table.bots:
            return options
        names = []
        for name in BOT_STRATEGIES:
            try:
                strategy(game, name)
            except OptionError:
                continue
            names.append(name)
        try:
            found = await self.ratings.ratings(board_id(game, mode),
                                               [f"bot:{n}" for n in names])
        except StoreError:
            found = {}
        mean = statistics.fmean(t.rating for t in table.tickets)
        options["bot_strategy"] = min(
            names, key=lambda n: abs(found.get(f"bot:{n}", Rating()).shown - mean))
        return options

    def closed(self, conn: Any) -> None:
        """``conn`` closed: its tickets leave the queue."""
        self.matchmaker.leave_owner(conn)
        if self.shared is not None and any(c is conn for _, c in self.local.values()):
            self.background.spawn(self._leave_shared(conn, None))

    async def close(self) -> None:
        """Stop the waves."""
        await self.matchmaker.close()
        if self._task is not None:
            await cancel_until_done(self._task)
            self._task = None
        await self.background.close()

    # -- the lobby's queues on Redis -------------------------------------------------------

    async def _leave_shared(self, conn: Any, game: str | None) -> None:
        """Take ``conn``'s tickets (of ``game``'s queues, or all) out of the shared queues."""
        if self.shared is None:
            return
        for tid, (queue, c) in list(self.local.items()):
            if c is conn and (game is None or queue.split(":")[0] == game):
                del self.local[tid]
                try:
                    await self.shared.remove(queue, [tid])
                except StoreError as exc:
                    log.warning("queue: ticket %s not removed: %s", tid, exc)

    async def _waves(self) -> None:
        """Every ``wave_seconds``, or at once when a join here made a queue long enough:
        renew this process's alive keys, and run a wave of each queue it has tickets in
        whose lock it gets."""
        assert self.shared is not None
        while True:
            try:
                await asyncio.wait_for(self._now.wait(), self.wave_seconds)
            except asyncio.TimeoutError:
                pass
            self._now.clear()
            for queue in sorted({q for q, _ in self.local.values()}):
                try:
                    await self.shared.alive(queue)
                    await self.shared_wave(queue)
                except StoreError as exc:
                    log.warning("queue %s: no wave: %s", queue, exc)

    async def shared_wave(self, queue: str) -> list[Table]:
        """One wave of shared ``queue`` if its lock is free (see the module docstring);
        returns the tables claimed here.

        Raises:
            StoreError: Redis is unavailable.
        """
        assert self.shared is not None
        lock = await self.shared.lock(queue)
        if lock is None:
            return []
        claimed = []
        try:
            tickets = await self.shared.tickets(queue)
            tables, left = pair(tickets, window=self.window, widen=self.widen,
                                now=time.time(), bot_after=self.bot_after)
            for table in tables:
                if await self.shared.claim(queue, table.tickets):
                    claimed.append(table)
            await self.shared.missed(queue, left)
        finally:
            try:
                await lock.release()
            except LockError:
                log.warning("queue %s: the wave outlived its lock", queue)
        for table in claimed:
            try:
                await self._dispatch(queue, table)
            except Exception:  # one table's failure must not stop the waves
                log.exception("queue %s: a table was not seated: its players wait again",
                              queue)
                await self.shared.put_back(queue, table.tickets)
        return claimed

    async def _dispatch(self, queue: str, table: Table) -> None:
        """Have ``table`` seated by the process of its first ticket."""
        assert self.store is not None
        process = table.tickets[0].owner[0]
        if process == self.store.process_id:
            await self._seat_shared(queue, table)
            return
        message = {"k": "queue_table", "q": queue, "seats": table.seats, "bots": table.bots,
                   "tickets": [[t.id, t.key, t.name, t.rating, list(t.owner)]
                               for t in table.tickets]}
        if not await self.store.publish(process, msgpack.packb(message)):
            log.warning("queue %s: the process of a table is gone: not seated", queue)

    async def _seat_shared(self, queue: str, table: Table) -> None:
        """Seat a claimed table whose first ticket is this process's (module docstring)."""
        assert self.store is not None
        game, mode = queue.split(":", 1)
        me = self.store.process_id
        host = self.sessions.get(table.tickets[0].owner[1])
        if host is None:
            log.warning("queue %s: the host of a table left: not seated", queue)
            return
        options = await self.room_options(game, mode, table)
        room = await self.lobby.create(host, p.CreateRoom(game=game, mode=mode,
                                                          seats=table.seats), options)
        spread = round(table.spread)
        for ticket in table.tickets:
            proc, sess = ticket.owner
            matched = {"room": room.id, "game": game, "mode": mode, "seats": table.seats,
                       "bots": table.bots, "host": ticket is table.tickets[0],
                       "spread": spread}
            if proc == me:
                await self._seat_here(ticket.id, sess, room, matched)
            else:
                await self.store.publish(proc, msgpack.packb(
                    {"k": "queue_seat", "ticket": ticket.id, "sess": sess,
                     "matched": matched}))
        if table.bots:
            for _ in range(int(JOIN_SECONDS / 0.05)):
                if room.table.taken >= len(table.tickets):
                    break
                await asyncio.sleep(0.05)
            try:
                await room.submit(lambda: room.apply(room.table.start(host, None)))
            except (RoomError, StoreError) as exc:
                log.warning("queue: room %s not started: %s", room.id, exc)

    async def _seat_here(self, ticket: str, sess: str, room: Any,
                         matched: dict[str, Any]) -> None:
        """Seat this process's connection ``sess`` in ``room`` (a local room, or one of
        another process: ``join``, forwarded), then tell it ``matched``."""
        self.local.pop(ticket, None)
        conn = self.sessions.get(sess)
        if conn is None:
            return
        try:
            if room is not None:
                await room.submit(lambda: room.apply(room.table.join(conn, None, None)))
            else:
                await conn.dispatch(p.Join(room=matched["room"]))
        except (RoomError, StoreError) as exc:
            log.warning("queue: %s not seated in room %s: %s", conn.name, matched["room"],
                        exc)
            return
        conn.send(p.Matched(**matched))

    async def inbox(self, msg: dict[str, Any]) -> None:
        """A ``queue_table`` or ``queue_seat`` from another process (see the module
        docstring)."""
        try:
            if msg["k"] == "queue_table":
                tickets = tuple(Ticket(key, name, float(rating), (), owner=tuple(owner),
                                       id=tid)
                                for tid, key, name, rating, owner in msg["tickets"])
                await self._seat_shared(msg["q"], Table(tickets, int(msg["seats"]),
                                                        int(msg["bots"])))
            elif msg["k"] == "queue_seat":
                await self._seat_here(msg["ticket"], msg["sess"], None, msg["matched"])
        except Exception:  # the inbox goes on whatever one message did
            log.exception("queue: %s not handled", msg.get("k"))
