"""What a :class:`~.table.Table` asks of its driver: a handful of output kinds, in order
(after websockets' ``data_to_send()`` and h11's events).

Every input of the table (a join, an ``act``, the timer, the store's answer...) returns a
list of these; the driver (:class:`~cardhall.server.room.Room`) carries them out in order:

- :class:`Send`: a message to one member, or to every member;
- :class:`Fanout`: every member's update (its full view, or a delta: :mod:`.views`);
- :class:`Save`: the room's state to the store, now (awaited before what follows: "saved
  before anyone is told") or soon (coalesced);
- :class:`Append`: an entry of the game's log to the store, whose answer goes back to
  the table (:meth:`~.table.Table.appended`, :meth:`~.table.Table.failed`);
- :class:`Timer`: the next moment the table wants its :meth:`~.table.Table.timer` input;
- :class:`Bots`: a server bot may move after ``delay`` s (:meth:`~.table.Table.bot_turn`);
- :class:`Notice`: something the world outside the room is told (the lobby, the account
  ledger, the metrics and logs, the store's side writes);
- :class:`Result`: the value of an input for its caller (an operator's kick, a mute).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ... import protocol as p
from ...games import LogEntry
from .play import Effect
from .seats import Peer

__all__ = ["Append", "Bots", "Fanout", "Notice", "Output", "Result", "Save", "Send", "Timer"]


class Output:
    """What the driver is to do (a base of the output kinds below; values, never changed
    once made). The kinds made at every action (:class:`Send`, :class:`Fanout`,
    :class:`Append`, :class:`Timer`, :class:`Notice`) write their ``__init__`` out
    (``init=False``): mypyc compiles it, where a dataclass's generated one runs as Python
    and costs ~6 times as much per output (issue #43). Equality and repr stay the
    dataclass's."""

    __slots__ = ()


@dataclass(slots=True, init=False)
class Send(Output):
    """Send ``msg`` (a message, or a frame already encoded) to ``to``, or to every member
    (``to`` None). ``fenced``: only while the room's lease is known to hold (a
    ``game_over``: :meth:`~cardhall.server.room.Room.lease_current`)."""

    to: Peer | None
    msg: p.Message | bytes
    fenced: bool

    def __init__(self, to: Peer | None, msg: p.Message | bytes, fenced: bool = False) -> None:
        self.to, self.msg, self.fenced = to, msg, fenced


@dataclass(slots=True, init=False)
class Fanout(Output):
    """Every member's update after ``events`` (:func:`.views.send_all`): ``first`` (the
    acting member) first, its ``lead`` frame (the ``ok`` of its ``act``) ahead of its
    update, or its update carrying ``re``. Fenced by the lease."""

    events: list[dict[str, Any]]
    first: Peer | None
    lead: bytes | None
    re: Any

    def __init__(self, events: list[dict[str, Any]], first: Peer | None = None,
                 lead: bytes | None = None, re: Any = None) -> None:
        self.events, self.first, self.lead, self.re = events, first, lead, re


@dataclass(slots=True)
class Save(Output):
    """Write the room's state (:meth:`~.table.Table.state`) to the store. ``now``: before
    the outputs after it; should it fail, the table is put back with ``undo``
    (:meth:`~.table.Table.undo`; None: left as it is) and the input fails. Else soon, one
    write for all the saves of a work item."""

    now: bool
    undo: Any = None


@dataclass(slots=True, init=False)
class Append(Output):
    """Append ``entry`` (applied to the engine already, with ``events``) to the store's
    log, then give the answer back to the table. ``origin``: ``"act"`` (``conn``'s, request
    id ``re``, chosen at ``started``, ``time.perf_counter()`` s), ``"bot"``, ``"timeout"``
    or ``"forfeit"`` (of ``seat``); ``then``: the rules' steps that wait for it."""

    entry: LogEntry
    events: list[dict[str, Any]]
    conn: Peer | None
    re: Any
    origin: str
    seat: int
    started: float
    then: list[Effect]

    def __init__(self, entry: LogEntry, events: list[dict[str, Any]], conn: Peer | None = None,
                 re: Any = None, origin: str = "act", seat: int = -1, started: float = 0.0,
                 then: list[Effect] | None = None) -> None:
        self.entry, self.events, self.conn, self.re = entry, events, conn, re
        self.origin, self.seat, self.started = origin, seat, started
        self.then = [] if then is None else then


@dataclass(slots=True, init=False)
class Timer(Output):
    """Call :meth:`~.table.Table.timer` at ``at`` (unix time s; None: no timer)."""

    at: float | None

    def __init__(self, at: float | None) -> None:
        self.at = at


@dataclass(slots=True)
class Bots(Output):
    """A server bot may move: call :meth:`~.table.Table.bot_turn` after ``delay`` s."""

    delay: float


@dataclass(slots=True, init=False)
class Notice(Output):
    """Tell the world outside the room ``what`` (with ``args``): ``"seats"`` (the lobby: a
    waiting room's seat was taken or freed; ``args`` (expired,)), ``"finished"`` (the
    lobby: the game is over), ``"lost"`` (another process owns the room), ``"seated"`` and
    ``"unseated"`` (the ledger: ``(account, seat)``, ``(account,)``), ``"started"`` and
    ``"ended"`` (logs, metrics, the ledger), ``"refused"`` (an action refused: metrics),
    ``"rank"`` (``(account,)``: the leaderboard), ``"reload"`` (reload the game from the
    store), ``"snapshot"`` (``(log length, snapshot)``: write it), ``"facts"`` (send the
    room facts soon)."""

    what: str
    args: tuple[Any, ...]

    def __init__(self, what: str, args: tuple[Any, ...] = ()) -> None:
        self.what, self.args = what, args


@dataclass(slots=True)
class Result(Output):
    """The value of the input for its caller (:meth:`~cardhall.server.room.Room.apply`
    returns it)."""

    value: Any
