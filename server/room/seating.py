"""A room's seats and members: joins, resumes, spectators, leaves, kicks and drops.

:class:`RoomSeats` holds the :class:`~cardhall.server.room.Room` methods that seat players
and let them go, carrying out the seat rules of :mod:`cardhall.server.table` (which seat a
join takes, where the host role goes, what a leave or a kick does in each phase).
"""

from __future__ import annotations

import hmac
import secrets
import time

from mypy_extensions import trait

from ... import protocol as p
from . import play, rules as table
from .views import Member, Peer, Seat
from .rules import Leaving, Phase, RoomError
from .parts import RoomParts

FINISHED = Phase.FINISHED
#: A seat event to send every member: (seat, event) (:meth:`RoomSeats._tell`).
Told = tuple[int, str]


@trait
class RoomSeats(RoomParts):
    """The seats and members of a :class:`~cardhall.server.room.Room` (a base class of it,
    so that its state stays in one place; these methods run inside the room task)."""

    __slots__ = tuple[str, ...]()

    def join(self, conn: Peer, seat: int | None) -> tuple[int, str]:
        """Seat ``conn`` at ``seat`` (or the first free seat) and tell every member at once
        (nothing saved: :meth:`seat_player` saves first). Returns ``(seat, token)``.

        Raises:
            RoomError: as :meth:`_seat`.
        """
        seat_no, token, told = self._seat(conn, seat)
        self._tell(told)
        if self.ledger is not None:
            self.ledger.seated(conn.account, self.id, seat_no, self.game_name,
                               self.options.get("mode"))
        return seat_no, token

    def _seat(self, conn: Peer, seat: int | None) -> tuple[int, str, list[Told]]:
        """The state change of a join, nothing sent, nothing saved: ``conn`` takes ``seat``
        (or the first free seat: :func:`~.table.choose_seat`), and the host role moves as
        :func:`~.table.host_on_join` says. Returns ``(seat, token, seat events to send)``.

        Raises:
            RoomError: ``room/already_started``, ``room/full``, ``room/already_seated``
                (the account of ``conn`` holds a seat here already).
        """
        seat = table.choose_seat(self.phase, self.seats, conn, conn.account, seat,
                                 bool(self.settings.get("multi_seat")))
        move = table.host_on_join(self.seats, conn.session_id == self.host, self.host)
        token = secrets.token_urlsafe(24)  # 192 bits
        holder = self.seats[seat] = Seat(token=token, conn=conn, name=conn.name,
                                         since=time.time(), account=conn.account)
        self.members[conn] = Member(seat)
        conn.rooms[self.id] = self
        told: list[Told] = [(seat, "joined")]
        if move is table.HostMove.KEEP:
            holder.host = True
        elif move is not table.HostMove.NONE:
            told.append(self._make_host(seat, claim=move is not table.HostMove.LEND))
        self.seats_touched()
        return seat, token, told

    def _tell(self, told: list[Told]) -> None:
        """Send the seat events ``told`` (:meth:`_seat_event`), in order."""
        for seat, what in told:
            self._seat_event(seat, what)

    def _make_host(self, seat: int, *, claim: bool = True) -> Told:
        """Give the host role to the player of ``seat``; returns the ``seat_event host``
        every member is to be told. With ``claim``, its session becomes :attr:`host` (the
        one before loses the role); without, the creator's session keeps its claim (it may
        still start the room, and takes the role back when it sits down)."""
        for holder in self.seats:
            if holder is not None:
                holder.host = False
        holder = self.seats[seat]
        assert holder is not None
        holder.host = True
        if claim:
            self.host = holder.conn.session_id if holder.conn is not None else ""
        self.seats_touched()
        return seat, "host"

    def _free_seat(self, seat: int) -> None:
        """Free ``seat`` of a waiting room (its player left, was kicked, or was dropped
        past its grace window) and tell every member (``seat_event left``). When it was the
        host's, the host role goes to :func:`~.table.heir`, who is told with everyone else
        (``seat_event host``); with nobody seated, the next player to sit down gets it.
        """
        holder = self.seats[seat]
        self.seats[seat] = None
        self.seats_touched()
        self._seat_event(seat, "left")
        self._save_soon()
        self._unseated(holder)
        if holder is None or not holder.host:
            return
        heir = table.heir(self.seats)
        if heir is not None:
            self._tell([self._make_host(heir)])
        else:
            self.host = ""

    def _unseated(self, holder: Seat | None) -> None:
        """Tell the ledger that ``holder``'s account holds the seat no more."""
        if holder is not None and holder.account and self.ledger is not None:
            self.ledger.unseated(holder.account, self.id)

    @property
    def startable(self) -> bool:
        """True for a waiting room someone can start now, or whose next player becomes its
        host (:func:`~.table.startable`; quick join sends nobody into a room whose host is
        away: :meth:`Lobby.quick_room`)."""
        return table.startable(self.seats)

    def reattach(self, conn: Peer, seat: int | None) -> None:
        """Put a member recorded in the stored state back (after a takeover)."""
        self.members[conn] = Member(seat)
        conn.rooms[self.id] = self
        if seat is not None and self.seats[seat] is not None:
            holder = self.seats[seat]
            assert holder is not None
            holder.conn, holder.grace_until = conn, None
        self.seats_touched()

    def hold_seats(self, since: float) -> None:
        """After a restart (the room loaded from a durable store that no other process
        shares): every seat of a player with no connection now (the previous run's are
        gone) is held for the room's ``grace_seconds`` from ``since`` (the restart, unix
        time s), whatever was left of an earlier window, so that its client can ``resume``
        it; the timer is armed by :meth:`resync`. Server bots' seats and forfeited ones are
        left as they are; so is a finished room."""
        if self.game_phase is FINISHED:
            return
        until = since + self.settings["grace_seconds"]
        for holder in self.seats:
            if holder is not None and holder.conn is None and not holder.bot and holder.token:
                holder.grace_until = until
        self.seats_touched()

    def spectate(self, conn: Peer) -> None:
        """Add ``conn`` as a spectator (a seated connection stays seated)."""
        if conn not in self.members:
            self.members[conn] = Member(None)
            self.seats_touched()
            self._save_soon()
            self._facts_soon()
        conn.rooms[self.id] = self

    def _facts_soon(self) -> None:
        """The spectators changed: send the members the room facts after the current work
        item (:meth:`facts_changed`; coalesced, so a crowd coming costs one frame each)."""
        if self._facts_posted:
            return
        self._facts_posted = True

        def send() -> None:
            self._facts_posted = False
            self.facts_changed()

        self.post(send)

    def find_token(self, token: str) -> int | None:
        """The seat whose token equals ``token`` (compared in constant time), or None."""
        found = None
        for s, holder in enumerate(self.seats):
            if (holder is not None and holder.token
                    and hmac.compare_digest(holder.token.encode(), token.encode())):
                found = s
        return found

    def resume(self, conn: Peer, token: str) -> int:
        """Give the seat with ``token`` back to ``conn``. Returns the seat.

        Raises:
            RoomError: ``room/bad_token`` when no seat has that token (or it was forfeited).
        """
        seat = self.find_token(token)
        if seat is None:
            raise RoomError("room/bad_token", "no seat of this room has that token")
        return self._resume_seat(conn, seat)

    def resume_account(self, conn: Peer) -> int:
        """Give ``conn`` back the seat its account holds (any device: no token needed); with
        several (``multi_seat``), the first one not played from ``conn``. Returns the seat.

        Raises:
            RoomError: ``room/not_seated`` when ``conn`` is signed in to no account, or its
                account holds no seat here it may resume (never one, or forfeited, kicked).
        """
        held = [s for s, h in enumerate(self.seats) if h is not None and conn.account
                and h.account == conn.account and h.token]
        if not held:
            raise RoomError("room/not_seated", "your account holds no seat of this room "
                            "(sign in to the account that took it, or resume with its token)")
        free = [s for s in held if (h := self.seats[s]) is not None and h.conn is not conn]
        return self._resume_seat(conn, (free or held)[0])

    def _resume_seat(self, conn: Peer, seat: int) -> int:
        holder = self.seats[seat]
        assert holder is not None
        old = holder.conn
        if old is not None and old is not conn:
            self.members.pop(old, None)
            old.rooms.pop(self.id, None)
            old.send(p.Left(room=self.id))
        holder.conn, holder.grace_until, holder.bot = conn, None, False
        self.members[conn] = Member(seat)
        conn.rooms[self.id] = self
        self.seats_touched()
        self._seat_event(seat, "resumed")
        self._schedule()
        return seat

    async def leave(self, conn: Peer) -> None:
        """``conn`` leaves: what becomes of its seat is :func:`~.play.leave`'s: a
        waiting seat is freed; a playing seat is abandoned at once; in a finished room
        only the connection goes."""
        seat = self._detach(conn)
        if seat is not None:
            await self._carry_out_awaiting(play.leave(self.game_phase, seat))

    def _detach(self, conn: Peer, save_spectator: bool = False) -> int | None:
        """Take ``conn`` out of the room's members (a spectator's going is told to the
        members soon: :meth:`_facts_soon`; with ``save_spectator``, saved soon too: a dropped
        spectator is no longer in the stored state's members). Returns the
        seat it played, whose connection is None now, or None (a spectator, not a member,
        or the seat is played from another connection)."""
        member = self.members.pop(conn, None)
        conn.rooms.pop(self.id, None)
        self.seats_touched()
        if member is None or member.seat is None:
            if member is not None:
                if save_spectator:
                    self._save_soon()
                self._facts_soon()
            return None
        holder = self.seats[member.seat]
        if holder is None or holder.conn is not conn:
            return None
        holder.conn = None
        self.seats_touched()
        return member.seat

    async def kick(self, seat: int) -> str:
        """Remove the player of ``seat`` (an operator's kick, a work item of the room): its
        connection, if any, gets ``error room/kicked`` and an unsolicited ``left`` and is
        detached; the seat's token is voided (it cannot be resumed). Then as a ``leave``
        (:func:`~.play.leave`): a waiting room frees the seat; a playing one follows
        ``on_abandon`` at once (a server bot takes the seat, or it forfeits); in a finished
        room only the connection is detached.

        Returns:
            What became of the seat: ``"freed"``, ``"bot"``, ``"forfeit"`` or ``"detached"``.

        Raises:
            RoomError: ``room/not_seated`` when no player holds ``seat`` (out of range,
                empty, a server bot's, or forfeited or kicked already:
                :func:`~.table.kickable`).
        """
        holder = self.seats[seat] if 0 <= seat < len(self.seats) else None
        if holder is None or not table.kickable(holder):
            raise RoomError("room/not_seated", f"no player holds seat {seat}")
        leaving = table.on_leave(self.game_phase)
        conn, holder.conn, holder.token = holder.conn, None, ""
        self._unseated(holder)
        self.seats_touched()
        if conn is not None:
            self.members.pop(conn, None)
            conn.rooms.pop(self.id, None)
            conn.send_error("room/kicked", f"an operator removed you from seat {seat}")
            conn.send(p.Left(room=self.id))
        await self._carry_out_awaiting(play.leave(self.game_phase, seat))
        self._save_soon()
        if leaving is Leaving.ABANDON:
            return "bot" if holder.bot else "forfeit"
        return "freed" if leaving is Leaving.FREE else "detached"

    def dropped(self, conn: Peer) -> None:
        """``conn`` lost its connection: hold its seat for the grace window (not in a
        finished room: :func:`~.play.drop`)."""
        seat = self._detach(conn, save_spectator=True)
        if seat is not None:
            self._carry_out(play.drop(self.game_phase, seat, self.settings["grace_seconds"],
                                      time.time()))
