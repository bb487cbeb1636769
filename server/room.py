"""A room: one authoritative game, its seats and spectators, run by one asyncio task.

Everything that changes a room (joins, actions, timers, bots, drops) is a work item on the
room's queue, processed in order by the room's task, so the engine is never touched
concurrently and every client sees the same order of events (DESIGN "Rooms").

An accepted action is: checked against the seat's ``state_id`` (stale ones are refused),
applied by the engine, appended to the store's log (durable before anyone is told), answered
with ``ok``, then broadcast: every seat gets its own view, spectators the public one. After a
full view on join, resume or request, updates carry a ``delta``: only the values that
changed, by top-level key or by JSON Pointer (see :mod:`cardhall.protocol.delta`).

This module is the driver: the room's state, its work queue (:mod:`.work`), its start,
and the effects it carries out (:meth:`Room._carry_out`). The rules are without I/O: the
phases, the transition table and who may take which seat in :mod:`cardhall.server.table`;
the play as events in, effects out (an ``act``, the store's answer to an append, the timer,
a bot's move, a reload) in :mod:`cardhall.server.play`. Base classes of :class:`Room`
hold the rest: seats and members in :mod:`.seating` (:class:`RoomSeats`), the store writes
and the reload after a failed append in :mod:`.saving` (:class:`RoomSaving`), views and
broadcasts in :mod:`.fanout` (:class:`RoomViews`), turn clocks and server bots in
:mod:`.clocks` (:class:`RoomClocks`), the chat in :mod:`.chat` (:class:`RoomChat`).

Room options (server-side, next to the engine's options in ``create_room.options``):
    turn_seconds:  seconds a seat has for its turn (None: no timer).
    bid_seconds:   seconds a bidder has in an auction (None: turn_seconds).
    grace_seconds: seconds a dropped seat is held for its player (default 120).
    on_abandon:    ``"bot"`` (default: a server-side bot takes the seat) or ``"forfeit"``.
    bot_seconds:   seconds a server bot takes over each action (None: 1 in real-time games,
                   where several seats act at once, else 0).
    multi_seat:    one account may hold several seats of the room (a hot seat); off by
                   default: a second seat is refused with ``room/already_seated``.
"""

from __future__ import annotations

import asyncio
import logging
import math
import random
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar


from .. import protocol as p
from ..protocol import fairness
from ..games import Game, LogEntry, bots, replay
from ..games.base import SETTING
from . import leaderboard
from .logs import event
from .accounts.names import bot_name
from ..games import outcome_kind
from .accounts.account_store import SeatLedger
from .metrics import GameMetrics, observe_action
from .store.ports import Lease, Loaded, Store, StoreError
from .clocks import REAL_TIME_BOT_SECONDS as REAL_TIME_BOT_SECONDS  # re-exported
from .clocks import RoomClocks
from .chat import RoomChat
from .fanout import RoomViews, Seat, Member
from .room_parts import CHECK_FACTS
from .fanout import Peer as Peer  # re-exported: what a room needs of a member
from .tasks import cancel_until_done
from .work import WorkQueue
from .saving import SNAPSHOT_EVERY as SNAPSHOT_EVERY  # re-exported
from .saving import RoomSaving
from .seating import RoomSeats, Told
from . import play, table
from .table import ROOM_OPTION_NAMES as ROOM_OPTION_NAMES  # re-exported
from .table import ROOM_OPTIONS as ROOM_OPTIONS  # re-exported
from .play import (Abandon, Append, Broadcast, ClearClocks, Effect, EndTurn, EnterPhase,
                   Finish, Forfeit, FreeSeat, GiveUp, Halt, HoldSeat, PlayDefaults, Rank,
                   RecordEnd, Refuse, Released, Reload, RollBack, SaveState, Schedule, SeatEvent,
                   SendGameOver, Stamp, Tell, ToBot, TurnsDue, VoidSeat, WakeBots)
from .table import Event, Phase
from .table import RoomError as RoomError  # re-exported
from .table import split_options as split_options  # re-exported

log = logging.getLogger("cardhall.room")
WAITING, PLAYING, FINISHED, CLOSED = Phase
T = TypeVar("T")

BOT_STRATEGY = "greedy"


#: This module runs compiled (mypyc, setup.py): its classes are native, with their
#: attributes in a C struct and no instance dict.
COMPILED = not __file__.endswith(".py")


