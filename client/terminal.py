"""``cardhall play``: a line-based terminal client for people.

The player reads the lobby (numbered rooms), creates, joins, quick-joins or watches a room,
and plays by typing the number of one of the legal actions listed under the table. Every
input is one line (read without blocking the event loop), so the client works in any
terminal, over ssh, and under a pty in tests.

Lobby commands::

    r              refresh the room list          c          create a room (asks questions)
    j N|ID         join room number N (or id)     N          same as j N
    p CODE         join a private room by code    w N|ID     watch (spectate) a room
    k [GAME [MODE]] quick-join a game             m [N]      my games: list / resume one
    q              quit

Room commands: a number plays that action; ``v`` redraws (fetching the full view), ``s``
starts the game (host, while waiting: empty seats get server bots), ``t`` toggles the seat's
Skipper auto-trash preference (RULINGS K6m; shown on the table), ``l`` leaves to the lobby,
``q`` leaves and quits, ``?`` helps. Giving up (Shop's close shop, resign) asks ``y/N``
first.

Seat tokens are kept on disk (:class:`~cardhall.client.seat_store.SeatStore`) until the seat
is left or the game ends, so ``m`` can take a seat back after the program was stopped. When
the connection drops, the client says so at once and prints a line per reconnection
attempt; a room that did not survive (a server restart without Redis) sends the player
back to the lobby. With ``ascii`` (or a terminal that cannot print the suit symbols) suits
are drawn as letters (``10D``).

The table is drawn by the game's renderer (:func:`cardhall.client.renderers.renderer`), with
the players, the seconds left on every turn clock (``view["room"]["deadlines"]``), seat
events and what happened since the last drawing. Server refusals are printed as one
``error [code] message`` line, never a traceback.
"""

from __future__ import annotations

import asyncio
import codecs
import logging
import os
import re
import shutil
import sys
import threading
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TextIO

from .. import protocol as p
from ..games.errors import OptionError
from ..games.options import Option
from ..protocol import fairness
from .client import Client, ConnectionLost, ServerError
from .renderers import event_describer, pretty_card, renderer, to_ascii
from .seat_store import SeatStore

#: What a faulty renderer may raise on an odd view: shown as a line, never a crash.
RENDER_ERRORS = (KeyError, TypeError, IndexError, ValueError, AttributeError)
_SUITS = {"C": "\u2663", "D": "\u2666", "H": "\u2665", "S": "\u2660"}
#: Seconds before a turn clock runs out at which the player is warned.
WARN_SECONDS = 10.0
#: Delta keys after which the table is redrawn (otherwise only the events are printed).
_REDRAW_KEYS = frozenset({"legal_actions", "to_act", "turn", "hand", "auction", "over",
                          "outcome"})
#: Lines printed below the action menu after which it is shown again (a race's events must
#: not scroll it away).
MENU_KEEP_LINES = 6
#: Action verbs that give the game up: choosing one asks for a y/N confirmation first.
GIVE_UP_VERBS = frozenset({"close_shop", "resign"})
#: Option kinds of a ``games`` reply, as the types of :class:`~cardhall.games.options.Option`.
_KINDS: dict[str, type] = {"bool": bool, "int": int, "float": float, "str": str, "list": list}

_LOBBY_HELP = """\
lobby commands:
  r               refresh the room list
  c               create a room
  j N | j ID      join room number N (or by id); a bare number N does the same
  p CODE          join a private room by its code
  w N | w ID      watch a room (spectate)
  k [GAME [MODE]] quick-join a waiting room of a game (or a new one)
  m               my games: the seats kept from earlier sessions on this server
  m N             resume my game number N (take the seat back)
  b [GAME [MODE]] a game's leaderboard (solo scores: best per player name)
  q               quit"""

_ROOM_HELP = """\
room commands:
  NUMBER   play the action with that number (only on your turn)
  v        redraw the table
  s        start the game (host only, while waiting; empty seats get bots)
  t        Skipper: toggle auto-trash (trash dead cards when drawn, or keep them)
  l        leave the room and go back to the lobby
  q        leave the room and quit"""


class Quit(Exception):
    """The player asked to quit, or the input ended."""


class Disconnected(Exception):
    """The connection to the server is gone for good (the client gave up reconnecting)."""


# -- input --------------------------------------------------------------------------------------

