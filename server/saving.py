"""A room's durability: its state in the store, the appends of its log, and its reload.

:class:`RoomSaving` holds the :class:`~cardhall.server.room.Room` methods that write the
room to its store and read it back. An accepted action is appended to the store's log
before anyone is told (:meth:`RoomSaving._persist`). The engine never shows what the store
may not hold: an append that fails rolls it back at once to the last stored state
(:meth:`RoomSaving._roll_back`), and the room, broken, answers ``get_view`` and ``act`` with
``server/unavailable`` while it reloads from the store with backoff
(:meth:`RoomSaving._recover`); then every member gets the true state, and turn timers and
server bots go on. Frames are fenced by the room's lease (:meth:`RoomSaving.lease_current`).
"""

from __future__ import annotations

import asyncio
import logging
import math
from typing import Any

import msgpack
from mypy_extensions import trait
from tenacity import AsyncRetrying, retry_if_exception_type, wait_exponential_jitter

from ..games import GameError, replay
from . import play
from .room_parts import Peer, RoomParts
from .store.ports import OwnershipLost, StoreError
from .play import Append
from .table import Phase

log = logging.getLogger("cardhall.room")
CLOSED = Phase.CLOSED

SNAPSHOT_EVERY = 64  # log entries between engine snapshots in the store
#: Seconds between a broken room's reloads from its store: doubling from the first to the
#: last, plus up to RELOAD_JITTER_SECONDS at random, so that the rooms an outage broke do
#: not all ask the store at the same moments (see :meth:`RoomSaving._recover`).
RELOAD_FIRST_SECONDS = 0.05
RELOAD_MAX_SECONDS = 2.0
RELOAD_JITTER_SECONDS = 0.25
#: Share of a lease's length before its end at which a room stops sending frames unless
#: the lease was renewed meanwhile (issue #35: a process woken after a pause longer than its
#: leases sent frames of rooms another process had taken over).
LEASE_MARGIN = 0.2


@trait
class RoomSaving(RoomParts):
    """The store writes, rollback, reload and lease fencing of a
    :class:`~cardhall.server.room.Room` (a base class of it, so that its state stays in one
    place; these methods run inside the room task)."""

    __slots__ = tuple[str, ...]()

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

    async def _persist(self, append: Append, conn: Peer | None, re: Any) -> bool:
        """Append ``append.entry`` (already applied to the engine: :func:`~.play.act`) to
        the store at the engine's :attr:`~Game.log_length` - 1, then carry out what follows
        (:func:`~.play.appended`: the sends come after the store holds the entry).

        Returns False when the store did not confirm it; nobody was told of it then, and
        :func:`~.play.append_failed` is carried out. A plain :class:`StoreError` (or a
        cancelled append) may or may not have written the entry: the engine is rolled back
        at once to the last state the store is known to hold (:meth:`_roll_back`), the room
        is broken until it has reloaded from the store (:meth:`_recover`, started here),
        and ``conn`` is told that the fate of its action is unknown (so is a
        :class:`~.store.LogConflict`: the log grew under this copy's own lease, by an
        earlier append of its own that landed unanswered: the reload picks it up).
        :class:`OwnershipLost` wrote nothing: rolled back, the room is given up
        (:meth:`_lost`).
        """
        entry = append.entry
        game = self.dealt()
        sid = game.log_length  # the log's length after this entry
        state = self.state()
        unchanged = state == self._stored_state
        self._stored_state = None  # unknown until the store confirms
        try:
            await self.store.append(self.id, [entry], sid - 1, None if unchanged else state,
                                    lease=self.lease)
        except asyncio.CancelledError:
            self._break()  # the entry may or may not have landed: reload first
            raise
        except OwnershipLost as lost:  # not `exc`: mypyc types a name by its first except
            log.error("room %s: append refused at log entry %d: %s", self.id, sid, lost)
            self._carry_out(play.append_failed(lost=True), conn, re)
            return False
        except StoreError as exc:
            log.error("room %s: append failed at log entry %d: %s", self.id, sid, exc)
            self._carry_out(play.append_failed(lost=False), conn, re)
            return False
        self._stored_state = state
        if sid % SNAPSHOT_EVERY == 0:
            snap = game.snapshot()
            self._saved_snapshot, self._saved_entries = snap, []
            self.post(lambda: self._snapshot(sid, snap))
        else:
            self._saved_entries.append(entry)
        self._carry_out(play.appended(self.game_phase, game, entry, append.events), conn, re)
        return True

    def _roll_back(self) -> None:
        """Put the engine back at once to the last state the store is known to hold
        (``_saved_snapshot`` plus ``_saved_entries``): an append failed, and the engine
        must not show what the store may not hold. Left as it is (the room is broken until
        it reloads anyway) if that state cannot be rebuilt, which would be a bug."""
        game, snap = self.dealt(), self._saved_snapshot
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
        """An append was cancelled: roll back, and reload from the store."""
        self._roll_back()
        self._reload_soon()

    def _reload_soon(self) -> None:
        """The room is broken (it serves nothing) until it has reloaded from the store:
        start the reloads (:meth:`_recover`) unless they run already."""
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
        log.info("room %s: engine rebuilt from the store at state %d", self.id, game.state_id)
        self._carry_out(play.reloaded(self.game_phase, game))
        return True
