"""The engine contract every game implements, so rooms, bots and tests treat games alike.

Modelled on OpenSpiel's Game/State API (``clone``, ``resample_from_infostate``, a declared
``GameType``) and boardgame.io's game object (moves and ``playerView``), as the project's
design notes ("Game engines") ask. An engine is pure: no I/O, no asyncio, no clocks, no
global randomness.

Vocabulary:
    seat:    an ``int`` from 0 to ``seats - 1``; ``None`` means a spectator.
    action:  a tuple whose first item is a verb (``str``) followed by plain arguments (card
             codes, stack names, ints), e.g. ``("play", "5D", "D")``. Engines accept any
             sequence (msgpack decodes arrays as lists) and compare as tuples.
    setting: a seat's own preference, ``(name, value)`` with a name the game's
             :class:`GameType` declares (Skipper's ``("auto_trash", "off")``, RULINGS K6m).
             No move: it never changes ``state_id``, and only the seat itself sets it.
    event:   a dict with a ``"type"`` key describing what an action did, holding only public
             information (drawn cards are counted, never named).
    view:    a dict of what one seat (or a spectator) may see; always holds ``"game"``,
             ``"state_id"``, ``"to_act"``, ``"over"``, ``"outcome"`` and ``"legal_actions"``
             (of that seat).
    log:     the :class:`LogEntry` list that rebuilds a game from its options
             (:func:`replay`): the room stores it, ``cardhall verify`` and tools read it.

Every accepted action (and forfeit) increments ``state_id`` by one; a setting does not. An
action that raises leaves the state exactly as it was (checks run in boardgame.io's order:
known action, game not over, this seat may act, the rules allow it).

The one-seat kinds of engine (:class:`~cardhall.games.solo.SoloGame` and its two kinds) are
in ``games/solo.py``.
"""

from __future__ import annotations

import secrets
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Final, NamedTuple, Self

from .errors import GameOver, IllegalAction, NotYourTurn, OptionError, SnapshotError, UnknownAction
from .options import SEED, Option, parse_options

Action = tuple[Any, ...]
Event = dict[str, Any]

#: The ``mode`` of a game's one leaderboard when the game has no ``mode`` option.
STANDARD: Final = "standard"


@dataclass(frozen=True, slots=True)
class Setting:
    """One preference a seat sets for itself (see the module docstring, "setting").

    Attributes:
        name: The setting's name, e.g. ``"auto_trash"``; on the wire the verb of an ``act``.
        choices: Its values (strings), e.g. ``("on", "off")``.
        doc: One line saying what it does, with the rule it reads (e.g. RULINGS K6m).
    """

    name: str
    choices: tuple[str, ...]
    doc: str

    def describe(self) -> dict[str, Any]:
        """The setting as a client reads it in a ``games`` reply: ``name``, ``choices``,
        ``doc``."""
        return {"name": self.name, "choices": list(self.choices), "doc": self.doc}


def counts_when_won(outcome: Mapping[str, Any]) -> bool:
    """A :attr:`Ranking.counts` rule: only a won game has a score (Skipper solo, K7: the
    outcome's reason ``"won"``, or a winner)."""
    return outcome.get("reason") == "won" or outcome.get("winner") is not None


def counts_unless_given_up(outcome: Mapping[str, Any]) -> bool:
    """A :attr:`Ranking.counts` rule: a game ended by the rules has a score, one ended by a
    resignation or a forfeit has none (RULINGS T6: a resignation is a loss)."""
    return not str(outcome.get("reason") or "").startswith(("resign", "forfeit"))


