"""A room's driver: :class:`Room` runs one :class:`~.table.Table` in one asyncio task.

Everything that changes a room is an input of its table (:mod:`.table`: a join, an
``act``, the timer, a bot's move, the store's answer...), made inside the room's work
queue (:mod:`~cardhall.server.work`), one at a time, so the engine is never touched
concurrently and every client sees the same order of events (DESIGN "Rooms"). The table
answers with outputs (:mod:`.outputs`) that this driver carries out in order
(:meth:`Room.apply`): it sends, fans out (:func:`.views.send_all`), writes to the store
and gives the store's answer back, arms the timer and the bots' wake-up, and tells the
lobby, the ledger and the metrics. Its own state is only what I/O needs: the queue, the
store, the lease that fences its writes and frames, the timer handles, the reload task.

An ``act`` on an idle room whose store appends at once (:meth:`Store.append_now`: the
memory store, the SQLite store's append journal) is carried out as plain calls in the
caller, the socket's callback that read it (:meth:`Room.act_now`: no task, coroutine, lock
wait or future); what must be awaited (a busy room, a store that cannot append at once, a
``Save`` now) goes on in a coroutine that holds the room's work lock.

An accepted action is appended to the store's log before anyone is told; an append that
fails rolls the engine back at once, and the room (reloading) answers ``get_view`` and
``act`` with ``server/unavailable`` while it reloads from the store with backoff
(:meth:`Room._recover`); then every member gets the true state.

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
import time
from collections.abc import Callable, Coroutine
from typing import Any

from tenacity import AsyncRetrying, retry_if_exception_type, wait_exponential_jitter

from ... import protocol as p
from ...games import Game, GameError, outcome_kind, replay
from ...games.base import SETTING
from .. import leaderboard
from ..accounts.account_store import SeatLedger
from ..logs import event
from ..metrics import GameMetrics, observe_action
from ..phases import Phase
from ..store.ports import Lease, Loaded, OwnershipLost, Store, StoreError
from ..tasks import cancel_until_done
from ..work import WorkQueue
from . import views
from .outputs import Append, Bots, Fanout, Notice, Output, Result, Save, Send, Timer
from .seats import Peer
from .table import REAL_TIME_BOT_SECONDS as REAL_TIME_BOT_SECONDS  # re-exported
from .table import SNAPSHOT_EVERY as SNAPSHOT_EVERY  # re-exported
from .table import Table

log = logging.getLogger("cardhall.room")
WAITING, PLAYING, FINISHED = Phase.WAITING, Phase.PLAYING, Phase.FINISHED

#: This module runs compiled (mypyc, setup.py): its classes are native.
COMPILED = not __file__.endswith(".py")
#: Seconds between a broken room's reloads from its store: doubling from the first to the
#: last, plus up to RELOAD_JITTER_SECONDS at random (see :meth:`Room._recover`).
RELOAD_FIRST_SECONDS = 0.05
RELOAD_MAX_SECONDS = 2.0
RELOAD_JITTER_SECONDS = 0.25
#: Share of a lease's length before its end at which a room stops sending frames unless
#: the lease was renewed meanwhile (issue #35).
LEASE_MARGIN = 0.2


class Room:
    """One room: its :class:`~.table.Table` (:attr:`table`, all of its state) and what
    drives it. Create with :meth:`Lobby.create_room`, never directly (tests do).

    Attributes:
        id: Room id (8 hex characters; the table's).
        table: The room's state and rules (:class:`~.table.Table`).
        store: The store it is written to.
        work: Its work queue: every input runs in it, one at a time.
        lease: The store lease this copy runs under, passed to its fenced writes (None:
            unfenced, a bare room in tests).
        lease_until: Loop time (s) until which :attr:`lease` is known to hold (infinite: a
            lease that never expires): past it less :data:`LEASE_MARGIN` of a lease, this
            copy sends nothing (:meth:`lease_current`).
        on_finish, on_lost, on_seats: The lobby's callbacks: the game is over; another
            process owns the room; a waiting room's seat was taken or freed (True: freed
            when its grace window ended).
        ledger: Told when an account takes or gives up a seat and when the game ends.
        metrics: The game's metrics (None in bare tests).
    """

    id: str
    table: Table
    store: Store
    work: WorkQueue
    lease: Lease | None
    lease_until: float
    on_finish: Callable[[Room], None] | None
    on_lost: Callable[[Room], None] | None
    on_seats: Callable[[Room, bool], None] | None
    ledger: SeatLedger | None
    metrics: GameMetrics | None
    _timer: asyncio.TimerHandle | None
    _bot_timer: asyncio.TimerHandle | None
    _recovery: asyncio.Task[None] | None
    #: ``"save"``, ``"facts"``: a coalesced write or facts frame is queued; ``"withheld"``:
    #: frames were withheld for want of a current lease (all resent once it is renewed).
    _flags: set[str]

    def __init__(self, id: str, name: str, game_name: str, settings: dict[str, Any],
                 store: Store, *, private: bool = False, code: str | None = None,
                 host: str = "", phase: Phase = WAITING, game: Game | None = None,
                 game_cls: type[Game] | None = None, options: dict[str, Any] | None = None,
                 seat_count: int = 0, chosen_deal: bool = False, salt: str | None = None,
                 created: float | None = None,
                 on_finish: Callable[[Room], None] | None = None,
                 on_lost: Callable[[Room], None] | None = None,
                 on_seats: Callable[[Room, bool], None] | None = None,
                 ledger: SeatLedger | None = None, lease: Lease | None = None) -> None:
        self.id, self.store = id, store
        self.table = Table(id, name, game_name, settings, private=private, code=code,
                           host=host, phase=phase, game=game, game_cls=game_cls,
                           options=options, seat_count=seat_count, chosen_deal=chosen_deal,
                           salt=salt, created=created, owner=self)
        self.work = WorkQueue(f"room-{id}")
        self.lease, self.lease_until = lease, math.inf
        self.on_finish, self.on_lost, self.on_seats = on_finish, on_lost, on_seats
        self.ledger, self.metrics = ledger, None
        self._timer = self._bot_timer = None
        self._recovery = None
        self._flags = set()

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
                   phase=phase, created=rec.get("created", 0.0), salt=rec.get("salt", ""),
                   chosen_deal=rec.get("chosen_deal", True))  # unknown: never ranked
        room.table.loaded(st, loaded.snapshot, loaded.entries)
        return room

    # -- the work queue ----------------------------------------------------------------

    def start_task(self) -> None:
        """Let the room's task run (a waiting room nobody entered holds no task)."""
        self.work.start()

    def submit(self, fn: Callable[[], Any]) -> asyncio.Future[Any]:
        """Run ``fn`` (sync or async) in the room's task; the future gets its result or
        exception."""
        return self.work.submit(fn)

    def post(self, fn: Callable[[], Any]) -> None:
        """Queue ``fn`` for the room's task without waiting for it."""
        self.work.post(fn)

    async def play(self, conn: Peer, msg: p.Act) -> None:
        """Apply ``conn``'s ``act`` (:meth:`Table.act`) as the room's next work item
        (:meth:`act_now`, awaiting what it leaves to finish).

        Raises:
            RoomError: the act was refused. StoreError: as :meth:`apply`.
        """
        rest = self.act_now(conn, msg)
        if rest is not None:
            await rest

    def act_now(self, conn: Peer, msg: p.Act) -> Coroutine[Any, Any, None] | None:
        """Apply ``conn``'s ``act`` (:meth:`Table.act`) as the room's next work item: when
        the room is idle (:meth:`WorkQueue.idle`), at once, as plain calls holding its work
        lock (no task, coroutine or future: :func:`_apply_now`) as far as no output must be
        awaited; else, or from the first output that must be (a store that cannot append
        at once, a ``Save`` now), in a coroutine. Work items never interleave either way.

        Returns:
            None when the act is carried out; else the coroutine that carries it out, which
            the caller must run at once (``await`` it, or start it eagerly:
            :func:`~cardhall.server.tasks.start_eagerly`): it holds the room's work lock
            already, and releases it when it ends.

        Raises:
            RoomError: the act was refused (:meth:`Table.act`). Whatever a bug raised.
        """
        work = self.work
        if not work.idle():
            return _act_queued(self, conn, msg)
        busy = work.busy
        busy.hold()
        try:
            rest = _apply_now(self, self.table.act(conn, msg))
        except BaseException:
            busy.release()
            raise
        if rest is None:
            busy.release()
            return None
        return _held(self, rest)

    async def close(self) -> None:
        """Stop the task and timers (removed, handed over or demoted). Callers of
        :meth:`submit` whose work item has not run get ``server/unavailable``."""
        self.table.close()
        self.work.closed = True  # nothing starts the task from here
        for timer in (self._timer, self._bot_timer):
            if timer is not None:
                timer.cancel()
        recovery, self._recovery = self._recovery, None
        if recovery is not None:  # dropped: a cancelled task's traceback holds the room
            await cancel_until_done(recovery)
        await self.work.close()

    # -- carrying out the table's outputs ----------------------------------------------

    async def apply(self, outs: list[Output]) -> Any:
        """Carry out the table's outputs ``outs`` in order (inside the room's task): sends,
        fan-outs (fenced by the lease), store writes (an append's answer goes back to the
        table, and what it returns is carried out in turn), the timer, the bots, notices.

        Returns:
            The value of a :class:`~.outputs.Result` among them (None: none).

        Raises:
            StoreError: a :class:`~.outputs.Save` ``now`` failed (the table was put back
                with its ``undo``; nothing after it was carried out).
        """
        value = None
        for out in outs:
            if isinstance(out, Append):
                rest = _append_now(self, out)
                if rest is not None:
                    await rest
            elif isinstance(out, Save) and out.now:
                try:
                    await self.save_state()
                except StoreError:
                    if out.undo is not None:
                        await self.apply(self.table.undo(out.undo))
                    raise
            elif isinstance(out, Result):
                value = out.value
            else:
                _carry(self, out)
        return value

    def _notice(self, out: Notice) -> None:
        """Tell the world outside the room (:class:`~.outputs.Notice`)."""
        what, args, table = out.what, out.args, self.table
        mode = table.options.get("mode")
        if what == "seats":
            if self.on_seats is not None and table.phase is WAITING:
                self.on_seats(self, args[0])
        elif what == "seated" or what == "unseated":
            if self.ledger is not None and what == "seated":
                self.ledger.seated(args[0], self.id, args[1], table.game_name, mode)
            elif self.ledger is not None:
                self.ledger.unseated(args[0], self.id)
        elif what == "facts":
            if "facts" not in self._flags:  # coalesced: a crowd coming costs one frame each
                self._flags.add("facts")

                def send() -> None:
                    self._flags.discard("facts")
                    if self.lease_current():  # else the renewal's resync sends them
                        views.facts_changed(table)

                self.post(send)
        elif what == "refused":
            if self.metrics is not None:
                self.metrics.refused.inc()
        elif what == "reload":
            if self._recovery is None or self._recovery.done():
                self._recovery = asyncio.get_running_loop().create_task(
                    self._recover(), name=f"room-{self.id}-reload")
        elif what == "snapshot" or what == "rank":
            self.post(lambda: self._write(what, args))
        elif what == "lost":
            log.warning("room %s: ownership lost", self.id)
            if self.on_lost is not None:
                self.on_lost(self)
        elif what == "finished":
            if self.on_finish is not None:
                self.on_finish(self)
        else:
            self._record(what)

    async def _write(self, what: str, args: tuple[Any, ...]) -> None:
        """The side writes of a notice: ``"snapshot"`` (the store's engine snapshot),
        ``"rank"`` (the leaderboard). A failed write is logged."""
        table = self.table
        if what == "snapshot":
            sid, snap = args
            table.pack(snap)
            try:
                await self.store.save_snapshot(self.id, sid, snap)
            except StoreError as exc:
                log.warning("room %s: snapshot %d not saved: %s", self.id, sid, exc)
        elif what == "rank":
            game = table.dealt()
            board = leaderboard.board_of(table.game_name, table.options, table.seat_count)
            score = leaderboard.score_of(board, game.outcome()) if board else None
            if board is None or score is None:
                return
            try:
                await self.store.record_score(board.id, args[0], board.rank_value(score),
                                              leaderboard.BOARD_SIZE)
            except StoreError as exc:
                log.warning("room %s: score not ranked: %s", self.id, exc)

    def _record(self, what: str) -> None:
        """``"started"`` or ``"ended"`` (a notice): the ``game_started`` /
        ``game_finished`` log line (INFO), its metrics, and the ledger ("My games")."""
        table = self.table
        mode = table.options.get("mode")
        if what == "started":
            bots_ = sum(1 for h in table.seats if h is not None and h.bot)
            event(log, logging.INFO, "game_started", room=self.id, game=table.game_name,
                  mode=mode, seats=table.seat_count, humans=table.seat_count - bots_,
                  bots=bots_)
            if self.metrics is not None:
                self.metrics.started.inc()
        else:
            game = table.dealt()
            outcome = game.outcome()
            kind = outcome_kind(outcome)
            duration = (None if table.started_at is None
                        else max(0.0, time.time() - table.started_at))
            event(log, logging.INFO, "game_finished", room=self.id, game=table.game_name,
                  mode=mode, outcome=kind,
                  winner=None if outcome is None else outcome.get("winner"),
                  reason=None if outcome is None else outcome.get("reason"),
                  turns=game.stats().get("turns", game.state_id),
                  duration=None if duration is None else round(duration, 3))
            if self.metrics is not None:
                self.metrics.finished[kind].inc()
                if duration is not None:
                    self.metrics.duration.observe(duration)
            if self.ledger is not None:
                self.ledger.finished(self.id, table.name, table.game_name, mode,
                                     [h.account if h is not None else "" for h in table.seats],
                                     outcome)

    # -- the store -----------------------------------------------------------------------

    async def save_state(self) -> None:
        """Write the table's state and the lobby entry to the store now.

        Raises:
            OwnershipLost: another process owns the room now.
            StoreError: the store is unavailable.
        """
        state = self.table.state()
        self.table.stored(None)  # unknown until the store confirms
        await self.store.save_state(self.id, state, self.table.summary(), lease=self.lease)
        self.table.stored(state)

    def _save_soon(self) -> None:
        """Queue one state write after the current work item (coalesced)."""
        if "save" in self._flags:
            return
        self._flags.add("save")

        async def save() -> None:
            self._flags.discard("save")
            try:
                await self.save_state()
            except OwnershipLost:
                self._notice(Notice("lost"))
            except StoreError as exc:
                log.warning("room %s: state not saved: %s", self.id, exc)

        self.post(save)

    async def _recover(self) -> None:
        """Reload a reloading room from the store (each try a work item of the room) until
        the store answers: at once, then after exponential backoff with jitter (tenacity)
        from :data:`RELOAD_FIRST_SECONDS` up to :data:`RELOAD_MAX_SECONDS`. Given up when the
        room is gone from the store, owned elsewhere, or its log does not replay."""

        async def reload() -> bool:
            table = self.table
            if not table.reloading or table.closed:
                return True
            try:
                loaded = await self.store.load(self.id, lease=self.lease)
            except OwnershipLost:  # taken over meanwhile: it runs elsewhere
                log.error("room %s: lease lost while reloading; given up", self.id)
                self._notice(Notice("lost"))
                return False
            if loaded is None:  # deleted or expired meanwhile
                log.error("room %s: gone from the store; given up", self.id)
                self._notice(Notice("lost"))
                return False
            try:
                outs = table.reloaded(loaded.entries, loaded.snapshot)
            except GameError:
                log.exception("room %s: the stored log does not replay; left broken", self.id)
                return False
            log.info("room %s: engine rebuilt from the store at state %d", self.id,
                     table.state_id)
            await self.apply(outs)
            return True

        try:
            while self.table.reloading and not self.table.closed:
                async for attempt in AsyncRetrying(
                        wait=wait_exponential_jitter(multiplier=RELOAD_FIRST_SECONDS,
                                                     max=RELOAD_MAX_SECONDS,
                                                     jitter=RELOAD_JITTER_SECONDS),
                        retry=retry_if_exception_type(StoreError), reraise=True):
                    with attempt:
                        if not await self.submit(reload):
                            return
        except Exception:  # a bug: logged, never lost in an unawaited task
            log.exception("room %s: reload failed", self.id)

    # -- timers and bots -------------------------------------------------------------------

    def _arm(self, at: float | None, bots: bool = False) -> None:
        """Arm the room's one timer for ``at`` (unix time s; None: disarm); with ``bots``,
        the bots' wake-up has come: queue a bot's move."""
        if bots:
            self._bot_timer = None
            self.post(self._bot_step)
            return
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if at is not None:
            loop = asyncio.get_running_loop()
            due = loop.time() + max(0.0, at - time.time())
            self._timer = loop.call_at(due, self.post, self._on_timer)

    async def _on_timer(self) -> None:
        """The timer fired: :meth:`Table.timer`."""
        self._timer = None
        await self.apply(self.table.timer(time.time()))

    async def _bot_step(self) -> None:
        """One server bot's move (:meth:`Table.bot_turn`): the strategy decides in a worker
        thread (a planning bot must not stall the other rooms; the room's next work item
        waits for this one meanwhile), then :meth:`Table.bot_move`."""
        await asyncio.sleep(0)  # a room of bots must not starve the other rooms
        turn = self.table.bot_turn()
        if turn is None:
            return
        seat, decide = turn
        action = await asyncio.to_thread(decide)
        await self.apply(self.table.bot_move(seat, action))

    # -- the lease -----------------------------------------------------------------------

    def lease_current(self) -> bool:
        """True when this copy may send frames: its lease is known to hold for a while yet
        by the local clock. Otherwise the frames are withheld (another process may own the
        room by now); once the lease is renewed every member gets its full view
        (:meth:`confirmed`)."""
        if self.lease_until == math.inf:
            return True
        margin = LEASE_MARGIN * self.store.lease_seconds
        if asyncio.get_running_loop().time() + margin < self.lease_until:
            return True
        if "withheld" not in self._flags:
            log.warning("room %s: lease not confirmed current: frames withheld", self.id)
        self._flags.add("withheld")
        return False

    def confirmed(self, until: float) -> None:
        """The store renewed the lease, valid until ``until`` (loop time, s); members whose
        frames were withheld meanwhile get their full views (:meth:`Table.resync`)."""
        self.lease_until = until
        if "withheld" in self._flags:
            self._flags.discard("withheld")
            self.post(lambda: self.apply(self.table.resync()))


