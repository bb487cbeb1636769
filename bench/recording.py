"""What the drills' bots record, and the check of a room's log against it (``cardhall
chaos``, :mod:`.chaos`): every ``act`` a bot sent with its result (:class:`Attempt`, recorded
by :class:`RecordingClient`), and :func:`audit`, which finds acknowledged actions the log lost
and log entries nobody asked for.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from typing import Any

from .. import protocol as p
from ..client.client import Client, ConnectionLost, ServerError
from ..games import get
from .views import shared_digest

#: The per-seat keys of a Skipper view (the drill's tables play Skipper): left out of the
#: digest of a view's shared part.
_PER_SEAT = get("skipper").TYPE.per_seat_view_keys


@dataclass
class Attempt:
    """One ``act`` a bot sent.

    Attributes:
        room: Room id.
        seat: The bot's seat.
        state_id: The ``state_id`` the action was chosen against.
        action: The action.
        result: ``"ok"`` (acknowledged), ``"error:CODE"`` (refused), ``"lost"`` (the
            connection dropped before the reply) or ``"timeout"`` (no reply in time).
        sent: ``time.monotonic()`` when it was sent, in seconds.
        answered: ``time.monotonic()`` when its result came (None: pending), in seconds.
    """

    room: str
    seat: int
    state_id: int
    action: list[Any]
    result: str = "pending"
    sent: float = field(default_factory=time.monotonic)
    answered: float | None = None


class RecordingClient(Client):
    """The :class:`cardhall.client.client.Client` the drills' bots use: it records every
    ``act`` and its result (:class:`Attempt`), every seat event, unsolicited ``left``, every
    ``resume`` refused after a reconnect, every time a room's ``state_id`` went backwards in
    what it received, and a digest of the shared part of each view it applied (the drill's
    tables play Skipper). Its constructor takes the client's arguments.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        """See :class:`~cardhall.client.client.Client`."""
        super().__init__(*args, **kwargs)
        self.attempts: list[Attempt] = []
        self.seat_events: list[tuple[str, int, str]] = []
        self.backwards: list[tuple[str, int, int, str]] = []
        self.unsolicited_left: list[str] = []
        self.seen: dict[str, int] = {}
        #: (room, state_id) -> digest of the shared part of the view applied there.
        self.shared: dict[tuple[str, int], str] = {}
        self.think = 0.0
        self.resume_failures: list[tuple[str, str]] = []

    async def act(self, room: str, action: Any, state_id: int | None = None) -> None:
        """:meth:`Client.act`, recorded as an :class:`Attempt` with its result, after
        ``think`` seconds."""
        if state_id is None:
            state_id = int(self.views[room]["state_id"])
        if self.think:
            # Paces the game after the choice (play_seat's own ``think`` sleeps before
            # choosing from a view that may change meanwhile, and the strategy raises
            # when the view has no legal action left).
            await asyncio.sleep(self.think)
        seat = self.seats[room][0] if room in self.seats else -1
        rec = Attempt(room, seat, state_id, list(action))
        self.attempts.append(rec)
        try:
            await super().act(room, action, state_id)
        except ServerError as exc:
            rec.result = f"error:{exc.code}"
            raise
        except ConnectionLost:
            rec.result = "lost"
            raise
        except (TimeoutError, asyncio.CancelledError):
            rec.result = "timeout"  # play_seat's act_timeout cancels the request
            raise
        finally:
            rec.answered = time.monotonic()
        rec.result = "ok"

    async def _request(self, msg: p.ClientMessage) -> p.Message:
        try:
            return await super()._request(msg)
        except (ServerError, ConnectionLost, TimeoutError) as exc:
            if isinstance(msg, p.Resume):  # the client gives the seat up: note why
                code = exc.code if isinstance(exc, ServerError) else type(exc).__name__
                self.resume_failures.append((msg.room, code))
            raise

    def _dispatch(self, msg: p.Message) -> None:
        sid: int | None = None
        room = getattr(msg, "room", None)
        if isinstance(msg, (p.Update, p.GameOver)):
            sid = msg.state_id
        elif isinstance(msg, p.Joined) and isinstance(msg.view, dict):
            sid = msg.view.get("state_id")
        elif isinstance(msg, p.SeatEvent):
            self.seat_events.append((msg.room, msg.seat, msg.event))
        elif isinstance(msg, p.Left) and msg.re is None:
            self.unsolicited_left.append(msg.room)
        if isinstance(room, str) and isinstance(sid, int):
            before = self.seen.get(room, -1)
            if sid < before:
                full = not isinstance(msg, p.Update) or msg.view is not None
                what = f"{msg.TYPE} ({'full view' if full else 'delta'}, via {self.url})"
                self.backwards.append((room, before, sid, what))
            self.seen[room] = max(before, sid)
        super()._dispatch(msg)
        view = self.views.get(room) if isinstance(room, str) else None
        if isinstance(msg, (p.Update, p.Joined)) and isinstance(room, str) and view:
            self.shared[(room, view.get("state_id", -1))] = shared_digest(view, _PER_SEAT)


def audit(room: str, entries: list[Any], attempts: list[Attempt],
          bot_seats: set[int] | frozenset[int] = frozenset()) -> dict[str, Any]:
    """Check a turn-based room's log against the ``act``s its bots sent.

    An action accepted against ``state_id`` S is log entry S (0-based: entry S made state
    S + 1; protocol spec "state_id and stale actions").

    Args:
        room: Room id (for the details).
        entries: The room's whole log, ``[kind, seat, action]`` entries (kind ``"a"``: an
            action, ``"f"``: a forfeit).
        attempts: Every ``act`` sent to the room, with its result.
        bot_seats: Seats a server bot took over: their unexplained entries are the bot's.

    Returns:
        ``acked`` (acts answered ``ok``), ``lost`` (acked but not at their entry),
        ``doubled`` (action entries no attempt of that seat, action and state explains),
        ``bot_moves`` (unexplained entries of ``bot_seats``), ``applied_unacked`` (in the
        log though their reply never came), ``details`` (one line per lost or doubled).
    """
    out: dict[str, Any] = {"acked": 0, "applied_unacked": 0, "lost": 0, "doubled": 0,
                           "bot_moves": 0, "details": []}
    explained = {(a.seat, a.state_id, _key(a.action)) for a in attempts}
    acked = {(a.seat, a.state_id, _key(a.action)) for a in attempts if a.result == "ok"}
    for a in attempts:
        at = a.state_id
        there = (0 <= at < len(entries) and entries[at][0] == "a" and entries[at][1] == a.seat
                 and _key(entries[at][2]) == _key(a.action))
        if a.result == "ok":
            out["acked"] += 1
            if not there:
                out["lost"] += 1
                got = entries[at] if 0 <= at < len(entries) else None
                out["details"].append(
                    f"room {room}: lost: seat {a.seat} {a.action} acked at state {at}; the "
                    f"log has {got} there (length {len(entries)})")
    for i, (kind, seat, action) in enumerate(entries):
        if kind != "a":
            continue
        if (seat, i, _key(action)) in explained:
            out["applied_unacked"] += (seat, i, _key(action)) not in acked
            continue
        if seat in bot_seats:
            out["bot_moves"] += 1
        else:
            out["doubled"] += 1
            out["details"].append(f"room {room}: doubled: log entry {i} {[kind, seat, action]} "
                                  "matches no act of that seat at that state")
    return out


def _key(action: Any) -> str:
    """A hashable, comparable form of an action (lists and tuples alike)."""
    return repr(list(action) if isinstance(action, (list, tuple)) else action)
