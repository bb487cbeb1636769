"""A room's play without I/O: events in, effects out (after websockets' and h11's sans-I/O
cores).

What happens to a playing room's game comes in as a call: an ``act`` (:func:`act`), the
store's answer to an append (:func:`appended`, :func:`append_failed`), the room's timer
(:func:`on_timer`, :func:`turns_due`, :func:`timeout_step`), a server bot's move
(:func:`bot_move`), a forfeit (:func:`forfeit`), the game's end (:func:`finish`), a
reload (:func:`reloaded`), and a seat given up (:func:`leave`, :func:`drop`,
:func:`abandon`). Each returns :class:`Effect` values, in order, that the driver
(:class:`~cardhall.server.room.Room`, :meth:`~cardhall.server.room.Room._carry_out`)
carries out: it sends, arms timers, writes to the store and feeds the store's answer back.
The engine (I/O-free itself) is applied here. An accepted action yields one
:class:`Append` and nothing else: the sends come from :func:`appended` alone, once the
store holds the entry ("saved before anyone is told", by construction). The phases, the
transition table and the seat rules these follow are :mod:`.table`'s. Tested with plain
function calls (tests/server/test_play.py).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ...games import Game, GameError, LogEntry
from ...games.base import FORFEIT, SETTING, act_entry
from .rules import (Event, Leaving, Phase, RoomError, SeatLike, allows, holds_on_drop, on_leave,
                    ranked_account, step)

W, P, F = Phase.WAITING, Phase.PLAYING, Phase.FINISHED


class Effect:
    """What the room's driver is to do (a base of the effect classes below). Effects are
    values, never changed once made (not frozen dataclasses: those cost twice as much to
    make in pure Python, on every action); those without fields are made once
    (:data:`SCHEDULE`...). Those made at every action write their ``__init__`` out
    (``init=False``): mypyc compiles it, where a dataclass's generated one runs as Python
    (~6 times the cost; issue #43). Equality and repr stay the dataclass's."""

    __slots__ = ()


@dataclass(slots=True, init=False)
class Refuse(Effect):
    """Answer the act with ``error`` (a protocol ``error`` with its code) and count it
    refused; nothing changed (an illegal move leaves the engine exactly as it was)."""

    error: RoomError | GameError

    def __init__(self, error: RoomError | GameError) -> None:
        self.error = error


@dataclass(slots=True)
class Tell(Effect):
    """Answer the act, if it came from a connection, with ``error`` (not counted refused:
    the action was accepted, the store failed it)."""

    error: RoomError


@dataclass(slots=True, init=False)
class Append(Effect):
    """The engine has applied ``entry`` (whose events are ``events``): append it to the
    room's log. The driver then calls :func:`appended` once the store holds it, or
    :func:`append_failed`."""

    entry: LogEntry
    events: list[dict[str, Any]]

    def __init__(self, entry: LogEntry, events: list[dict[str, Any]]) -> None:
        self.entry, self.events = entry, events


@dataclass(slots=True, init=False)
class Stamp(Effect):
    """The views of ``seats`` are at ``state_id`` now: a real-time seat's ``act`` chosen
    against an older state is stale (:func:`act`)."""

    seats: tuple[int, ...]
    state_id: int

    def __init__(self, seats: tuple[int, ...], state_id: int) -> None:
        self.seats, self.state_id = seats, state_id


@dataclass(slots=True)
class EnterPhase(Effect):
    """Enter ``phase``."""

    phase: Phase


@dataclass(slots=True, init=False)
class EndTurn(Effect):
    """``seat``'s turn is over: its deadline is dropped (a fresh clock at its next turn)."""

    seat: int

    def __init__(self, seat: int) -> None:
        self.seat = seat


@dataclass(slots=True)
class Schedule(Effect):
    """Set the deadlines of the seats to act and arm the room's timer for the first one."""


@dataclass(slots=True)
class ClearClocks(Effect):
    """No more deadlines: the deadlines are dropped and the timer disarmed."""


@dataclass(slots=True, init=False)
class Broadcast(Effect):
    """Every member gets its update with ``events``; the acting connection, if any, first,
    with its answer (an ``ok``, or the update carrying the act's id)."""

    events: list[dict[str, Any]]

    def __init__(self, events: list[dict[str, Any]]) -> None:
        self.events = events


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
    """Free ``seat`` of a waiting room (its player left or was kicked, or, ``expired``,
    its grace window ended: then the lobby is told, which expires rooms nobody sits in)."""

    seat: int
    expired: bool = False


@dataclass(slots=True)
class Abandon(Effect):
    """``seat`` was abandoned in a playing room (its grace window ended, or its player left
    or was kicked): carry out :func:`abandon`."""

    seat: int


@dataclass(slots=True)
class SeatEvent(Effect):
    """Tell every member ``seat_event`` ``event`` of ``seat`` (``"left"``, ``"dropped"``,
    ``"bot"``, ``"forfeit"``...)."""

    seat: int
    event: str


@dataclass(slots=True)
class HoldSeat(Effect):
    """``seat`` is held for its player until ``until`` (unix time s; None: not held)."""

    seat: int
    until: float | None


@dataclass(slots=True)
class ToBot(Effect):
    """A server bot plays ``seat`` from now on (the seat is marked assisted: never ranked)."""

    seat: int


@dataclass(slots=True)
class VoidSeat(Effect):
    """``seat``'s token is voided (it cannot be resumed) and its account holds it no more
    (the ledger is told)."""

    seat: int


@dataclass(slots=True)
class Forfeit(Effect):
    """``seat`` forfeits the game: :func:`forfeit` applies it, and it is appended (should
    the append fail: :func:`forfeit_failed`)."""

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
        state_id: int, seat_version: Sequence[int]) -> Effect:
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
    kind = game.TYPE
    if kind.is_setting(action):
        entry = LogEntry.setting(seat, action)
    else:
        floor = seat_version[seat] if kind.real_time(game.options) else game.state_id
        if not floor <= state_id <= game.state_id:
            return Refuse(RoomError(
                "action/stale_state", f"the action was chosen against state {state_id}; "
                f"the room is at {game.state_id}: choose again from the latest view"))
        entry = act_entry(seat, action)
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
            effects.append(FreeSeat(s, expired=True) if game_phase is W else Abandon(s))
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


