"""Where room state is kept: the store's ports, one object per backend implementing them.

The server talks to a :class:`Store`: the composition of six small ports, one per concern,
which code that needs only one concern takes instead (as :mod:`.account_store` is the port of
the accounts):

* :class:`RoomLog`: records, states, action logs and snapshots (a room's writes, fenced);
* :class:`LobbyIndex`: the lobby's entries, its indexes and pages, the join codes;
* :class:`Leases`: who runs each room (:class:`Lease` values), the processes' heartbeats;
* :class:`Boards`: the leaderboards;
* :class:`Inbox`: messages between server processes;
* :class:`Archive`: the records of finished games, kept after their rooms (issue #44).

Each backend is one object implementing all six:
:class:`~cardhall.server.store.memory_store.MemoryStore` keeps everything in this process (tests,
benchmarks: nothing survives it); :class:`~cardhall.server.store.sqlite_store.SQLiteStore` keeps
everything in one file that one process owns (``cardhall serve`` by default: a restart loses
nothing) — both with the leases and inbox of a store one process owns (:mod:`.local_ports`);
:class:`~cardhall.server.store.redis_store.RedisStore` shares rooms between processes and
machines (leases: :class:`~cardhall.server.store.redis_leases.RedisLeases`). A new backend
implements the ports. Callers ask a store's capabilities (:attr:`Store.shared`,
:attr:`Store.durable`, :attr:`Store.answers_at_once`), never its class.

Every accepted action is appended to the room's log *before* any client hears of it, so a
room can be rebuilt from its record, its latest snapshot and the log after it.

Shapes:
    record:   ``{"room", "name", "game", "mode", "seats", "private", "options", "settings",
              "host", "code"}``: what never changes after creation (``options`` are the
              engine's resolved options, with ``seed``).
    state:    the room's server-side state: ``{"status", "seats", "members", "deadlines",
              "started_at", "finished_at"}`` (seat tokens included; see ``Room.state``).
    summary:  the lobby entry of a room (a ``rooms`` entry of the protocol).
    index:    a lobby index: the ids of some rooms in id order, for paging (``list_page``)
              and quick join without reading every entry (see :func:`room_indexes`).
    entry:    one log entry ``[kind, seat, action]`` (:class:`cardhall.games.LogEntry`):
              ``kind`` ``"a"`` for an action, ``"f"`` for a forfeit (``action`` is then
              ``None``), ``"s"`` for a seat's setting (``[name, value]``; it moves no state
              id). Snapshots and appends count entries (the engine's ``log_length``).
    lease:    a :class:`Lease` ``(process, epoch)``: the owner's process id and the room's
              takeover count when it took the lease (one more at every acquisition), stored
              as ``"PROCESS#EPOCH"``. Each live copy of a room holds the exact lease it was
              loaded under and passes it to fenced writes, so a copy superseded by a later
              acquisition (even in the same process) writes nothing.

Exception tree::

    StoreError          the store cannot be reached or refused a write ("server/unavailable")
    ├── OwnershipLost   a fenced write found that this process no longer owns the room
    ├── LogConflict     an append found the log longer than expected, under this copy's lease
    └── NotReplicated   a write reached the master, but too few replicas confirmed it in time
"""
from __future__ import annotations

import logging
import os
import secrets
import socket
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import msgpack

from ...games import LogEntry as LogEntry  # the log's entries (stored as [kind, seat, action])
from ..phases import Phase, is_phase

log = logging.getLogger("cardhall.store")

InboxHandler = Callable[[bytes], Awaitable[None]]


class StoreError(Exception):
    """The store cannot be reached or refused a write (sent as ``server/unavailable``)."""

    code = "server/unavailable"


class OwnershipLost(StoreError):
    """A fenced write found the room's lease held by another process, or taken again since
    this copy's (a newer copy of the room writes now); nothing was written."""


class LogConflict(StoreError):
    """An append found the room's log not ``expect`` long although the writer's lease still
    holds the room: only this copy can have written under that lease, so an earlier append of
    its own landed though its answer was lost (redis-py resends a request whose connection
    failed). Nothing was written; the copy must reload from the store, not give the room up.
    """


