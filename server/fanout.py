"""What a room sends its members: views, full or as deltas, one broadcast at a time.

:class:`Peer` is what a room needs of a member (a local connection or a forwarded client) and
:class:`Seat` a taken seat (shown to everyone in the room facts of every view);
:class:`RoomViews` holds the :class:`~cardhall.server.room.Room` methods that build views
and send them (join, resume, ``get_view``, and the update of every accepted action);
:class:`_Fanout` builds one broadcast's frames, member by member, sharing the deltas of
members whose last view came from the same broadcast.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from .. import protocol as p
from ..games import Game


class Peer(Protocol):
    """What a room needs of a member: a local connection or a client forwarded from another
    process (both are :class:`~cardhall.server.session.Session`; declared here so the room
    does not import the layers above it).

    Attributes: ``session`` (the peer's random id), ``process`` (id of the server process the
    client is connected to), ``name`` (from its hello), ``rooms`` (rooms of this process it is
    in, by id) and ``remote_rooms`` (ids of rooms owned by other processes).
    """

    session: str
    process: str
    name: str
    rooms: dict[str, Any]  # the Room objects it is in, by id (room sits above this module)
    remote_rooms: set[str]

    def send(self, msg: p.Message) -> None:
        """Queue ``msg`` for the peer without waiting."""

    def send_raw(self, *frames: bytes) -> None:
        """Queue encoded frames for the peer, in order, without waiting."""

    def send_error(self, code: str, message: str, re: Any = None) -> None:
        """Queue an error reply (``code`` as in protocol/README.md) for the peer."""


#: The name the room's signatures use for a member's peer.
Connection = Peer


@dataclass
class Seat:
    """A taken seat.

    Attributes:
        token: The secret that lets its player resume it (never shown to anyone else).
        conn: The connection playing it, or None (dropped, or played by a server bot).
        name: Display name (the client's hello name).
        bot: True once a server-side bot plays the seat.
        assisted: True once a server-side bot has played the seat, even if its player took
            it back (such a seat's game is not ranked: :mod:`.leaderboard`); bot seats too.
        grace_until: ``time.time()`` deadline of a dropped seat's grace window, or None.
    """

    token: str
    conn: Connection | None
    name: str
    bot: bool = False
    grace_until: float | None = None
    assisted: bool = False

    def __post_init__(self) -> None:
        self.assisted = self.assisted or self.bot

    def public(self, seat: int) -> dict[str, Any]:
        """What everyone may know of the seat."""
        return {"seat": seat, "name": self.name, "connected": self.conn is not None,
                "bot": self.bot}

    def stored(self) -> dict[str, Any]:
        """The seat as the store keeps it (token included: the store is trusted)."""
        return {"token": self.token, "name": self.name, "bot": self.bot,
                "grace_until": self.grace_until, "assisted": self.assisted}


@dataclass
class _Member:
    """A connection in the room and the last view it was sent (for deltas).

    Attributes:
        base: The broadcast that sent ``last`` (a token object), or None when ``last`` was
            built for this member alone (join, resume, ``get_view``). Members with the same
            base hold the same values under the keys every seat shares.
    """

    seat: int | None
    last: dict[str, Any] | None = None
    base: object | None = None

    def sent(self, view: dict[str, Any] | None, base: object | None = None) -> None:
        """Record ``view`` as the last one sent to the member (None: send a full view next)."""
        self.last, self.base = view, base


class _Fanout:
    """The update frames of one broadcast, member by member.

    A member's delta is the change under the keys every seat shares (the same for all
    members whose last view came from the same broadcast: computed once per such group)
    plus the change under its own keys (``Game.PER_SEAT_VIEW_KEYS``); an engine that does not
    declare its per-seat keys has every view diffed whole. Diffs share a memo too.
    """

    def __init__(self, parts: tuple[bytes, bytes], per_seat: frozenset[str] | None,
                 sample: dict[str, Any]) -> None:
        self.parts = parts
        self.token = object()  # this broadcast, as the members' next ``base``
        self.memo: dict[Any, Any] = {}
        self.shared_deltas: dict[object, dict[str, Any]] = {}
        self.own = per_seat
        self.shared = None if per_seat is None else [k for k in sample if k not in per_seat]

    def frame(self, member: _Member, views: dict[int | None, dict[str, Any]]) -> bytes:
        """``member``'s frame (its full view the first time, else a delta from the last
        view it was sent); that view becomes its last."""
        view = views[member.seat]
        last, base = member.last, member.base
        if last is None:
            frame = p.update_frame(self.parts, view=view)
        elif self.shared is None or base is None:
            frame = p.update_frame(self.parts, delta=p.diff(last, view, self.memo))
        else:
            shared = self.shared_deltas.get(base)
            if shared is None:
                shared = self.shared_deltas[base] = p.diff(last, view, self.memo, self.shared)
            own = p.diff(last, view, self.memo, self.own)
            frame = p.update_frame(self.parts, delta={**shared, **own} if own else shared)
        member.sent(view, self.token)
        return frame


class RoomViews:
    """The views and broadcasts of a :class:`~cardhall.server.room.Room` (a base class of
    it, so that its state stays in one place; these methods run inside the room task)."""

    __slots__ = ()

    if TYPE_CHECKING:
        id: str
        status: str
        game_name: str
        options: dict[str, Any]
        game: Game | None
        game_cls: type[Game]
        seats: list[Seat | None]
        deadlines: dict[int, float]
        members: dict[Connection, _Member]
        commitment: str | None
        _table: dict[str, Any] | None

        @property
        def state_id(self) -> int: ...

        def _engine(self) -> Game: ...

        def _game_over(self) -> p.GameOver: ...

    def table(self) -> dict[str, Any]:
        """Server facts added to every view under ``"room"``: id, game name, mode (nil: the
        game's default), status, players, deadlines (``[[seat, unix time in s], ...]``), the
        deal ``commitment`` (nil until the game starts). While they do not change, the same
        dict object as last time (the delta diff then skips it by identity; do not mutate
        it)."""
        table = {"id": self.id, "game": self.game_name, "mode": self.options.get("mode"),
                 "status": self.status,
                 "players": [None if h is None else h.public(s)
                             for s, h in enumerate(self.seats)],
                 "deadlines": [[s, t] for s, t in sorted(self.deadlines.items())],
                 "commitment": None if self.status == "waiting" else self.commitment}
        if table == self._table:
            return self._table
        self._table = table
        return table

    def views_for(self, seats: set[int | None],
                  table: dict[str, Any] | None = None) -> dict[int | None, dict[str, Any]]:
        """The engine views of ``seats`` (built together) plus the room facts under
        ``"room"`` (``table``: :meth:`table`, when the caller has it already); no legal
        actions before the game starts."""
        views = self._engine().views(seats)
        if table is None:
            table = self.table()
        for view in views.values():
            if self.status != "playing":
                view["legal_actions"] = []
            view["room"] = table
        return views

    def view_for(self, seat: int | None) -> dict[str, Any]:
        """:meth:`views_for` of one seat."""
        return self.views_for({seat})[seat]

    def full_view(self, conn: Connection, re: Any = None) -> None:
        """Send ``conn`` its full view now (join, resume, get_view)."""
        member = self.members.get(conn)
        if member is None:
            return
        view = self.view_for(member.seat)
        member.sent(view)
        conn.send(p.Update(room=self.id, state_id=self.state_id, view=view, events=[],
                           re=re))

    def resend(self, conn: Connection) -> None:
        """Send member ``conn`` what it may have missed after frames to it were lost (its
        process's inbox was unreachable): its full view and, once the game is over, the
        ``game_over`` again (a client that missed it would wait for it for ever)."""
        if conn not in self.members:
            return
        self.full_view(conn)
        if self.status == "finished":
            conn.send(self._game_over())

    def send_joined(self, conn: Connection, re: Any, token: str | None = None) -> None:
        """Send member ``conn`` its ``joined`` reply with its full view (recorded as its last
        view, for deltas): after a join, resume or spectate; in a finished room, the
        ``game_over`` after it (a player who resumes after the end, say its server was
        killed meanwhile, would otherwise wait for it for ever). ``token`` goes only to the
        seat's own player."""
        member = self.members[conn]
        view = self.view_for(member.seat)
        member.sent(view)
        conn.send(p.Joined(room=self.id, seat=member.seat, token=token, view=view, re=re))
        if self.status == "finished":
            conn.send(self._game_over())

    def _broadcast(self, events: list[dict[str, Any]], first: Connection | None = None,
                   lead: bytes | None = None) -> None:
        """Send every member its update: the full view the first time, then a delta.

        ``first`` (the member whose action this is) is served before anyone else, its
        encoded ``lead`` frame (the ``ok`` of its ``act``) just ahead of its update and in
        the same write, since its player waits on both. Its delta comes from the engine
        (:meth:`Game.seat_delta`: no view built, nothing diffed) when the engine reports
        one; else only its view is built before its frame leaves. The other views are built
        after that, sharing the public part (engines cache it per state), and the parts of
        the frame common to everyone are packed once.
        """
        members = self.members
        leader = members.get(first) if first is not None else None
        if first is not None and lead is not None and leader is None:
            first.send_raw(lead)
        if not members:
            return
        table = self.table()
        parts = p.update_parts(self.id, self.state_id, events)
        ahead = () if lead is None else (lead,)  # written with the leader's update
        delta = None if leader is None else self._reported_delta(leader, table)
        if delta is not None:
            assert first is not None
            first.send_raw(*ahead, p.update_frame(parts, delta=delta))
        if leader is None or delta is not None:
            views = self.views_for({m.seat for m in members.values()}, table)
        else:
            views = self.views_for({leader.seat}, table)
        fan = _Fanout(parts, self.game_cls.PER_SEAT_VIEW_KEYS, next(iter(views.values())))
        if leader is not None:
            assert first is not None
            if delta is not None:  # the seat has what its view holds now, as the others will
                leader.sent(views[leader.seat], fan.token)
            else:
                first.send_raw(*ahead, fan.frame(leader, views))
                others = {m.seat for c, m in members.items() if c is not first} - views.keys()
                if others:
                    views.update(self.views_for(others, table))
        for conn, member in members.items():
            if conn is not first:
                conn.send_raw(fan.frame(member, views))

    def _reported_delta(self, member: _Member, table: dict[str, Any]) -> dict[str, Any] | None:
        """``member``'s delta from its last view to now as the engine reports it
        (:meth:`Game.seat_delta`), with the change of the room facts (``table``); None when
        the engine cannot tell (then the view is built and diffed)."""
        last = member.last
        if last is None or member.seat is None or self.status != "playing":
            return None
        delta = self.game.seat_delta(member.seat, last)
        if delta is None:
            return None
        if table is not last.get("room"):
            delta.update(p.diff(last, {"room": table}))
        return delta

    def _seat_event(self, seat: int, event: str) -> None:
        frame = p.SeatEvent(room=self.id, seat=seat, event=event)
        for conn in self.members:
            conn.send(frame)
