"""A room's clocks and server bots: turn and bid deadlines, the grace of dropped seats,
and the bots that play abandoned seats.

:class:`RoomClocks` holds the :class:`~cardhall.server.room.Room` methods that arm the
room's one timer (:meth:`RoomClocks._schedule`), play the game's default action when a turn
runs out, and queue server-bot actions (:meth:`RoomClocks._wake_bots`).
"""

from __future__ import annotations

import asyncio
import random
import secrets
import time

from mypy_extensions import trait

from . import play
from ..metrics import observe_action
from .rules import Phase
from .parts import RoomParts

PLAYING = Phase.PLAYING

#: Seconds an armed timer may fire after the first deadline and still be kept
#: (:meth:`RoomClocks._schedule`): the same deadline, converted from wall-clock to loop
#: time again, comes out some microseconds apart.
TIMER_SLACK = 0.001

#: Server bots' seconds per action in real-time games when ``bot_seconds`` is not set.
REAL_TIME_BOT_SECONDS = 1.0


@trait
class RoomClocks(RoomParts):
    """The timers and server bots of a :class:`~cardhall.server.room.Room` (a base class of
    it, so that its state stays in one place; these methods run inside the room task)."""

    __slots__ = tuple[str, ...]()

    def _schedule(self) -> None:
        """Set deadlines for the seats to act and the grace windows; arm one timer, for the
        first of them. A timer already armed that fires no later is kept (an action moves
        the first deadline later, as a rule: a fresh turn's): when it fires with nothing run
        out, :meth:`_on_timer` arms the next. No timer and no deadline: nothing armed."""
        if (self._timer is None and not self.deadlines and self.settings["turn_seconds"] is None
                and self.settings["bid_seconds"] is None
                and all(h is None or h.grace_until is None for h in self.seats)):
            return  # no clocks in this room and none running: nothing to set
        now = time.time()
        if self.game_phase is PLAYING:
            turn = self.settings["turn_seconds"]
            bid = self.settings["bid_seconds"] or turn
            game = self.dealt()
            acting = set(game.to_act())
            in_auction = game.bidding
            for s in list(self.deadlines):
                if s not in acting:
                    del self.deadlines[s]
            for s in acting:
                holder = self.seats[s]
                limit = bid if in_auction else turn
                if limit is None or holder is None or holder.bot:
                    self.deadlines.pop(s, None)
                elif s not in self.deadlines:
                    self.deadlines[s] = now + limit
        moments = list(self.deadlines.values()) + [
            h.grace_until for h in self.seats if h is not None and h.grace_until is not None]
        timer = self._timer
        if not moments:
            if timer is not None:
                timer.cancel()
                self._timer = None
            return
        loop = asyncio.get_running_loop()
        due = loop.time() + max(0.0, min(moments) - now)  # loop time of the first moment
        if timer is not None:
            if timer.when() <= due + TIMER_SLACK:
                return  # it fires first (or has fired: its _on_timer is queued)
            timer.cancel()
        self._timer = loop.call_at(due, self.post, self._on_timer)

    async def _on_timer(self) -> None:
        """The room's timer fired: carry out :func:`~.play.on_timer` (grace windows that
        ended: seats freed or abandoned) and :func:`~.play.turns_due` (turns that ran out:
        their defaults played)."""
        self._timer = None
        await self._carry_out_awaiting(
            play.on_timer(self._broken, self.game_phase, self.seats, time.time()))

    async def _play_defaults(self, seats: tuple[int, ...]) -> None:
        """Turn timer expired: tell the room (``seat_event timeout``), then play the game's
        default for each seat until its turn ends (:func:`~.play.timeout_step`,
        :func:`~.play.turn_ends`), at most 16 actions. Should the store fail meanwhile,
        the seat keeps its expired deadline: the timer fires again once the room has
        reloaded (:meth:`_reload`)."""
        for seat in seats:
            due = self.deadlines.pop(seat, None)
            if not self.dealt().over and seat in self.dealt().to_act():
                self._seat_event(seat, "timeout")  # why the seat plays what follows
            for _ in range(16):
                step = play.timeout_step(self.dealt(), seat)
                if step is None:
                    break
                if not await self._persist(step, None, None):
                    if due is not None:
                        self.deadlines[seat] = due
                    return
                if play.turn_ends(self.dealt(), step.entry):
                    break
        if not self.dealt().over:
            self._schedule()

    def _wake_bots(self) -> None:
        """Queue a server-bot action when a bot seat may act: at once, or after
        ``bot_seconds`` (one pending at a time; see :data:`REAL_TIME_BOT_SECONDS`)."""
        if self.game_phase is not PLAYING or self._bot_timer is not None:
            return
        game = self.dealt()
        if game.over:
            return
        to_act = game.to_act()
        if not any((h := self.seats[s]) is not None and h.bot for s in to_act):
            return
        delay = self.settings.get("bot_seconds")
        if delay is None:
            delay = REAL_TIME_BOT_SECONDS if game.TYPE.real_time(self.options) else 0.0
        if delay <= 0:
            self.post(self._bot_step)
        else:
            loop = asyncio.get_running_loop()
            self._bot_timer = loop.call_later(
                delay, self._bot_due)

    def _bot_due(self) -> None:
        self._bot_timer = None
        self.post(self._bot_step)

    async def _bot_step(self) -> None:
        """One server-bot action for a bot seat that may act: when several may (real-time
        games: ``GameType.real_time``), one drawn at random from the room's bot generator, so
        every bot moves."""
        await asyncio.sleep(0)  # a room of bots must not starve the other rooms
        if self._broken:  # its reload wakes the bots again
            return
        if self.game_phase is not PLAYING or self.dealt().over:
            return
        ready = [s for s in self.dealt().to_act()
                 if (holder := self.seats[s]) is not None and holder.bot]
        if not ready:
            return
        if self._bot_rng is None:
            self._bot_rng = random.Random(secrets.randbits(64))
        s = ready[0] if len(ready) == 1 else ready[self._bot_rng.randrange(len(ready))]
        # The strategy decides in a worker thread, on a plain copy of the seat's view: a
        # planning bot (The Shah's takes up to tens of ms) must not stall every other room
        # of the process. The room's next work item waits for this one meanwhile, so the
        # game cannot change under the decision.
        view = dict(self.dealt().bot_view(s))
        action = await asyncio.to_thread(self._bot, view, self._bot_rng)
        move = play.bot_move(self._broken, self.dealt(), s, action)
        if move is not None and await self._persist(move, None, None):
            observe_action(self.metrics, None)
