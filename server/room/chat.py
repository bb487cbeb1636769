"""Chat in a room: lines and quick emotes said to every member, the room's last lines kept
for those who come later, and the seats an operator muted.

Plain functions over the room's chat state (:class:`~.table.Table` holds it and calls
them). A line is said by a member (a seat's player, or a spectator: ``seat`` nil), checked,
numbered (``n``, from 1 per room) (:func:`line`), kept in ``Table.chat`` (the last
:data:`HISTORY_LINES`) and sent to every member, the speaker too, in one ``chat_lines``
frame. The kept lines and the muted seats (:func:`muting`) are part of the room's stored
state (``Table.state``), so a room taken over by another process keeps its chat.

What this module does not do: rate limits (each connection's chat bucket, checked before a
``chat`` reaches a room: :class:`~cardhall.server.connection.Connection`) and HTML escaping
(lines are data; clients show them as text).
"""

from __future__ import annotations

import time
import unicodedata
from typing import Any

from ... import protocol as p

__all__ = ["HISTORY_LINES", "ChatRefused", "clean_text", "line", "muting"]

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


def line(kept: tuple[dict[str, Any], ...], muted: frozenset[int], member: bool,
         seat: int | None, name: str, msg: p.Chat, room: str) -> dict[str, Any]:
    """The chat line ``msg`` (a line or an emote) makes, said by a member (``member``: the
    speaker is in the room) of ``seat`` (None: a spectator) called ``name`` (its seat's
    name, else its hello name: cut to 64 code points, ``"?"`` when empty), numbered after
    the ``kept`` lines (``n`` from 1), stamped with the time (unix s, ms precision).

    Raises:
        ChatRefused: ``room/not_seated`` (not a member of ``room``), ``chat/muted`` (an
            operator muted its seat), ``protocol/bad_value`` (nothing printable left).
    """
    if not member:
        raise ChatRefused("room/not_seated", f"you are not in room {room!r}")
    if seat is not None and seat in muted:
        raise ChatRefused("chat/muted", "an operator muted your seat in this room")
    said: dict[str, Any] = {"n": (kept[-1]["n"] + 1) if kept else 1, "seat": seat,
                            "name": name.strip()[:64] or "?", "at": round(time.time(), 3)}
    if msg.emote is not None:
        said["emote"] = msg.emote
    else:
        text = clean_text(msg.text or "")
        if not text:
            raise ChatRefused("protocol/bad_value", "chat: the text has nothing to show")
        said["text"] = text
    return said


def muting(muted: frozenset[int], seats: int, seat: int,
           on: bool) -> tuple[frozenset[int], bool]:
    """The muted seats after an operator mutes (``on``) or unmutes ``seat`` of a room of
    ``seats`` seats (the mute belongs to the seat, whoever holds it), and whether that
    changed anything.

    Raises:
        ChatRefused: ``room/not_seated`` when ``seat`` is not a seat of the room.
    """
    if not 0 <= seat < seats:
        raise ChatRefused("room/not_seated", f"this room has seats 0..{seats - 1}")
    after = muted | {seat} if on else muted - {seat}
    return after, after != muted
