"""The state a :class:`~cardhall.server.room.Room` holds, as its parts see it: its seats
(:class:`Seat`), its members (:class:`Peer`, each with its :class:`Member` record) and the
rest of its attributes (:class:`RoomParts`).

A room's methods are split by concern into parts (:class:`~.seating.RoomSeats`,
:class:`~.saving.RoomSaving`, :class:`~.fanout.RoomViews`, :class:`~.clocks.RoomClocks`,
:class:`~.chat.RoomChat`) that are base classes of it, so that its state stays in one place.
Each part is a mypyc *trait* on this one, :class:`RoomParts`: the attributes the room defines
and the methods one part calls on another, declared once. Traits, because mypyc (which
compiles the room: setup.py) allows a compiled class one ordinary base class only; this
trait comes last in the room's method order, after every part, so that its abstract
declarations never hide a part's own method.
"""

from __future__ import annotations

import asyncio
import os
import random
from abc import abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from mypy_extensions import trait

from .. import protocol as p
from ..games import Game, LogEntry
from .accounts.account_store import SeatLedger
from .metrics import GameMetrics
from .store.ports import Lease, Store
from .play import Append, Effect
from .table import Phase

__all__ = ["CHECK_FACTS", "Member", "Peer", "RoomParts", "Seat"]

#: ``CARDHALL_CHECK_FACTS=1`` (the test suite sets it, tests/conftest.py): every
#: :meth:`~cardhall.server.room.Room.state` and :meth:`~.fanout.RoomViews.table` is built
#: afresh even when its cached one is current by :meth:`RoomParts.facts_key`, and a cached
#: one that differs from it raises RuntimeError: a change of a seat or a member made
#: without :meth:`RoomParts.seats_touched` (a bug) fails the test that made it.
CHECK_FACTS = os.environ.get("CARDHALL_CHECK_FACTS", "") == "1"


