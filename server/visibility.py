"""Who may see which room: the one visibility rule every request goes through (issue #41),
and what asking about a room one may not see costs.

The rule:

* a **public** room: anyone may know it, watch it by id, and once it is finished read its
  log and replay (the deal is revealed by then);
* a **private** room: only its **members** may know it exists: the sessions seated in it or
  watching it (``session.rooms``), the session that created it (the host, before it sits
  down), and a session signed in to an account that holds one of its seats (its player on
  another device, or back after a reload: "My games" and its replays). It is entered by its
  join code (:func:`by_code`), never by id (:func:`enterable`);
* a **seat's own view** (a replay's): only its player: the member holding that seat, or a
  session signed in to the account that holds it (:func:`seat_view`).

Everyone else gets :func:`hidden`'s answer, ``room/not_found`` with ``no room 'ID'``: word for
word the answer about a room that does not exist (:meth:`Lobby.find`), so no request type
tells a private room from a missing one. The session's handlers (:mod:`.session`), the
replays (:mod:`.replay`), the games archive's reads (:mod:`.archive`: a finished game after
its room was removed), the lobby's listing and quick join (:func:`listed`), and the
requests forwarded from other processes (they run the same handlers) go through the
functions here.

Look-ups that fail (a missing or hidden room, a join code no room has) are counted per client
address (its key: :func:`~.limits.address_key`, IPv6 by network) and per account in a moving
window (``limits``, in the account store's storage: a Redis lobby's processes count
together): :class:`Lookups`. Beyond the limit every look-up, even of a room that exists, is
answered ``rate/limited`` until the window moves on (protocol/README.md, "Limits"; the
arithmetic of guessing a join code is in docs/operations.md). A ``resume`` is no look-up:
its seat token proves it, and a player behind a busy address must get its seat back.
"""

from __future__ import annotations

from collections.abc import Awaitable, Mapping, Sequence
from typing import Any, Protocol

from limits import RateLimitItem, parse
from limits.aio.storage import Storage
from limits.aio.strategies import MovingWindowRateLimiter

from .room import Room, RoomError
from .store.ports import StoreError

__all__ = ["HIDDEN", "LIMITED", "Held", "Lookups", "Seen", "Viewer", "by_code", "enterable",
           "hidden",
           "holds_seat", "listed", "member", "may_see", "refusal", "seat_view", "unknown_code",
           "visible"]

#: The code of the answer about a room one may not see (and about a missing one).
HIDDEN = "room/not_found"
#: The code of a look-up refused for too many failed ones.
LIMITED = "rate/limited"
#: Address keys that name no address (:class:`Lookups` counts nothing under them: one shared
#: budget would let one client exhaust every such client's).
_UNKNOWN = frozenset({"", "?"})


class Viewer(Protocol):
    """Who asks (a :class:`~.session.Session`): its ``session_id``, the ``account`` it is
    signed in to (``""``: none) and the rooms of this process it is seated in or watching,
    by id (``rooms``)."""

    session_id: str
    account: str

    @property
    def rooms(self) -> Mapping[str, Any]:  # read-only here: a session's dict of Rooms
        """Rooms of this process the session is in, by id."""


class Held(Protocol):
    """What the rule reads of a taken seat: the account holding it (``""``: none)."""

    @property
    def account(self) -> str:
        """The seat's account id."""


class Seen(Protocol):
    """What the rule reads of a room: a live :class:`~.room.Room`, or a finished game's
    archived record (:class:`~.archive.ArchivedGame`, issue #44), so both answer alike."""

    @property
    def id(self) -> str:
        """The room id."""

    @property
    def private(self) -> bool:
        """Whether the room is private."""

    @property
    def host(self) -> str:
        """The host's session id (``""``: none)."""

    @property
    def seats(self) -> Sequence[Held | None]:
        """The seats by number (None: free)."""

    @property
    def members(self) -> Mapping[Any, Any]:
        """The members (sessions seated or watching) and their :class:`~.room.seats.Member`
        (``seat``), by session."""


def hidden(room_id: str) -> RoomError:
    """The answer about a room the asker may not see, word for word the one about a room
    that does not exist: ``room/not_found``, ``no room 'ID'``."""
    return RoomError(HIDDEN, f"no room {room_id!r}")


def holds_seat(room: Seen, viewer: Viewer, seat: int | None = None) -> bool:
    """Whether ``viewer`` is signed in to the account that holds a seat of ``room`` (that
    ``seat``; None: any)."""
    account = viewer.account
    if not account:
        return False
    seats = room.seats if seat is None else room.seats[seat:seat + 1]
    return any(held is not None and held.account == account for held in seats)


def may_see(room: Seen, viewer: Viewer) -> bool:
    """Whether ``viewer`` may know that ``room`` exists (see the module's rule)."""
    return (not room.private or room.id in viewer.rooms
            or (bool(room.host) and room.host == viewer.session_id)
            or holds_seat(room, viewer))


def visible(rooms: Mapping[str, Room], viewer: Viewer, room_id: str) -> Room:
    """The room ``room_id`` of this process (``rooms``: the lobby's), when ``viewer`` may
    see it.

    Raises:
        RoomError: :func:`hidden` (no such room here, or a private room of others).
    """
    room = rooms.get(room_id)
    if room is None or not may_see(room.table, viewer):
        raise hidden(room_id)
    return room


