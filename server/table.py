"""A room's rules without I/O: its phases, one transition table, and who may take which seat.

The room (:mod:`cardhall.server.room`) is the driver: it queues work, awaits the store,
arms timers and sends frames. This module decides, and never awaits or sends: no asyncio,
no websockets, no store, no clocks of its own (moments are passed in, unix time s), so
that every rule here is tested with plain function calls (tests/server/test_table.py).

Phases (:class:`Phase`) replace the free status string: a room waits for its players, plays,
is finished, or is closed (this copy runs it no more: removed, handed over or demoted).
The stored form, in the store's state and summary, the snapshots and on the wire, stays
the string ``"waiting"``, ``"playing"`` or ``"finished"``; :meth:`Phase.parse` and
:attr:`Phase.stored` read and print it, here alone. Whether the room is reloading its game
after a failed write is a separate marker of the driver (``Room.reloading``), not a phase.

One table, :data:`TRANSITIONS` (after h11's ``_state.py``), says which :class:`Event` each
phase allows and the phase it leads to; :func:`step` raises :class:`TransitionError` with
the protocol's error code (``room/already_started``, ``room/not_started``...) for any
other. The seat rules take the seats as a sequence of :class:`SeatLike` and return
decisions (:class:`HostMove`, :class:`Leaving`, the seats a start gives to bots, the account a
finished game is ranked for); the room carries them out, saving first and sending after.

The action path is events in, effects out (after websockets' and h11's sans-I/O cores):
an ``act`` (:func:`act`), the store's answer to an append (:func:`appended`,
:func:`append_failed`), the room's timer (:func:`on_timer`, :func:`turns_due`,
:func:`timeout_step`), a bot's move (:func:`bot_move`), a forfeit (:func:`forfeit`) and a
reload (:func:`reloaded`) each return :class:`Effect` values (:class:`Append`,
:class:`Broadcast`, :class:`Schedule`, :class:`Finish`, :class:`Refuse`...) that the room
carries out in order. An accepted action yields only an :class:`Append`; its sends come
from :func:`appended`, once the store holds the entry.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from ..games import Game, GameError, LogEntry
from ..games.base import FORFEIT, SETTING
from ..games.options import Option, parse_options
from ..protocol import fairness

ROOM_OPTIONS: tuple[Option, ...] = (
    Option("turn_seconds", float, None, "Seconds per turn; on expiry the server plays the "
           "game's default action (Skipper: pass, or discard one card and end).", min=0.05,
           max=86_400),
    Option("bid_seconds", float, None, "Seconds per bid in an auction (default: "
           "turn_seconds); on expiry the bidder passes.", min=0.05, max=86_400),
    Option("grace_seconds", float, 120.0, "Seconds a dropped seat is held for its player.",
           min=0, max=86_400),
    Option("on_abandon", str, "bot", "When the grace window ends: a server bot takes the seat "
           "(bot) or the seat forfeits (forfeit).", choices=("bot", "forfeit")),
    Option("bot_seconds", float, None, "Seconds a server bot takes over each action (default: "
           "1 in real-time games, where seats act at once, so that bots do not outrace people; "
           "0 in turn-based ones).", min=0, max=60),
    Option("multi_seat", bool, False, "One account may hold several seats of the room (a hot "
           "seat); off: a second seat is refused (room/already_seated)."),
)
ROOM_OPTION_NAMES = frozenset(o.name for o in ROOM_OPTIONS)


def split_options(raw: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """Split ``create_room.options`` into (room options, engine options).

    Raises:
        OptionError: a room option has a bad value.
    """
    room = {k: v for k, v in raw.items() if k in ROOM_OPTION_NAMES}
    engine = {k: v for k, v in raw.items() if k not in ROOM_OPTION_NAMES}
    return parse_options(ROOM_OPTIONS, room), engine


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


class Event(enum.Enum):
    """What happens to a room (the rows of :data:`TRANSITIONS`)."""

    JOIN = "join"          # a player takes a seat
    RESUME = "resume"      # a player takes its seat back
    SPECTATE = "spectate"
    LEAVE = "leave"
    DROP = "drop"          # a seated connection was lost
    KICK = "kick"          # an operator removes a player
    START = "start"
    ACT = "act"            # a seat's action
    FINISH = "finish"      # the game is over
    REVEAL = "reveal"      # the log and deal seed are asked for (get_log)
    REPLAY = "replay"      # a replay of the game is asked for (the web's replays)
    CLOSE = "close"        # this copy stops running the room


W, P, F, C = Phase.WAITING, Phase.PLAYING, Phase.FINISHED, Phase.CLOSED
_ANY_OPEN = {Event.RESUME: None, Event.SPECTATE: None, Event.LEAVE: None, Event.DROP: None,
             Event.KICK: None, Event.CLOSE: C}
#: The one transition table: phase -> event -> the phase after it (None: the same phase).
#: An event missing from a phase's row is refused (:func:`step`).
TRANSITIONS: dict[Phase, dict[Event, Phase | None]] = {
    W: {**_ANY_OPEN, Event.JOIN: None, Event.START: P},
    P: {**_ANY_OPEN, Event.ACT: None, Event.FINISH: F},
    F: {**_ANY_OPEN, Event.REVEAL: None, Event.REPLAY: None},
    C: {Event.CLOSE: None},
}
#: The refusal of an event its phase does not allow: (code, message), by event and phase.
REFUSALS: dict[tuple[Event, Phase], tuple[str, str]] = {
    (Event.JOIN, P): ("room/already_started", "the game has started; seats are closed"),
    (Event.JOIN, F): ("room/already_started", "the game has started; seats are closed"),
    (Event.START, P): ("room/already_started", "the game has already started"),
    (Event.START, F): ("room/already_started", "the game has already started"),
    (Event.ACT, W): ("room/not_started", "the game has not started yet"),
    (Event.ACT, F): ("action/game_over", "the game is over"),
    (Event.FINISH, W): ("room/not_started", "the game has not started yet"),
    (Event.FINISH, F): ("room/not_playing", "the game is over already"),
    (Event.REVEAL, W): ("room/not_finished", "the log and the deal seed of a room are "
                        "revealed when its game is over"),
    (Event.REVEAL, P): ("room/not_finished", "the log and the deal seed of a room are "
                        "revealed when its game is over"),
    (Event.REPLAY, W): ("room/not_finished", "a room's game can be replayed once it is over"),
    (Event.REPLAY, P): ("room/not_finished", "a room's game can be replayed once it is over"),
}
_CLOSED = ("server/unavailable", "the room is no longer run by this server process: retry")


def allows(phase: Phase, event: Event) -> bool:
    """True when ``phase`` allows ``event`` (:data:`TRANSITIONS`)."""
    return event in TRANSITIONS[phase]


def step(phase: Phase, event: Event) -> Phase:
    """The phase after ``event`` in ``phase``.

    Raises:
        TransitionError: ``phase`` does not allow ``event``; its code is the one the room
            answers with (:data:`REFUSALS`; ``server/unavailable`` in a closed room).
    """
    row = TRANSITIONS[phase]
    if event not in row:
        code, message = _CLOSED if phase is C else REFUSALS.get(
            (event, phase), ("room/bad_phase", f"a {phase.value} room allows no {event.value}"))
        raise TransitionError(code, message)
    after = row[event]
    return phase if after is None else after


# -- seats -----------------------------------------------------------------------------


class SeatLike(Protocol):
    """What the seat rules read of a taken seat (:class:`~cardhall.server.room_parts.Seat`)."""

    @property
    def conn(self) -> object | None: ...  # the connection playing it (None: none)
    @property
    def bot(self) -> bool: ...
    @property
    def host(self) -> bool: ...
    @property
    def since(self) -> float: ...  # unix time s the seat was taken (0.0: unknown)
    @property
    def account(self) -> str: ...
    @property
    def token(self) -> str: ...
    @property
    def assisted(self) -> bool: ...
    @property
    def grace_until(self) -> float | None: ...  # unix time s its grace ends (None: none)


def choose_seat(phase: Phase, seats: Sequence[SeatLike | None], conn: object, account: str,
                wanted: int | None, multi_seat: bool) -> int:
    """The seat a ``join`` of ``conn`` (signed in to ``account``, ``""``: none) takes:
    ``wanted``, or the first free one. An account holds one seat of a room unless the room
    allows more (``multi_seat``).

    Raises:
        TransitionError: ``room/already_started`` (the room does not wait).
        RoomError: ``room/full`` (no free seat, ``wanted`` taken or out of range, or
            ``conn`` holds a seat here already), ``room/already_seated`` (``account``
            holds a seat here already).
    """
    step(phase, Event.JOIN)
    for s, holder in enumerate(seats):
        if holder is not None and holder.conn is conn:
            raise RoomError("room/full", f"you already hold seat {s} here")
        if holder is not None and account and holder.account == account and not multi_seat:
            raise RoomError("room/already_seated", f"your account holds seat {s} of this "
                            "room already (resume it; the host may allow several seats: "
                            "room option multi_seat)")
    if wanted is None:
        free = [i for i, s in enumerate(seats) if s is None]
        if not free:
            raise RoomError("room/full", "every seat is taken")
        return free[0]
    if not 0 <= wanted < len(seats):
        raise RoomError("room/full", f"this room has seats 0..{len(seats) - 1}")
    if seats[wanted] is not None:
        raise RoomError("room/full", f"seat {wanted} is taken")
    return wanted


class HostMove(enum.Enum):
    """What a join does to the host role (:func:`host_on_join`)."""

    TAKE_BACK = "take_back"  # the creator sits down: the role moves to its seat, told
    KEEP = "keep"            # the creator sits down, nobody held the role: its seat, silently
    CLAIM = "claim"          # nobody holds it: the joiner becomes the host, told
    LEND = "lend"            # as CLAIM, but the absent creator's session keeps its claim
    NONE = "none"            # someone else holds it


def host_on_join(seats: Sequence[SeatLike | None], is_creator: bool, host: str) -> HostMove:
    """What a join does to the host role, given the seats before it: the joiner's seat is
    the host's when it holds the host role (``is_creator``: its session is ``host``, the
    room's creator or the player the role was handed to), or when no seat is the host's
    (the creator has not sat down, or everyone left); with ``host`` set (``""``: none),
    the creator's session keeps its claim to start the room (:data:`HostMove.LEND`)."""
    hosted = any(h is not None and h.host for h in seats)
    if is_creator:
        return HostMove.TAKE_BACK if hosted else HostMove.KEEP
    if hosted:
        return HostMove.NONE
    return HostMove.LEND if host else HostMove.CLAIM