class NotReplicated(StoreError):
    """A write reached the store's master, but fewer replicas than required confirmed it in
    time (Redis ``WAIT``): a failover may promote a replica without it, so it is not
    acknowledged. Its fate is unknown, as for any :class:`StoreError` of a write."""


@dataclass(frozen=True, slots=True)
class Lease:
    """A room's lease: the process that runs the room, and which of the room's acquisitions
    it runs it under (the epoch fences off every copy loaded under an earlier one).

    Stored (the Redis key ``cardhall:{room:ID}:owner``, logs) as ``"PROCESS#EPOCH"``:
    ``str(lease)`` writes that form and :meth:`parse` reads it, the only places on this side
    (the Lua scripts of :mod:`.redis_keys` write and match it inside Redis).

    Attributes:
        process: The holder's process id (:func:`new_process_id`: ``host:pid:random``).
        epoch: The room's acquisition count when it was taken (1 for the first).
    """

    process: str
    epoch: int

    def __str__(self) -> str:
        return f"{self.process}#{self.epoch}"

    @classmethod
    def parse(cls, text: str | bytes) -> Lease:
        """The lease stored as ``text`` (``"PROCESS#EPOCH"``, as str or UTF-8 bytes).

        Raises:
            ValueError: ``text`` is not a process id, ``#`` and a decimal epoch.
        """
        value = text.decode() if isinstance(text, bytes) else text
        process, sep, epoch = value.rpartition("#")
        if not process or not sep or not epoch.isdecimal():
            raise ValueError(f"not a lease (PROCESS#EPOCH): {value!r}")
        return cls(process, int(epoch))

    @staticmethod
    def holder(text: str | bytes) -> str:
        """The process id of a stored lease value (one without an epoch is a process id)."""
        value = text.decode() if isinstance(text, bytes) else text
        return value.rpartition("#")[0] or value


@dataclass
class Loaded:
    """A room as the store holds it.

    Attributes:
        record: The room's record.
        state: Its latest server-side state, or None if none was saved yet.
        snapshot: The latest engine snapshot, or None.
        snapshot_state_id: The log entries ``snapshot`` was taken after (0 without one): the
            engine's ``log_length`` then (its ``state_id`` plus the settings before it).
        entries: Log entries after the snapshot, oldest first (as stored: ``[kind, seat,
            action]`` arrays, which :func:`cardhall.games.replay` reads).
    """

    record: dict[str, Any]
    state: dict[str, Any] | None
    snapshot: dict[str, Any] | None
    snapshot_state_id: int
    entries: list[LogEntry]


#: Lobby entries a page of :meth:`Store.list_page` examines at most (besides ``limit``): a
#: filtered page may hold fewer rooms than asked for, and then says there are more.
PAGE_SCAN = 256


#: One packer for :func:`pack`: ``msgpack.packb`` makes a packer per call, which costs 17
#: against 7 µs for a log entry on a cold CPU (benchmarks/RESULTS.md, session 17). It resets
#: its buffer after each object, or after an error. The stores pack on the event loop's
#: thread only (no worker thread writes); msgpack's C packer would also hold the GIL
#: throughout, its pure-Python fallback would not.
_PACKER = msgpack.Packer(use_bin_type=True)


def pack(obj: Any) -> bytes:
    """``obj`` as MessagePack (strings as str, bytes as bin), as durable stores keep
    records, states, lobby entries, log entries and snapshots.

    Raises:
        TypeError, ValueError, OverflowError: ``obj`` holds what MessagePack cannot encode.
    """
    return _PACKER.pack(obj)


def unpack(data: bytes) -> Any:
    """The object :func:`pack` made ``data`` of (maps may have non-string keys)."""
    return msgpack.unpackb(data, raw=False, strict_map_key=False)


