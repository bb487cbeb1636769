"""Errors raised by the rule engines.

Exception tree (every class carries a namespaced ``code`` that the server sends to clients)::

    GameError                    "game/error"
    ├── OptionError              "options/invalid"    bad option name, type or value
    ├── SnapshotError            "game/bad_snapshot"  restore() got data it cannot use
    └── IllegalAction            "action/illegal"     the rules forbid this action now
        ├── UnknownAction        "action/unknown"     not an action of this game at all
        ├── GameOver             "action/game_over"   the game has ended
        └── NotYourTurn          "action/not_your_turn"  this seat may not act now

An engine raises these before changing any state: an action that raises leaves the game
exactly as it was.
"""

from __future__ import annotations

from typing import ClassVar


class GameError(Exception):
    """Base class of every engine error.

    Attributes:
        code: Namespaced machine-readable error code, e.g. ``"action/illegal"``.
        message: Human-readable explanation (also ``str(err)``).
    """

    code: ClassVar[str] = "game/error"  # a class attribute (compiled too: ClassVar)

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class OptionError(GameError):
    """A game option has an unknown name, a wrong type or an out-of-range value."""

    code = "options/invalid"


class SnapshotError(GameError):
    """``restore()`` was given data that is not a snapshot of this game."""

    code = "game/bad_snapshot"


class IllegalAction(GameError):
    """The action is well formed but the rules forbid it in the current state.

    The message names the reason, e.g. ``"5D cannot go on the S stack: it needs 2..."``.
    """

    code = "action/illegal"


class UnknownAction(IllegalAction):
    """The action is not an action of this game (wrong verb, shape or card code)."""

    code = "action/unknown"


class GameOver(IllegalAction):
    """The game has ended; no action applies any more."""

    code = "action/game_over"


class NotYourTurn(IllegalAction):
    """The seat may not act now (another seat's turn, or not bidding in this auction)."""

    code = "action/not_your_turn"
