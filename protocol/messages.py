"""Every message of the Cardhall protocol as a frozen dataclass that validates itself.

A message is built with keyword arguments named exactly like its wire fields and checks every
field in ``__post_init__`` (type, range, length, basic shape of game data), so an instance is
always valid: the server cannot build a frame a conforming client would reject, and
:func:`cardhall.protocol.decode` produces instances through the very same checks.

Messages sent by clients (``ClientMessage``): :class:`Hello`, :class:`ListGames`,
:class:`ListRooms`, :class:`CreateRoom`, :class:`Join`, :class:`QuickJoin`,
:class:`Spectate`, :class:`Leave`, :class:`Start`, :class:`Resume`, :class:`Act`,
:class:`GetView`, :class:`GetLog`, :class:`GetLeaderboard`, :class:`Ping`, :class:`Chat`,
:class:`GetReplay`.

Messages sent by the server (``ServerMessage``): :class:`Welcome`, :class:`Games`,
:class:`Rooms`, :class:`RoomCreated`, :class:`Joined`, :class:`Left`, :class:`Started`,
:class:`Update`, :class:`SeatEvent`, :class:`GameOver`, :class:`Log`, :class:`Leaderboard`,
:class:`Ok`, :class:`Pong`, :class:`Error`, :class:`ChatLines`, :class:`Replay`.

Field conventions:

* Optional fields default to ``None``; ``None`` means "absent" and is omitted on the wire (a
  sender may also send ``nil`` for an optional field, read as absent).
* ``int`` fields reject ``bool``; ``str`` lengths are counted in characters (code points).
* Game data (``options``, ``action``, ``view``, ``delta``, ``events``, ``outcome``) is any
  msgpack value (nil, bool, int, float, str, bin, array, map) nested at most
  :data:`MAX_DEPTH` levels, arrays of at most :data:`MAX_ARRAY_LEN` items, maps of at most
  :data:`MAX_MAP_LEN` pairs. Map keys are ``str``; in server-to-client game data they may
  also be ``int`` (per-seat tables). Decoded arrays are ``list`` and maps ``dict``; when
  building messages, ``tuple`` is accepted wherever an array is.
* Constructing a message with a bad field raises :class:`~cardhall.protocol.errors.BadType`
  or :class:`~cardhall.protocol.errors.BadValue`.
"""

from __future__ import annotations

import re as _re
from collections.abc import Callable, Sequence
from dataclasses import MISSING, dataclass, field, fields
from typing import Any, ClassVar, Literal, TypeAlias, TypeVar, dataclass_transform

from .errors import BadType, BadValue, MissingField, RequestId, UnknownField

_T = TypeVar("_T")

__all__ = [
    "BOARD_ORDERS",
    "CLIENT_MESSAGES",
    "EMOTES",
    "LEADERBOARD_LIMIT",
    "LEADERBOARD_LIMIT_MAX",
    "LIST_LIMIT",
    "LIST_LIMIT_MAX",
    "MAX_ARRAY_LEN",
    "MAX_CHAT_LEN",
    "MAX_DEPTH",
    "MAX_FRAME",
    "MAX_ID",
    "MAX_MAP_LEN",
    "MAX_SEATS",
    "MAX_STATE_ID",
    "MESSAGE_TYPES",
    "PROTOCOL_VERSION",
    "PROTOCOL_VERSIONS",
    "ROOM_STATUSES",
    "SEAT_EVENTS",
    "SERVER_MESSAGES",
    "Act",
    "Chat",
    "ChatLines",
    "ClientMessage",
    "CreateRoom",
    "Error",
    "GameOver",
    "Games",
    "GetLeaderboard",
    "GetLog",
    "GetReplay",
    "GetView",
    "Hello",
    "Join",
    "Joined",
    "Leaderboard",
    "Leave",
    "Left",
    "ListGames",
    "ListRooms",
    "Log",
    "Message",
    "Ok",
    "Ping",
    "Pong",
    "QuickJoin",
    "Replay",
    "Resume",
    "RoomCreated",
    "RoomSummary",
    "Rooms",
    "SeatEvent",
    "ServerMessage",
    "Spectate",
    "Start",
    "Started",
    "Update",
    "Welcome",
]

PROTOCOL_VERSION = 2
"""The newest protocol version, the one this package's clients speak (``hello.v`` /
``welcome.v``; protocol/README.md "Version 2")."""
PROTOCOL_VERSIONS: frozenset[int] = frozenset({1, 2})
"""Every protocol version the server speaks: 1 (deltas carry ``state_id``; an accepted ``act``
is answered by ``ok`` unless ``hello.act_reply`` is ``"update"``) and 2."""
MAX_FRAME = 65536
"""Default maximum frame size in bytes (both directions)."""
MAX_DEPTH = 32
"""Maximum nesting of arrays/maps inside one game-data field (the field value is level 1)."""
MAX_ARRAY_LEN = 4096
"""Maximum number of items in any array of a frame."""
MAX_MAP_LEN = 1024
"""Maximum number of key/value pairs in any map of a frame."""
MAX_SEATS = 6
"""Maximum number of seats of a room (seat numbers are 0..MAX_SEATS-1)."""
LIST_LIMIT = 100
"""Rooms per ``rooms`` page when ``list_rooms.limit`` is absent."""
LIST_LIMIT_MAX = 200
"""Largest ``list_rooms.limit`` (a page of that many summaries stays under 64 KiB)."""
MAX_CURSOR_LEN = 64
LEADERBOARD_LIMIT = 10
"""Entries per ``leaderboard`` reply when ``get_leaderboard.limit`` is absent."""
LEADERBOARD_LIMIT_MAX = 100
"""Largest ``get_leaderboard.limit``."""
BOARD_ORDERS = ("asc", "desc")
"""Values of ``leaderboard.order``: lower scores rank first, or higher ones."""
MAX_ID = 2**31 - 1
"""Largest integer request id (and largest value of other counters such as spectators)."""
MAX_STATE_ID = 2**53 - 1
"""Largest ``state_id`` (the largest integer a JavaScript number holds exactly)."""
ROOM_STATUSES = ("waiting", "playing", "finished")
"""Values of a room summary's ``status``."""
SEAT_EVENTS = ("joined", "left", "dropped", "resumed", "bot", "forfeit", "host", "timeout")
"""Values of ``seat_event.event``."""
MAX_CHAT_LEN = 300
"""Most code points in one chat line (``chat.text``)."""
EMOTES = ("hello", "good_luck", "well_played", "thanks", "oops", "hurry", "good_game")
"""The quick emotes a ``chat`` may send instead of text (each client draws them its way)."""

