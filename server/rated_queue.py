"""Rated play's queue on the wire (issue #45 item 3): ``queue_join`` and ``queue_leave``, and
the rated rooms the waves fill.

A signed-in connection (a guest account counts) sends ``queue_join {game, mode, seats}`` for
a rated game type (:data:`~.ratings.RATED`); the server answers ``queued`` with its rating,
and puts a ticket in this process's :class:`~.matchmaking.Matchmaker`. When a wave makes a
table (:meth:`RatedQueue.seat`), the server creates a rated room (``rated`` room option: see
:mod:`.rated`) of the table's size, the first ticket's connection its host, and seats every
ticket's connection in it (each gets ``joined``, unsolicited); a table with bots is started
at once (the empty seats get server bots); then each player gets ``matched``. A connection
that closes leaves the queue; ``queue_leave`` leaves it on request (answered ``ok``).

Errors of ``queue_join``: ``auth/required`` (no account), ``lobby/unknown_game`` (not a
rated game type), ``server/unavailable`` (the ratings store).
"""

from __future__ import annotations

import logging
from typing import Any

from .. import protocol as p
from .matchmaking import Matchmaker, Table, Ticket
from .ratings import Rating, Ratings, board_id, is_rated
from .store import StoreError
from .table import RoomError

__all__ = ["RatedQueue"]

log = logging.getLogger("cardhall.queue")


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
                 wave_seconds: float = 3.0, **matchmaker: Any) -> None:
        self.lobby, self.ratings = lobby, ratings
        self.matchmaker = Matchmaker(self.seat, bot_after=bot_after,
                                     wave_seconds=wave_seconds, **matchmaker)

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
        self.matchmaker.join(msg.game, msg.mode, ticket)
        conn.send(p.Queued(game=msg.game, mode=msg.mode, seats=list(msg.seats),
                           rating=rating.shown, provisional=rating.provisional,
                           waiting=self.matchmaker.waiting(msg.game, msg.mode), re=msg.id))

    async def seat(self, game: str, mode: str, table: Table) -> None:
        """Create the rated room of ``table`` and seat its players (module docstring); a
        player who cannot be seated (gone meanwhile) is skipped, logged.

        Raises:
            RoomError, StoreError: the room could not be created.
        """
        host = table.tickets[0].owner
        ask = p.CreateRoom(game=game, mode=mode, seats=table.seats,
                           options={"rated": True})
        room = await self.lobby.create(host, ask, {"rated": True})
        for ticket in table.tickets:
            conn = ticket.owner
            try:
                await room.submit(lambda c=conn: room.seat_player(c, None, None))
            except (RoomError, StoreError) as exc:
                log.warning("queue: %s not seated in room %s: %s", ticket.name, room.id, exc)
        if table.bots:
            try:
                await room.submit(lambda: room.start(host, None))
            except (RoomError, StoreError) as exc:
                log.warning("queue: room %s not started: %s", room.id, exc)
        spread = round(table.spread)
        for ticket in table.tickets:
            ticket.owner.send(p.Matched(room=room.id, game=game, mode=mode, seats=table.seats,
                                        bots=table.bots, host=ticket.owner is host,
                                        spread=spread))
        log.info("queue: room %s %s %s: %s (spread %d, %d bots)", room.id, game, mode,
                 ", ".join(t.name for t in table.tickets), spread, table.bots)

    def closed(self, conn: Any) -> None:
        """``conn`` closed: its tickets leave the queue."""
        self.matchmaker.leave_owner(conn)

    async def close(self) -> None:
        """Stop the waves."""
        await self.matchmaker.close()
