"""Where the terminal client writes and reads: a prompt that stays at the bottom of the
terminal while the game's events print above it.

On a terminal, :class:`PromptConsole` uses prompt_toolkit: ``PromptSession.prompt_async``
reads each line (with line editing and history), and ``patch_stdout`` prints everything
else above the prompt, which is redrawn in place, never printed again. The prompt is a
:class:`PromptArea`: the question, lines above it (the action menu) and a live line (the
turn clocks, recomputed every second). Anything else (a pipe, a file: scripts and tests)
gets :class:`PlainConsole`: lines read by :class:`LineReader`, the prompt written once
each time a line is awaited.
"""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import os
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol, TextIO

from prompt_toolkit import PromptSession
from prompt_toolkit.formatted_text import ANSI
from prompt_toolkit.patch_stdout import patch_stdout

from ..renderers import to_ascii

#: What a console tells the terminal: ``("line", text)`` for each line typed (without its
#: end), ``("eof", None)`` once the input ended (Ctrl-D), ``("interrupt", None)`` for Ctrl-C.
Sink = Callable[[str, str | None], None]


@dataclass(frozen=True)
class PromptArea:
    """What the bottom of the terminal shows while a line is awaited.

    Attributes:
        question: The last line, where the player types (e.g. ``"your move [1-9, v l q ?]> "``).
        above: Lines shown above it (the action menu), in order.
        live: A line shown between ``above`` and the question and recomputed every second
            (the turn clocks; ``""``: nothing to show), or None. Only a console with
            :attr:`Console.live` shows it.
    """

    question: str
    above: tuple[str, ...] = ()
    live: Callable[[], str] | None = None


class Console(Protocol):
    """The terminal client's input and output (:class:`PromptConsole`,
    :class:`PlainConsole`).

    Attributes:
        live: The console keeps :attr:`PromptArea.live` current on screen (else the caller
            prints such facts itself).
    """

    live: bool

    def start(self, sink: Sink) -> None:
        """Start reading lines (inside the running event loop); each goes to ``sink``."""

    async def stop(self) -> None:
        """Stop reading; everything said is written out."""

    def say(self, text: str) -> None:
        """Write ``text`` (one or more lines) above the prompt."""

    def show(self, area: PromptArea) -> None:
        """Show ``area`` as the prompt from now on."""


def _identity(text: str) -> str:
    return text


class PromptConsole:
    """A prompt_toolkit console for an interactive terminal (see the module docstring).

    Args:
        ascii: Write suits as letters and only ASCII (:func:`~cardhall.client.renderers.
            to_ascii`), for terminals that cannot print the suit symbols.

    While it runs (from :meth:`start` to :meth:`stop`), ``sys.stdout`` is prompt_toolkit's
    ``StdoutProxy`` (``patch_stdout(raw=True)``: ANSI colours pass through). Each answer is
    written above the prompt with its question (``your move [1-9, v l q ?]> 3``), and the
    prompt is then erased and drawn afresh for the next line.
    """

    live = True

    def __init__(self, *, ascii: bool = False) -> None:
        self._fit = to_ascii if ascii else _identity
        self._area = PromptArea("")  # until the first question: an empty line
        self._session: PromptSession[str] | None = None
        self._patch = contextlib.ExitStack()
        self._task: asyncio.Task[None] | None = None

    def start(self, sink: Sink) -> None:
        """Patch ``sys.stdout`` and start the reading task (see :class:`Console`)."""
        self._session = PromptSession(erase_when_done=True)
        self._patch.enter_context(patch_stdout(raw=True))
        self._task = asyncio.get_running_loop().create_task(self._read(sink))

    async def _read(self, sink: Sink) -> None:
        """Read lines until the input ends (Ctrl-D) or Ctrl-C is typed."""
        assert self._session is not None
        while True:
            try:
                line = await self._session.prompt_async(self._message, refresh_interval=1.0)
            except EOFError:
                sink("eof", None)
                return
            except KeyboardInterrupt:
                sink("interrupt", None)
                return
            self.say(self._area.question + line)  # the answer stays above, with its question
            sink("line", line)

    def _message(self) -> ANSI:
        """The prompt as drawn now: ``above``, the live line (when not empty), the question."""
        area = self._area
        lines = list(area.above)
        live = area.live() if area.live is not None else ""
        if live:
            lines.append(live)
        lines.append(area.question)
        return ANSI(self._fit("\n".join(lines)))

    def say(self, text: str) -> None:
        """Write ``text`` and a newline above the prompt (prompt_toolkit redraws it below)."""
        sys.stdout.write(self._fit(text) + "\n")
        sys.stdout.flush()

    def show(self, area: PromptArea) -> None:
        """Show ``area`` as the prompt: redrawn in place when it changed."""
        if area == self._area:
            return
        self._area = area
        if self._session is not None and self._session.app.is_running:
            self._session.app.invalidate()

    async def stop(self) -> None:
        """End the prompt and restore ``sys.stdout`` (what was said is written out first)."""
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
            self._task = None
        self._patch.close()