class Peer(Protocol):
    """What a room needs of a member: a local connection or a client forwarded from another
    process (both are :class:`~cardhall.server.session.Session`; declared here so the room
    does not import the layers above it).

    Attributes: ``session`` (the peer's random id), ``process`` (id of the server process the
    client is connected to), ``account`` (the id of the account it is signed in to, ``""``
    for none), ``name`` (that account's display name), ``rooms`` (rooms of this process it is
    in, by id), ``remote_rooms`` (ids of rooms owned by other processes) and ``act_reply``
    (its hello's: ``"ok"``, or ``"update"`` when its accepted actions are answered by its
    update alone, carrying the act's id).
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


@trait
class RoomParts:
    """The attributes of a room (defined, with their meaning, by
    :class:`~cardhall.server.room.Room`) and the methods its parts call on each other (each
    defined by the room or by one part; declared here abstract)."""

    __slots__ = tuple[str, ...]()

    id: str
    game_name: str
    settings: dict[str, Any]
    store: Store
    host: str
    phase: Phase
    game_phase: Phase
    stored_status: str
    seats: list[Seat | None]
    members: dict[Peer, Member]
    deadlines: dict[int, float]
    finished_at: float | None
    started_at: float | None
    ledger: SeatLedger | None
    lease: Lease | None
    lease_until: float
    chat: tuple[dict[str, Any], ...]
    muted: frozenset[int]
    metrics: GameMetrics | None
    game: Game | None
    game_cls: type[Game]
    options: dict[str, Any]
    _withheld: bool
    _timer: asyncio.TimerHandle | None
    _bot_timer: asyncio.TimerHandle | None
    _seat_version: list[int]
    _bot_rng: random.Random | None
    _broken: bool
    _recovery: asyncio.Task[None] | None
    _saved_snapshot: dict[str, Any] | bytes | None
    _saved_entries: list[LogEntry]
    _save_posted: bool
    _facts_posted: bool
    _stored_state: dict[str, Any] | None
    _table: dict[str, Any] | None
    _table_key: tuple[Any, ...] | None
    _state_cache: tuple[tuple[Any, ...], dict[str, Any]] | None
    _facts_version: int
    _bot: Callable[..., Any]

    def dealt(self) -> Game:
        """The engine of a room whose game was dealt (started, or loaded so): :attr:`game`.

        Raises:
            RuntimeError: the room waits and holds no engine (a bug of the caller: the
                paths that call this run only once the game started).
        """
        game = self.game
        if game is None:
            raise RuntimeError(f"room {self.id}: no game dealt yet")
        return game

    @property
    @abstractmethod
    def commitment(self) -> str | None:
        """The deal commitment (:class:`~cardhall.server.room.Room`)."""

    @property
    @abstractmethod
    def state_id(self) -> int:
        """The engine's ``state_id`` (:class:`~cardhall.server.room.Room`)."""

    @abstractmethod
    def post(self, fn: Callable[[], Any]) -> None:
        """Queue ``fn`` for the room's task (:class:`~cardhall.server.room.Room`)."""

    @abstractmethod
    def submit(self, fn: Callable[[], Any]) -> asyncio.Future[Any]:
        """Run ``fn`` in the room's task (:class:`~cardhall.server.room.Room`)."""

    @abstractmethod
    def state(self) -> dict[str, Any]:
        """The state the store keeps (:class:`~cardhall.server.room.Room`)."""

    @abstractmethod
    def seats_touched(self) -> None:
        """A seat or a member changed (:class:`~cardhall.server.room.Room`)."""

    @abstractmethod
    def facts_key(self) -> tuple[Any, ...]:
        """What the state and the room facts are built from
        (:class:`~cardhall.server.room.Room`)."""

    @abstractmethod
    def summary(self) -> dict[str, Any]:
        """The lobby's entry (:class:`~cardhall.server.room.Room`)."""

    @abstractmethod
    def resync(self) -> None:
        """Full views to every member (:class:`~cardhall.server.room.Room`)."""

    @abstractmethod
    def seats_changed(self, expired: bool = False) -> None:
        """Tell the lobby (:class:`~cardhall.server.room.Room`)."""

    @abstractmethod
    def _seat_event(self, seat: int, event: str) -> None:
        """Tell every member (:class:`~cardhall.server.room.Room`)."""

    @abstractmethod
    def _engine(self) -> Game:
        """The engine (:class:`~cardhall.server.room.Room`)."""

    @abstractmethod
    def _game_over(self) -> p.GameOver:
        """The finished game's ``game_over`` (:class:`~cardhall.server.room.Room`)."""

    @abstractmethod
    def _carry_out(self, effects: list[Effect], conn: Peer | None = None,
                   re: Any = None) -> None:
        """Carry out the rules' effects (:class:`~cardhall.server.room.Room`)."""

    @abstractmethod
    def _finish(self) -> None:
        """The game is over (:class:`~cardhall.server.room.Room`)."""

    @abstractmethod
    def _lost(self) -> None:
        """Another process owns the room (:class:`~cardhall.server.room.Room`)."""

    @abstractmethod
    async def _persist(self, append: Append, conn: Peer | None, re: Any) -> bool:
        """Store an action (:class:`~.saving.RoomSaving`)."""

    @abstractmethod
    def _save_soon(self) -> None:
        """Queue a state write (:class:`~.saving.RoomSaving`)."""

    @abstractmethod
    def lease_current(self) -> bool:
        """This copy may send frames (:class:`~.saving.RoomSaving`)."""

    @abstractmethod
    async def _carry_out_awaiting(self, effects: list[Effect]) -> None:
        """Carry out effects that await (:class:`~cardhall.server.room.Room`)."""

    @abstractmethod
    def _free_seat(self, seat: int) -> None:
        """Free a seat of a waiting room (:class:`~.seating.RoomSeats`)."""

    @abstractmethod
    def _broadcast(self, events: list[dict[str, Any]], first: Peer | None = None,
                   lead: bytes | None = None, re: Any = None) -> None:
        """Updates to every member (:class:`~.fanout.RoomViews`)."""

    @abstractmethod
    def facts_changed(self) -> None:
        """Send the room facts (:class:`~.fanout.RoomViews`)."""

    @abstractmethod
    def _schedule(self) -> None:
        """Set deadlines and arm the timer (:class:`~.clocks.RoomClocks`)."""

    @abstractmethod
    def _wake_bots(self) -> None:
        """Queue a server-bot action (:class:`~.clocks.RoomClocks`)."""

    @abstractmethod
    def send_chat_history(self, conn: Peer) -> None:
        """The kept chat lines to ``conn`` (:class:`~.chat.RoomChat`)."""