class LineReader:
    """Lines typed on an input stream, delivered in the event loop without blocking it.

    A terminal or pipe is watched with ``loop.add_reader`` (no thread); a stream the loop
    cannot watch (a regular file) is read by a daemon thread instead.

    Args:
        stream: The input, usually ``sys.stdin``; it must have a file descriptor.
    """

    def __init__(self, stream: TextIO = sys.stdin) -> None:
        self.stream = stream
        self._fd = stream.fileno()
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._buffer = ""
        self._sink: Callable[[str | None], None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._watching = False

    def start(self, sink: Callable[[str | None], None]) -> None:
        """Call ``sink(line)`` (in the event loop) for every line without its end, then
        ``sink(None)`` once at the end of input. Must be called inside a running loop."""
        self._sink = sink
        self._loop = asyncio.get_running_loop()
        try:
            self._loop.add_reader(self._fd, self._on_readable)
            self._watching = True
        except (OSError, ValueError, NotImplementedError):
            threading.Thread(target=self._read_blocking, name="stdin", daemon=True).start()

    def stop(self) -> None:
        """Stop watching the input (a reading thread, if any, ends with the process)."""
        if self._watching and self._loop is not None:
            self._loop.remove_reader(self._fd)
            self._watching = False

    def _on_readable(self) -> None:
        try:
            data = os.read(self._fd, 4096)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        self._feed(data)

    def _feed(self, data: bytes) -> None:
        assert self._sink is not None
        if not data:
            self.stop()
            rest = self._buffer + self._decoder.decode(b"", final=True)
            self._buffer = ""
            if rest:
                self._sink(rest.rstrip("\r"))
            self._sink(None)
            return
        self._buffer += self._decoder.decode(data)
        while "\n" in self._buffer:
            line, self._buffer = self._buffer.split("\n", 1)
            self._sink(line.rstrip("\r"))

    def _read_blocking(self) -> None:
        assert self._loop is not None
        while True:
            try:
                data = os.read(self._fd, 4096)
            except OSError:
                data = b""
            try:
                self._loop.call_soon_threadsafe(self._feed, data)
            except RuntimeError:  # the loop is closed: the program is ending
                return
            if not data:
                return


# -- text helpers ----------------------------------------------------------------------------

def parse_options(text: str) -> dict[str, str]:
    """Room options typed as ``k=v`` words, e.g. ``"turn_limit=5 seed=7"``.

    Values stay strings: the server converts them to each option's type.

    Raises:
        ValueError: a word has no ``=`` or an empty key.
    """
    out: dict[str, str] = {}
    for word in text.split():
        key, sep, value = word.partition("=")
        if not sep or not key:
            raise ValueError(f"expected key=value, got {word!r}")
        out[key] = value
    return out


def event_text(event: Any, me: int | None,
               describe: Callable[[dict[str, Any]], str | None] | None = None) -> str:
    """One game event as a short phrase, e.g. ``"seat 1: play 5♦ D"``, ``"you: end"`` or,
    with the game's ``describe``, ``"table: played Q♥ to foundation 3 (from the talon)"``.

    Args:
        event: An event map from ``update.events`` (``type`` and, usually, ``seat``).
        me: The viewer's seat (its events say ``you``), or None for a spectator.
        describe: The game renderer's ``describe_event``
            (:func:`~cardhall.client.renderers.event_describer`), or None: the event is
            then spelled out key by key (card codes as cards, lists item by item).
    """
    if not isinstance(event, dict):
        return str(event)
    seat = event.get("seat")
    who = "you" if seat is not None and seat == me else (
        f"seat {seat}" if seat is not None else "table")
    if describe is not None:
        try:
            phrase = describe(event)
        except RENDER_ERRORS:  # an odd event is spelled out below instead
            phrase = None
        if phrase:
            return f"{who}: {phrase}"
    parts = [str(event.get("type", "?"))]
    for key, value in event.items():
        if key in ("type", "seat"):
            continue
        if isinstance(value, str):
            parts.append(_SUITS.get(value) or pretty_card(value, color=False))
        elif isinstance(value, list):
            parts.append(f"{key} " + (" ".join(
                pretty_card(v, color=False) if isinstance(v, str) else str(v) for v in value)
                or "none"))
        elif isinstance(value, bool) and value:
            parts.append(key)
        elif value is not None and not isinstance(value, bool):
            parts.append(f"{key} {value}")
    return f"{who}: {' '.join(parts)}"


def option_line(spec: dict[str, Any], *, short: bool = False) -> str:
    """One option of a ``games`` reply as a line: ``"turn_limit=500  int 1..100000  Turns
    per seat..."``; ``short``: only the kind and limits (``"int 1..100000, default 500"``).
    A default of nil shows as ``(not set)``."""
    default = spec.get("default")
    shown = "(not set)" if default is None else str(default).lower() \
        if isinstance(default, bool) else str(default)
    kind = str(spec.get("kind", "?"))
    if spec.get("choices") is not None:
        kind += " one of " + "/".join(str(c) for c in spec["choices"])
    elif spec.get("min") is not None or spec.get("max") is not None:
        low = spec.get("min")
        high = spec.get("max")
        kind += f" {'' if low is None else low}..{'' if high is None else high}"
    elif kind == "bool":
        kind += " true/false"
    elif kind == "list":
        kind += " of card codes, comma-separated"
    if short:
        return f"{kind}, default {shown}"
    return f"{spec.get('name')}={shown}  {kind}  {spec.get('doc', '')}".rstrip()


def check_option(specs: dict[str, dict[str, Any]], word: str, seats: int) -> str | None:
    """Check one typed ``name=value`` against the option maps of a ``games`` reply (as
    the server will: :meth:`cardhall.games.options.Option.coerce`).

    Args:
        specs: Option maps by name (the game's and the room options).
        word: What the player typed, e.g. ``"turn_limit=20"``.
        seats: The room's seat count (``seed`` and ``deck`` fix the deal: one seat only).

    Returns:
        None when the server will take it, else why not (one line).
    """
    key, sep, value = word.partition("=")
    if not sep or not key:
        return f"expected name=value, got {word!r}"
    spec = specs.get(key)
    if spec is None:
        return f"no option {key!r} here; the options are: {', '.join(sorted(specs))}"
    if key in ("seed", "deck") and seats > 1:
        return f"option {key!r} fixes the deal: one-seat rooms only (fair deals)"
    kind = _KINDS.get(str(spec.get("kind")))
    if kind is None:
        return None  # a kind this client does not know: the server decides
    choices = spec.get("choices")
    option = Option(key, kind, spec.get("default"), str(spec.get("doc", "")),
                    tuple(choices) if choices is not None else None,
                    spec.get("min"), spec.get("max"))
    try:
        option.coerce(value)
    except OptionError as exc:
        return str(exc)
    return None


def room_line(number: int, summary: dict[str, Any]) -> str:
    """One lobby row: ``" 1. 3f2a1b9c  skipper multi  2/4  waiting   public  Skipper 3f2a"``."""
    access = "private" if summary.get("private") else "public"
    watchers = summary.get("spectators", 0)
    return (f"{number:>2}. {summary['room']:<10} {summary['game']:<12} "
            f"{summary.get('mode') or '-'!s:<6} {summary['taken']}/{summary['seats']:<3} "
            f"{summary['status']:<9} {access:<8} {summary['name']}"
            + (f"  ({watchers} watching)" if watchers else ""))


def menu_lines(entries: Sequence[str], width: int) -> list[str]:
    """Numbered entries (``"1. play 5♦ on the ♦ stack"``) laid out in columns.

    Args:
        entries: Phrases, numbered from 1 in order.
        width: Terminal width in characters.

    Returns:
        Lines of one or more columns, read down then across; cells separated by at least
        two spaces.
    """
    if not entries:
        return []
    cells = [f"{i:>2}. {text}" for i, text in enumerate(entries, 1)]
    cell_width = max(len(c) for c in cells) + 3
    columns = max(1, min(4, width // cell_width))
    rows = -(-len(cells) // columns)
    lines = []
    for r in range(rows):
        row = [cells[c * rows + r] for c in range(columns) if c * rows + r < len(cells)]
        lines.append("".join(cell.ljust(cell_width) for cell in row).rstrip())
    return lines


# -- the client ---------------------------------------------------------------------------------

@dataclass
class _Table:
    """The room being played or watched.

    Attributes:
        room: Room id.
        game: Game name (chooses the renderer).
        seat: The player's seat, or None when watching.
        render, describe: The game's renderer pair.
        menu: Actions of the last drawn menu, numbered from 1.
        menu_state: ``state_id`` of the view the menu was drawn from.
        warned: Deadlines (unix seconds) already warned about.
        dirty: The table changed since it was last drawn.
        last_state: ``state_id`` of the last update handled (to notice missed ones).
        last_drawing: The lines of the last drawing (identical drawings are not repeated).
        prompt_due: Text was printed after the last prompt: show it again.
        describe_event: The game's event phrases (None: spelled out key by key).
        confirm: A give-up action waiting for the player's ``y`` (None: none).
        menu_block: The lines of the last drawn action menu.
        lines_since_menu: Lines printed since the menu was last shown.
    """

    room: str
    game: str
    seat: int | None
    render: Callable[..., str]
    describe: Callable[[Sequence[Any]], str]
    menu: list[Sequence[Any]] = field(default_factory=list)
    menu_state: int = -1
    warned: set[float] = field(default_factory=set)
    dirty: bool = True
    last_state: int = -1
    last_drawing: list[str] = field(default_factory=list)
    prompt_due: bool = False
    describe_event: Callable[[dict[str, Any]], str | None] | None = None
    confirm: Sequence[Any] | None = None
    menu_block: list[str] = field(default_factory=list)
    lines_since_menu: int = 0


class Terminal:
    """The interactive terminal client over one connected :class:`Client`.

    Args:
        client: A connected client (its pushes are consumed here).
        color: Draw red suits and highlights with ANSI codes.
        out: Where to write (default ``sys.stdout``).
        width: Terminal width in characters (default: the terminal's, else 100).
        record_dir: Folder where the record of each finished game is written
            (``<room>.json``, for ``cardhall verify``; the client needs ``keep_records``),
            or None.
        ascii: Draw suits as letters and only ASCII characters (for terminals whose
            encoding is not UTF-8).
        store: Where seat tokens are kept between sessions (None: a
            :class:`~cardhall.client.seat_store.SeatStore` at its default path).

    Everything is driven by :meth:`run`, which reads lines from a :class:`LineReader`.
    """

    def __init__(self, client: Client, *, color: bool = True, out: TextIO | None = None,
                 width: int | None = None, record_dir: str | None = None,
                 ascii: bool = False, store: SeatStore | None = None) -> None:
        self.client = client
        self.record_dir = record_dir
        self.color = color
        self.ascii = ascii
        self.store = store if store is not None else SeatStore()
        self.out = out or sys.stdout
        self.width = width or shutil.get_terminal_size((100, 24)).columns
        self.rooms: list[dict[str, Any]] = []
        #: The server's games (``list_games``), fetched on entering the lobby.
        self.games: list[dict[str, Any]] = []
        #: The options every room takes (``list_games``' ``room_options``).
        self.room_options: list[dict[str, Any]] = []
        self.table: _Table | None = None
        self._events: asyncio.Queue[tuple[str, Any]] = asyncio.Queue()
        self._mid_line = False

    # -- output -----------------------------------------------------------------------------

    def say(self, text: str = "") -> None:
        """Write ``text`` and a newline, flushed at once (in a room, the prompt is shown
        again once nothing else is pending). Text printed after a prompt starts on a new
        line."""
        if self._mid_line:
            text = "\n" + text
            self._mid_line = False
        self.out.write((to_ascii(text) if self.ascii else text) + "\n")
        self.out.flush()
        if self.table is not None:
            self.table.prompt_due = True
            self.table.lines_since_menu += text.count("\n") + 1

    def prompt(self, text: str) -> None:
        """Write a prompt (no newline) and flush."""
        self.out.write(to_ascii(text) if self.ascii else text)
        self.out.flush()
        self._mid_line = True

    def error(self, text: str) -> None:
        """One clear error line: ``error: <text>`` (red when colouring)."""
        line = f"error: {text}"
        self.say(f"\x1b[31m{line}\x1b[0m" if self.color else line)

    def server_error(self, exc: BaseException) -> None:
        """Show a refused request or a connection problem as one error line."""
        if isinstance(exc, ServerError):
            self.error(f"[{exc.code}] {exc.message}")
        elif isinstance(exc, ConnectionLost):
            self.error(f"connection lost ({exc}); reconnecting if possible")
        elif isinstance(exc, TimeoutError):
            self.error("the server did not answer in time")
        else:
            self.error(f"{type(exc).__name__}: {exc}")

    # -- the event stream -------------------------------------------------------------------

    async def run(self, reader: LineReader) -> int:
        """Run the lobby until the player quits or the input ends.

        Args:
            reader: Source of the typed lines.

        Returns:
            The exit status: 0 after ``q`` or end of input, 1 when the server is gone.
        """
        reader.start(lambda line: self._events.put_nowait(
            ("line", line) if line is not None else ("eof", None)))
        self.client.on_connection = self._on_connection
        tasks = [asyncio.get_running_loop().create_task(self._pump()),
                 asyncio.get_running_loop().create_task(self._tick())]
        try:
            await self.lobby()
            return 0
        except Quit:
            return 0
        except Disconnected:
            self.error("the connection to the server is lost")
            return 1
        finally:
            reader.stop()
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

    async def _pump(self) -> None:
        async for msg in self.client.updates():
            self._events.put_nowait(("push", msg))
        self._events.put_nowait(("closed", None))

    async def _tick(self) -> None:
        while True:
            await asyncio.sleep(1.0)
            self._events.put_nowait(("tick", None))

    # -- the connection ---------------------------------------------------------------------

    def _on_connection(self, event: str, facts: dict[str, Any]) -> None:
        """The client's ``on_connection`` callback: queued, shown by the running loop."""
        self._events.put_nowait(("conn", (event, facts)))

    def show_connection(self, event: str, facts: dict[str, Any]) -> None:
        """One line about the connection (``lost``, each failed ``retry``, ``back``; see
        :class:`~cardhall.client.client.Client`'s ``on_connection``)."""
        if event == "lost":
            self.error(f"lost the connection to {facts.get('url')}; reconnecting")
        elif event == "retry":
            self.say(f"* reconnecting: attempt {facts.get('attempt')} failed "
                     f"({facts.get('error') or 'no answer'}); "
                     f"next try in {float(facts.get('wait') or 0):.1f} s")
        elif event == "back":
            self.say(f"* reconnected to {facts.get('url')}")
        elif event == "gave_up":
            self.error(f"could not reconnect ({facts.get('error')}); giving up")

    async def ask(self, question: str) -> str:
        """Prompt and wait for one line (pushes and ticks meanwhile are dropped).

        Returns:
            The line, stripped.

        Raises:
            Quit: the input ended.
            Disconnected: the server connection is gone.
        """
        self.prompt(question)
        while True:
            kind, payload = await self._events.get()
            if kind == "line":
                self._mid_line = False  # the typed line ended with its own newline
                return str(payload).strip()
            if kind == "conn":
                self.show_connection(*payload)
                self.prompt(question)
                continue
            if kind == "eof":
                self.say()
                raise Quit()
            if kind == "closed":
                raise Disconnected()

    async def _request(self, call: Awaitable[Any]) -> Any:
        """Await a client request; show a refusal and return None instead of raising."""
        try:
            return await call
        except (ServerError, ConnectionLost, TimeoutError) as exc:
            self.server_error(exc)
            return None

    # -- lobby ------------------------------------------------------------------------------

    async def lobby(self) -> None:
        """The lobby loop: show rooms, read commands, enter rooms; returns on ``q``.

        Raises:
            Quit: the input ended.
            Disconnected: the server connection is gone.
        """
        self.say(f"Cardhall at {self.client.url}, playing as {self.client.name!r}. "
                 "Type ? for help.")
        listed = await self._request(self.client.list_games())
        self.games = listed[0] if listed else []
        self.room_options = listed[1] if listed else []
        await self.refresh()
        kept = self._kept_seats()
        if kept:
            self.say(f"you have {len(kept)} game(s) kept from earlier: m lists them, "
                     "m N resumes one")
        commands: dict[str, Callable[[str], Awaitable[bool]]] = {
            "r": self._cmd_refresh, "c": self._cmd_create, "j": self._cmd_join,
            "p": self._cmd_code, "w": self._cmd_watch, "k": self._cmd_quick,
            "m": self._cmd_mine,
            "q": self._cmd_quit, "?": self._cmd_help, "h": self._cmd_help,
            "b": self._cmd_leaderboard, "leaderboards": self._cmd_leaderboard,
        }
        while True:
            line = await self.ask("lobby [r c j p w k m b q ?]> ")
            word, _, arg = line.partition(" ")
            if not word:
                continue
            if word.isdigit():
                word, arg = "j", word
            handler = commands.get(word.lower())
            if handler is None:
                self.error(f"unknown command {word!r}; type ? for help")
                continue
            if await handler(arg.strip()):
                return

    async def refresh(self) -> None:
        """Fetch and print the numbered room list."""
        rooms = await self._request(self.client.list_rooms())
        if rooms is None:
            return
        self.rooms = rooms
        if not rooms:
            self.say("no rooms yet: c creates one, k quick-joins")
            return
        self.say("rooms:")
        for i, summary in enumerate(rooms, 1):
            self.say(room_line(i, summary))

    def _room_id(self, arg: str) -> str | None:
        """The room id for a lobby number (at most 3 digits) or an id; None (after an error
        line) if neither."""
        if not arg:
            self.error("say which room: a number from the list, or a room id")
            return None
        if arg.isdigit() and len(arg) <= 3:  # a room id may be all digits too (8 of them)
            n = int(arg)
            if not 1 <= n <= len(self.rooms):
                self.error(f"no room number {n}; the list has {len(self.rooms)} (r refreshes)")
                return None
            return str(self.rooms[n - 1]["room"])
        return arg

    def _game_of(self, room: str, default: str = "skipper") -> str:
        for summary in self.rooms:
            if summary["room"] == room:
                return str(summary["game"])
        return default

    async def _cmd_refresh(self, arg: str) -> bool:
        await self.refresh()
        return False

    async def _cmd_help(self, arg: str) -> bool:
        self.say(_LOBBY_HELP)
        return False

    async def _cmd_quit(self, arg: str) -> bool:
        return True

    async def _cmd_join(self, arg: str) -> bool:
        room = self._room_id(arg)
        if room is None:
            return False
        joined = await self._request(self.client.join(room))
        return await self._enter(joined)

    async def _cmd_code(self, arg: str) -> bool:
        code = arg or await self.ask("join code: ")
        if not code:
            return False
        joined = await self._request(self.client.join(code=code))
        return await self._enter(joined)

    async def _cmd_watch(self, arg: str) -> bool:
        room = self._room_id(arg)
        if room is None:
            return False
        joined = await self._request(self.client.spectate(room))
        return await self._enter(joined)

    # -- my games (seat tokens kept on disk) ----------------------------------------------

    def _kept_seats(self) -> list[dict[str, Any]]:
        """The seats kept for this server (:class:`SeatStore`), oldest first."""
        return self.store.entries(self.client.url)

    def _keep_seat(self, room: str, game: str, mode: str | None) -> None:
        """Write the token of the seat held in ``room`` to the store (a failure is shown)."""
        held = self.client.seats.get(room)
        if held is None:
            return
        try:
            self.store.put(self.client.url, room, held[0], held[1], game=game, mode=mode)
        except OSError as exc:
            self.error(f"cannot keep the seat token in {self.store.path}: {exc}")

    def _forget_seat(self, room: str) -> None:
        """Drop the kept token of ``room`` (left, over, or gone); a failure is shown."""
        try:
            self.store.forget(self.client.url, room)
        except OSError as exc:
            self.error(f"cannot update {self.store.path}: {exc}")

    async def _cmd_mine(self, arg: str) -> bool:
        """``m``: list the kept seats; ``m N``: resume number N (a seat the server no longer
        holds is forgotten, with the reason)."""
        kept = self._kept_seats()
        if not arg:
            if not kept:
                self.say("no games kept for this server")
                return False
            self.say("my games (m N resumes one):")
            for i, entry in enumerate(kept, 1):
                when = time.strftime("%Y-%m-%d %H:%M", time.localtime(entry.get("saved", 0)))
                self.say(f"{i:>2}. {entry['room']:<10} {entry.get('game') or '?':<12} "
                         f"{entry.get('mode') or '-':<6} seat {entry.get('seat')}  "
                         f"since {when}")
            return False
        if not arg.isdigit() or not 1 <= int(arg) <= len(kept):
            self.error(f"no kept game {arg!r}: m lists them ({len(kept)})")
            return False
        entry = kept[int(arg) - 1]
        try:
            joined = await self.client.resume(entry["room"], entry["token"])
        except ServerError as exc:
            self.server_error(exc)
            if exc.code in ("room/not_found", "room/bad_token", "room/finished"):
                self.say(f"* room {entry['room']} no longer holds that seat: forgotten")
                self._forget_seat(entry["room"])
            return False
        except (ConnectionLost, TimeoutError) as exc:
            self.server_error(exc)
            return False
        return await self._enter(joined, entry.get("game"))

    async def _cmd_quick(self, arg: str) -> bool:
        words = arg.split()
        game = words[0] if words else await self._choose_game()
        if game is None:
            return False
        mode = words[1] if len(words) > 1 else None
        joined = await self._request(self.client.quick_join(game, mode=mode))
        return await self._enter(joined)

    async def _cmd_leaderboard(self, arg: str) -> bool:
        """``b [GAME [MODE]]`` (or ``leaderboards``): print a game's leaderboard, the top 10
        and this player's rank (``get_leaderboard``); asks for the game when none is given."""
        words = arg.split()
        game = words[0] if words else await self._choose_game()
        if game is None:
            return False
        board = await self._request(self.client.leaderboard(
            game, words[1] if len(words) > 1 else None))
        if board is None:
            return False
        first = "fewest" if board.order == "asc" else "most"
        self.say(f"leaderboard {board.game} {board.mode} ({first} first, "
                 f"{board.total} names):")
        for entry in board.entries:
            self.say(f"  {entry['rank']:>4}. {entry['name']:<32} {entry['score']}")
        if not board.entries:
            self.say("  nobody yet: win a solo game to be the first")
        if board.you is not None:
            self.say(f"  you: rank {board.you['rank']}, score {board.you['score']}")
        return False

    async def _cmd_create(self, arg: str) -> bool:
        spec = await self._ask_room()
        if spec is None:
            self.say("cancelled")
            return False
        game, mode, seats, options, private, name = spec
        while True:
            try:
                created = await self.client.create_room(
                    game, mode=mode, seats=seats, options=options, private=private, name=name)
                break
            except ServerError as exc:
                if exc.code != "lobby/bad_options":
                    self.server_error(exc)
                    return False
                refusal = f"[{exc.code}] {exc.message}"
            except (ConnectionLost, TimeoutError) as exc:
                self.server_error(exc)
                return False
            again = await self._ask_refused_option(game, seats, options, refusal)
            if again is None:
                self.say("cancelled")
                return False
            options = again
        self.say(f"created room {created.room}"
                 + (f"; private join code {created.code}" if created.code else ""))
        if created.code:  # a private room is joined by its code, even by its host
            joined = await self._request(self.client.join(code=created.code))
        else:
            joined = await self._request(self.client.join(created.room))
        return await self._enter(joined, game)

    # -- create dialogue ----------------------------------------------------------------------

    async def _ask_refused_option(self, game: str, seats: int, options: dict[str, str],
                                  refusal: str) -> dict[str, str] | None:
        """After the server refused ``options`` (``lobby/bad_options``: ``refusal``), ask
        again only for the option its message names, keeping the others (every option
        when it names none of them).

        Returns:
            The new options, or None when cancelled (``x``).
        """
        specs = self._option_specs(next(g for g in self.games if g["game"] == game))
        bad = next((k for k in options if re.search(rf"\b{re.escape(k)}\b", refusal)), None)
        if bad is None:
            self.error(refusal)
            return await self._ask_options(specs, seats)
        kept = {k: v for k, v in options.items() if k != bad}
        if not await self._fix_option(kept, specs, f"{bad}={options[bad]}", seats, refusal):
            return None
        return kept

    async def _choose_game(self) -> str | None:
        """Ask for one of the server's games by number or name (Enter: the first, Skipper
        on Cardhall; x: cancel); None when cancelled or the server listed none."""
        names = [str(g["game"]) for g in self.games]
        names.sort(key=lambda n: n != "skipper")  # the headline game first
        if not names:
            self.error("the server listed no games")
            return None
        self.say("games: " + "  ".join(f"{i}. {g}" for i, g in enumerate(names, 1)))
        while True:
            answer = (await self.ask(f"game [1-{len(names)} or name, Enter = {names[0]}, "
                                     "x = cancel]: ")).lower()
            if answer == "x":
                return None
            if not answer:
                return names[0]
            if answer.isdigit() and 1 <= int(answer) <= len(names):
                return names[int(answer) - 1]
            if answer in names:
                return answer
            self.error(f"no game {answer!r}")

    async def _ask_room(self) -> tuple[str, str | None, int, dict[str, str], bool,
                                       str | None] | None:
        """The create-room dialogue: game, its mode and seats (as the server's game listing
        gives them; a ``solo`` mode, or no mode, is one seat), options (listed from the
        game listing, checked one by one: see :meth:`_ask_options`), privacy, room name.

        Returns:
            ``(game, mode, seats, options, private, name)`` (name None: the server names
            the room), or None when cancelled (``x``).
        """
        game = await self._choose_game()
        if game is None:
            return None
        info = next(g for g in self.games if g["game"] == game)
        modes = [str(m) for m in info["modes"]]
        mode, seats = None, 1
        if modes:
            while mode is None:
                answer = (await self.ask(f"mode [{'/'.join(modes)}, Enter = {modes[0]}]: ")).lower()
                if answer == "x":
                    return None
                if not answer or answer in modes:
                    mode = answer or modes[0]
                else:
                    self.error(f"no mode {answer!r}")
        low, high = max(2, int(info["min_seats"])), int(info["max_seats"])
        if mode not in (None, "solo") and high >= low:
            seats = 0
            while not seats:
                answer = await self.ask(f"seats [{low}-{high}, Enter = {low}]: ")
                if answer == "x":
                    return None
                if not answer or (answer.isdigit() and low <= int(answer) <= high):
                    seats = int(answer or low)
                else:
                    self.error(f"seats must be a number from {low} to {high}")
        options = await self._ask_options(self._option_specs(info), seats)
        if options is None:
            return None
        private = (await self.ask("private room? [y/N]: ")).lower().startswith("y")
        name: str | None = None
        while name is None:
            answer = await self.ask("room name [Enter = chosen by the server]: ")
            if not answer:
                break
            if len(answer) > 64:
                self.error("a room name has at most 64 characters")
            else:
                name = answer
        return game, mode, seats, options, private, name

    def _option_specs(self, info: dict[str, Any]) -> dict[str, dict[str, Any]]:
        """The option maps a room of game ``info`` takes, by name: the game's own (without
        ``mode``, asked on its own) and the room options of every game."""
        specs = [o for o in info.get("options") or [] if o.get("name") != "mode"]
        return {str(o["name"]): o for o in specs + list(self.room_options)}

    async def _ask_options(self, specs: dict[str, dict[str, Any]],
                           seats: int) -> dict[str, str] | None:
        """List the options (name, default, limits, what they do), read ``name=value``
        words, and check each against its option map (:func:`check_option`). The good
        ones are kept; each bad one is asked again on its own (Enter drops it).

        Returns:
            The options by name (values as typed), or None when cancelled (``x``).
        """
        self.say("options (name=default  kind and limits  what it does):")
        for spec in specs.values():
            self.say("  " + option_line(spec))
        answer = await self.ask("options as name=value words [Enter = all defaults, "
                                "x = cancel]: ")
        if answer == "x":
            return None
        options: dict[str, str] = {}
        for word in answer.split():
            if not await self._fix_option(options, specs, word, seats,
                                          check_option(specs, word, seats)):
                return None
        return options

    async def _fix_option(self, options: dict[str, str], specs: dict[str, dict[str, Any]],
                          word: str, seats: int, problem: str | None) -> bool:
        """Show ``problem`` with the typed ``name=value`` (None: it is good) and ask again
        for that one until it passes :func:`check_option`; put the good one in ``options``
        (nothing when the player left it out with Enter).

        Returns:
            False when cancelled (``x``), else True.
        """
        while problem is not None:
            self.error(problem)
            key = word.partition("=")[0]
            if key in specs:
                value = await self.ask(f"{key} [{option_line(specs[key], short=True)};"
                                       " Enter = leave it out, x = cancel]: ")
                word = f"{key}={value}" if value not in ("", "x") else value
            else:
                word = await self.ask("name=value instead [Enter = leave it out, "
                                      "x = cancel]: ")
            if word == "x":
                return False
            if not word:
                return True
            problem = check_option(specs, word, seats)
        key, _, value = word.partition("=")
        options[key] = value
        return True

    # -- the room -----------------------------------------------------------------------------

    async def _enter(self, joined: p.Joined | None, game: str | None = None) -> bool:
        """Play or watch the room of ``joined`` (None: a refused request, nothing to do).

        Returns:
            True when the player quit from the room.
        """
        if joined is None:
            return False
        view = self.client.views.get(joined.room, {})
        facts = view.get("room") or {}
        # The room facts name the game (servers before them: the lobby list, or the caller).
        game = str(facts.get("game") or view.get("game") or game
                   or self._game_of(joined.room))
        render, describe = renderer(game)
        self.table = _Table(joined.room, game, joined.seat, render, describe,
                            last_state=int(view.get("state_id", -1)),
                            describe_event=event_describer(game))
        self.say(f"joined room {joined.room} ({game}) "
                 + (f"in seat {joined.seat}" if joined.seat is not None else "as a spectator"))
        if joined.seat is not None:
            self._keep_seat(joined.room, game, facts.get("mode") or view.get("mode"))
        try:
            if facts.get("status") == "finished":  # e.g. resumed after the game ended
                self.draw_final()
                self.say("this game is over; back to the lobby")
                self._forget_seat(joined.room)
                await self._leave()
                quit_now = False
            else:
                quit_now = await self.play_room()
        finally:
            self.table = None
        if not quit_now:
            await self.refresh()
        return quit_now

    async def play_room(self) -> bool:
        """The room loop: redraw on changes, play numbered actions, until the player leaves,
        the game ends, or the server removes the player.

        Returns:
            True when the player quit (``q`` or end of input), False to go back to the lobby.

        Raises:
            Disconnected: the server connection is gone.
        """
        t = self.table
        assert t is not None
        while True:
            if self._events.empty():
                self._refresh_screen()
            kind, payload = await self._events.get()
            if kind == "push":
                done = await self._on_push(payload)
            elif kind == "line":
                self._mid_line = False
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
                raise Disconnected()
            if done is not None:
                return done

    def _on_connection_event(self, event: str, facts: dict[str, Any]) -> bool | None:
        """Show a connection event in a room; back to the lobby (False) when the connection
        is back but the room could not be taken back (it did not survive a server restart,
        or the seat was given away)."""
        t = self.table
        assert t is not None
        self.show_connection(event, facts)
        if event == "back" and t.room in (facts.get("lost_rooms") or []):
            self.error(f"room {t.room} is gone (the server restarted, or the seat was "
                       "given up); back to the lobby")
            self._forget_seat(t.room)
            self.client.seats.pop(t.room, None)
            self.client.spectating.discard(t.room)
            return False
        t.dirty = True
        return None

    def _view(self) -> dict[str, Any]:
        assert self.table is not None
        return self.client.views.get(self.table.room, {})

    def _seat_label(self, seat: int) -> str:
        players = (self._view().get("room") or {}).get("players") or []
        player = players[seat] if 0 <= seat < len(players) else None
        label = f"seat {seat}"
        if isinstance(player, dict):
            label += f" {player.get('name')}"
        if self.table is not None and seat == self.table.seat:
            label += " (you)"
        return label

    def _refresh_screen(self) -> None:
        """Once no event is pending: redraw a changed table (not the final one: the
        ``game_over`` that follows draws it), else show the prompt again if text was
        printed since it was last shown."""
        t = self.table
        assert t is not None
        if t.dirty and not self._view().get("over"):
            self.draw()
        elif t.prompt_due:
            if t.menu and t.lines_since_menu > MENU_KEEP_LINES and t.confirm is None:
                self.say("\n".join(t.menu_block))  # events must not scroll the menu away
                t.lines_since_menu = 0
            self._prompt_room()

    def _drawing(self) -> tuple[list[str], list[str], list[Sequence[Any]]]:
        """The table as lines (without the clocks), the menu's lines, and the actions the
        menu offers (numbered from 1)."""
        t = self.table
        assert t is not None
        view = self._view()
        info = view.get("room") or {}
        status = str(info.get("status", "?"))
        who = f"you are seat {t.seat}" if t.seat is not None else "you are watching"
        header = (f"room {t.room}  {t.game} {view.get('mode') or ''}  {status}  "
                  f"state {view.get('state_id')}  {who}")
        lines = [header]
        try:
            lines.append(t.render(view, color=self.color))
        except RENDER_ERRORS as exc:  # a renderer bug must not end the session
            lines.append(f"(cannot draw this table: {type(exc).__name__}: {exc})")
        lines.append(self._players_line(info))
        menu: list[Sequence[Any]] = []
        if status == "waiting":
            taken = sum(1 for pl in info.get("players") or [] if pl)
            lines.append(f"waiting for players ({taken}/{len(info.get('players') or [])} "
                         "seats); the host types s to start (empty seats get bots)")
        elif view.get("over"):
            lines.append("game over")
        else:
            lines.append(self._turn_line(view))
            if status == "playing":
                menu = list(view.get("legal_actions") or [])
        block = []
        if menu:
            block = ["your actions:", *menu_lines([self._describe(a) for a in menu], self.width)]
        return lines, block, menu

    def draw(self, *, force: bool = False) -> None:
        """Draw the table, players, clocks, whose turn and the numbered actions, then the
        prompt. A drawing identical to the last one (clocks aside) is not repeated unless
        ``force``; the prompt is then shown again only if other text came in between."""
        t = self.table
        assert t is not None
        lines, block, menu = self._drawing()
        t.dirty = False
        if lines + block == t.last_drawing and not force:
            if t.prompt_due:
                self._prompt_room()
            return
        t.last_drawing = lines + block
        t.menu, t.menu_state = menu, int(self._view().get("state_id", -1))
        self.say("-" * min(self.width, 100))
        self.say("\n".join(lines))
        clocks = self.clock_line()
        if clocks:
            self.say(clocks)
        if block:
            self.say("\n".join(block))
        t.menu_block, t.lines_since_menu = block, 0
        self._prompt_room()

    def _describe(self, action: Sequence[Any]) -> str:
        assert self.table is not None
        try:
            return self.table.describe(action)
        except RENDER_ERRORS:  # an odd action must still be choosable
            return " ".join(map(str, action))

    def _prompt_room(self) -> None:
        t = self.table
        assert t is not None
        t.prompt_due = False
        if t.confirm is not None:
            self.prompt(f"really {self._describe(t.confirm[0])}? [y/N]> ")
        elif t.menu:
            self.prompt(f"your move [1-{len(t.menu)}, v l q ?]> ")
        else:
            self.prompt("[v redraw, s start, l leave, q quit, ? help]> ")

    def _players_line(self, info: dict[str, Any]) -> str:
        names = []
        for seat, player in enumerate(info.get("players") or []):
            if player is None:
                names.append(f"{seat} (empty)")
                continue
            label = f"{seat} {player.get('name')}"
            if self.table is not None and seat == self.table.seat:
                label += " (you)"
            if player.get("bot"):
                label += " [bot]"
            elif not player.get("connected", True):
                label += " [dropped]"
            names.append(label)
        return "players: " + (", ".join(names) or "-")

    def clock_line(self, now: float | None = None) -> str:
        """The turn clocks, e.g. ``"clocks: seat 0 alice (you) 27 s left"``; ``""`` if none.

        Args:
            now: Current unix time in seconds (default ``time.time()``).
        """
        now = time.time() if now is None else now
        deadlines = (self._view().get("room") or {}).get("deadlines") or []
        parts = [f"{self._seat_label(int(seat))} {max(0, round(when - now))} s left"
                 for seat, when in deadlines]
        return "clocks: " + ", ".join(parts) if parts else ""

    def _turn_line(self, view: dict[str, Any]) -> str:
        t = self.table
        assert t is not None
        to_act = list(view.get("to_act") or [])
        if t.seat is not None and t.seat in to_act and view.get("legal_actions"):
            return "your turn: type the number of an action"
        if not to_act:
            return "nobody to act"
        return "waiting for " + ", ".join(self._seat_label(s) for s in to_act)

    def _on_tick(self) -> None:
        """Warn once when the player's own clock is about to run out."""
        t = self.table
        assert t is not None
        if t.seat is None:
            return
        now = time.time()
        for seat, when in (self._view().get("room") or {}).get("deadlines") or []:
            if seat == t.seat and when not in t.warned and 0 < when - now <= WARN_SECONDS:
                t.warned.add(when)
                self.say(f"clock: {round(when - now)} s left for your move "
                         "(then the server plays a default)")

    # -- pushes -----------------------------------------------------------------------------

    async def _on_push(self, msg: Any) -> bool | None:
        """Handle one server push for the current room.

        Returns:
            False to go back to the lobby (game over, removed from the room), else None.
        """
        t = self.table
        assert t is not None
        if getattr(msg, "room", None) != t.room:
            return None
        if isinstance(msg, p.Update):
            await self._on_update(msg)
        elif isinstance(msg, p.SeatEvent):
            if (self._view().get("room") or {}).get("status") == "waiting":
                await self._request(self.client.get_view(t.room))  # fresh player names
            self.say(f"* {self._seat_label(msg.seat)}: {msg.event}")
            t.dirty = True
        elif isinstance(msg, p.Started):
            note = f" (deal commitment {msg.commitment})" if msg.commitment else ""
            self.say(f"* the game has started{note}")
            t.dirty = True
        elif isinstance(msg, p.GameOver):
            self._on_game_over(msg)
            await self._save_record(t.room)
            await self._leave()
            return False
        elif isinstance(msg, p.Left) and msg.re is None:
            self.say(f"* you are no longer in room {t.room} (closed, or taken over "
                     "from another connection)")
            return False
        return None

    async def _on_update(self, msg: p.Update) -> None:
        """Print the update's events; mark the table for redrawing when it matters to the
        player (a full view, the menu, the turn, the hand...); refetch after a gap."""
        t = self.table
        assert t is not None
        if msg.events:
            self.say(". " + "; ".join(event_text(e, t.seat, t.describe_event)
                                      for e in msg.events))
        gap = msg.delta is not None and msg.state_id > t.last_state + 1
        t.last_state = max(t.last_state, msg.state_id)
        if gap:  # a missed update: the delta was applied to an older view
            await self._request(self.client.get_view(t.room))
        if (gap or msg.view is not None or msg.delta is None or t.seat is None
                or not _REDRAW_KEYS.isdisjoint(p.top_keys(msg.delta))):
            t.dirty = True

    def _on_game_over(self, msg: p.GameOver) -> None:
        t = self.table
        assert t is not None
        view = self._view()
        view["outcome"] = dict(msg.outcome)
        view["over"], view["legal_actions"] = True, []
        t.dirty = True
        self.draw_final()
        outcome = msg.outcome
        winner = outcome.get("winner")
        solo = len((view.get("room") or {}).get("players") or []) == 1
        verdict = ("you won" if winner is not None and winner == t.seat
                   else f"{self._seat_label(winner)} won" if winner is not None
                   else "you lost" if solo and t.seat is not None else "nobody won")
        extra = ", ".join(f"{k} {v}" for k, v in sorted((outcome.get("stats") or {}).items()))
        self.say(f"GAME OVER: {verdict} ({outcome.get('reason')}); scores "
                 f"{outcome.get('scores')}" + (f"; {extra}" if extra else ""))
        seen = self.client.commitments.get(t.room)
        if msg.seed is not None and msg.salt is not None and seen is not None:
            verdict = ("matches the commitment of the start" if fairness.matches(
                msg.seed, msg.salt, seen) else "DOES NOT MATCH the commitment of the start")
            self.say(f"* deal revealed: seed {msg.seed}, salt {msg.salt}: {verdict}")
        self.say("back to the lobby")

    async def _save_record(self, room: str) -> None:
        """With ``record_dir``: write the game record of ``room`` there (for ``cardhall
        verify``) and say where; a failure is shown, not raised."""
        if self.record_dir is None:
            return
        path = os.path.join(self.record_dir, f"{room}.json")
        try:
            await self.client.save_game_record(room, path)
        except (ServerError, ConnectionLost, TimeoutError, OSError) as exc:
            self.error(f"game record not saved: {exc}")
            return
        self.say(f"* game record saved: check it with `cardhall verify {path}`")

    def draw_final(self) -> None:
        """Draw the final table without a menu or prompt."""
        t = self.table
        assert t is not None
        self.say("-" * min(self.width, 100))
        try:
            self.say(t.render(self._view(), color=self.color))
        except RENDER_ERRORS as exc:
            self.error(f"cannot draw this table ({type(exc).__name__}: {exc})")
        t.dirty = False

    # -- typed lines in a room --------------------------------------------------------------

    async def _on_line(self, line: str) -> bool | None:
        """Handle one typed line in a room.

        Returns:
            True to quit, False to go back to the lobby, None to stay.
        """
        t = self.table
        assert t is not None
        word = line.lower()
        if t.confirm is not None:
            await self._confirmed(word in ("y", "yes"))
            return None
        if not word:
            t.prompt_due = True
        elif word.isdigit():
            await self._choose(int(word))
        elif word == "v":
            await self._request(self.client.get_view(t.room))
            self.draw(force=True)
        elif word == "s":
            await self._request(self.client.start(t.room))
        elif word == "t":
            await self._toggle_auto_trash()
        elif word in ("l", "q"):
            await self._leave()
            return word == "q"
        elif word in ("?", "h"):
            self.say(_ROOM_HELP)
        else:
            self.error(f"unknown command {line!r}: type an action number, v, s, t, l, q or ?")
        return None

    async def _toggle_auto_trash(self) -> None:
        """Flip the seat's Skipper ``auto_trash`` preference (RULINGS K6m); explain when the
        room has none (not Skipper, a spectator, not started)."""
        t = self.table
        assert t is not None
        view = self._view()
        seat = view.get("seat")
        seats = view.get("seats")
        if (not isinstance(seat, int) or not isinstance(seats, list) or seat >= len(seats)
                or not isinstance(seats[seat], dict) or "auto_trash" not in seats[seat]):
            self.error("no auto-trash preference here (Skipper seats only)")
            return
        on = not seats[seat]["auto_trash"]
        try:
            await self.client.set_auto_trash(t.room, on)
        except (ServerError, ConnectionLost, TimeoutError) as exc:
            self.server_error(exc)
            return
        self.say(f"auto-trash {'on' if on else 'off'}")

    async def _choose(self, number: int) -> None:
        """Play action ``number`` of the drawn menu (or explain why not)."""
        t = self.table
        assert t is not None
        if not t.menu:
            self.error("no action to choose now: it is not your turn (v redraws)")
            return
        if not 1 <= number <= len(t.menu):
            self.error(f"no action {number}: choose a number from 1 to {len(t.menu)}")
            return
        action, state = t.menu[number - 1], t.menu_state
        if action and action[0] in GIVE_UP_VERBS:
            t.confirm = (action, state)  # the next line answers y/N (_confirmed)
            t.prompt_due = True
            return
        t.menu = []  # one choice per drawing: the next update brings a fresh menu
        await self._play(action, state)

    async def _confirmed(self, yes: bool) -> None:
        """The y/N answer to a give-up action (:data:`GIVE_UP_VERBS`): play it, or keep
        playing with the same menu."""
        t = self.table
        assert t is not None and t.confirm is not None
        action, state = t.confirm
        t.confirm = None
        if not yes:
            self.say(f"not done: {self._describe(action)}; keep playing")
            return
        t.menu = []
        await self._play(action, state)

    async def _play(self, action: Sequence[Any], state: int) -> None:
        """Send ``action`` chosen against ``state``; on a refusal, show it and redraw."""
        t = self.table
        assert t is not None
        try:
            await self.client.act(t.room, action, state)
        except (ServerError, ConnectionLost, TimeoutError) as exc:
            self.server_error(exc)
            await self._request(self.client.get_view(t.room))
            self.draw(force=True)  # a fresh menu to choose from again

    async def _leave(self) -> None:
        """Leave the current room and forget its kept seat token; a refusal (already gone)
        is shown, not raised."""
        t = self.table
        assert t is not None
        self._forget_seat(t.room)
        try:
            await self.client.leave(t.room)
        except ServerError as exc:
            if exc.code not in ("room/not_found", "room/not_seated"):
                self.server_error(exc)
        except (ConnectionLost, TimeoutError) as exc:
            self.server_error(exc)


def needs_ascii(out: TextIO) -> bool:
    """True when ``out`` cannot print the suit symbols (its encoding is not UTF-8 or
    another that has them, e.g. ``LANG=C`` without UTF-8 or ``PYTHONIOENCODING=latin-1``)."""
    encoding = getattr(out, "encoding", None) or "ascii"
    try:
        "\u2663\u2666\u2665\u2660\u2713".encode(encoding)
    except (UnicodeEncodeError, LookupError):
        return True
    return False


async def play(url: str, *, name: str, color: bool, stream: TextIO | None = None,
               record_dir: str | None = None, ascii: bool | None = None,
               store: SeatStore | None = None, **client_options: Any) -> int:
    """Connect to ``url`` and run the terminal client until the player quits.

    Args:
        url: ``ws://HOST:PORT`` of a Cardhall server.
        name: The player's name, shown to the other seats (1..64 characters).
        color: Use ANSI colours.
        stream: Input stream (default ``sys.stdin``).
        record_dir: Write each finished game's record to this folder (None: don't).
        ascii: Draw suits as letters, ASCII only (None: when the output cannot print the
            suit symbols, :func:`needs_ascii`).
        store: Where seat tokens are kept (None: :class:`SeatStore` at its default path).
        client_options: How the client signs in (:class:`~cardhall.client.client.Client`'s
            ``guest``, ``token``, ``refresh``, ``on_account``; none: an anonymous guest).

    Returns:
        Exit status: 0 after quitting, 1 when the connection was lost for good.

    Raises:
        OSError / websockets errors: the server cannot be reached.
        ServerError: the server refused the hello.
    """
    # The client's log lines (a resume that failed...) would tear the screen: the terminal
    # says what happened itself (show_connection, error lines).
    client_log = logging.getLogger("cardhall.client")
    client_log.addHandler(logging.NullHandler())
    client_log.propagate = False
    if stream is None and hasattr(sys.stdout, "reconfigure"):
        sys.stdout.reconfigure(errors="replace")  # never a crash on an odd character
    async with Client(url, name=name, keep_records=record_dir is not None,
                      **client_options) as client:
        term = Terminal(client, color=color, record_dir=record_dir,
                        ascii=needs_ascii(sys.stdout) if ascii is None else ascii, store=store)
        return await term.run(LineReader(stream or sys.stdin))
