"""Where room state is kept: one interface, two implementations.

The room logic talks only to :class:`Store`. :class:`MemoryStore` keeps everything in this
process (``cardhall serve`` on a bare laptop: one process owns every room);
:class:`~cardhall.server.redis_store.RedisStore` shares rooms between processes and machines.
Every accepted action is appended to the room's log *before* any client hears of it, so a
room can be rebuilt from its record, its latest snapshot and the log after it.

Shapes:
    record:   ``{"room", "name", "game", "mode", "seats", "private", "options", "settings",
              "host", "code"}``: what never changes after creation (``options`` are the
              engine's resolved options, with ``seed``).
    state:    the room's server-side state: ``{"status", "seats", "members", "deadlines",
              "finished_at"}`` (seat tokens included; see ``Room.state``).
    summary:  the lobby entry of a room (a ``rooms`` entry of the protocol).
    index:    a lobby index: the ids of some rooms in id order, for paging (``list_page``)
              and quick join without reading every entry (see :func:`room_indexes`).
    entry:    one log entry ``[kind, seat, action]``: ``kind`` ``"a"`` for an action,
              ``"f"`` for a forfeit (``action`` is then ``None``). Entry ``i`` (0-based)
              produced state id ``i + 1``.

Exception tree::

    StoreError          the store cannot be reached or refused a write ("server/unavailable")
    └── OwnershipLost   a fenced write found that this process no longer owns the room
"""

from __future__ import annotations

import os
import secrets
import socket
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

from sortedcontainers import SortedList  # type: ignore[import-untyped]

LogEntry = list[Any]
InboxHandler = Callable[[bytes], Awaitable[None]]


class StoreError(Exception):
    """The store cannot be reached or refused a write (sent as ``server/unavailable``)."""

    code = "server/unavailable"


class OwnershipLost(StoreError):
    """A fenced write found the room owned by another process (or its log moved on)."""


@dataclass
class Loaded:
    """A room as the store holds it.

    Attributes:
        record: The room's record.
        state: Its latest server-side state, or None if none was saved yet.
        snapshot: The latest engine snapshot, or None.
        snapshot_state_id: State id of ``snapshot`` (0 without one).
        entries: Log entries after the snapshot, oldest first.
    """

    record: dict[str, Any]
    state: dict[str, Any] | None
    snapshot: dict[str, Any] | None
    snapshot_state_id: int
    entries: list[LogEntry]


#: Lobby entries a page of :meth:`Store.list_page` examines at most (besides ``limit``): a
#: filtered page may hold fewer rooms than asked for, and then says there are more.
PAGE_SCAN = 256


def waiting_entry(summary: dict[str, Any]) -> bool:
    """True when the room of ``summary`` may be entered by anyone now: public, waiting for
    players and with a free seat (what ``list_rooms.waiting`` and quick join look for)."""
    return (summary["status"] == "waiting" and not summary["private"]
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
               waiting: bool) -> bool:
    """Whether ``summary`` passes the filters of :meth:`Store.list_page`."""
    return ((game is None or summary["game"] == game)
            and (mode is None or summary["mode"] == mode)
            and (not waiting or waiting_entry(summary)))


def new_process_id() -> str:
    """A unique id for this server process: ``host:pid:random``."""
    return f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(3)}"


