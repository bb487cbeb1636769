"""A room: one authoritative game, its seats and spectators, run by one asyncio task.

Everything that changes a room (joins, actions, timers, bots, drops) is a work item on the
room's queue, processed in order by the room's task, so the engine is never touched
concurrently and every client sees the same order of events (DESIGN "Rooms").

An accepted action is: checked against the seat's ``state_id`` (stale ones are refused),
applied by the engine, appended to the store's log (durable before anyone is told), answered
with ``ok``, then broadcast: every seat gets its own view, spectators the public one. After a
full view on join, resume or request, updates carry a ``delta``: only the values that
changed, by top-level key or by JSON Pointer (see :mod:`cardhall.protocol.delta`).

This module holds the room's state, its work queue, membership, actions and persistence;
its views and broadcasts are in :mod:`cardhall.server.fanout` (:class:`RoomViews`) and its
turn clocks and server bots in :mod:`cardhall.server.clocks` (:class:`RoomClocks`), two
base classes of :class:`Room`.

The engine never shows what the store may not hold: an append that fails rolls it back at
once to the last stored state, and the room, broken, answers ``get_view`` and ``act`` with
``server/unavailable`` while it reloads from the store with backoff; then every member gets
the true state, and turn timers and server bots go on (:meth:`Room._persist`).

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
import hmac
import logging
import math
import random
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar, cast

import msgpack
from tenacity import AsyncRetrying, retry_if_exception_type, wait_exponential_jitter

from .. import protocol as p
from ..protocol import fairness
from ..games import Game, GameError, LogEntry, bots, replay
from ..games.base import FORFEIT, SETTING
from . import leaderboard
from .logs import event
from ..games import outcome_kind
from .account_store import SeatLedger
from .metrics import GameMetrics, observe_action
from .store import Lease, Loaded, OwnershipLost, Store, StoreError
from .clocks import REAL_TIME_BOT_SECONDS as REAL_TIME_BOT_SECONDS  # re-exported
from .clocks import RoomClocks
from .chat import RoomChat
from .fanout import Connection, RoomViews, Seat, Member
from .fanout import Peer as Peer  # re-exported: what a room needs of a member
from .tasks import cancel_until_done
from . import table
from .table import ROOM_OPTION_NAMES as ROOM_OPTION_NAMES  # re-exported
from .table import ROOM_OPTIONS as ROOM_OPTIONS  # re-exported
from .table import Event, Leaving, Phase
from .table import RoomError as RoomError  # re-exported
from .table import split_options as split_options  # re-exported

log = logging.getLogger("cardhall.room")
WAITING, PLAYING, FINISHED, CLOSED = Phase
T = TypeVar("T")
#: A seat event to send every member: (seat, event) (:meth:`Room._seat_event`).
Told = tuple[int, str]

BOT_STRATEGY = "greedy"
SNAPSHOT_EVERY = 64  # log entries between engine snapshots in the store
#: Seconds between a broken room's reloads from its store: doubling from the first to the
#: last, plus up to RELOAD_JITTER_SECONDS at random, so that the rooms an outage broke do
#: not all ask the store at the same moments (see :meth:`Room._recover`).
RELOAD_FIRST_SECONDS = 0.05
RELOAD_MAX_SECONDS = 2.0
RELOAD_JITTER_SECONDS = 0.25
#: Share of a lease's length before its end at which a room stops sending frames unless
#: the lease was renewed meanwhile (issue #35: a process woken after a pause longer than its
#: leases sent frames of rooms another process had taken over).
LEASE_MARGIN = 0.2


def _noop() -> None:
    """A work item that does nothing (wakes an idle room task: :meth:`Room.close`)."""


# slots: ~1.2 KiB less per room than an instance dict of 36 keys; a weak reference slot:
# tests see a finished room freed by reference counting (issue #35)
@dataclass(slots=True, weakref_slot=True)
class Room(RoomViews, RoomClocks, RoomChat):
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
    seats: list[Seat | None] = field(default_factory=list)
    members: dict[Connection, Member] = field(default_factory=dict)
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
    _queue: asyncio.Queue[Callable[[], Any]] | None = None  # made by the first work item
    #: Held while a work item runs, whichever task runs it (see :meth:`play`).
    _busy: asyncio.Lock = field(default_factory=asyncio.Lock)
    _task: asyncio.Task[None] | None = None
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
    salt: str = field(default_factory=fairness.new_salt)
    _commitment: tuple[int, str] | None = None  # (seed, commitment) once computed
    # A waiting room holds no engine, no queue, no task and no bot RNG (issue #18: ~28 KiB
    # per empty room before): the engine is dealt at start, the rest made on first use.
    game: Game = field(default=None, kw_only=True)  # type: ignore[assignment]  # None: waiting
    game_cls: type[Game] = field(default=None, kw_only=True)  # type: ignore[assignment]
    options: dict[str, Any] = field(default_factory=dict, kw_only=True)
    seat_count: int = field(default=0, kw_only=True)
    _may_run: bool = False  # start_task() was called: work items start the task
    #: Futures of :meth:`submit` not resolved yet: failed by :meth:`close`, so that no caller
    #: waits for ever for a work item a closed room will never run.
    _waiting: set[asyncio.Future[Any]] = field(default_factory=set)
    _bot: Callable[..., Any] = field(init=False)  # the server bots' strategy

    def __post_init__(self) -> None:
        if self.game is not None:
            self.game_cls, self.options = type(self.game), self.game.options
            self.seat_count = self.game.seats
        self.game_phase = self.phase
        self.seats = [None] * self.seat_count
        self._seat_version = [0] * self.seat_count
        self._bot = bots.strategy(self.game_name, BOT_STRATEGY)

    @property
    def state_id(self) -> int:
        """The engine's ``state_id`` (0 while the room waits: no action yet)."""
        return 0 if self.game is None else self.game.state_id

    @property
    def stored_status(self) -> str:
        """The stored form of :attr:`game_phase` (``"waiting"``, ``"playing"`` or
        ``"finished"``: :func:`~.table.stored_phase`), in the state, the summary and the
        room facts of every view."""
        return self.game_phase.stored

    def _set_phase(self, phase: Phase) -> None:
        """Enter ``phase`` (a closed copy records it in :attr:`game_phase` alone)."""
        self.game_phase = phase
        if self.phase is not CLOSED:
            self.phase = phase

    def _engine(self) -> Game:
        """The engine, or for a waiting room a fresh deal of its options (the same deal the
        start will make; not kept)."""
        if self.game is not None:
            return self.game
        return self.game_cls(self.options, self.seat_count)

    # -- task and queue -----------------------------------------------------------------

    def start_task(self) -> None:
        """Let the room's task run: it starts now if work is queued, else with the first
        work item (a waiting room nobody entered holds no task)."""
        self._may_run = True
        if self._queue is not None and not self._queue.empty():
            self._spawn()

    def _spawn(self) -> None:
        if self._task is None and self._may_run and self.phase is not CLOSED:
            self._task = asyncio.get_running_loop().create_task(self._run(), name=f"room-{self.id}")

    def _enqueue(self, item: Callable[[], Any]) -> None:
        """Queue ``item`` for the room's task (making the queue, starting the task)."""
        queue = self._queue
        if queue is None:
            queue = self._queue = asyncio.Queue()
        queue.put_nowait(item)
        if self._task is None:
            self._spawn()

    async def _run(self) -> None:
        queue = self._queue
        assert queue is not None  # the task starts with the first work item
        while self.phase is not CLOSED:
            item = await queue.get()
            if self.phase is CLOSED:  # woken by close(): end without a cancellation (see there)
                return
            try:
                async with self._busy:
                    result = item()
                    if asyncio.iscoroutine(result):
                        await result
            except asyncio.CancelledError:
                raise
            except Exception:  # a bug in one work item must not kill the room
                log.exception("room %s: work item failed", self.id)

    def submit(self, fn: Callable[[], Any]) -> asyncio.Future[Any]:
        """Run ``fn`` (sync or async) in the room's task; the future gets its result or
        exception."""
        fut: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._waiting.add(fut)
        fut.add_done_callback(self._waiting.discard)

        async def item() -> None:
            try:
                res = fn()
                if asyncio.iscoroutine(res):
                    res = await res
            except Exception as exc:  # delivered to the caller
                if not fut.done():
                    fut.set_exception(exc)
            else:
                if not fut.done():
                    fut.set_result(res)

        self._enqueue(item)
        return fut

    async def play(self, conn: Connection, msg: p.Act) -> None:
        """Apply ``conn``'s ``act`` (:meth:`act`) as the room's next work item.

        When the room is idle (no work queued, none running) the action is applied at once in
        the caller's task: the hot path skips the hop through the room's task (a loop
        iteration, a future and a queue round). Otherwise it waits its turn in the queue.
        Either way work items never interleave (``_busy``), and their order is the order they
        arrived in. Should the caller be cancelled while the store is appending, the room is
        marked broken and reloads from the store before its next action (:meth:`_persist`).
        """
        queue = self._queue
        if self._busy.locked() or (queue is not None and not queue.empty()) or self.phase is CLOSED:
            await self.submit(lambda: self.act(conn, msg))
            return
        async with self._busy:  # free: taken without waiting
            await self.act(conn, msg)

    def post(self, fn: Callable[[], Any]) -> None:
        """Queue ``fn`` for the room's task without waiting for it."""
        self._enqueue(fn)

    async def close(self) -> None:
        """Stop the task and timers (the room is being removed, handed over or demoted).
        Callers of :meth:`submit` whose work item has not run get ``server/unavailable``
        (:class:`RoomError`): the room is not run here any more."""
        self.phase = table.step(self.phase, Event.CLOSE)
        for timer in (self._timer, self._bot_timer):
            if timer is not None:
                timer.cancel()
        # The ended tasks are dropped: a cancelled task keeps its CancelledError, whose
        # traceback holds the task's frames and so this room (a reference cycle that only the
        # cycle collector would free: issue #35).
        recovery, self._recovery = self._recovery, None
        if recovery is not None:
            await cancel_until_done(recovery)
        task, self._task = self._task, None
        if task is not None:
            if not self._busy.locked() and self._queue is not None:
                # Idle: woken, it ends by itself. A task ended by a cancellation keeps
                # frames of it (and so this room) alive in a reference cycle.
                self._queue.put_nowait(_noop)
                await asyncio.wait({task}, timeout=1.0)
            exc = await cancel_until_done(task)
            if exc is not None:
                log.error("room %s task ended with %r", self.id, exc)
        for fut in list(self._waiting):
            if not fut.done():
                fut.set_exception(RoomError("server/unavailable", "the room is no longer run "
                                            "by this server process: retry"))
                fut.exception()  # retrieved: no warning when its caller is gone

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

    def lease_current(self) -> bool:
        """True when this copy may send frames: its lease is known to hold for a while yet
        by the local clock (:attr:`lease_until` less :data:`LEASE_MARGIN` of a lease).
        Otherwise the frames of the moment are withheld: another process may own the room
        by now and have sent newer states; once the lease is renewed, every member gets its
        full view (:meth:`confirmed`), and if it is not, this copy is demoted."""
        if self.lease_until == math.inf:
            return True
        margin = LEASE_MARGIN * self.store.lease_seconds
        if asyncio.get_running_loop().time() + margin < self.lease_until:
            return True
        if not self._withheld:
            log.warning("room %s: lease not confirmed current: frames withheld", self.id)
        self._withheld = True
        return False

    def confirmed(self, until: float) -> None:
        """The store renewed the lease, valid until ``until`` (loop time, s); members whose
        frames were withheld meanwhile get their full views (:meth:`resync`)."""
        self.lease_until = until
        if self._withheld:
            self._withheld = False
            self.post(self.resync)

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

    def state(self) -> dict[str, Any]:
        """The server-side state the store keeps beside the log: status, seats (with
        tokens), where each member is connected (``[process, session, seat]``), deadlines
        (``[[seat, unix time s]]``), start and finish times (unix time s, or None), the
        host's session (it changes when the host role is handed on), the last chat lines and
        the muted seats (:mod:`.chat`)."""
        return {"status": self.stored_status, "finished_at": self.finished_at, "host": self.host,
                "chat": list(self.chat), "muted": sorted(self.muted),
                "started_at": self.started_at,
                "seats": [None if h is None else h.stored() for h in self.seats],
                "members": [[c.process, c.session, m.seat] for c, m in self.members.items()],
                "deadlines": [[s, t] for s, t in self.deadlines.items()]}

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
        # None is the field's default, typed Game for the rooms that play (see Room.game)
        room = cls(id=rec["room"], name=rec["name"], game_name=rec["game"],
                   game=cast(Game, game),
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
        room._seat_version = [room.state_id] * room.seat_count
        room._saved_snapshot, room._saved_entries = loaded.snapshot, list(loaded.entries)
        return room

    async def save_state(self) -> None:
        """Write :meth:`state` and the lobby entry to the store now.

        Raises:
            OwnershipLost: another process owns the room now.
            StoreError: the store is unavailable.
        """
        state = self.state()
        self._stored_state = None  # unknown until the store confirms
        await self.store.save_state(self.id, state, self.summary(), lease=self.lease)
        self._stored_state = state

    def _save_soon(self) -> None:
        """Queue one state write after the current work item (coalesced)."""
        if self._save_posted:
            return
        self._save_posted = True

        async def save() -> None:
            self._save_posted = False
            try:
                await self.save_state()
            except OwnershipLost:
                self._lost()
            except StoreError as exc:
                log.warning("room %s: state not saved: %s", self.id, exc)

        self.post(save)

    def _lost(self) -> None:
        """Another process owns the room now: stop running it here."""
        log.warning("room %s: ownership lost", self.id)
        if self.on_lost is not None:
            self.on_lost(self)

    # -- membership (called inside the room task) -----------------------------------------

    def join(self, conn: Connection, seat: int | None) -> tuple[int, str]:
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

    def _seat(self, conn: Connection, seat: int | None) -> tuple[int, str, list[Told]]:
        """The state change of a join, nothing sent, nothing saved: ``conn`` takes ``seat``
        (or the first free seat: :func:`~.table.choose_seat`), and the host role moves as
        :func:`~.table.host_on_join` says. Returns ``(seat, token, seat events to send)``.

        Raises:
            RoomError: ``room/already_started``, ``room/full``, ``room/already_seated``
                (the account of ``conn`` holds a seat here already).
        """
        seat = table.choose_seat(self.phase, self.seats, conn, conn.account, seat,
                                 bool(self.settings.get("multi_seat")))
        move = table.host_on_join(self.seats, conn.session == self.host, self.host)
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
            self.host = holder.conn.session if holder.conn is not None else ""
        return seat, "host"

    def _free_seat(self, seat: int) -> None:
        """Free ``seat`` of a waiting room (its player left, was kicked, or was dropped
        past its grace window) and tell every member (``seat_event left``). When it was the
        host's, the host role goes to :func:`~.table.heir`, who is told with everyone else
        (``seat_event host``); with nobody seated, the next player to sit down gets it.
        """
        holder = self.seats[seat]
        self.seats[seat] = None
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

    def reattach(self, conn: Connection, seat: int | None) -> None:
        """Put a member recorded in the stored state back (after a takeover)."""
        self.members[conn] = Member(seat)
        conn.rooms[self.id] = self
        if seat is not None and self.seats[seat] is not None:
            holder = self.seats[seat]
            assert holder is not None
            holder.conn, holder.grace_until = conn, None

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

    def spectate(self, conn: Connection) -> None:
        """Add ``conn`` as a spectator (a seated connection stays seated)."""
        if conn not in self.members:
            self.members[conn] = Member(None)
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

    def resume(self, conn: Connection, token: str) -> int:
        """Give the seat with ``token`` back to ``conn``. Returns the seat.

        Raises:
            RoomError: ``room/bad_token`` when no seat has that token (or it was forfeited).
        """
        seat = self.find_token(token)
        if seat is None:
            raise RoomError("room/bad_token", "no seat of this room has that token")
        return self._resume_seat(conn, seat)

    def resume_account(self, conn: Connection) -> int:
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

    def _resume_seat(self, conn: Connection, seat: int) -> int:
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
        self._seat_event(seat, "resumed")
        self._schedule()
        return seat

    async def leave(self, conn: Connection) -> None:
        """``conn`` leaves: what becomes of its seat is :func:`~.table.on_leave`'s: a
        waiting seat is freed; a playing seat is abandoned at once; in a finished room
        only the connection goes."""
        member = self.members.pop(conn, None)
        conn.rooms.pop(self.id, None)
        if member is None or member.seat is None:
            if member is not None:
                self._facts_soon()
            return
        holder = self.seats[member.seat]
        if holder is None or holder.conn is not conn:
            return
        holder.conn = None
        leaving = table.on_leave(self.game_phase)
        if leaving is Leaving.FREE:
            self._free_seat(member.seat)
        elif leaving is Leaving.ABANDON:
            self._seat_event(member.seat, "left")
            await self._abandon(member.seat)

    async def kick(self, seat: int) -> str:
        """Remove the player of ``seat`` (an operator's kick, a work item of the room): its
        connection, if any, gets ``error room/kicked`` and an unsolicited ``left`` and is
        detached; the seat's token is voided (it cannot be resumed). Then as a ``leave``
        (:func:`~.table.on_leave`): a waiting room frees the seat; a playing one follows
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
        if conn is not None:
            self.members.pop(conn, None)
            conn.rooms.pop(self.id, None)
            conn.send_error("room/kicked", f"an operator removed you from seat {seat}")
            conn.send(p.Left(room=self.id))
        if leaving is Leaving.FREE:
            self._free_seat(seat)
        elif leaving is Leaving.ABANDON:
            self._seat_event(seat, "left")
            await self._abandon(seat)
        self._save_soon()
        if leaving is Leaving.ABANDON:
            return "bot" if holder.bot else "forfeit"
        return "freed" if leaving is Leaving.FREE else "detached"

    def dropped(self, conn: Connection) -> None:
        """``conn`` lost its connection: hold its seat for the grace window (not in a
        finished room: :func:`~.table.holds_on_drop`)."""
        member = self.members.pop(conn, None)
        conn.rooms.pop(self.id, None)
        if member is None or member.seat is None:
            if member is not None:
                self._save_soon()
                self._facts_soon()
            return
        holder = self.seats[member.seat]
        if holder is None or holder.conn is not conn:
            return
        holder.conn = None
        if not table.holds_on_drop(self.game_phase):
            return
        holder.grace_until = time.time() + self.settings["grace_seconds"]
        self._seat_event(member.seat, "dropped")
        self._schedule()
        self._save_soon()

    async def _abandon(self, seat: int) -> None:
        """The grace window ended (or the player left): bot or forfeit (``on_abandon``)."""
        holder = self.seats[seat]
        if holder is None or self.game_phase is not PLAYING:
            return
        holder.grace_until = None
        if self.settings["on_abandon"] == "bot":
            holder.bot = holder.assisted = True
            self._seat_event(seat, "bot")
            self._save_soon()
            self._wake_bots()
        else:
            if self._broken:  # forfeited by the timer once the room has reloaded
                holder.grace_until = time.time()
                return
            self._seat_event(seat, "forfeit")
            holder.token = ""  # a forfeited seat cannot be resumed (matches no token)
            self._unseated(holder)
            try:
                events = self.game.apply_entry(LogEntry.forfeit(seat))
            except GameError:
                return  # already out of the game
            if not await self._persist(LogEntry.forfeit(seat), events, None, None):
                holder.grace_until = time.time()  # again once the room has reloaded

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

    async def start(self, by: Connection | None, re: Any = None) -> None:
        """Start the game. Empty seats are given to server bots. The started state is saved
        before anyone is told (a process that takes the room over must find it started);
        then every member gets ``started`` (``by``'s carries ``re``), then its view.

        Raises:
            RoomError: ``room/not_host`` (``by`` may not start it:
                :func:`~.table.check_starter`), ``room/already_started``.
            StoreError: the started state could not be saved (:class:`OwnershipLost`:
                another process owns the room); the room is left waiting as it was.
        """
        table.check_starter(self.seats, self.host, by, by.session if by is not None else "")
        told = await self._saved(self._begin_start)
        self._announce_start(told, by, re)

    async def seat_player(self, conn: Connection, seat: int | None, re: Any) -> None:
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
                                 name=f"bot-{s}", bot=True)
        if self.game is None:
            self.game = self.game_cls(self.options, self.seat_count)  # the deal
        self._set_phase(phase)
        self._schedule()  # the deadlines are part of the state the start saves
        return [(s, "bot") for s in to_bots]

    def _announce_start(self, told: list[Told], by: Connection | None, re: Any) -> None:
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
        """Log ``game_finished`` (INFO: room, game, mode, outcome kind, winner, reason,
        turns, duration in s; see :func:`~cardhall.games.outcome_kind`) and count it
        (``cardhall_games_finished_total``, ``cardhall_game_duration_seconds``). The
        duration is None when the start time is unknown (a room stored before it was kept)."""
        outcome = self.game.outcome()
        kind = outcome_kind(outcome)
        duration = None if self.started_at is None else max(0.0, time.time() - self.started_at)
        turns = self.game.stats().get("turns", self.game.state_id)
        event(log, logging.INFO, "game_finished", room=self.id, game=self.game_name,
              mode=self.options.get("mode"), outcome=kind,
              winner=None if outcome is None else outcome.get("winner"),
              reason=None if outcome is None else outcome.get("reason"), turns=turns,
              duration=None if duration is None else round(duration, 3))
        if self.metrics is not None:
            self.metrics.finished[kind].inc()
            if duration is not None:
                self.metrics.duration.observe(duration)

    def _refuse(self, conn: Connection, code: str, message: str, re: Any) -> None:
        """Answer an ``act`` with the error ``code`` and count it as refused."""
        if self.metrics is not None:
            self.metrics.refused.inc()
        conn.send_error(code, message, re)

    # -- actions --------------------------------------------------------------------------

    async def act(self, conn: Connection, msg: p.Act) -> None:
        """Apply an ``act`` request from ``conn`` (as a work item of the room: :meth:`play`);
        replies itself."""
        member = self.members.get(conn)
        if member is None or member.seat is None:
            self._refuse(conn, "room/not_seated", "you hold no seat in this room", msg.id)
            return
        seat = member.seat
        if self._broken:
            self._refuse(conn, "server/unavailable", "the room is reloading its game from the "
                            "store after a failed write: retry shortly", msg.id)
            return
        if self.phase is not PLAYING:  # refused as the transition table says
            try:
                table.step(self.phase, Event.ACT)
            except RoomError as exc:
                self._refuse(conn, exc.code, exc.message, msg.id)
                return
        game = self.game
        if game.over:
            self._refuse(conn, "action/game_over", "the game is over", msg.id)
            return
        if game.TYPE.is_setting(msg.action):  # the seat's own preference: not a move
            await self._set(conn, seat, msg)
            return
        # Turn-based games: any accepted action makes older views stale. Real-time games
        # (several seats acting at once): only actions that touched this seat do (events
        # naming it), so seats racing each other do not refuse each other's actions.
        floor = (self._seat_version[seat] if game.TYPE.real_time(self.options)
                 else game.state_id)
        if not floor <= msg.state_id <= game.state_id:
            self._refuse(conn, "action/stale_state",
                            f"the action was chosen against state {msg.state_id}; the room "
                            f"is at {game.state_id}: choose again from the latest view",
                            msg.id)
            return
        started = time.perf_counter()
        entry = LogEntry.act(seat, msg.action)
        try:
            events = game.apply_entry(entry)
        except GameError as exc:
            if self.metrics is not None:
                self.metrics.refused.inc()
            conn.send(p.error_reply(exc, re=msg.id))
            return
        if await self._persist(entry, events, conn, msg.id):
            observe_action(self.metrics, time.perf_counter() - started)

    async def _set(self, conn: Connection, seat: int, msg: p.Act) -> None:
        """Apply a setting ``act`` (``[name, value]``: :meth:`Game.apply_setting`): the
        seat's own preference, accepted whatever the seat's turn and whatever ``state_id``
        the act carries, since it is no move and leaves ``state_id`` as it is (no seat's
        chosen action goes stale by it). Logged as a setting entry; the update that follows
        has the same ``state_id``."""
        entry = LogEntry.setting(seat, msg.action)
        try:
            events = self.game.apply_entry(entry)
        except GameError as exc:
            if self.metrics is not None:
                self.metrics.refused.inc()
            conn.send(p.error_reply(exc, re=msg.id))
            return
        await self._persist(entry, events, conn, msg.id)

    async def _persist(self, entry: LogEntry, events: list[dict[str, Any]],
                       conn: Connection | None, re: Any) -> bool:
        """Append ``entry`` (already applied to the engine: :meth:`Game.apply_entry`) to the
        store at the engine's :attr:`~Game.log_length` - 1, then announce it.

        Returns False when the store did not confirm it; nobody was told of it then. A
        plain :class:`StoreError` (or a cancelled append) may or may not have written the
        entry: the engine is rolled back at once to the last state the store is known to
        hold (:meth:`_roll_back`), the room is broken until it has reloaded from the store
        (:meth:`_recover`, started here), and ``conn`` is told that the fate of its action
        is unknown (so is a :class:`~.store.LogConflict`: the log grew under this copy's
        own lease, by an earlier append of its own that landed unanswered: the reload picks
        it up). :class:`OwnershipLost` wrote nothing: rolled back, the room is given up
        (:meth:`_lost`).
        """
        sid = self.game.log_length  # the log's length after this entry
        state = self.state()
        unchanged = state == self._stored_state
        self._stored_state = None  # unknown until the store confirms
        try:
            await self.store.append(self.id, [entry], sid - 1, None if unchanged else state,
                                    lease=self.lease)
        except asyncio.CancelledError:
            self._break()  # the entry may or may not have landed: reload first
            raise
        except OwnershipLost as exc:
            log.error("room %s: append refused at log entry %d: %s", self.id, sid, exc)
            self._roll_back()
            self._broken = True  # nothing more is written here: the room moves elsewhere
            if conn is not None:
                conn.send_error("server/unavailable", "the room moved to another server "
                                "process; the action was not applied: retry", re)
            self._lost()
            return False
        except StoreError as exc:
            log.error("room %s: append failed at log entry %d: %s", self.id, sid, exc)
            self._break()
            if conn is not None:
                conn.send_error("server/unavailable", "the room's store did not confirm the "
                                "action, which may or may not have been applied; the room "
                                "reloads from the store, then sends every seat its true "
                                "view: choose again from it", re)
            return False
        self._stored_state = state
        if sid % SNAPSHOT_EVERY == 0:
            snap = self.game.snapshot()
            self._saved_snapshot, self._saved_entries = snap, []
            self.post(lambda: self._snapshot(sid, snap))
        else:
            self._saved_entries.append(entry)
        self._accepted(entry, events, conn, re)
        return True

    def _roll_back(self) -> None:
        """Put the engine back at once to the last state the store is known to hold
        (``_saved_snapshot`` plus ``_saved_entries``): an append failed, and the engine
        must not show what the store may not hold. Left as it is (the room is broken until
        it reloads anyway) if that state cannot be rebuilt, which would be a bug."""
        game, snap = self.game, self._saved_snapshot
        try:
            if isinstance(snap, bytes):
                snap = msgpack.unpackb(snap, strict_map_key=False)
            saved = replay(type(game), game.options, game.seats, self._saved_entries, snap)
        except GameError:
            log.exception("room %s: cannot roll back to the saved state", self.id)
            return
        if saved.log_length != game.log_length - 1:
            log.error("room %s: the saved log entry %d is not the one before the engine's %d",
                      self.id, saved.log_length, game.log_length)
            return
        self.game = saved

    def _break(self) -> None:
        """An append failed or was cancelled: roll back, and reload from the store."""
        self._roll_back()
        self._broken = True
        if self._recovery is None or self._recovery.done():
            self._recovery = asyncio.get_running_loop().create_task(
                self._recover(), name=f"room-{self.id}-reload")

    async def _snapshot(self, sid: int, snap: dict[str, Any]) -> None:
        if self._saved_snapshot is snap:  # kept packed: 4 KiB, not 32 (Skipper, 4 seats)
            self._saved_snapshot = msgpack.packb(snap)
        try:
            await self.store.save_snapshot(self.id, sid, snap)
        except StoreError as exc:
            log.warning("room %s: snapshot %d not saved: %s", self.id, sid, exc)

    def _accepted(self, entry: LogEntry, events: list[dict[str, Any]],
                  conn: Connection | None, re: Any) -> None:
        """After the log holds ``entry``: reply, broadcast, timers, bots, game over."""
        sid = self.game.state_id
        touched = set() if entry.kind == SETTING else {e.get("seat") for e in events} | {
            entry.seat}  # a setting makes no seat's chosen action stale
        for s in touched:
            if isinstance(s, int) and 0 <= s < len(self._seat_version):
                self._seat_version[s] = sid
        if self.game.over:
            self.deadlines.clear()
            self._set_phase(table.step(self.game_phase, Event.FINISH))  # the final update
            # carries it (the room facts' status; see _finish)
        elif entry.kind != SETTING:  # a setting ends no turn
            ends = self.game.TYPE.turn_end_verbs
            if entry.kind == FORFEIT or ends is None or (entry.action or [None])[0] in ends:
                self.deadlines.pop(entry.seat, None)  # that seat's turn is over: a fresh clock
            self._schedule()
        if conn is None:
            self._broadcast(events)
        elif conn.act_reply == "update":  # the update carries the act's id: no ok
            self._broadcast(events, first=conn, re=re)
        else:
            self._broadcast(events, first=conn, lead=p.ok_frame(re))
        if self.game.over:
            self._finish()
            return
        self._wake_bots()

    async def _recover(self) -> None:
        """Reload a broken room from the store (:meth:`_reload`, each try a work item of
        the room) until the store answers: at once, then after exponential backoff with
        jitter (tenacity) from :data:`RELOAD_FIRST_SECONDS` up to :data:`RELOAD_MAX_SECONDS`
        between tries. Goes on while the room is broken (it may break again before this task
        has ended), unless the reload gives up; ends with the room's :meth:`close`."""
        try:
            while self._broken and self.phase is not CLOSED:
                async for attempt in AsyncRetrying(
                        wait=wait_exponential_jitter(multiplier=RELOAD_FIRST_SECONDS,
                                                     max=RELOAD_MAX_SECONDS,
                                                     jitter=RELOAD_JITTER_SECONDS),
                        retry=retry_if_exception_type(StoreError), reraise=True):
                    with attempt:
                        if not await self.submit(self._reload):
                            return
        except Exception:  # a bug: logged, never lost in an unawaited task
            log.exception("room %s: reload failed", self.id)

    async def _reload(self) -> bool:
        """Rebuild the engine from the store (a broken room; a work item of
        :meth:`_recover`); then every member gets the true state, the turn clocks run
        again (a turn that ran out meanwhile is played at once) and server bots move. The
        entry of a failed append may have landed: it may even have ended the game.

        Returns:
            False when the room is given up: gone from the store (handed to
            :meth:`_lost`), or its stored log does not replay (left broken: a bug).

        Raises:
            StoreError: the store is still unavailable.
        """
        if not self._broken or self.phase is CLOSED:
            return True
        try:
            loaded = await self.store.load(self.id, lease=self.lease)
        except OwnershipLost:  # taken over meanwhile (a failover, say): it runs elsewhere
            log.error("room %s: lease lost while reloading; given up", self.id)
            self._lost()
            return False
        if loaded is None:  # deleted or expired meanwhile: nothing to run here any more
            log.error("room %s: gone from the store; given up", self.id)
            self._lost()
            return False
        try:
            game = replay(self.game_cls, loaded.record["options"], loaded.record["seats"],
                          loaded.entries, loaded.snapshot)
        except GameError:
            log.exception("room %s: the stored log does not replay; left broken", self.id)
            return False
        self.game = game
        self._saved_snapshot, self._saved_entries = loaded.snapshot, list(loaded.entries)
        self._broken = False
        self._seat_version = [game.state_id] * game.seats
        log.info("room %s: engine rebuilt from the store at state %d", self.id, game.state_id)
        self._broadcast([])
        if game.over:
            if table.allows(self.game_phase, Event.FINISH):
                self._finish()
            return True
        self._schedule()
        self._wake_bots()
        return True

    def _finish(self) -> None:
        """The game is over (its final update, with the room facts' status ``"finished"``, has
        gone): send ``game_over``, whose ``outcome`` is the view's ``outcome`` plus the key
        ``stats`` (the engine's :meth:`Game.stats`), stop the clocks, save, rank
        (:func:`~.table.ranked_account`). Enters the phase finished unless the final
        update did (:meth:`_accepted`).

        Raises:
            TransitionError: the room never started (``room/not_started``).
        """
        if self.game_phase is not FINISHED:
            self._set_phase(table.step(self.game_phase, Event.FINISH))
        self.finished_at = time.time()
        self._game_finished()
        self.deadlines.clear()
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self.lease_current():
            frame = self._game_over()
            for conn in self.members:
                conn.send(frame)
        self._save_soon()
        if self.ledger is not None:
            self.ledger.finished(self.id, self.name, self.game_name, self.options.get("mode"),
                                 [h.account if h is not None else "" for h in self.seats],
                                 self.game.outcome())
        self._rank()
        if self.on_finish is not None:
            self.on_finish(self)

    def _rank(self) -> None:
        """Put a finished solo game's score on its leaderboard (:mod:`.leaderboard`): only
        a game its person played alone (never a server bot), signed in to an account (a
        guest's counts; an anonymous connection's does not), on a deal the server drew, under
        a board's rules, that counts there. The store keeps the account's best score; a
        failed write is logged (the game is not ranked)."""
        account = table.ranked_account(self.seats, self.chosen_deal)
        if account is None:
            return
        board = leaderboard.board_of(self.game_name, self.options, self.seat_count)
        score = leaderboard.score_of(board, self.game.outcome()) if board else None
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
        outcome = dict(self.game.outcome() or {})
        outcome["stats"] = self.game.stats()
        reveal = {"seed": self.options["seed"], "salt": self.salt} if self.salt else {}
        return p.GameOver(room=self.id, state_id=self.game.state_id, outcome=outcome, **reveal)