# -- seats given up ---------------------------------------------------------------------


def leave(game_phase: Phase, seat: int) -> list[Effect]:
    """The player of ``seat`` leaves it (a ``leave``, or an operator's kick after its own
    steps), as :func:`~.table.on_leave` says: a waiting room frees the seat; a playing one
    tells every member and abandons it at once (:func:`abandon`); a finished one does
    nothing more (the connection is detached already).

    Raises:
        TransitionError: in a closed room (``server/unavailable``).
    """
    leaving = on_leave(game_phase)
    if leaving is Leaving.FREE:
        return [FreeSeat(seat)]
    if leaving is Leaving.ABANDON:
        return [SeatEvent(seat, "left"), Abandon(seat)]
    return []


def drop(game_phase: Phase, seat: int, grace_seconds: float, now: float) -> list[Effect]:
    """The connection playing ``seat`` was lost at ``now`` (unix time s): unless the room
    is finished (:func:`~.table.holds_on_drop`), the seat is held ``grace_seconds`` for its
    player to resume, every member is told, the timer armed for the window's end and the
    state saved."""
    if not holds_on_drop(game_phase):
        return []
    return [HoldSeat(seat, now + grace_seconds), SeatEvent(seat, "dropped"), SCHEDULE,
            SAVE_STATE]


def abandon(game_phase: Phase, reloading: bool, on_abandon: str, seat: int,
            now: float) -> list[Effect]:
    """``seat`` was abandoned at ``now`` (unix time s; its grace window ended, or its
    player left or was kicked): in a playing room, as the room option ``on_abandon`` says.
    ``"bot"``: a server bot takes the seat (told, saved, and it moves if it may);
    ``"forfeit"``: every member is told, the seat's token is voided and the seat forfeits
    (:class:`Forfeit`), unless the room is reloading: then the seat's window ends again at
    once, and it forfeits by the timer once the room has reloaded. Nothing in another
    phase."""
    if game_phase is not P:
        return []
    if on_abandon == "bot":
        return [HoldSeat(seat, None), ToBot(seat), SeatEvent(seat, "bot"), SAVE_STATE,
                WAKE_BOTS]
    if reloading:
        return [HoldSeat(seat, now)]
    return [HoldSeat(seat, None), SeatEvent(seat, "forfeit"), VoidSeat(seat), Forfeit(seat)]


def forfeit_failed(seat: int, now: float) -> list[Effect]:
    """The append of ``seat``'s forfeit failed (the room reloads): its window ends at
    ``now`` again, so the timer forfeits it once the room has reloaded."""
    return [HoldSeat(seat, now)]
