"""A person at ``cardhall play``: the client as a child process in a pty (pexpect), what it
printed as text, and what its screen shows (pyte, a VT100 emulator), so that tests read the
terminal as a person would: the scrollback's words, and the prompt area that prompt_toolkit
redraws in place at the bottom."""

from __future__ import annotations

import os
import re
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from typing import Any, Self

import pexpect
import pyte

EXPECT_TIMEOUT = 10.0
ROWS, COLUMNS = 50, 120
LOBBY = r"lobby \[[a-z ]+ \?\]>"  # the commands listed may grow
MOVE = r"your move \[1-(\d+), v l q \?\]>"
#: The prompt in a room that waits, for a player who may start it.
WAITING = r"\[s start, v redraw, l leave, q quit, \? help\]>"
#: The prompt in a room when nothing is to be chosen: never ``s start``.
IDLE = r"\[v redraw, l leave, q quit, \? help\]>"
MENU_ITEM = re.compile(r"(\d+)\. (.+?)(?=\s{2,}\d+\. |\s*$)", re.MULTILINE)
SEPARATOR = "-" * 40
#: Terminal control sequences (CSI, OSC, charset and keypad modes): not text.
CONTROL = re.compile(r"\x1b(\[[0-9;?<=>]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)"
                     r"|[()][0-9A-Za-z]|[=>78DEHMNOZc])")


def cleaned(text: str) -> str:
    """``text`` without terminal control sequences and carriage returns."""
    return CONTROL.sub("", text).replace("\r", "")