class Store(ABC):
    """Room persistence, room ownership and messages between server processes.

    Attributes:
        process_id: This process's id (owner of the leases it takes, address of its inbox).
        lease_seconds: How long a room lease lasts without renewal (s).
    """

    process_id: str
    lease_seconds: float = 3.0

    # -- rooms -------------------------------------------------------------------------

    @abstractmethod
    async def save_room(self, room_id: str, record: dict[str, Any], state: dict[str, Any],
                        summary: dict[str, Any]) -> None:
        """Create a room: its record, first state, lobby entry and join code; this process
        takes its lease.

        Raises:
            StoreError: the store is unavailable.
        """

    @abstractmethod
    async def save_state(self, room_id: str, state: dict[str, Any],
                         summary: dict[str, Any]) -> None:
        """Replace the room's server state and lobby entry (fenced by the lease).

        Raises:
            OwnershipLost: this process does not own the room.
            StoreError: the store is unavailable.
        """

    @abstractmethod
    async def append(self, room_id: str, entries: Sequence[LogEntry], expect: int,
                     state: dict[str, Any]) -> None:
        """Append log entries and store ``state`` in one atomic, fenced step.

        Args:
            expect: The log's length before this append (the state id the entries start
                from); a different length means another owner wrote meanwhile.

        Raises:
            OwnershipLost: the room is owned elsewhere or its log is not ``expect`` long;
                nothing was written.
            StoreError: the store is unavailable; nothing may be assumed written.
        """

    @abstractmethod
    async def save_snapshot(self, room_id: str, state_id: int, snapshot: dict[str, Any]) -> None:
        """Keep the engine snapshot taken after ``state_id`` log entries.

        Raises:
            StoreError: the store is unavailable.
        """

    @abstractmethod
    async def load(self, room_id: str) -> Loaded | None:
        """The room as stored, or None for an unknown (or expired) room.

        Raises:
            StoreError: the store is unavailable.
        """

    @abstractmethod
    async def log(self, room_id: str) -> list[LogEntry]:
        """The room's whole action log, oldest first (``[]`` for an unknown room).

        Raises:
            StoreError: the store is unavailable.
        """

    @abstractmethod
    async def list_rooms(self) -> list[dict[str, Any]]:
        """Lobby entries of every room of every process, all at once (for tests and tools:
        the server itself pages with :meth:`list_page`).

        Raises:
            StoreError: the store is unavailable.
        """

    @abstractmethod
    async def index_ids(self, index: str, after: str, count: int) -> list[str]:
        """Up to ``count`` room ids of lobby index ``index`` (:func:`room_indexes`) that
        sort after ``after`` (``""``: from the first), in id order. An index may still name
        a room whose lobby entry is gone, or that no longer fits it: readers check the
        entries.

        Raises:
            StoreError: the store is unavailable.
        """

    @abstractmethod
    async def entries(self, room_ids: Sequence[str]) -> list[dict[str, Any] | None]:
        """The lobby entries of ``room_ids``, in order (None for a room without one).

        Raises:
            StoreError: the store is unavailable.
        """

    async def list_page(self, *, game: str | None = None, mode: str | None = None,
                        waiting: bool = False, cursor: str | None = None,
                        limit: int = 100) -> tuple[list[dict[str, Any]], str | None]:
        """One page of the lobby, in room id order, read through an index (one or two
        store round trips whatever the number of rooms).

        Args:
            game: Only rooms of this game (None: all).
            mode: Only rooms of this mode (None: all).
            waiting: Only :func:`waiting_entry` rooms (public, waiting, a free seat).
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
            if entry is not None and entry_fits(entry, game, mode, waiting):
                page.append(entry)
                if len(page) == limit:
                    more = i < len(ids) - 1 or len(ids) == scan
                    return page, ids[i] if more else None
        return page, ids[-1] if len(ids) == scan else None

    @abstractmethod
    async def room_by_code(self, code: str) -> str | None:
        """The id of the private room with join ``code``, or None.

        Raises:
            StoreError: the store is unavailable.
        """

    @abstractmethod
    async def finish_room(self, room_id: str, ttl: float) -> None:
        """The room's game ended: every key of the room expires after ``ttl`` seconds.

        Raises:
            StoreError: the store is unavailable.
        """

    @abstractmethod
    async def delete_room(self, room_id: str) -> None:
        """Forget the room entirely, its lobby entry, code and lease (no error if unknown).

        Raises:
            StoreError: the store is unavailable.
        """

    # -- ownership -----------------------------------------------------------------------

    @abstractmethod
    async def acquire(self, room_id: str) -> bool:
        """Take the room's lease if nobody holds it (or this process does).

        Raises:
            StoreError: the store is unavailable.
        """

    @abstractmethod
    async def renew(self, room_ids: Sequence[str]) -> list[str]:
        """Extend this process's leases; returns the rooms whose lease another process
        holds now (this process must stop running them).

        Raises:
            StoreError: the store is unavailable.
        """

    @abstractmethod
    async def release(self, room_id: str) -> None:
        """Give up the room's lease if this process holds it."""

    @abstractmethod
    async def owner(self, room_id: str) -> str | None:
        """The process id holding the room's lease, or None.

        Raises:
            StoreError: the store is unavailable.
        """

    @abstractmethod
    async def orphans(self) -> list[str]:
        """Rooms in the lobby whose lease nobody holds (their owner died).

        Raises:
            StoreError: the store is unavailable.
        """

    # -- processes -------------------------------------------------------------------------

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
        return process_id == self.process_id

    # -- messages between processes ------------------------------------------------------

    @abstractmethod
    async def publish(self, process_id: str, payload: bytes) -> int:
        """Send ``payload`` to the inbox of ``process_id``; returns how many processes
        received it (0: that process is gone).

        Raises:
            StoreError: the store is unavailable.
        """

    async def listen(self, handler: InboxHandler) -> None:
        """Deliver every payload sent to this process's inbox to ``handler`` until
        :meth:`close` (a single-process store never receives any)."""

    async def healthy(self) -> bool:
        """True when the store answers."""
        return True

    async def close(self) -> None:
        """Release connections (no-op by default)."""


