"""The terminal client's core: one queue of everything that happens (typed lines, server
pushes, connection news, clock ticks), the output helpers, questions, and the seat tokens
kept on disk. The lobby (:mod:`.lobby`), the create dialogue (:mod:`.create`) and the table
(:mod:`.table`) work through a :class:`Terminal`.
"""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import Awaitable
from typing import Any

from ..client import Client, ConnectionLost, ServerError
from ..connection import PATIENT_ATTEMPTS
from ..seat_store import SeatStore
from .console import Console, PromptArea


class Quit(Exception):
    """The player asked to quit, or the input ended."""


class Interrupted(Exception):
    """The player typed Ctrl-C: the program ends at once, keeping its seats (``m``
    resumes them the next time ``cardhall play`` runs)."""


class Disconnected(Exception):
    """The connection to the server is gone for good (the client gave up reconnecting)."""


class Terminal:
    """The interactive terminal client over one connected :class:`Client`.

    Args:
        client: A connected client (its pushes are consumed here).
        console: Where to write and read (:func:`~.console.open_console`).
        color: Draw red suits and highlights with ANSI codes.
        width: Terminal width in characters (default: the terminal's, else 100).
        record_dir: Folder where the record of each finished game is written
            (``<room>.json``, for ``cardhall verify``; the client needs ``keep_records``),
            or None.
        store: Where seat tokens are kept between runs (None: a
            :class:`~cardhall.client.seat_store.SeatStore` at its default path).

    Attributes:
        events: Everything that happens, in order, as ``(kind, payload)``: ``line`` (a
            typed line), ``eof``, ``interrupt``, ``push`` (a server push), ``conn`` (the
            client's ``on_connection`` news: ``(event, facts)``), ``tick`` (every second),
            ``closed`` (the client's push stream ended).
        games: The server's games (``list_games``), fetched on entering the lobby.
        room_options: The options every room takes (``list_games``' ``room_options``).
    """

    def __init__(self, client: Client, console: Console, *, color: bool = True,
                 width: int | None = None, record_dir: str | None = None,
                 store: SeatStore | None = None) -> None:
        self.client = client
        self.console = console
        self.color = color
        self.width = width or shutil.get_terminal_size((100, 24)).columns
        self.record_dir = record_dir
        self.store = store if store is not None else SeatStore()
        self.events: asyncio.Queue[tuple[str, Any]] = asyncio.Queue()
        self.games: list[dict[str, Any]] = []
        self.room_options: list[dict[str, Any]] = []

    # -- output -----------------------------------------------------------------------------

    def say(self, text: str = "") -> None:
        """Write ``text`` (one or more lines) above the prompt."""
        self.console.say(text)

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

    def show_connection(self, event: str, facts: dict[str, Any]) -> None:
        """One line about the connection (``lost``, each failed ``retry``, ``back``,
        ``gave_up``, and ``busy``: a request refused for now, asked again; see
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
        elif event == "busy":
            self.say(f"* the server cannot take {facts.get('request') or 'the request'} now "
                     f"({facts.get('code')}); asking again in "
                     f"{float(facts.get('wait') or 0):.1f} s (try {facts.get('attempt')} of "
                     f"{PATIENT_ATTEMPTS})")

    # -- the event stream -------------------------------------------------------------------

    async def run(self, lobby: Awaitable[None]) -> int:
        """Run ``lobby`` (:meth:`.lobby.Lobby.run`) with the console and the event stream
        going, until the player quits or the input ends.

        Returns:
            The exit status: 0 after ``q`` or end of input, 1 when the server is gone, 130
            after Ctrl-C.
        """
        self.console.start(lambda kind, text: self.events.put_nowait((kind, text)))
        self.client.on_connection = self._on_connection
        loop = asyncio.get_running_loop()
        tasks = [loop.create_task(self._pump()), loop.create_task(self._tick())]
        try:
            await lobby
            return 0
        except Quit:
            return 0
        except Interrupted:
            return 130
        except Disconnected:
            self.error("the connection to the server is lost")
            return 1
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            await self.console.stop()

    def _on_connection(self, event: str, facts: dict[str, Any]) -> None:
        """Connection news: a request asked again (``busy``) is said at once, while the
        player waits for it; the rest goes through the event stream."""
        if event == "busy":
            self.show_connection(event, facts)
        else:
            self.events.put_nowait(("conn", (event, facts)))

    async def _pump(self) -> None:
        async for msg in self.client.updates():
            self.events.put_nowait(("push", msg))
        self.events.put_nowait(("closed", None))

    async def _tick(self) -> None:
        while True:
            await asyncio.sleep(1.0)
            self.events.put_nowait(("tick", None))

    def end_of_input(self, kind: str) -> None:
        """Raise what an event of ``kind`` means when no line can come any more.

        Raises:
            Quit: ``eof`` (the input ended).
            Interrupted: ``interrupt`` (Ctrl-C).
            Disconnected: ``closed`` (the server connection is gone).
        """
        if kind == "eof":
            raise Quit()
        if kind == "interrupt":
            raise Interrupted()
        if kind == "closed":
            raise Disconnected()

    async def ask(self, question: str) -> str:
        """Show ``question`` as the prompt and wait for one line (server pushes and ticks
        meanwhile are dropped; connection news is shown).

        Returns:
            The line, stripped.

        Raises:
            Quit: the input ended.
            Interrupted: Ctrl-C.
            Disconnected: the server connection is gone.
        """
        self.console.show(PromptArea(question))
        while True:
            kind, payload = await self.events.get()
            if kind == "line":
                return str(payload).strip()
            if kind == "conn":
                self.show_connection(*payload)
            self.end_of_input(kind)

    async def request(self, call: Awaitable[Any]) -> Any:
        """Await a client request; show a refusal and return None instead of raising."""
        try:
            return await call
        except (ServerError, ConnectionLost, TimeoutError) as exc:
            self.server_error(exc)
            return None

    # -- seat tokens kept on disk -----------------------------------------------------------

    def kept_seats(self) -> list[dict[str, Any]]:
        """The seats kept for this server (:class:`SeatStore`), oldest first."""
        return self.store.entries(self.client.url)

    def keep_seat(self, room: str, game: str, mode: str | None) -> None:
        """Write the token of the seat held in ``room`` to the store (a failure is shown)."""
        held = self.client.seats.get(room)
        if held is None:
            return
        try:
            self.store.put(self.client.url, room, held[0], held[1], game=game, mode=mode)
        except OSError as exc:
            self.error(f"cannot keep the seat token in {self.store.path}: {exc}")

    def forget_seat(self, room: str) -> None:
        """Drop the kept token of ``room`` (left, over, or gone); a failure is shown."""
        try:
            self.store.forget(self.client.url, room)
        except OSError as exc:
            self.error(f"cannot update {self.store.path}: {exc}")
