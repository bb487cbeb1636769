"""The in-memory store: every port of :class:`~.store.Store` in plain dicts of this process.

Nothing survives the process: tests, benchmarks and ``cardhall serve --store memory``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sortedcontainers import SortedList  # type: ignore[import-untyped]

from .local_ports import LocalInbox, LocalLeases
from .ports import Lease, Loaded, LogConflict, LogEntry, Store, StoreHealth, new_process_id
from .ports import room_indexes

__all__ = ["MemoryStore"]


class MemoryStore(LocalLeases, LocalInbox, Store):
    """The in-memory store: plain dicts in this process, which owns every room.

    Nothing survives the process (tests and benchmarks; ``cardhall serve --store memory``);
    leases (:class:`~.local_ports.LocalLeases`: every room is this process's), fencing and
    the inbox (:class:`~.local_ports.LocalInbox`: there is no other process) are trivial. No
    method waits (:attr:`~.store.Store.answers_at_once`).
    """

    answers_at_once = True

    def __init__(self) -> None:
        super().__init__()
        self.process_id = new_process_id()
        self.health = StoreHealth(self.lease_seconds)  # never fails
        self.records: dict[str, dict[str, Any]] = {}
        self.states: dict[str, dict[str, Any]] = {}
        self.summaries: dict[str, dict[str, Any]] = {}
        self.codes: dict[str, str] = {}
        self.logs: dict[str, list[LogEntry]] = {}
        self.snapshots: dict[str, tuple[int, dict[str, Any]]] = {}
        #: Lobby indexes by name (:func:`room_indexes`): room ids, sorted.
        self.indexes: dict[str, SortedList] = {}
        #: Leaderboards by board id: (rank value, name) pairs, best first, and each name's
        #: rank value.
        self.boards: dict[str, tuple[SortedList, dict[str, int]]] = {}
        #: The games archive (:class:`~.store.Archive`): finished games' records by room.
        self.games: dict[str, dict[str, Any]] = {}

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
                        summary: dict[str, Any]) -> Lease:
        """Create the room."""
        lease = await self.acquire(room_id)
        assert lease is not None
        self.records[room_id] = record
        self.states[room_id] = state
        self._reindex(room_id, self.summaries.get(room_id), summary)
        self.summaries[room_id] = summary
        self.logs.setdefault(room_id, [])
        if record.get("code"):
            self.codes[record["code"]] = room_id
        return lease

    async def save_state(self, room_id: str, state: dict[str, Any],
                         summary: dict[str, Any], *, lease: Lease | None = None) -> None:
        """Replace the state and lobby entry (fenced by ``lease`` when given)."""
        self.fence(room_id, lease)
        self.states[room_id] = state
        self._reindex(room_id, self.summaries.get(room_id), summary)
        self.summaries[room_id] = summary

    async def append(self, room_id: str, entries: Sequence[LogEntry], expect: int,
                     state: dict[str, Any] | None, *, lease: Lease | None = None) -> None:
        """Append to the log (this class's :meth:`append_now`, whichever a subclass
        overrides)."""
        MemoryStore.append_now(self, room_id, entries, expect, state, lease=lease)

    def append_now(self, room_id: str, entries: Sequence[LogEntry], expect: int,
                   state: dict[str, Any] | None, *, lease: Lease | None = None) -> bool:
        """Append to the log at once, always (the lease and length checks still guard
        against bugs). Returns True."""
        self.fence(room_id, lease)
        log = self.logs.setdefault(room_id, [])
        if len(log) != expect:
            raise LogConflict(f"log of {room_id} is {len(log)} long, not {expect}")
        log.extend(entries)
        if state is not None:
            self.states[room_id] = state
        return True

    async def save_snapshot(self, room_id: str, state_id: int, snapshot: dict[str, Any]) -> None:
        """Keep the latest snapshot."""
        self.snapshots[room_id] = (state_id, snapshot)

    async def load(self, room_id: str, *, lease: Lease | None = None) -> Loaded | None:
        """Record, state, latest snapshot and the log after it (nothing to confirm here)."""
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
            table.pop(room_id, None)
        self.forget(room_id)

    async def release(self, room_id: str) -> None:
        """Nothing to release."""

    async def owner(self, room_id: str) -> str | None:
        """This process, for a known room."""
        return self.process_id if room_id in self.records else None

    async def owners(self, room_ids: Sequence[str]) -> list[str | None]:
        """This process for each known room, None for the others."""
        return [self.process_id if r in self.records else None for r in room_ids]

    async def orphans(self) -> list[str]:
        """Never any."""
        return []

    async def record_score(self, board: str, name: str, value: int, size: int) -> bool:
        """Keep the better of ``value`` and the name's entry, then the best ``size``."""
        ranked, values = self.boards.setdefault(board, (SortedList(), {}))
        old = values.get(name)
        if old is not None and old <= value:
            return False
        if old is not None:
            ranked.remove((old, name))
        ranked.add((value, name))
        values[name] = value
        while len(ranked) > size:
            _, dropped = ranked.pop()
            del values[dropped]
        return True

    async def board_page(self, board: str, start: int, count: int
                         ) -> tuple[list[tuple[str, int]], int]:
        """A slice of the sorted entries."""
        ranked, _ = self.boards.get(board, ((), {}))
        return [(n, v) for v, n in ranked[start:start + count]], len(ranked)

    async def board_rank(self, board: str, name: str) -> tuple[int, int] | None:
        """Bisect for the name's entry."""
        ranked, values = self.boards.get(board, (SortedList(), {}))
        value = values.get(name)
        return None if value is None else (ranked.index((value, name)), value)

    async def archive_game(self, room_id: str, game: dict[str, Any],
                           keep: float | None = None) -> None:
        """Keep the record (``keep`` is left to :meth:`prune_archive`)."""
        self.games[room_id] = game

    async def archived(self, room_id: str) -> dict[str, Any] | None:
        """The record, or None."""
        return self.games.get(room_id)

    async def archived_ids(self, offset: int, limit: int) -> list[str]:
        """A page of room ids by finish time, then room id."""
        ordered = sorted(self.games, key=lambda r: (self.games[r]["finished_at"], r))
        return ordered[offset:offset + max(0, limit)]

    async def prune_archive(self, before: float) -> int:
        """Drop the records of games finished before ``before``."""
        gone = [r for r, g in self.games.items() if g["finished_at"] < before]
        for room_id in gone:
            del self.games[room_id]
        return len(gone)

    async def purge_archived(self, room_ids: Sequence[str]) -> int:
        """Drop the records of ``room_ids``."""
        return sum(self.games.pop(r, None) is not None for r in set(room_ids))
