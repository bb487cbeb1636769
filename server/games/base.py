"""The engine contract every game implements, so rooms, bots and tests treat games alike.

Modelled on OpenSpiel's Game/State API and boardgame.io's game object (``DESIGN.md``,
"Game engines"). An engine is pure: no I/O, no asyncio, no clocks, no global randomness.

Vocabulary:
    seat:    an ``int`` from 0 to ``seats - 1``; ``None`` means a spectator.
    action:  a tuple whose first item is a verb (``str``) followed by plain arguments (card
             codes, stack names, ints), e.g. ``("play", "5D", "D")``. Engines accept any
             sequence (msgpack decodes arrays as lists) and compare as tuples.
    event:   a dict with a ``"type"`` key describing what an action did, holding only public
             information (drawn cards are counted, never named).
    view:    a dict of what one seat (or a spectator) may see; always holds ``"state_id"``,
             ``"to_act"``, ``"over"``, ``"outcome"`` and ``"legal_actions"`` (of that seat).

Every accepted action increments ``state_id`` by one. An action that raises leaves the state
exactly as it was (checks run in boardgame.io's order: known action, game not over, this seat
may act, the rules allow it).
"""

from __future__ import annotations

import secrets
from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, ClassVar

from .options import SEED, Option, parse_options

Action = tuple[Any, ...]
Event = dict[str, Any]