MAX_ID_LEN = 64
MAX_MESSAGE_LEN = 1024
_INT_MIN, _INT_MAX = -(2**63), 2**64 - 1  # what msgpack can carry
_CODE_RE = _re.compile(r"[a-z][a-z0-9_]*/[a-z][a-z0-9_]*")

Check = Callable[[Any, str], None]
"""A field check: ``check(value, field_name)`` raises BadType/BadValue or returns None."""

_TYPE_NAMES = {
    type(None): "nil", bool: "bool", int: "int", float: "float", str: "str", bytes: "bin",
    list: "array", tuple: "array", dict: "map",
}


def type_name(v: object) -> str:
    """The msgpack type name of ``v`` (``"nil"``, ``"bool"``, ``"int"``, ``"float"``,
    ``"str"``, ``"bin"``, ``"array"``, ``"map"``; else its Python type's name), for error
    messages."""
    return _TYPE_NAMES.get(type(v)) or type(v).__name__


# --------------------------------------------------------------------------------------------
# Field checks


def _is_int(v: object) -> bool:
    return type(v) is int or (isinstance(v, int) and not isinstance(v, bool))


def _int(lo: int, hi: int) -> Check:
    def check(v: Any, name: str) -> None:
        if type(v) is not int and not _is_int(v):
            raise BadType(f"{name}: expected int, got {type_name(v)}")
        if not lo <= v <= hi:
            raise BadValue(f"{name}: {v} is out of range {lo}..{hi}")
    return check


def _str(lo: int, hi: int) -> Check:
    def check(v: Any, name: str) -> None:
        if type(v) is not str and not isinstance(v, str):
            raise BadType(f"{name}: expected str, got {type_name(v)}")
        if not lo <= len(v) <= hi:
            raise BadValue(f"{name}: length {len(v)} is out of range {lo}..{hi}")
    return check


def _bool(v: Any, name: str) -> None:
    if type(v) is not bool:
        raise BadType(f"{name}: expected bool, got {type_name(v)}")


#: The values of ``hello.act_reply``: how an accepted ``act`` is answered.
ACT_REPLIES = ("ok", "update")


def _word(words: tuple[str, ...]) -> Check:
    allowed = frozenset(words)

    def check(v: Any, name: str) -> None:
        if type(v) is not str and not isinstance(v, str):
            raise BadType(f"{name}: expected str, got {type_name(v)}")
        if v not in allowed:
            raise BadValue(f"{name}: {v[:40]!r} is not one of {', '.join(words)}")
    return check


def _request_id(v: Any, name: str) -> None:
    if type(v) is int or _is_int(v):
        if not 0 <= v <= MAX_ID:
            raise BadValue(f"{name}: {v} is out of range 0..{MAX_ID}")
    elif isinstance(v, str):
        if len(v) > MAX_ID_LEN:
            raise BadValue(f"{name}: length {len(v)} is over {MAX_ID_LEN}")
    else:
        raise BadType(f"{name}: expected int or str, got {type_name(v)}")


def _error_code(v: Any, name: str) -> None:
    if not isinstance(v, str):
        raise BadType(f"{name}: expected str, got {type_name(v)}")
    if len(v) > 64 or not _CODE_RE.fullmatch(v):
        raise BadValue(f"{name}: {v[:70]!r} is not a namespace/name code")


_LEAVES = frozenset({type(None), bool, float, str, bytes})


def _tree(v: Any, name: str, depth: int, int_keys: bool) -> None:
    """Check that ``v`` is plain msgpack data within the depth and size limits.

    Raises:
        BadType: a value that msgpack cannot carry (or we do not allow), or a bad map key.
        BadValue: nesting deeper than MAX_DEPTH, an oversized array/map, an int out of range.
    """
    t = type(v)
    if t is dict or t is list or t is tuple:
        if depth > MAX_DEPTH:
            raise BadValue(f"{name}: nested deeper than {MAX_DEPTH} levels")
        if t is dict:
            if len(v) > MAX_MAP_LEN:
                raise BadValue(f"{name}: map of {len(v)} pairs is over {MAX_MAP_LEN}")
            for k, x in v.items():
                if type(k) is not str and not (
                    int_keys and type(k) is int and _INT_MIN <= k <= _INT_MAX
                ):
                    raise BadType(f"{name}: map key must be str, got {type_name(k)}")
                if type(x) not in _LEAVES:
                    _tree(x, name, depth + 1, int_keys)
        else:
            if len(v) > MAX_ARRAY_LEN:
                raise BadValue(f"{name}: array of {len(v)} items is over {MAX_ARRAY_LEN}")
            for x in v:
                if type(x) not in _LEAVES:
                    _tree(x, name, depth + 1, int_keys)
    elif t is int:
        if not _INT_MIN <= v <= _INT_MAX:
            raise BadValue(f"{name}: integer {v} does not fit in 64 bits")
    elif t not in _LEAVES:
        raise BadType(f"{name}: {type_name(v)} is not a msgpack value")


def _data(int_keys: bool) -> Check:
    """Any msgpack value."""
    def check(v: Any, name: str) -> None:
        if type(v) not in _LEAVES:
            _tree(v, name, 1, int_keys)
    return check


def _map(int_keys: bool) -> Check:
    """A map of game data."""
    def check(v: Any, name: str) -> None:
        if type(v) is not dict:
            raise BadType(f"{name}: expected map, got {type_name(v)}")
        _tree(v, name, 1, int_keys)
    return check


def _array(int_keys: bool) -> Check:
    """An array of game data."""
    def check(v: Any, name: str) -> None:
        if type(v) is not list and type(v) is not tuple:
            raise BadType(f"{name}: expected array, got {type_name(v)}")
        _tree(v, name, 1, int_keys)
    return check


def _action(v: Any, name: str) -> None:
    if type(v) is not list and type(v) is not tuple:
        raise BadType(f"{name}: expected array, got {type_name(v)}")
    if not v:
        raise BadValue(f"{name}: must not be empty")
    if not isinstance(v[0], str):
        raise BadType(f"{name}: first item (the verb) must be str, got {type_name(v[0])}")
    _tree(v, name, 1, False)