def heir(seats: Sequence[SeatLike | None]) -> int | None:
    """The seat the host role goes to when the host's seat is freed: the longest-seated
    player still connected, or, if none is, one held for its dropped player; None when
    nobody (but bots) sits (the next player to sit down gets it)."""
    seated = [(h.conn is None, h.since, s) for s, h in enumerate(seats)
              if h is not None and not h.bot]
    return min(seated)[2] if seated else None


def startable(seats: Sequence[SeatLike | None]) -> bool:
    """True for seats of a waiting room someone can start now, or whose next player becomes
    its host: a seat holds the host role and its player is connected, or no seat holds it
    (quick join sends nobody into a room whose host is away)."""
    hosts = [h for h in seats if h is not None and h.host]
    return not hosts or any(h.conn is not None for h in hosts)


def check_starter(seats: Sequence[SeatLike | None], host: str, by: object | None,
                  session: str) -> None:
    """Check that ``by`` (a connection with ``session``; None: the server) may start the
    room: the host's session, or the connection holding the host's seat (a host that
    reconnected and resumed its seat).

    Raises:
        RoomError: ``room/not_host``.
    """
    if by is not None and session != host and not any(
            h is not None and h.host and h.conn is by for h in seats):
        raise RoomError("room/not_host", "only the room's host may start it")


