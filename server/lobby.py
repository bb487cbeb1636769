"""The lobby: rooms run by this process, room creation, matchmaking and routing.

With a shared store, the lobby directory and every room's record live in the store; this
process runs the rooms whose lease it holds (``rooms``) and routes requests for the others to
their owner (:meth:`Lobby.route`), taking a room over when its owner is gone.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import math
import secrets
from typing import Any, Protocol

from .. import protocol as p
from .. import games
from .accounts.account_store import SeatLedger
from .config import Settings
from .metrics import bind_game
from ..games import GameError, OptionError
from .room import Peer
from .room import Room, RoomError, resync, split_options
from .room.rules import DAY_SECONDS, KEEP_FOR_EVER
from .phases import Phase
from .store.ports import Lease, OwnershipLost, Store, StoreError
from .tasks import SHUTDOWN_GRACE, Background
from . import archive, visibility


class Cluster(Protocol):
    """What the lobby needs of the cluster (:class:`~cardhall.server.cluster.Cluster`,
    declared here so the lobby does not import the layers above it)."""

    def reattach(self, room: Room, members: list[list[Any]]) -> None:
        """After a takeover: put back the room's recorded ``members`` (``[process, session,
        seat]`` lists): local connections still open, and peers of other processes."""


log = logging.getLogger("cardhall.lobby")
_CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I
#: Characters of a join code: 32**10 = 2**50 codes, so that guessing one of 1,000 waiting
#: private rooms' codes takes about 10**5 years at the failed look-up limit of one address
#: (docs/operations.md, "Join codes").
CODE_LENGTH = 10
#: Engine options that fix the deal: only solo rooms (one seat) may set them; in a room of
#: several seats the server draws the seed itself (protocol/README.md, "Fair deals").
DEAL_OPTIONS = ("seed", "deck")
#: Quick join reads at most this many pages of this many waiting rooms before it makes a
#: fresh room (the index holds only waiting public rooms with a free seat, so the first
#: page nearly always has a fit; only a seat count or mode filter can skip rooms).
QUICK_PAGES, QUICK_PAGE = 8, 64


class Lobby:
    """The rooms of this process and the way to the others.

    Args:
        store: Where room records, logs and leases live.
        settings: Server settings (room limit, finished-room time to live).
        cluster: Forwarding and takeover (reattaches members after a takeover).
    """

    def __init__(self, store: Store, settings: Settings, cluster: Cluster) -> None:
        self.store = store
        self.settings = settings
        self.cluster = cluster
        self.rooms: dict[str, Room] = {}
        self.metrics: Any = None  # set by the server
        #: Told of every account's seats and finished games ("My games"; set by the server).
        self.ledger: SeatLedger | None = None
        #: Checks rated rooms and rates their games (:class:`.rated.Rater`; set by the server).
        self.rater: Any = None
        self._loading: dict[str, asyncio.Future[Room | None]] = {}
        #: Demotions, expiries and removals of finished rooms, stopped by :meth:`close`.
        self.background = Background()
        self._removals: dict[str, asyncio.TimerHandle] = {}
        #: Finished rooms being archived (:mod:`.archive`): a removal waits for it.
        self._archiving: dict[str, asyncio.Task[Any]] = {}
        #: Set by a drain (:mod:`.admin`): no room is created or taken over here any more.
        self.draining = False
        #: Waiting rooms of this process nobody sits in, by id: the loop time since when,
        #: oldest first (removed after ``empty_room_ttl``: :meth:`_sweep_empty`).
        self._empty: dict[str, float] = {}
        self._sweep: asyncio.TimerHandle | None = None

    def find(self, room_id: str) -> Room:
        """The room ``room_id`` run by this process.

        Raises:
            RoomError: ``room/not_found``.
        """
        room = self.rooms.get(room_id)
        if room is None:
            raise visibility.hidden(room_id)
        return room

    async def route(self, room_id: str) -> Room | str:
        """Where ``room_id`` runs: the local :class:`Room`, or the owner's process id. A room
        nobody owns (its owner died) is taken over here, once: however many requests route
        to it at once, this process runs one copy (see :meth:`_take_over`). Right after the
        store came back from an outage, an ownerless room is not taken over before its
        owner had a lease's time to renew (:class:`~.store.StoreHealth`).

        Raises:
            RoomError: ``room/not_found`` (no such room in the store).
            StoreError: the store is unavailable.
        """
        for _ in range(4):
            room = self.rooms.get(room_id)
            if room is not None:
                return room
            pending = self._loading.get(room_id)
            if pending is not None:
                taken = await asyncio.shield(pending)
                if taken is not None:
                    return taken
                continue  # another process acquired it first: look up its owner
            owner = await self.store.owner(room_id)
            room = self.rooms.get(room_id)  # a takeover here may have ended meanwhile
            if room is not None:
                return room
            if owner is not None and owner != self.store.process_id:
                return owner
            if self.draining and self.store.shared:
                # Draining: another process takes the room over; wait for it.
                return await self._new_owner(room_id)
            health = self.store.health
            if owner is None and not health.may_take_over():
                await asyncio.sleep(health.until_takeover())  # its owner may be renewing
                continue
            taken = await self._take_over(room_id)
            if taken is not None:
                return taken
        raise StoreError(f"room {room_id} changes owner too often")

    async def _new_owner(self, room_id: str) -> str:
        """The process that takes ``room_id`` over from this draining one (polled every
        0.1 s for at most a lease and two orphan scans).

        Raises:
            RoomError: ``server/unavailable`` when no process took it over in time.
            StoreError: the store is unavailable.
        """
        deadline = asyncio.get_running_loop().time() + self.store.lease_seconds + 2.0
        while asyncio.get_running_loop().time() < deadline:
            owner = await self.store.owner(room_id)
            if owner is not None and owner != self.store.process_id:
                return owner
            await asyncio.sleep(0.1)
        raise RoomError("server/unavailable", "this server is draining and no other server "
                        "took the room over yet; retry")

    async def hand_over(self, room: Room) -> None:
        """Give ``room`` up for another process to take over (a drain): this copy stops
        between two work items (none is cut midway), its state is saved and its lease
        released; the other processes' orphan scans take it over within a second, and
        they reattach its members. Local members are then served through forwarding.

        Raises:
            StoreError: the state could not be saved or the lease released (the room stays
                stopped here; its lease expires and it is taken over all the same).
        """
        async with room.work.busy:  # no work item or action is running, none starts
            await self.demote(room, quiet=True)
            try:
                await room.save_state()
            except OwnershipLost:
                return  # taken over already
            await self.store.release(room.id)
        log.info("room handed over room=%s state_id=%d", room.id, room.table.state_id)

    async def _take_over(self, room_id: str) -> Room | None:
        """Acquire the room's lease and load it; at most one at a time per room (others
        wait for it). Returns None when another process acquired the room first."""
        room = self.rooms.get(room_id)
        if room is not None:
            return room
        pending = self._loading.get(room_id)
        if pending is not None:
            return await asyncio.shield(pending)
        fut: asyncio.Future[Room | None] = asyncio.get_running_loop().create_future()
        self._loading[room_id] = fut
        try:
            asked = asyncio.get_running_loop().time()
            lease = await self.store.acquire(room_id)
            room = (await self._load(room_id, lease, self.lease_until(asked))
                    if lease is not None else None)
        except BaseException as exc:
            fut.set_exception(exc)
            fut.exception()  # retrieved: no "never retrieved" warning when nobody waits
            raise
        else:
            fut.set_result(room)
            return room
        finally:
            self._loading.pop(room_id, None)

    def lease_until(self, asked: float) -> float:
        """Until when (loop time, s) a lease acquired or renewed by a request sent at
        ``asked`` holds: a lease's length later; for ever with a store no other process
        shares (memory, SQLite), whose leases never expire."""
        if not self.store.shared:
            return math.inf
        return asked + self.store.lease_seconds

    async def _load(self, room_id: str, lease: Lease, lease_until: float = math.inf) -> Room:
        loaded = await self.store.load(room_id, lease=lease)
        if loaded is None:
            await self.store.release(room_id)
            raise visibility.hidden(room_id)
        try:
            room = Room.from_loaded(loaded, self.store, games.get(loaded.record["game"]))
        except GameError as exc:
            await self.store.release(room_id)
            log.error("room %s: cannot rebuild from the store: %s", room_id, exc)
            raise RoomError("server/internal", "the room's record is damaged") from None
        room.on_finish, room.on_lost, room.on_seats = self._finished, self._lost, self._seats
        room.metrics = bind_game(self.metrics, room.table.game_name,
                                 room.table.options.get("mode"))
        room.lease, room.lease_until = lease, lease_until
        room.ledger = self.ledger
        assert room_id not in self.rooms, "one takeover at a time (_loading)"
        self.rooms[room_id] = room
        room.start_task()
        if room.table.phase is Phase.WAITING:  # a waiting room nobody sits in expires here too
            self._seats(room, False)
        self.cluster.reattach(room, (loaded.state or {}).get("members", []))
        room.post(functools.partial(resync, room))
        if room.table.phase is Phase.FINISHED:
            self._finished(room)
        log.info("room taken over room=%s state_id=%d members=%d lease=%s", room_id,
                 room.table.state_id, len(room.table.members), lease)
        return room

    async def demote(self, room: Room, *, quiet: bool = False) -> None:
        """Stop running this copy of ``room`` (another process owns the room now, or this
        process acquired it again for a newer copy); local members are served by the
        current owner through forwarding. A copy that is not the registered one is only
        stopped: the registered copy and its members are left alone."""
        if self.rooms.get(room.id) is not room:
            await room.close()
            return
        del self.rooms[room.id]
        for conn in list(room.table.members):
            if conn.rooms.get(room.id) is room:
                conn.rooms.pop(room.id, None)
            if conn.process == self.store.process_id:
                conn.remote_rooms.add(room.id)
        await room.close()
        if not quiet:  # quiet: handed over on purpose (:meth:`hand_over`)
            log.warning("room demoted room=%s (owned elsewhere now)", room.id)

    def _lost(self, room: Room) -> None:
        self.background.spawn(self.demote(room))

    async def create(self, conn: Peer, msg: p.CreateRoom | p.QuickJoin,
                     options: dict[str, Any] | None = None, private: bool = False,
                     name: str | None = None) -> Room:
        """Create a room (run by this process) from a ``create_room`` or ``quick_join``. A
        public room of several seats without a turn clock gets the operator's
        (``public_turn_seconds``, issue #44 item 12); private and solo rooms choose.

        Raises:
            RoomError: ``lobby/unknown_game`` (no such game or mode), ``lobby/bad_options``
                (the engine or the room refused an option or the seat count, or ``seed`` or
                ``deck`` was given for a room of more than one seat: :data:`DEAL_OPTIONS`),
                ``room/limit`` (too many rooms, every one of them with somebody seated: at the
                cap, the waiting room nobody has sat in for the longest is removed to make
                place, :meth:`expire`).
            StoreError: the store is unavailable.
        """
        await self._make_place()
        try:
            cls = games.get(msg.game)
        except OptionError as exc:
            raise RoomError("lobby/unknown_game", exc.message) from None
        try:
            settings, engine_opts = split_options(options or {})
        except OptionError as exc:
            raise RoomError("lobby/bad_options", exc.message) from None
        modes = cls.modes()
        if msg.mode is not None:
            if msg.mode not in modes:
                raise RoomError("lobby/unknown_game", f"{msg.game} has no mode {msg.mode!r}")
            engine_opts["mode"] = msg.mode
        mode = engine_opts.get("mode", modes[0] if modes else None)
        seats = msg.seats if msg.seats is not None else (1 if mode in (None, "solo") else 4)
        if self.rater is not None:
            self.rater.check_room(msg.game, mode, settings, private)
        self._operators_settings(settings, seats, private)
        chosen = sorted(k for k in DEAL_OPTIONS if engine_opts.get(k) is not None)
        if seats > 1 and chosen:
            raise RoomError("lobby/bad_options", f"option(s) {', '.join(chosen)}: they fix "
                            "the deal, so a room with more than one seat refuses them (nobody, "
                            "the host included, may know another seat's cards); the server "
                            "draws the seed and publishes its commitment at the start "
                            "(protocol 'Fair deals')")
        try:
            # Checks the options and the seat count and draws the seed; the room keeps the
            # resolved options only and deals again at start (a waiting room holds no engine).
            resolved = cls(engine_opts, seats).options
        except OptionError as exc:
            raise RoomError("lobby/bad_options", exc.message) from None
        room_id = secrets.token_hex(4)
        while room_id in self.rooms:
            room_id = secrets.token_hex(4)
        code = ("".join(secrets.choice(_CODE_ALPHABET) for _ in range(CODE_LENGTH))
                if private else None)
        host_name = getattr(conn, "name", "")  # the creator's display name (the room list)
        default = f"{host_name}'s {cls.title}"[:64] if host_name else f"{cls.title} {room_id}"
        room = Room(id=room_id, name=name or default, game_name=msg.game,
                    game_cls=cls, options=resolved, seat_count=seats, settings=settings,
                    store=self.store, private=private, code=code,
                    host=conn.session_id, on_finish=self._finished, on_lost=self._lost,
                    on_seats=self._seats, chosen_deal=bool(chosen), ledger=self.ledger)
        room.metrics = bind_game(self.metrics, room.table.game_name,
                                 room.table.options.get("mode"))
        # Registered before the store write: once the store lists the room, a quick join of
        # this process may route to it, and must find this room rather than load a twin.
        self.rooms[room_id] = room
        asked = asyncio.get_running_loop().time()
        try:
            room.lease = await self.store.save_room(room_id, room.table.record(),
                                                    room.table.state(), room.table.summary())
            room.lease_until = self.lease_until(asked)
        except BaseException:
            self.rooms.pop(room_id, None)
            raise
        room.start_task()
        self._seats(room, False)  # nobody sits in it yet
        log.info("room created room=%s game=%s mode=%s seats=%d private=%s", room_id,
                 msg.game, mode, seats, private)
        return room

    def _operators_settings(self, settings: dict[str, Any], seats: int,
                            private: bool) -> None:
        """Add the operator's room settings to ``settings`` (a new room's, ``seats`` seats):
        a solo game its player leaves is kept for them (``solo_keep`` seconds, issue #44
        item 1); a public room of several seats without a turn clock gets
        ``public_turn_seconds`` (issue #44 item 12: one idle player holds no public table)."""
        if seats == 1:
            keep = self.settings.solo_keep_days
            settings["solo_keep"] = KEEP_FOR_EVER if keep is None else keep * DAY_SECONDS
        clock = self.settings.public_turn_seconds
        if not private and seats > 1 and settings.get("turn_seconds") is None and clock:
            settings["turn_seconds"] = clock

    async def _make_place(self) -> None:
        """Make place for a new room, or refuse it (see :meth:`create`).

        Raises:
            RoomError: ``server/unavailable`` (draining) or ``room/limit``.
        """
        if self.draining:
            raise RoomError("server/unavailable", "this server is draining for a restart and "
                            "creates no rooms: reconnect to another server")
        while len(self.rooms) >= self.settings.max_rooms and self._empty:
            # Only rooms somebody sits in count against the cap: the waiting room nobody
            # has sat in for the longest gives its place up.
            oldest = next(iter(self._empty))
            self._empty.pop(oldest)
            await self.expire(oldest, "the server is full and nobody sat in it")
        if len(self.rooms) >= self.settings.max_rooms:
            if self.metrics is not None:
                self.metrics.room_refused("capacity")
            raise RoomError("room/limit", f"this server hosts at most {self.settings.max_rooms} "
                            "rooms")

    # -- waiting rooms nobody sits in ------------------------------------------------------

    def _seats(self, room: Room, expired: bool) -> None:
        """A seat of waiting ``room`` was taken or freed (``expired``: freed because its
        grace window ended). A room nobody sits in is noted, to be removed once it has
        stayed so for ``empty_room_ttl`` seconds (:meth:`_sweep_empty`); one whose last
        seat's grace window ended with nobody connected to it is removed now."""
        ttl = self.settings.empty_room_ttl
        if ttl is None or room.table.taken or room.table.phase is not Phase.WAITING:
            self._empty.pop(room.id, None)
            return
        if expired and not room.table.members:
            self._empty.pop(room.id, None)
            self.background.spawn(self.expire(room.id, "its players left and their seats' "
                                              "grace windows ended"))
            return
        if room.id not in self._empty:
            loop = asyncio.get_running_loop()
            self._empty[room.id] = loop.time()
            if self._sweep is None:
                self._sweep = loop.call_later(ttl, self._sweep_empty)

    def _sweep_empty(self) -> None:
        """Remove the waiting rooms nobody has sat in for ``empty_room_ttl`` seconds (the
        oldest first; a room taken, started or gone meanwhile is only forgotten); then
        arm the next sweep for the oldest one left."""
        self._sweep = None
        ttl = self.settings.empty_room_ttl
        if ttl is None:
            return
        loop = asyncio.get_running_loop()
        now = loop.time()
        for room_id, since in list(self._empty.items()):
            if now - since < ttl:
                self._sweep = loop.call_later(since + ttl - now, self._sweep_empty)
                return
            del self._empty[room_id]
            room = self.rooms.get(room_id)
            if (room is not None and room.table.phase is Phase.WAITING
                    and not room.table.taken):
                self.background.spawn(self.expire(room_id, f"nobody sat in it for {ttl:g} s"))

    async def expire(self, room_id: str, why: str) -> None:
        """Remove a waiting room nobody plays in (:meth:`remove`): its members (spectators)
        get ``error room/closed`` (the ``message`` says ``why``) and an unsolicited
        ``left`` first. A room that was taken or started meanwhile is left alone."""
        room = self.rooms.get(room_id)
        if room is None or room.table.phase is not Phase.WAITING or room.table.taken:
            return
        for conn in list(room.table.members):
            conn.send_error("room/closed", f"the room was removed: {why}")
            conn.send(p.Left(room=room_id))
        log.info("room expired room=%s: %s", room_id, why)
        await self.remove(room_id)

    async def quick_room(self, msg: p.QuickJoin, local: bool = False) -> str | None:
        """Id of a public waiting room of the requested game (and mode and size) with a free
        seat, on any process, or None. Read through the store's index of waiting rooms per
        game, page by page (at most ``QUICK_PAGES`` pages): among the fits of the first page
        that has any, this process's rooms come first, then the lowest id. With ``local``,
        only this process's rooms count. A room of this process whose host is away (dropped,
        within its grace window) does not fit: nobody could start it (:attr:`Room.startable`);
        a room of another process is checked by its owner (quick join is forwarded there).

        Raises:
            StoreError: the store is unavailable.
        """
        cursor = None
        for _ in range(QUICK_PAGES):
            page, cursor = await self.store.list_page(
                game=msg.game, mode=msg.mode, waiting=True, cursor=cursor, limit=QUICK_PAGE)
            fits: list[str] = [s["room"] for s in page
                               if visibility.listed(s)
                               and (msg.seats is None or s["seats"] == msg.seats)
                               and (not local or s["room"] in self.rooms)
                               and ((room := self.rooms.get(s["room"])) is None
                                    or room.table.startable)]
            if fits:
                return min(fits, key=lambda r: (r not in self.rooms, r))
            if cursor is None:
                break
        return None

    def _finished(self, room: Room) -> None:
        """The game of ``room`` is over: its record goes to the games archive
        (:func:`.archive.keep`; a removal waits for that), and the room is listed for
        ``finished_ttl`` seconds more, then removed."""
        ttl = self.settings.finished_ttl
        record = archive.game_record(room)
        if self.rater is not None:
            self.rater.finished(room)

        async def expire() -> None:
            try:
                await archive.keep(self.store, self.store.log, room.id, record,
                                   self.settings.history_days)
            except StoreError as exc:
                log.warning("room %s: not archived: %s", room.id, exc)
            try:
                await self.store.finish_room(room.id, ttl)
            except StoreError as exc:
                log.warning("room %s: expiry not set: %s", room.id, exc)

        task = self.background.spawn(expire())
        self._archiving[room.id] = task

        def done(_: Any) -> None:
            if self._archiving.get(room.id) is task:
                del self._archiving[room.id]

        task.add_done_callback(done)
        self._removals[room.id] = asyncio.get_running_loop().call_later(
            ttl, lambda: self.background.spawn(self.remove(room.id)))

    async def remove(self, room_id: str) -> None:
        """Remove a room: stop its task and delete its stored state, code and lease."""
        timer = self._removals.pop(room_id, None)
        if timer is not None:
            timer.cancel()
        archiving = self._archiving.get(room_id)
        if archiving is not None:  # the log is read for the archive before it is deleted
            await asyncio.wait({archiving})
        self._empty.pop(room_id, None)
        room = self.rooms.pop(room_id, None)
        if room is None:
            return
        for conn in list(room.table.members):
            conn.rooms.pop(room_id, None)
        await room.close()
        try:
            await self.store.delete_room(room_id)
        except StoreError as exc:
            log.warning("room %s: not deleted from the store: %s", room_id, exc)

    async def close(self) -> None:
        """Stop every room task and give up their leases (server shutdown), so other
        processes take the rooms over at once. Demotions, expiries and removals already
        running get up to ``SHUTDOWN_GRACE`` seconds (:mod:`.tasks`) to finish first
        (cancelled midway, a removal would leave a room neither running nor deleted from
        the store); those not begun yet are dropped (a finished room still expires from
        the store)."""
        for timer in self._removals.values():
            timer.cancel()
        self._removals.clear()
        if self._sweep is not None:
            self._sweep.cancel()
            self._sweep = None
        await self.background.close(grace=SHUTDOWN_GRACE)
        for room in list(self.rooms.values()):
            await room.close()
            await self.store.release(room.id)