_ID = _request_id
_ROOM = _str(1, 64)
_GAME = _str(1, 32)
_MODE = _str(1, 32)
_NAME = _str(1, 64)
_SEAT = _int(0, MAX_SEATS - 1)
_SEATS = _int(1, MAX_SEATS)
_STATE_ID = _int(0, MAX_STATE_ID)
_SEED = _int(0, 2**63 - 1)


def _hex(n: int) -> Check:
    """Exactly ``n`` lowercase hex digits (a deal commitment or salt)."""
    pattern = _re.compile(f"[0-9a-f]{{{n}}}")

    def check(v: Any, name: str) -> None:
        if type(v) is not str and not isinstance(v, str):
            raise BadType(f"{name}: expected str, got {type_name(v)}")
        if not pattern.fullmatch(v):
            raise BadValue(f"{name}: expected {n} lowercase hex digits")
    return check


_COMMITMENT = _hex(64)
_SALT = _hex(32)


def _f(check: Check, *, default: Any = MISSING, factory: Any = MISSING,
       nullable: bool = False) -> Any:
    """Declare a wire field.

    Args:
        check: Validation of a value that is not None.
        default: Python-side default. ``default=None`` without ``nullable`` makes the field
            *optional*: it may be absent (or nil) on the wire and is omitted when None.
        factory: Python-side default factory of a required field (the field is always sent).
        nullable: The field is required on the wire but may be nil (None).
    """
    optional = default is None and not nullable
    meta = {"check": check, "optional": optional, "nullable": nullable}
    if factory is not MISSING:
        return field(default_factory=factory, metadata=meta)
    return field(default=default, metadata=meta)


# --------------------------------------------------------------------------------------------
# Base class and registry


class _Record:
    """Base of messages and records: validation, wire specs, conversion to a map."""

    __slots__ = ()

    # Filled in by _register for each concrete class.
    _checks: ClassVar[tuple[tuple[str, Check, bool], ...]] = ()
    _wire: ClassVar[tuple[tuple[str, bool], ...]] = ()
    _required: ClassVar[frozenset[str]] = frozenset()
    _allowed: ClassVar[frozenset[str]] = frozenset()

    def __post_init__(self) -> None:
        for name, check, may_be_none in self._checks:
            v = getattr(self, name)
            if v is None:
                if may_be_none:
                    continue
                raise BadType(f"{name}: expected a value, got nil")
            check(v, name)
        self._validate()

    def _validate(self) -> None:
        """Cross-field checks of a concrete class (none by default)."""

    def to_map(self) -> dict[str, Any]:
        """The wire map of this record/message, without ``None`` optional fields.

        Returns:
            A dict of field name to value (for messages including the ``"t"`` tag first),
            ready for ``msgpack.packb``.
        """
        tag = getattr(self, "TYPE", None)
        d: dict[str, Any] = {"t": tag} if tag is not None else {}
        for name, omit_none in self._wire:
            v = getattr(self, name)
            if v is None and omit_none:
                continue
            d[name] = v
        return d


def _finish(cls: type[_Record]) -> None:
    """Precompute the field specs of a dataclass record (used by validation and decode)."""
    checks = []
    wire = []
    required = set()
    for f in fields(cls):  # type: ignore[arg-type]
        meta = f.metadata
        checks.append((f.name, meta["check"], meta["optional"] or meta["nullable"]))
        wire.append((f.name, meta["optional"]))
        if not meta["optional"]:
            required.add(f.name)
    cls._checks = tuple(checks)
    cls._wire = tuple(wire)
    cls._required = frozenset(required)
    cls._allowed = frozenset(n for n, _ in wire) | {"t"}


_dataclass = dataclass(frozen=True, slots=True, kw_only=True)

CLIENT_MESSAGES: dict[str, type[Any]] = {}
"""Type tag -> class of every message a client may send."""
SERVER_MESSAGES: dict[str, type[Any]] = {}
"""Type tag -> class of every message the server may send."""
MESSAGE_TYPES: dict[str, type[Any]] = {}
"""Type tag -> class of every message (tags are unique across both directions)."""


@dataclass_transform(frozen_default=True, kw_only_default=True, field_specifiers=(_f,))
def _message(tag: str, side: Literal["client", "server"]) -> Callable[[type[_T]], type[_T]]:
    def register(cls: type[_T]) -> type[_T]:
        cls = _dataclass(cls)
        _finish(cls)  # type: ignore[arg-type]
        assert tag not in MESSAGE_TYPES
        cls.TYPE = tag  # type: ignore[attr-defined]
        (CLIENT_MESSAGES if side == "client" else SERVER_MESSAGES)[tag] = cls
        MESSAGE_TYPES[tag] = cls
        return cls
    return register


@dataclass_transform(frozen_default=True, kw_only_default=True, field_specifiers=(_f,))
def _record(cls: type[_T]) -> type[_T]:
    cls = _dataclass(cls)
    _finish(cls)  # type: ignore[arg-type]
    return cls


# The registry and the field checks, public for the protocol modules that declare messages of
# their own (:mod:`.accounts`): the same validation, one registry of type tags.
Record = _Record


def wire_field(check: Check, *, default: Any = MISSING, factory: Any = MISSING,
               nullable: bool = False) -> Any:
    """Declare a wire field of a message (see ``_f``: the same arguments)."""
    return _f(check, default=default, factory=factory, nullable=nullable)


@dataclass_transform(frozen_default=True, kw_only_default=True, field_specifiers=(wire_field,))
def message(tag: str, side: Literal["client", "server"]) -> Callable[[type[_T]], type[_T]]:
    """Register the message class it decorates under type tag ``tag``, sent by ``side``
    (a frozen, slotted dataclass whose fields validate themselves; see ``_message``)."""
    return _message(tag, side)


int_check = _int
str_check = _str
bool_check = _bool
word_check = _word
REQUEST_ID = _request_id


# --------------------------------------------------------------------------------------------
# Client -> server


@_message("hello", "client")
class Hello(_Record):
    """``hello``: the first message of every connection (client -> server).

    Attributes:
        v: Protocol version the client speaks, 0..65535 (this module: ``PROTOCOL_VERSION``).
        client: Client software name and version, 1..64 characters, e.g. ``"cardhall-py/0.1"``.
        id: Request id echoed as ``welcome.re``, or None.
        act_reply: How an accepted ``act`` is answered: ``"ok"`` (None: the default of
            version 1), an ``ok`` then the acting seat's ``update``; ``"update"`` (None: the
            default of version 2), the acting seat's ``update`` alone, carrying the act's id
            as ``re`` (one frame fewer per action).
    """

    TYPE: ClassVar[str]
    v: int = _f(_int(0, 65535))
    client: str = _f(_str(1, 64))
    id: RequestId | None = _f(_ID, default=None)
    act_reply: str | None = _f(_word(ACT_REPLIES), default=None)


