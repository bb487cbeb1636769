"""What a room sends its members: views, full or as deltas, one broadcast at a time.

:class:`Peer` is what a room needs of a member (a local connection or a forwarded client) and
:class:`Seat` a taken seat (shown to everyone in the room facts of every view);
:class:`RoomViews` holds the :class:`~cardhall.server.room.Room` methods that build views
and send them (join, resume, ``get_view``, and the update of every accepted action);
:class:`_Fanout` builds one broadcast's frames, member by member, sharing the deltas of
members whose last view came from the same broadcast.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from .. import protocol as p
from ..games import Game
from .table import Phase

WAITING, PLAYING, FINISHED = Phase.WAITING, Phase.PLAYING, Phase.FINISHED

#: Spectators named in the room facts (``room.spectators.names``); the count says the rest.
SPECTATOR_NAMES = 20


class Peer(Protocol):
    """What a room needs of a member: a local connection or a client forwarded from another
    process (both are :class:`~cardhall.server.session.Session`; declared here so the room
    does not import the layers above it).

    Attributes: ``session_id`` (the peer's random session id), ``process`` (id of the server
    process the client is connected to), ``account`` (the id of the account it is signed in
    to, ``""`` for none), ``name`` (that account's display name), ``rooms`` (rooms of this
    process it is in, by id), ``remote_rooms`` (ids of rooms owned by other processes) and
    ``act_reply`` (its hello's: ``"ok"``, or ``"update"`` when its accepted actions are
    answered by its update alone, carrying the act's id).
    """

    session_id: str
    process: str
    account: str
    name: str
    rooms: dict[str, Any]  # the Room objects it is in, by id (room sits above this module)
    remote_rooms: set[str]
    act_reply: str  # hello.act_reply: "ok" or "update" (the act's id on its update)

    def send(self, msg: p.Message) -> None:
        """Queue ``msg`` for the peer without waiting."""

    def send_raw(self, *frames: bytes) -> None:
        """Queue encoded frames for the peer, in order, without waiting."""

    def send_later(self, frame: bytes) -> None:
        """Queue an encoded frame for the peer, in order with every other, to be written
        within a few loop iterations rather than now (a broadcast to many spectators: the
        players' frames and requests go first)."""

    def send_error(self, code: str, message: str, re: Any = None) -> None:
        """Queue an error reply (``code`` as in protocol/README.md) for the peer."""


#: Spectators of one room above which a broadcast hands their frames to
#: :meth:`Peer.send_later` (written a batch of connections per loop iteration) instead of
#: writing them all before the room's next work item (issue #35: with 1,000 spectators a
#: broadcast held the loop ~25 ms, and the players' actions waited behind it).
LATER_SPECTATORS = 32


@dataclass
class Seat:
    """A taken seat.

    Attributes:
        token: The secret that lets its player resume it (never shown to anyone else).
        conn: The connection playing it, or None (dropped, or played by a server bot).
        name: Display name (the player's account's, when the seat was taken).
        bot: True once a server-side bot plays the seat.
        assisted: True once a server-side bot has played the seat, even if its player took
            it back (such a seat's game is not ranked: :mod:`.leaderboard`); bot seats too.
        grace_until: ``time.time()`` deadline of a dropped seat's grace window, or None.
        host: True for the seat of the room's host: whoever holds it (the host after a
            reconnection, which gives it a new session) may start the room. The seat the
            creator took, or the one the host role was handed to (:meth:`Room.join`,
            :meth:`Room._free_seat`).
        since: ``time.time()`` when the seat was taken (the longest-seated person becomes
            the host of a waiting room whose host left); 0.0 when not known.
        account: The id of the account that holds the seat (``""``: an anonymous guest's,
            or a server bot's): it may resume the seat without the token, from any
            connection signed in to it.
    """

    token: str
    conn: Peer | None
    name: str
    bot: bool = False
    grace_until: float | None = None
    assisted: bool = False
    host: bool = False
    since: float = 0.0
    account: str = ""

    def __post_init__(self) -> None:
        self.assisted = self.assisted or self.bot

    def public(self, seat: int) -> dict[str, Any]:
        """What everyone may know of the seat."""
        return {"seat": seat, "name": self.name, "connected": self.conn is not None,
                "bot": self.bot, "host": self.host}

    def stored(self) -> dict[str, Any]:
        """The seat as the store keeps it (token included: the store is trusted)."""
        return {"token": self.token, "name": self.name, "bot": self.bot,
                "grace_until": self.grace_until, "assisted": self.assisted, "host": self.host,
                "since": self.since, "account": self.account}


@dataclass
class Member:
    """A connection in the room and what it was last sent (for deltas).

    Attributes:
        last: The last full or diffed view it was sent, or None (a delta from the engine
            went out since, or nothing yet): the base of a diffed delta.
        base: The broadcast that sent ``last`` (a token object), or None when ``last`` was
            built for this member alone (join, resume, ``get_view``). Members with the same
            base hold the same values under the keys every seat shares.
        sid: The state id of the view the member holds now, or None (send a full view).
        table: The room facts (``"room"``) the member holds now (the very object).
    """

    seat: int | None
    last: dict[str, Any] | None = None
    base: object | None = None
    sid: int | None = None
    table: dict[str, Any] | None = None

    def sent(self, view: dict[str, Any] | None, base: object | None = None) -> None:
        """Record ``view`` as the last one sent to the member (None: send a full view next)."""
        self.last, self.base = view, base
        if view is None:
            self.sid = self.table = None
        else:
            self.sid, self.table = view["state_id"], view.get("room")


class _Fanout:
    """The update frames of one broadcast, member by member.

    A member's delta is the change under the keys every seat shares (the same for all
    members whose last view came from the same broadcast: computed once per such group)
    plus the change under its own keys (``GameType.per_seat_view_keys``); an engine that does not
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

    def frame(self, member: Member, views: dict[int | None, dict[str, Any]],
              re: Any = None) -> bytes:
        """``member``'s frame (its full view the first time, else a delta from the last
        view it was sent; ``re``: the id of the request it answers); that view becomes its
        last."""
        view = views[member.seat]
        last, base = member.last, member.base
        if last is None:
            frame = p.update_frame(self.parts, view=view, re=re)
        elif self.shared is None or base is None:
            frame = p.update_frame(self.parts, delta=p.diff(last, view, self.memo), re=re)
        else:
            shared = self.shared_deltas.get(base)
            if shared is None:
                shared = self.shared_deltas[base] = p.diff(last, view, self.memo, self.shared)
            own = p.diff(last, view, self.memo, self.own)
            frame = p.update_frame(self.parts, delta={**shared, **own} if own else shared,
                                   re=re)
        member.sent(view, self.token)
        return frame


class RoomViews:
    """The views and broadcasts of a :class:`~cardhall.server.room.Room` (a base class of
    it, so that its state stays in one place; these methods run inside the room task)."""

    # Room's slots, declared below for mypy: an assignment to one is taken for one to a
    # missing slot (python/mypy#21794), hence the `type: ignore[misc]` on those lines.
    __slots__ = ()

    if TYPE_CHECKING:
        id: str
        phase: Phase
        game_phase: Phase
        stored_status: str
        game_name: str
        options: dict[str, Any]
        game: Game | None
        game_cls: type[Game]
        seats: list[Seat | None]
        deadlines: dict[int, float]
        members: dict[Peer, Member]
        @property
        def commitment(self) -> str | None: ...

        _table: dict[str, Any] | None

        @property
        def state_id(self) -> int: ...

        def _engine(self) -> Game: ...

        def _game_over(self) -> p.GameOver: ...

        def lease_current(self) -> bool: ...
        def send_chat_history(self, conn: Peer) -> None: ...

    def table(self) -> dict[str, Any]:
        """Server facts added to every view under ``"room"``: id, game name, mode (nil: the
        game's default), status, players, deadlines (``[[seat, unix time in s], ...]``), the
        deal ``commitment`` (nil until the game starts), ``spectators`` (``{count, names}``:
        the first :data:`SPECTATOR_NAMES` names). While they do not change, the same dict
        object as last time (the delta diff then skips it by identity; do not mutate it)."""
        watching = [c.name for c, m in self.members.items() if m.seat is None]
        table = {"id": self.id, "game": self.game_name, "mode": self.options.get("mode"),
                 "status": self.stored_status,
                 "players": [None if h is None else h.public(s)
                             for s, h in enumerate(self.seats)],
                 "deadlines": [[s, t] for s, t in sorted(self.deadlines.items())],
                 "commitment": None if self.game_phase is WAITING else self.commitment,
                 "spectators": {"count": len(watching),
                                "names": [n[:64] for n in watching[:SPECTATOR_NAMES]]}}
        if table == self._table:
            return self._table
        self._table = table  # type: ignore[misc]  # mypy#21794
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
            if self.game_phase is not PLAYING:
                view["legal_actions"] = []
            view["room"] = table
        return views

    def view_for(self, seat: int | None) -> dict[str, Any]:
        """:meth:`views_for` of one seat."""
        return self.views_for({seat})[seat]

    def full_view(self, conn: Peer, re: Any = None) -> None:
        """Send ``conn`` its full view now (join, resume, get_view)."""
        member = self.members.get(conn)
        if member is None:
            return
        view = self.view_for(member.seat)
        member.sent(view)
        conn.send(p.Update(room=self.id, state_id=self.state_id, view=view, events=[],
                           re=re))

    def resend(self, conn: Peer) -> None:
        """Send member ``conn`` what it may have missed after frames to it were lost (its
        process's inbox was unreachable): its full view and, once the game is over, the
        ``game_over`` again (a client that missed it would wait for it for ever). Nothing
        while the room's lease is not confirmed current (its renewal resends it all)."""
        if conn not in self.members or not self.lease_current():
            return
        self.full_view(conn)
        if self.game_phase is FINISHED:
            conn.send(self._game_over())

    def send_joined(self, conn: Peer, re: Any, token: str | None = None,
                    view: dict[str, Any] | None = None) -> None:
        """Send member ``conn`` its ``joined`` reply with its full view (recorded as its last
        view, for deltas): after a join, resume or spectate; in a finished room, the
        ``game_over`` after it (a player who resumes after the end, say its server was
        killed meanwhile, would otherwise wait for it for ever). ``token`` goes only to the
        seat's own player. Then the room's recent chat lines (:mod:`.chat`). ``view``: the
        view to send, built earlier (the room as the player joined it, when its join starts
        the game); None: the view now."""
        member = self.members[conn]
        if view is None:
            view = self.view_for(member.seat)
        member.sent(view)
        conn.send(p.Joined(room=self.id, seat=member.seat, token=token, view=view, re=re))
        if self.game_phase is FINISHED:
            conn.send(self._game_over())
        self.send_chat_history(conn)

    def _broadcast(self, events: list[dict[str, Any]], first: Peer | None = None,
                   lead: bytes | None = None, re: Any = None) -> None:
        """Send every member its update: the full view the first time, then a delta.

        ``first`` (the member whose action this is) is served before anyone else, its
        encoded ``lead`` frame (the ``ok`` of its ``act``) just ahead of its update and in
        the same write, since its player waits on both; or, with ``re`` (the id of its
        ``act``, for a peer whose ``act_reply`` is ``"update"``), its update carries ``re``
        and is the reply (an ``ok`` when it is not a member). The deltas come from the engine
        (:meth:`Game.deltas`: no view built, nothing diffed; members whose deltas are equal
        share one frame, packed once) when it reports them; else views are built and
        diffed (:meth:`_broadcast_diffed`). A member not at the state before this one gets
        its full view.
        """
        if not self.lease_current():
            return  # withheld: another process may run the room now (Room.lease_current)
        members = self.members
        leader = members.get(first) if first is not None else None
        if first is not None and leader is None:
            if lead is not None:
                first.send_raw(lead)
            elif re is not None:
                first.send_raw(p.ok_frame(re))
        if not members:
            return
        table = self.table()
        parts = p.update_parts(self.id, self.state_id, events)
        deltas = None
        if self.phase is not WAITING and self.game is not None:
            deltas = self.game.deltas({m.seat for m in members.values()})
        if deltas is None:
            self._broadcast_diffed(parts, table, first, leader, lead, re)
            return
        sid = self.state_id
        frames: dict[tuple[int, int], bytes] = {}  # (id(delta), id(old table)) -> frame
        changes: dict[int, dict[str, Any]] = {}  # id(old table) -> its change to ``table``

        def frame_of(member: Member, re: Any = None) -> bytes | None:
            old = member.table
            if member.sid != sid - 1 or old is None:
                return None
            delta = deltas[member.seat]
            key = (id(delta), id(old))
            frame = frames.get(key) if re is None else None
            if frame is None:
                if old is not table:
                    change = changes.get(id(old))
                    if change is None:
                        change = changes[id(old)] = p.diff({"room": old}, {"room": table})
                    delta = {**delta, **change}
                frame = p.update_frame(parts, delta=delta, re=re)
                if re is None:
                    frames[key] = frame
            member.last, member.base, member.sid, member.table = None, None, sid, table
            return frame

        self._send_deltas(frame_of, parts, table, first, leader,
                          () if lead is None else (lead,), re)

    def _send_deltas(self, frame_of: Callable[..., bytes | None], parts: tuple[bytes, bytes],
                     table: dict[str, Any], first: Peer | None, leader: Member | None,
                     ahead: tuple[bytes, ...], re: Any) -> None:
        """Send every member its frame of a broadcast of the engine's deltas (``frame_of``
        makes a member's, or returns None when it needs its full view): ``first``'s (its
        member ``leader``) ahead of everyone's, after its ``ahead`` frame and carrying
        ``re``; a member not at the state before gets its full view; the spectators of a
        crowd get theirs later (:data:`LATER_SPECTATORS`)."""
        members = self.members
        full: list[tuple[Peer, Member]] = []
        if leader is not None:
            assert first is not None
            frame = frame_of(leader, re)
            if frame is None:
                full.append((first, leader))
            else:
                first.send_raw(*ahead, frame)
        outgoing: list[tuple[Peer, bytes]] = []
        later: list[tuple[Peer, bytes]] = []
        crowd = len(members) - len(self.seats) > LATER_SPECTATORS
        for conn, member in members.items():
            if conn is first:
                continue
            frame = frame_of(member)
            if frame is None:
                full.append((conn, member))
            else:
                (later if crowd and member.seat is None else outgoing).append((conn, frame))
        if full:
            views = self.views_for({m.seat for _, m in full}, table)
            for conn, member in full:
                view = views[member.seat]
                member.sent(view)
                frame = p.update_frame(parts, view=view, re=re if conn is first else None)
                if conn is first:
                    first.send_raw(*ahead, frame)
                else:
                    outgoing.append((conn, frame))
        for conn, frame in outgoing:
            conn.send_raw(frame)
        for conn, frame in later:  # the spectators' (one frame packed for all): after
            conn.send_later(frame)

    def _broadcast_diffed(self, parts: tuple[bytes, bytes], table: dict[str, Any],
                          first: Peer | None, leader: Member | None,
                          lead: bytes | None, re: Any) -> None:
        """:meth:`_broadcast` for an engine that does not report its deltas (or cannot
        now): every member's view built (the public part shared: engines cache it per
        state), each diffed against the last view it was sent (its full view the first
        time); the leader's first."""
        members = self.members
        ahead = () if lead is None else (lead,)
        if leader is None:
            views = self.views_for({m.seat for m in members.values()}, table)
        else:
            views = self.views_for({leader.seat}, table)
        fan = _Fanout(parts, self.game_cls.TYPE.per_seat_view_keys,
                      next(iter(views.values())))
        if leader is not None:
            assert first is not None
            first.send_raw(*ahead, fan.frame(leader, views, re))
            others = {m.seat for c, m in members.items() if c is not first} - views.keys()
            if others:
                views.update(self.views_for(others, table))
        for conn, member in members.items():
            if conn is not first:
                conn.send_raw(fan.frame(member, views))

    def facts_changed(self) -> None:
        """Send the room facts (:meth:`table`) to every member that holds the current state
        but older facts, as an ``update`` keeping the ``state_id`` with the delta
        ``{"room": facts}`` (one frame for all): after a change no action brings, such as a
        spectator coming or going. Members without a current view get it with their next
        full view or update anyway."""
        table = self.table()
        sid = self.state_id
        frame = None
        for conn, member in self.members.items():
            if member.sid != sid or member.table is table:
                continue
            if frame is None:
                frame = p.update_frame(p.update_parts(self.id, sid, []), delta={"room": table})
            member.table = table
            conn.send_raw(frame)

    def _seat_event(self, seat: int, event: str) -> None:
        frame = p.SeatEvent(room=self.id, seat=seat, event=event)
        for conn in self.members:
            conn.send(frame)