def waiting_entry(summary: dict[str, Any]) -> bool:
    """True when the room of ``summary`` may be entered by anyone now: public, waiting for
    players and with a free seat (what ``list_rooms.waiting`` and quick join look for)."""
    return (is_phase(summary["status"], Phase.WAITING) and not summary["private"]
            and summary["taken"] < summary["seats"])


def room_indexes(summary: dict[str, Any]) -> list[str]:
    """The names of the lobby indexes that hold the room of ``summary``: ``"all"`` and
    ``"game:GAME"`` always; ``"waiting"`` and ``"waiting:GAME"`` when it is a
    :func:`waiting_entry`."""
    game = summary["game"]
    names = ["all", f"game:{game}"]
    if waiting_entry(summary):
        names += ["waiting", f"waiting:{game}"]
    return names


def entry_fits(summary: dict[str, Any], game: str | None, mode: str | None,
               waiting: bool, public: bool = False) -> bool:
    """Whether ``summary`` passes the filters of :meth:`Store.list_page`."""
    return ((game is None or summary["game"] == game)
            and (mode is None or summary["mode"] == mode)
            and (not waiting or waiting_entry(summary))
            and (not public or not summary["private"]))


class StoreHealth:
    """What this process may conclude from the shared store's silence, given its outages.

    The store's keys that prove life (room leases, process heartbeats) expire while the store
    is unreachable, although their holders are alive and only could not renew them. So after a
    failure streak, once the store answers again:

    * :meth:`may_take_over` is False for one lease (``lease_seconds``): owners renew every
      third of a lease, so a room's lease is back before any orphan scan or route acts;
    * :meth:`may_believe_gone` is False for two leases (the life of a heartbeat key): a
      process with no heartbeat key is not declared gone before it had a whole heartbeat
      period to write one.

    While the store fails, both are False too. A shared store reports every answer
    (:meth:`answered`) and every failure (:meth:`failed`) of its calls, whoever made them. An
    answer that took longer than two thirds of a lease counts as the end of an outage too (a
    frozen store: with renewals every third of a lease, leases may have expired meanwhile).

    Args:
        lease_seconds: The store's lease length (s).
        clock: Monotonic clock (s); for tests.
    """

    def __init__(self, lease_seconds: float,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.lease_seconds = lease_seconds
        self._clock = clock
        self.down = False
        #: When the store answered again after its latest failure streak (None: never
        #: failed since this process started).
        self.back_at: float | None = None
        self.outages = 0

    def now(self) -> float:
        """The health's clock (monotonic seconds): pass it to :meth:`answered`."""
        return self._clock()

    def answered(self, asked_at: float | None = None) -> None:
        """The store answered a request.

        Args:
            asked_at: When the request was sent (:meth:`now`, s); None: just now.
        """
        now = self._clock()
        if (asked_at is not None and now - asked_at > 2 * self.lease_seconds / 3
                and (self.back_at is None or asked_at > self.back_at)):
            self.failed()  # slow, and asked after the last outage ended: a new one
        if self.down:
            self.down = False
            self.back_at = now
            log.warning("store answers again: no takeover for %.1f s, no process declared "
                        "gone for %.1f s", self.lease_seconds, 2 * self.lease_seconds)

    def failed(self) -> None:
        """A request to the store failed (unreachable, timed out)."""
        if not self.down:
            self.down = True
            self.outages += 1

    def _settled_for(self, seconds: float) -> float:
        """Seconds left before the store has been answering for ``seconds`` (0: already;
        ``seconds`` while it is down)."""
        if self.down:
            return seconds
        if self.back_at is None:
            return 0.0
        return max(0.0, self.back_at + seconds - self._clock())

    def may_take_over(self) -> bool:
        """Whether an ownerless room may be taken over now (see the class docstring)."""
        return self._settled_for(self.lease_seconds) == 0.0

    def until_takeover(self) -> float:
        """Seconds until :meth:`may_take_over` may be True (at least 0.05 s while False)."""
        left = self._settled_for(self.lease_seconds)
        return max(0.05, left) if left else 0.0

    def may_believe_gone(self) -> bool:
        """Whether a process without a heartbeat key may be declared gone now."""
        return self._settled_for(2 * self.lease_seconds) == 0.0



def new_process_id() -> str:
    """A unique id for this server process: ``host:pid:random``."""
    return f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(3)}"


