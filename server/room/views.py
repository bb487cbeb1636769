"""What a room sends its members: every member's update, one fan-out call per broadcast
(after boardgame.io's ``sendAll(playerID => data)``): :func:`send_all`, and the room
facts after a change no action brings (:func:`facts_changed`). Plain functions over a
:class:`~.table.Table` (its members, their :class:`~.seats.Member` records of what each
was last sent, its views and facts); the driver calls them for the table's
:class:`~.outputs.Fanout` outputs and fences them by its lease.

:class:`_Fanout` builds one broadcast's frames, member by member, sharing the deltas of
members whose last view came from the same broadcast.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ... import protocol as p
from ...games.base import SplitDeltas
from ..phases import Phase
from .outputs import Fanout
from .seats import Member as Member  # re-exported
from .seats import Peer as Peer  # re-exported
from .seats import Seat as Seat  # re-exported
from .table import Table

WAITING = Phase.WAITING

#: Spectators of one room above which a broadcast hands their frames to
#: :meth:`Peer.send_later` (written a batch of connections per loop iteration) instead of
#: writing them all before the room's next work item (issue #35: with 1,000 spectators a
#: broadcast held the loop ~25 ms, and the players' actions waited behind it).
LATER_SPECTATORS = 32
_UNPACKED: Any = object()  # a wire version whose shared part is not packed yet


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
            frame = p.update_frame(self.parts, delta=p.diff(last, view, self.memo), re=re,
                                   v=member.wire)
        else:
            shared = self.shared_deltas.get(base)
            if shared is None:
                shared = self.shared_deltas[base] = p.diff(last, view, self.memo, self.shared)
            own = p.diff(last, view, self.memo, self.own)
            frame = p.update_frame(self.parts, delta={**shared, **own} if own else shared,
                                   re=re, v=member.wire)
        member.sent(view, self.token)
        return frame


def send_all(t: Table, out: Fanout) -> None:
    """Send every member of ``t`` its update after ``out.events``: the full view the first
    time, then a delta.

    ``out.first`` (the member whose action this is) is served before anyone else, its
    encoded ``out.lead`` frame (the ``ok`` of its ``act``) just ahead of its update and in
    the same write; or, with ``out.re`` (for a peer whose ``act_reply`` is ``"update"``),
    its update carries ``re`` and is the reply (an ``ok`` when it is not a member). The
    deltas come from the engine (:meth:`Game.deltas`: no view built, nothing diffed;
    members whose deltas are equal share one frame, packed once) when it reports them;
    else views are built and diffed (:func:`_send_diffed`). A member not at the state
    before this one gets its full view.
    """
    first, lead, re = out.first, out.lead, out.re
    members = t.members
    leader = members.get(first) if first is not None else None
    if first is not None and leader is None:
        if lead is not None:
            first.send_raw(lead)
        elif re is not None:
            first.send_raw(p.ok_frame(re))
    if not members:
        return
    facts = t.facts()
    parts = p.update_parts(t.id, t.state_id, out.events)
    deltas = None
    if t.phase is not WAITING and t.game is not None:
        deltas = t.game.deltas({m.seat for m in members.values()})
    if deltas is None:
        _send_diffed(t, parts, facts, first, leader, lead, re)
        return
    fan = _DeltaFrames(parts, t.state_id, deltas, facts)
    _send_deltas(t, fan, parts, facts, first, leader, () if lead is None else (lead,), re)


class _DeltaFrames:
    """The update frames of one broadcast of the engine's deltas (:meth:`Game.deltas`),
    member by member: a member's delta plus the change of the room facts since those it
    was last sent (diffed and packed once per such older facts); members with the same
    delta object, older facts and protocol version share one frame, packed once. When the
    engine hands its deltas out in parts (:class:`~cardhall.games.base.SplitDeltas`), the
    part every seat shares is packed once per protocol version and each member's own part
    appended to it: the key of members sharing a frame is then their own part's object."""

    __slots__ = ("changes", "deltas", "facts", "frames", "parts", "shared", "sid", "split")

    def __init__(self, parts: tuple[bytes, bytes], sid: int,
                 deltas: Mapping[int | None, dict[str, Any]], facts: dict[str, Any]) -> None:
        self.parts = parts
        self.sid = sid
        self.deltas = deltas
        self.split = deltas if isinstance(deltas, SplitDeltas) else None
        self.facts = facts
        # (id(delta) or id(own part) (0: none), id(old facts), wire) -> frame
        self.frames: dict[tuple[int, int, int], bytes] = {}
        # id(old facts) -> its change to ``facts`` and that packed (p.packed_pairs)
        self.changes: dict[int, tuple[dict[str, Any], bytes]] = {}
        # wire -> the shared part's p.delta_pairs for that protocol version
        self.shared: dict[int, tuple[int, bytes] | None] = {}

    def frame(self, member: Member, re: Any = None) -> bytes | None:
        """``member``'s frame (``re``: the id of the request it answers), now its last
        state and facts; None when it needs its full view (not at the state before)."""
        old = member.table
        sid = self.sid
        if member.sid != sid - 1 or old is None:
            return None
        split = self.split
        own: dict[str, Any] | None = None
        if split is not None:
            own = split.own(member.seat)
            key = (0 if own is None else id(own), id(old), member.wire)
        else:
            key = (id(self.deltas[member.seat]), id(old), member.wire)
        frame = self.frames.get(key) if re is None else None
        if frame is None:
            change = None
            if old is not self.facts:
                change = self.changes.get(id(old))
                if change is None:
                    diff = p.diff_value("room", old, self.facts)
                    change = self.changes[id(old)] = (diff, p.packed_pairs(diff))
            frame = None if split is None else self._split_frame(split, own, change,
                                                                 member.wire, re)
            if frame is None:
                frame = p.delta_frame(self.parts, self.deltas[member.seat],
                                      None if change is None else change[0],
                                      b"" if change is None else change[1], re, member.wire)
            if re is None:
                self.frames[key] = frame
        member.last, member.base, member.sid, member.table = None, None, sid, self.facts
        return frame

    def _split_frame(self, split: SplitDeltas, own: dict[str, Any] | None,
                     change: tuple[dict[str, Any], bytes] | None, wire: int,
                     re: Any) -> bytes | None:
        """The frame of the shared part (packed once per ``wire``) plus ``own`` (a
        member's own part, or None) and the facts' ``change``, or None when a packed
        part cannot be reused (see :func:`~cardhall.protocol.delta_pairs`) or the
        change's keys are another part's: then :func:`~cardhall.protocol.delta_frame`."""
        shared = self.shared.get(wire, _UNPACKED)
        if shared is _UNPACKED:
            shared = self.shared[wire] = p.delta_pairs(split.shared, wire)
        if shared is None:
            return None
        count, mine = shared[0], b""
        if own is not None:
            count += len(own)
            mine = p.packed_pairs(own)
        if change is None:
            return p.pairs_frame(self.parts, count, shared[1], mine, b"", re)
        for k in change[0]:
            if k in split.shared or (own is not None and k in own):
                return None
        return p.pairs_frame(self.parts, count + len(change[0]), shared[1], mine, change[1],
                             re)