# -- the parts of a work item, for the room's own methods ---------------------------------


def _apply_now(room: Room, outs: list[Output]) -> Coroutine[Any, Any, Any] | None:
    """Carry out ``outs`` as :meth:`Room.apply` does, as plain calls, up to the first output
    that must be awaited (an append the store cannot answer at once, a
    :class:`~.outputs.Save` ``now``). A :class:`~.outputs.Result`'s value is dropped.

    Returns:
        None when every output was carried out; else a coroutine carrying out the rest,
        which the caller must await at once (still inside the work item).
    """
    n = len(outs)
    for i in range(n):
        out = outs[i]
        if isinstance(out, Append):
            rest = _append_now(room, out)
            if rest is not None:
                return rest if i + 1 == n else _then(room, rest, outs[i + 1:])
        elif isinstance(out, Save) and out.now:
            return room.apply(outs[i:])
        elif not isinstance(out, Result):
            _carry(room, out)
    return None


async def _act_queued(room: Room, conn: Peer, msg: p.Act) -> None:
    """``conn``'s ``act`` as a work item queued behind those waiting (a busy room)."""
    await room.work.submit(lambda: room.apply(room.table.act(conn, msg)))


async def _held(room: Room, rest: Coroutine[Any, Any, Any]) -> None:
    """Await ``rest`` (a work item's end), then release the work lock it holds."""
    try:
        await rest
    finally:
        room.work.busy.release()