class Game(ABC):
    """Abstract base class of every rule engine.

    Args:
        options: Room options by name (validated against :attr:`OPTIONS`; ``seed`` is always
            one of them: an int, or ``None`` to draw a random one, which is then stored in
            :attr:`options` so the game can be replayed).
        seats: Number of players, within ``[min_seats, max_seats]``.

    Raises:
        OptionError: an unknown option, a bad value, or a seat count the game does not allow.

    Attributes:
        name: Registry name, e.g. ``"skipper"``.
        title: Human name, e.g. ``"Skipper"``.
        min_seats / max_seats: Allowed seat counts.
        OPTIONS: The game's options (always including ``seed``).
        options: The resolved options of this game (``seed`` filled in).
        seats: Number of seats.
        state_id: Number of actions accepted so far (0 after the deal).
    """

    name: ClassVar[str] = ""
    title: ClassVar[str] = ""
    min_seats: ClassVar[int] = 1
    max_seats: ClassVar[int] = 1
    OPTIONS: ClassVar[tuple[Option, ...]] = (SEED,)
    #: Verbs that end a seat's turn, for turn timers; ``None``: every action ends one.
    TURN_END_VERBS: ClassVar[frozenset[str] | None] = None
    #: View keys whose values differ between seats; every other key has the same value in
    #: every seat's (and a spectator's) view of one state, so a room diffs those once per
    #: broadcast. ``None``: not declared, every seat's view is diffed whole.
    PER_SEAT_VIEW_KEYS: ClassVar[frozenset[str] | None] = None

    def __init__(self, options: Mapping[str, Any] | None = None, seats: int = 1) -> None:
        from .errors import OptionError

        opts = parse_options(self.OPTIONS, options)
        if opts.get("seed") is None:
            opts["seed"] = secrets.randbits(63)
        self.options: dict[str, Any] = opts
        if not isinstance(seats, int) or not self.min_seats <= seats <= self.max_seats:
            raise OptionError(
                f"{self.name} takes {self.min_seats}..{self.max_seats} seats, not {seats!r}"
            )
        self.seats = seats
        self.state_id = 0

    # -- the contract -------------------------------------------------------------------

    @abstractmethod
    def legal_actions(self, seat: int) -> list[Action]:
        """Every action ``seat`` may take now, deterministic and sorted; ``[]`` if none.

        Exact: each listed action applies, and any other raises :class:`IllegalAction`.
        """

    @abstractmethod
    def apply(self, seat: int, action: Sequence[Any]) -> list[Event]:
        """Apply ``action`` for ``seat`` and return the events it caused.

        Raises:
            UnknownAction: not an action of this game.
            GameOver: the game has ended.
            NotYourTurn: ``seat`` may not act now.
            IllegalAction: the rules forbid it (the message says why).
        """

    @abstractmethod
    def view(self, seat: int | None) -> dict[str, Any]:
        """What ``seat`` may see (``None``: a spectator), as plain msgpack-able data.

        Never holds another seat's hand, the order of any face-down pile, or the seed.
        """

    @abstractmethod
    def to_act(self) -> list[int]:
        """Seats that may act now, ascending (several in real-time modes); ``[]`` when over."""

    @property
    @abstractmethod
    def over(self) -> bool:
        """True once the game has ended."""

    @abstractmethod
    def outcome(self) -> dict[str, Any] | None:
        """``None`` while the game runs; then ``{"winner": seat or None, "reason": str,
        "scores": [one number per seat]}`` (what a score means is the game's docstring's)."""

    @abstractmethod
    def snapshot(self) -> dict[str, Any]:
        """The complete state as plain msgpack-able data (includes the RNG state)."""

    @classmethod
    @abstractmethod
    def restore(cls, data: Mapping[str, Any]) -> Game:
        """Rebuild a game from :meth:`snapshot` data.

        Raises:
            SnapshotError: ``data`` is not a snapshot of this game.
        """

    def views(self, seats: Iterable[int | None]) -> dict[int | None, dict[str, Any]]:
        """``{seat: view(seat)}`` for several seats at once (a room's broadcast). Engines
        may build the public part once and share it between the views (so the views must
        be treated as read-only).
        """
        return {seat: self.view(seat) for seat in seats}

    def bot_view(self, seat: int) -> Mapping[str, Any]:
        """The same data as ``view(seat)`` for an offline bot; engines may compute it lazily.

        ``dict(game.bot_view(seat)) == game.view(seat)`` always holds. A bot over the wire
        gets the real view; offline (``cardhall simulate``) this saves building the parts of
        the view a strategy never reads.
        """
        return self.view(seat)

    def default_action(self, seat: int) -> Action | None:
        """The action a room plays for ``seat`` when its turn timer runs out.

        ``None`` when the seat has nothing to do. The base version returns the first legal
        action; games override it with their documented default.
        """
        legal = self.legal_actions(seat)
        return legal[0] if legal else None

    def stats(self) -> dict[str, Any]:
        """Game-specific public counters for reports (e.g. ``turns``); ``{}`` by default."""
        return {}

    def forfeit(self, seat: int) -> list[Event]:
        """Take ``seat`` out of the game (it abandoned its seat); returns events.

        Raises:
            GameOver: the game has already ended.
            IllegalAction: this game has no forfeits (the base version; solo games end as a
                loss instead, which engines that support it implement).
        """
        from .errors import IllegalAction

        raise IllegalAction(f"{self.name} has no forfeit")

    def card_locations(self) -> dict[str, list[int]]:
        """Every card of the game by zone name (for tests of card conservation).

        Zone names are game-defined (e.g. ``"hand:0"``, ``"stock:1"``); each card of the
        game must appear in exactly one zone. Not part of any view.
        """
        raise NotImplementedError


class SoloGame(Game):
    """A one-seat game: seat 0 acts until the game is over (Shop, The Shah, Thirty-Six,
    ShuffleJack). Subclasses define :attr:`over` and the rest of the contract."""

    def to_act(self) -> list[int]:
        """``[0]`` while the game runs, ``[]`` once it is over."""
        return [] if self.over else [0]


def replay(cls: type[Game], options: Mapping[str, Any], seats: int,
           log: Iterable[tuple[int, Sequence[Any]]]) -> Game:
    """Rebuild a game from its options (with ``seed``), seat count and action log.

    Args:
        cls: The engine class.
        options: The resolved options, as in :attr:`Game.options`.
        seats: Seat count.
        log: ``(seat, action)`` pairs in the order they were accepted.

    Raises:
        GameError: an action of the log does not apply (the log is not of this game).
    """
    game = cls(options, seats)
    for seat, action in log:
        game.apply(seat, action)
    return game