@_message("list_games", "client")
class ListGames(_Record):
    """``list_games``: ask which games this server hosts, with their seats, modes and
    options; answered by ``games``.

    Attributes:
        id: Request id, or None.
    """

    TYPE: ClassVar[str]
    id: RequestId | None = _f(_ID, default=None)


@_message("list_rooms", "client")
class ListRooms(_Record):
    """``list_rooms``: ask for one page of the rooms, in room id order; answered by
    ``rooms``, whose ``cursor`` asks for the next page.

    Attributes:
        game: Only rooms of this game (1..32 characters), or None for all games.
        mode: Only rooms of this mode (1..32 characters), or None for all modes.
        waiting: True: only rooms anyone may join now (public, waiting for players, a free
            seat). None or False: rooms of every status.
        cursor: ``rooms.cursor`` of the previous page (1..64 characters, opaque), or None
            for the first page.
        limit: Most rooms on the page, 1..:data:`LIST_LIMIT_MAX`; None:
            :data:`LIST_LIMIT`.
        id: Request id, or None.
    """

    TYPE: ClassVar[str]
    game: str | None = _f(_GAME, default=None)
    mode: str | None = _f(_MODE, default=None)
    waiting: bool | None = _f(_bool, default=None)
    cursor: str | None = _f(_str(1, MAX_CURSOR_LEN), default=None)
    limit: int | None = _f(_int(1, LIST_LIMIT_MAX), default=None)
    id: RequestId | None = _f(_ID, default=None)


@_message("create_room", "client")
class CreateRoom(_Record):
    """``create_room``: open a new room and become its host; answered by ``room_created``.

    The creator is not seated yet: it sends ``join`` next (with the room, or the code of a
    private room).

    Attributes:
        game: Game name (1..32 characters), e.g. ``"skipper"``.
        mode: Game mode (1..32 characters), or None for the game's default.
        seats: Number of seats, 1..6 (the game may allow fewer).
        options: Game options by name (a map with str keys; ``{}`` for the defaults).
        private: True to hide the room from ``rooms`` listings; it is then joined by code.
        name: Display name of the room (1..64 characters), or None for a default.
        id: Request id, or None.
    """

    TYPE: ClassVar[str]
    game: str = _f(_GAME)
    mode: str | None = _f(_MODE, default=None)
    seats: int = _f(_SEATS)
    options: dict[str, Any] = _f(_map(False), factory=dict)
    private: bool = _f(_bool, default=False)
    name: str | None = _f(_NAME, default=None)
    id: RequestId | None = _f(_ID, default=None)


@_message("join", "client")
class Join(_Record):
    """``join``: take a seat in a room; answered by ``joined``.

    Exactly one of ``room`` and ``code`` must be given.

    Attributes:
        room: Room id (1..64 characters), or None when joining by code.
        code: Join code of a private room (1..64 characters), or None.
        seat: Wanted seat 0..5, or None for the first free seat.
        id: Request id, or None.

    Raises:
        BadValue: neither or both of ``room`` and ``code`` given.
    """

    TYPE: ClassVar[str]
    room: str | None = _f(_ROOM, default=None)
    code: str | None = _f(_ROOM, default=None)
    seat: int | None = _f(_SEAT, default=None)
    id: RequestId | None = _f(_ID, default=None)

    def _validate(self) -> None:
        if (self.room is None) == (self.code is None):
            raise BadValue("give exactly one of room and code")


@_message("quick_join", "client")
class QuickJoin(_Record):
    """``quick_join``: take a seat in any waiting public room of a game (the server creates
    one when none fits); answered by ``joined``.

    Attributes:
        game: Game name (1..32 characters).
        mode: Game mode (1..32 characters), or None for any/default.
        seats: Wanted room size 1..6, or None for any.
        id: Request id, or None.
    """

    TYPE: ClassVar[str]
    game: str = _f(_GAME)
    mode: str | None = _f(_MODE, default=None)
    seats: int | None = _f(_SEATS, default=None)
    id: RequestId | None = _f(_ID, default=None)


@_message("spectate", "client")
class Spectate(_Record):
    """``spectate``: watch a room without a seat; answered by ``joined`` with ``seat`` None.

    Attributes:
        room: Room id (1..64 characters).
        id: Request id, or None.
    """

    TYPE: ClassVar[str]
    room: str = _f(_ROOM)
    id: RequestId | None = _f(_ID, default=None)


@_message("leave", "client")
class Leave(_Record):
    """``leave``: give up one's seat (or stop watching); answered by ``left``.

    Attributes:
        room: Room id (1..64 characters).
        id: Request id, or None.
    """

    TYPE: ClassVar[str]
    room: str = _f(_ROOM)
    id: RequestId | None = _f(_ID, default=None)


@_message("start", "client")
class Start(_Record):
    """``start``: the host starts the game; answered by ``started``.

    Attributes:
        room: Room id (1..64 characters).
        id: Request id, or None.
    """

    TYPE: ClassVar[str]
    room: str = _f(_ROOM)
    id: RequestId | None = _f(_ID, default=None)


@_message("resume", "client")
class Resume(_Record):
    """``resume``: take one's seat back after a disconnect; answered by ``joined``.

    Attributes:
        room: Room id (1..64 characters).
        token: The seat token from the earlier ``joined`` (1..256 characters), or None: the
            seat the connection's signed-in account holds in the room (protocol/README.md
            "Accounts"), from any device.
        id: Request id, or None.
    """

    TYPE: ClassVar[str]
    room: str = _f(_ROOM)
    token: str | None = _f(_str(1, 256), default=None)
    id: RequestId | None = _f(_ID, default=None)


@_message("act", "client")
class Act(_Record):
    """``act``: play an action; answered by ``ok`` (then an ``update`` to everyone).

    Attributes:
        room: Room id (1..64 characters).
        state_id: The ``state_id`` the action was chosen against, 0..2**53-1; a different
            (stale) one is refused with ``action/stale_state``.
        action: The action: a non-empty array whose first item is the verb (str), e.g.
            ``["play", "5D", "D"]``; any msgpack values after it (maps with str keys).
        id: Request id, or None.
    """

    TYPE: ClassVar[str]
    room: str = _f(_ROOM)
    state_id: int = _f(_STATE_ID)
    action: Sequence[Any] = _f(_action)
    id: RequestId | None = _f(_ID, default=None)


