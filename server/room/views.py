"""What a room sends its members: views, full or as deltas, one broadcast at a time.

:class:`~.room_parts.Peer` is what a room needs of a member (a local connection or a
forwarded client) and :class:`~.room_parts.Seat` a taken seat (shown to everyone in the room
facts of every view; both re-exported here); :class:`RoomViews` holds the
:class:`~cardhall.server.room.Room` methods that build views and send them (join, resume,
``get_view``, and the update of every accepted action);
:class:`_Fanout` builds one broadcast's frames, member by member, sharing the deltas of
members whose last view came from the same broadcast.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mypy_extensions import trait

from ... import protocol as p
from .rules import Phase
from .parts import Member as Member  # re-exported
from .parts import Peer as Peer  # re-exported
from .parts import CHECK_FACTS, RoomParts
from .parts import Seat as Seat  # re-exported

WAITING, PLAYING, FINISHED = Phase.WAITING, Phase.PLAYING, Phase.FINISHED

#: Spectators named in the room facts (``room.spectators.names``); the count says the rest.
SPECTATOR_NAMES = 20


#: Spectators of one room above which a broadcast hands their frames to
#: :meth:`Peer.send_later` (written a batch of connections per loop iteration) instead of
#: writing them all before the room's next work item (issue #35: with 1,000 spectators a
#: broadcast held the loop ~25 ms, and the players' actions waited behind it).
LATER_SPECTATORS = 32


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


@trait
class RoomViews(RoomParts):
    """The views and broadcasts of a :class:`~cardhall.server.room.Room` (a base class of
    it, so that its state stays in one place; these methods run inside the room task)."""

    __slots__ = tuple[str, ...]()

    def table(self) -> dict[str, Any]:
        """Server facts added to every view under ``"room"``: id, game name, mode (nil: the
        game's default), status, players, deadlines (``[[seat, unix time in s], ...]``), the
        deal ``commitment`` (nil until the game starts), ``spectators`` (``{count, names}``:
        the first :data:`SPECTATOR_NAMES` names). While they do not change, the same dict
        object as last time (the delta diff then skips it by identity; do not mutate it):
        rebuilt only when :meth:`facts_key` or the spectators' names changed."""
        watching = [c.name for c, m in self.members.items() if m.seat is None]
        key = (self.facts_key(), watching)
        cached = self._table
        if cached is not None and key == self._table_key and not CHECK_FACTS:
            return cached
        table = {"id": self.id, "game": self.game_name, "mode": self.options.get("mode"),
                 "status": self.stored_status,
                 "players": [None if h is None else h.public(s)
                             for s, h in enumerate(self.seats)],
                 "deadlines": [[s, t] for s, t in sorted(self.deadlines.items())],
                 "commitment": None if self.game_phase is WAITING else self.commitment,
                 "spectators": {"count": len(watching),
                                "names": [n[:64] for n in watching[:SPECTATOR_NAMES]]}}
        if cached is not None and table == cached:
            self._table_key = key
            return cached
        if CHECK_FACTS and key == self._table_key:
            raise RuntimeError(f"room {self.id}: stale cached room facts: a seat or member "
                               "changed without seats_touched()")
        self._table, self._table_key = table, key
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
        held = self.seats[seat] if 0 <= seat < len(self.seats) else None
        name = held.name[:64] if held is not None and held.name else None
        frame = p.SeatEvent(room=self.id, seat=seat, event=event, name=name)
        for conn in self.members:
            conn.send(frame)