def full(phase: Phase, seats: Sequence[SeatLike | None]) -> bool:
    """True when every seat of a waiting room is taken: the join that filled the last seat
    starts it."""
    return phase is W and all(h is not None for h in seats)


def start_seats(phase: Phase, seats: Sequence[SeatLike | None]) -> tuple[Phase, list[int]]:
    """What a start does: the phase after it and the empty seats that server bots take.

    Raises:
        TransitionError: ``room/already_started``.
    """
    return step(phase, Event.START), [s for s, holder in enumerate(seats) if holder is None]


class Leaving(enum.Enum):
    """What becomes of a seat whose player leaves or is kicked (:func:`on_leave`)."""

    FREE = "freed"          # a waiting room frees the seat
    ABANDON = "abandon"     # a playing room follows on_abandon (a bot, or a forfeit)
    DETACH = "detached"     # a finished room only detaches the connection


def on_leave(phase: Phase) -> Leaving:
    """What a ``leave`` or a kick does to the seat in ``phase``.

    Raises:
        TransitionError: in a closed room (``server/unavailable``).
    """
    step(phase, Event.LEAVE)
    return Leaving.FREE if phase is W else Leaving.ABANDON if phase is P else Leaving.DETACH


def holds_on_drop(phase: Phase) -> bool:
    """True when a dropped player's seat is held for its grace window (not in a finished
    room, whose seats no longer matter)."""
    return phase is W or phase is P


