"""Where accounts, their sign-in tokens and each account's games are kept: a port of three small
Protocols, one implementation per backend in a module of its own
(:mod:`.account_memory`, :mod:`.account_redis`).

The room store (:class:`~.store.Store`) is not grown for them: the server gets an
:class:`AccountStore` beside it (:func:`~.app.accounts_for` picks the one that shares the
room store's backend). What the auth service and the rooms need of it:

* :class:`AccountBook`: account records and the unique keys they hold (a username, the keys
  of its names, a guest's device digest, an external subject), claimed and released
  together with the record, so that no two accounts ever hold one key;
* :class:`TokenBook`: access and refresh token records by their digest, with expiry, and
  the processes an account signed in on (an operator's ban is told to each); an access
  token signs a session (:class:`~.session.Session`: a client as the server serves it) in
  to the account;
* :class:`GameHistory`: the seats an account holds in rooms still running, and its finished
  games, newest first.

Shapes:
    token record: ``{"kind": "s" | "r", "expires": unix s, "pair": digest}`` (``pair``:
        the digest of the other token of the pair, dropped with it).
    seat entry: ``{"seat", "game", "mode", "since"}`` (unix s), by room id.
    game entry: ``{"room", "seat", "seats", "name", "game", "mode", "finished", "result",
        "score"}`` (see ``my_games`` in protocol/README.md).

Capabilities, not types, tell the callers how a store behaves: :attr:`AccountBook.shared`
(other processes see the same accounts: a ban must be told to them) and
:meth:`AccountBook.limits_storage` (where the sign-in rate limits count: a ``limits``
storage in this process, or on the shared backend).

Exception tree::

    StoreError (store/ports.py)   the store cannot be reached ("server/unavailable")
    KeyTaken                a unique key is held by another account; nothing was written
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from limits.aio.storage import Storage

from .identity import Account

__all__ = ["AccountBook", "AccountStore", "GameHistory", "KeyTaken", "SeatLedger",
           "TokenBook"]


class KeyTaken(Exception):
    """A unique key (``kind``: ``"user"``, ``"name"``, ``"device"``, ``"subject"``) is held
    by another account; the write it refused changed nothing.

    Args:
        kind: The key's kind.
    """

    def __init__(self, kind: str) -> None:
        super().__init__(f"a {kind} key is held by another account")
        self.kind = kind


class AccountBook(Protocol):
    """Account records and their unique keys.

    Attributes:
        shared: True when other server processes use the same accounts (a Redis store).
    """

    shared: bool

    def limits_storage(self) -> Storage:
        """Where sign-in attempts are counted: a ``limits`` storage this process's (memory)
        or every process's (the shared backend) whose keys begin ``cardhall:limits``."""

    async def create(self, account: Account) -> None:
        """Keep a new account and claim every key of ``account.keys`` for it.

        Raises:
            KeyTaken: a key is held by another account (nothing is kept).
            StoreError: the store is unavailable.
        """

    async def get(self, account_id: str) -> Account | None:
        """The account ``account_id``, or None.

        Raises:
            StoreError: the store is unavailable.
        """

    async def get_many(self, account_ids: Sequence[str]) -> list[Account | None]:
        """:meth:`get` of each id, in order (one round trip).

        Raises:
            StoreError: the store is unavailable.
        """

    async def lookup(self, kind: str, key: str) -> str | None:
        """The id of the account holding the unique key ``(kind, key)``, or None.

        Raises:
            StoreError: the store is unavailable.
        """

    async def save(self, account: Account, old: Account) -> None:
        """Replace the record ``old`` by ``account`` (same id): the keys ``account`` holds
        and ``old`` did not are claimed, those ``old`` held and ``account`` does not are
        released.

        Raises:
            KeyTaken: a new key is held by another account (nothing is changed).
            StoreError: the store is unavailable.
        """

    async def page(self, after: str, count: int, prefix: str = "") -> list[Account]:
        """Up to ``count`` accounts in username order, whose usernames sort after
        ``after`` (``""``: from the first) and begin with ``prefix``.

        Raises:
            StoreError: the store is unavailable.
        """


class TokenBook(Protocol):
    """Access and refresh token records, and where accounts signed in."""

    async def put_token(self, account_id: str, digest: str, record: dict[str, Any],
                        ttl: float) -> None:
        """Keep a token's ``record`` under its ``digest`` for ``ttl`` seconds.

        Raises:
            StoreError: the store is unavailable.
        """

    async def get_token(self, account_id: str, digest: str) -> dict[str, Any] | None:
        """The record of a token that has not expired nor been dropped, or None.

        Raises:
            StoreError: the store is unavailable.
        """

    async def drop_tokens(self, account_id: str, *digests: str) -> None:
        """Forget the tokens of ``digests`` (unknown ones are ignored).

        Raises:
            StoreError: the store is unavailable.
        """

    async def drop_all_tokens(self, account_id: str) -> int:
        """Forget every token of the account; returns how many were kept.

        Raises:
            StoreError: the store is unavailable.
        """

    async def note_process(self, account_id: str, process_id: str) -> None:
        """Note that the account signed in on server process ``process_id``.

        Raises:
            StoreError: the store is unavailable.
        """

    async def processes(self, account_id: str) -> list[str]:
        """The processes the account signed in on (some may have gone since).

        Raises:
            StoreError: the store is unavailable.
        """


class GameHistory(Protocol):
    """Each account's running seats and finished games ("My games")."""

    async def set_seat(self, account_id: str, room_id: str,
                       entry: dict[str, Any] | None) -> None:
        """Keep the account's seat ``entry`` in ``room_id`` (None: it holds none there).

        Raises:
            StoreError: the store is unavailable.
        """

    async def seats(self, account_id: str) -> dict[str, dict[str, Any]]:
        """The account's seat entries by room id.

        Raises:
            StoreError: the store is unavailable.
        """

    async def add_game(self, account_id: str, entry: dict[str, Any], keep: int) -> None:
        """Put a finished game first in the account's history, which keeps the newest
        ``keep`` games.

        Raises:
            StoreError: the store is unavailable.
        """

    async def games(self, account_id: str, start: int,
                    count: int) -> tuple[list[dict[str, Any]], int]:
        """Games ``start .. start+count-1`` of the history (0: the newest) and how many it
        holds.

        Raises:
            StoreError: the store is unavailable.
        """


class AccountStore(AccountBook, TokenBook, GameHistory, Protocol):
    """All three: what one backend implements."""


class SeatLedger(Protocol):
    """What a room tells about its seats' accounts (:class:`~.history.Ledger` writes it to a
    :class:`GameHistory`); every call returns at once, the write goes on in the background.
    """

    def seated(self, account_id: str, room_id: str, seat: int, game: str,
               mode: str | None) -> None:
        """The account took ``seat`` of ``room_id``."""

    def unseated(self, account_id: str, room_id: str) -> None:
        """The account holds no seat of ``room_id`` any more (left, kicked, forfeited)."""

    def finished(self, room_id: str, name: str, game: str, mode: str | None,
                 seats: Sequence[str], outcome: dict[str, Any] | None) -> None:
        """The game of ``room_id`` ended: every account of ``seats`` (account id per seat,
        ``""`` for seats without one) gets it in its history and holds the seat no more."""
