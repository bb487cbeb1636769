"""Errors of the wire protocol, and the tables of every error and close code.

Exception tree (each class carries the namespaced ``code`` sent to the other end in an ``error``
message; ``close_code`` is the WebSocket close code to close with after replying, or ``None``
to reply and keep the connection open)::

    ProtocolError                 "protocol/error"     base class, never raised itself
    ├── BadFrame                  "protocol/bad_frame" not bytes, not msgpack, not a map,
    │   │                                              trailing data, nesting/size limits
    │   └── TooLarge              "protocol/too_large" frame longer than the size limit
    │                                                  (close 1009)
    ├── UnknownType               "protocol/unknown_type"  "t" names no message of this side
    ├── MissingField              "protocol/missing_field" a required field is absent
    ├── UnknownField              "protocol/unknown_field" a field this message does not have
    ├── BadType                   "protocol/bad_type"      a field has the wrong msgpack type
    ├── BadValue                  "protocol/bad_value"     right type, value out of range /
    │                                                      too long / inconsistent fields
    ├── HandshakeRequired         "protocol/handshake_required"  a message before ``hello``
    ├── UnexpectedMessage         "protocol/unexpected"    valid message, wrong moment
    │                                                      (a second ``hello``)
    └── VersionMismatch           "protocol/version"       unsupported protocol version
                                                           (close 4002)

Who is at fault: every :class:`ProtocolError` raised by :func:`cardhall.protocol.decode` is
the *sender's* fault: answer it with :func:`cardhall.protocol.error_reply` (and close when
``close_code`` is set). The same classes are raised when *our own* code builds an invalid
message (a message validates itself on construction); that is a bug to log, not to send.

:data:`ERROR_CODES` lists every code the whole system may send (protocol, lobby, room,
action, rate and server codes) and :data:`CLOSE_CODES` every WebSocket close code it uses.
"""

from __future__ import annotations

from typing import ClassVar

RequestId = int | str
"""A client-chosen request id: an ``int`` in 0..2**31-1 or a ``str`` of at most 64 characters."""

__all__ = [
    "CLOSE_CODES",
    "ERROR_CODES",
    "BadFrame",
    "BadType",
    "BadValue",
    "HandshakeRequired",
    "MissingField",
    "ProtocolError",
    "RequestId",
    "TooLarge",
    "UnexpectedMessage",
    "UnknownField",
    "UnknownType",
    "VersionMismatch",
]


class ProtocolError(Exception):
    """Base class of every protocol error.

    Args:
        message: Human-readable explanation (also ``str(err)``).
        re: Request id of the offending frame when it could be read (its ``"id"`` field was
            present and valid), else ``None``. :func:`cardhall.protocol.decode` fills it in so
            the error reply can echo it.

    Attributes:
        code: Namespaced machine-readable code, e.g. ``"protocol/bad_type"`` (class attribute).
        close_code: WebSocket close code to close the connection with after sending the
            error reply, or ``None`` to keep the connection open (class attribute).
        message: Human-readable explanation.
        re: Request id to echo in the reply, or ``None``.
    """

    code: ClassVar[str] = "protocol/error"
    close_code: ClassVar[int | None] = None

    def __init__(self, message: str, *, re: RequestId | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.re = re

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.message!r})"


class BadFrame(ProtocolError):
    """The frame is not one well-formed msgpack map.

    Raised when the data is not bytes (e.g. a text frame), is not valid msgpack (truncated,
    reserved byte, invalid UTF-8 in a string, non-string map key), holds more than one value
    (trailing data), is not a map at the top level, or exceeds a nesting or array/map size
    limit of the decoder.
    """

    code = "protocol/bad_frame"


class TooLarge(BadFrame):
    """The frame is longer than the size limit (``max_size`` bytes). Close code 1009."""

    code = "protocol/too_large"
    close_code = 1009


class UnknownType(ProtocolError):
    """The ``"t"`` tag names no message this side may send (unknown, or the other side's)."""

    code = "protocol/unknown_type"


class MissingField(ProtocolError):
    """A required field (or the ``"t"`` tag itself) is absent."""

    code = "protocol/missing_field"


class UnknownField(ProtocolError):
    """The map holds a key that this message type does not define."""

    code = "protocol/unknown_field"


class BadType(ProtocolError):
    """A field holds a value of the wrong msgpack type (note: ``true`` is not an int)."""

    code = "protocol/bad_type"


class BadValue(ProtocolError):
    """A field has the right type but a bad value.

    Out of range, too long or empty, not one of the allowed words, nesting too deep, or
    fields that contradict each other (``join`` with both ``room`` and ``code``).
    """

    code = "protocol/bad_value"


class HandshakeRequired(ProtocolError):
    """A message other than ``hello`` arrived before the handshake was done."""

    code = "protocol/handshake_required"


class UnexpectedMessage(ProtocolError):
    """A valid message arrived at a moment it is not allowed (a second ``hello``)."""

    code = "protocol/unexpected"


class VersionMismatch(ProtocolError):
    """The client's protocol version is not supported. Close code 4002."""

    code = "protocol/version"
    close_code = 4002