# -- the ports ------------------------------------------------------------------------------


class RoomLog(Protocol):
    """A room's record, server-side state, action log and snapshots: what a room is rebuilt
    from (the port :class:`~.room.Room` writes through, every write fenced by its lease)."""

    async def save_room(self, room_id: str, record: dict[str, Any], state: dict[str, Any],
                        summary: dict[str, Any]) -> Lease:
        """Create a room: its record, first state, lobby entry and join code; this process
        takes its lease.

        Returns:
            The lease taken, for the room's fenced writes.

        Raises:
            OwnershipLost: another process holds the id (never for a fresh random id).
            StoreError: the store is unavailable.
        """

    async def save_state(self, room_id: str, state: dict[str, Any],
                         summary: dict[str, Any], *, lease: Lease | None = None) -> None:
        """Replace the room's server state and lobby entry (fenced by the lease).

        Args:
            lease: The exact lease the writing copy holds; None: the lease this process
                took last for the room.

        Raises:
            OwnershipLost: this process does not own the room.
            StoreError: the store is unavailable.
        """

    async def append(self, room_id: str, entries: Sequence[LogEntry], expect: int,
                     state: dict[str, Any] | None, *, lease: Lease | None = None) -> None:
        """Append log entries and store ``state`` in one atomic, fenced step.

        Args:
            expect: The log's length before this append (the engine's ``log_length`` the
                entries start from); a different length means another owner wrote
                meanwhile.
            state: The room's server-side state, or None when the store already holds it
                unchanged (the owner wrote that very state last and the write was
                confirmed): only the entries are written then. Most actions leave seats,
                members and deadlines as they were, and the state is ~0.5 KB against ~20
                bytes of entry.
            lease: As for :meth:`save_state`.

        Raises:
            OwnershipLost: the room's lease is not ``lease`` (owned elsewhere, or taken again
                since); nothing was written.
            LogConflict: the lease holds but the log is not ``expect`` long (an earlier
                append of this copy landed unanswered); nothing was written.
            NotReplicated: too few replicas confirmed the append in time (its fate is
                unknown).
            StoreError: the store is unavailable; nothing may be assumed written.
        """

    def append_now(self, room_id: str, entries: Sequence[LogEntry], expect: int,
                   state: dict[str, Any] | None, *, lease: Lease | None = None) -> bool:
        """:meth:`append` as a plain call, when this store can answer it at once: the
        entries (and ``state``) written, durable as :meth:`append` makes them, before it
        returns True; or nothing written and False, when the caller must await
        :meth:`append` instead (a store that talks over a network never answers at once).
        A room runs an idle room's action as plain calls through it (``Room.act_now``).

        Raises:
            As :meth:`append` (nothing was written): OwnershipLost, LogConflict,
            StoreError.
        """
        return False

    async def save_snapshot(self, room_id: str, state_id: int, snapshot: dict[str, Any]) -> None:
        """Keep the engine snapshot taken after ``state_id`` log entries.

        Raises:
            StoreError: the store is unavailable.
        """

    async def load(self, room_id: str, *, lease: Lease | None = None) -> Loaded | None:
        """The room as stored, or None for an unknown (or expired) room.

        Args:
            lease: The lease of the copy about to run the room on what it reads (a takeover,
                a reload), or None (a plain read). With a lease, a replicated store first
                makes sure that its replicas hold everything read, so that the room never
                shows anyone a state a failover could undo.

        Raises:
            OwnershipLost: with ``lease``: the lease does not hold the room any more.
            NotReplicated: with ``lease``: too few replicas confirmed what was read.
            StoreError: the store is unavailable.
        """

    async def log(self, room_id: str) -> list[LogEntry]:
        """The room's whole action log, oldest first (``[]`` for an unknown room).

        Raises:
            StoreError: the store is unavailable.
        """

    async def finish_room(self, room_id: str, ttl: float) -> None:
        """The room's game ended: every key of the room expires after ``ttl`` seconds.

        Raises:
            StoreError: the store is unavailable.
        """

    async def delete_room(self, room_id: str) -> None:
        """Forget the room entirely, its lobby entry, code and lease (no error if unknown).

        Raises:
            StoreError: the store is unavailable.
        """


