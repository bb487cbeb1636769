"""Many server processes, one lobby: forwarding, leases and takeover through the store.

Every room is run by exactly one process, its owner (the holder of the room's lease). A
client may be connected to any process:

* A request for a room owned elsewhere is forwarded to the owner's inbox as
  ``{"k": "req", "from": PROC, "sess": SESSION, "acct": ACCOUNT, "name": NAME, "room": ID,
  "frame": BYTES}`` (``acct``: the account the client is signed in to, ``""`` for none).
  The owner handles it with the same code as a local request, for a :class:`RemotePeer`
  standing in for that client.
* Frames for a remote client go back to its process as
  ``{"k": "out", "from": PROC, "items": [[SESSION, BYTES], ...]}`` (batched per loop tick);
  a room's frame as ``[SESSION, BYTES, ROOM, EPOCH]``, the epoch of the lease it was sent
  under: a process that knows of a later one drops it (a stale owner's frame, published
  after its room was taken over; :meth:`Cluster.fenced`).
* ``{"k": "drop", "from": PROC, "sess": SESSION}``: that client's connection closed.
* ``{"k": "gone", "from": PROC, "sess": SESSION}``: frames were sent to a session that no
  longer exists there.
* ``{"k": "dropped", "from": PROC, "sess": SESSION, "seats": [[ROOM, SEAT], ...]}``: the
  owner took that client for disconnected (its process looked gone) and holds its seats for
  the grace window; the client's process tells the client (a ``seat_event dropped`` for its
  own seat), which resumes them with its seat tokens.
* ``{"k": "admin", "from": PROC, "id": N, "op": "close"|"kick"|"mute"|"unmute", "room": ID,
  "seat": SEAT}``:
  an operator's request (:mod:`.admin`) for a room this process owns; answered with
  ``{"k": "admin_re", "id": N, "status": HTTP_STATUS, "body": {...}}`` to ``PROC``.
* ``{"k": "account", "from": PROC, "acct": ACCOUNT, "op": "close"|"name", ...}``: an
  account was banned or its sign-ins revoked (close its connections here), or renamed
  (:meth:`~.auth.Auth.inbox`).

An owner that dies stops renewing its leases; within ``lease_seconds`` (plus one scan) another
process takes each room over: it rebuilds the room from the store (snapshot + log), reattaches
the members recorded in the room's state and sends each of them the full view. A forwarded
request that finds no owner listening waits for that takeover instead of failing.

A restart on a durable store that this process alone uses (SQLite) is a takeover too: once
it listens, the server loads every room the store holds in the background
(:meth:`Cluster.restore`; a request for a room not loaded yet loads it at once, through
:meth:`~.lobby.Lobby.route`); the members recorded by the previous run are gone, so every
seat of a player is held for its grace window counted from the restart, and clients
``resume`` with their seat tokens as after a failover.

A store outage is not a death: leases and heartbeat keys expire while the store is down even
though their holders live. The store's :class:`~.store.StoreHealth` follows its answers, and
once it is back, orphan scans and takeovers wait one lease (owners renew every third of one)
and no process is believed gone for two leases (one heartbeat key's life).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import time
from collections import defaultdict
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Protocol

import msgpack
from tenacity import AsyncRetrying, RetryError, retry_if_exception_type, stop_after_delay
from tenacity import wait_fixed

from .. import protocol as p
from .logs import event
from .room import RoomError, dropped, resend
from . import session
from .session import Session
from .store.ports import StoreError
from .tasks import Background, cancel_until_done

if TYPE_CHECKING:
    from .room import Room

log = logging.getLogger("cardhall.cluster")

ORPHAN_SCAN_SECONDS = 1.0
#: Seconds frames for other processes may wait for their flush (normally the next loop
#: tick): older ones are dropped and their clients sent full views (:meth:`Cluster._stalled`).
STALL_SECONDS = 0.5


#: Seconds the frames lost for a process that is not (yet) known gone are chased at least:
#: until a ping reaches it, and then its clients get their full views again (and, in a
#: finished game, its ``game_over``: :meth:`Room.resend`).
RESYNC_SECONDS = 30.0

#: Rooms whose latest lease epoch the inbox remembers (:meth:`Cluster.fenced`): the rooms
#: relayed most recently; a room forgotten is fenced by its local copy only.
EPOCHS_KEPT = 4096


class _OwnerNotListening(Exception):
    """A forwarded request reached nobody: the owner is dead and its lease not yet expired."""


class _NotDelivered(Exception):
    """A ping reached nobody at a process (or the store was down)."""


class Hub(session.Hub, Protocol):
    """What the cluster needs of its server (:class:`~cardhall.server.app.Server`): a
    session's hub (store, lobby, cluster) and the local ``sessions`` by session id."""

    admin: Any  # the server's Admin (:mod:`.admin`): operator requests for this process

    @property
    def sessions(self) -> Mapping[str, Session]:  # read-only: a dict of Connections is one
        ...