def kickable(holder: SeatLike | None) -> bool:
    """True when a player holds the seat (an operator may kick it): not empty, not a
    server bot's with nobody connected, not forfeited or kicked already."""
    return holder is not None and (holder.conn is not None or (not holder.bot
                                                                and bool(holder.token)))


# -- finishing -------------------------------------------------------------------------


def ranked_account(seats: Sequence[SeatLike | None], chosen_deal: bool) -> str | None:
    """The account a finished game may be ranked for on its leaderboard, or None when it is
    not ranked: only a game its person played alone (never a server bot: not assisted),
    signed in to an account, on a deal the server drew (not ``chosen_deal``). Whether its
    rules and score count on a board is the leaderboard's (:mod:`.leaderboard`)."""
    holder = seats[0] if len(seats) == 1 else None
    if holder is None or holder.assisted or chosen_deal or not holder.account:
        return None
    return holder.account


def commitment(seed: int, salt: str) -> str | None:
    """The deal commitment of ``seed`` and ``salt`` (64 hex digits:
    :func:`cardhall.protocol.fairness.commitment`), or None without a salt (a room stored
    before salts were kept)."""
    return fairness.commitment(seed, salt) if salt else None


# -- the action path: events in, effects out ---------------------------------------------
#
# What happens to a playing room's game comes in as a call (an ``act``: :func:`act`; the
# store's answer to an append: :func:`appended`, :func:`append_failed`; the room's timer:
# :func:`on_timer`, :func:`turns_due`; a reload: :func:`reloaded`) and goes out as a list
# of effects, in order, that the driver (:class:`~cardhall.server.room.Room`) carries out:
# it sends, arms timers, writes to the store and feeds the store's answer back. The engine
# (I/O-free itself) is applied here. An accepted action yields one :class:`Append` and
# nothing else: the sends come from :func:`appended` alone, once the store holds the entry
# ("saved before anyone is told", by construction).


class Effect:
    """What the room's driver is to do (a base of the effect classes below). Effects are
    values, never changed once made (not frozen dataclasses: those cost twice as much to
    make in pure Python, on every action); those without fields are made once
    (:data:`SCHEDULE`...)."""

    __slots__ = ()


@dataclass(slots=True)
class Refuse(Effect):
    """Answer the act with ``error`` (a protocol ``error`` with its code) and count it
    refused; nothing changed (an illegal move leaves the engine exactly as it was)."""

    error: RoomError | GameError


@dataclass(slots=True)
class Tell(Effect):
    """Answer the act, if it came from a connection, with ``error`` (not counted refused:
    the action was accepted, the store failed it)."""

    error: RoomError


@dataclass(slots=True)
class Append(Effect):
    """The engine has applied ``entry`` (whose events are ``events``): append it to the
    room's log. The driver then calls :func:`appended` once the store holds it, or
    :func:`append_failed`."""

    entry: LogEntry
    events: list[dict[str, Any]]


@dataclass(slots=True)
class Stamp(Effect):
    """The views of ``seats`` are at ``state_id`` now: a real-time seat's ``act`` chosen
    against an older state is stale (:func:`act`)."""

    seats: tuple[int, ...]
    state_id: int


@dataclass(slots=True)
class EnterPhase(Effect):
    """Enter ``phase``."""

    phase: Phase