class LobbyIndex(Protocol):
    """The lobby: every room's entry (a ``summary``), the lobby indexes that page it
    (:func:`room_indexes`) and the join codes of private rooms. Entries are written with the
    room's state (:meth:`RoomLog.save_room`, :meth:`RoomLog.save_state`)."""

    async def list_rooms(self) -> list[dict[str, Any]]:
        """Lobby entries of every room of every process, all at once (for tests and tools:
        the server itself pages with :meth:`list_page`).

        Raises:
            StoreError: the store is unavailable.
        """

    async def index_ids(self, index: str, after: str, count: int) -> list[str]:
        """Up to ``count`` room ids of lobby index ``index`` (:func:`room_indexes`) that
        sort after ``after`` (``""``: from the first), in id order. An index may still name
        a room whose lobby entry is gone, or that no longer fits it: readers check the
        entries.

        Raises:
            StoreError: the store is unavailable.
        """

    async def entries(self, room_ids: Sequence[str]) -> list[dict[str, Any] | None]:
        """The lobby entries of ``room_ids``, in order (None for a room without one).

        Raises:
            StoreError: the store is unavailable.
        """

    async def list_page(self, *, game: str | None = None, mode: str | None = None,
                        waiting: bool = False, cursor: str | None = None,
                        limit: int = 100, public: bool = False
                        ) -> tuple[list[dict[str, Any]], str | None]:
        """One page of the lobby, in room id order, read through an index (one or two
        store round trips whatever the number of rooms).

        Args:
            game: Only rooms of this game (None: all).
            mode: Only rooms of this mode (None: all).
            waiting: Only :func:`waiting_entry` rooms (public, waiting, a free seat).
            public: Only public rooms (what a client's ``list_rooms`` sees: a private room
                is never listed, waiting, playing or finished; an operator's listing shows
                every room).
            cursor: The cursor of the previous page, or None for the first page.
            limit: Most entries on the page (>= 1).

        Returns:
            ``(entries, cursor)``: the cursor to pass for the next page, or None when the
            listing is complete. A page examines at most ``max(limit, PAGE_SCAN)`` rooms,
            so with filters it may hold fewer than ``limit`` entries (even none) while a
            cursor still follows. Every room that exists from the first page to the last
            and fits the filters is listed exactly once.

        Raises:
            StoreError: the store is unavailable.
        """
        if waiting:
            index = "waiting" if game is None else f"waiting:{game}"
        else:
            index = "all" if game is None else f"game:{game}"
        scan = max(limit, PAGE_SCAN)
        ids = await self.index_ids(index, cursor or "", scan)
        found = await self.entries(ids) if ids else []
        page: list[dict[str, Any]] = []
        for i, entry in enumerate(found):
            if entry is not None and entry_fits(entry, game, mode, waiting, public):
                page.append(entry)
                if len(page) == limit:
                    more = i < len(ids) - 1 or len(ids) == scan
                    return page, ids[i] if more else None
        return page, ids[-1] if len(ids) == scan else None

    async def room_by_code(self, code: str) -> str | None:
        """The id of the private room with join ``code``, or None.

        Raises:
            StoreError: the store is unavailable.
        """