@dataclass(frozen=True, slots=True)
class Ranking:
    """The game's side of a leaderboard (the server keeps the boards: server/leaderboard.py).

    Attributes:
        mode: The mode it ranks (a value of the ``mode`` option; :data:`STANDARD` for a game
            without modes).
        order: ``"asc"`` (lower scores are better: turns) or ``"desc"`` (higher scores are
            better: points).
        unit: What the score counts, for people (``"turns"``, ``"points"``).
        counts: Whether a finished game's outcome has a score (:func:`counts_when_won`,
            :func:`counts_unless_given_up`); the score is then ``outcome["scores"][0]``.
        neutral_options: The game's options, besides the deal's (``seed``, ``deck``), that
            leave scores comparable (Skipper's ``turn_limit`` only cuts games short).
    """

    mode: str
    order: str
    unit: str
    counts: Callable[[Mapping[str, Any]], bool]
    neutral_options: frozenset[str] = frozenset()

    @property
    def how(self) -> str:
        """What puts a player on the board, for people (at most 200 characters; the
        leaderboard sends it as ``how``): what :attr:`counts` counts, and the order."""
        first = f"the {'fewest' if self.order == 'asc' else 'most'} {self.unit} rank first"
        if self.counts is counts_when_won:
            return f"Win a solo game with the standard rules: {first}."
        if self.counts is counts_unless_given_up:
            return (f"Finish a solo game with the standard rules: {first} "
                    "(a resigned game has no score).")
        return f"Play a solo game with the standard rules: {first}."

    def score(self, outcome: Mapping[str, Any] | None) -> int | None:
        """The score ``outcome`` puts on the board, or None when the game does not count.

        Args:
            outcome: :meth:`Game.outcome` of a finished one-seat game (None while it runs).
        """
        if not outcome or not outcome.get("scores") or not self.counts(outcome):
            return None
        score = outcome["scores"][0]
        return int(score) if isinstance(score, int) and not isinstance(score, bool) else None


