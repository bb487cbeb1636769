"""The messages of accounts: ways in (guest, register, login, restore, refresh), out (logout),
the account's display name, and its "My games" (protocol/README.md, "Accounts").

They are declared like every other message (:mod:`.messages`: frozen dataclasses that
validate themselves, in the one registry of type tags), in a module of their own.

Client -> server (:data:`AccountRequest`): :class:`Guest`, :class:`Register`,
:class:`Login`, :class:`Restore`, :class:`Refresh`, :class:`Logout`, :class:`SetName`,
:class:`GetMyGames`. Server -> client (:data:`AccountReply`): :class:`Account`,
:class:`SignedOut`, :class:`MyGames`.

The protocol checks shapes only (lengths, types, one of two ways in :class:`Login`); the
server checks meanings: what a username may hold, how long a password must be (in UTF-8
bytes), whether a token is valid (``auth/*`` error codes).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar, TypeAlias

from .errors import BadType, BadValue, RequestId
from .messages import (
    MAX_ID,
    MAX_SEATS,
    MAX_STATE_ID,
    REQUEST_ID,
    Record,
    bool_check,
    int_check,
    message,
    str_check,
    wire_field,
)

__all__ = [
    "MAX_SECRET_LEN",
    "MAX_TOKEN_LEN",
    "MIN_SECRET_LEN",
    "MY_GAMES_LIMIT",
    "MY_GAMES_LIMIT_MAX",
    "Account",
    "AccountReply",
    "AccountRequest",
    "GetMyGames",
    "Guest",
    "Login",
    "MyGames",
    "Refresh",
    "Register",
    "Restore",
    "SetName",
    "SignedOut",
]

MIN_SECRET_LEN = 22
"""Shortest guest device secret, in characters (22 URL-safe base64 characters: 128 bits)."""
MAX_SECRET_LEN = 256
"""Longest guest device secret, in characters."""
MAX_TOKEN_LEN = 512
"""Longest access, refresh or remembered-device token, in characters."""
MAX_JWT_LEN = 8192
"""Longest operator JWT (``login.jwt``), in characters."""
MAX_PASSWORD_LEN = 1024
"""Longest ``password`` field, in characters (the server counts UTF-8 bytes: at most 1,024)."""
MY_GAMES_LIMIT = 20
"""Finished games per ``my_games`` page when ``get_my_games.limit`` is absent."""
MY_GAMES_LIMIT_MAX = 50
"""Largest ``get_my_games.limit``."""

_ID = REQUEST_ID
_NAME = str_check(1, 64)
_TOKEN = str_check(1, MAX_TOKEN_LEN)
_ROOM = str_check(1, 64)
_GAME = str_check(1, 32)
_SEAT = int_check(0, MAX_SEATS - 1)
_TIME = int_check(0, MAX_STATE_ID)


@message("guest", "client")
class Guest(Record):
    """``guest``: sign in with a device secret the client generated and keeps; the first time
    creates a guest account; answered by ``account`` (with fresh tokens).

    Attributes:
        secret: The device secret, :data:`MIN_SECRET_LEN`..:data:`MAX_SECRET_LEN` characters
            (at least 128 random bits; keep it like a password).
        id: Request id, or None.
    """

    TYPE: ClassVar[str]
    secret: str = wire_field(str_check(MIN_SECRET_LEN, MAX_SECRET_LEN))
    id: RequestId | None = wire_field(_ID, default=None)


@message("register", "client")
class Register(Record):
    """``register``: claim a username and a password; answered by ``account``. A connection
    signed in as a guest upgrades that account (its games, seats and board entries stay);
    otherwise a new account is made.

    Attributes:
        username: The wanted username (1..64 characters; the server normalises it and
            allows 3..32 letters, digits, ``_``, ``-`` and ``.``).
        password: The password (1..1024 characters; the server wants 8..1,024 UTF-8 bytes).
        id: Request id, or None.
    """

    TYPE: ClassVar[str]
    username: str = wire_field(_NAME)
    password: str = wire_field(str_check(1, MAX_PASSWORD_LEN))
    id: RequestId | None = wire_field(_ID, default=None)


@message("login", "client")
class Login(Record):
    """``login``: sign in with a username and password, or with a JWT signed by the server
    operator's identity provider; answered by ``account`` (with fresh tokens).

    Exactly one way: ``username`` and ``password`` together (with ``device`` when this
    device signed in to that account before), or ``jwt`` alone.

    Attributes:
        username: Username (1..64 characters), or None.
        password: Password (1..1024 characters), or None.
        jwt: The operator's signed token (1..8192 characters), or None.
        device: The remembered-device token (1..512 characters) an earlier ``account``
            reply gave this device for this account, or None: a login with a valid one is
            limited per device, not by the account's failed-login limit (a guesser
            elsewhere does not lock its owner out).
        id: Request id, or None.

    Raises:
        BadValue: neither way given, both, a username without a password (or back), or a
            ``device`` without them.
    """

    TYPE: ClassVar[str]
    username: str | None = wire_field(_NAME, default=None)
    password: str | None = wire_field(str_check(1, MAX_PASSWORD_LEN), default=None)
    jwt: str | None = wire_field(str_check(1, MAX_JWT_LEN), default=None)
    device: str | None = wire_field(_TOKEN, default=None)
    id: RequestId | None = wire_field(_ID, default=None)

    def _validate(self) -> None:
        pair = (self.username is None, self.password is None)
        if pair[0] != pair[1]:
            raise BadValue("give username and password together")
        if (self.jwt is None) == pair[0]:
            raise BadValue("give exactly one of username+password and jwt")
        if self.device is not None and pair[0]:
            raise BadValue("device comes with username and password")


@message("restore", "client")
class Restore(Record):
    """``restore``: sign in with an access token from an earlier ``account`` reply (a new
    connection, another device); answered by ``account`` (no new tokens).

    Attributes:
        token: The access token (1..512 characters).
        id: Request id, or None.
    """

    TYPE: ClassVar[str]
    token: str = wire_field(_TOKEN)
    id: RequestId | None = wire_field(_ID, default=None)


@message("refresh", "client")
class Refresh(Record):
    """``refresh``: trade a refresh token for a new access token and refresh token (the old
    pair stops working) and sign in; answered by ``account``.

    Attributes:
        token: The refresh token (1..512 characters).
        id: Request id, or None.
    """

    TYPE: ClassVar[str]
    token: str = wire_field(_TOKEN)
    id: RequestId | None = wire_field(_ID, default=None)


@message("logout", "client")
class Logout(Record):
    """``logout``: end this connection's sign-in (its tokens stop working) and go on
    unsigned; answered by ``signed_out``.

    Attributes:
        everywhere: True: end every sign-in of the account, and sign its other connections
            out (they are closed with 4010). None or False: this sign-in only.
        id: Request id, or None.
    """

    TYPE: ClassVar[str]
    everywhere: bool | None = wire_field(bool_check, default=None)
    id: RequestId | None = wire_field(_ID, default=None)


@message("set_name", "client")
class SetName(Record):
    """``set_name``: change the signed-in account's display name (a connection signed in to
    none: its own name, for as long as it lives); answered by ``account``.

    Attributes:
        name: The display name (1..64 characters; the server normalises it, keeps at most 32
            and refuses one that looks like another account's name: ``auth/name_taken``).
        id: Request id, or None.
    """

    TYPE: ClassVar[str]
    name: str = wire_field(_NAME)
    id: RequestId | None = wire_field(_ID, default=None)


@message("get_my_games", "client")
class GetMyGames(Record):
    """``get_my_games``: the signed-in account's seats in rooms still running and one page of
    its finished games, newest first; answered by ``my_games``.

    Attributes:
        cursor: ``my_games.cursor`` of the previous page (1..64 characters, opaque), or
            None for the first page.
        limit: Most finished games on the page, 1..:data:`MY_GAMES_LIMIT_MAX`; None:
            :data:`MY_GAMES_LIMIT`.
        id: Request id, or None.
    """

    TYPE: ClassVar[str]
    cursor: str | None = wire_field(str_check(1, 64), default=None)
    limit: int | None = wire_field(int_check(1, MY_GAMES_LIMIT_MAX), default=None)
    id: RequestId | None = wire_field(_ID, default=None)


@message("account", "server")
class Account(Record):
    """``account``: who the connection is signed in as (reply to ``guest``, ``register``,
    ``login``, ``restore``, ``refresh`` and ``set_name``).

    Attributes:
        account: The account's id (1..64 characters, opaque; never changes), or ``""``: the
            connection is signed in to no account (an anonymous guest's ``set_name``).
        username: Its username (1..64 characters; a guest's is ``guest-...``; ``""`` with
            no account).
        name: Its display name (1..64 characters): what tables, logs and boards show.
        guest: True for a guest account (no password yet: ``register`` upgrades it), and for
            an anonymous connection.
        token: A new access token (1..512 characters; keep it secret), or None when the
            tokens did not change (``restore``, ``set_name``).
        refresh: A new refresh token (1..512 characters), present with ``token``.
        expires: When ``token`` expires, in whole seconds since the Unix epoch; present with
            ``token``.
        device: A new remembered-device token (1..512 characters; keep it secret, with the
            account's username: ``login.device``), or None. A ``register`` and a password
            ``login`` bring one; it replaces the one the login was sent with.
        re: The request's id, or None.
    """

    TYPE: ClassVar[str]
    account: str = wire_field(str_check(0, 64))
    username: str = wire_field(str_check(0, 64))
    name: str = wire_field(_NAME)
    guest: bool = wire_field(bool_check, default=False)
    token: str | None = wire_field(_TOKEN, default=None)
    refresh: str | None = wire_field(_TOKEN, default=None)
    expires: int | None = wire_field(_TIME, default=None)
    device: str | None = wire_field(_TOKEN, default=None)
    re: RequestId | None = wire_field(_ID, default=None)

    def _validate(self) -> None:
        if not (self.token is None) == (self.refresh is None) == (self.expires is None):
            raise BadValue("token, refresh and expires come together")


@message("signed_out", "server")
class SignedOut(Record):
    """``signed_out``: the sign-in ended (reply to ``logout``); the connection goes on
    unsigned.

    Attributes:
        re: ``logout.id``, or None.
    """

    TYPE: ClassVar[str]
    re: RequestId | None = wire_field(_ID, default=None)


#: Keys of a running seat in ``my_games.running``.
RUNNING_KEYS = frozenset({"room", "seat", "name", "game", "mode", "status", "since"})
#: Keys of a finished game in ``my_games.finished``.
FINISHED_KEYS = frozenset({"room", "seat", "seats", "name", "game", "mode", "finished",
                           "result", "score"})
#: Values of a finished game's ``result``, for its seat: won, lost, ended by a turn or move
#: limit, resigned (the game ended by a resignation), or abandoned (forfeited, left, every
#: seat out).
RESULTS = ("won", "lost", "limit", "resigned", "abandoned")


def _entries(keys: frozenset[str]) -> Any:
    """A check of an array of maps with exactly ``keys``, each value checked by kind."""
    def check(v: Any, name: str) -> None:
        if type(v) is not list and type(v) is not tuple:
            raise BadType(f"{name}: expected array, got {type(v).__name__}")
        for i, item in enumerate(v):
            where = f"{name}[{i}]"
            if type(item) is not dict:
                raise BadType(f"{where}: expected map")
            if set(item) != keys:
                raise BadValue(f"{where}: expected exactly the keys {', '.join(sorted(keys))}")
            _ROOM(item["room"], f"{where}.room")
            _SEAT(item["seat"], f"{where}.seat")
            str_check(0, 64)(item["name"], f"{where}.name")
            _GAME(item["game"], f"{where}.game")
            if item["mode"] is not None:
                _GAME(item["mode"], f"{where}.mode")
            if "since" in keys:
                _TIME(item["since"], f"{where}.since")
                str_check(1, 16)(item["status"], f"{where}.status")
            else:
                int_check(1, MAX_SEATS)(item["seats"], f"{where}.seats")
                _TIME(item["finished"], f"{where}.finished")
                if item["result"] not in RESULTS:
                    raise BadValue(f"{where}.result: not one of {', '.join(RESULTS)}")
                if item["score"] is not None:
                    int_check(-MAX_STATE_ID, MAX_STATE_ID)(item["score"], f"{where}.score")
    return check


@message("my_games", "server")
class MyGames(Record):
    """``my_games``: the account's running seats and one page of its finished games (reply
    to ``get_my_games``).

    Attributes:
        running: Seats the account holds in rooms not finished yet (on the first page only;
            ``[]`` on later ones): maps ``{room, seat, name, game, mode, status, since}``
            (``name``: the room's; ``status``: ``"waiting"`` or ``"playing"``; ``since``:
            when the seat was taken, unix seconds). ``resume`` with the room alone takes
            such a seat back.
        finished: Finished games, newest first: maps ``{room, seat, seats, name, game,
            mode, finished, result, score}`` (``finished``: unix seconds; ``result``: one of
            :data:`RESULTS`, for this seat; ``score``: this seat's score, or nil).
        total: Finished games kept for the account, 0..2**31-1.
        cursor: The next ``get_my_games.cursor`` (1..64 characters), present when more
            finished games follow.
        re: ``get_my_games.id``, or None.
    """

    TYPE: ClassVar[str]
    running: Sequence[dict[str, Any]] = wire_field(_entries(RUNNING_KEYS), factory=list)
    finished: Sequence[dict[str, Any]] = wire_field(_entries(FINISHED_KEYS), factory=list)
    total: int = wire_field(int_check(0, MAX_ID), factory=int)
    cursor: str | None = wire_field(str_check(1, 64), default=None)
    re: RequestId | None = wire_field(_ID, default=None)


AccountRequest: TypeAlias = (
    Guest | Register | Login | Restore | Refresh | Logout | SetName | GetMyGames
)
"""Any account message a client sends."""

AccountReply: TypeAlias = Account | SignedOut | MyGames
"""Any account message the server sends."""