@dataclass(slots=True)
class EndTurn(Effect):
    """``seat``'s turn is over: its deadline is dropped (a fresh clock at its next turn)."""

    seat: int


@dataclass(slots=True)
class Schedule(Effect):
    """Set the deadlines of the seats to act and arm the room's timer for the first one."""


@dataclass(slots=True)
class ClearClocks(Effect):
    """No more deadlines: the deadlines are dropped and the timer disarmed."""


@dataclass(slots=True)
class Broadcast(Effect):
    """Every member gets its update with ``events``; the acting connection, if any, first,
    with its answer (an ``ok``, or the update carrying the act's id)."""

    events: list[dict[str, Any]]


@dataclass(slots=True)
class WakeBots(Effect):
    """Queue a server-bot action if a bot seat may act."""


@dataclass(slots=True)
class Finish(Effect):
    """The game is over: carry out :func:`finish`."""


@dataclass(slots=True)
class RecordEnd(Effect):
    """Record the end: the finish time, the ``game_finished`` log line and metrics, and
    the account ledger ("My games")."""


@dataclass(slots=True)
class SendGameOver(Effect):
    """Every member gets ``game_over`` (while this copy's lease is current)."""


@dataclass(slots=True)
class SaveState(Effect):
    """Queue a write of the room's state (coalesced, after the current work item)."""


@dataclass(slots=True)
class Rank(Effect):
    """Put the finished solo game's score on its leaderboard for ``account``."""

    account: str


@dataclass(slots=True)
class Released(Effect):
    """Tell the lobby the game is over (``on_finish``)."""


@dataclass(slots=True)
class RollBack(Effect):
    """Put the engine back to the last state the store is known to hold."""


@dataclass(slots=True)
class Reload(Effect):
    """The room serves nothing until it has reloaded its game from the store: start the
    reload (then :func:`reloaded`)."""


@dataclass(slots=True)
class Halt(Effect):
    """The room serves nothing more here (it moved to another process)."""


@dataclass(slots=True)
class GiveUp(Effect):
    """Another process owns the room: stop running it here."""


@dataclass(slots=True)
class FreeSeat(Effect):
    """Free ``seat`` of a waiting room (its grace window ended) and tell the lobby."""

    seat: int


@dataclass(slots=True)
class Abandon(Effect):
    """``seat``'s grace window ended in a playing room: a server bot takes it or it forfeits
    (``on_abandon``)."""

    seat: int


@dataclass(slots=True)
class TurnsDue(Effect):
    """After the grace windows: play the turns that ran out by ``now`` (unix time s):
    :func:`turns_due`."""

    now: float


@dataclass(slots=True)
class PlayDefaults(Effect):
    """The turns of ``seats`` ran out: play each one's default actions (:func:`timeout_step`)
    until its turn ends."""

    seats: tuple[int, ...]


#: The effects without fields, each made once.
SCHEDULE = Schedule()
CLEAR_CLOCKS = ClearClocks()
WAKE_BOTS = WakeBots()
FINISH = Finish()
RECORD_END = RecordEnd()
SEND_GAME_OVER = SendGameOver()
SAVE_STATE = SaveState()
RELEASED = Released()
ROLL_BACK = RollBack()
RELOAD = Reload()
HALT = Halt()
GIVE_UP = GiveUp()


_NOT_SEATED = RoomError("room/not_seated", "you hold no seat in this room")
_RELOADING = RoomError("server/unavailable", "the room is reloading its game from the store "
                       "after a failed write: retry shortly")
_OVER = RoomError("action/game_over", "the game is over")
_MOVED = RoomError("server/unavailable", "the room moved to another server process; the "
                   "action was not applied: retry")
_UNKNOWN = RoomError("server/unavailable", "the room's store did not confirm the action, "
                     "which may or may not have been applied; the room reloads from the store, "
                     "then sends every seat its true view: choose again from it")


