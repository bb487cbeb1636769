"""The one-seat kinds of engine: :class:`SoloGame` (seat 0 acts until the game is over, a
quit verb at every point) and its two kinds, :class:`SettlingSoloGame` (Shop Solitaire, The
Shah) and :class:`VersionedSoloGame` (Thirty-Six, ShuffleJack). The contract they implement
is :class:`cardhall.games.base.Game`.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, ClassVar

from .base import STANDARD, Action, Event, Game, GameType, Ranking, counts_unless_given_up
from .errors import GameOver, IllegalAction, NotYourTurn, SnapshotError, UnknownAction
from .options import parse_options
from .rng import GameRNG


#: The :class:`GameType` of a one-seat game ranked by its points (Thirty-Six, ShuffleJack):
#: one leaderboard (server/leaderboard.py), most points first; a game ended by the rules
#: counts, a resignation or a forfeit does not.
POINTS_GAME = GameType(rankings=(Ranking(STANDARD, "desc", "points", counts_unless_given_up),))


class SoloGame(Game):
    """A one-seat game: seat 0 acts until the game is over (Shop, The Shah, Thirty-Six,
    ShuffleJack).

    A solo game lists its moves in :meth:`_moves`; :meth:`legal_actions` adds the quit verb
    (:attr:`QUIT_VERB`, a loss), which is legal at every point of a running game and always
    listed last. Its snapshots are the header (:meth:`Game.snapshot`), ``rng``, the keys of
    its kind (:meth:`_snapshot_kind`, :meth:`_restore_kind`), then the game's own state
    (:meth:`_snapshot_table`, :meth:`_restore_table`). Engines derive from one of its two
    kinds, which define :meth:`apply`: :class:`SettlingSoloGame` (also :attr:`over`,
    :meth:`outcome` and :meth:`forfeit`) or :class:`CheckedSoloGame`.

    Attributes:
        rng: The game's :class:`GameRNG`.
    """

    min_seats: ClassVar[int] = 1
    max_seats: ClassVar[int] = 1
    #: The verb that abandons the game (a loss); offered last while the game runs.
    QUIT_VERB: ClassVar[str] = "resign"

    rng: GameRNG

    def to_act(self) -> list[int]:
        """``[0]`` while the game runs, ``[]`` once it is over."""
        return [] if self.over else [0]

    def forfeit(self, seat: object) -> list[Event]:
        """Take the player out because they left their seat: the game ends as a loss, the
        quit verb (:attr:`QUIT_VERB`) played for them (:class:`SettlingSoloGame` records
        the reason "forfeited" instead). Replays the same way from a log entry.

        Returns:
            The events of the quit.

        Raises:
            GameOver: the game has already ended.
            NotYourTurn: ``seat`` is not 0.
        """
        self._check_turn(seat)
        return self.apply(0, (self.QUIT_VERB,))  # (seat is 0: checked)

    def _check_turn(self, seat: object) -> None:
        """Raise GameOver once the game has ended, NotYourTurn for any seat but 0 (an int:
        ``False`` is not a seat).

        A solo game's methods take ``seat: object``, checked here: a compiled build would
        turn ``False`` into ``0`` at a parameter typed ``int``, before any check."""
        if self.over:
            raise GameOver("the game is over")
        if not self._is_player(seat):
            raise NotYourTurn(f"seat {seat!r} does not play {self.title} (solo: seat 0)")

    @staticmethod
    def _is_player(seat: Any) -> bool:
        """Whether ``seat`` is the player's seat: the int 0 (not ``False``, not ``0.0``)."""
        return type(seat) is int and seat == 0

    @classmethod
    def _verb(cls, action: Any, known: Iterable[str]) -> str:
        """The verb of ``action`` after checking that it is a non-empty sequence whose first
        item is one of ``known``.

        Raises:
            UnknownAction: not a non-empty sequence (a str is not one), or an unknown verb.
        """
        if isinstance(action, (str, bytes)) or not isinstance(action, Sequence) or not action:
            raise UnknownAction(f"not an action: {action!r}")
        verb = action[0]
        if not isinstance(verb, str) or verb not in known:
            raise UnknownAction(f"unknown verb {verb!r}; {cls.title} knows "
                                f"{', '.join(sorted(known))}")
        return verb

    def legal_actions(self, seat: object) -> list[Action]:
        """Every action ``seat`` may take now, in a fixed order; ``[]`` if none.

        Returns:
            ``[]`` once the game is over and for any seat but 0; otherwise :meth:`_moves`
            followed by ``(QUIT_VERB,)``. Exact: each listed action applies and any other
            raises :class:`IllegalAction`.
        """
        if self.over or not self._is_player(seat):
            return []
        return self._moves() + [(self.QUIT_VERB,)]

    @abstractmethod
    def _moves(self) -> list[Action]:
        """Every legal action of seat 0 except the quit verb, in a fixed order (called only
        while the game runs)."""

    @abstractmethod
    def _snapshot_table(self) -> dict[str, Any]:
        """The game's own state for :meth:`snapshot`, after the common keys (plain data:
        lists, no tuples)."""

    @abstractmethod
    def _restore_table(self, data: Mapping[str, Any]) -> None:
        """Set the game's own state from :meth:`snapshot` data (the common keys are set).

        Raises:
            SnapshotError, KeyError, TypeError, ValueError, AttributeError: a missing or
                malformed field (:meth:`restore` reports the others as :class:`SnapshotError`).
        """

    def _snapshot_state(self) -> dict[str, Any]:
        """After the header (:meth:`Game.snapshot`): ``rng``, the keys of the engine's kind
        (:meth:`_snapshot_kind`), then the game's own table (:meth:`_snapshot_table`)."""
        return {"rng": self.rng.snapshot(), **self._snapshot_kind(), **self._snapshot_table()}

    def _restore_state(self, data: Mapping[str, Any]) -> None:
        """Set the kind's state (:meth:`_restore_kind`), the RNG and the table.

        Raises:
            SnapshotError: the seat count is not 1, or the table is not a possible one
                (:meth:`_consistent`); others as :meth:`Game._restore_state` says.
        """
        if self.seats != 1:
            raise SnapshotError(f"{self.name} has one seat, not {self.seats}")
        self._restore_kind(data)
        self.rng = GameRNG.restore(data["rng"])
        self._restore_table(data)
        if not self._consistent():
            raise SnapshotError(f"bad {self.name} snapshot: inconsistent table")

    @abstractmethod
    def _snapshot_kind(self) -> dict[str, Any]:
        """The snapshot keys of the engine's kind (after ``rng``, before the table)."""

    @abstractmethod
    def _restore_kind(self, data: Mapping[str, Any]) -> None:
        """Set the state of the engine's kind from :meth:`snapshot` data, before ``rng`` and
        the table (the header's options and seats are set).

        Raises:
            KeyError, TypeError, ValueError, OptionError: a wrong or malformed field
                (:meth:`restore` reports them all as :class:`SnapshotError`).
        """

    def _consistent(self) -> bool:
        """Whether a restored state is a possible table (True unless the game checks)."""
        return True

    def _contract_view(self, seat: int | None) -> dict[str, Any]:
        """The keys every view starts with: ``game`` (:attr:`name`), ``state_id``,
        ``to_act``, ``over``, ``outcome`` and ``legal_actions`` (of ``seat``, as lists;
        ``[]`` for a spectator, ``None``)."""
        return {
            "game": self.name,
            "state_id": self.state_id,
            "to_act": self.to_act(),
            "over": self.over,
            "outcome": self.outcome(),
            "legal_actions": ([list(a) for a in self.legal_actions(seat)]
                              if seat is not None else []),
        }


