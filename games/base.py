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
from typing import Any, ClassVar, Self

from .errors import GameOver, IllegalAction, NotYourTurn, OptionError, SnapshotError, UnknownAction
from .options import SEED, Option, parse_options
from .rng import GameRNG

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

    @classmethod
    def modes(cls) -> tuple[str, ...]:
        """The values of the game's ``mode`` option, its default first; ``()`` for a game
        without modes."""
        option = next((o for o in cls.OPTIONS if o.name == "mode"), None)
        if option is None:
            return ()
        choices = tuple(option.choices or ())
        return (option.default, *(c for c in choices if c != option.default))

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

    def deltas(self, seats: Iterable[int | None]) -> Mapping[int | None, dict[str, Any]] | None:
        """What changed in the views of ``seats`` since the state before this one, reported
        by the engine rather than found by diffing whole views (a room asks for it once per
        broadcast, for every member's seat; ``None`` is a spectator).

        The engine compares against the view parts it saw when this was last called, so
        it can tell only when that call was made at ``state_id - 1``; every call records
        the current state for the next one.

        Returns:
            A mapping ``seat -> delta`` in the format of :mod:`cardhall.protocol.delta`
            (top-level keys replaced whole, JSON Pointers into the view): applying ``delta``
            to a copy of ``view(seat)`` as it was at ``state_id - 1`` gives ``view(seat)``
            now. Seats whose deltas are equal may share one dict object (callers must not
            mutate them). An engine may compute a seat's delta when it is first read (a room
            reads the acting seat's first and writes its update before it reads the others),
            so read them before the engine's state changes again. None when the engine
            cannot tell: it does not report deltas, or was not asked at the state before
            (the caller then builds views and diffs them). This default: always None.
        """
        return None

    def bot_view(self, seat: int) -> Mapping[str, Any]:
        """The same data as ``view(seat)`` for an offline bot; engines may compute it lazily.

        ``dict(game.bot_view(seat)) == game.view(seat)`` always holds. A bot over the wire
        gets the real view; offline (``cardhall simulate``) this saves building the parts of
        the view a strategy never reads.
        """
        return self.view(seat)

    @property
    def bidding(self) -> bool:
        """True while the seats to act are bidding rather than taking a turn: a room then
        times them with its ``bid_seconds`` instead of ``turn_seconds``. False in games
        without bids."""
        return False

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
            IllegalAction: this game has no forfeits (the base version; every solo game ends
                as a loss instead: :meth:`SoloGame.forfeit`).
        """
        raise IllegalAction(f"{self.name} has no forfeit")

    def card_locations(self) -> dict[str, list[int]]:
        """Every card of the game by zone name (for tests of card conservation).

        Zone names are game-defined (e.g. ``"hand:0"``, ``"stock:1"``); each card of the
        game must appear in exactly one zone. Not part of any view.
        """
        raise NotImplementedError


class SoloGame(Game):
    """A one-seat game: seat 0 acts until the game is over (Shop, The Shah, Thirty-Six,
    ShuffleJack).

    A solo game lists its moves in :meth:`_moves`; :meth:`legal_actions` adds the quit verb
    (:attr:`QUIT_VERB`, a loss), which is legal at every point of a running game and always
    listed last. Its snapshots end with the game's own state (:meth:`_snapshot_table`,
    :meth:`_restore_table`); :meth:`snapshot` and :meth:`restore` are shared, each kind adding
    its own keys (:meth:`_snapshot_kind`, :meth:`_restore_kind`). Engines derive from one of
    its two kinds, which define :meth:`apply`: :class:`SettlingSoloGame` (also :attr:`over`,
    :meth:`outcome` and :meth:`forfeit`) or :class:`VersionedSoloGame`.

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

    def forfeit(self, seat: int) -> list[Event]:
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
        return self.apply(seat, (self.QUIT_VERB,))

    def _check_turn(self, seat: int) -> None:
        """Raise GameOver once the game has ended, NotYourTurn for any seat but 0 (an int:
        ``False`` is not a seat)."""
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

    def legal_actions(self, seat: int) -> list[Action]:
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

    def snapshot(self) -> dict[str, Any]:
        """The complete state as plain msgpack-able data (lists, never tuples): ``game``,
        ``options``, ``seats``, ``state_id``, ``rng``, the keys of the engine's kind
        (:meth:`_snapshot_kind`), then the game's own table (:meth:`_snapshot_table`)."""
        return {
            "game": self.name,
            "options": {k: (list(v) if isinstance(v, (list, tuple)) else v)
                        for k, v in self.options.items()},
            "seats": self.seats,
            "state_id": self.state_id,
            "rng": self.rng.snapshot(),
            **self._snapshot_kind(),
            **self._snapshot_table(),
        }

    @classmethod
    def restore(cls, data: Mapping[str, Any]) -> Self:
        """Rebuild a game from :meth:`snapshot` data.

        Raises:
            SnapshotError: ``data`` is not a snapshot of this game: wrong game tag (or
                version), options it does not take, a missing or malformed field, or a table
                :meth:`_consistent` rejects.
        """
        try:
            if data["game"] != cls.name:
                raise SnapshotError(f"not a {cls.name} snapshot: {data['game']!r}")
            game = cls.__new__(cls)
            game._restore_kind(data)
            game.state_id = int(data["state_id"])
            game.rng = GameRNG.restore(data["rng"])
            game._restore_table(data)
        except SnapshotError:
            raise
        except (KeyError, TypeError, ValueError, IndexError, AttributeError,
                OptionError) as exc:
            raise SnapshotError(f"bad {cls.name} snapshot: {exc!r}") from None
        if not game._consistent():
            raise SnapshotError(f"bad {cls.name} snapshot: inconsistent table")
        return game

    @abstractmethod
    def _snapshot_kind(self) -> dict[str, Any]:
        """The snapshot keys of the engine's kind (after ``rng``, before the table)."""

    @abstractmethod
    def _restore_kind(self, data: Mapping[str, Any]) -> None:
        """Set the state of the engine's kind (options and seats included) from
        :meth:`snapshot` data, before ``state_id``, ``rng`` and the table.

        Raises:
            SnapshotError, KeyError, TypeError, ValueError, OptionError: a wrong or malformed
                field (:meth:`restore` reports them all as :class:`SnapshotError`).
        """

    def _consistent(self) -> bool:
        """Whether a restored state is a possible table (True unless the game checks)."""
        return True

    def _contract_view(self, seat: int | None) -> dict[str, Any]:
        """The keys every view starts with: ``state_id``, ``to_act``, ``over``, ``outcome``
        and ``legal_actions`` (of ``seat``, as lists; ``[]`` for a spectator, ``None``)."""
        return {
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
    :meth:`_do` and :meth:`_settle`. A snapshot is ``game``, ``options``, ``seats``,
    ``state_id``, ``rng``, ``phase``, the game's own table (:meth:`_snapshot_table`),
    ``outcome`` and ``counters``. The game has a ``max_moves`` option (the room's move
    limit).

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

    def apply(self, seat: int, action: Sequence[Any]) -> list[Event]:
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

    def forfeit(self, seat: int) -> list[Event]:
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
        """Set options and seats as recorded, then ``phase``, the outcome and counters."""
        self.options = dict(data["options"])
        self.seats = int(data["seats"])
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


class VersionedSoloGame(SoloGame):
    """A solo game that checks each action by hand before it changes anything, and keeps
    versioned snapshots whose options are validated again on restore: Thirty-Six and
    ShuffleJack.

    :meth:`apply` checks the verb (:attr:`VERBS`) and its arguments (:meth:`_parse_args`),
    then game over and seat 0, and leaves the rest to :meth:`_act`. A snapshot is ``game``,
    ``version`` (:attr:`SNAPSHOT_VERSION`), ``options``, ``seats``, ``state_id``, ``rng``,
    then the game's own state (:meth:`_snapshot_table`).

    Attributes:
        rng: The game's :class:`GameRNG`.
    """

    #: The verbs of the game.
    VERBS: ClassVar[frozenset[str]] = frozenset()
    #: The ``version`` of this game's snapshots; :meth:`restore` accepts only this one.
    SNAPSHOT_VERSION: ClassVar[int] = 1

    rng: GameRNG

    def apply(self, seat: int, action: Sequence[Any]) -> list[Event]:
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
        """``version``: :attr:`SNAPSHOT_VERSION`."""
        return {"version": self.SNAPSHOT_VERSION}

    def _restore_kind(self, data: Mapping[str, Any]) -> None:
        """Check the snapshot's ``version``, then validate its options again.

        Raises:
            SnapshotError: another version.
            OptionError: options this game does not take (:meth:`restore` reports it as a
                SnapshotError).
        """
        if data["version"] != self.SNAPSHOT_VERSION:
            raise SnapshotError(f"not a {self.name} snapshot: version {data['version']!r}")
        Game.__init__(self, data["options"], data["seats"])

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


#: The kinds of game outcome (:func:`outcome_kind`): a bounded set for metric labels and
#: summaries, where the engines' ``reason`` words are many (Thirty-Six's name the points).
OUTCOMES = ("won", "lost", "limit", "abandoned")


def outcome_kind(outcome: Mapping[str, Any] | None) -> str:
    """Sort an engine's outcome into one of :data:`OUTCOMES` (a bounded metric label).

    Args:
        outcome: :meth:`Game.outcome` of a finished game (``winner``: a seat or None;
            ``reason``: the engine's words). None counts as ``abandoned``.

    Returns:
        ``won`` when a seat won; ``limit`` when a turn or move limit ended the game
        (Skipper ``turn_limit``, solitaires ``move limit``); ``abandoned`` when every seat
        resigned, forfeited or left (``resigned...``, ``forfeited``, Skipper ``all_out``);
        ``lost`` otherwise (no move left, unwinnable, a failed round, too few points).
    """
    if outcome is None:
        return "abandoned"
    if outcome.get("winner") is not None:
        return "won"
    reason = str(outcome.get("reason") or "")
    if "limit" in reason:
        return "limit"
    if reason.startswith(("resign", "forfeit")) or reason == "all_out":
        return "abandoned"
    return "lost"