def act(phase: Phase, reloading: bool, game: Game | None, seat: int | None, action: Any,
        state_id: int, seat_version: Sequence[int], options: Mapping[str, Any]) -> Effect:
    """An ``act`` of ``seat`` (None: the connection holds no seat) choosing ``action``
    against ``state_id``: the engine applies it, or it is refused and nothing changed.

    A setting (``GameType.is_setting``: the seat's own preference, e.g. Skipper's
    ``auto_trash``) is accepted whatever the seat's turn and ``state_id``: it is no move and
    leaves ``state_id`` as it is, so no seat's chosen action goes stale by it (issue #31).
    A move is stale unless ``state_id`` is the game's; in a real-time game
    (``GameType.real_time``: several seats act at once) unless it is at least the seat's
    ``seat_version`` (the state of the last action that touched the seat), so seats racing
    each other do not refuse each other's actions.

    Returns:
        :class:`Append` (the engine applied the entry; the sends follow :func:`appended`),
        or :class:`Refuse` with ``room/not_seated``, ``server/unavailable`` (reloading, or a
        closed copy), ``room/not_started``, ``action/game_over``, ``action/stale_state`` or
        the engine's error (an illegal action: the engine is as it was).
    """
    if seat is None:
        return Refuse(_NOT_SEATED)
    if reloading:
        return Refuse(_RELOADING)
    if phase is not P:  # refused as the transition table says
        try:
            step(phase, Event.ACT)
        except RoomError as exc:
            return Refuse(exc)
    if game is None or game.over:
        return Refuse(_OVER)
    if game.TYPE.is_setting(action):
        entry = LogEntry.setting(seat, action)
    else:
        floor = seat_version[seat] if game.TYPE.real_time(options) else game.state_id
        if not floor <= state_id <= game.state_id:
            return Refuse(RoomError(
                "action/stale_state", f"the action was chosen against state {state_id}; "
                f"the room is at {game.state_id}: choose again from the latest view"))
        entry = LogEntry.act(seat, action)
    try:
        events = game.apply_entry(entry)
    except GameError as illegal:
        return Refuse(illegal)
    return Append(entry, events)


def appended(game_phase: Phase, game: Game, entry: LogEntry,
             events: list[dict[str, Any]]) -> list[Effect]:
    """The store holds ``entry`` (applied to ``game``, with ``events``): what follows.

    In order: in a real-time game, the touched seats' versions (:class:`Stamp`: the acting
    seat and every seat an event names; none for a setting, which makes no chosen action
    stale; a turn-based game's floor is its ``state_id``: :func:`act`); when the game
    is over, no more clocks and the phase finished (the final update carries it), else the
    turn clock (the seat's turn ended unless the game's ``turn_end_verbs`` say it goes on;
    a setting ends no turn); the :class:`Broadcast` (the acting connection's answer first);
    then :class:`Finish` or :class:`WakeBots`.

    Raises:
        TransitionError: the game ended in a room that is not playing (a bug).
    """
    effects: list[Effect] = []
    if entry.kind != SETTING and game.TYPE.real_time(game.options):
        touched = {e.get("seat") for e in events}
        touched.add(entry.seat)
        effects.append(Stamp(tuple(s for s in touched if isinstance(s, int)
                                   and 0 <= s < game.seats), game.state_id))
    if game.over:
        effects.append(CLEAR_CLOCKS)
        effects.append(EnterPhase(step(game_phase, Event.FINISH)))
    elif entry.kind != SETTING:
        if turn_ends(game, entry):
            effects.append(EndTurn(entry.seat))
        effects.append(SCHEDULE)
    effects.append(Broadcast(events))
    effects.append(FINISH if game.over else WAKE_BOTS)
    return effects


def turn_ends(game: Game, entry: LogEntry) -> bool:
    """True when ``entry`` (a move or a forfeit) ends its seat's turn: a forfeit does, and
    a move whose verb is in the game's ``TYPE.turn_end_verbs`` (None: every move does)."""
    ends = game.TYPE.turn_end_verbs
    return entry.kind == FORFEIT or ends is None or (entry.action or [None])[0] in ends


def append_failed(lost: bool) -> list[Effect]:
    """The store did not confirm an append. ``lost``: another process owns the room (the
    store wrote nothing): rolled back, the room halts here, the acting connection is told
    to retry, and the room is given up. Otherwise the entry may or may not have landed:
    rolled back to what the store is known to hold, the room reloads from the store, and
    the acting connection is told the fate of its action is unknown."""
    if lost:
        return [ROLL_BACK, HALT, Tell(_MOVED), GIVE_UP]
    return [ROLL_BACK, RELOAD, Tell(_UNKNOWN)]


