"""The messages of rated play's matchmaking queue (protocol/README.md, "Rated play").

Client -> server: :class:`QueueJoin` (answered by :class:`Queued`), :class:`QueueLeave`
(answered by ``ok``). Server -> client: :class:`Queued`, and :class:`Matched` unsolicited
when a wave seated the player: it then joins the room it names (``join``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from .errors import BadType, BadValue, RequestId
from .messages import (
    MAX_ID,
    REQUEST_ID,
    Record,
    bool_check,
    int_check,
    message,
    str_check,
    wire_field,
)

__all__ = ["TABLE_SIZES", "Matched", "QueueJoin", "QueueLeave", "Queued"]

TABLE_SIZES = (2, 3, 4)
"""Table sizes a ticket may ask for (``queue_join.seats``)."""

_ID = REQUEST_ID
_GAME = str_check(1, 32)
_MODE = str_check(1, 32)
_ROOM = str_check(1, 64)
_RATING = int_check(-(2**31), 2**31 - 1)


def _sizes(v: Any, name: str) -> None:
    """1..3 distinct table sizes of :data:`TABLE_SIZES`."""
    if not isinstance(v, (list, tuple)):
        raise BadType(f"{name}: expected an array of seat counts")
    if not 1 <= len(v) <= len(TABLE_SIZES) or len(set(v)) != len(v) or any(
            isinstance(s, bool) or s not in TABLE_SIZES for s in v):
        raise BadValue(f"{name}: 1 to 3 distinct seat counts among 2, 3 and 4")


@message("queue_join", "client")
class QueueJoin(Record):
    """``queue_join``: wait in the matchmaking queue of a rated game type; answered by
    ``queued``, then ``matched`` when a wave seats the player.

    Attributes:
        game: Game name (1..32 characters).
        mode: Its rated mode (1..32 characters).
        seats: The table sizes accepted, 1..3 distinct of 2, 3 and 4 (``[2, 3, 4]``: any).
        id: Request id, or None.
    """

    TYPE: ClassVar[str]
    game: str = wire_field(_GAME)
    mode: str = wire_field(_MODE)
    seats: Sequence[int] = wire_field(_sizes)
    id: RequestId | None = wire_field(_ID, default=None)


@message("queue_leave", "client")
class QueueLeave(Record):
    """``queue_leave``: leave the matchmaking queue (of one game, or of all); answered by
    ``ok``.

    Attributes:
        game: Game name (1..32 characters), or None: every queue.
        id: Request id, or None.
    """

    TYPE: ClassVar[str]
    game: str | None = wire_field(_GAME, default=None)
    id: RequestId | None = wire_field(_ID, default=None)


@message("queued", "server")
class Queued(Record):
    """``queued``: the player waits in the queue (reply to ``queue_join``).

    Attributes:
        game: Game name.
        mode: Its mode.
        seats: The table sizes accepted.
        rating: The player's shown rating for the game type.
        provisional: Whether that rating is provisional.
        waiting: Players waiting in that queue now, 0..2**31-1.
        re: ``queue_join.id``, or None.
    """

    TYPE: ClassVar[str]
    game: str = wire_field(_GAME)
    mode: str = wire_field(_MODE)
    seats: Sequence[int] = wire_field(_sizes)
    rating: int = wire_field(_RATING)
    provisional: bool = wire_field(bool_check)
    waiting: int = wire_field(int_check(0, MAX_ID))
    re: RequestId | None = wire_field(_ID, default=None)


@message("matched", "server")
class Matched(Record):
    """``matched`` (unsolicited): a wave seated the player at a rated table; it joins the
    room with ``join {room}`` (its seat is kept for it a while: ``grace_seconds``).

    Attributes:
        room: The rated room's id (1..64 characters).
        game: Game name.
        mode: Its mode.
        seats: The table's seat count, 2..4.
        bots: Seats server bots play, 0..3 (after ``--queue-bot-after``): the room's host
            starts it once the players sit (``start``).
        host: Whether this player is the room's host.
        spread: The table's rating spread (highest shown rating minus lowest).
    """

    TYPE: ClassVar[str]
    room: str = wire_field(_ROOM)
    game: str = wire_field(_GAME)
    mode: str = wire_field(_MODE)
    seats: int = wire_field(int_check(2, 4))
    bots: int = wire_field(int_check(0, 3))
    host: bool = wire_field(bool_check)
    spread: int = wire_field(int_check(0, 2**31 - 1))
