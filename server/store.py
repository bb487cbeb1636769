"""Where room state is kept: one interface, an embedded in-memory implementation.

The room logic talks only to :class:`Store`. :class:`MemoryStore` keeps everything in this
process (``cardhall serve`` on a bare laptop); a Redis implementation shares rooms between
processes. Every accepted action is appended to the room's log *before* any client hears of
it, so a room can be rebuilt from its record (options + action log, or snapshot + the log
after it).

Shapes:
    record:  ``{"room": str, "game": str, "seats": int, "options": dict, ...}`` - the
             room's public description and its resolved engine options (with ``seed``).
    entry:   one log entry, ``[kind, seat, action]``: ``kind`` ``"a"`` for an action,
             ``"f"`` for a forfeit (``action`` is then ``None``).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any

LogEntry = list[Any]


class StoreError(Exception):
    """The store cannot be reached or refused a write (sent as ``server/unavailable``)."""

    code = "server/unavailable"


class Store(ABC):
    """Room persistence used by the lobby and the rooms."""

    @abstractmethod
    async def save_room(self, room_id: str, record: dict[str, Any]) -> None:
        """Create or replace the room's record.

        Raises:
            StoreError: the store is unavailable.
        """

    @abstractmethod
    async def append(self, room_id: str, entries: Sequence[LogEntry]) -> None:
        """Append entries to the room's action log (durable when this returns).

        Raises:
            StoreError: the store is unavailable; nothing may be assumed written.
        """

    @abstractmethod
    async def save_snapshot(self, room_id: str, state_id: int, snapshot: dict[str, Any]) -> None:
        """Keep the engine snapshot taken after ``state_id`` actions (log entries).

        Raises:
            StoreError: the store is unavailable.
        """

    @abstractmethod
    async def load(self, room_id: str) -> tuple[dict[str, Any], dict[str, Any] | None,
                                                 int, list[LogEntry]] | None:
        """``(record, snapshot or None, snapshot_state_id, log entries after it)``, or
        ``None`` for an unknown room.

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
    async def delete_room(self, room_id: str) -> None:
        """Forget the room entirely (no error if it is unknown).

        Raises:
            StoreError: the store is unavailable.
        """

    async def healthy(self) -> bool:
        """True when the store answers."""
        return True

    async def close(self) -> None:
        """Release connections (no-op by default)."""


class MemoryStore(Store):
    """The embedded store: plain dicts in this process. Nothing survives the process."""

    def __init__(self) -> None:
        self.records: dict[str, dict[str, Any]] = {}
        self.logs: dict[str, list[LogEntry]] = {}
        self.snapshots: dict[str, tuple[int, dict[str, Any]]] = {}

    async def save_room(self, room_id: str, record: dict[str, Any]) -> None:
        """Create or replace the room's record."""
        self.records[room_id] = record
        self.logs.setdefault(room_id, [])

    async def append(self, room_id: str, entries: Sequence[LogEntry]) -> None:
        """Append entries to the room's log."""
        self.logs.setdefault(room_id, []).extend(entries)

    async def save_snapshot(self, room_id: str, state_id: int, snapshot: dict[str, Any]) -> None:
        """Keep the latest snapshot."""
        self.snapshots[room_id] = (state_id, snapshot)

    async def load(self, room_id: str) -> tuple[dict[str, Any], dict[str, Any] | None,
                                                 int, list[LogEntry]] | None:
        """Record, latest snapshot and the log after it."""
        record = self.records.get(room_id)
        if record is None:
            return None
        state_id, snap = self.snapshots.get(room_id, (0, None))
        return record, snap, state_id, list(self.logs.get(room_id, [])[state_id:])

    async def log(self, room_id: str) -> list[LogEntry]:
        """The whole log."""
        return list(self.logs.get(room_id, []))

    async def delete_room(self, room_id: str) -> None:
        """Forget the room."""
        self.records.pop(room_id, None)
        self.logs.pop(room_id, None)
        self.snapshots.pop(room_id, None)