@_message("get_view", "client")
class GetView(_Record):
    """``get_view``: ask for the full current view; answered by ``update`` with ``view``.

    Attributes:
        room: Room id (1..64 characters).
        id: Request id, or None.
    """

    TYPE: ClassVar[str]
    room: str = _f(_ROOM)
    id: RequestId | None = _f(_ID, default=None)


@_message("get_log", "client")
class GetLog(_Record):
    """``get_log``: ask for the action log of a finished game, one page at a time (for
    ``cardhall verify``); answered by ``log``.

    Attributes:
        room: Room id (1..64 characters).
        first: Index of the first log entry wanted, 0..2**53-1, or None (from the start).
        id: Request id, or None.
    """

    TYPE: ClassVar[str]
    room: str = _f(_ROOM)
    first: int | None = _f(_STATE_ID, default=None)
    id: RequestId | None = _f(_ID, default=None)


@_message("get_leaderboard", "client")
class GetLeaderboard(_Record):
    """``get_leaderboard``: ask for one page of a game's leaderboard (the best solo score of
    each player name); answered by ``leaderboard``.

    Attributes:
        game: Game name (1..32 characters).
        mode: The board's mode (1..32 characters), or None for the game's ranked mode.
        limit: Most entries in the reply, 1..:data:`LEADERBOARD_LIMIT_MAX`; None:
            :data:`LEADERBOARD_LIMIT`.
        around: A player name (1..64 characters): the page shows the entries around that
            name's rank instead of the top ones; None: the top of the board.
        id: Request id, or None.
    """

    TYPE: ClassVar[str]
    game: str = _f(_GAME)
    mode: str | None = _f(_MODE, default=None)
    limit: int | None = _f(_int(1, LEADERBOARD_LIMIT_MAX), default=None)
    around: str | None = _f(_str(1, 64), default=None)
    id: RequestId | None = _f(_ID, default=None)


@_message("ping", "client")
class Ping(_Record):
    """``ping``: liveness check at the application level; answered by ``pong``.

    Attributes:
        id: Request id, or None.
    """

    TYPE: ClassVar[str]
    id: RequestId | None = _f(_ID, default=None)


@_message("chat", "client")
class Chat(_Record):
    """``chat``: say a line (or a quick emote) to everyone in a room you are in; answered by
    ``ok``, then every member (the sender too) receives it in ``chat_lines``.

    Exactly one of ``text`` and ``emote`` must be given.

    Attributes:
        room: Room id (1..64 characters).
        text: The line, 1..:data:`MAX_CHAT_LEN` code points (the server drops control
            characters; a line with nothing else left is refused), or None.
        emote: One of :data:`EMOTES`, or None.
        id: Request id, or None.

    Raises:
        BadValue: neither or both of ``text`` and ``emote`` given.
    """

    TYPE: ClassVar[str]
    room: str = _f(_ROOM)
    text: str | None = _f(_str(1, MAX_CHAT_LEN), default=None)
    emote: str | None = _f(_word(EMOTES), default=None)
    id: RequestId | None = _f(_ID, default=None)

    def _validate(self) -> None:
        if (self.text is None) == (self.emote is None):
            raise BadValue("give exactly one of text and emote")


@_message("get_replay", "client")
class GetReplay(_Record):
    """``get_replay``: ask for the view of a finished room at one of its states (the engine
    replays the room's log up to ``state_id``); answered by ``replay``.

    Attributes:
        room: Room id (1..64 characters).
        state_id: The state wanted, 0 (the deal) .. the room's final state_id.
        seat: The seat whose view is wanted (only the member holding that seat may ask), or
            None for the public (spectator's) view.
        id: Request id, or None.
    """

    TYPE: ClassVar[str]
    room: str = _f(_ROOM)
    state_id: int = _f(_STATE_ID)
    seat: int | None = _f(_SEAT, default=None)
    id: RequestId | None = _f(_ID, default=None)


# --------------------------------------------------------------------------------------------
# Server -> client


@_message("welcome", "server")
class Welcome(_Record):
    """``welcome``: the server accepts the handshake (reply to ``hello``).

    Attributes:
        v: Protocol version the server speaks (equal to ``hello.v``), 0..65535.
        server: Server software name and version, 1..64 characters.
        session: Id of this connection's session, 1..128 characters (for logs and support).
        max_frame: Largest frame, in bytes, the server accepts from this client, 1..2**31-1.
        re: ``hello.id``, or None.
    """

    TYPE: ClassVar[str]
    v: int = _f(_int(0, 65535))
    server: str = _f(_str(1, 64))
    session: str = _f(_str(1, 128))
    max_frame: int = _f(_int(1, MAX_ID))
    re: RequestId | None = _f(_ID, default=None)


@_record
class RoomSummary(_Record):
    """One room in a ``rooms`` listing (a map on the wire, not a message).

    Attributes:
        room: Room id (1..64 characters).
        name: Display name (0..64 characters).
        game: Game name (1..32 characters).
        mode: Game mode (1..32 characters), or None (nil on the wire; key always present).
        seats: Number of seats, 1..6.
        taken: Seats taken, 0..seats.
        status: ``"waiting"`` (seats open, not started), ``"playing"`` or ``"finished"``.
        private: True if the room is joined by code only.
        spectators: Number of spectators, 0..2**31-1.
        created: When the room was created, in whole seconds since the Unix epoch, or None
            (absent: a server that does not say; lobbies order rooms by it, newest first).

    Raises:
        BadValue: ``taken`` is greater than ``seats``.
    """

    room: str = _f(_ROOM)
    name: str = _f(_str(0, 64))
    game: str = _f(_GAME)
    mode: str | None = _f(_MODE, nullable=True, default=None)
    seats: int = _f(_SEATS)
    taken: int = _f(_int(0, MAX_SEATS))
    status: str = _f(_word(ROOM_STATUSES))
    private: bool = _f(_bool, default=False)
    spectators: int = _f(_int(0, MAX_ID), default=0)
    created: int | None = _f(_int(0, MAX_STATE_ID), default=None)

    def _validate(self) -> None:
        if self.taken > self.seats:
            raise BadValue(f"taken: {self.taken} is more than seats ({self.seats})")