# Pure Python: slots, ~1.2 KiB less per room than an instance dict of 36 keys, and a weak
# reference slot (tests see a finished room freed by reference counting, issue #35).
# Compiled: a native class keeps its attributes in a C struct already, and a slots
# dataclass would be rebuilt as a Python class, which a native class refuses (the literal
# mypy wants would fix one build).
@dataclass(slots=not COMPILED, weakref_slot=not COMPILED)  # type: ignore[literal-required]
class Room(RoomSeats, RoomSaving, RoomViews, RoomClocks, RoomChat):
    """One room and its game. Create with :meth:`Lobby.create_room`, never directly.

    Attributes:
        id: Room id (8 hex characters).
        name: Display name.
        game_name: Engine registry name.
        game: The engine: None while the room waits (dealt by :meth:`start`; views of a
            waiting room come from a deal made for them and dropped), or an engine passed
            in already dealt.
        game_cls: The engine's class (taken from ``game`` when that is given).
        options: The engine's resolved options, ``seed`` included, fixed at creation (taken
            from ``game`` when that is given): the deal at start and every replay use them.
        seat_count: Number of seats (taken from ``game`` when that is given).
        settings: Room options (see the module docstring).
        private: Private rooms are joined only by ``code``.
        code: Join code of a private room, else None.
        host: Session id of the connection that holds the host role: the creating
            connection, or the player the role was handed to (``""``: none connected, e.g.
            the new host is dropped; it starts the room from its seat once it resumes).
        phase: The room's :class:`~.table.Phase` (stored as ``"waiting"``, ``"playing"``
            or ``"finished"``: :attr:`stored_status`).
        salt: The salt of the deal commitment (32 hex digits; see :attr:`commitment`),
            drawn at creation and kept in the record; ``""`` for a room stored without one.
        chosen_deal: True when its creator set the deal (``seed`` or ``deck``, allowed in
            solo rooms only): such a game is never ranked on a leaderboard.
        chat: The room's last chat lines, oldest first (:mod:`.chat`; kept in the state).
        muted: Seats an operator muted in the chat (kept in the state).
        lease: The store lease this copy of the room runs under (:class:`~.store.Lease`), passed
            to its fenced writes: once the room is acquired again, this copy writes nothing.
            None: unfenced (a bare room in tests).
        ledger: Told whenever an account takes or gives up a seat and when the game ends
            ("My games": :mod:`.history`); None: nobody is told.
    """

    id: str
    name: str
    game_name: str
    settings: dict[str, Any]
    store: Store
    private: bool = False
    code: str | None = None
    host: str = ""
    phase: Phase = Phase.WAITING
    #: :attr:`phase`, or for a closed copy the phase it was closed in: a work item in
    #: flight at the close goes on against it, and what it writes stores it.
    game_phase: Phase = Phase.WAITING
    #: The stored form of :attr:`game_phase` (``"waiting"``, ``"playing"`` or
    #: ``"finished"``: :attr:`~.table.Phase.stored`), in the state, the summary and the room
    #: facts of every view; kept with it by :meth:`_set_phase` (read twice per action).
    stored_status: str = field(default="waiting", init=False)
    seats: list[Seat | None] = field(default_factory=list)
    members: dict[Peer, Member] = field(default_factory=dict)
    deadlines: dict[int, float] = field(default_factory=dict)
    on_finish: Callable[[Room], None] | None = None
    on_lost: Callable[[Room], None] | None = None
    #: Called after a seat of a waiting room was taken or freed, with True when the seat
    #: was freed because its grace window ended (the lobby expires rooms nobody sits in).
    on_seats: Callable[[Room, bool], None] | None = None
    ledger: SeatLedger | None = None
    lease: Lease | None = None
    #: Loop time (s) until which :attr:`lease` is known to hold: when it was last acquired
    #: or renewed, plus the lease's length (infinite: a lease that never expires). Past it
    #: less :data:`LEASE_MARGIN` of a lease, another process may run the room: this copy
    #: sends nothing (:meth:`lease_current`).
    lease_until: float = math.inf
    #: Frames were withheld for want of a current lease: every member gets its full view
    #: once the lease is renewed (:meth:`confirmed`).
    _withheld: bool = False
    chat: tuple[dict[str, Any], ...] = ()
    muted: frozenset[int] = frozenset()
    chosen_deal: bool = False
    created: float = field(default_factory=time.time)
    finished_at: float | None = None
    started_at: float | None = None  # unix time s of the start (None: waiting, or unknown)
    #: The room's work items, run one at a time by its task (:meth:`submit`, :meth:`play`).
    work: WorkQueue = field(init=False)
    _timer: asyncio.TimerHandle | None = None
    _bot_timer: asyncio.TimerHandle | None = None
    _seat_version: list[int] = field(default_factory=list)
    _bot_rng: random.Random | None = None  # made by the first server-bot action
    #: An append failed or was cancelled: the store may or may not hold its entry, so the
    #: room serves no view and takes no action until it has reloaded (:meth:`_recover`).
    _broken: bool = False
    _recovery: asyncio.Task[None] | None = None  # the reloads of a broken room
    #: The last engine state the store is known to hold, to roll back to at once when an
    #: append fails: a snapshot (None: the fresh deal of the options; msgpack bytes once
    #: :meth:`_snapshot` has packed it, ~8 times smaller) and the log entries after it
    #: (fewer than SNAPSHOT_EVERY; a list append per action, no copy of the engine).
    _saved_snapshot: dict[str, Any] | bytes | None = None
    _saved_entries: list[LogEntry] = field(default_factory=list)
    #: This room's game's metrics, bound by the lobby (:func:`~.metrics.bind_game`; None in
    #: bare tests).
    metrics: GameMetrics | None = None
    _save_posted: bool = False
    _facts_posted: bool = False  # a facts_changed() is queued (see _facts_soon)
    #: The :meth:`state` this copy last wrote and the store confirmed, or None when the
    #: store's copy is not known to equal anything (nothing written yet, or a write failed):
    #: an append whose state equals it writes only its entry (:meth:`_persist`).
    _stored_state: dict[str, Any] | None = None
    _table: dict[str, Any] | None = None  # the last table() (see there)
    #: :meth:`facts_key` and the spectators' names :attr:`_table` was built from.
    _table_key: tuple[Any, ...] | None = None
    #: The last :meth:`state` with the :meth:`facts_key` it was built from.
    _state_cache: tuple[tuple[Any, ...], dict[str, Any]] | None = None
    #: Changes of the seats and members so far (:meth:`seats_touched`).
    _facts_version: int = 0
    salt: str = field(default_factory=fairness.new_salt)
    _commitment: tuple[int, str] | None = None  # (seed, commitment) once computed
    # A waiting room holds no engine, no queue, no task and no bot RNG (issue #18: ~28 KiB
    # per empty room before): the engine is dealt at start, the rest made on first use.
    game: Game | None = field(default=None, kw_only=True)  # None: waiting
    game_cls: type[Game] = field(default=None, kw_only=True)  # type: ignore[assignment]
    options: dict[str, Any] = field(default_factory=dict, kw_only=True)
    seat_count: int = field(default=0, kw_only=True)
    _bot: Callable[..., Any] = field(init=False)  # the server bots' strategy

    def __post_init__(self) -> None:
        if self.game is not None:
            self.game_cls, self.options = type(self.game), self.game.options
            self.seat_count = self.game.seats
        self._set_phase(self.phase)
        self.work = WorkQueue(f"room-{self.id}")
        self.seats = [None] * self.seat_count
        self._seat_version = [0] * self.seat_count
        self._bot = bots.strategy(self.game_name, self.settings.get("bot_strategy", BOT_STRATEGY))

    @property
    def state_id(self) -> int:
        """The engine's ``state_id`` (0 while the room waits: no action yet)."""
        return 0 if self.game is None else self.game.state_id

    def _set_phase(self, phase: Phase) -> None:
        """Enter ``phase`` (a closed copy records it in :attr:`game_phase` alone)."""
        self.game_phase, self.stored_status = phase, phase.stored
        if self.phase is not CLOSED:
            self.phase = phase

    def _engine(self) -> Game:
        """The engine, or for a waiting room a fresh deal of its options (the same deal the
        start will make; not kept)."""
        if self.game is not None:
            return self.game
        return self.game_cls(self.options, self.seat_count)

    # -- work queue (:class:`~.work.WorkQueue`) ------------------------------------------

    def start_task(self) -> None:
        """Let the room's task run: it starts now if work is queued, else with the first
        work item (a waiting room nobody entered holds no task)."""
        self.work.start()

    def submit(self, fn: Callable[[], Any]) -> asyncio.Future[Any]:
        """Run ``fn`` (sync or async) in the room's task; the future gets its result or
        exception."""
        return self.work.submit(fn)

    def post(self, fn: Callable[[], Any]) -> None:
        """Queue ``fn`` for the room's task without waiting for it."""
        self.work.post(fn)

    async def play(self, conn: Peer, msg: p.Act) -> None:
        """Apply ``conn``'s ``act`` (:meth:`act`) as the room's next work item.

        When the room is idle (no work queued, none running) the action is applied at once in
        the caller's task: the hot path skips the hop through the room's task (a loop
        iteration, a future and a queue round). Otherwise it waits its turn in the queue.
        Either way work items never interleave (:attr:`WorkQueue.busy`), and their order is
        the order they arrived in. Should the caller be cancelled while the store is
        appending, the room is marked broken and reloads from the store before its next
        action (:meth:`_persist`).
        """
        work = self.work
        queue = work.queue
        if work.busy.locked() or (queue is not None and not queue.empty()) or work.closed:
            await work.submit(lambda: self.act(conn, msg))
            return
        async with work.busy:  # free: taken without waiting
            await self.act(conn, msg)

    async def close(self) -> None:
        """Stop the task and timers (the room is being removed, handed over or demoted).
        Callers of :meth:`submit` whose work item has not run get ``server/unavailable``
        (:class:`RoomError`): the room is not run here any more."""
        self.phase = table.step(self.phase, Event.CLOSE)
        self.work.closed = True  # nothing starts the task from here
        for timer in (self._timer, self._bot_timer):
            if timer is not None:
                timer.cancel()
        # The ended task is dropped: a cancelled task keeps its CancelledError, whose
        # traceback holds the task's frames and so this room (a reference cycle that only the
        # cycle collector would free: issue #35).
        recovery, self._recovery = self._recovery, None
        if recovery is not None:
            await cancel_until_done(recovery)
        await self.work.close()

    def _seat_event(self, seat: int, event: str) -> None:
        """Tell every member of the seat's ``event`` (:meth:`RoomViews._seat_event`); in a
        waiting room, tell the lobby of a seat taken or freed (``on_seats``)."""
        RoomViews._seat_event(self, seat, event)
        if event in ("joined", "left"):
            self.seats_changed()

    def seats_changed(self, expired: bool = False) -> None:
        """Call ``on_seats`` when the room waits (``expired``: a seat was freed because its
        grace window ended)."""
        if self.on_seats is not None and self.game_phase is WAITING:
            self.on_seats(self, expired)

    # -- fenced fan-out ------------------------------------------------------------------

    # -- lobby facts ---------------------------------------------------------------------

    @property
    def reloading(self) -> bool:
        """True while the room reloads its game from the store after a failed write: it
        then serves no view (``get_view``) and takes no action, both answered
        ``server/unavailable``."""
        return self._broken

    @property
    def taken(self) -> int:
        """Number of taken seats."""
        return sum(s is not None for s in self.seats)

    def summary(self) -> dict[str, Any]:
        """The room as the lobby lists it (a ``rooms`` entry of the protocol)."""
        return {"room": self.id, "name": self.name, "game": self.game_name,
                "mode": self.options.get("mode"), "seats": self.seat_count,
                "taken": self.taken, "status": self.stored_status, "private": self.private,
                "spectators": sum(m.seat is None for m in self.members.values()),
                "created": int(self.created)}

    def record(self) -> dict[str, Any]:
        """The store record: what never changes (engine options with seed, room options)."""
        return {"room": self.id, "name": self.name, "game": self.game_name,
                "seats": self.seat_count, "private": self.private,
                "options": self.options, "settings": self.settings,  # shared: read-only
                "host": self.host, "code": self.code, "created": self.created,
                "salt": self.salt, "chosen_deal": self.chosen_deal}

    def seats_touched(self) -> None:
        """Record that a seat (its holder, connection, grace window, bot, host role, token)
        or the members changed: :meth:`state` and :meth:`table`, cached while
        :meth:`facts_key` stays the same, are built afresh on their next call. Every method
        that changes a :class:`~.room_parts.Seat`, :attr:`seats` or :attr:`members` calls
        it (the rest of what they show is in :meth:`facts_key` itself); tests check that
        none is missed (:data:`~.room_parts.CHECK_FACTS`)."""
        self._facts_version += 1

    def facts_key(self) -> tuple[Any, ...]:
        """What :meth:`state` and :meth:`table` are built from, but the seats and members
        (counted by :meth:`seats_touched` instead): equal keys, equal results. Cheap (no
        dict built): read on every action, where the state and the room facts rarely
        change."""
        return (self._facts_version, self.stored_status, self.game_phase, self.host,
                self.finished_at, self.started_at, self.chat, self.muted,
                tuple(self.deadlines.items()))

    def state(self) -> dict[str, Any]:
        """The server-side state the store keeps beside the log: status, seats (with
        tokens), where each member is connected (``[process, session, seat]``), deadlines
        (``[[seat, unix time s]]``), start and finish times (unix time s, or None), the
        host's session (it changes when the host role is handed on), the last chat lines and
        the muted seats (:mod:`.chat`).

        While :meth:`facts_key` stays the same, the same dict object as last time (not
        rebuilt per action; an action's append compares it with the stored one, which is
        then the same object, value by value by identity; do not mutate it)."""
        key = self.facts_key()
        cached = self._state_cache
        if cached is not None and cached[0] == key and not CHECK_FACTS:
            return cached[1]
        state = {"status": self.stored_status, "finished_at": self.finished_at,
                 "host": self.host, "chat": list(self.chat), "muted": sorted(self.muted),
                 "started_at": self.started_at,
                 "seats": [None if h is None else h.stored() for h in self.seats],
                 "members": [[c.process, c.session_id, m.seat]
                             for c, m in self.members.items()],
                 "deadlines": [[s, t] for s, t in self.deadlines.items()]}
        if cached is not None and cached[0] == key:  # CHECK_FACTS: the cache must hold
            if cached[1] != state:
                raise RuntimeError(f"room {self.id}: stale cached state: a seat or member "
                                   "changed without seats_touched()")
            return cached[1]
        self._state_cache = (key, state)
        return state

    @classmethod
    def from_loaded(cls, loaded: Loaded, store: Store, game_cls: type[Game]) -> Room:
        """A room rebuilt from the store (a takeover after its owner died): the game from
        snapshot + log, seats, status and deadlines from the state. Members are reattached
        by the lobby.

        Raises:
            GameError: the log does not replay (the store holds another game).
        """
        rec, st = loaded.record, loaded.state or {}
        phase = Phase.parse(st.get("status", WAITING.stored))
        game: Game | None = None
        if phase is not WAITING or loaded.snapshot is not None or loaded.entries:
            game = replay(game_cls, rec["options"], rec["seats"], loaded.entries,
                          loaded.snapshot)
        room = cls(id=rec["room"], name=rec["name"], game_name=rec["game"], game=game,
                   game_cls=game_cls, options=dict(rec["options"]), seat_count=rec["seats"],
                   settings=dict(rec["settings"]), store=store, private=rec["private"],
                   code=rec.get("code"), host=st.get("host", rec.get("host", "")),
                   phase=phase, created=rec.get("created", 0.0),
                   salt=rec.get("salt", ""),
                   chosen_deal=rec.get("chosen_deal", True))  # unknown: never ranked
        room.finished_at = st.get("finished_at")
        room.started_at = st.get("started_at")
        room.chat = tuple(st.get("chat", ()))
        room.muted = frozenset(st.get("muted", ()))
        for s, data in enumerate(st.get("seats", [])):
            if data is not None:
                room.seats[s] = Seat(token=data["token"], conn=None, name=data["name"],
                                     bot=data["bot"], grace_until=data["grace_until"],
                                     assisted=data.get("assisted", data["bot"]),
                                     host=data.get("host", False), since=data.get("since", 0.0),
                                     account=data.get("account", ""))
        room.deadlines = {int(s): float(t) for s, t in st.get("deadlines", [])}
        room.seats_touched()
        room._seat_version = [room.state_id] * room.seat_count
        room._saved_snapshot, room._saved_entries = loaded.snapshot, list(loaded.entries)
        return room

    def _lost(self) -> None:
        """Another process owns the room now: stop running it here."""
        log.warning("room %s: ownership lost", self.id)
        if self.on_lost is not None:
            self.on_lost(self)

    # -- membership (called inside the room task) -----------------------------------------

    def confirmed(self, until: float) -> None:
        """The store renewed the lease, valid until ``until`` (loop time, s); members whose
        frames were withheld meanwhile get their full views (:meth:`resync`).
        Here, not in :class:`~.saving.RoomSaving` with the rest of the lease fencing: mypyc
        (2.4) fails to compile the store of a float into a trait's inherited attribute."""
        self.lease_until = until
        if self._withheld:
            self._withheld = False
            self.post(self.resync)

    def resync(self) -> None:
        """After a takeover: every member gets its full view (and, in a finished room, the
        ``game_over`` the dead owner may not have sent); timers and bots go on."""
        for member in self.members.values():
            member.sent(None)
        self._schedule()
        self._broadcast([])
        if self.game_phase is FINISHED and self.lease_current():
            frame = self._game_over()
            for conn in self.members:
                conn.send(frame)
        self._wake_bots()

    # -- starting -------------------------------------------------------------------------

    @property
    def commitment(self) -> str | None:
        """The deal commitment (:func:`~.table.commitment` of the engine's seed and
        :attr:`salt`: 64 hex digits), or None for a room stored without a salt. Published
        at start, in ``started`` and the view's room facts; the seed and salt are revealed
        in ``game_over`` (protocol/README.md, "Fair deals")."""
        if not self.salt:
            return None
        seed = self.options["seed"]
        cached = self._commitment
        if cached is None or cached[0] != seed:
            cached = self._commitment = (seed, table.commitment(seed, self.salt) or "")
        return cached[1]

    async def start(self, by: Peer | None, re: Any = None) -> None:
        """Start the game. Empty seats are given to server bots. The started state is saved
        before anyone is told (a process that takes the room over must find it started);
        then every member gets ``started`` (``by``'s carries ``re``), then its view.

        Raises:
            RoomError: ``room/not_host`` (``by`` may not start it:
                :func:`~.table.check_starter`), ``room/already_started``.
            StoreError: the started state could not be saved (:class:`OwnershipLost`:
                another process owns the room); the room is left waiting as it was.
        """
        table.check_starter(self.seats, self.host, by, by.session_id if by is not None else "")
        told = await self._saved(self._begin_start)
        self._announce_start(told, by, re)

    async def seat_player(self, conn: Peer, seat: int | None, re: Any) -> None:
        """Seat ``conn`` (:meth:`_seat`), save, then tell every member and answer
        ``joined`` (with the seat's token, durable before anyone sees it). The player who
        fills the last seat of a waiting room starts it: the same save holds the start;
        ``joined`` shows the room as the player joined it, and ``started`` and the views
        follow at once.

        Raises:
            RoomError: as :meth:`_seat` (the seat is taken, the room is full...).
            StoreError: the state could not be saved; nobody was told, the seat is free
                again and the room as it was.
        """
        joined: dict[str, Any] | None = None

        def change() -> tuple[int, str, list[Told], list[Told] | None]:
            nonlocal joined
            seat_no, token, told = self._seat(conn, seat)
            if not table.full(self.phase, self.seats):
                return seat_no, token, told, None
            joined = self.view_for(seat_no)  # the room as it was joined
            return seat_no, token, told, self._begin_start()

        seat_no, token, told, started = await self._saved(change)
        self._tell(told)
        if self.ledger is not None:
            self.ledger.seated(conn.account, self.id, seat_no, self.game_name,
                               self.options.get("mode"))
        self.send_joined(conn, re, token, view=joined)
        if started is not None:
            self._announce_start(started, None, None)

    async def _saved(self, change: Callable[[], T]) -> T:
        """Make ``change`` (it changes the seats, the host, the members, the phase and the
        deadlines, sends nothing, and returns what to tell: seat events), then save the
        state (:meth:`save_state`): saved before anyone is told. Returns what ``change``
        returned, for the caller to tell.

        Raises:
            RoomError: from ``change``, which then changed nothing.
            StoreError: the state could not be saved: the room is put back as it was
                before ``change`` (the deal of a start is kept: the same seed deals it
                again), and nobody was told.
        """
        seats = list(self.seats)
        before = (seats, [h is not None and h.host for h in seats], self.host,
                  self.game_phase, dict(self.deadlines), dict(self.members))
        told = change()
        try:
            await self.save_state()
        except StoreError:
            seats, hosts, self.host, phase, deadlines, members = before
            self.seats[:] = seats
            for holder, host in zip(seats, hosts):
                if holder is not None:
                    holder.host = host
            self._set_phase(phase)  # closed meanwhile: it stays so
            self.deadlines = deadlines
            for conn in self.members.keys() - members.keys():
                self.members.pop(conn)
                conn.rooms.pop(self.id, None)
            self.seats_touched()
            self._schedule()  # the grace windows' timer only
            raise
        return told

    def _begin_start(self) -> list[Told]:
        """The start's state change (nothing sent, nothing saved): bots in the empty seats
        (:func:`~.table.start_seats`), the deal, phase playing, the first turn's deadlines.
        Returns the seat events of the seats given to bots.

        Raises:
            TransitionError: ``room/already_started``.
        """
        phase, to_bots = table.start_seats(self.game_phase, self.seats)
        for s in to_bots:
            self.seats[s] = Seat(token=secrets.token_urlsafe(24), conn=None,
                                 name=bot_name(s), bot=True)
        self.seats_touched()
        if self.game is None:
            self.game = self.game_cls(self.options, self.seat_count)  # the deal
        self._set_phase(phase)
        self._schedule()  # the deadlines are part of the state the start saves
        return [(s, "bot") for s in to_bots]

    def _announce_start(self, told: list[Told], by: Peer | None, re: Any) -> None:
        """Tell everyone of a start that is saved: the bots' seats (``told``), ``started``
        (``by``'s carries ``re``), then each member's view; wake the bots."""
        self._tell(told)
        self._game_started()
        commitment = self.commitment
        for conn in self.members:
            conn.send(p.Started(room=self.id, commitment=commitment,
                                re=re if conn is by else None))
        if by is not None and by not in self.members:
            by.send(p.Started(room=self.id, commitment=commitment, re=re))
        self._broadcast([])
        self._wake_bots()

    def _game_started(self) -> None:
        """Log ``game_started`` (INFO: room, game, mode, seats, humans, bots) and count it
        (``cardhall_games_started_total``); the start time is kept in the state."""
        self.started_at = time.time()
        bots_ = sum(1 for h in self.seats if h is not None and h.bot)
        event(log, logging.INFO, "game_started", room=self.id, game=self.game_name,
              mode=self.options.get("mode"), seats=self.seat_count,
              humans=self.seat_count - bots_, bots=bots_)
        if self.metrics is not None:
            self.metrics.started.inc()

    def _game_finished(self) -> None:
        """Record the end (:class:`~.play.RecordEnd`): the finish time (:attr:`finished_at`,
        kept in the state), the ``game_finished`` log line (INFO: room, game, mode, outcome
        kind, winner, reason, turns, duration in s; see :func:`~cardhall.games.outcome_kind`),
        its metrics (``cardhall_games_finished_total``, ``cardhall_game_duration_seconds``)
        and the account ledger ("My games"). The duration is None when the start time is
        unknown (a room stored before it was kept)."""
        self.finished_at = time.time()
        game = self.dealt()
        outcome = game.outcome()
        kind = outcome_kind(outcome)
        duration = None if self.started_at is None else max(0.0, time.time() - self.started_at)
        turns = game.stats().get("turns", game.state_id)
        event(log, logging.INFO, "game_finished", room=self.id, game=self.game_name,
              mode=self.options.get("mode"), outcome=kind,
              winner=None if outcome is None else outcome.get("winner"),
              reason=None if outcome is None else outcome.get("reason"), turns=turns,
              duration=None if duration is None else round(duration, 3))
        if self.metrics is not None:
            self.metrics.finished[kind].inc()
            if duration is not None:
                self.metrics.duration.observe(duration)
        if self.ledger is not None:
            self.ledger.finished(self.id, self.name, self.game_name, self.options.get("mode"),
                                 [h.account if h is not None else "" for h in self.seats],
                                 outcome)

    # -- actions --------------------------------------------------------------------------

    async def act(self, conn: Peer, msg: p.Act) -> None:
        """Apply an ``act`` request from ``conn`` (a work item of the room: :meth:`play`):
        the rules decide (:func:`~.play.act`: the engine applies it, or it is refused),
        then the entry is appended and what follows is carried out (:meth:`_persist`);
        replies itself."""
        member = self.members.get(conn)
        started = time.perf_counter()
        effect = play.act(self.phase, self._broken, self.game,
                          None if member is None else member.seat, msg.action, msg.state_id,
                          self._seat_version)
        if not isinstance(effect, Append):
            self._carry_out([effect], conn, msg.id)
        elif await self._persist(effect, conn, msg.id) and effect.entry.kind != SETTING:
            observe_action(self.metrics, time.perf_counter() - started)

    def _carry_out(self, effects: list[Effect], conn: Peer | None = None,
                   re: Any = None) -> None:
        """Carry out ``effects`` in order (:mod:`.play`'s), for an action of
        ``conn`` (None: a timer's, a bot's or a reload's), whose request id is ``re``.
        Those that await are carried out by :meth:`_carry_out_awaiting` (a seat abandoned,
        a forfeit, the turns that ran out) and by :meth:`_persist`'s callers (an
        :class:`~.play.Append`: :meth:`act`, the clocks, the bots)."""
        for effect in effects:
            if isinstance(effect, Broadcast):
                if conn is None:
                    self._broadcast(effect.events)
                elif conn.act_reply == "update":  # the update carries the act's id: no ok
                    self._broadcast(effect.events, first=conn, re=re)
                else:
                    self._broadcast(effect.events, first=conn, lead=p.ok_frame(re))
            elif isinstance(effect, Stamp):
                for s in effect.seats:
                    self._seat_version[s] = effect.state_id
            elif isinstance(effect, Schedule):
                self._schedule()
            elif isinstance(effect, EndTurn):
                self.deadlines.pop(effect.seat, None)
            elif isinstance(effect, WakeBots):
                self._wake_bots()
            elif isinstance(effect, Refuse):
                if self.metrics is not None:
                    self.metrics.refused.inc()
                if conn is not None:
                    conn.send(p.error_reply(effect.error, re=re))
            else:
                self._carry_out_rarely(effect, conn, re)

    def _carry_out_rarely(self, effect: Effect, conn: Peer | None, re: Any) -> None:
        """The effects of a game's end, a failed append and a timer (:meth:`_carry_out`)."""
        if isinstance(effect, Tell):
            if conn is not None:
                conn.send(p.error_reply(effect.error, re=re))
        elif isinstance(effect, ClearClocks):
            self.deadlines.clear()
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
        elif isinstance(effect, EnterPhase):
            self._set_phase(effect.phase)
        elif isinstance(effect, Finish):
            self._finish()
        elif isinstance(effect, RecordEnd):
            self._game_finished()
        elif isinstance(effect, SendGameOver):
            if self.lease_current():
                frame = self._game_over()
                for member in self.members:
                    member.send(frame)
        elif isinstance(effect, SaveState):
            self._save_soon()
        elif isinstance(effect, Rank):
            self._rank(effect.account)
        elif isinstance(effect, Released):
            if self.on_finish is not None:
                self.on_finish(self)
        elif isinstance(effect, RollBack):
            self._roll_back()
        elif isinstance(effect, Reload):
            self._reload_soon()
        elif isinstance(effect, Halt):
            self._broken = True  # nothing more is written here: the room moves elsewhere
        elif isinstance(effect, GiveUp):
            self._lost()
        elif isinstance(effect, FreeSeat):
            self._free_seat(effect.seat)  # the host role may move on
            if effect.expired:
                self.seats_changed(expired=True)
        elif isinstance(effect, SeatEvent):
            self._seat_event(effect.seat, effect.event)
        elif isinstance(effect, HoldSeat):
            if (holder := self.seats[effect.seat]) is not None:
                holder.grace_until = effect.until
                self.seats_touched()
        elif isinstance(effect, ToBot):
            if (holder := self.seats[effect.seat]) is not None:
                holder.bot = holder.assisted = True
                self.seats_touched()
        elif isinstance(effect, VoidSeat):
            if (holder := self.seats[effect.seat]) is not None:
                holder.token = ""  # a forfeited seat cannot be resumed (matches no token)
                self.seats_touched()
                self._unseated(holder)
        else:
            raise TypeError(f"room {self.id}: no driver for the effect {effect!r}")

    async def _carry_out_awaiting(self, effects: list[Effect]) -> None:
        """Carry out ``effects`` in order, those that await among them: a seat abandoned
        (:func:`~.play.abandon`), a forfeit appended (should the append fail:
        :func:`~.play.forfeit_failed`), the turns that ran out (:func:`~.play.turns_due`,
        their defaults played: :meth:`~.clocks.RoomClocks._play_defaults`); the rest as
        :meth:`_carry_out`."""
        for effect in effects:
            if isinstance(effect, Abandon):
                if self.seats[effect.seat] is not None:
                    await self._carry_out_awaiting(play.abandon(
                        self.game_phase, self._broken, self.settings["on_abandon"],
                        effect.seat, time.time()))
            elif isinstance(effect, Forfeit):
                step = play.forfeit(self.dealt(), effect.seat)
                if step is not None and not await self._persist(step, None, None):
                    self._carry_out(play.forfeit_failed(effect.seat, time.time()))
            elif isinstance(effect, TurnsDue):
                await self._carry_out_awaiting(
                    play.turns_due(self.game_phase, self.deadlines, effect.now))
            elif isinstance(effect, PlayDefaults):
                await self._play_defaults(effect.seats)
            else:
                self._carry_out([effect])

    def _finish(self) -> None:
        """The game is over (its final update, with the room facts' status ``"finished"``,
        has gone): carry out :func:`~.play.finish`: ``game_over`` to every member (its
        ``outcome`` is the view's plus the key ``stats``: :meth:`Game.stats`), no more
        clocks, the state saved, the score ranked, the lobby told.

        Raises:
            TransitionError: the room never started (``room/not_started``).
        """
        self._carry_out(play.finish(self.game_phase, self.seats, self.chosen_deal))

    def _rank(self, account: str) -> None:
        """Put the finished solo game's score on its leaderboard (:mod:`.leaderboard`) for
        ``account`` (:func:`~.table.ranked_account`: only a game its person played alone,
        never a server bot, signed in, on a deal the server drew): under a board's rules,
        if it counts there. The store keeps the account's best score; a failed write is
        logged (the game is not ranked)."""
        board = leaderboard.board_of(self.game_name, self.options, self.seat_count)
        score = leaderboard.score_of(board, self.dealt().outcome()) if board else None
        if board is None or score is None:
            return

        async def record() -> None:
            try:
                await self.store.record_score(board.id, account, board.rank_value(score),
                                              leaderboard.BOARD_SIZE)
            except StoreError as exc:
                log.warning("room %s: score not ranked: %s", self.id, exc)

        self.post(record)

    def _game_over(self) -> p.GameOver:
        """The ``game_over`` of the finished game: ``outcome`` is the view's ``outcome`` plus
        the key ``stats`` (:meth:`Game.stats`); the deal's seed and salt are revealed
        (protocol/README.md, "Fair deals")."""
        game = self.dealt()
        outcome = dict(game.outcome() or {})
        outcome["stats"] = game.stats()
        reveal = {"seed": self.options["seed"], "salt": self.salt} if self.salt else {}
        return p.GameOver(room=self.id, state_id=game.state_id, outcome=outcome, **reveal)
