"""``cardhall play``: the terminal client for people.

The player reads the lobby (numbered rooms), creates, joins, quick-joins or watches a room,
and plays by typing the number of one of the legal actions listed under the table. On a
terminal the prompt is prompt_toolkit's (line editing, history): it stays at the bottom,
with the action menu and the live turn clocks above it, while the table and the game's
events are printed above; input that is not a terminal (a pipe, a file) is read line by
line. The program works in any terminal, over ssh, under tmux, and under a pty in tests.

Lobby commands::

    r              refresh the room list          c          create a room (asks questions)
    j N|ID         join room number N (or id)     N          same as j N
    p CODE         join a private room by code    w N|ID     watch (spectate) a room
    k [GAME [MODE]] quick-join a game             m [N]      my games: list / resume one
    b [GAME [MODE]] a game's leaderboard          q          quit

Room commands: a number plays that action; ``v`` redraws (fetching the full view), ``s``
starts the game (the host, while the room waits: empty seats get server bots), ``t`` toggles
the seat's Skipper auto-trash preference (RULINGS K6m; shown on the table), ``l`` leaves to
the lobby, ``q`` leaves and quits, ``?`` helps. Giving up (Shop's close shop, resign) asks
``y/N`` first. Ctrl-D quits (leaving the room); Ctrl-C ends the program at once and keeps
the seat.

Seat tokens are kept on disk (:class:`~cardhall.client.seat_store.SeatStore`) until the seat
is left or the game ends, so ``m`` can take a seat back after the program was stopped. When
the connection drops, the client says so at once and prints a line per reconnection
attempt; a room that did not survive (a server restart without Redis) sends the player
back to the lobby. With ``ascii`` (or a terminal that cannot print the suit symbols) suits
are drawn as letters (``10D``).

Modules, one per concept: :mod:`.console` (prompt and output), :mod:`.core` (the event
stream, questions, seat tokens), :mod:`.lobby`, :mod:`.create` (the create-room dialogue),
:mod:`.table` (a room: drawing, events, actions) and :mod:`.text` (the words).
"""

from __future__ import annotations

import logging
import sys
from typing import Any, TextIO

from ..client import Client
from ..seat_store import SeatStore
from .console import LineReader, PromptArea, needs_ascii, open_console
from .core import Terminal
from .lobby import Lobby
from .text import event_text, menu_lines, parse_options

__all__ = ["LineReader", "PromptArea", "Terminal", "event_text", "menu_lines", "needs_ascii",
           "parse_options", "play"]


async def play(url: str, *, name: str, color: bool, stream: TextIO | None = None,
               record_dir: str | None = None, ascii: bool | None = None,
               store: SeatStore | None = None, rated: bool = False,
               **client_options: Any) -> int:
    """Connect to ``url`` and run the terminal client until the player quits.

    Args:
        url: ``ws://HOST:PORT`` of a Cardhall server.
        name: The player's name, shown to the other seats (1..64 characters); ``""``: the
            account's (a guest account's is the one the server gives it, issue #44).
        color: Use ANSI colours.
        stream: Input stream (default ``sys.stdin``); a terminal gets the prompt_toolkit
            console when the output is one too (:func:`~.console.open_console`).
        record_dir: Write each finished game's record to this folder (None: don't).
        ascii: Draw suits as letters, ASCII only (None: when the output cannot print the
            suit symbols, :func:`~.console.needs_ascii`).
        store: Where seat tokens are kept (None: :class:`SeatStore` at its default path).
        rated: Join rated play's queue first thing (the lobby's ``rated`` command).
        client_options: How the client signs in (:class:`~cardhall.client.client.Client`'s
            ``guest``, ``token``, ``refresh``, ``on_account``; none: an anonymous guest).

    Returns:
        Exit status: 0 after quitting, 1 when the connection was lost for good, 130 after
        Ctrl-C.

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
    ascii = needs_ascii(sys.stdout) if ascii is None else ascii
    async with Client(url, name=name, keep_records=record_dir is not None,
                      **client_options) as client:
        console = open_console(stream or sys.stdin, sys.stdout, ascii=ascii)
        term = Terminal(client, console, color=color, record_dir=record_dir, store=store)
        return await term.run(Lobby(term, rated=rated).run())