def _room_summary(item: Any, name: str) -> RoomSummary:
    """Strictly read one room summary map (or pass a RoomSummary through)."""
    if type(item) is RoomSummary:
        return item
    if type(item) is not dict:
        raise BadType(f"{name}: expected map, got {type_name(item)}")
    extra = item.keys() - RoomSummary._allowed
    if extra or "t" in item:
        bad = min(map(str, extra or {"t"}))
        raise UnknownField(f"{name}: unknown field {bad[:40]!r}")
    missing = RoomSummary._required - item.keys()
    if missing:
        raise MissingField(f"{name}: missing field {min(missing)!r}")
    try:
        return RoomSummary(**item)
    except (BadType, BadValue) as exc:
        raise type(exc)(f"{name}.{exc.message}") from None


@_message("games", "server")
class Games(_Record):
    """``games``: the games the server hosts (reply to ``list_games``).

    Attributes:
        games: One map per game: ``game`` (the name ``create_room`` takes), ``title``,
            ``min_seats``, ``max_seats``, ``modes`` (the ``mode`` values, the default first,
            ``[]`` for a game without modes), ``real_time_modes`` (the modes in which seats
            act at once), ``options`` (the game's room options, see below) and ``settings``
            (the preferences a seat sets for itself: ``name``, ``choices``, ``doc``).
        room_options: The options every room takes whatever its game (turn clocks, grace
            window, ...), described the same way.
        re: ``list_games.id``, or None.

    An option is a map: ``name``, ``kind`` (``"bool"``, ``"int"``, ``"float"``, ``"str"``
    or ``"list"``), ``default`` (nil: not set), ``doc`` (one line, with the rule it
    selects), and, when it has them, ``choices``, ``min`` and ``max``.
    """

    TYPE: ClassVar[str]
    games: Sequence[dict[str, Any]] = _f(_array(False), factory=tuple)
    room_options: Sequence[dict[str, Any]] = _f(_array(False), factory=tuple)
    re: RequestId | None = _f(_ID, default=None)


@_message("rooms", "server")
class Rooms(_Record):
    """``rooms``: one page of the room listing (reply to ``list_rooms``).

    Attributes:
        rooms: The rooms, as a tuple of :class:`RoomSummary` (at most 4096). When building,
            any sequence of RoomSummary or of summary maps is accepted and normalized.
        more: True when more rooms may follow (ask with ``cursor``); None (absent) when
            this is the last page.
        cursor: What the next ``list_rooms.cursor`` is (1..64 characters, opaque): present
            exactly when ``more`` is true.
        re: ``list_rooms.id``, or None.

    Raises:
        BadValue: ``more`` is true without a ``cursor``, or a ``cursor`` comes without
            ``more``.
    """

    TYPE: ClassVar[str]
    rooms: Sequence[RoomSummary] = _f(lambda v, n: None, factory=tuple)
    more: bool | None = _f(_bool, default=None)
    cursor: str | None = _f(_str(1, MAX_CURSOR_LEN), default=None)
    re: RequestId | None = _f(_ID, default=None)

    def _validate(self) -> None:
        rooms = self.rooms
        if type(rooms) is not list and type(rooms) is not tuple:
            raise BadType(f"rooms: expected array, got {type_name(rooms)}")
        if len(rooms) > MAX_ARRAY_LEN:
            raise BadValue(f"rooms: {len(rooms)} items is over {MAX_ARRAY_LEN}")
        norm = tuple(_room_summary(r, f"rooms[{i}]") for i, r in enumerate(rooms))
        object.__setattr__(self, "rooms", norm)
        if bool(self.more) != (self.cursor is not None):
            raise BadValue("cursor: present exactly when more is true")

    def to_map(self) -> dict[str, Any]:
        """The wire map: like :meth:`_Record.to_map` with each summary as a map."""
        d: dict[str, Any] = {"t": self.TYPE, "rooms": [r.to_map() for r in self.rooms]}
        if self.more is not None:
            d["more"] = self.more
        if self.cursor is not None:
            d["cursor"] = self.cursor
        if self.re is not None:
            d["re"] = self.re
        return d


@_message("room_created", "server")
class RoomCreated(_Record):
    """``room_created``: the room exists (reply to ``create_room``).

    Attributes:
        room: Room id (1..64 characters).
        code: Join code of a private room (1..64 characters), or None for a public room.
        re: ``create_room.id``, or None.
    """

    TYPE: ClassVar[str]
    room: str = _f(_ROOM)
    code: str | None = _f(_ROOM, default=None)
    re: RequestId | None = _f(_ID, default=None)


@_message("joined", "server")
class Joined(_Record):
    """``joined``: you are in the room (reply to ``join``, ``quick_join``, ``spectate``,
    ``resume``), with the full view.

    Attributes:
        room: Room id (1..64 characters).
        seat: Your seat 0..5, or None (nil on the wire; key always present) for a spectator.
        token: Seat token for ``resume`` (1..256 characters; keep it secret), or None
            (spectators; and on ``resume``, where the token stays the same).
        view: Full view of the room for your seat (a map; see "Views and deltas").
        re: The request's id, or None.
    """

    TYPE: ClassVar[str]
    room: str = _f(_ROOM)
    seat: int | None = _f(_SEAT, nullable=True, default=None)
    token: str | None = _f(_str(1, 256), default=None)
    view: dict[str, Any] = _f(_map(True), factory=dict)
    re: RequestId | None = _f(_ID, default=None)


@_message("left", "server")
class Left(_Record):
    """``left``: you are out of the room (reply to ``leave``, or sent unasked when removed).

    Attributes:
        room: Room id (1..64 characters).
        re: ``leave.id``, or None.
    """

    TYPE: ClassVar[str]
    room: str = _f(_ROOM)
    re: RequestId | None = _f(_ID, default=None)


@_message("started", "server")
class Started(_Record):
    """``started``: the game of the room has begun (reply to ``start``, and sent to every
    member of the room, then followed by an ``update``).

    Attributes:
        room: Room id (1..64 characters).
        commitment: SHA-256 of the deal seed and salt (64 lowercase hex digits; see
            :mod:`cardhall.protocol.fairness`), or None when the room has none.
        re: ``start.id`` for the host, else None.
    """

    TYPE: ClassVar[str]
    room: str = _f(_ROOM)
    commitment: str | None = _f(_COMMITMENT, default=None)
    re: RequestId | None = _f(_ID, default=None)