class Leases(Protocol):
    """Who runs each room: fenced leases (:class:`Lease`) and the processes' heartbeats.

    A store that one process owns keeps them in that process
    (:class:`~.local_ports.LocalLeases`); a shared one in Redis
    (:class:`~.redis_leases.RedisLeases`), where they expire unless renewed.

    Attributes:
        process_id: This process's id (the holder of the leases it takes).
        lease_seconds: How long a lease lasts without renewal (s).
    """

    process_id: str
    lease_seconds: float

    async def acquire(self, room_id: str) -> Lease | None:
        """Take the room's lease if nobody holds it (or this process does), with a new
        epoch: any copy of the room loaded under an earlier lease is fenced off.

        Returns:
            The new lease, or None when another process holds the room.

        Raises:
            StoreError: the store is unavailable.
        """

    async def renew(self, leases: Mapping[str, Lease]) -> list[str]:
        """Extend this process's leases (``room id -> lease``). A lease that expired (the
        store was down, say) is taken back when nobody acquired the room since.

        Returns:
            The rooms whose lease is not the one given any more (this process must stop
            running that copy).

        Raises:
            StoreError: the store is unavailable.
        """

    async def release(self, room_id: str) -> None:
        """Give up the room's lease if this process holds it (never another's; a store
        error is swallowed: the lease then expires by itself)."""

    async def owner(self, room_id: str) -> str | None:
        """The process id holding the room's lease, or None.

        Raises:
            StoreError: the store is unavailable.
        """

    async def owners(self, room_ids: Sequence[str]) -> list[str | None]:
        """:meth:`owner` of each room of ``room_ids``, in their order, asked all at once
        (an admin page lists up to 500 rooms).

        Raises:
            StoreError: the store is unavailable.
        """

    async def orphans(self) -> list[str]:
        """Rooms in the lobby whose lease nobody holds (their owner died, or, for a store
        one process owns, a restart left them).

        Raises:
            StoreError: the store is unavailable.
        """

    async def heartbeat(self) -> None:
        """Tell the other processes this one is alive (its key lasts two leases).

        Raises:
            StoreError: the store is unavailable.
        """

    async def alive(self, process_id: str) -> bool:
        """Whether ``process_id`` sent a heartbeat within the last two leases.

        Raises:
            StoreError: the store is unavailable.
        """


class Boards(Protocol):
    """Leaderboards (:mod:`.leaderboard`): per board, each name's best rank value (lower is
    better), the best ``size`` names kept."""

    async def record_score(self, board: str, name: str, value: int, size: int) -> bool:
        """Keep ``value`` as ``name``'s entry on ``board`` if it is better (lower) than the
        entry there, or if there is none; then keep only the best ``size`` entries.

        Args:
            board: The board id (``GAME:MODE``).
            name: The normalised player name.
            value: The rank value (lower is better; see :mod:`.leaderboard`).
            size: Entries the board keeps at most.

        Returns:
            True when the entry was added or improved (it may still have been dropped as
            one of the worst beyond ``size``).

        Raises:
            StoreError: the store is unavailable.
        """

    async def board_page(self, board: str, start: int, count: int
                         ) -> tuple[list[tuple[str, int]], int]:
        """Entries ``start .. start+count-1`` (0-based, best first: lower value, then name)
        of ``board`` as ``(name, value)`` pairs, and the number of entries of the board (an
        unknown board is empty).

        Raises:
            StoreError: the store is unavailable.
        """

    async def board_rank(self, board: str, name: str) -> tuple[int, int] | None:
        """``(position, value)`` of ``name`` on ``board`` (position 0-based, best first), or
        None when the name has no entry.

        Raises:
            StoreError: the store is unavailable.
        """


class Inbox(Protocol):
    """Messages between server processes (:mod:`.cluster`), each addressed to a process id.

    Attributes:
        process_id: This process's id (the address of its inbox).
    """

    process_id: str

    async def publish(self, process_id: str, payload: bytes) -> int:
        """Send ``payload`` to the inbox of ``process_id``.

        Returns:
            How many processes received it (0: that process is gone, or a store one process
            owns: there is no other).

        Raises:
            StoreError: the store is unavailable.
        """

    async def listen(self, handler: InboxHandler) -> None:
        """Deliver every payload sent to this process's inbox to ``handler`` until
        :meth:`Store.close` (a store one process owns never receives any: it returns at
        once)."""


