"""Chat in a room: lines and quick emotes said to every member, the room's last lines kept
for those who come later, and the seats an operator muted.

:class:`RoomChat` holds the :class:`~cardhall.server.room.Room` methods of its chat (a base
class of it, as :class:`~cardhall.server.fanout.RoomViews` is; they run inside the room
task). A line is said by a member (a seat's player, or a spectator: ``seat`` nil), checked,
numbered (``n``, from 1 per room), kept in :attr:`Room.chat` (the last
:data:`HISTORY_LINES`) and sent to every member, the speaker too, in one ``chat_lines``
frame. The kept lines and the muted seats are part of the room's stored state
(:meth:`Room.state`), so a room taken over by another process (Redis store) keeps its chat.

What this module does not do: rate limits (each connection's chat bucket, checked before a
``chat`` reaches a room: :class:`~cardhall.server.connection.Connection`) and HTML escaping
(lines are data; clients show them as text).
"""

from __future__ import annotations

import time
import unicodedata
from typing import TYPE_CHECKING, Any

from mypy_extensions import trait

from ... import protocol as p
from .parts import RoomParts

if TYPE_CHECKING:
    from .views import Peer

__all__ = ["HISTORY_LINES", "ChatRefused", "RoomChat", "clean_text"]

#: Lines a room keeps and sends after ``joined`` (late joiners, resumed seats).
HISTORY_LINES = 50

#: Characters dropped from chat text besides the control characters (Unicode category Cc):
#: the bidirectional embeddings, overrides and isolates, which could make a line read as
#: another player's words or reverse the text after it.
_BIDI = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


class ChatRefused(Exception):
    """A ``chat`` the room refuses; ``code`` is a protocol error code (``chat/muted``,
    ``room/not_seated``, ``protocol/bad_value``) and ``message`` says why."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def clean_text(text: str) -> str:
    """``text`` as a chat line shows it: line breaks and tabs made spaces, other control
    characters and bidirectional controls dropped, leading and trailing space trimmed.

    Args:
        text: The line as sent (already at most :data:`~cardhall.protocol.MAX_CHAT_LEN` code
            points: the protocol checks the length).

    Returns:
        The cleaned line; ``""`` when nothing printable was left.
    """
    out = []
    for ch in text:
        if ch in "\n\r\t":
            out.append(" ")
        elif ch in _BIDI or unicodedata.category(ch) == "Cc":
            continue
        else:
            out.append(ch)
    return "".join(out).strip()


@trait
class RoomChat(RoomParts):
    """The chat of a :class:`~cardhall.server.room.Room` (a base class of it, so that its
    state stays in one place: ``chat``, the kept lines oldest first, and ``muted``, the
    seats an operator muted)."""

    __slots__ = tuple[str, ...]()

    def say(self, conn: Peer, msg: p.Chat) -> None:
        """Say ``msg`` (a line or an emote) from member ``conn``: ``ok`` to it, then the
        line in ``chat_lines`` to every member; the line is kept (the last
        :data:`HISTORY_LINES`) and saved with the room's state soon.

        Raises:
            ChatRefused: ``room/not_seated`` (``conn`` is not in the room), ``chat/muted``
                (an operator muted its seat), ``protocol/bad_value`` (nothing printable
                left in the text).
        """
        member = self.members.get(conn)
        if member is None:
            raise ChatRefused("room/not_seated", f"you are not in room {self.id!r}")
        seat = member.seat
        if seat is not None and seat in self.muted:
            raise ChatRefused("chat/muted", "an operator muted your seat in this room")
        line: dict[str, Any] = {"n": (self.chat[-1]["n"] + 1) if self.chat else 1,
                                "seat": seat, "name": self._speaker(conn, seat),
                                "at": round(time.time(), 3)}
        if msg.emote is not None:
            line["emote"] = msg.emote
        else:
            text = clean_text(msg.text or "")
            if not text:
                raise ChatRefused("protocol/bad_value", "chat: the text has nothing to show")
            line["text"] = text
        self.chat = (*self.chat[-(HISTORY_LINES - 1):], line)
        conn.send(p.Ok(re=msg.id))
        frame = p.encode(p.ChatLines(room=self.id, lines=[line]))
        for member_conn in self.members:
            member_conn.send_raw(frame)
        self._save_soon()

    def _speaker(self, conn: Peer, seat: int | None) -> str:
        """The name a line shows: the seat's name (what the table shows), else the
        connection's hello name; cut to 64 code points, ``"?"`` when empty."""
        holder = self.seats[seat] if seat is not None else None
        name = (holder.name if holder is not None else conn.name).strip()[:64]
        return name or "?"

    def send_chat_history(self, conn: Peer) -> None:
        """Send ``conn`` the kept lines in one ``chat_lines`` with ``history`` (nothing when
        there are none): after its ``joined``, so late joiners and resumed seats see what
        was said."""
        if self.chat:
            conn.send(p.ChatLines(room=self.id, lines=list(self.chat), history=True))

    def mute(self, seat: int, on: bool) -> dict[str, Any]:
        """Mute (``on``) or unmute the player of ``seat`` (an operator's request, a work item
        of the room): its ``chat`` requests are refused with ``chat/muted`` while muted. The
        mute belongs to the seat, whoever holds it, and is saved with the room's state.

        Returns:
            ``{"seat": seat, "muted": on}``.

        Raises:
            ChatRefused: ``room/not_seated`` when ``seat`` is not a seat of this room.
        """
        if not 0 <= seat < len(self.seats):
            raise ChatRefused("room/not_seated", f"this room has seats 0..{len(self.seats) - 1}")
        muted = self.muted | {seat} if on else self.muted - {seat}
        if muted != self.muted:
            self.muted = muted
            self._save_soon()
        return {"seat": seat, "muted": on}