def enterable(rooms: Mapping[str, Room], room_id: str) -> Room:
    """The room ``room_id`` when it may be entered by id (``join`` by id, ``spectate``):
    a public room; a private one is entered by its code only, even by its members.

    Raises:
        RoomError: :func:`hidden` (no such room here, or a private one).
    """
    room = rooms.get(room_id)
    if room is None or room.table.private:
        raise hidden(room_id)
    return room


def unknown_code() -> RoomError:
    """The answer to a ``join`` by a code no open room has: ``room/not_found``."""
    return RoomError(HIDDEN, "no open room has that join code")


def by_code(rooms: Mapping[str, Room], room_id: str | None) -> Room:
    """The room a join code named (``room_id``: what the store holds for the code, None
    for none): whoever holds the code may enter.

    Raises:
        RoomError: ``room/not_found`` (no open room has that join code: :func:`unknown_code`).
    """
    room = rooms.get(room_id) if room_id is not None else None
    if room is None:
        raise unknown_code()
    return room


def member(rooms: Mapping[str, Room], viewer: Viewer, room_id: str) -> Room:
    """The room ``room_id`` that ``viewer`` is in (seated or watching).

    Raises:
        RoomError: :func:`hidden` (no such room, or a private room of others),
            ``room/not_seated`` (a room the viewer may see but is not in).
    """
    room = viewer.rooms.get(room_id)
    if room is None:
        visible(rooms, viewer, room_id)
        raise RoomError("room/not_seated", f"you are not in room {room_id!r}")
    assert isinstance(room, Room)
    return room


def refusal(room: Room, viewer: Viewer, exc: RoomError) -> RoomError:
    """The answer to give for ``exc``, a refusal of ``viewer``'s ``resume`` of ``room``: a
    private room the viewer may not see answers a wrong token (``room/bad_token``) or a
    seat it does not hold (``room/not_seated``) as a missing room does."""
    if (exc.code in ("room/bad_token", "room/not_seated") and room.table.private
            and not may_see(room.table, viewer)):
        return hidden(room.id)
    return exc


def seat_view(room: Seen, viewer: Any, seat: int | None) -> None:
    """Check that ``viewer`` may see ``seat``'s own view of ``room`` (None: the public
    view, which whoever may see the room may see): the member holding that seat, or a
    session signed in to the account that holds it.

    Raises:
        RoomError: ``room/not_seated`` (the viewer does not hold that seat).
    """
    if seat is None:
        return
    held = room.members.get(viewer)
    if (held is None or held.seat != seat) and not holds_seat(room, viewer, seat):
        raise RoomError("room/not_seated", f"only the player of seat {seat} may see its "
                        "replay; ask without seat for the public view")


def listed(summary: Mapping[str, Any]) -> bool:
    """Whether a room's lobby summary may be listed to anyone (``list_rooms``,
    ``quick_join``): public rooms only (issue #35)."""
    return not summary.get("private")


class Lookups:
    """Failed look-ups of rooms, counted in moving windows (``limits``) per client address
    key and per account, in ``storage`` (a Redis lobby's processes share it).

    Args:
        storage: The ``limits`` storage (:meth:`AccountStore.limits_storage`).
        limit: Failed look-ups per address key and per account (``limits`` notation,
            ``"20/minute"``); None: no limit.

    Raises:
        ValueError: ``limit`` is not in ``limits`` notation.
    """

    def __init__(self, storage: Storage, limit: str | None) -> None:
        self.limiter = MovingWindowRateLimiter(storage)
        self.item: RateLimitItem | None = parse(limit) if limit else None

    async def _run(self, call: Awaitable[bool]) -> bool:
        try:
            return await call
        except Exception as exc:  # the storage's own errors (redis-py's, say)
            raise StoreError(f"look-up limits unavailable: {exc}") from None

    async def check(self, address: str, account: str) -> None:
        """Refuse a look-up when ``address`` (a key: :func:`~.limits.address_key`; ``"?"``:
        unknown, e.g. forwarded by a process of an older version, not counted) or
        ``account`` (``""``: none) is out of failed look-ups. Counts nothing.

        Raises:
            RoomError: ``rate/limited``.
            StoreError: the storage is unavailable.
        """
        item = self.item
        if item is None:
            return
        if address not in _UNKNOWN and not await self._run(
                self.limiter.test(item, "lookup", "addr", address)):
            who = "this address"
        elif account and not await self._run(self.limiter.test(item, "lookup", "acct",
                                                               account)):
            who = "this account"
        else:
            return
        raise RoomError(LIMITED, f"too many look-ups of rooms or join codes that do not "
                        f"exist from {who} (at most {item.amount} per {item.get_expiry()} s):"
                        " wait, then try again")

    async def failed(self, address: str, account: str) -> None:
        """Count one failed look-up of ``address`` (``"?"``: unknown, not counted) and of
        ``account`` (``""``: none).

        Raises:
            StoreError: the storage is unavailable.
        """
        item = self.item
        if item is None:
            return
        if address not in _UNKNOWN:
            await self._run(self.limiter.hit(item, "lookup", "addr", address))
        if account:
            await self._run(self.limiter.hit(item, "lookup", "acct", account))
