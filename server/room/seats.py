"""Who is in a room: its seats (:class:`Seat`, frozen values), its members (:class:`Peer`,
each with its :class:`Member` record of what it was last sent).

A seat never changes in place: the :class:`~.table.Table` puts a new value in its seat
(``dataclasses.replace``), and its seats are a tuple, so nothing outside the table changes
who sits where without the table knowing (and versioning it: :attr:`.table.Table.version`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from ... import protocol as p

__all__ = ["Member", "Peer", "Seat"]


class Peer(Protocol):
    """What a room needs of a member: a local connection or a client forwarded from another
    process (both are :class:`~cardhall.server.session.Session`; declared here so the room
    does not import the layers above it).

    Attributes: ``session_id`` (the peer's random id), ``process`` (id of the server process
    the client is connected to), ``account`` (the id of the account it is signed in to,
    ``""`` for none), ``name`` (that account's display name), ``rooms`` (rooms of this
    process it is in, by id), ``remote_rooms`` (ids of rooms owned by other processes) and
    ``act_reply`` (its hello's: ``"ok"``, or ``"update"`` when its accepted actions are
    answered by its update alone, carrying the act's id) and ``wire`` (its hello's ``v``:
    the protocol version its frames are made for).
    """

    session_id: str
    process: str
    account: str
    name: str
    rooms: dict[str, Any]  # the Room objects it is in, by id (room sits above this module)
    remote_rooms: set[str]
    act_reply: str  # hello.act_reply: "ok" or "update" (the act's id on its update)
    wire: int  # hello.v: 1, or 2 (deltas without "state_id")

    def send(self, msg: p.Message) -> None:
        """Queue ``msg`` for the peer without waiting."""

    def send_raw(self, *frames: bytes) -> None:
        """Queue encoded frames for the peer, in order, without waiting."""

    def send_later(self, frame: bytes) -> None:
        """Queue an encoded frame for the peer, in order with every other, to be written
        within a few loop iterations rather than now (a broadcast to many spectators: the
        players' frames and requests go first)."""

    def push(self) -> None:
        """Write what is queued for the peer now rather than at the end of this loop pass
        (the reply its request waits for, before the rest of a broadcast is built)."""

    def send_error(self, code: str, message: str, re: Any = None) -> None:
        """Queue an error reply (``code`` as in protocol/README.md) for the peer."""


@dataclass(frozen=True)
class Seat:
    """A taken seat (a value: the table replaces it, never changes it).

    Attributes:
        token: The secret that lets its player resume it (never shown to anyone else;
            ``""``: forfeited or kicked, it cannot be resumed).
        conn: The connection playing it, or None (dropped, or played by a server bot).
        name: Display name (the player's account's, when the seat was taken).
        bot: True once a server-side bot plays the seat.
        grace_until: ``time.time()`` deadline of a dropped seat's grace window, or None.
        assisted: True once a server-side bot has played the seat, even if its player took
            it back (such a seat's game is not ranked: :mod:`~cardhall.server.leaderboard`);
            bot seats too.
        host: True for the seat of the room's host: whoever holds it may start the room.
        since: ``time.time()`` when the seat was taken (the longest-seated person becomes
            the host of a waiting room whose host left); 0.0 when not known.
        account: The id of the account that holds the seat (``""``: an anonymous guest's,
            or a server bot's): it may resume the seat without the token.
        session_id: The session id of the connection that played it last (``""``: none since
            this process loaded the room), kept when that connection drops: a ``start``
            from that session takes the seat back first (:func:`~.rules.dropped_seat`).
            Not stored: a session does not outlive its process.
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
    session_id: str = ""

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
    """A connection in the room and what it was last sent (for deltas): the fan-out's
    bookkeeping (:mod:`.views`), not who is in the room (the table's members say that).

    Attributes:
        seat: The seat it plays, or None (a spectator).
        last: The last full or diffed view it was sent, or None (a delta from the engine
            went out since, or nothing yet): the base of a diffed delta.
        base: The broadcast that sent ``last`` (a token object), or None when ``last`` was
            built for this member alone (join, resume, ``get_view``).
        sid: The state id of the view the member holds now, or None (send a full view).
        table: The room facts (``"room"``) the member holds now (the very object).
        wire: The protocol version of the member's connection (``Peer.wire``): its deltas
            go without ``"state_id"`` from version 2 on.
    """

    seat: int | None
    last: dict[str, Any] | None = None
    base: object | None = None
    sid: int | None = None
    table: dict[str, Any] | None = None
    wire: int = 1

    def sent(self, view: dict[str, Any] | None, base: object | None = None) -> None:
        """Record ``view`` as the last one sent to the member (None: send a full view next)."""
        self.last, self.base = view, base
        if view is None:
            self.sid = self.table = None
        else:
            self.sid, self.table = view["state_id"], view.get("room")