async def _then(room: Room, first: Coroutine[Any, Any, Any], outs: list[Output]) -> None:
    """Await ``first``, then carry out ``outs`` (:meth:`apply`)."""
    await first
    await room.apply(outs)


def _carry(room: Room, out: Output) -> None:
    """Carry out an output that never waits: a send, a fan-out, a save soon, the timer,
    the bots, a notice."""
    if isinstance(out, Fanout):
        if room.lease_current():
            views.send_all(room.table, out)
    elif isinstance(out, Send):
        msg, to = out.msg, out.to
        if to is not None:
            if isinstance(msg, (p.Update, p.GameOver)) and not room.lease_current():
                _withhold(to, msg)
            else:
                to.send_raw(msg) if isinstance(msg, bytes) else to.send(msg)
        elif not out.fenced or room.lease_current():
            frame = msg if isinstance(msg, bytes) else p.encode(msg)
            for conn in room.table.members:
                conn.send_raw(frame)
    elif isinstance(out, Timer):
        room._arm(out.at)
    elif isinstance(out, Notice):
        room._notice(out)
    elif isinstance(out, Save):
        room._save_soon()
    else:
        assert isinstance(out, Bots)
        if room._bot_timer is None:
            if out.delay <= 0:
                room.post(room._bot_step)
            else:
                room._bot_timer = asyncio.get_running_loop().call_later(
                    out.delay, room._arm, None, True)