ERROR_CODES: dict[str, str] = {
    # Protocol: the frame or the message itself is wrong (see the exception classes above).
    "protocol/bad_frame": "the frame is not exactly one msgpack map (or breaks a size/nesting "
                          "limit, or is a text frame)",
    "protocol/too_large": "the frame is longer than the maximum frame size (see welcome.max_frame)",
    "protocol/unknown_type": "the \"t\" tag names no message that this side may send",
    "protocol/missing_field": "a required field (or \"t\") is absent",
    "protocol/unknown_field": "the message holds a field its type does not define",
    "protocol/bad_type": "a field has the wrong msgpack type (booleans are not integers)",
    "protocol/bad_value": "a field is out of range, too long, empty, not an allowed word, "
                          "too deeply nested, or contradicts another field",
    "protocol/handshake_required": "the first message of a connection must be hello",
    "protocol/unexpected": "a valid message sent at the wrong moment (a second hello)",
    "protocol/version": "the server does not speak the client's protocol version",
    # Lobby: creating and finding rooms.
    "lobby/unknown_game": "no game (or no mode of that game) of this name on this server",
    "lobby/no_leaderboard": "the game (or that mode of it) keeps no leaderboard",
    "lobby/bad_options": "the game rejected the options or the seat count (the engine's "
                         "options/invalid)",
    # Rooms: membership and life cycle.
    "room/not_found": "no such room (or a private room of others: the same answer), or no "
                      "open room for this join code",
    "room/full": "every seat is taken (or the requested seat is taken)",
    "room/not_started": "the game of this room has not started yet",
    "room/not_finished": "the game of this room is not over yet (its log and deal seed are "
                         "revealed only then)",
    "room/already_started": "the game has started; seats can no longer be taken or the room "
                            "started again",
    "room/not_host": "only the room's host (the creator) may do this",
    "room/not_seated": "this connection holds no seat (or is not in the room) for this request",
    "room/bad_token": "the seat token is unknown, expired, or for another room",
    "room/limit": "too many rooms (on the server, or held by this connection)",
    "room/closed": "an operator closed the room (sent unasked, then left)",
    "room/kicked": "an operator removed you from your seat; its token no longer resumes it "
                   "(sent unasked, then left)",
    "room/already_seated": "your account already holds a seat of this room (unless its host "
                           "allowed several: room option multi_seat)",
    # Accounts: signing in and names (protocol/README.md "Accounts").
    "auth/required": "sign in first (guest, register, login or restore): this server "
                     "requires an account for this request",
    "auth/bad_credentials": "unknown username or wrong password, or a token or JWT that is "
                            "not valid",
    "auth/name_taken": "that username or name is held by another account, or looks like "
                       "one (Unicode confusables)",
    "auth/bad_name": "not a valid username or display name (see the rules of register and "
                     "set_name)",
    "auth/weak_password": "a password must have 8 to 1,024 bytes (UTF-8)",
    "auth/expired": "the access or refresh token has expired or was revoked (logout, an "
                    "operator): refresh it or sign in again",
    "auth/banned": "an operator banned this account: it cannot sign in",
    "auth/rate_limited": "too many sign-in attempts from this address or for this account; "
                         "wait and try again",
    # Chat.
    "chat/muted": "an operator muted your seat in this room: your chat lines are refused",
    # Actions: the engine refused an act (codes of cardhall.games.errors).
    "action/illegal": "the rules forbid this action now (the message says why)",
    "action/unknown": "not an action of this game (wrong verb, shape or card code)",
    "action/not_your_turn": "this seat may not act now",
    "action/game_over": "the game has ended; no action applies",
    "action/stale_state": "act.state_id is not the room's current state_id; fetch the view "
                          "and choose again",
    # Rate limiting and server trouble.
    "rate/limited": "too many messages or chat lines; slow down (repeated abuse closes with "
                    "4008); or too many failed look-ups of rooms: wait",
    "server/unavailable": "the server cannot serve this now (shutting down, storage down, "
                          "room moving to another process); retry later",
    "server/internal": "a bug on the server; it has been logged",
}
"""Every error code the system may send in an ``error`` message, with its meaning.

Codes are ``namespace/name``. Clients should handle unknown codes by their namespace.
"""


CLOSE_CODES: dict[int, str] = {
    1000: "normal closure (the client said goodbye, or the server closed the connection)",
    1001: "going away (server shutdown or restart; reconnect and resume)",
    1009: "message too big (a frame longer than the maximum frame size)",
    1011: "internal server error",
    1012: "service restart (the server is draining for a restart; reconnect to another "
          "server and resume)",
    4000: "protocol violation (too many bad frames)",
    4001: "handshake timeout (no valid hello in time)",
    4002: "unsupported protocol version (after an error protocol/version)",
    4008: "rate limit (too many messages after rate/limited warnings)",
    4009: "slow reader (more than the server's limit of bytes waiting to be sent to this client)",
    4010: "signed out by the server: an operator banned the account or revoked its sign-ins, "
          "or it logged out everywhere (after an error auth/banned or auth/expired)",
}
"""Every WebSocket close code the system uses, with its meaning."""