class PlainConsole:
    """A console for input that is not a terminal (a pipe, a file): lines from
    :class:`LineReader`, text written as it comes, and the prompt written once each time a
    line is awaited (never again because of other output).

    Args:
        stream: Where lines are read (it must have a file descriptor).
        out: Where text is written.
        ascii: As :class:`PromptConsole`.
    """

    live = False

    def __init__(self, stream: TextIO, out: TextIO, *, ascii: bool = False) -> None:
        self._reader = LineReader(stream)
        self._out = out
        self._fit = to_ascii if ascii else _identity
        self._shown: tuple[tuple[str, ...], str] | None = None
        self._answered = False  # a line came in since the prompt was last written
        self._mid_line = False  # the prompt ends the output (no newline after it)

    def start(self, sink: Sink) -> None:
        """Start reading lines (see :class:`Console`)."""
        def deliver(line: str | None) -> None:
            if line is None:
                sink("eof", None)
                return
            self._answered, self._mid_line = True, False  # the line ended with its newline
            sink("line", line)

        self._reader.start(deliver)

    def say(self, text: str) -> None:
        """Write ``text`` and a newline (on a new line when a prompt ends the output)."""
        if self._mid_line:
            text = "\n" + text
            self._mid_line = False
        self._out.write(self._fit(text) + "\n")
        self._out.flush()

    def show(self, area: PromptArea) -> None:
        """Write ``area`` (its lines above, then its question) when it changed or a line
        was read since it was last written; never its live line."""
        key = (area.above, area.question)
        if key == self._shown and not self._answered:
            return
        self._shown, self._answered = key, False
        if area.above:
            self.say("\n".join(area.above))
        self._out.write(self._fit(area.question))
        self._out.flush()
        self._mid_line = True

    async def stop(self) -> None:
        """Stop reading the input."""
        self._reader.stop()


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


def needs_ascii(out: TextIO) -> bool:
    """True when ``out`` cannot print the suit symbols (its encoding is not UTF-8 or
    another that has them, e.g. ``LANG=C`` without UTF-8 or ``PYTHONIOENCODING=latin-1``)."""
    encoding = getattr(out, "encoding", None) or "ascii"
    try:
        "\u2663\u2666\u2665\u2660\u2713".encode(encoding)
    except (UnicodeEncodeError, LookupError):
        return True
    return False


def open_console(stream: TextIO, out: TextIO, *, ascii: bool) -> Console:
    """The console for ``stream`` and ``out``: :class:`PromptConsole` when both are a
    terminal, else :class:`PlainConsole`."""
    if stream.isatty() and out.isatty():
        return PromptConsole(ascii=ascii)
    return PlainConsole(stream, out, ascii=ascii)