class MemoryStore(Store):
    """The embedded store: plain dicts in this process, which owns every room.

    Nothing survives the process; leases, fencing and inboxes are trivial.
    """

    def __init__(self) -> None:
        self.process_id = new_process_id()
        self.records: dict[str, dict[str, Any]] = {}
        self.states: dict[str, dict[str, Any]] = {}
        self.summaries: dict[str, dict[str, Any]] = {}
        self.codes: dict[str, str] = {}
        self.logs: dict[str, list[LogEntry]] = {}
        self.snapshots: dict[str, tuple[int, dict[str, Any]]] = {}
        #: Lobby indexes by name (:func:`room_indexes`): room ids, sorted.
        self.indexes: dict[str, SortedList] = {}

    def _reindex(self, room_id: str, old: dict[str, Any] | None,
                 new: dict[str, Any] | None) -> None:
        """Move ``room_id`` from the indexes of its ``old`` entry to those of ``new``."""
        before = set(room_indexes(old)) if old is not None else set()
        after = set(room_indexes(new)) if new is not None else set()
        for name in before - after:
            self.indexes[name].discard(room_id)
        for name in after - before:
            self.indexes.setdefault(name, SortedList()).add(room_id)

    async def save_room(self, room_id: str, record: dict[str, Any], state: dict[str, Any],
                        summary: dict[str, Any]) -> None:
        """Create the room."""
        self.records[room_id] = record
        self.states[room_id] = state
        self._reindex(room_id, self.summaries.get(room_id), summary)
        self.summaries[room_id] = summary
        self.logs.setdefault(room_id, [])
        if record.get("code"):
            self.codes[record["code"]] = room_id

    async def save_state(self, room_id: str, state: dict[str, Any],
                         summary: dict[str, Any]) -> None:
        """Replace the state and lobby entry."""
        self.states[room_id] = state
        self._reindex(room_id, self.summaries.get(room_id), summary)
        self.summaries[room_id] = summary

    async def append(self, room_id: str, entries: Sequence[LogEntry], expect: int,
                     state: dict[str, Any]) -> None:
        """Append to the log (the length check still guards against bugs)."""
        log = self.logs.setdefault(room_id, [])
        if len(log) != expect:
            raise OwnershipLost(f"log of {room_id} is {len(log)} long, not {expect}")
        log.extend(entries)
        self.states[room_id] = state

    async def save_snapshot(self, room_id: str, state_id: int, snapshot: dict[str, Any]) -> None:
        """Keep the latest snapshot."""
        self.snapshots[room_id] = (state_id, snapshot)

    async def load(self, room_id: str) -> Loaded | None:
        """Record, state, latest snapshot and the log after it."""
        record = self.records.get(room_id)
        if record is None:
            return None
        sid, snap = self.snapshots.get(room_id, (0, None))
        return Loaded(record, self.states.get(room_id), snap, sid,
                      list(self.logs.get(room_id, [])[sid:]))

    async def log(self, room_id: str) -> list[LogEntry]:
        """The whole log."""
        return list(self.logs.get(room_id, []))

    async def list_rooms(self) -> list[dict[str, Any]]:
        """Every lobby entry."""
        return list(self.summaries.values())

    async def index_ids(self, index: str, after: str, count: int) -> list[str]:
        """Ids from the sorted index."""
        ids = self.indexes.get(index)
        if not ids:
            return []
        start = ids.bisect_right(after)
        return list(ids.islice(start, start + count))

    async def entries(self, room_ids: Sequence[str]) -> list[dict[str, Any] | None]:
        """Entries by id."""
        return [self.summaries.get(r) for r in room_ids]

    async def room_by_code(self, code: str) -> str | None:
        """Room id of a join code."""
        return self.codes.get(code)

    async def finish_room(self, room_id: str, ttl: float) -> None:
        """Nothing expires by itself here: the lobby removes the room after ``ttl``."""

    async def delete_room(self, room_id: str) -> None:
        """Forget the room."""
        record = self.records.pop(room_id, None)
        if record and record.get("code"):
            self.codes.pop(record["code"], None)
        self._reindex(room_id, self.summaries.get(room_id), None)
        for table in (self.states, self.summaries, self.logs, self.snapshots):
            table.pop(room_id, None)  # type: ignore[attr-defined]

    async def acquire(self, room_id: str) -> bool:
        """Always granted: this process owns every room."""
        return True

    async def renew(self, room_ids: Sequence[str]) -> list[str]:
        """No lease is ever lost."""
        return []

    async def release(self, room_id: str) -> None:
        """Nothing to release."""

    async def owner(self, room_id: str) -> str | None:
        """This process, for a known room."""
        return self.process_id if room_id in self.records else None

    async def orphans(self) -> list[str]:
        """Never any."""
        return []

    async def publish(self, process_id: str, payload: bytes) -> int:
        """There are no other processes."""
        return 0