class RemotePeer(Session):
    """A client connected to another process, as the owner of its room sees it.

    Args:
        cluster: This process's cluster.
        process: The process the client is connected to.
        session_id: The client's session id there.
        name: The client's display name.
        account: The account it is signed in to (``""``: none).
    """

    def __init__(self, cluster: Cluster, process: str, session_id: str, name: str,
                 account: str = "") -> None:
        self.cluster = cluster
        self.server = cluster.server
        self.process = process
        self.session_id = session_id
        self.name = name
        self.account = account
        self.rooms: dict[str, Room] = {}
        self.remote_rooms: set[str] = set()
        self.closed = False
        self._queue: asyncio.Queue[bytes] = asyncio.Queue()
        self._worker: asyncio.Task[None] | None = None

    def send_raw(self, *frames: bytes) -> None:
        """Queue encoded frames for the client, in order (sent through its process's
        inbox), each fenced by the lease of the room it belongs to here (its epoch: the
        client's process drops it once it knows of a later one, :meth:`Cluster.fenced`)."""
        if not self.closed:
            for data in frames:
                room_id = p.frame_room(data)
                room = None if room_id is None else self.rooms.get(room_id)
                if room_id is None or room is None or room.lease is None:
                    self.cluster.send_out(self.process, self.session_id, data)
                else:
                    self.cluster.send_out(self.process, self.session_id, data,
                                          (room_id, room.lease.epoch))

    def request(self, frame: bytes) -> None:
        """Handle a forwarded request frame, in arrival order for this peer."""
        self._queue.put_nowait(frame)
        if self._worker is None or self._worker.done():
            self._worker = self.cluster.background.spawn(self._work())

    async def _work(self) -> None:
        while not self._queue.empty():
            frame = self._queue.get_nowait()
            try:
                msg = p.decode(frame, side="client", max_size=None)
            except p.ProtocolError as exc:  # it was valid on the sending process: a bug
                log.error("forwarded frame does not decode: %s", exc)
                continue
            await self.handle(msg)

    def gone(self) -> None:
        """The client's connection is closed: drop it from every room."""
        self.closed = True
        for room in list(self.rooms.values()):
            room.post(functools.partial(dropped, room, self))
        self.rooms.clear()