@dataclass(frozen=True, slots=True)
class GameType:
    """What a room needs to know of a game without asking its rules (OpenSpiel's
    ``GameType``): declared once per engine class as :attr:`Game.TYPE`.

    Attributes:
        real_time_modes: Modes (values of the ``mode`` option) in which seats act at the same
            time, not in turns (Skipper's ``race``, K14): a room then lets each seat's
            actions go stale only by changes to that seat, and slows its server bots down.
            Every other mode, and a game without modes, is turn-based.
        turn_end_verbs: Verbs after which a seat's turn (or bid) is over, for turn timers;
            ``None``: every action ends one.
        per_seat_view_keys: View keys whose values differ between seats; every other key has
            the same value in every seat's (and a spectator's) view of one state, so a room
            diffs those once per broadcast. ``None``: not declared, views are diffed whole.
        settings: The preferences a seat may set for itself (:class:`Setting`).
        rankings: The leaderboards of the game's one-seat games (:class:`Ranking`), at most
            one per mode.
    """

    real_time_modes: frozenset[str] = frozenset()
    turn_end_verbs: frozenset[str] | None = None
    per_seat_view_keys: frozenset[str] | None = None
    settings: tuple[Setting, ...] = ()
    rankings: tuple[Ranking, ...] = ()
    _setting_names: frozenset[str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_setting_names", frozenset(s.name for s in self.settings))

    def real_time(self, options: Mapping[str, Any]) -> bool:
        """Whether a game with these options is played in real time (several seats acting
        at once) rather than in turns. (A room asks on every action: a game's options are
        a dict, read without a method call when compiled.)"""
        modes = self.real_time_modes
        if not modes:
            return False
        if isinstance(options, dict):
            return options.get("mode") in modes
        return options.get("mode") in modes

    def setting(self, name: Any) -> Setting | None:
        """The setting called ``name``, or None (not a setting of this game)."""
        return next((s for s in self.settings if s.name == name), None)

    def is_setting(self, action: Sequence[Any]) -> bool:
        """Whether ``action`` (as an ``act`` carries it) names one of the game's settings:
        a room then applies it with :meth:`Game.apply_setting`, not as a move."""
        return bool(self._setting_names) and len(action) > 0 \
            and isinstance(action[0], str) and action[0] in self._setting_names

    def ranking(self, mode: str | None) -> Ranking | None:
        """The ranking of ``mode`` (None: the game's first ranked mode), or None."""
        return next((r for r in self.rankings if mode is None or r.mode == mode), None)


#: Kinds of :class:`LogEntry`: an action, a forfeit, a setting.
ACT: Final = "a"
FORFEIT: Final = "f"
SETTING: Final = "s"


class LogEntry(NamedTuple):
    """One entry of a game's log: what a room stores (durably, before anyone is told),
    ``get_log`` sends and :func:`replay` applies. On the wire and in stores it is the plain
    array ``[kind, seat, action]`` (a NamedTuple packs as one; read back it is a list, which
    :meth:`of` turns into a LogEntry again).

    Attributes:
        kind: :data:`ACT` (``"a"``: ``seat`` played ``action``), :data:`FORFEIT` (``"f"``:
            ``seat`` left the game, ``action`` None) or :data:`SETTING` (``"s"``: ``seat``
            set a preference, ``action`` is ``[name, value]``; ``state_id`` does not move).
        seat: The seat.
        action: The action as a list, the setting ``[name, value]``, or None.
    """

    kind: str
    seat: int
    action: list[Any] | None

    @classmethod
    def act(cls, seat: int, action: Sequence[Any]) -> LogEntry:
        """The entry of ``seat`` playing ``action``."""
        return tuple.__new__(cls, (ACT, seat, list(action)))  # (no Python __new__: hot)

    @classmethod
    def forfeit(cls, seat: int) -> LogEntry:
        """The entry of ``seat`` forfeiting (it abandoned its seat)."""
        return cls(FORFEIT, seat, None)

    @classmethod
    def setting(cls, seat: int, setting: Sequence[Any]) -> LogEntry:
        """The entry of ``seat`` setting ``[name, value]``."""
        return cls(SETTING, seat, list(setting))

    @classmethod
    def of(cls, raw: Any) -> LogEntry:
        """``raw`` (a LogEntry, or ``[kind, seat, action]`` as stored or sent) as a LogEntry.

        Raises:
            UnknownAction: ``raw`` is not of that shape (an unknown kind, a seat that is not
                an int, an action that is not a non-empty list, a forfeit with an action).
        """
        if type(raw) is cls:
            return raw
        if not isinstance(raw, (list, tuple)) or len(raw) != 3:
            raise UnknownAction(f"a log entry is [kind, seat, action], not {raw!r}")
        kind, seat, action = raw
        if kind not in (ACT, FORFEIT, SETTING) or isinstance(seat, bool) \
                or not isinstance(seat, int):
            raise UnknownAction(f"not a log entry: {raw!r}")
        if kind == FORFEIT:
            if action is not None:
                raise UnknownAction(f"a forfeit entry has no action: {raw!r}")
            return cls(kind, seat, None)
        if not isinstance(action, (list, tuple)) or not action:
            raise UnknownAction(f"the entry's action is not a non-empty list: {raw!r}")
        return cls(kind, seat, list(action))


_tuple_new: Final = tuple.__new__
_LOG_ENTRY: Final = LogEntry


def act_entry(seat: int, action: Sequence[Any]) -> LogEntry:
    """:meth:`LogEntry.act` as a plain function: the entry ``("a", seat, list(action))`` of
    ``seat`` playing ``action``, made without the classmethod's lookup on the NamedTuple (a
    room makes one per accepted ``act``; a native call in the compiled build, issue #43)."""
    return _tuple_new(_LOG_ENTRY, (ACT, seat, list(action)))


class SplitDeltas(Mapping[int | None, dict[str, Any]]):
    """A :meth:`Game.deltas` answer that also hands out each seat's delta in two parts: the
    change every seat shares (:attr:`shared`, one dict for the whole broadcast) and the
    change under the seat's own keys (:meth:`own`), so that a room packs the shared part
    once per broadcast instead of once per seat. ``self[seat]`` is always
    ``{**self.shared, **own}`` (``self.shared`` itself when ``own`` is None).

    Attributes:
        shared: The change every seat shares (a spectator's whole delta); never mutated.
    """

    __slots__ = ("shared",)
    shared: dict[str, Any]

    def own(self, seat: int | None) -> dict[str, Any] | None:
        """The change of ``seat``'s own view keys (none of them a key of :attr:`shared`), or
        None when they did not change; the same dict object on every call for a seat.

        Raises:
            KeyError: a seat this answer was not asked for.
            RuntimeError: read after the game changed state (see :meth:`Game.deltas`).
        """
        raise NotImplementedError


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
        TYPE: The game's :class:`GameType`.
        SNAPSHOT_VERSION: The ``version`` of the game's snapshots (:meth:`snapshot`).
        options: The resolved options of this game (``seed`` filled in).
        seats: Number of seats.
        state_id: Number of actions (and forfeits) accepted so far (0 after the deal).
        settings_applied: Number of settings applied so far (:meth:`apply_setting`).
    """

    name: ClassVar[str] = ""
    title: ClassVar[str] = ""
    min_seats: ClassVar[int] = 1
    max_seats: ClassVar[int] = 1
    OPTIONS: ClassVar[tuple[Option, ...]] = (SEED,)
    TYPE: ClassVar[GameType] = GameType()
    SNAPSHOT_VERSION: ClassVar[int] = 1

    state_id: int
    settings_applied: int

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
        self.settings_applied = 0

    @property
    def log_length(self) -> int:
        """Changes made so far, actions, forfeits and settings: the length of the log that
        rebuilds this state (:func:`replay`), the index the next entry takes in a room's
        log."""
        return self.state_id + self.settings_applied

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
            UnknownAction: not an action of this game (a setting is none either).
            GameOver: the game has ended.
            NotYourTurn: ``seat`` may not act now.
            IllegalAction: the rules forbid it (the message says why).
        """

    @abstractmethod
    def view(self, seat: int | None) -> dict[str, Any]:
        """What ``seat`` may see (``None``: a spectator), as plain msgpack-able data; its
        ``"game"`` is :attr:`name`.

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

    # -- snapshots: one header, then the engine's own state ------------------------------

    def snapshot(self) -> dict[str, Any]:
        """The complete state as plain msgpack-able data (lists, never tuples; the RNG
        state included): the header ``game``, ``version`` (:attr:`SNAPSHOT_VERSION`),
        ``options``, ``seats``, ``state_id`` and ``settings_applied``, then the engine's own
        keys (:meth:`_snapshot_state`)."""
        return {
            "game": self.name,
            "version": self.SNAPSHOT_VERSION,
            "options": {k: (list(v) if isinstance(v, (list, tuple)) else v)
                        for k, v in self.options.items()},
            "seats": self.seats,
            "state_id": self.state_id,
            "settings_applied": self.settings_applied,
            **self._snapshot_state(),
        }

    @classmethod
    def restore(cls, data: Mapping[str, Any]) -> Self:
        """Rebuild a game from :meth:`snapshot` data. Snapshots written before the header
        was one (a ``"v"`` key for ``"version"``, or none; no ``settings_applied``) restore
        too.

        Raises:
            SnapshotError: ``data`` is not a snapshot of this game: another game or version,
                a missing or malformed field, or a state the engine rejects.
        """
        if not isinstance(data, Mapping) or data.get("game") != cls.name:
            raise SnapshotError(f"not a {cls.title or cls.name} snapshot")
        version = data.get("version", data.get("v", 1))
        if version != cls.SNAPSHOT_VERSION:
            raise SnapshotError(f"not a {cls.name} snapshot of version {cls.SNAPSHOT_VERSION}: "
                                f"version {version!r}")
        try:
            # Built by its __init__ (a deal then replaced: a compiled class cannot be made
            # without it), so a snapshot's options must be valid ones.
            game = cls(dict(data["options"]), int(data["seats"]))
            game.options = dict(data["options"])
            game.seats = int(data["seats"])
            game.state_id = int(data["state_id"])
            game.settings_applied = int(data.get("settings_applied", 0))
            game._restore_state(data)
        except SnapshotError:
            raise
        except (KeyError, TypeError, ValueError, IndexError, AttributeError,
                OptionError) as exc:
            raise SnapshotError(f"bad {cls.name} snapshot: {exc!r}") from None
        return game

    @abstractmethod
    def _snapshot_state(self) -> dict[str, Any]:
        """The engine's own state for :meth:`snapshot`, after the header (plain data)."""

    @abstractmethod
    def _restore_state(self, data: Mapping[str, Any]) -> None:
        """Set the engine's own state from :meth:`snapshot` data (the header's options,
        seats, ``state_id`` and ``settings_applied`` are set already).

        Raises:
            SnapshotError, KeyError, TypeError, ValueError, IndexError, AttributeError,
                OptionError: a wrong or malformed field (:meth:`restore` reports them all as
                :class:`SnapshotError`).
        """

    # -- search: copies and samples -----------------------------------------------------

    def clone(self) -> Self:
        """An independent copy of the game (the RNG state included): what happens to one
        never shows in the other (OpenSpiel's ``State.clone``). This default restores a
        snapshot; engines may copy faster."""
        return type(self).restore(self.snapshot())

    @classmethod
    def resample(cls, view: Mapping[str, Any], rng: Any) -> Self:
        """A whole game consistent with a seat's ``view``: the cards the view shows where it
        shows them, every hidden card dealt at random into the hidden places (OpenSpiel's
        ``resample_from_infostate``, for search bots that see only views).

        Args:
            view: One seat's view (:meth:`view` or :meth:`bot_view`), not a spectator's.
            rng: A :class:`random.Random` (the only source of the sample's randomness).

        Returns:
            A game whose ``view(view["seat"])`` (``view(0)`` in a one-seat game) equals
            ``view``; its seed, and its RNG, are drawn from ``rng``.

        Raises:
            NotImplementedError: the engine cannot sample (this default).
        """
        raise NotImplementedError(f"{cls.name} cannot resample a view")

    # -- settings and the log ----------------------------------------------------------

    def apply_setting(self, seat: object, setting: Sequence[Any]) -> list[Event]:
        """Set a preference of ``seat`` for itself (a :class:`Setting` of :attr:`TYPE`);
        ``state_id`` does not change: no seat's chosen action goes stale by it.

        Args:
            seat: The seat setting its own preference: an int (``True`` is no seat; typed
                ``object`` and checked, since a compiled build would take ``True`` for 1 at
                a parameter typed ``int``).
            setting: ``(name, value)``, e.g. ``("auto_trash", "off")``.

        Returns:
            The events (public: every seat may know the setting).

        Raises:
            UnknownAction: not a setting of this game, or a value not among its choices.
            GameOver: the game has ended.
            NotYourTurn: ``seat`` is no seat of this game.
            IllegalAction: the engine refuses it now (e.g. the seat is out of the game).
        """
        events = self._set(seat, setting)
        self.settings_applied += 1
        return events

    def _set(self, seat: object, setting: Sequence[Any]) -> list[Event]:
        """:meth:`apply_setting` less the count (same errors)."""
        spec = self.TYPE.setting(setting[0]) if isinstance(setting, (list, tuple)) \
            and setting else None
        if spec is None:
            raise UnknownAction(f"not a setting of {self.title}: {setting!r}")
        if len(setting) != 2 or setting[1] not in spec.choices:
            raise UnknownAction(f"{spec.name} takes one of {', '.join(spec.choices)}, "
                                f"not {list(setting[1:])!r}")
        if self.over:
            raise GameOver("the game is over")
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < self.seats:
            raise NotYourTurn(f"no seat {seat!r} in this game")
        return self._apply_setting(seat, spec.name, setting[1])

    def _apply_setting(self, seat: int, name: str, value: str) -> list[Event]:
        """Set ``seat``'s checked setting ``name`` to ``value`` (one of its choices).

        Raises:
            IllegalAction: the engine refuses it now.
            NotImplementedError: the game declares no settings (this default).
        """
        raise NotImplementedError(f"{self.name} has no settings")

    def apply_entry(self, entry: LogEntry | Sequence[Any]) -> list[Event]:
        """Apply one log entry (:class:`LogEntry`: an action, a forfeit or a setting): how a
        room applies what it logs, and how :func:`replay` rebuilds a game. Each entry adds
        one to :attr:`log_length`. An entry read back as stored (a ``[kind, seat, action]``
        array, not a LogEntry) is checked first (:meth:`LogEntry.of`); if it is an action
        whose verb names a setting (as rooms logged settings before ``"s"`` entries), it is
        applied as a setting and, as then, counts as a move of ``state_id``.

        Returns:
            The events.

        Raises:
            GameError: the entry is malformed (:class:`UnknownAction`) or does not apply
                (nothing changed then).
        """
        if type(entry) is not LogEntry:
            entry = LogEntry.of(entry)
            if entry.kind == ACT and self.TYPE.is_setting(entry.action or ()):
                events = self._set(entry.seat, entry.action or ())  # a log of before "s"
                self.state_id += 1
                return events
        kind = entry.kind
        if kind == ACT:
            return self.apply(entry.seat, entry.action or ())
        if kind == FORFEIT:
            return self.forfeit(entry.seat)
        return self.apply_setting(entry.seat, entry.action or ())

    # -- views for rooms and bots ---------------------------------------------------------

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
            cannot tell: it does not report deltas, was not asked at the state before, or a
            setting changed the views since (the caller then builds views and diffs them).
            An engine may answer a :class:`SplitDeltas` (its shared and own parts apart).
            This default: always None.
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
                as a loss instead: :meth:`cardhall.games.solo.SoloGame.forfeit`).
        """
        raise IllegalAction(f"{self.name} has no forfeit")

    def card_locations(self) -> dict[str, list[int]]:
        """Every card of the game by zone name (for tests of card conservation).

        Zone names are game-defined (e.g. ``"hand:0"``, ``"stock:1"``); each card of the
        game must appear in exactly one zone. Not part of any view.
        """
        raise NotImplementedError


def replay(cls: type[Game], options: Mapping[str, Any], seats: int,
           entries: Iterable[LogEntry | Sequence[Any]],
           snapshot: Mapping[str, Any] | None = None) -> Game:
    """Rebuild a game from its log: a fresh deal of ``options`` (with ``seed``) for
    ``seats`` (or the game restored from ``snapshot``), then every entry applied in order
    (:meth:`Game.apply_entry`). Rooms rebuild their games this way after a takeover or a
    failed write, ``cardhall verify`` checks a finished game with it.

    Args:
        cls: The engine class.
        options: The resolved options, as in :attr:`Game.options`.
        seats: Seat count.
        entries: The log entries after the snapshot (all of them without one), oldest first:
            :class:`LogEntry` values or ``[kind, seat, action]`` arrays.
        snapshot: An engine snapshot the log continues from, or None.

    Raises:
        GameError: an entry does not apply (the log is not of this game), or the snapshot
            is not one of this game (:class:`~cardhall.games.errors.SnapshotError`).
    """
    game = cls.restore(snapshot) if snapshot is not None else cls(options, seats)
    for entry in entries:
        game.apply_entry(entry)
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


__all__ = [
    "ACT", "FORFEIT", "OUTCOMES", "SETTING", "STANDARD", "Action", "Event", "Game", "GameType",
    "LogEntry", "Ranking", "Setting", "SplitDeltas", "act_entry", "counts_unless_given_up",
    "counts_when_won",
    "outcome_kind", "replay",
]
