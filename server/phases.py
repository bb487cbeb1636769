"""A room's phase and its refusals, below every module that reads them (the stores, the
history, the lobby): the rules that move a room from phase to phase are
:mod:`cardhall.server.room.rules`'.

The stored form of a phase, in the store's state and summary, the snapshots and on the
wire, is the string ``"waiting"``, ``"playing"`` or ``"finished"``; :meth:`Phase.parse` and
:attr:`Phase.stored` read and print it, here alone.
"""

from __future__ import annotations

import enum
from typing import Any


class RoomError(Exception):
    """A request the room refuses; ``code`` is a protocol error code (protocol/README.md)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class TransitionError(RoomError):
    """An event the room's phase does not allow (:data:`TRANSITIONS`); ``code`` is the
    protocol error code the room answers with (e.g. ``room/already_started``)."""


class Phase(enum.Enum):
    """A room's phase. The value is its stored form (``Closed`` is never stored: a closed
    copy keeps printing the phase it was closed in: ``Room.game_phase``)."""

    WAITING = "waiting"
    PLAYING = "playing"
    FINISHED = "finished"
    CLOSED = "closed"

    @classmethod
    def parse(cls, text: Any) -> Phase:
        """The phase of a stored status (``"waiting"``, ``"playing"``, ``"finished"``).

        Raises:
            ValueError: ``text`` is no stored status.
        """
        phase = _STORED.get(text) if isinstance(text, str) else None
        if phase is None:
            raise ValueError(f"no stored room status: {text!r}")
        return phase

    @property
    def stored(self) -> str:
        """The stored form (``"waiting"``...).

        Raises:
            ValueError: for :attr:`CLOSED`, which is never stored.
        """
        if self is Phase.CLOSED:
            raise ValueError("a closed room's phase is not stored")
        return str(self.value)


_STORED = {p.value: p for p in Phase if p is not Phase.CLOSED}


def is_phase(status: Any, phase: Phase) -> bool:
    """True when the stored status ``status`` (of a store summary or a view's room facts)
    is ``phase``; False for anything else, junk included."""
    return _STORED.get(status) is phase if isinstance(status, str) else False