class Person:
    """A ``cardhall play --no-color`` process in a pty of :data:`ROWS` x :data:`COLUMNS`;
    as a context manager, closed (:meth:`close`) when the block ends.

    Args:
        url: The server's ``ws://`` URL.
        name: The player's name.
        extra: More ``cardhall play`` options.
        state_dir: ``$XDG_STATE_HOME`` (where seat tokens are kept); None: a new temporary
            folder, removed on close.
        env: More environment variables.

    Attributes:
        text: Everything printed so far, without control sequences (the pty's echo of
            typed lines included).
        match: The match of the last :meth:`expect` of a pattern.
    """

    def __init__(self, url: str, name: str = "alice", *extra: str, state_dir: str | None = None,
                 env: dict[str, str] | None = None) -> None:
        self._own_state = state_dir is None
        self.state_dir = state_dir or tempfile.mkdtemp(prefix="cardhall-test-state-")
        # pexpect answers no cursor position request: prompt_toolkit must not wait for one
        env = dict(os.environ, COLUMNS=str(COLUMNS), LINES=str(ROWS), PYTHONWARNINGS="error",
                   XDG_STATE_HOME=self.state_dir, PROMPT_TOOLKIT_NO_CPR="1", TERM="xterm",
                   **(env or {}))
        self.child = pexpect.spawn(
            sys.executable, ["-m", "cardhall.cli", "play", "--url", url, "--no-color",
                             "--name", name, *extra],
            encoding="utf-8", timeout=EXPECT_TIMEOUT, dimensions=(ROWS, COLUMNS), env=env)
        self.screen = pyte.Screen(COLUMNS, ROWS)
        self._stream = pyte.Stream(self.screen)
        self.text = ""
        self._pending = ""  # a control sequence cut in two by a read
        self.pos = 0  # where the next expect looks from
        self.eof = False
        self.match: re.Match[str] | None = None
        self.drawings_used = 0

    # -- reading ------------------------------------------------------------------------------

    def _read(self, timeout: float) -> None:
        """Read what the program printed within ``timeout`` s (sets :attr:`eof` at its end)."""
        if self.eof:
            time.sleep(min(timeout, 0.05))
            return
        try:
            chunk = self.child.read_nonblocking(65536, timeout)
        except pexpect.TIMEOUT:
            return
        except pexpect.EOF:
            self.eof = True
            return
        self._stream.feed(chunk)
        data = self._pending + chunk
        cut = data.rfind("\x1b")
        self._pending = ""
        if cut >= 0 and not CONTROL.match(data, cut) and len(data) - cut < 64:
            data, self._pending = data[:cut], data[cut:]
        self.text += cleaned(data)

    def wait(self, ready: Callable[[], bool], what: str) -> None:
        """Read until ``ready()`` (at most :data:`EXPECT_TIMEOUT` s).

        Raises:
            AssertionError: not ready in time (with the end of the text and the screen).
        """
        deadline = time.monotonic() + EXPECT_TIMEOUT
        while not ready():
            if time.monotonic() > deadline or (self.eof and not ready()):
                raise AssertionError(f"no {what} within {EXPECT_TIMEOUT} s; the text ends "
                                     f"with:\n{self.text[-3000:]}\nthe screen:\n"
                                     + "\n".join(self.lines()))
            self._read(0.05)

    def expect(self, pattern: str | list[Any] | type[pexpect.EOF]) -> int:
        """Wait for ``pattern`` (a regex; :class:`pexpect.EOF`: the program's end; a list:
        the first of them to appear) after the last match; returns its index.

        A pattern is looked for in :attr:`text`, then on the screen's last line: the prompt
        that prompt_toolkit draws there is written in full once, then redrawn by its changes
        only (a new question over the old one writes only the characters that differ), so
        the text does not always hold it. A match on the screen takes all the text so far.
        """
        patterns = pattern if isinstance(pattern, list) else [pattern]
        # (where in the text, pattern index, match, where the next expect starts)
        found: list[tuple[int, int, re.Match[str] | None, int]] = []

        def ready() -> bool:
            found.clear()
            end = len(self.text)
            bottom = (self.lines() or [""])[-1]
            for i, pat in enumerate(patterns):
                if pat is pexpect.EOF:
                    if self.eof:
                        found.append((end, i, None, end))
                    continue
                m = re.compile(pat).search(self.text, self.pos)
                if m is not None:
                    found.append((m.start(), i, m, m.end()))
                    continue
                m = re.compile(pat).search(bottom)
                if m is not None:
                    found.append((end, i, m, end))
            return bool(found)

        self.wait(ready, repr(pattern))
        _, index, self.match, self.pos = min(found, key=lambda f: (f[0], f[1]))
        return index

    @property
    def output(self) -> str:
        """Everything printed so far (:attr:`text`)."""
        return self.text

    def lines(self) -> list[str]:
        """The screen now, line by line (trailing spaces and empty lines at the end cut)."""
        shown = [line.rstrip() for line in self.screen.display]
        while shown and not shown[-1]:
            shown.pop()
        return shown

    def settled_lines(self) -> list[str]:
        """The screen once a prompt is drawn at its bottom (not in the middle of printing
        text above it): :meth:`lines`."""
        prompt = re.compile(r"(\]>|\]:)$")
        self.wait(lambda: bool(self.lines()) and prompt.search(self.lines()[-1]) is not None,
                  "a prompt at the bottom of the screen")
        return self.lines()

    # -- typing -------------------------------------------------------------------------------

    def say(self, *lines: str) -> None:
        """Type lines, each followed by Enter."""
        for line in lines:
            self.child.send(line + "\r")

    def create_room(self, *answers: str) -> str:
        """At the lobby prompt, answer the create dialogue (``c`` then ``answers``);
        returns the new room id."""
        self.say("c", *answers)
        self.expect(r"created room (\w+)")
        assert self.match is not None
        return self.match.group(1)

    # -- the table ----------------------------------------------------------------------------

    def menu(self) -> dict[str, str]:
        """The action menu on the screen now: ``phrase -> number`` (waits until the screen
        shows the move prompt)."""
        self.wait(lambda: self._menu_block() is not None, "action menu on the screen")
        block = self._menu_block()
        assert block is not None
        return {phrase: number for number, phrase in MENU_ITEM.findall("\n".join(block))}

    def _menu_block(self) -> list[str] | None:
        """The screen's lines from ``your actions:`` to the move prompt, or None."""
        shown = self.lines()
        if not shown or not re.match(MOVE, shown[-1]):
            return None
        tops = [i for i, line in enumerate(shown) if line == "your actions:"]
        return shown[tops[-1] + 1:-1] if tops else None

    def new_drawing(self) -> bool:
        """True once if a table drawing arrived since the last call returned True."""
        count = self.text.count(SEPARATOR)
        if count > self.drawings_used:
            self.drawings_used = count
            return True
        return False

    def drawn_state(self) -> int | None:
        """The ``state_id`` of the last table drawing printed (its header's ``state N``)."""
        last = self.text.rfind(SEPARATOR)
        m = re.search(r"  state (\d+)  ", self.text[last:]) if last >= 0 else None
        return int(m.group(1)) if m else None

    def play_until_over(self, pick: Callable[[dict[str, str]], str],
                        max_moves: int = 150) -> int:
        """Choose ``pick(menu)`` once per state of the game whose menu is offered (again
        after a refusal redrew it), until ``GAME OVER`` (then wait for the lobby).

        Returns:
            The number of choices made.
        """
        moves = 0
        picked: int | None = None  # the state last chosen in
        since = len(self.text)  # where the text was at that choice

        def ready() -> bool:
            if "GAME OVER" in self.text[self.pos:]:
                return True
            state = self.drawn_state()
            tail = self.text[since:]  # a refusal is drawn again, in the same state
            refused = 0 <= tail.find("error: [") < tail.rfind(SEPARATOR)
            # the menu at the bottom of the screen was drawn after the last drawing read
            return (state is not None and (state != picked or refused)
                    and self._menu_block() is not None)

        while True:
            self.wait(ready, "a move prompt after a new drawing, or GAME OVER")
            if "GAME OVER" in self.text[self.pos:]:
                self.expect("GAME OVER")
                self.expect(LOBBY)
                return moves
            picked, since = self.drawn_state(), len(self.text)
            self.new_drawing()
            self.say(pick(self.menu()))
            moves += 1
            assert moves <= max_moves, "the game does not end"

    # -- the end ------------------------------------------------------------------------------

    def close(self) -> None:
        """End the process (if it still runs); remove its state folder if it made one."""
        self.child.close(force=True)
        if self._own_state:
            shutil.rmtree(self.state_dir, ignore_errors=True)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def quit(self) -> str:
        """Type ``q`` and wait for the program to end; returns :attr:`output`."""
        self.say("q")
        self.expect(pexpect.EOF)
        return self.output

    def exit_status(self) -> int:
        """Wait for the ended program to exit; returns its exit status."""
        self.child.wait()
        return int(self.child.exitstatus)


def sensible(menu: dict[str, str]) -> str:
    """A simple player: play a card, else end the turn, else pass a bid, else discard."""
    for phrase, number in menu.items():
        if phrase.startswith("play "):
            return number
    for wanted in ("end turn", "pass"):
        if wanted in menu:
            return menu[wanted]
    return next(n for phrase, n in menu.items() if phrase.startswith("discard "))