def _withhold(to: Peer, msg: p.Update | p.GameOver) -> None:
    """A member's own view (``get_view``'s reply, a resend) or ``game_over`` from a copy
    whose lease is not confirmed current: it may be older than what the room's new owner
    has sent the member (issue #35: a stalled owner woken up), so it is not sent. A
    ``get_view`` is answered ``server/unavailable`` (ask again shortly: the renewal or the
    new owner sends the view anyway)."""
    re = msg.re if isinstance(msg, p.Update) else None
    if re is not None:
        to.send_error("server/unavailable", "this server cannot confirm it still runs the "
                      "room; ask again shortly", re)


def _append_now(room: Room, out: Append) -> Coroutine[Any, Any, Any] | None:
    """Append ``out.entry`` to the store at the engine's log length - 1 (with the state,
    unless the store holds it already), then carry out the table's answer
    (:meth:`Table.appended`, or :meth:`Table.failed`: a plain :class:`StoreError` may or
    may not have landed, :class:`OwnershipLost` wrote nothing): as plain calls when the
    store answers at once (:meth:`Store.append_now`) and the answer's outputs never
    wait (:func:`_apply_now`).

    Returns:
        None when done; else the coroutine that finishes it (the caller awaits it).
    """
    table = room.table
    sid = table.dealt().log_length
    state = table.state()
    written = None if table.unchanged(state) else state
    table.stored(None)  # unknown until the store confirms
    try:
        done = room.store.append_now(room.id, [out.entry], sid - 1, written,
                                     lease=room.lease)
    except OwnershipLost as lost:  # not `exc`: mypyc types a name by its first except
        log.error("room %s: append refused at log entry %d: %s", room.id, sid, lost)
        return _apply_now(room, table.failed(out, lost=True))
    except StoreError as exc:
        log.error("room %s: append failed at log entry %d: %s", room.id, sid, exc)
        return _apply_now(room, table.failed(out, lost=False))
    if not done:
        return _append(room, out, sid, state, written)
    rest = _apply_now(room, table.appended(out, state))
    if rest is not None:
        return _observed(room, rest, out)
    _observe(room, out)
    return None