class SettlingSoloGame(SoloGame):
    """A solo game that records its outcome once, accepts exactly the actions it lists and
    settles after every action (makes the forced moves, checks the end): Shop Solitaire and
    The Shah.

    :meth:`apply` checks in boardgame.io's order (the action's shape against :attr:`VERBS`,
    game over, seat 0, the legal list, explained by :meth:`_why_illegal`), then runs
    :meth:`_do` and :meth:`_settle`. A snapshot is the header, ``rng``, ``phase``,
    ``outcome``, ``counters`` and the game's own table (:meth:`_snapshot_table`). The game
    has a ``max_moves`` option (the room's move limit).

    Attributes:
        rng: The game's :class:`GameRNG`.
        phase: The state machine's phase; ``"over"`` once the game has ended.
        counters: Game-specific counters by name (ints), for :meth:`stats`; ``"forced"``
            counts the moves :meth:`_settle` made.
    """

    #: Argument kinds of every verb, in order: ``"int"`` is an index (an int, not a bool);
    #: any other kind is checked by :meth:`_check_arg`.
    VERBS: ClassVar[Mapping[str, tuple[str, ...]]] = {}
    #: Verbs the engine plays by itself when one of them is the only move besides quitting
    #: (a forced move is no decision).
    FORCED_VERBS: ClassVar[frozenset[str]] = frozenset()
    #: The outcome's ``reason`` when no move is left.
    NO_MOVE_REASON: ClassVar[str] = "no move left"

    rng: GameRNG
    phase: str
    counters: dict[str, int]
    #: ``None`` while the game runs; then the outcome, set once by :meth:`_finish`.
    _outcome: dict[str, Any] | None

    @property
    def over(self) -> bool:
        """True once the game has ended (an outcome is recorded)."""
        return self._outcome is not None

    def outcome(self) -> dict[str, Any] | None:
        """``None`` while running; then a copy of ``{"winner": 0 or None, "reason": str,
        "scores": [score]}`` (what wins and what the score counts: the game's docstring)."""
        return None if self._outcome is None else dict(self._outcome)

    def apply(self, seat: object, action: Sequence[Any]) -> list[Event]:
        """Apply ``action`` for ``seat``, then make every forced move that follows.

        Returns:
            Events (dicts with a ``"type"``), including those of the forced moves; the last
            is ``{"type": "over", ...outcome}`` when the game ended.

        Raises:
            UnknownAction: not an action of this game (verb, shape or argument).
            GameOver: the game has ended.
            NotYourTurn: ``seat`` is not 0.
            IllegalAction: the rules forbid it now (the message says which rule).
        """
        act = self._normalize(action)
        self._check_turn(seat)
        if act not in self.legal_actions(0):
            raise IllegalAction(self._why_illegal(act))
        events = self._do(act)
        self.state_id += 1
        self._settle(events)
        return events

    def forfeit(self, seat: object) -> list[Event]:
        """End the game as a loss because the player left their seat (reason "forfeited").

        Returns:
            ``[{"type": "over", ...outcome}]``.

        Raises:
            GameOver: the game has already ended.
            NotYourTurn: ``seat`` is not 0.
        """
        self._check_turn(seat)
        self._finish(None, "forfeited")
        self.state_id += 1
        return [{"type": "over", **(self._outcome or {})}]

    def _settle(self, events: list[Event]) -> None:
        """After an action: check the win, make the forced moves, end the game when no move
        is left or at the move limit; append their events to ``events``, and the ``over``
        event once the game has ended.

        Args:
            events: The events of the action so far; extended in place.
        """
        while self._outcome is None:
            won = self._win_reason()
            if won is not None:
                self._finish(0, won)
                break
            moves = self._moves()
            if not moves:
                self._finish(None, self.NO_MOVE_REASON)
                break
            if len(moves) == 1 and moves[0][0] in self.FORCED_VERBS:
                self.counters["forced"] += 1
                events.extend(self._do(moves[0]))
                continue
            break
        if self._outcome is None and self.state_id >= self.options["max_moves"]:
            self._finish(None, "move limit")
            events.extend(self._move_limit_events())
        if self._outcome is not None:
            events.append({"type": "over", **self._outcome})

    def _move_limit_events(self) -> list[Event]:
        """Events that announce the move limit before the ``over`` event; none by default."""
        return []

    @classmethod
    def _normalize(cls, action: Sequence[Any]) -> Action:
        """Check an action's shape against :attr:`VERBS` and return it as a tuple.

        Raises:
            UnknownAction: not a sequence, an unknown verb, wrong arity, an index that is not
                an int, or an argument :meth:`_check_arg` rejects.
        """
        verb = cls._verb(action, cls.VERBS)
        kinds = cls.VERBS[verb]
        if len(action) != 1 + len(kinds):
            raise UnknownAction(f"{verb!r} takes {len(kinds)} argument(s), "
                                f"got {len(action) - 1}")
        for arg, kind in zip(action[1:], kinds):
            if kind != "int":
                cls._check_arg(kind, arg)
            elif isinstance(arg, bool) or not isinstance(arg, int):
                raise UnknownAction(f"{verb!r} needs an integer index, not {arg!r}")
        return tuple(action)

    def _snapshot_kind(self) -> dict[str, Any]:
        """``phase``, ``outcome`` and ``counters``."""
        return {
            "phase": self.phase,
            "outcome": None if self._outcome is None else dict(self._outcome),
            "counters": dict(self.counters),
        }

    def _restore_kind(self, data: Mapping[str, Any]) -> None:
        """Set ``phase``, the outcome and counters (options and seats as recorded)."""
        self.phase = str(data["phase"])
        self._outcome = None if data["outcome"] is None else dict(data["outcome"])
        self.counters = {str(k): int(v) for k, v in data["counters"].items()}

    # -- what each game supplies --------------------------------------------------------

    @staticmethod
    @abstractmethod
    def _check_arg(kind: str, arg: Any) -> None:
        """Check an action argument of ``kind`` (a kind of :attr:`VERBS` other than ``"int"``).

        Raises:
            UnknownAction: ``arg`` is not of that kind (the message says why).
        """

    @abstractmethod
    def _why_illegal(self, act: Action) -> str:
        """A human reason why a well-formed ``act`` is not legal now (names the rule)."""

    @abstractmethod
    def _do(self, act: Action) -> list[Event]:
        """Carry out a legal action; returns its events."""

    @abstractmethod
    def _win_reason(self) -> str | None:
        """The outcome's ``reason`` if the game is won now (``winner`` 0), else ``None``."""

    @abstractmethod
    def _finish(self, winner: int | None, reason: str) -> None:
        """End the game: set ``phase`` to ``"over"`` and record :attr:`_outcome`."""

    @abstractmethod
    def _consistent(self) -> bool:
        """Whether a restored state is a possible table (the phase is known, sizes fit)."""