@_message("update", "server")
class Update(_Record):
    """``update``: the room's state changed (or the full view was asked for).

    Exactly one of ``view`` and ``delta`` is given.

    Attributes:
        room: Room id (1..64 characters).
        state_id: The room's state_id after the change, 0..2**53-1.
        view: The full view (a map), or None. Sent after ``get_view`` and whenever the
            server cannot send a delta.
        delta: The top-level view keys whose values changed (a map), or None. The client
            applies it with a dict update: ``view.update(delta)`` (JSON Pointer keys: see
            :func:`~.delta.apply_delta`). In version 1 it also holds ``"state_id"``; in
            version 2 it never does: the update's ``state_id`` is the view's
            (:func:`~.delta.apply_update` applies both).
        events: What happened, in order (an array of event maps; may be empty).
        re: ``get_view.id`` when answering it (or, with ``act_reply`` ``"update"``, the
            ``act.id`` it answers), else None.

    Raises:
        BadValue: neither or both of ``view`` and ``delta`` given.
    """

    TYPE: ClassVar[str]
    room: str = _f(_ROOM)
    state_id: int = _f(_STATE_ID)
    view: dict[Any, Any] | None = _f(_map(True), default=None)
    delta: dict[Any, Any] | None = _f(_map(True), default=None)
    events: Sequence[Any] = _f(_array(True), factory=list)
    re: RequestId | None = _f(_ID, default=None)

    def _validate(self) -> None:
        if (self.view is None) == (self.delta is None):
            raise BadValue("give exactly one of view and delta")


@_message("seat_event", "server")
class SeatEvent(_Record):
    """``seat_event``: something happened to a seat of a room you are in.

    Attributes:
        room: Room id (1..64 characters).
        seat: The seat, 0..5.
        event: ``"joined"`` (taken), ``"left"`` (given up), ``"dropped"`` (connection lost;
            held for the grace window; for the receiver's own seat: the server took this
            connection for lost, and the client should ``resume`` the seat), ``"resumed"``
            (back after a drop), ``"bot"`` (a bot took over), ``"forfeit"`` (the seat lost
            by leaving or timing out) or ``"host"`` (the seat's player is the room's host
            now: its host left a waiting room, or the room had none).
        name: The display name of the seat's player (1..64 characters; None: unknown or
            the seat is free), so a client can say "Bob sat down." before its next view.
    """

    TYPE: ClassVar[str]
    room: str = _f(_ROOM)
    seat: int = _f(_SEAT)
    event: str = _f(_word(SEAT_EVENTS))
    name: str | None = _f(_NAME, default=None)


@_message("game_over", "server")
class GameOver(_Record):
    """``game_over``: the game of the room has ended (after the final ``update``).

    Attributes:
        room: Room id (1..64 characters).
        state_id: The room's final state_id, 0..2**53-1.
        outcome: The engine's outcome (a map, e.g. winners and scores): the view's final
            ``outcome`` plus the key ``stats`` (the game's counters).
        seed: The deal seed, revealed now (0..2**63-1), or None when the room has no
            commitment.
        salt: The salt of the commitment (32 lowercase hex digits), or None likewise.
    """

    TYPE: ClassVar[str]
    room: str = _f(_ROOM)
    state_id: int = _f(_STATE_ID)
    outcome: dict[Any, Any] = _f(_map(True), factory=dict)
    seed: int | None = _f(_SEED, default=None)
    salt: str | None = _f(_SALT, default=None)


@_message("log", "server")
class Log(_Record):
    """``log``: one page of the action log of a finished game (reply to ``get_log``), with
    what a replay needs: the game, its seat count, its options (seed included) and the
    commitment's salt.

    Attributes:
        room: Room id (1..64 characters).
        game: Game name (1..32 characters).
        seats: Number of seats, 1..6.
        options: The engine's resolved options, ``seed`` (and ``deck``) included (a map).
        salt: The commitment's salt (32 lowercase hex digits), or None.
        commitment: The commitment published at the start, or None.
        state_id: The final state_id, 0..2**53-1 (= the number of log entries).
        outcome: The outcome announced in ``game_over`` (a map).
        first: Index of this page's first entry.
        entries: The entries ``first..first+len-1``: each ``[kind, seat, action]``, kind
            ``"a"`` (seat played ``action``) or ``"f"`` (seat forfeited; action nil).
        more: True when entries after this page remain (ask again from
            ``first + len(entries)``).
        re: ``get_log.id``, or None.
    """

    TYPE: ClassVar[str]
    room: str = _f(_ROOM)
    game: str = _f(_GAME)
    seats: int = _f(_SEATS)
    options: dict[str, Any] = _f(_map(False), factory=dict)
    salt: str | None = _f(_SALT, default=None)
    commitment: str | None = _f(_COMMITMENT, default=None)
    state_id: int = _f(_STATE_ID)
    outcome: dict[Any, Any] = _f(_map(True), factory=dict)
    first: int = _f(_STATE_ID, factory=int)
    entries: Sequence[Any] = _f(_array(False), factory=list)
    more: bool = _f(_bool, default=False)
    re: RequestId | None = _f(_ID, default=None)


def _chat_line(item: Any, name: str) -> None:
    """Check one chat line: a map of ``n`` (int >= 1), ``seat`` (seat or nil), ``name`` (str
    1..64), ``at`` (unix time s: int or float) and exactly one of ``text`` (str
    1..MAX_CHAT_LEN) and ``emote`` (one of EMOTES)."""
    if type(item) is not dict:
        raise BadType(f"{name}: expected map, got {type_name(item)}")
    keys = set(item)
    if keys not in ({"n", "seat", "name", "at", "text"}, {"n", "seat", "name", "at", "emote"}):
        raise BadValue(f"{name}: expected the keys n, seat, name, at and one of text, emote")
    _int(1, MAX_STATE_ID)(item["n"], f"{name}.n")
    if item["seat"] is not None:
        _SEAT(item["seat"], f"{name}.seat")
    _str(1, 64)(item["name"], f"{name}.name")
    at = item["at"]
    if type(at) is not float and not _is_int(at):
        raise BadType(f"{name}.at: expected a number, got {type_name(at)}")
    if "text" in keys:
        _str(1, MAX_CHAT_LEN)(item["text"], f"{name}.text")
    else:
        _word(EMOTES)(item["emote"], f"{name}.emote")


