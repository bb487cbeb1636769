"""The embedded account store: plain dicts in this process (:class:`MemoryAccounts`).

Nothing survives the process, as with the embedded room store. No method waits; each is
atomic (one event-loop step). Tokens expire by their deadline, checked when read (expired
records are swept as they are found, and on every :data:`SWEEP_EVERY` th write).
"""

from __future__ import annotations

import collections
import time
from collections.abc import Callable, Sequence
from typing import Any

from limits.aio.storage import MemoryStorage, Storage
from sortedcontainers import SortedList  # type: ignore[import-untyped]

from .account_store import KeyTaken
from .identity import Account

__all__ = ["MemoryAccounts"]

#: Token writes between two sweeps of expired token records.
SWEEP_EVERY = 1024


class MemoryAccounts:
    """Accounts, tokens and histories in this process (an :class:`~.account_store.
    AccountStore`).

    Args:
        clock: Wall clock (unix s) the token deadlines are read against; for tests.
    """

    shared = False

    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self._clock = clock
        self.accounts: dict[str, Account] = {}
        self.keys: dict[tuple[str, str], str] = {}
        #: ``(username, id)`` of every account, sorted (paging).
        self.order = SortedList()
        self.tokens: dict[str, dict[str, tuple[float, dict[str, Any]]]] = {}
        self.table_seats: dict[str, dict[str, dict[str, Any]]] = {}
        self.history: dict[str, collections.deque[dict[str, Any]]] = {}
        self._writes = 0

    def limits_storage(self) -> Storage:
        """A ``limits`` memory storage (one process counts alone)."""
        return MemoryStorage()

    # -- accounts ------------------------------------------------------------------------

    def _claim(self, account_id: str, keys: Sequence[tuple[str, str]]) -> None:
        """Claim ``keys`` for ``account_id``, all or none.

        Raises:
            KeyTaken: one is held by another account.
        """
        for key in keys:
            holder = self.keys.get(key)
            if holder is not None and holder != account_id:
                raise KeyTaken(key[0])
        for key in keys:
            self.keys[key] = account_id

    async def create(self, account: Account) -> None:
        """Keep ``account`` and claim its keys (see :class:`~.account_store.AccountBook`)."""
        if account.id in self.accounts:
            raise KeyTaken("id")
        self._claim(account.id, account.keys)
        self.accounts[account.id] = account
        self.order.add((account.username, account.id))

    async def get(self, account_id: str) -> Account | None:
        """The account, or None."""
        return self.accounts.get(account_id)

    async def get_many(self, account_ids: Sequence[str]) -> list[Account | None]:
        """The accounts, in order."""
        return [self.accounts.get(a) for a in account_ids]

    async def lookup(self, kind: str, key: str) -> str | None:
        """The holder of a key, or None."""
        return self.keys.get((kind, key))

    async def save(self, account: Account, old: Account) -> None:
        """Replace the record, claiming new keys and releasing dropped ones."""
        gone = set(old.keys) - set(account.keys)
        self._claim(account.id, [k for k in account.keys if k not in old.keys])
        for key in gone:
            if self.keys.get(key) == account.id:
                del self.keys[key]
        self.accounts[account.id] = account
        if account.username != old.username:
            self.order.discard((old.username, old.id))
            self.order.add((account.username, account.id))

    async def page(self, after: str, count: int, prefix: str = "") -> list[Account]:
        """Accounts by username after ``after``, beginning with ``prefix``."""
        start = max(self.order.bisect_left((prefix, "")),
                    self.order.bisect_left((after, "\uffff")) if after else 0)
        found: list[Account] = []
        for username, account_id in self.order.islice(start):
            if not username.startswith(prefix) or len(found) == count:
                break
            found.append(self.accounts[account_id])
        return found

    # -- tokens --------------------------------------------------------------------------

    async def put_token(self, account_id: str, digest: str, record: dict[str, Any],
                        ttl: float) -> None:
        """Keep a token record until ``ttl`` seconds from now."""
        self.tokens.setdefault(account_id, {})[digest] = (self._clock() + ttl, record)
        self._writes += 1
        if self._writes % SWEEP_EVERY == 0:
            self._sweep()

    def _sweep(self) -> None:
        now = self._clock()
        for account_id in list(self.tokens):
            held = self.tokens[account_id]
            for digest in [d for d, (until, _) in held.items() if until <= now]:
                del held[digest]
            if not held:
                del self.tokens[account_id]

    async def get_token(self, account_id: str, digest: str) -> dict[str, Any] | None:
        """A token record not expired, or None."""
        held = self.tokens.get(account_id, {})
        found = held.get(digest)
        if found is None:
            return None
        if found[0] <= self._clock():
            del held[digest]
            return None
        return found[1]

    async def drop_tokens(self, account_id: str, *digests: str) -> None:
        """Forget the tokens."""
        held = self.tokens.get(account_id, {})
        for digest in digests:
            held.pop(digest, None)

    async def drop_all_tokens(self, account_id: str) -> int:
        """Forget every token of the account."""
        return len(self.tokens.pop(account_id, {}))

    async def note_process(self, account_id: str, process_id: str) -> None:
        """One process: nothing to note."""

    async def processes(self, account_id: str) -> list[str]:
        """One process: no other to tell."""
        return []

    # -- history -------------------------------------------------------------------------

    async def set_seat(self, account_id: str, room_id: str,
                       entry: dict[str, Any] | None) -> None:
        """Keep or forget a seat entry."""
        if entry is not None:
            self.table_seats.setdefault(account_id, {})[room_id] = entry
            return
        held = self.table_seats.get(account_id)
        if held is not None:
            held.pop(room_id, None)
            if not held:
                del self.table_seats[account_id]

    async def seats(self, account_id: str) -> dict[str, dict[str, Any]]:
        """The account's seat entries."""
        return dict(self.table_seats.get(account_id, {}))

    async def add_game(self, account_id: str, entry: dict[str, Any], keep: int) -> None:
        """Put a game first, keep the newest ``keep``."""
        games = self.history.get(account_id)
        if games is None or games.maxlen != keep:
            games = self.history[account_id] = collections.deque(games or (), maxlen=keep)
        games.appendleft(entry)

    async def games(self, account_id: str, start: int,
                    count: int) -> tuple[list[dict[str, Any]], int]:
        """A slice of the history."""
        games = self.history.get(account_id, collections.deque())
        return list(games)[start:start + count], len(games)
