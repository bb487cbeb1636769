"""The lobby of the terminal client: the numbered room list and the commands that lead to a
table (join, watch, quick-join, create, my games), the leaderboards, and quitting. See
:data:`~.text.LOBBY_HELP` for the commands."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import Any

from ... import protocol as p
from ..client import ConnectionLost, ServerError
from .core import Terminal
from .create import ask_refused_option, ask_room, choose_game
from .table import Table
from .text import LOBBY_HELP, room_line

#: The lobby's prompt: its commands, then ``?`` for help.
LOBBY_PROMPT = "lobby [r c j p w k m b q ?]> "
#: Seconds ``rated`` waits in the queue for a table at most.
RATED_WAIT = 600.0
#: Refusals of ``resume`` after which a kept seat is gone for good (and forgotten).
_SEAT_GONE = ("room/not_found", "room/bad_token", "room/finished")


class Lobby:
    """The lobby loop of one :class:`~.core.Terminal` (see the module docstring).

    Args:
        term: The terminal it runs in.
        rated: Join rated play's queue first thing (``cardhall play --rated``).

    Attributes:
        rooms: The room list last shown (``list_rooms`` summaries), numbered from 1.
    """

    def __init__(self, term: Terminal, rated: bool = False) -> None:
        self.term = term
        #: ``cardhall play --rated``: join rated play's queue first thing.
        self.rated_first = rated
        self.rooms: list[dict[str, Any]] = []
        self.commands: dict[str, Callable[[str], Awaitable[bool]]] = {
            "r": self._cmd_refresh, "c": self._cmd_create, "j": self._cmd_join,
            "p": self._cmd_code, "w": self._cmd_watch, "k": self._cmd_quick,
            "m": self._cmd_mine, "q": self._cmd_quit, "?": self._cmd_help,
            "h": self._cmd_help, "b": self._cmd_leaderboard,
            "leaderboards": self._cmd_leaderboard, "rated": self._cmd_rated,
        }

    async def run(self) -> None:
        """Show the rooms, then read commands and enter rooms until ``q``.

        Raises:
            Quit, Interrupted, Disconnected: as :meth:`.core.Terminal.ask`.
        """
        term = self.term
        term.say(f"Cardhall at {term.client.url}, playing as {term.client.name!r}. "
                 "Type ? for help.")
        listed = await term.request(term.client.list_games())
        term.games = listed[0] if listed else []
        term.room_options = listed[1] if listed else []
        await self.refresh()
        if self.rated_first and await self._cmd_rated(""):
            return
        kept = term.kept_seats()
        if kept:
            term.say(f"you have {len(kept)} game(s) kept from earlier: m lists them, "
                     "m N resumes one")
        while True:
            line = await term.ask(LOBBY_PROMPT)
            word, _, arg = line.partition(" ")
            if not word:
                continue
            if word.isdigit():
                word, arg = "j", word
            handler = self.commands.get(word.lower())
            if handler is None:
                term.error(f"unknown command {word!r}; type ? for help")
                continue
            if await handler(arg.strip()):
                return

    async def refresh(self) -> None:
        """Fetch and print the numbered room list."""
        rooms = await self.term.request(self.term.client.list_rooms())
        if rooms is None:
            return
        self.rooms = rooms
        if not rooms:
            self.term.say("no rooms yet: c creates one, k quick-joins")
            return
        self.term.say("rooms:\n" + "\n".join(room_line(i, summary)
                                              for i, summary in enumerate(rooms, 1)))

    def _room_id(self, arg: str) -> str | None:
        """The room id for a lobby number (at most 3 digits) or an id; None (after an error
        line) if neither."""
        if not arg:
            self.term.error("say which room: a number from the list, or a room id")
            return None
        if arg.isdigit() and len(arg) <= 3:  # a room id may be all digits too (8 of them)
            n = int(arg)
            if not 1 <= n <= len(self.rooms):
                self.term.error(f"no room number {n}; the list has {len(self.rooms)} "
                                "(r refreshes)")
                return None
            return str(self.rooms[n - 1]["room"])
        return arg

    def _game_of(self, room: str, default: str = "skipper") -> str:
        """The game of ``room`` in the last room list (``default`` when not listed)."""
        for summary in self.rooms:
            if summary["room"] == room:
                return str(summary["game"])
        return default

    async def _cmd_refresh(self, arg: str) -> bool:
        await self.refresh()
        return False

    async def _cmd_help(self, arg: str) -> bool:
        self.term.say(LOBBY_HELP)
        return False

    async def _cmd_quit(self, arg: str) -> bool:
        return True

    async def _cmd_join(self, arg: str) -> bool:
        room = self._room_id(arg)
        if room is None:
            return False
        return await self.enter(await self.term.request(self.term.client.join(room, patient=True)))

    async def _cmd_code(self, arg: str) -> bool:
        code = arg or await self.term.ask("join code: ")
        if not code:
            return False
        return await self.enter(await self.term.request(
            self.term.client.join(code=code, patient=True)))

    async def _cmd_watch(self, arg: str) -> bool:
        room = self._room_id(arg)
        if room is None:
            return False
        return await self.enter(await self.term.request(self.term.client.spectate(room)))

    async def _cmd_quick(self, arg: str) -> bool:
        words = arg.split()
        game = words[0] if words else await choose_game(self.term)
        if game is None:
            return False
        mode = words[1] if len(words) > 1 else None
        return await self.enter(await self.term.request(
            self.term.client.quick_join(game, mode=mode, patient=True)))

    async def _cmd_rated(self, arg: str) -> bool:
        """``rated [MODE [SIZES]]``: wait in rated play's queue of Skipper ``MODE`` (multi
        or race) for a table of ``SIZES`` seats (``2,3,4``), then play the table the queue
        gives (issue #45); the wait ends after :data:`RATED_WAIT` seconds."""
        term = self.term
        words = arg.split()
        mode = words[0] if words else "multi"
        try:
            sizes = [int(s) for s in (words[1] if len(words) > 1 else "2,3,4").split(",")]
        except ValueError:
            term.error("seat counts are numbers: rated multi 2,3,4")
            return False
        queued = await term.request(term.client.queue_join("skipper", mode, sizes))
        if queued is None:
            return False
        mark = "?" if queued.provisional else ""
        term.say(f"waiting in the rated queue of Skipper {mode} (your rating "
                 f"{queued.rating}{mark}; {queued.waiting} waiting)...")
        matched = await term.request(term.client.matched(RATED_WAIT))
        if matched is None:
            await term.request(term.client.queue_leave())
            return False
        seat, token = term.client.seats.get(matched.room, (None, ""))
        term.say(f"seated at a rated table of {matched.seats} (rating spread "
                 f"{matched.spread}{f', {matched.bots} bots' if matched.bots else ''})")
        joined = p.Joined(room=matched.room, seat=seat, token=token or None,
                          view=term.client.views.get(matched.room, {}))
        return await self.enter(joined, "skipper")

    async def _cmd_mine(self, arg: str) -> bool:
        """``m``: list the kept seats; ``m N``: resume number N (a seat the server no longer
        holds is forgotten, with the reason)."""
        term = self.term
        kept = term.kept_seats()
        if not arg:
            if not kept:
                term.say("no games kept for this server")
                return False
            term.say("my games (m N resumes one):")
            for i, entry in enumerate(kept, 1):
                when = time.strftime("%Y-%m-%d %H:%M", time.localtime(entry.get("saved", 0)))
                term.say(f"{i:>2}. {entry['room']:<10} {entry.get('game') or '?':<12} "
                         f"{entry.get('mode') or '-':<6} seat {entry.get('seat')}  "
                         f"since {when}")
            return False
        if not arg.isdigit() or not 1 <= int(arg) <= len(kept):
            term.error(f"no kept game {arg!r}: m lists them ({len(kept)})")
            return False
        entry = kept[int(arg) - 1]
        try:
            joined = await term.client.resume(entry["room"], entry["token"])
        except ServerError as exc:
            term.server_error(exc)
            if exc.code in _SEAT_GONE:
                term.say(f"* room {entry['room']} no longer holds that seat: forgotten")
                term.forget_seat(entry["room"])
            return False
        except (ConnectionLost, TimeoutError) as exc:
            term.server_error(exc)
            return False
        return await self.enter(joined, entry.get("game"))

    async def _cmd_leaderboard(self, arg: str) -> bool:
        """``b [GAME [MODE]]`` (or ``leaderboards``): print a game's leaderboard, the top 10
        and this player's rank (``get_leaderboard``); asks for the game when none is given."""
        term = self.term
        words = arg.split()
        game = words[0] if words else await choose_game(term)
        if game is None:
            return False
        board = await term.request(term.client.leaderboard(
            game, words[1] if len(words) > 1 else None))
        if board is None:
            return False
        first = "fewest" if board.order == "asc" else "most"
        term.say(f"leaderboard {board.game} {board.mode} ({first} first, "
                 f"{board.total} names):")
        for entry in board.entries:
            term.say(f"  {entry['rank']:>4}. {entry['name']:<32} {entry['score']}")
        if not board.entries:
            term.say("  nobody yet: win a solo game to be the first")
        if board.you is not None:
            term.say(f"  you: rank {board.you['rank']}, score {board.you['score']}")
        return False

    async def _cmd_create(self, arg: str) -> bool:
        """``c``: the create dialogue (:func:`~.create.ask_room`), then create the room (a
        refused option is asked again alone) and join it."""
        term = self.term
        spec = await ask_room(term)
        while spec is not None:
            try:
                created = await term.client.create_room(
                    spec.game, mode=spec.mode, seats=spec.seats, options=spec.options,
                    private=spec.private, name=spec.name, patient=True)
                break
            except ServerError as exc:
                if exc.code != "lobby/bad_options":
                    term.server_error(exc)
                    return False
                options = await ask_refused_option(term, spec, f"[{exc.code}] {exc.message}")
            except (ConnectionLost, TimeoutError) as exc:
                term.server_error(exc)
                return False
            spec = None if options is None else replace(spec, options=options)
        if spec is None:
            term.say("cancelled")
            return False
        term.say(f"created room {created.room}"
                 + (f"; private join code {created.code}" if created.code else ""))
        if created.code:  # a private room is joined by its code, even by its host
            joined = await term.request(term.client.join(code=created.code, patient=True))
        else:
            joined = await term.request(term.client.join(created.room, patient=True))
        return await self.enter(joined, spec.game)

    async def enter(self, joined: p.Joined | None, game: str | None = None) -> bool:
        """Play or watch the room of ``joined`` (None: a refused request, nothing to do),
        then show the room list again.

        Returns:
            True when the player quit from the room.
        """
        if joined is None:
            return False
        view = self.term.client.views.get(joined.room, {})
        facts = view.get("room") or {}
        # The room facts name the game (servers before them: the lobby list, or the caller).
        game = str(facts.get("game") or view.get("game") or game
                   or self._game_of(joined.room))
        quit_now = await Table(self.term, joined, game).run()
        if not quit_now:
            await self.refresh()
        return quit_now