class Archive(Protocol):
    """The games archive (issue #44 item 2): the record of every finished game, kept after
    the room itself is gone (``--finished-ttl`` removes a finished room from the lobby and
    deletes its state and log), until ``--history-days`` prunes it or an operator purges it.

    A game's archived record (:func:`~.archive.game_record` makes it; plain msgpack-able
    data): ``{"room", "name", "game", "mode", "seats", "private", "host", "options" (seed
    included), "salt", "commitment", "state_id", "outcome" (with ``stats``), "players"
    (``[{name, bot, account} | None]`` by seat: no token), "table" (the room facts of the
    final view), "finished_at" (unix s), "entries" (the whole log)}``.
    """

    async def archive_game(self, room_id: str, game: dict[str, Any],
                           keep: float | None = None) -> None:
        """Keep (or replace) the archived record ``game`` of finished room ``room_id``.

        Args:
            keep: Seconds the record must be kept at least (None: until pruned or purged);
                a store whose records expire by themselves (Redis) lets it expire then.

        Raises:
            StoreError: the store is unavailable.
        """

    async def archived(self, room_id: str) -> dict[str, Any] | None:
        """The archived record of ``room_id``, or None (never archived, pruned, purged).

        Raises:
            StoreError: the store is unavailable.
        """

    async def archived_ids(self, offset: int, limit: int) -> list[str]:
        """A page of the archived games' room ids, oldest finish first (ties by room id):
        at most ``limit`` from position ``offset`` (``cardhall migrate`` pages through
        them; a store changed meanwhile may repeat or skip an id).

        Raises:
            StoreError: the store is unavailable.
        """

    async def prune_archive(self, before: float) -> int:
        """Forget every archived game that finished before ``before`` (unix s).

        Returns:
            How many records were removed.

        Raises:
            StoreError: the store is unavailable.
        """

    async def purge_archived(self, room_ids: Sequence[str]) -> int:
        """Forget the archived games of ``room_ids`` (an operator's purge; unknown ids are
        skipped).

        Returns:
            How many records were removed.

        Raises:
            StoreError: the store is unavailable.
        """


class Store(RoomLog, LobbyIndex, Leases, Boards, Inbox, Archive, Protocol):
    """Room persistence, room ownership and messages between server processes: the ports
    (:class:`RoomLog`, :class:`LobbyIndex`, :class:`Leases`, :class:`Boards`,
    :class:`Inbox`, :class:`Archive`) that each backend implements in one object, so that
    the server wires one
    store. Code that needs one concern takes that port.

    Capabilities (class attributes; callers ask these, never a store's class):
        shared: True when other server processes use the same store (rooms are owned
            through leases that expire, requests forwarded, ownerless rooms taken over:
            :mod:`.cluster`).
        durable: True when what the store holds outlives this process: a restart finds the
            rooms in play, the logs and the leaderboards again.
        answers_at_once: True when a request may be handled in the socket's callback that
            read it, outside any task (see :func:`~cardhall.server.tasks.start_eagerly`):
            no method needs ``asyncio.current_task()`` before it first waits, and most
            calls never wait (no network I/O).

    Attributes:
        process_id: This process's id (owner of the leases it takes, address of its inbox).
        lease_seconds: How long a room lease lasts without renewal (s).
        health: The store's recent answers and failures (:class:`StoreHealth`).
    """

    process_id: str
    lease_seconds: float = 3.0
    health: StoreHealth
    shared: bool = False
    durable: bool = False
    answers_at_once: bool = False

    async def healthy(self) -> bool:
        """True when the store answers (never raises)."""
        return True

    async def close(self) -> None:
        """Release connections and files (no-op by default)."""
        return None


def store_kind(store: Store) -> str:
    """How ``store`` keeps rooms, by its capabilities: ``"shared"`` (other processes use it),
    ``"durable"`` (this process alone, surviving a restart) or ``"memory"``."""
    return "shared" if store.shared else "durable" if store.durable else "memory"