def _chat_lines(v: Any, name: str) -> None:
    _array(False)(v, name)
    for i, item in enumerate(v):
        _chat_line(item, f"{name}[{i}]")


@_message("chat_lines", "server")
class ChatLines(_Record):
    """``chat_lines``: lines said in a room you are in: one new line as it is said, or after
    ``joined`` the room's recent lines (``history``), oldest first.

    Attributes:
        room: Room id (1..64 characters).
        lines: Line maps ``{n, seat, name, at, text}`` or ``{n, seat, name, at, emote}``:
            ``n`` numbers the room's lines from 1 (a client seeing a line again after a
            resume skips it by ``n``); ``seat`` is the speaker's seat, nil for a spectator;
            ``name`` the speaker's hello name; ``at`` unix time in seconds.
        history: True when the lines are the room's recent history (sent after ``joined``),
            None for a line just said.
    """

    TYPE: ClassVar[str]
    room: str = _f(_ROOM)
    lines: Sequence[dict[str, Any]] = _f(_chat_lines, factory=list)
    history: bool | None = _f(_bool, default=None)


@_message("replay", "server")
class Replay(_Record):
    """``replay``: the view of a finished room at one state (reply to ``get_replay``).

    Attributes:
        room: Room id (1..64 characters).
        state_id: The state shown, 0..``final``.
        final: The room's final state_id (the last state ``get_replay`` takes).
        seat: The seat whose view this is, or None (the public view).
        view: The view at ``state_id`` (a map, as in ``update``; ``legal_actions`` empty;
            ``room`` holds the finished room's facts).
        events: The events of the log entry that led to ``state_id`` (empty at 0).
        re: ``get_replay.id``, or None.
    """

    TYPE: ClassVar[str]
    room: str = _f(_ROOM)
    state_id: int = _f(_STATE_ID)
    final: int = _f(_STATE_ID)
    seat: int | None = _f(_SEAT, nullable=True, default=None)
    view: dict[Any, Any] = _f(_map(True), factory=dict)
    events: Sequence[Any] = _f(_array(True), factory=list)
    re: RequestId | None = _f(_ID, default=None)


def _board_entry(item: Any, name: str) -> None:
    """Check one leaderboard entry: a map of exactly ``rank`` (int >= 1), ``name`` (str
    1..64) and ``score`` (int)."""
    if type(item) is not dict:
        raise BadType(f"{name}: expected map, got {type_name(item)}")
    if set(item) != {"rank", "name", "score"}:
        raise BadValue(f"{name}: expected exactly the keys rank, name, score")
    _int(1, MAX_ID)(item["rank"], f"{name}.rank")
    _str(1, 64)(item["name"], f"{name}.name")
    _int(_INT_MIN, _INT_MAX)(item["score"], f"{name}.score")


def _board_entries(v: Any, name: str) -> None:
    _array(False)(v, name)
    for i, item in enumerate(v):
        _board_entry(item, f"{name}[{i}]")


def _board_you(v: Any, name: str) -> None:
    if type(v) is not dict:
        raise BadType(f"{name}: expected map, got {type_name(v)}")
    if set(v) != {"rank", "score"}:
        raise BadValue(f"{name}: expected exactly the keys rank, score")
    _int(1, MAX_ID)(v["rank"], f"{name}.rank")
    _int(_INT_MIN, _INT_MAX)(v["score"], f"{name}.score")


@_message("leaderboard", "server")
class Leaderboard(_Record):
    """``leaderboard``: one page of a game's leaderboard (reply to ``get_leaderboard``).

    Attributes:
        game: Game name (1..32 characters).
        mode: The board's mode (1..32 characters; ``"standard"`` for a game without modes).
        order: ``"asc"`` (lower scores rank first: Skipper turns) or ``"desc"`` (higher
            scores rank first: points).
        entries: The page, best first: maps ``{rank, name, score}`` (``rank`` 1 = the best;
            equal scores are ranked by name).
        total: Entries on the whole board, 0..2**31-1.
        you: ``{rank, score}`` of the asking connection's own name (its hello ``client``)
            when that name is on the board, else None.
        how: What puts a player on the board, for people (1..200 characters: "Win a solo
            game ..."), or None.
        re: ``get_leaderboard.id``, or None.
    """

    TYPE: ClassVar[str]
    game: str = _f(_GAME)
    mode: str = _f(_MODE)
    order: str = _f(_word(BOARD_ORDERS))
    entries: Sequence[dict[str, Any]] = _f(_board_entries, factory=list)
    total: int = _f(_int(0, MAX_ID), factory=int)
    you: dict[str, Any] | None = _f(_board_you, default=None)
    how: str | None = _f(_str(1, 200), default=None)
    re: RequestId | None = _f(_ID, default=None)


@_message("ok", "server")
class Ok(_Record):
    """``ok``: the request was accepted (reply to ``act``).

    Attributes:
        re: The request's id, or None.
    """

    TYPE: ClassVar[str]
    re: RequestId | None = _f(_ID, default=None)


@_message("pong", "server")
class Pong(_Record):
    """``pong``: reply to ``ping``.

    Attributes:
        re: ``ping.id``, or None.
    """

    TYPE: ClassVar[str]
    re: RequestId | None = _f(_ID, default=None)


@_message("error", "server")
class Error(_Record):
    """``error``: the request (or frame) was refused.

    Attributes:
        code: Namespaced code ``namespace/name`` (lowercase letters, digits, ``_``; at most 64
            characters), see :data:`cardhall.protocol.ERROR_CODES`.
        message: Human-readable explanation, 0..1024 characters.
        re: The offending request's id when known, else None.
    """

    TYPE: ClassVar[str]
    code: str = _f(_error_code)
    message: str = _f(_str(0, MAX_MESSAGE_LEN))
    re: RequestId | None = _f(_ID, default=None)


ClientMessage: TypeAlias = (
    Hello | ListGames | ListRooms | CreateRoom | Join | QuickJoin | Spectate | Leave | Start
    | Resume | Act | GetView | GetLog | GetLeaderboard | Ping | Chat | GetReplay
)
"""Any message a client sends."""

ServerMessage: TypeAlias = (
    Welcome | Games | Rooms | RoomCreated | Joined | Left | Started | Update | SeatEvent
    | GameOver | Log | Leaderboard | Ok | Pong | Error | ChatLines | Replay
)
"""Any message the server sends."""

Message: TypeAlias = ClientMessage | ServerMessage
"""Any message of the protocol."""
