"""A room at the terminal: the table drawn by the game's renderer, the events told in words,
and the numbered actions, played by typing their number.

The table is printed when it changes (the scrollback keeps the game's story); the action
menu, the turn clocks and the question stay at the bottom, in the console's prompt area
(:class:`~.console.PromptArea`), so that a race's events never scroll the menu away and
nothing is printed again because a bot moved. The commands are in
:data:`~.text.ROOM_HELP`; giving up (:data:`GIVE_UP_VERBS`) asks ``y/N`` first.
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from typing import Any

from ... import protocol as p
from ...protocol import fairness
from ..client import ConnectionLost, ServerError
from ..renderers import event_describer, renderer
from .console import PromptArea
from .core import Terminal
from .text import (RENDER_ERRORS, ROOM_HELP, chat_line_text, event_text, menu_lines,
                   seat_event_text)

#: Seconds before a turn clock runs out at which the player is warned.
WARN_SECONDS = 10.0
#: Delta keys after which the table is redrawn (otherwise only the events are printed).
_REDRAW_KEYS = frozenset({"legal_actions", "to_act", "turn", "hand", "auction", "over",
                          "outcome"})
#: Action verbs that give the game up: choosing one asks for a y/N confirmation first.
GIVE_UP_VERBS = frozenset({"close_shop", "resign"})
#: Unsolicited errors that say why the server removed the player from a room.
_REMOVALS = frozenset({"room/kicked", "room/closed"})
#: Lines of a room's chat history shown on joining (the server sends up to 50).
CHAT_HISTORY_SHOWN = 10


class Table:
    """The room being played or watched, in one :class:`~.core.Terminal`.

    Args:
        term: The terminal.
        joined: The server's ``joined`` for the room.
        game: The room's game (chooses the renderer).

    Attributes:
        seat: The player's seat, or None when watching.
        menu: Actions of the current menu, numbered from 1 (empty: nothing to choose).
        menu_block: The menu's lines as the prompt area shows them (``your actions:``,
            then the numbered phrases in columns).
        menu_state: ``state_id`` of the view the menu was drawn from.
        warned: Deadlines (unix seconds) already warned about.
        last_state: ``state_id`` of the last update handled (to notice missed ones).
        last_drawing: The lines of the last drawing (an identical one is not printed).
        confirm: A give-up action and its ``state_id``, waiting for the player's ``y``.
        dirty: The table changed since it was last drawn.
    """

    def __init__(self, term: Terminal, joined: p.Joined, game: str) -> None:
        self.term = term
        self.client = term.client
        self.room = joined.room
        self.game = game
        self.seat = joined.seat
        self.render, self.describe = renderer(game)
        self.describe_event = event_describer(game)
        self.menu: list[Sequence[Any]] = []
        self.menu_block: tuple[str, ...] = ()
        self.menu_state = -1
        self.warned: set[float] = set()
        self.dirty = True
        self.last_state = int(self.view.get("state_id", -1))
        self.last_drawing: list[str] = []
        self.confirm: tuple[Sequence[Any], int] | None = None

    @property
    def view(self) -> dict[str, Any]:
        """The room's current view (the client applies the deltas)."""
        return self.client.views.get(self.room, {})

    @property
    def facts(self) -> dict[str, Any]:
        """The server's room facts in the view (``room``: status, players, deadlines)."""
        return self.view.get("room") or {}

    async def run(self) -> bool:
        """Play or watch until the player leaves, the game ends, or the server removes the
        player.

        Returns:
            True when the player quit (``q`` or end of input), False to go back to the lobby.

        Raises:
            Interrupted: Ctrl-C (the seat is kept).
            Disconnected: the server connection is gone.
        """
        term = self.term
        term.say(f"joined room {self.room} ({self.game}) "
                 + (f"in seat {self.seat}" if self.seat is not None else "as a spectator"))
        if self.seat is not None:
            term.keep_seat(self.room, self.game, self.facts.get("mode") or self.view.get("mode"))
        if self.facts.get("status") == "finished":  # e.g. resumed after the game ended
            self.draw_final()
            term.say("this game is over; back to the lobby")
            term.forget_seat(self.room)
            await self._leave()
            return False
        try:
            return await self._loop()
        finally:
            term.console.show(PromptArea(""))  # no menu of this room below the next words

    async def _loop(self) -> bool:
        """The room's event loop (see :meth:`run`): the table is drawn at once, then again
        whenever no event is pending (a burst of events makes one drawing)."""
        term = self.term
        self._refresh_screen()  # before any line typed ahead is read
        while True:
            if term.events.empty():
                self._refresh_screen()
            kind, payload = await term.events.get()
            if kind == "push":
                done = await self._on_push(payload)
            elif kind == "line":
                done = await self._on_line(str(payload).strip())
            elif kind == "tick":
                self._on_tick()
                continue
            elif kind == "conn":
                done = self._on_connection_event(*payload)
            elif kind == "eof":
                await self._leave()
                return True
            else:
                term.end_of_input(kind)
                continue
            if done is not None:
                return done

    # -- what the screen shows --------------------------------------------------------------

    def _refresh_screen(self) -> None:
        """Once no event is pending: draw a changed table (not the final one: the
        ``game_over`` that follows draws it), and show the current prompt area."""
        if self.dirty and not self.view.get("over"):
            self.draw()
        self.term.console.show(self._area())

    def _area(self) -> PromptArea:
        """The prompt area now: a y/N question, the action menu with its question, or the
        commands that apply (``s start`` only while the room waits, for its host)."""
        if self.confirm is not None:
            return PromptArea(f"really {self._describe(self.confirm[0])}? [y/N]> ")
        if self.menu:
            return PromptArea(f"your move [1-{len(self.menu)}, v l q ?]> ", self.menu_block,
                              self.clock_line)
        start = "s start, " if self._may_start() else ""
        return PromptArea(f"[{start}v redraw, l leave, q quit, ? help]> ", (), self.clock_line)

    def _may_start(self) -> bool:
        """The room waits and this player may start it: seated, and the host (when the
        server names the host in ``room.players``; older servers do not: the server then
        decides)."""
        if self.facts.get("status") != "waiting" or self.seat is None:
            return False
        players = [pl for pl in self.facts.get("players") or [] if isinstance(pl, dict)]
        if not any("host" in pl for pl in players):
            return True
        mine = (self.facts.get("players") or [])[self.seat:self.seat + 1]
        return bool(mine and isinstance(mine[0], dict) and mine[0].get("host"))

    def seat_label(self, seat: int) -> str:
        """``"seat 1 bob"``, ``"seat 0 alice (you)"``: the seat with its player's name."""
        players = self.facts.get("players") or []
        player = players[seat] if 0 <= seat < len(players) else None
        label = f"seat {seat}"
        if isinstance(player, dict):
            label += f" {player.get('name')}"
        if seat == self.seat:
            label += " (you)"
        return label

    def _drawing(self) -> tuple[list[str], list[Sequence[Any]]]:
        """The table as lines (without the clocks) and the actions the menu offers."""
        view, info = self.view, self.facts
        status = str(info.get("status", "?"))
        who = f"you are seat {self.seat}" if self.seat is not None else "you are watching"
        lines = [(f"room {self.room}  {self.game} {view.get('mode') or ''}  {status}  "
                  f"state {view.get('state_id')}  {who}")]
        try:
            lines.append(self.render(view, color=self.term.color))
        except RENDER_ERRORS as exc:  # a renderer bug must not end the game
            lines.append(f"(cannot draw this table: {type(exc).__name__}: {exc})")
        lines.append(self._players_line(info))
        menu: list[Sequence[Any]] = []
        if status == "waiting":
            taken = sum(1 for pl in info.get("players") or [] if pl)
            starter = "type s to start" if self._may_start() else "the host starts the game"
            lines.append(f"waiting for players ({taken}/{len(info.get('players') or [])} "
                         f"seats); {starter} (empty seats get bots)")
        elif view.get("over"):
            lines.append("game over")
        else:
            lines.append(self._turn_line(view))
            if status == "playing":
                menu = list(view.get("legal_actions") or [])
        return lines, menu

    def draw(self, *, force: bool = False) -> None:
        """Print the table, players and whose turn (and, on a console without a live line,
        the clocks) when it differs from the last drawing (or ``force``); set the action
        menu from the current view."""
        lines, menu = self._drawing()
        self.dirty = False
        self.menu, self.menu_state = menu, int(self.view.get("state_id", -1))
        self.menu_block = (("your actions:", *menu_lines([self._describe(a) for a in menu],
                                                          self.term.width)) if menu else ())
        if lines == self.last_drawing and not force:
            return
        self.last_drawing = lines
        self.term.say("-" * min(self.term.width, 100) + "\n" + "\n".join(lines))
        clocks = self.clock_line()
        if clocks and not self.term.console.live:
            self.term.say(clocks)

    def _describe(self, action: Sequence[Any]) -> str:
        try:
            return self.describe(action)
        except RENDER_ERRORS:  # an odd action must still be choosable
            return " ".join(map(str, action))

    def _players_line(self, info: dict[str, Any]) -> str:
        names = []
        for seat, player in enumerate(info.get("players") or []):
            if player is None:
                names.append(f"{seat} (empty)")
                continue
            label = f"{seat} {player.get('name')}"
            if seat == self.seat:
                label += " (you)"
            if player.get("bot"):
                label += " [bot]"
            elif not player.get("connected", True):
                label += " [dropped]"
            if player.get("host"):
                label += " [host]"
            names.append(label)
        return "players: " + (", ".join(names) or "-")

    def clock_line(self, now: float | None = None) -> str:
        """The turn clocks, e.g. ``"clocks: seat 0 alice (you) 27 s left"``; ``""`` if none.

        Args:
            now: Current unix time in seconds (default ``time.time()``).
        """
        now = time.time() if now is None else now
        deadlines = self.facts.get("deadlines") or []
        parts = [f"{self.seat_label(int(seat))} {max(0, round(when - now))} s left"
                 for seat, when in deadlines]
        return "clocks: " + ", ".join(parts) if parts else ""

    def _turn_line(self, view: dict[str, Any]) -> str:
        to_act = list(view.get("to_act") or [])
        if self.seat is not None and self.seat in to_act and view.get("legal_actions"):
            return "your turn: type the number of an action"
        if not to_act:
            return "nobody to act"
        return "waiting for " + ", ".join(self.seat_label(s) for s in to_act)

    def _on_tick(self) -> None:
        """Warn once when the player's own clock is about to run out."""
        if self.seat is None:
            return
        now = time.time()
        for seat, when in self.facts.get("deadlines") or []:
            if seat == self.seat and when not in self.warned and 0 < when - now <= WARN_SECONDS:
                self.warned.add(when)
                self.term.say(f"clock: {round(when - now)} s left for your move "
                              "(then the server plays a default)")

    def draw_final(self) -> None:
        """Print the final table (no menu)."""
        try:
            self.term.say("-" * min(self.term.width, 100) + "\n"
                          + self.render(self.view, color=self.term.color))
        except RENDER_ERRORS as exc:
            self.term.error(f"cannot draw this table ({type(exc).__name__}: {exc})")
        self.dirty = False
        self.menu, self.menu_block = [], ()

    # -- the connection and the server's pushes ---------------------------------------------

    def _on_connection_event(self, event: str, facts: dict[str, Any]) -> bool | None:
        """Show a connection event in a room; back to the lobby (False) when the connection
        is back but the room could not be taken back (it did not survive a server restart,
        or the seat was given away)."""
        self.term.show_connection(event, facts)
        if event == "back" and self.room in (facts.get("lost_rooms") or []):
            self.term.error(f"room {self.room} is gone (the server restarted, or the seat "
                            "was given up); back to the lobby")
            self.term.forget_seat(self.room)
            self.client.seats.pop(self.room, None)
            self.client.spectating.discard(self.room)
            return False
        self.dirty = True
        return None

    async def _on_push(self, msg: Any) -> bool | None:
        """Handle one server push for this room.

        Returns:
            False to go back to the lobby (game over, removed from the room), else None.
        """
        if getattr(msg, "room", None) != self.room:
            return None
        if isinstance(msg, p.Update):
            await self._on_update(msg)
        elif isinstance(msg, p.SeatEvent):
            if self.facts.get("status") == "waiting":
                await self.term.request(self.client.get_view(self.room))  # fresh names
            self.term.say(seat_event_text(self.seat_label(msg.seat), msg.event))
            self.dirty = True
        elif isinstance(msg, p.ChatLines):
            self._on_chat(msg)
        elif isinstance(msg, p.Started):
            note = f" (deal commitment {msg.commitment})" if msg.commitment else ""
            self.term.say(f"* the game has started{note}")
            self.dirty = True
        elif isinstance(msg, p.GameOver):
            self._on_game_over(msg)
            await self._save_record()
            await self._leave()
            return False
        elif isinstance(msg, p.Left) and msg.re is None:
            notice = self.client.notices[-1] if self.client.notices else None
            if notice is not None and notice.code in _REMOVALS:  # the token is void now
                self.term.say(f"* you are no longer in room {self.room}: [{notice.code}] "
                              f"{notice.message}")
                self.term.forget_seat(self.room)
            else:
                self.term.say(f"* you are no longer in room {self.room} (closed, or taken "
                              "over from another connection)")
            return False
        return None

    def _on_chat(self, msg: p.ChatLines) -> None:
        """Print chat lines, but not those of names muted with ``mute`` (the history after
        joining: its last :data:`CHAT_HISTORY_SHOWN` lines)."""
        lines = [line for line in msg.lines if line.get("name") not in self.client.muted]
        if msg.history:
            lines = lines[-CHAT_HISTORY_SHOWN:]
            if lines:
                self.term.say("* recent chat:")
        for line in lines:
            self.term.say(chat_line_text(line))

    async def _on_update(self, msg: p.Update) -> None:
        """Print the update's events; mark the table for drawing when it matters to the
        player (a full view, the menu, the turn, the hand...); refetch after a gap."""
        if msg.events:
            self.term.say(". " + "; ".join(event_text(e, self.seat, self.describe_event)
                                           for e in msg.events))
        gap = msg.delta is not None and msg.state_id > self.last_state + 1
        self.last_state = max(self.last_state, msg.state_id)
        if gap:  # a missed update: the delta was applied to an older view
            await self.term.request(self.client.get_view(self.room))
        if (gap or msg.view is not None or msg.delta is None or self.seat is None
                or not _REDRAW_KEYS.isdisjoint(p.top_keys(msg.delta))):
            self.dirty = True

    def _on_game_over(self, msg: p.GameOver) -> None:
        """Draw the final table and say who won, why, the scores, and whether the revealed
        deal matches the commitment of the start."""
        view = self.view
        view["outcome"] = dict(msg.outcome)
        view["over"], view["legal_actions"] = True, []
        self.draw_final()
        outcome = msg.outcome
        winner = outcome.get("winner")
        solo = len(self.facts.get("players") or []) == 1
        verdict = ("you won" if winner is not None and winner == self.seat
                   else f"{self.seat_label(winner)} won" if winner is not None
                   else "you lost" if solo and self.seat is not None else "nobody won")
        extra = ", ".join(f"{k} {v}" for k, v in sorted((outcome.get("stats") or {}).items()))
        self.term.say(f"GAME OVER: {verdict} ({outcome.get('reason')}); scores "
                      f"{outcome.get('scores')}" + (f"; {extra}" if extra else ""))
        seen = self.client.commitments.get(self.room)
        if msg.seed is not None and msg.salt is not None and seen is not None:
            verdict = ("matches the commitment of the start" if fairness.matches(
                msg.seed, msg.salt, seen) else "DOES NOT MATCH the commitment of the start")
            self.term.say(f"* deal revealed: seed {msg.seed}, salt {msg.salt}: {verdict}")
        self.term.say("back to the lobby")

    async def _save_record(self) -> None:
        """With ``record_dir``: write the game record of the room there (for ``cardhall
        verify``) and say where; a failure is shown, not raised."""
        if self.term.record_dir is None:
            return
        path = os.path.join(self.term.record_dir, f"{self.room}.json")
        try:
            await self.client.save_game_record(self.room, path)
        except (ServerError, ConnectionLost, TimeoutError, OSError) as exc:
            self.term.error(f"game record not saved: {exc}")
            return
        self.term.say(f"* game record saved: check it with `cardhall verify {path}`")

    # -- typed lines ------------------------------------------------------------------------

    async def _on_line(self, line: str) -> bool | None:
        """Handle one typed line.

        Returns:
            True to quit, False to go back to the lobby, None to stay.
        """
        word = line.lower()
        if self.confirm is not None:
            await self._confirmed(word in ("y", "yes"))
        elif word.isdigit():
            await self._choose(int(word))
        elif word == "v":
            await self.term.request(self.client.get_view(self.room))
            self.draw(force=True)
        elif word == "s":
            await self._start()
        elif word == "t":
            await self._toggle_auto_trash()
        elif word in ("l", "q"):
            await self._leave()
            return word == "q"
        elif word in ("?", "h"):
            self.term.say(ROOM_HELP)
        elif word.split(maxsplit=1)[0] in ("c", "e", "mute", "unmute"):
            await self._chat_command(line)
        elif word:
            self.term.error(f"unknown command {line!r}: type an action number, v, s, t, "
                            "c TEXT, e, l, q or ?")
        return None

    async def _chat_command(self, line: str) -> None:
        """``c TEXT`` says TEXT, ``e WORD`` sends an emote (``e`` alone lists them), ``mute
        NAME`` / ``unmute NAME`` hide or show NAME's lines for this player only. A refusal
        (muted by an operator, too many lines, too long) is shown, not raised."""
        word, _, rest = line.strip().partition(" ")
        word, rest = word.lower(), rest.strip()
        if word in ("mute", "unmute"):
            if not rest:
                self.term.error(f"{word} whom? e.g. {word} Bob")
            elif word == "mute":
                self.client.muted.add(rest)
                self.term.say(f"* {rest}'s chat lines are hidden from you (unmute {rest})")
            else:
                self.client.muted.discard(rest)
                self.term.say(f"* {rest}'s chat lines are shown again")
            return
        if word == "e" and rest.replace(" ", "_") not in p.EMOTES:
            self.term.say("emotes: " + ", ".join(p.EMOTES))
            return
        if not rest:
            self.term.error("say what? c TEXT, e.g. c good luck")
            return
        try:
            if word == "e":
                await self.client.emote(self.room, rest.replace(" ", "_"))
            else:
                await self.client.say(self.room, rest)
        except p.BadValue as exc:
            self.term.error(f"not sent: {exc}")
        except (ServerError, ConnectionLost, TimeoutError) as exc:
            self.term.server_error(exc)

    async def _start(self) -> None:
        """``s``: ask the server to start the room (only while it waits)."""
        if self.facts.get("status") != "waiting":
            self.term.error("the game has already started (s starts a room that waits for "
                            "players)")
            return
        await self.term.request(self.client.start(self.room))

    async def _toggle_auto_trash(self) -> None:
        """Flip the seat's Skipper ``auto_trash`` preference (RULINGS K6m); explain when the
        room has none (not Skipper, a spectator, not started)."""
        view = self.view
        seat = view.get("seat")
        seats = view.get("seats")
        if (not isinstance(seat, int) or not isinstance(seats, list) or seat >= len(seats)
                or not isinstance(seats[seat], dict) or "auto_trash" not in seats[seat]):
            self.term.error("no auto-trash preference here (Skipper seats only)")
            return
        on = not seats[seat]["auto_trash"]
        try:
            await self.client.set_auto_trash(self.room, on)
        except (ServerError, ConnectionLost, TimeoutError) as exc:
            self.term.server_error(exc)
            return
        self.term.say(f"auto-trash {'on' if on else 'off'}")

    async def _choose(self, number: int) -> None:
        """Play action ``number`` of the menu (or explain why not)."""
        if not self.menu:
            self.term.error("no action to choose now: it is not your turn (v redraws)")
            return
        if not 1 <= number <= len(self.menu):
            self.term.error(f"no action {number}: choose a number from 1 to {len(self.menu)}")
            return
        action, state = self.menu[number - 1], self.menu_state
        if action and action[0] in GIVE_UP_VERBS:
            self.confirm = (action, state)  # the next line answers y/N (_confirmed)
            return
        self.menu, self.menu_block = [], ()  # one choice per menu: the update brings the next
        await self._play(action, state)

    async def _confirmed(self, yes: bool) -> None:
        """The y/N answer to a give-up action (:data:`GIVE_UP_VERBS`): play it, or keep
        playing with the same menu."""
        assert self.confirm is not None
        action, state = self.confirm
        self.confirm = None
        if not yes:
            self.term.say(f"not done: {self._describe(action)}; keep playing")
            return
        self.menu, self.menu_block = [], ()
        await self._play(action, state)

    async def _play(self, action: Sequence[Any], state: int) -> None:
        """Send ``action`` chosen against ``state``; on a refusal, show it and redraw."""
        try:
            await self.client.act(self.room, action, state)
        except (ServerError, ConnectionLost, TimeoutError) as exc:
            self.term.server_error(exc)
            await self.term.request(self.client.get_view(self.room))
            self.draw(force=True)  # a fresh menu to choose from again

    async def _leave(self) -> None:
        """Leave the room and forget its kept seat token; a refusal (already gone) is shown,
        not raised."""
        self.term.forget_seat(self.room)
        try:
            await self.client.leave(self.room)
        except ServerError as exc:
            if exc.code not in ("room/not_found", "room/not_seated"):
                self.term.server_error(exc)
        except (ConnectionLost, TimeoutError) as exc:
            self.term.server_error(exc)