async def _append(room: Room, out: Append, sid: int, state: dict[str, Any],
                  written: dict[str, Any] | None) -> None:
    """:func:`_append_now` through the store's awaited :meth:`Store.append` (``sid``:
    the engine's log length; ``written``: ``state``, or None when the store holds it).
    A cancelled append may or may not have landed: rolled back, nobody told."""
    table = room.table
    try:
        await room.store.append(room.id, [out.entry], sid - 1, written, lease=room.lease)
    except asyncio.CancelledError:
        await room.apply(table.failed(out, lost=False, told=False))
        raise
    except OwnershipLost as lost:  # not `exc`: mypyc types a name by its first except
        log.error("room %s: append refused at log entry %d: %s", room.id, sid, lost)
        await room.apply(table.failed(out, lost=True))
        return
    except StoreError as exc:
        log.error("room %s: append failed at log entry %d: %s", room.id, sid, exc)
        await room.apply(table.failed(out, lost=False))
        return
    await room.apply(table.appended(out, state))
    _observe(room, out)


async def _observed(room: Room, rest: Coroutine[Any, Any, Any], out: Append) -> None:
    """Await ``rest`` (what followed ``out``'s append), then :func:`_observe` it."""
    await rest
    _observe(room, out)


def _observe(room: Room, out: Append) -> None:
    """The metrics of an action whose append was confirmed and answered (an act's
    time from its arrival)."""
    if out.origin == "bot":
        observe_action(room.metrics, None)
    elif out.origin == "act" and out.entry.kind != SETTING:
        observe_action(room.metrics, time.perf_counter() - out.started)


# -- work items of a room's inputs, for callers that post them ---------------------------


async def dropped(room: Room, conn: Peer) -> None:
    """``conn`` lost its connection: :meth:`Table.drop` carried out (a work item)."""
    await room.apply(room.table.drop(conn))


async def resend(room: Room, conn: Peer) -> None:
    """Member ``conn`` may have missed frames (its process's inbox was unreachable): its
    full view again (:meth:`Table.resend`); nothing while the lease is not confirmed
    current (its renewal resends it all)."""
    if room.lease_current():
        await room.apply(room.table.resend(conn))


async def resync(room: Room) -> None:
    """After a takeover: every member's full view, the timers and bots go on
    (:meth:`Table.resync`)."""
    await room.apply(room.table.resync())