class Cluster:
    """This process's part in the cluster (a no-op beyond local rooms with a store that is not
    :attr:`~.store.Store.shared`, but for :meth:`restore`).

    Args:
        server: The server.
    """

    def __init__(self, server: Hub) -> None:
        self.server = server
        self.store = server.store
        self.me = server.store.process_id
        self.peers: dict[tuple[str, str], RemotePeer] = {}
        self._out: dict[str, list[list[Any]]] = defaultdict(list)
        self._flush_scheduled = False
        self._queued_at = 0.0  # loop time the first frame of the pending flush was queued
        # One tick's frames go out after the ticks' before: a publish that redis-py retries
        # (a Redis failover) must not let a later tick's frames overtake it.
        self._flush_lock = asyncio.Lock()
        self._tasks: list[asyncio.Task[None]] = []
        #: One-off tasks (frame flushes, resends, drop notices), stopped with the cluster.
        self.background = Background()
        self.shared = server.store.shared
        self.health = server.store.health
        self._stopping = False  # set by stop(): frames still go out, lost ones are not chased
        self._chasing: set[str] = set()  # processes whose lost frames are being made good
        #: The latest lease epoch of each room whose frames were relayed here (:meth:`fenced`).
        self._epochs: dict[str, int] = {}
        #: When this process began taking over the rooms of a durable store it alone uses
        #: (unix time s; None: not such a store): their seats' grace windows count from it.
        self.restarted_at: float | None = None
        #: Set once :meth:`restore` has loaded every room (at once with other stores).
        self.restored = asyncio.Event()

    async def start(self) -> None:
        """Start the inbox listener, lease renewal and orphan scan (shared stores); with a
        durable store this process alone uses, the loading of its rooms (:meth:`restore`,
        in the background)."""
        if not self.shared:
            if self.store.durable:
                self.restarted_at = time.time()
                self._tasks = [asyncio.get_running_loop().create_task(self.restore())]
            else:
                self.restored.set()
            return
        await self.store.heartbeat()
        loop = asyncio.get_running_loop()
        self._tasks = [loop.create_task(self.store.listen(self._inbox)),
                       loop.create_task(self._renew_loop()),
                       loop.create_task(self._orphan_loop())]

    async def stop(self) -> None:
        """Stop the background tasks and the one-off ones (cancelled until they are done:
        see :func:`cancel_until_done`)."""
        self._stopping = True
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            exc = await cancel_until_done(task)
            if exc is not None:
                log.warning("cluster task %s ended with %r", task.get_name(), exc)
        self._tasks = []
        await self.background.close()

    # -- forwarding ----------------------------------------------------------------------

    async def forward(self, origin: Session, owner: str, room_id: str, msg: p.Message) -> None:
        """Send ``msg`` from ``origin`` to the owner of ``room_id``. When the owner is not
        listening (it died), wait for the room's takeover (here or elsewhere) and go on.

        Raises:
            RoomError: ``server/unavailable`` when no process took the room over in time.
            StoreError: the store is unavailable.
        """
        payload = msgpack.packb({"k": "req", "from": origin.process, "sess": origin.session_id,
                                 "acct": origin.account, "name": origin.name,
                                 "addr": origin.addr,
                                 "reply": origin.act_reply, "wire": origin.wire,
                                 "room": room_id,
                                 "frame": p.encode(msg)})
        if isinstance(msg, (p.Join, p.Spectate, p.Resume, p.QuickJoin)):
            origin.remote_rooms.add(room_id)
        elif isinstance(msg, p.Leave):
            origin.remote_rooms.discard(room_id)
        if await self.store.publish(owner, payload):
            return
        try:
            async for attempt in AsyncRetrying(
                    stop=stop_after_delay(self.store.lease_seconds + 2 * ORPHAN_SCAN_SECONDS),
                    wait=wait_fixed(0.2), retry=retry_if_exception_type(_OwnerNotListening)):
                with attempt:
                    where = await self.server.lobby.route(room_id)
                    if not isinstance(where, str):  # we took it over
                        origin.remote_rooms.discard(room_id)
                        await origin.dispatch(msg)
                        return
                    if not await self.store.publish(where, payload):
                        raise _OwnerNotListening(where)
        except RetryError:
            raise RoomError("server/unavailable", "the room's server is gone and no other "
                            "server took the room over yet; retry") from None

    def send_out(self, process: str, session: str, frame: bytes,
                 fence: tuple[str, int] | None = None) -> None:
        """Queue a frame for a client of ``process`` (flushed once per loop tick).

        Args:
            fence: The room the frame belongs to and the epoch of this process's lease on
                it (None: no room's). The frame carries it, and ``process`` drops it if it
                knows of a later epoch of that room by then (:meth:`fenced`).
        """
        self._out[process].append([session, frame] if fence is None
                                  else [session, frame, *fence])
        if not self._flush_scheduled:
            self._flush_scheduled = True
            self._queued_at = asyncio.get_running_loop().time()
            self.background.spawn_soon(self._flush)

    async def _flush(self) -> None:
        out, self._out, self._flush_scheduled = self._out, defaultdict(list), False
        queued_at = self._queued_at  # the next batch sets its own while this one waits
        async with self._flush_lock:  # FIFO: the earlier ticks' flushes first
            await self._publish_out(out, queued_at)

    async def _publish_out(self, out: dict[str, list[list[Any]]], queued_at: float) -> None:
        """Publish each process's frames (``out``, queued from ``queued_at``, loop time s).
        The age is checked before each publish, not once: a flush that waited for an earlier
        one, or for its own previous publish, across a stall of the process would otherwise
        send frames older than what the rooms' new owner has sent since (a chaos drill saw a
        state-140 delta after state 290)."""
        loop = asyncio.get_running_loop()
        pending = list(out.items())
        for i, (process, items) in enumerate(pending):
            if loop.time() - queued_at > STALL_SECONDS:
                self._stalled(dict(pending[i:]), queued_at)
                return
            payload = msgpack.packb({"k": "out", "from": self.me, "items": items})
            try:
                received = await self.store.publish(process, payload)
            except StoreError as exc:
                log.warning("frames for %s lost: %s", process, exc)
                received = 0
            if not received:
                await self._undelivered(process)

    def _stalled(self, out: Mapping[str, list[list[Any]]], queued_at: float) -> None:
        """The process stalled (it was paused, say) between queueing frames (at
        ``queued_at``, loop time s) and sending them: by now they may be older than what
        another process, which took the rooms over meanwhile, has sent. They are dropped,
        and each of their clients' rooms here sends it its full view again
        (:meth:`Room.resend`: only while the room's lease is confirmed current)."""
        log.warning("frames for %d client(s) dropped: queued %.1f s ago (a stalled "
                    "process); their views are sent again",
                    sum(len(items) for items in out.values()),
                    asyncio.get_running_loop().time() - queued_at)
        for process, items in out.items():
            for session_id in {sess for sess, _ in items}:
                peer = self.peers.get((process, session_id))
                if peer is not None:
                    for room in peer.rooms.values():
                        room.post(functools.partial(resend, room, peer))

    async def _undelivered(self, process: str) -> None:
        """Frames reached nobody at ``process`` (or the store was down). Pub/sub delivers
        at most once: if the process is alive (its inbox was resubscribing, say after a
        Redis restart), its clients missed frames, so once a ping reaches it they are sent
        their full views again (:meth:`Room.resend`); if it is gone (and the store has been
        answering long enough for its missing heartbeat to mean it:
        :class:`~.store.StoreHealth`), its clients have dropped. One such chase per process
        at a time, for at most :data:`RESYNC_SECONDS`. A process shutting down does not
        chase them: its rooms are about to be taken over, and their new owner serves them."""
        if self._stopping or process in self._chasing:
            return
        if await self._gone(process):
            self.process_gone(process)
            return
        if not any(key[0] == process for key in self.peers):
            return
        self._chasing.add(process)
        self.background.spawn(self._resync(process))

    async def _gone(self, process: str) -> bool:
        try:
            alive = await self.store.alive(process)
        except StoreError:
            return False  # cannot tell now: assume alive and try again
        # Right after a store outage a missing heartbeat key proves nothing yet.
        return not alive and self.health.may_believe_gone()

    async def _resync(self, process: str) -> None:
        ping = msgpack.packb({"k": "ping", "from": self.me})
        try:
            await asyncio.sleep(0.2)  # the frames were just lost: give the inbox a moment
            async for attempt in AsyncRetrying(
                    stop=stop_after_delay(max(RESYNC_SECONDS, 4 * self.store.lease_seconds)),
                    wait=wait_fixed(0.2), retry=retry_if_exception_type(_NotDelivered)):
                with attempt:
                    if self._stopping:
                        return
                    try:
                        received = await self.store.publish(process, ping)
                    except StoreError:
                        raise _NotDelivered(process) from None
                    if not received:
                        if await self._gone(process):
                            self.process_gone(process)
                            return
                        raise _NotDelivered(process)
        except RetryError:
            log.warning("process %s unreachable: its clients' views were not sent again",
                        process)
            return
        finally:
            self._chasing.discard(process)
        for key, peer in list(self.peers.items()):
            if key[0] == process:
                for room in peer.rooms.values():
                    room.post(functools.partial(resend, room, peer))

    def process_gone(self, process: str) -> None:
        """Every client of a process that no longer listens has dropped. In case the
        process lives after all (its inbox was away), it is told which of its clients'
        seats were dropped, so that they resume them."""
        for key in [k for k in self.peers if k[0] == process]:
            peer = self.peers.pop(key)
            seats = [[room_id, member.seat] for room_id, room in peer.rooms.items()
                     if (member := room.table.members.get(peer)) is not None
                     and member.seat is not None]
            peer.gone()
            if seats:
                self.tell_dropped(process, peer.session_id, seats)

    def tell_dropped(self, process: str, session: str, seats: list[list[Any]]) -> None:
        """Tell ``process`` that its client ``session`` was taken for disconnected and its
        ``seats`` (``[[room, seat], ...]``) are held for their grace window (best effort:
        a process that is really gone hears nothing)."""
        payload = msgpack.packb({"k": "dropped", "from": self.me, "sess": session,
                                 "seats": seats})

        async def tell() -> None:
            with contextlib.suppress(StoreError):
                await self.store.publish(process, payload)

        self.background.spawn(tell())

    def local_closed(self, conn: Session) -> None:
        """A local connection closed: tell the owners of the remote rooms it was in."""
        if not conn.remote_rooms or not self.shared:
            return
        rooms = list(conn.remote_rooms)
        payload = msgpack.packb({"k": "drop", "from": self.me, "sess": conn.session_id})

        async def tell() -> None:
            told: set[str] = set()
            for room_id in rooms:
                with contextlib.suppress(StoreError):
                    owner = await self.store.owner(room_id)
                    if owner and owner != self.me and owner not in told:
                        told.add(owner)
                        await self.store.publish(owner, payload)

        self.background.spawn(tell())

    def peer(self, process: str, session: str, name: str) -> RemotePeer:
        """The peer for a client of another process (made on first use)."""
        key = (process, session)
        peer = self.peers.get(key)
        if peer is None:
            peer = self.peers[key] = RemotePeer(self, process, session, name)
        return peer

    async def _inbox(self, payload: bytes) -> None:
        msg = msgpack.unpackb(payload, raw=False)
        kind = msg.get("k")
        if kind == "req":
            peer = self.peer(msg["from"], msg["sess"], msg["name"])
            peer.act_reply = msg.get("reply", "ok")  # absent: a process of an older version
            peer.wire = msg.get("wire", 1)  # its protocol version (absent: an older process)
            # The client may have signed in (or out) since its last request.
            peer.account, peer.name = msg.get("acct", ""), msg["name"]
            peer.addr = msg.get("addr", "?")  # its limits' key (absent: an older process)
            peer.request(msg["frame"])
        elif kind == "out":
            sessions = self.server.sessions
            for item in msg["items"]:
                sess, frame = item[0], item[1]
                if len(item) == 4 and self.fenced(item[2], item[3]):
                    continue
                conn = sessions.get(sess)
                if conn is not None:
                    conn.send_raw(frame)
                else:
                    await self.store.publish(msg["from"], msgpack.packb(
                        {"k": "gone", "from": self.me, "sess": sess}))
        elif kind in ("drop", "gone"):
            dropped = self.peers.pop((msg["from"], msg["sess"]), None)
            if dropped is not None:
                dropped.gone()
        elif kind in ("admin", "admin_re"):  # an operator's request (:mod:`.admin`)
            await self.server.admin.inbox(msg)
        elif kind == "account":  # a ban, a revocation, a rename (:mod:`.auth`)
            await self.server.auth.inbox(msg)
        elif kind in ("queue_table", "queue_seat"):  # rated play's queue (:mod:`.rated_queue`)
            await self.server.queue.inbox(msg)
        elif kind == "dropped":
            conn = self.server.sessions.get(msg["sess"])
            if conn is not None:
                for room_id, seat in msg["seats"]:
                    log.warning("seat dropped by its room's owner room=%s seat=%s "
                                "session=%s: the client is told to resume", room_id, seat,
                                conn.session_id)
                    conn.send(p.SeatEvent(room=room_id, seat=seat, event="dropped"))

    def fenced(self, room_id: str, epoch: int) -> bool:
        """Whether a frame of room ``room_id`` sent under its lease's ``epoch`` is stale:
        this process knows of a later epoch (it runs the room now, or relayed frames sent
        under a later lease). Its sender lost the room while the frame was on its way (it
        stalled between building it and publishing it, say: the time checks before the
        publish cannot see a stop inside it), and its client may hold a newer view: the
        frame is dropped (issue #35). Otherwise the epoch is remembered, for the
        last :data:`EPOCHS_KEPT` rooms."""
        known = self._epochs.get(room_id, 0)
        room = self.server.lobby.rooms.get(room_id)
        if room is not None and room.lease is not None:
            known = max(known, room.lease.epoch)
        if epoch < known:
            log.info("frame of room %s under lease epoch %d dropped: epoch %d holds now",
                     room_id, epoch, known)
            return True
        if epoch > self._epochs.get(room_id, 0):
            self._epochs.pop(room_id, None)  # the newest last: the oldest go first
            self._epochs[room_id] = epoch
            if len(self._epochs) > EPOCHS_KEPT:
                del self._epochs[next(iter(self._epochs))]
        return False

    # -- leases and takeover ---------------------------------------------------------------

    async def _renew_loop(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            await asyncio.sleep(self.store.lease_seconds / 3)
            lobby = self.server.lobby
            copies = dict(lobby.rooms)  # the copies whose leases are renewed
            asked = loop.time()
            try:
                await self.store.heartbeat()
                lost = await self.store.renew({r: room.lease for r, room in copies.items()
                                               if room.lease is not None})
            except StoreError as exc:
                log.warning("lease renewal failed: %s", exc)
                continue
            until = lobby.lease_until(asked)
            for room_id, room in copies.items():
                if room_id not in lost and room.lease is not None:
                    room.confirmed(until)  # its fan-out goes on (Room.lease_current)
            for room_id in lost:
                await lobby.demote(copies[room_id])  # that copy only, if still registered

    async def _orphan_loop(self) -> None:
        while True:
            await asyncio.sleep(ORPHAN_SCAN_SECONDS)
            try:
                orphans = await self.store.orphans()
            except StoreError as exc:
                log.warning("orphan scan failed: %s", exc)
                continue
            if not self.health.may_take_over() or self.server.lobby.draining:
                continue  # the store just came back (owners renew first), or draining
            for room_id in orphans:
                if room_id not in self.server.lobby.rooms:
                    with contextlib.suppress(RoomError, StoreError):
                        await self.server.lobby.route(room_id)

    async def restore(self) -> None:
        """Load every room of a durable store that nobody runs, when this process alone
        uses the store (:attr:`~.store.Store.durable`, not :attr:`~.store.Store.shared`):
        after a restart on the same file, the rooms that were in play, their turn clocks
        re-armed from their absolute deadlines and server bots going on (:meth:`reattach`
        holds the seats). :meth:`start` runs it in the background once the server listens,
        letting requests in between two rooms (a request for a room not loaded yet loads
        it then). Logs ``rooms_restored`` (INFO: ``rooms``, ``failed``, ``seconds``); sets
        :attr:`restored` at the end (at once with any other store).
        """
        try:
            if self.shared or not self.store.durable:
                return
            started = time.monotonic()
            try:
                orphans = await self.store.orphans()
            except StoreError as exc:
                log.error("rooms not restored: %s", exc)
                return
            failed = 0
            for room_id in orphans:
                try:
                    await self.server.lobby.route(room_id)
                except (RoomError, StoreError) as exc:
                    failed += 1
                    log.error("room %s not restored: %s", room_id, exc)
                await asyncio.sleep(0)  # requests that came meanwhile go first
            event(log, logging.INFO, "rooms_restored", rooms=len(orphans) - failed,
                  failed=failed, seconds=round(time.monotonic() - started, 3))
        finally:
            self.restored.set()

    def reattach(self, room: Room, members: list[list[Any]]) -> None:
        """After a takeover: put back the members recorded in the room's state (local
        connections that are still open, and peers of other processes). With a store
        other processes do not share, members of another process were those of an earlier
        run of this server (a restart): they are gone, and every seat of a player is held
        for its grace window from the restart (:meth:`Room.hold_seats`)."""
        for process, sess, seat in members:
            if process == self.me:
                conn: Session | None = self.server.sessions.get(sess)
                if conn is None:
                    continue
                conn.remote_rooms.discard(room.id)
            elif not self.shared:
                continue
            else:
                conn = self.peer(process, sess, "")
            room.table.reattach(conn, seat)
        if not self.shared:
            room.table.hold_seats(self.restarted_at or time.time())
