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
The action path (an ``act``, the store's answer, the timer, a reload) is in :mod:`.play`,
events in and effects out.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from ...games.options import Option, parse_options
from ...protocol import fairness
from ..phases import Phase as Phase  # re-exported
from ..phases import RoomError as RoomError  # re-exported
from ..phases import TransitionError as TransitionError  # re-exported
from ..phases import is_phase as is_phase  # re-exported

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
    Option("rated", bool, False, "A rated game (issue #45, server/rated.py): public, the "
           "deal drawn by the server, an abandoned seat forfeits; its result moves ratings."),
    Option("bot_strategy", str, "greedy", "The server bots' strategy (the game's own: "
           "Skipper has greedy, random and expert).", choices=("greedy", "random", "expert")),
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
    """What the seat rules read of a taken seat (:class:`~cardhall.server.room.seats.Seat`)."""

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
    @property
    def session_id(self) -> str: ...  # the session that played it last ("": none known)


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


def dropped_seat(seats: Sequence[SeatLike | None], session: str) -> int | None:
    """The seat held for ``session``'s dropped connection (no connection now, not a bot's,
    not forfeited, and played last by ``session``), or None. A request from that session
    on its still open connection is proof that the room can reach it again (protocol/README.md
    "Reconnection", step 6: the room's server lost contact with the client's for a while)."""
    if session:
        for s, h in enumerate(seats):
            if h is not None and h.conn is None and not h.bot and h.token \
                    and h.session_id == session:
                return s
    return None


def check_starter(seats: Sequence[SeatLike | None], host: str, by: object | None,
                  session: str, back: int | None = None) -> None:
    """Check that ``by`` (a connection with ``session``; None: the server) may start the
    room: the host's session, or the connection holding the host's seat (a host that
    reconnected and resumed its seat), or about to take it back (``back``: the seat
    :func:`dropped_seat` found for ``session``).

    Raises:
        RoomError: ``room/not_host``.
    """
    if by is not None and session != host and not any(
            h is not None and h.host and (h.conn is by or s == back)
            for s, h in enumerate(seats)):
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


class Derived(enum.Enum):
    """A move the room makes by itself when its state says so (:data:`DERIVED`)."""

    START = "start"    # every seat of a waiting room is taken: it plays
    FINISH = "finish"  # the game is over: the room is finished
    EXPIRE = "expire"  # nobody sits in a waiting room: the lobby may expire it
    NONE = "none"


#: The derived moves, after the transition table: (phase, what the state says) -> the move.
#: What the state says: ``"full"`` (every seat taken), ``"over"`` (the game is over),
#: ``"empty"`` (no seat taken).
DERIVED: dict[tuple[Phase, str], Derived] = {
    (W, "full"): Derived.START,
    (P, "over"): Derived.FINISH,
    (W, "empty"): Derived.EXPIRE,
}


def derived(phase: Phase, seats: Sequence[SeatLike | None], over: bool) -> Derived:
    """The move :data:`DERIVED` says a room in ``phase`` with ``seats`` (and its game
    ``over`` or not) makes by itself: the join that takes the last seat starts the room,
    a game over finishes it, a waiting room nobody sits in may expire."""
    if over:
        said = "over"
    elif all(h is not None for h in seats):
        said = "full"
    elif all(h is None for h in seats):
        said = "empty"
    else:
        return Derived.NONE
    return DERIVED.get((phase, said), Derived.NONE)


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


#: Seconds in a day (``--solo-keep DAYS``).
DAY_SECONDS = 86_400.0
#: The keep window of a solo game kept until its player resigns or finishes it (``--solo-keep
#: 0``): a century, so that the timer always has a moment to wait for.
KEEP_FOR_EVER = 36_500 * DAY_SECONDS


def solo_keep(settings: Mapping[str, Any], seat_count: int) -> float | None:
    """Seconds a solo game its player left, or lost the connection to, is kept for that
    player, paused (issue #44 item 1: never given to a bot that would play it out in the
    player's name): the room setting ``solo_keep`` the lobby gives every one-seat room
    (``--solo-keep``); None for a room of several seats or one stored without it."""
    keep = settings.get("solo_keep") if seat_count == 1 else None
    return float(keep) if keep else None


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
    if (holder is None or holder.assisted or holder.bot or chosen_deal
            or not holder.account):
        return None
    return holder.account


def commitment(seed: int, salt: str) -> str | None:
    """The deal commitment of ``seed`` and ``salt`` (64 hex digits:
    :func:`cardhall.protocol.fairness.commitment`), or None without a salt (a room stored
    before salts were kept)."""
    return fairness.commitment(seed, salt) if salt else None