def finish(game_phase: Phase, seats: Sequence[SeatLike | None],
           chosen_deal: bool) -> list[Effect]:
    """The game is over (its final update has gone): the phase finished (unless the final
    update entered it), the end recorded, no more clocks, ``game_over`` to every member,
    the state saved, the score ranked (:func:`ranked_account`), the lobby told.

    Raises:
        TransitionError: the room never started (``room/not_started``).
    """
    effects: list[Effect] = []
    if game_phase is not F:
        effects.append(EnterPhase(step(game_phase, Event.FINISH)))
    effects += [RECORD_END, CLEAR_CLOCKS, SEND_GAME_OVER, SAVE_STATE]
    account = ranked_account(seats, chosen_deal)
    if account is not None:
        effects.append(Rank(account))
    effects.append(RELEASED)
    return effects


def on_timer(reloading: bool, game_phase: Phase, seats: Sequence[SeatLike | None],
             now: float) -> list[Effect]:
    """The room's timer fired at ``now`` (unix time s): each seat whose grace window ended
    is freed (a waiting room) or abandoned (:class:`Abandon`), then the turns that ran out
    are played (:class:`TurnsDue`). Nothing while the room reloads: its reload arms the
    timer again, and what ran out meanwhile fires then."""
    if reloading:
        return []
    effects: list[Effect] = []
    for s, holder in enumerate(seats):
        if holder is not None and holder.grace_until is not None and holder.grace_until <= now:
            effects.append(FreeSeat(s) if game_phase is W else Abandon(s))
    effects.append(TurnsDue(now))
    return effects


def turns_due(game_phase: Phase, deadlines: Mapping[int, float], now: float) -> list[Effect]:
    """The turns whose deadline (unix time s) is at or before ``now`` are played with
    their defaults in a playing room (:class:`PlayDefaults`); otherwise the timer is armed
    for what comes next (not in a finished room)."""
    expired = tuple(s for s, t in deadlines.items() if t <= now)
    if expired and game_phase is P:
        return [PlayDefaults(expired)]
    return [] if game_phase is F else [SCHEDULE]


def timeout_step(game: Game, seat: int) -> Append | None:
    """One default action of ``seat``, whose turn ran out (``Game.default_action``: Skipper
    passes, or discards one card and ends), applied to ``game``; None when the seat may not
    act any more or has no default."""
    if game.over or seat not in game.to_act():
        return None
    action = game.default_action(seat)
    if action is None:
        return None
    entry = LogEntry.act(seat, action)
    return Append(entry, game.apply_entry(entry))


def forfeit(game: Game, seat: int) -> Append | None:
    """``seat`` forfeits (its player abandoned it and the room says ``on_abandon:
    forfeit``), applied to ``game``; None when the seat is out of the game already."""
    entry = LogEntry.forfeit(seat)
    try:
        return Append(entry, game.apply_entry(entry))
    except GameError:
        return None


def bot_move(reloading: bool, game: Game, seat: int, action: Any) -> Append | None:
    """A server bot's ``action`` for ``seat``, applied to ``game``; None when the room is
    reloading or the seat may not act any more (nothing changed then)."""
    if reloading or game.over or seat not in game.to_act():
        return None
    entry = LogEntry.act(seat, action)
    return Append(entry, game.apply_entry(entry))


def reloaded(game_phase: Phase, game: Game) -> list[Effect]:
    """The room reloaded ``game`` from the store (the entry of a failed append may have
    landed, and may even have ended the game): every member gets the true state, then the
    game finishes, or the turn clocks run again (a turn that ran out meanwhile is played
    at once) and the bots move. Every seat's view is at the reloaded state
    (:class:`Stamp`)."""
    effects: list[Effect] = [Stamp(tuple(range(game.seats)), game.state_id), Broadcast([])]
    if game.over:
        if allows(game_phase, Event.FINISH):
            effects.append(FINISH)
    else:
        effects += [SCHEDULE, WAKE_BOTS]
    return effects