def _send_deltas(t: Table, fan: _DeltaFrames, parts: tuple[bytes, bytes],
                 facts: dict[str, Any], first: Peer | None, leader: Member | None,
                 ahead: tuple[bytes, ...], re: Any) -> None:
    """Send every member its frame of a broadcast of the engine's deltas (``fan`` makes a
    member's, or returns None when it needs its full view): ``first``'s (its
    member ``leader``) ahead of everyone's, after its ``ahead`` frame and carrying
    ``re``; a member not at the state before gets its full view; the spectators of a
    crowd get theirs later (:data:`LATER_SPECTATORS`)."""
    members = t.members
    full: list[tuple[Peer, Member]] = []
    if leader is not None:
        assert first is not None
        frame = fan.frame(leader, re)
        if frame is None:
            full.append((first, leader))
        else:
            first.send_raw(*ahead, frame)
            first.push()  # the reply its sender waits for: before the others' are built
    outgoing: list[tuple[Peer, bytes]] = []
    later: list[tuple[Peer, bytes]] = []
    crowd = len(members) - len(t.seats) > LATER_SPECTATORS
    for conn, member in members.items():
        if conn is first:
            continue
        frame = fan.frame(member)
        if frame is None:
            full.append((conn, member))
        else:
            (later if crowd and member.seat is None else outgoing).append((conn, frame))
    if full:
        views = t.views_for({m.seat for _, m in full}, facts)
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


def _send_diffed(t: Table, parts: tuple[bytes, bytes], facts: dict[str, Any],
                 first: Peer | None, leader: Member | None, lead: bytes | None,
                 re: Any) -> None:
    """:func:`send_all` for an engine that does not report its deltas (or cannot now):
    every member's view built (the public part shared: engines cache it per state), each
    diffed against the last view it was sent (its full view the first time); the
    leader's first."""
    members = t.members
    ahead = () if lead is None else (lead,)
    if leader is None:
        views = t.views_for({m.seat for m in members.values()}, facts)
    else:
        views = t.views_for({leader.seat}, facts)
    fan = _Fanout(parts, t.game_cls.TYPE.per_seat_view_keys, next(iter(views.values())))
    if leader is not None:
        assert first is not None
        first.send_raw(*ahead, fan.frame(leader, views, re))
        first.push()
        others = {m.seat for c, m in members.items() if c is not first} - views.keys()
        if others:
            views.update(t.views_for(others, facts))
    for conn, member in members.items():
        if conn is not first:
            conn.send_raw(fan.frame(member, views))


def facts_changed(t: Table) -> None:
    """Send the room facts (:meth:`~.state.TableState.facts`) to every member that holds the
    current state but older facts, as an ``update`` keeping the ``state_id`` with the delta
    ``{"room": facts}`` (one frame for all): after a change no action brings, such as a
    spectator coming or going."""
    facts = t.facts()
    sid = t.state_id
    frame = None
    for conn, member in t.members.items():
        if member.sid != sid or member.table is facts:
            continue
        if frame is None:
            frame = p.update_frame(p.update_parts(t.id, sid, []), delta={"room": facts})
        member.table = facts
        conn.send_raw(frame)
