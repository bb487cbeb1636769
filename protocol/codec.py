"""Bytes <-> messages, the handshake rule, and helpers for replies. No I/O.

The server pumps every received binary frame through :func:`decode` (``side="client"``) and
every outgoing message through :func:`encode`; the client does the reverse with
``side="server"``. Like the sans-I/O cores of websockets and h11, nothing here touches a
socket, a clock or an event loop.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final, Literal, TypeAlias, overload

import msgpack
from msgpack.exceptions import ExtraData

from .errors import (
    BadFrame,
    BadType,
    BadValue,
    HandshakeRequired,
    MissingField,
    ProtocolError,
    RequestId,
    TooLarge,
    UnexpectedMessage,
    UnknownField,
    UnknownType,
    VersionMismatch,
)
from . import messages as _messages
from .accounts import AccountReply, AccountRequest  # registers the account messages too
from .queue import Matched, QueueJoin, QueueLeave, Queued  # and rated play's queue
from .messages import (
    CLIENT_MESSAGES,
    MAX_ARRAY_LEN,
    MAX_FRAME,
    MAX_ID,
    MAX_ID_LEN,
    MAX_MAP_LEN,
    MAX_MESSAGE_LEN,
    MAX_STATE_ID,
    MESSAGE_TYPES,
    PROTOCOL_VERSIONS,
    SERVER_MESSAGES,
    Act,
    Error,
    Hello,
    Welcome,
    type_name,
)

ClientMessage: TypeAlias = _messages.ClientMessage | AccountRequest | QueueJoin | QueueLeave
"""Any message a client sends (the account messages of :mod:`.accounts` included)."""
ServerMessage: TypeAlias = _messages.ServerMessage | AccountReply | Queued | Matched
"""Any message the server sends (the account messages included)."""
Message: TypeAlias = ClientMessage | ServerMessage
"""Any message of the protocol."""

__all__ = ["ENGINE_CODES", "ServerHandshake", "decode", "encode", "error_reply", "reply_id"]

Side = Literal["client", "server"]
"""Who sent a frame: ``"client"`` (decoded by the server) or ``"server"`` (by the client)."""
Frame = bytes | bytearray | memoryview
"""The payload of one binary WebSocket frame."""

# Module constants are Final: the compiled build reads them as C statics, not from the
# module's dict at every use (several per frame).
_TABLES: Final = {"client": CLIENT_MESSAGES, "server": SERVER_MESSAGES}
_unpackb: Final[Any] = msgpack.unpackb  # Any: its limits are passed as objects (below)
_packb: Final = msgpack.packb
_new: Final = object.__new__
_INT_MIN: Final = -(2**63)  # what msgpack carries
_INT_MAX: Final = 2**64 - 1
# The decode side's limits and the act's record, as C statics in the compiled build (the
# names imported from the pure :mod:`.messages` are module globals: a dict lookup a read).
# (The unpacker's limits typed ``object``: passed as they are, not boxed again per call.)
_ARRAY_LEN_LIMIT: Final[object] = MAX_ARRAY_LEN
_MAP_LEN_LIMIT: Final[object] = MAX_MAP_LEN
_MAX_ARRAY_LEN: Final[int] = MAX_ARRAY_LEN
_MAX_ID: Final[int] = MAX_ID
_MAX_STATE_ID: Final[int] = MAX_STATE_ID
_ACT: Final = Act
_CLIENT_TABLE: Final = CLIENT_MESSAGES
# An act's fields set through their slots' descriptors: Act is a frozen dataclass with
# slots, and a descriptor's ``__set__`` costs half of ``object.__setattr__`` (issue #43).
_SET_ROOM: Final = Act.__dict__["room"].__set__
_SET_STATE_ID: Final = Act.__dict__["state_id"].__set__
_SET_ACTION: Final = Act.__dict__["action"].__set__
_SET_ID: Final = Act.__dict__["id"].__set__


def _valid_id(v: object) -> RequestId | None:
    """``v`` if it is a valid request id, else None (used to salvage ids from bad frames)."""
    if type(v) is int and 0 <= v <= _MAX_ID:
        return v
    if type(v) is str and len(v) <= MAX_ID_LEN:
        return v
    return None


@overload
def decode(data: Frame | str, *, max_size: int | None = ...,
           side: Literal["client"]) -> ClientMessage:
    ...


@overload
def decode(data: Frame | str, *, max_size: int | None = ...,
           side: Literal["server"]) -> ServerMessage:
    ...


@overload
def decode(data: Frame | str, *, max_size: int | None = ..., side: Side) -> Message:
    ...


def decode(data: Frame | str, *, max_size: int | None = MAX_FRAME, side: Side) -> Message:
    """Parse and validate one frame into a message.

    Args:
        data: The payload of one binary WebSocket frame (``bytes``; ``bytearray`` and
            ``memoryview`` are accepted too). A ``str`` (a text frame) is refused.
        max_size: Maximum size of the frame in bytes. None disables the limit (strings and
            binaries are then bounded by the frame length only).
        side: Who sent the frame: ``"client"`` to decode client-to-server messages (on the
            server), ``"server"`` to decode server-to-client messages (on the client).

    Returns:
        The message, an instance of one of the classes of :data:`CLIENT_MESSAGES` (for
        ``side="client"``, typed ``ClientMessage``) or :data:`SERVER_MESSAGES` (for
        ``side="server"``, typed ``ServerMessage``).

    Raises:
        TooLarge: ``data`` is longer than ``max_size`` bytes.
        BadFrame: ``data`` is not bytes, not valid msgpack, holds trailing data after the
            first value, is not a map, or breaks a decoder limit (arrays over 4096 items,
            maps over 1024 pairs, non-str map keys from clients, ext types, deep nesting).
        MissingField: the ``"t"`` tag or a required field is absent.
        UnknownType: ``"t"`` names no message of ``side``.
        UnknownField: the map has a key the message does not define.
        BadType: a field (or ``"t"``) has the wrong type.
        BadValue: a field is out of range, too long, or contradicts another field.
        ValueError: ``side`` is not ``"client"`` or ``"server"`` (a bug of the caller).

        Every :class:`ProtocolError` raised has ``re`` set to the frame's ``"id"`` when that
        could be read and is a valid request id, so the error reply can echo it.
    """
    if side == "client":
        table = _CLIENT_TABLE
    else:
        found = _TABLES.get(side)
        if found is None:
            raise ValueError(f"side must be 'client' or 'server', not {side!r}")
        table = found
    obj = _frame_map(data, max_size, side)
    try:  # (in, [], del: native dict operations where pop is a method call)
        if "t" not in obj:
            raise MissingField('missing field "t" (the message type)', re=_salvage(obj))
        tag = obj["t"]
        del obj["t"]
    except TypeError:  # unhashable key? cannot happen for maps msgpack builds; be safe
        raise BadFrame("bad map key") from None
    cls = table.get(tag) if type(tag) is str else None
    if cls is None:
        if type(tag) is not str:
            exc2: ProtocolError = BadType(f't: expected str, got {type_name(tag)}')
        elif tag in MESSAGE_TYPES:
            exc2 = UnknownType(f"{tag!r} is not a message a {side} may send")
        else:
            exc2 = UnknownType(f"unknown message type {tag[:40]!r}")
        exc2.re = _salvage(obj)
        raise exc2
    if cls is _ACT:
        act = _plain_act(obj)
        if act is not None:  # the hot message in its common shape
            return act
    keys = obj.keys()
    extra = keys - cls._allowed
    if extra:
        bad = min(str(k) for k in extra)
        raise UnknownField(f"{tag}: unknown field {bad[:40]!r}", re=_salvage(obj))
    missing = cls._required - keys
    if missing:
        raise MissingField(f"{tag}: missing field {min(missing)!r}", re=_salvage(obj))
    try:
        return cls(**obj)  # type: ignore[no-any-return]
    except ProtocolError as exc:
        exc.message = f"{tag}: {exc.message}"
        exc.args = (exc.message,)
        exc.re = _salvage(obj)
        raise


def _plain_act(m: dict[Any, Any]) -> Act | None:
    """The :class:`~.messages.Act` of a decoded ``act`` map (its ``"t"`` taken out) in the
    common shape, built without the generic checks (a dataclass ``__init__``, then a call
    per field; issue #43, benchmarks/RESULTS.md session 7): the keys ``room``,
    ``state_id``, ``action`` and perhaps ``id``, and nothing else; ``room`` a str of 1..64
    characters, ``state_id`` an int in range, ``action`` a list of at most
    :data:`~.messages.MAX_ARRAY_LEN` items whose first is a str and every other a str or an
    int that fits msgpack, ``id`` nil or an int in range: a map the checks accept as it
    is. None for a map of any other shape, valid (a nested map in an action, a str id) or
    not: it goes through the full checks, which accept it or say what is wrong with it."""
    n = len(m)
    rid = m.get("id")
    if n != 3 and not (n == 4 and "id" in m):
        return None
    room = m.get("room")
    state_id = m.get("state_id")
    action = m.get("action")
    if not (type(room) is str and 1 <= len(room) <= 64
            and type(state_id) is int and 0 <= state_id <= _MAX_STATE_ID
            and (rid is None or (type(rid) is int and 0 <= rid <= _MAX_ID))
            and type(action) is list and 0 < len(action) <= _MAX_ARRAY_LEN
            and type(action[0]) is str):
        return None
    for x in action:
        if type(x) is not str and not (type(x) is int and _INT_MIN <= x <= _INT_MAX):
            return None
    msg = _new(_ACT)
    _SET_ROOM(msg, room)
    _SET_STATE_ID(msg, state_id)
    _SET_ACTION(msg, action)
    _SET_ID(msg, rid)
    return msg


def _frame_map(data: Frame | str, max_size: int | None, side: Side) -> dict[Any, Any]:
    """The msgpack map of one frame, for :func:`decode` (which documents the errors).

    Raises:
        TooLarge: ``data`` is longer than ``max_size`` bytes.
        BadFrame: ``data`` is not bytes, not valid msgpack, not a map, or breaks a limit.
    """
    if isinstance(data, (bytes, bytearray)):
        size = len(data)
    elif isinstance(data, memoryview):
        size = data.nbytes
    else:
        raise BadFrame(f"expected a binary frame (bytes), got {type(data).__name__}")
    if max_size is not None and size > max_size:
        raise TooLarge(f"frame of {size} bytes is over the limit of {max_size} bytes")
    limit: object = size if max_size is None else max_size  # boxed once (see above)
    try:
        obj = _unpackb(
            data,
            raw=False,
            strict_map_key=side == "client",
            max_str_len=limit,
            max_bin_len=limit,
            max_array_len=_ARRAY_LEN_LIMIT,
            max_map_len=_MAP_LEN_LIMIT,
            max_ext_len=0,
        )
    except ExtraData:
        raise BadFrame("trailing data after the first msgpack value") from None
    except Exception as exc:  # noqa: BLE001 - whatever the unpacker refuses is the sender's fault
        raise BadFrame(f"not valid msgpack: {exc or type(exc).__name__}") from None
    if type(obj) is not dict:
        raise BadFrame(f"a frame must be a msgpack map, got {type_name(obj)}")
    return obj


def _salvage(obj: dict[Any, Any]) -> RequestId | None:
    return _valid_id(obj.get("id"))


def encode(msg: Message, *, max_size: int | None = None) -> bytes:
    """Serialize a message into the payload of one binary frame.

    Args:
        msg: Any message (it is valid by construction).
        max_size: Maximum size of the result in bytes (e.g. the receiver's ``max_frame``). None
            disables the check.

    Returns:
        One msgpack map: ``"t"`` first, then the fields in declaration order, optional
        fields that are None left out.

    Raises:
        TypeError: ``msg`` is not a message.
        TooLarge: the frame would be longer than ``max_size`` bytes.
        BadValue: a value msgpack cannot encode slipped through (e.g. a str with lone
            surrogates inside game data).
    """
    if type(msg) not in _ENCODABLE:
        raise TypeError(f"not a protocol message: {type(msg).__name__}")
    try:
        data: bytes = _packb(msg.to_map())
    except (ValueError, TypeError, OverflowError) as exc:  # UnicodeEncodeError is a ValueError
        raise BadValue(f"{msg.TYPE}: cannot encode: {exc}") from None
    if max_size is not None and len(data) > max_size:
        raise TooLarge(f"{msg.TYPE}: frame of {len(data)} bytes is over {max_size} bytes")
    return data


_ENCODABLE: Final = frozenset(MESSAGE_TYPES.values())


def reply_id(msg: Message) -> RequestId | None:
    """The request id of a client message (its ``id``), to echo as ``re`` in the reply.

    Args:
        msg: Any message.

    Returns:
        ``msg.id`` for client messages (None when the client gave none); None for server
        messages.
    """
    return getattr(msg, "id", None)


ENGINE_CODES: dict[str, str] = {
    "options/invalid": "lobby/bad_options",
    "game/error": "server/internal",
    "game/bad_snapshot": "server/internal",
}
"""Engine error codes that are sent under another code (``error_reply`` maps them)."""

_INTERNAL_MESSAGE = "internal server error"


def error_reply(
    exc_or_code: BaseException | str,
    message: str | None = None,
    re: RequestId | None = None,
) -> Error:
    """Build the ``error`` message answering a failed request.

    Args:
        exc_or_code: Either a code such as ``"room/full"``, or an exception carrying ``code``
            and ``message`` attributes (a :class:`ProtocolError`, an engine ``GameError``, or
            any server error class shaped the same way). Engine codes listed in
            :data:`ENGINE_CODES` are translated (``"options/invalid"`` ->
            ``"lobby/bad_options"``). Any other exception (no ``code`` attribute, i.e. a bug)
            becomes ``server/internal`` with a generic message; its text is never sent.
        message: Human-readable message; None to use the exception's message (or, for a bare
            code, its meaning from :data:`ERROR_CODES`). Cut to 1024 characters.
        re: Request id to echo; None to use the exception's ``re`` attribute if it has one.

    Returns:
        A valid :class:`Error` message.

    Raises:
        BadType: ``exc_or_code`` is a str that is not a ``namespace/name`` code.
    """
    from .errors import ERROR_CODES

    if isinstance(exc_or_code, str):
        code = exc_or_code
        text = message if message is not None else ERROR_CODES.get(code, code)
    else:
        raw = getattr(exc_or_code, "code", None)
        if isinstance(raw, str):
            code = ENGINE_CODES.get(raw, raw)
            if code == "server/internal" and raw != code:
                text = message if message is not None else _INTERNAL_MESSAGE
            else:
                default = getattr(exc_or_code, "message", None)
                if not isinstance(default, str):
                    default = str(exc_or_code)
                text = message if message is not None else default
        else:
            code, text = "server/internal", message if message is not None else _INTERNAL_MESSAGE
        if re is None:
            re = _valid_id(getattr(exc_or_code, "re", None))
    text = clip_message(text)
    try:
        return Error(code=code, message=text, re=re)
    except (BadType, BadValue):
        if isinstance(exc_or_code, str) and not _code_ok(code):
            raise BadType(f"not a namespace/name error code: {code[:70]!r}") from None
    # Still not buildable (an exception's code that is no namespace/name, a bad ``re``):
    # the fixed fallback, which always is.
    return Error(code="server/internal", message=_INTERNAL_MESSAGE, re=_valid_id(re))


def clip_message(text: object, limit: int = MAX_MESSAGE_LEN) -> str:
    """``text`` cut to fit an ``error`` message: at most ``limit`` characters, the cut
    marked by a trailing ``"..."``.

    Args:
        text: The message (anything else is turned into its ``str`` first).
        limit: Largest length in characters (code points), at least 3.

    Returns:
        ``text`` itself when it fits, else its first ``limit - 3`` characters and ``"..."``.
    """
    if not isinstance(text, str):
        text = str(text)
    if len(text) > limit:
        text = text[: limit - 3] + "..."
    return text


def _code_ok(code: object) -> bool:
    """True when ``code`` is a valid ``namespace/name`` error code."""
    try:
        Error(code=code, message="")  # type: ignore[arg-type]
    except (BadType, BadValue):
        return False
    return True


class ServerHandshake:
    """The server's side of the version handshake, as a tiny state machine (no I/O).

    Feed every decoded client message to :meth:`receive` before handling it::

        hs = ServerHandshake(server="cardhall/0.1", session=sid, max_frame=65536)
        msg = decode(frame, side="client", max_size=65536)
        welcome = hs.receive(msg)   # a Welcome to send for hello, None for other messages

    Args:
        server: Server software name and version (1..64 characters).
        session: This connection's session id (1..128 characters).
        max_frame: Largest frame in bytes accepted from the client (sent in ``welcome``).
        versions: Protocol versions accepted; by default :data:`PROTOCOL_VERSIONS` (1 and 2).

    Attributes:
        session_id: The session id (``welcome.session``).
        done: True once a ``hello`` was accepted.
        version: The accepted protocol version, or None before the handshake.
    """

    def __init__(self, *, server: str, session: str, max_frame: int = MAX_FRAME,
                 versions: frozenset[int] = PROTOCOL_VERSIONS) -> None:
        self.server = server
        self.session_id = session
        self.max_frame = max_frame
        self.versions = versions
        self.done = False
        self.version: int | None = None

    def receive(self, msg: Message) -> Welcome | None:
        """Check ``msg`` against the handshake state.

        Args:
            msg: A decoded client message.

        Returns:
            The :class:`Welcome` to send when ``msg`` is an accepted ``hello``; None when the
            handshake is done and ``msg`` is an ordinary message to handle.

        Raises:
            HandshakeRequired: ``msg`` is not ``hello`` and no ``hello`` was accepted yet.
            VersionMismatch: ``msg`` is a ``hello`` with an unsupported ``v`` (send the error
                reply, then close with code 4002, ``VersionMismatch.close_code``).
            UnexpectedMessage: ``msg`` is a second ``hello``.
        """
        if type(msg) is Hello:
            rid = msg.id
            if self.done:
                raise UnexpectedMessage("hello: the handshake is already done", re=rid)
            if msg.v not in self.versions:
                wanted = ", ".join(map(str, sorted(self.versions)))
                raise VersionMismatch(
                    f"hello: protocol version {msg.v} is not supported (server speaks {wanted})",
                    re=rid,
                )
            self.done = True
            self.version = msg.v
            return Welcome(v=msg.v, server=self.server, session=self.session_id,
                           max_frame=self.max_frame, re=rid)
        if not self.done:
            raise HandshakeRequired(
                f"{getattr(msg, 'TYPE', '?')}: send hello first", re=reply_id(msg)
            )
        return None


#: One packer reused by the server's frame builders below (``msgpack.packb`` makes a packer
#: per call, several times slower for the small pieces these pack). Not thread-safe: the
#: builders are for the thread of the server's event loop.
_PACKER: Final = msgpack.Packer()
_pack: Final = _PACKER.pack
_MAP5: Final = _PACKER.pack_map_header(5)
_MAP6: Final = _PACKER.pack_map_header(6)
_UPDATE_HEAD: Final = _pack("t") + _pack("update") + _pack("room")
_OK_HEAD: Final = _PACKER.pack_map_header(2) + _pack("t") + _pack("ok") + _pack("re")
_OK_BARE: Final = _PACKER.pack_map_header(1) + _pack("t") + _pack("ok")
_DELTA_KEY: Final = _pack("delta")
_VIEW_KEY: Final = _pack("view")
_RE_KEY: Final = _pack("re")
_STATE_ID_KEY: Final = _pack("state_id")
_STATE_ID_SIZE: Final = len(_STATE_ID_KEY)
_EVENTS_KEY: Final = _pack("events")
#: ``_pack(n)`` of the ints 0..255 (a fixint, or uint8's marker and the byte).
_UINT8: Final = tuple(_pack(n) for n in range(0x100))
#: The bytes of a packed int by its first byte: the fixints (positive and negative) one, the
#: others their marker and 1, 2, 4 or 8 bytes (uint8..64, int8..64).
_INT_SIZES: Final[dict[int, int]] = {
    **{b: 1 for b in range(0x80)}, **{b: 1 for b in range(0xE0, 0x100)},
    0xCC: 2, 0xCD: 3, 0xCE: 5, 0xCF: 9, 0xD0: 2, 0xD1: 3, 0xD2: 5, 0xD3: 9}
#: The headers of maps of 0..15 pairs (msgpack's fixmap: one byte).
_FIXMAPS: Final = tuple(bytes((0x80 | n,)) for n in range(16))
#: The headers of arrays of 0..15 items (msgpack's fixarray: one byte).
_FIXARRAYS: Final = tuple(bytes((0x90 | n,)) for n in range(16))
#: str -> its packed bytes (:func:`_packed_str`: the keys of deltas, room ids); emptied when
#: it grows past :data:`_STRS_MAX` entries.
_STRS: Final[dict[str, bytes]] = {}
_STRS_MAX: Final = 20_000


def _packed_str(text: str) -> bytes:
    """``_pack(text)``, remembered: a delta's keys and a room's id are packed for every
    broadcast, and a call into msgpack costs about 1,400 instructions for a few bytes
    (issue #43)."""
    packed = _STRS.get(text)
    if packed is None:
        packed = _pack(text)
        if len(_STRS) >= _STRS_MAX:
            _STRS.clear()
        _STRS[text] = packed
    return packed


def _map_header(count: int) -> bytes:
    """msgpack's header of a map of ``count`` pairs (what ``packb`` writes ahead of them)."""
    return _FIXMAPS[count] if count < 16 else _PACKER.pack_map_header(count)


def _header_size(count: int) -> int:
    """The bytes of :func:`_map_header` for ``count`` pairs."""
    return 1 if count < 16 else 3 if count < 0x10000 else 5


def _packed_id(re: RequestId) -> bytes:
    """``_pack(re)`` of a request id (an int, or a str), an int without a call into msgpack
    (:func:`_packed_int`)."""
    return _packed_int(re) if type(re) is int else _pack(re)


def _packed_int(n: int) -> bytes:
    """``_pack(n)`` of an int, the common sizes without a call into msgpack: the ints
    0..255 from a table, up to 65,535 as uint16 (marker 0xCD, two bytes big-endian)."""
    if 0 <= n < 0x100:
        return _UINT8[n]
    if 0 < n < 0x10000:
        return b"\xcd" + n.to_bytes(2, "big")
    return _pack(n)


def update_parts(room: str, state_id: int, events: Sequence[Any]) -> tuple[bytes, bytes]:
    """Pre-packed pieces of the ``update`` frames of one broadcast (see :func:`update_frame`).

    For frames the server builds from its own engine data: no validation is done here.
    """
    # the keys packed once (each pack call costs about 1,400 instructions; issue #43)
    head = b"".join((_UPDATE_HEAD, _packed_str(room), _STATE_ID_KEY, _packed_int(state_id)))
    return head, _EVENTS_KEY + _pack(list(events))


def update_frame(parts: tuple[bytes, bytes], *, view: Any = None, delta: Any = None,
                 re: RequestId | None = None, v: int = 1) -> bytes:
    """One ``update`` frame from :func:`update_parts` plus this recipient's ``view`` or
    ``delta`` (exactly one of them), as bytes: the same map :func:`encode` makes for
    :class:`Update`, without validating it (the server's own data, built once per frame
    instead of walked again for every recipient).

    Args:
        v: The recipient's protocol version: from 2 on, a ``delta`` goes without its
            ``"state_id"`` key (the update's own ``state_id`` is the view's); ``delta``
            itself is not changed (it may be shared with other recipients).

    Raises:
        ValueError: both or neither of ``view`` and ``delta`` are given.
    """
    if (view is None) == (delta is None):
        raise ValueError("exactly one of view and delta")
    if view is not None:
        body = _VIEW_KEY + _pack(view)
    else:
        if v > 1 and "state_id" in delta:
            delta = delta.copy()
            del delta["state_id"]
        body = _DELTA_KEY + _pack(delta)
    head, tail = parts
    if re is None:
        return b"".join((_MAP5, head, body, tail))
    return b"".join((_MAP6, head, body, tail, _RE_KEY, _packed_id(re)))


def packed_pairs(entries: dict[str, Any]) -> bytes:
    """The key/value pairs of map ``entries`` packed, without the map's header: to be
    appended to another map's in :func:`delta_frame` (``extra_packed``). A value that is a
    list of tuples (a seat's legal actions) is packed from its tuples' bytes, each packed
    once (:func:`_packed_tuples`)."""
    for value in entries.values():
        if type(value) is list and value and type(value[0]) is tuple:
            break
    else:
        return _pack(entries)[_header_size(len(entries)):]
    chunks: list[bytes] = []
    for key, value in entries.items():
        chunks.append(_packed_str(key) if type(key) is str else _pack(key))
        if type(value) is list and value and type(value[0]) is tuple:
            chunks.append(_packed_tuples(value))
        else:
            chunks.append(_pack(value))
    return b"".join(chunks)


#: tuple of strs -> its packed bytes (:func:`_packed_tuples`); emptied when it grows past
#: :data:`_TUPLES_MAX` entries. Only tuples of strs: an equal tuple packs the same (1 and
#: True are equal keys but not the same bytes).
_TUPLES: Final[dict[tuple[Any, ...], bytes]] = {}
_TUPLES_MAX: Final = 20_000


def _packed_tuples(items: list[Any]) -> bytes:
    """``_pack(items)``, the tuples of strs among ``items`` packed once and remembered
    (an engine's legal actions: the same few hundred tuples over and over; issue #43)."""
    cache = _TUPLES
    n = len(items)
    chunks = [_FIXARRAYS[n] if n < 16 else _PACKER.pack_array_header(n)]
    for item in items:
        packed = None
        if type(item) is tuple:
            try:
                packed = cache.get(item)
            except TypeError:  # an unhashable value inside: packed as it is
                pass
        if packed is None:
            packed = _pack(item)
            if type(item) is tuple and all(type(x) is str for x in item):
                if len(cache) >= _TUPLES_MAX:
                    cache.clear()
                cache[item] = packed
        chunks.append(packed)
    return b"".join(chunks)


def delta_frame(parts: tuple[bytes, bytes], delta: dict[str, Any],
                extra: dict[str, Any] | None = None, extra_packed: bytes = b"",
                re: RequestId | None = None, v: int = 1) -> bytes:
    """:func:`update_frame` of ``delta={**delta, **extra}`` with the same bytes, built with
    less work: ``delta`` is packed as it is and ``extra``'s pairs (``extra_packed``: its
    :func:`packed_pairs`, packed once for every recipient of a broadcast) appended behind
    them under one map header (msgpack maps are their pairs after a header holding the
    count), and a version 2 recipient's ``"state_id"`` (the first key of an engine's delta)
    cut from the packed bytes instead of from a copy of the dict (:func:`delta_pairs`).

    Args:
        parts: :func:`update_parts` of the broadcast.
        delta: The recipient's delta (not changed).
        extra: More entries (the room facts' change), or None.
        extra_packed: ``packed_pairs(extra)``.
        re: The id of the request the frame answers, or None.
        v: The recipient's protocol version (see :func:`update_frame`).
    """
    more = 0
    if extra:
        for key in extra:
            # an entry replaced (the merged dict's order is delta's) or one to drop
            if key in delta or (v > 1 and key == "state_id"):
                return update_frame(parts, delta={**delta, **extra}, re=re, v=v)
        more = len(extra)
    pairs = delta_pairs(delta, v)
    if pairs is None:  # "state_id" not the first key, or not an int: the general way
        return update_frame(parts, delta={**delta, **extra} if extra else delta, re=re, v=v)
    return pairs_frame(parts, pairs[0] + more, pairs[1], extra_packed, b"", re)


def delta_pairs(delta: dict[str, Any], v: int = 1) -> tuple[int, bytes] | None:
    """The pairs of ``delta`` as a version ``v`` recipient gets them (see
    :func:`update_frame`: from 2 on without ``"state_id"``), packed without the map's
    header: (their count, their bytes), for :func:`pairs_frame`. A ``"state_id"`` to drop
    is cut from the packed bytes; None when that cannot be done (it is not the first key,
    or not an int): then :func:`update_frame` packs the delta."""
    packed = _pack(delta)
    count = len(delta)
    start = _header_size(count)
    if v > 1 and "state_id" in delta:
        size = 0
        if packed.startswith(_STATE_ID_KEY, start):  # the first key: its pair cut
            size = _INT_SIZES.get(packed[start + _STATE_ID_SIZE], 0)
        if not size:
            return None
        start += _STATE_ID_SIZE + size
        count -= 1
    return count, packed[start:]


def pairs_frame(parts: tuple[bytes, bytes], count: int, pairs: bytes, more: bytes = b"",
                extra: bytes = b"", re: RequestId | None = None) -> bytes:
    """One ``update`` frame of :func:`update_parts` ``parts`` whose delta is the ``count``
    packed pairs ``pairs + more + extra`` (each from :func:`delta_pairs` or
    :func:`packed_pairs`, their keys distinct) under one map header: the bytes
    :func:`update_frame` makes of the merged delta, without packing it again (``re``: the
    id of the request the frame answers, or None)."""
    head, tail = parts
    if re is None:
        return b"".join((_MAP5, head, _DELTA_KEY, _map_header(count), pairs, more, extra,
                         tail))
    return b"".join((_MAP6, head, _DELTA_KEY, _map_header(count), pairs, more, extra, tail,
                     _RE_KEY, _packed_id(re)))


def ok_frame(re: RequestId | None) -> bytes:
    """The ``ok`` reply to request ``re`` as bytes: what :func:`encode` makes of
    ``Ok(re=re)``, without building and validating the message (``re`` is the id of a
    request that was decoded, hence already valid)."""
    return _OK_BARE if re is None else _OK_HEAD + _packed_id(re)


def frame_room(frame: bytes) -> str | None:
    """The ``"room"`` of an encoded server frame (a map, as :func:`encode` and the frame
    builders here make them), read without decoding the rest: the keys ahead of it are
    skipped, and an ``update``'s is the second. None when the frame names no room (an
    ``ok``, an ``error``...) or is not such a map.

    Used to fence frames relayed between server processes by the room they belong to
    (:mod:`cardhall.server.cluster`); never raises."""
    if frame.startswith(_UPDATE_HEAD, 1):  # an update frame (_MAP5 or _MAP6 ahead)
        unpacker = msgpack.Unpacker(raw=False)
        unpacker.feed(frame[1 + len(_UPDATE_HEAD):])
        try:
            room = unpacker.unpack()
        except Exception:  # noqa: BLE001 - not our frame: no room read
            return None
        return room if isinstance(room, str) else None
    unpacker = msgpack.Unpacker(raw=False)
    unpacker.feed(frame)
    try:
        for _ in range(unpacker.read_map_header()):
            if unpacker.unpack() == "room":
                room = unpacker.unpack()
                return room if isinstance(room, str) else None
            unpacker.skip()
    except Exception:  # noqa: BLE001 - not a map, truncated...: no room read
        return None
    return None