class CheckedSoloGame(SoloGame):
    """A solo game that checks each action by hand before it changes anything, and whose
    snapshots' options are validated again on restore: Thirty-Six and ShuffleJack.

    :meth:`apply` checks the verb (:attr:`VERBS`) and its arguments (:meth:`_parse_args`),
    then game over and seat 0, and leaves the rest to :meth:`_act`. A snapshot is the header
    (:meth:`Game.snapshot`), ``rng``, then the game's own state (:meth:`_snapshot_table`).

    Attributes:
        rng: The game's :class:`GameRNG`.
    """

    #: The verbs of the game.
    VERBS: ClassVar[frozenset[str]] = frozenset()
    rng: GameRNG

    def apply(self, seat: object, action: Sequence[Any]) -> list[Event]:
        """Apply one action of seat 0 (checked in full before anything changes).

        Args:
            seat: Must be 0 (an int: ``False`` is not a seat).
            action: ``(verb, args...)``, as the game's module docstring lists them.

        Returns:
            Public events (dicts with a ``"type"``; the game's :meth:`_act` names them).

        Raises:
            UnknownAction: not a non-empty sequence, an unknown verb, or arguments of the wrong
                shape (:meth:`_parse_args`).
            GameOver: the game has ended.
            NotYourTurn: ``seat`` is not 0.
            IllegalAction: the rules forbid it now (:meth:`_act` says which).
        """
        verb = self._verb(action, self.VERBS)
        args = self._parse_args(verb, list(action[1:]))
        self._check_turn(seat)
        events = self._act(verb, args)
        self.state_id += 1
        return events

    def _snapshot_kind(self) -> dict[str, Any]:
        """Nothing besides the header and ``rng``."""
        return {}

    def _restore_kind(self, data: Mapping[str, Any]) -> None:
        """Validate the snapshot's options again.

        Raises:
            OptionError: options this game does not take (:meth:`restore` reports it as a
                SnapshotError).
        """
        self.options = parse_options(self.OPTIONS, data["options"])

    # -- what each game supplies --------------------------------------------------------

    @abstractmethod
    def _parse_args(self, verb: str, args: list[Any]) -> list[Any]:
        """The arguments of a ``verb`` action, checked and converted (e.g. card codes to
        ints).

        Raises:
            UnknownAction: wrong arity or an argument of the wrong type.
        """

    @abstractmethod
    def _act(self, verb: str, args: list[Any]) -> list[Event]:
        """Check a well-formed action of seat 0 against the rules, then carry it out (nothing
        changes when it raises); returns its events.

        Raises:
            IllegalAction: the rules forbid it now (the message says why).
        """

