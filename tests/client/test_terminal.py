"""``cardhall play`` driven for real: a server in the test process on a free port, and the
terminal client as a child process in a pty, answering its prompts the way a person would
(tests/terminal_harness.py: the printed text, and the screen through a VT100 emulator).
pexpect blocks, so each session runs in a worker thread while the event loop serves."""

from __future__ import annotations

import asyncio
import io
import json
import os
import random
import re
import sys
import threading
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pexpect
import pytest
from cardhall.client.bots import play_seat
from cardhall.client.client import Client, ServerError
from cardhall.client.renderers import event_describer
from cardhall.client.terminal import LineReader, event_text, menu_lines, parse_options
from cardhall.client.terminal.console import PlainConsole, PromptArea
from cardhall.games.bots import strategy
from cardhall.server.app import Server
from cardhall.server.config import Settings
from cardhall.server.fairness import verify_record

from ..conftest import TEST_SETTINGS, serving
from ..room_harness import Flaky
from ..terminal_harness import (
    EXPECT_TIMEOUT,
    IDLE,
    LOBBY,
    MENU_ITEM,
    MOVE,
    WAITING,
    Person,
    sensible,
)

#: A prompt waiting for a line, as the screen shows it (an answered one has its answer after).
PROMPT_LINE = re.compile(r"(lobby \[|your move \[|\[(s start, )?v redraw).*\]>$")


@pytest.fixture
async def server() -> AsyncIterator[Server]:
    """A server in this process on 127.0.0.1 with a free port (stopped after the test)."""
    srv = Server(Settings(host="127.0.0.1", port=0))
    await srv.start()
    yield srv
    await srv.stop()


async def lobby(url: str) -> list[dict[str, Any]]:
    """The server's room list, as a client sees it."""
    async with Client(url, name="observer", reconnect=False) as client:
        return await client.list_rooms()


async def in_thread(fn: Callable[..., Any], *args: Any) -> Any:
    """Run a blocking pexpect step without blocking the server's event loop."""
    return await asyncio.to_thread(fn, *args)


# -- a person playing solo ------------------------------------------------------------------

def _solo_session(url: str) -> tuple[int, str]:
    with Person(url) as person:
        person.expect(LOBBY)
        person.create_room("skipper", "solo", "turn_limit=4", "n", "")
        # text printed above the prompt may reach the screen just after a prompt is drawn:
        # wait for the words, then for the prompt drawn again below them
        person.expect(r"Skipper solo  state 0  your turn")
        person.expect(MOVE)
        out = person.output
        for suit in ("\u2663 A\u2663 (1)", "\u2666 A\u2666 (1)", "\u2665 A\u2665 (1)",
                     "\u2660 A\u2660 (1)"):
            assert suit in out
        assert re.search(r"your hand: (\S+[\u2663\u2666\u2665\u2660] ?){5}", out)
        menu = person.menu()
        assert re.match(r"(play|discard) \S+[\u2663\u2666\u2665\u2660]", menu_phrase(menu, "1"))
        assert "resign" in menu
        # wrong choices: a number off the menu, an unknown word, s in a running game
        person.say("99")
        person.expect(r"error: no action 99: choose a number from 1 to \d+")
        person.say("zz")
        person.expect(r"error: unknown command 'zz'")
        person.say("s")
        person.expect(r"error: the game has already started")
        person.say("v")
        person.expect(MOVE)
        moves = person.play_until_over(sensible)
        assert re.search(r"GAME OVER: you lost \(turn_limit\); scores \[4\]", person.output)
        # a second room: one move, then leave to the lobby and quit
        person.create_room("1", "", "", "", "")
        person.expect(MOVE)
        person.new_drawing()
        person.say(sensible(person.menu()))
        person.expect(r"\. you: ")
        person.say("l")
        person.expect(LOBBY)
        person.quit()
        return moves, str(person.exit_status())


def event_lines(out: str) -> list[str]:
    """The event lines in the printed text (``". seat 1: drew 3 cards; ..."``; one may
    follow a prompt on the same line of the text, as prompt_toolkit erases it)."""
    return re.findall(r"\. (?:table|you|seat \d): [^\n]*", out)


def menu_phrase(menu: dict[str, str], number: str) -> str:
    """The phrase of action ``number`` in a menu of ``phrase -> number``."""
    return next(phrase for phrase, n in menu.items() if n == number)


def _busy_session(url: str) -> str:
    with Person(url) as person:
        person.expect(LOBBY)
        person.say("c", "skipper", "solo", "turn_limit=4", "n", "")
        person.expect(r"\* the server cannot take create_room now \(server/unavailable\); "
                      r"asking again in \d+\.\d s")
        person.expect(r"created room (\w+)")
        person.expect(r"\* the server cannot take join now \(server/unavailable\)")
        person.expect(r"Skipper solo  state 0  your turn")
        person.expect(MOVE)
        assert "error:" not in person.output
        person.quit()
        return str(person.exit_status())


@pytest.mark.timeout(60)
async def test_a_create_and_join_refused_for_now_are_asked_again() -> None:
    # Issue #41 item 8: the store refuses the first create and the first join for a moment
    # (a Sentinel failover): the terminal says so and asks again; the player gets the seat.
    store = Flaky(creates=1, seats=1)
    async with serving(lambda: store, **TEST_SETTINGS) as make:
        server = await make()
        status = await in_thread(_busy_session, server.url)
    assert store.creates == 0 and store.seats == 0
    assert status == "0"


@pytest.mark.timeout(60)
async def test_solo_game_in_the_terminal(server: Server) -> None:
    moves, status = await in_thread(_solo_session, server.url)
    assert moves >= 4  # at least one choice per turn
    assert status == "0"
    statuses = [r["status"] for r in await lobby(server.url)]
    assert statuses.count("finished") >= 1


def _recorded_session(url: str, folder: str) -> str:
    with Person(url, "alice", "--record", folder) as person:
        person.expect(LOBBY)
        person.create_room("skipper", "multi", "2", "turn_limit=3", "n", "")
        person.expect(WAITING)
        person.say("s")
        person.expect(r"\* the game has started \(deal commitment [0-9a-f]{64}\)")
        person.play_until_over(sensible)
        return person.quit()


@pytest.mark.timeout(90)
async def test_the_terminal_checks_the_reveal_and_saves_a_game_record(
        server: Server, tmp_path: Path) -> None:
    out = await in_thread(_recorded_session, server.url, str(tmp_path))
    assert "deal revealed: seed" in out and "matches the commitment of the start" in out
    (record,) = tmp_path.glob("*.json")
    assert f"cardhall verify {record}" in out
    verdict = verify_record(json.loads(record.read_text(encoding="utf-8")))
    assert verdict.seat is not None and verdict.views_checked > 0


# -- a person against server bots -------------------------------------------------------------

def _server_bots_session(url: str) -> str:
    with Person(url, "carol") as person:
        person.expect(LOBBY)
        room = person.create_room("skipper", "multi", "3", "turn_limit=3 turn_seconds=30", "n", "")
        person.expect(r"waiting for players \(1/3 seats\); type s to start")
        person.expect(WAITING)
        person.say("s")
        person.expect(r"\* seat 1( Bot 1)?: is played by a bot now")  # the name may come later
        person.expect(r"\* seat 2( Bot 2)?: is played by a bot now")
        person.expect(r"clocks: seat 0 carol \(you\) (30|29|28) s left")
        person.say("t")  # RULINGS K6m: the seat's own auto-trash preference
        person.expect(r"auto-trash off")
        person.say("v")
        person.expect(r"trash \d+  auto-trash off")
        person.play_until_over(sensible)
        out = person.output
        assert "players: 0 carol (you) [host], 1 Bot 1 [bot], 2 Bot 2 [bot]" in out or \
            "players: 0 carol (you), 1 Bot 1 [bot], 2 Bot 2 [bot]" in out
        assert re.search(r"\. seat [12]: (played|discarded|put \S+ up for auction)", out)
        assert re.search(r"GAME OVER: .*\(turn_limit|completed|unwinnable", out)
        # issue #33: Skipper's events in words, never the engine's keys
        events = event_lines(out)
        assert any("ended turn" in line for line in events)
        assert any(re.search(r"drew (a card|\d+ cards)", line) for line in events)
        assert not any(re.search(r"\b(count \d|turns \d|skip_draw)\b", line) for line in events)
        person.quit()
        return room


@pytest.mark.timeout(60)
async def test_multi_game_against_server_bots(server: Server) -> None:
    room = await in_thread(_server_bots_session, server.url)
    assert {r["room"]: r["status"] for r in await lobby(server.url)}[room] == "finished"


# -- issue #33: bots' events print above one prompt; no s start in a running game --------------

def _watch_bots_session(url: str, room: str) -> tuple[str, list[str]]:
    with Person(url, "watcher") as person:
        person.expect(LOBBY)
        person.say(f"w {room}")
        person.expect(r"joined room \w+ \(skipper\) as a spectator")
        for _ in range(12):  # bots play on: each of their moves is an event line
            person.expect(r"\. seat \d: ")
        person.expect(IDLE)
        screen = person.settled_lines()
        person.quit()
        return person.output, screen


@pytest.mark.timeout(90)
async def test_bot_events_print_above_a_single_prompt_that_offers_no_start(
        server: Server) -> None:
    async with Client(server.url, name="host") as host:
        created = await host.create_room(
            "skipper", mode="multi", seats=3,
            options={"turn_limit": 40, "bot_seconds": 0.15})
        await host.join(created.room)
        await host.start(created.room)  # the empty seats get bots
        await host.leave(created.room)  # and so does the host's: bots only
        out, screen = await in_thread(_watch_bots_session, server.url, created.room)
    prompts = [line for line in screen if PROMPT_LINE.search(line)]
    assert len(prompts) == 1, "\n".join(screen)  # the prompt is not printed again per event
    assert screen[-1] == prompts[0]  # at the bottom, the events above it
    assert any(line.startswith(". seat ") for line in screen)
    assert len(re.findall(r"\. seat \d: ", out)) >= 12
    assert "s start" not in out  # the game runs: nothing to start


# -- a person against a bot client started by the test -------------------------------------

def _create_private(person: Person) -> str:
    person.expect(LOBBY)
    person.create_room("skipper", "multi", "2", "turn_limit=3", "y", "")
    person.expect(r"private join code (\w+)")
    assert person.match is not None
    code = person.match.group(1)
    person.expect(WAITING)
    return code


@pytest.mark.timeout(60)
async def test_multi_game_against_a_bot_client(server: Server) -> None:
    person = await in_thread(Person, server.url, "dave")
    try:
        code = await in_thread(_create_private, person)
        async with Client(server.url, name="robot") as bot:
            joined = await bot.join(code=code)  # the room is full: it starts
            assert joined.seat == 1
            task = asyncio.ensure_future(play_seat(bot, joined.room, 1,
                                                   strategy("skipper", "greedy"),
                                                   random.Random(3)))
            moves = await in_thread(person.play_until_over, sensible)
            async with asyncio.timeout(EXPECT_TIMEOUT):
                result = await task
        assert moves >= 3
        assert result.outcome["reason"] in ("turn_limit", "completed", "unwinnable")
        assert "* seat 1 robot: joined" in person.output
        assert re.search(r"players: 0 dave \(you\)( \[host\])?, 1 robot", person.output)
    finally:
        await in_thread(person.close)


# -- the lobby --------------------------------------------------------------------------------

def _lobby_session(url: str, room: str) -> None:
    with Person(url, "erin") as person:
        person.expect(rf" 1\. {room} +skipper +multi +1/2 +waiting +public +Friday")
        person.expect(LOBBY)
        person.say("w 1")
        person.expect(r"you are watching")
        person.expect(IDLE)  # a spectator starts nothing
        person.say("l")
        person.expect(LOBBY)
        person.say("j nosuchroom")
        person.expect(r"error: \[room/not_found\] ")
        person.say("p NOCODE")
        person.expect(r"error: \[room/not_found\] ")
        person.say("j 7")
        person.expect(r"error: no room number 7")
        person.say("x")
        person.expect(r"error: unknown command 'x'")
        person.say("c", "chess", "x")
        person.expect(r"error: no game 'chess'")
        person.expect(r"cancelled")
        person.say("1")  # a bare number joins that room
        person.expect(r"joined room \w+ \(skipper\) in seat 1")
        person.expect(r"\* the game has started")
        person.say("l")
        person.expect(LOBBY)
        person.say("k skipper solo")
        person.expect(MOVE)
        person.quit()  # straight from a room
        assert person.exit_status() == 0


@pytest.mark.timeout(60)
async def test_lobby_commands(server: Server) -> None:
    async with Client(server.url, name="frank") as host:
        created = await host.create_room("skipper", mode="multi", seats=2, name="Friday")
        await host.join(created.room)
        await in_thread(_lobby_session, server.url, created.room)


def _guest_session(url: str, room: str) -> str:
    with Person(url, "gus") as person:
        person.expect(LOBBY)
        person.say(f"j {room}")
        person.expect(r"joined room \w+ \(skipper\) in seat 1")
        person.expect(r"waiting for players \(2/3 seats\); the host starts the game")
        person.expect(IDLE)  # s start is the host's, not offered to a guest
        assert "s start" not in person.settled_lines()[-1]
        return person.quit()


@pytest.mark.timeout(60)
async def test_a_guest_in_a_waiting_room_is_not_offered_the_start(server: Server) -> None:
    async with Client(server.url, name="hostess") as host:
        created = await host.create_room("skipper", mode="multi", seats=3)
        await host.join(created.room)
        out = await in_thread(_guest_session, server.url, created.room)
    assert re.search(r"players: 0 hostess \[host\], 1 gus \(you\), 2 \(empty\)", out)


def _chat_session(url: str, room: str) -> str:
    with Person(url, "gus") as person:
        person.expect(LOBBY)
        person.say(f"j {room}")
        person.expect(r"recent chat:")
        person.expect(r"\[chat\] hostess: welcome, whoever comes")
        person.expect(IDLE)
        person.say("c good luck all")
        person.expect(r"\[chat\] gus: good luck all")  # every member gets it, the sayer too
        person.expect(r"\[chat\] hostess: thanks gus")  # said live, after gus's line
        person.say("e well played")
        person.expect(r"\[chat\] gus: \*well played\*")
        return person.quit()


@pytest.mark.timeout(60)
async def test_the_terminal_shows_the_rooms_chat_and_says_lines(server: Server) -> None:
    """A player at the terminal sees the chat said before joining (history), says a line
    and an emote that other members get, and sees a line said live."""
    async with Client(server.url, name="hostess") as host:
        created = await host.create_room("skipper", mode="multi", seats=3)
        await host.join(created.room)
        await host.say(created.room, "welcome, whoever comes")
        session = asyncio.ensure_future(in_thread(_chat_session, server.url, created.room))
        for _ in range(400):  # 40 s at most: until gus's line reaches the host
            if any(line.get("text") == "good luck all" for line in host.chat_lines(
                    created.room)):
                break
            await asyncio.sleep(0.1)
        await host.say(created.room, "thanks gus")
        await session
        said = [(line["name"], line.get("text"), line.get("emote"))
                for line in host.chat_lines(created.room)]
    assert ("gus", "good luck all", None) in said
    assert ("gus", None, "well_played") in said


def test_chat_lines_are_shown_as_plain_text() -> None:
    from cardhall.client.terminal.text import chat_line_text
    assert chat_line_text({"n": 1, "seat": 0, "name": "Bob", "text": "gg"}) == "[chat] Bob: gg"
    assert chat_line_text({"n": 2, "seat": None, "name": "Cy", "emote": "good_luck"}) == \
        "[watching] Cy: *good luck*"
    # whatever the server sent, no terminal escape reaches the screen
    assert chat_line_text({"n": 3, "seat": 1, "name": "X\x1b[2J", "text": "a\x07b"}) == \
        "[chat] X?[2J: a?b"


def _eof_session(url: str) -> int:
    with Person(url) as person:
        person.expect(LOBBY)
        person.child.sendeof()
        person.expect(pexpect.EOF)
        return person.exit_status()


@pytest.mark.timeout(30)
async def test_end_of_input_quits(server: Server) -> None:
    assert await in_thread(_eof_session, server.url) == 0


def test_unreachable_server_is_one_clear_line() -> None:
    child = pexpect.spawn(sys.executable, ["-m", "cardhall.cli", "play", "--url",
                                           "ws://127.0.0.1:9", "--no-color"],
                          encoding="utf-8", timeout=EXPECT_TIMEOUT)
    try:
        child.expect(r"Error: cannot reach ws://127.0.0.1:9: connection refused")
        child.expect(pexpect.EOF)
        assert "Traceback" not in (child.before or "")
        child.wait()
        assert child.exitstatus == 1
    finally:
        child.close(force=True)


# -- helpers ----------------------------------------------------------------------------------

def test_parse_options() -> None:
    assert parse_options("") == {}
    assert parse_options(" turn_limit=5  seed=7 ") == {"turn_limit": "5", "seed": "7"}
    with pytest.raises(ValueError, match="key=value"):
        parse_options("turn_limit")
    with pytest.raises(ValueError):
        parse_options("=3")


def test_menu_lines_columns() -> None:
    entries = [f"discard {n}\u2663" for n in range(2, 9)]
    lines = menu_lines(entries, 60)
    assert lines[0].startswith(" 1. discard 2\u2663")
    numbers = [int(n) for line in lines for n, _ in MENU_ITEM.findall(line)]
    assert sorted(numbers) == list(range(1, 8))
    assert all(len(line) <= 60 for line in lines)
    assert menu_lines(entries, 10) == [f"{i:>2}. {e}" for i, e in enumerate(entries, 1)]
    assert menu_lines([], 80) == []


def test_event_text() -> None:
    skipper = event_describer("skipper")
    assert event_text({"type": "play", "seat": 1, "card": "5D", "stack": "D",
                       "values": [5]}, 0, skipper) == \
        "seat 1: played 5\u2666 on the \u2666 stack (now 5)"
    # issue #33: "draw count 3; seat 2: end turns 1" in words
    assert event_text({"type": "draw", "seat": 0, "count": 3}, 0, skipper) == "you: drew 3 cards"
    assert event_text({"type": "end", "seat": 2, "turns": 1}, 0, skipper) == \
        "seat 2: ended turn 1"
    # without the game's phrases (or for an event they do not know): spelled out
    assert event_text({"type": "draw", "seat": 0, "count": 2, "skip_draw": True}, 0) == \
        "you: draw count 2 skip_draw"
    assert event_text({"type": "game_over", "winner": None, "reason": "won"}, 0) == \
        "table: game_over won"


async def test_line_reader_reads_a_pipe() -> None:
    read_fd, write_fd = os.pipe()
    lines: list[str | None] = []
    done = asyncio.Event()

    def sink(line: str | None) -> None:
        lines.append(line)
        if line is None:
            done.set()

    with os.fdopen(read_fd, "r") as stream:
        reader = LineReader(stream)
        reader.start(sink)
        os.write(write_fd, "1\r\nq\u2663\npart".encode())
        os.close(write_fd)
        async with asyncio.timeout(5):
            await done.wait()
        reader.stop()
    assert lines == ["1", "q\u2663", "part", None]


async def test_a_plain_console_writes_its_prompt_once_per_line_awaited() -> None:
    read_fd, write_fd = os.pipe()
    out = io.StringIO()
    got: list[tuple[str, str | None]] = []
    with os.fdopen(read_fd, "r") as stream:
        console = PlainConsole(stream, out)
        console.start(lambda kind, text: got.append((kind, text)))
        area = PromptArea("your move [1-2, v l q ?]> ", ("your actions:", " 1. pass"),
                          lambda: "clocks: seat 0 you 9 s left")
        console.show(area)
        console.say(". seat 1: drew 3 cards")  # a bot's event: the prompt is not written again
        console.show(area)
        os.write(write_fd, b"1\n")
        async with asyncio.timeout(5):
            while not got:
                await asyncio.sleep(0.01)
        console.show(area)  # a line was read: the next one is asked for
        await console.stop()
        os.close(write_fd)
    assert got == [("line", "1")]
    assert out.getvalue() == ("your actions:\n 1. pass\nyour move [1-2, v l q ?]> \n"
                              ". seat 1: drew 3 cards\n"
                              "your actions:\n 1. pass\nyour move [1-2, v l q ?]> ")
    assert "clocks" not in out.getvalue()  # a live line is for a console that redraws it


# -- issue #21: the renderer of a room joined by id, k GAME or w ID ---------------------------

def _renderer_session(url: str, rooms: dict[str, str], ready: Callable[[], None],
                      made: threading.Event) -> str:
    with Person(url, "gina") as person:
        person.expect(LOBBY)
        ready()  # the rooms are made now: the lobby list the client holds does not have them
        assert made.wait(EXPECT_TIMEOUT)
        person.say(f"w {rooms['shop']}")
        person.expect(r"joined room \w+ \(shop\) as a spectator")
        person.expect(r"SHOP SOLITAIRE   move")
        person.say("l")
        person.expect(LOBBY)
        person.say(f"j {rooms['thirtysix']}")
        person.expect(r"joined room \w+ \(thirtysix\) in seat 0")
        person.expect(r"Thirty-Six  turn 1/")
        person.expect(MOVE)
        person.say("l")
        person.expect(LOBBY)
        person.say("k shah")
        person.expect(r"joined room \w+ \(shah\) in seat 0")
        person.expect(r"THE SHAH   move")
        person.expect(MOVE)
        return person.quit()


@pytest.mark.timeout(60)
async def test_rooms_joined_by_id_or_quick_join_are_drawn_by_their_game(server: Server) -> None:
    loop = asyncio.get_running_loop()
    ready, made = asyncio.Event(), threading.Event()
    rooms: dict[str, str] = {}
    async with Client(server.url, name="host") as host:
        session = asyncio.ensure_future(in_thread(
            _renderer_session, server.url, rooms, lambda: loop.call_soon_threadsafe(ready.set),
            made))
        await ready.wait()
        shop = await host.create_room("shop")
        await host.join(shop.room)
        rooms["shop"] = shop.room
        rooms["thirtysix"] = (await host.create_room("thirtysix")).room
        joined = await host.spectate(shop.room)
        assert joined.view["room"]["game"] == "shop" and joined.view["room"]["mode"] is None
        made.set()
        out = await session
    assert "Skipper" not in out


# -- issue #21: seat tokens on disk, "my games / resume" -------------------------------------

def _ctrl_c_session(url: str, state_dir: str) -> tuple[str, str, int]:
    with Person(url, "hana", state_dir=state_dir) as person:
        person.expect(LOBBY)
        room = person.create_room("skipper", "multi", "2", "turn_limit=5", "n", "")
        person.expect(WAITING)
        person.say("s")
        person.expect(r"\* the game has started")
        person.expect(MOVE)
        person.child.sendintr()  # Ctrl-C: the program ends without leaving its seat
        person.expect(pexpect.EOF)
        return room, person.output, person.exit_status()


def _resume_session(url: str, state_dir: str, room: str) -> str:
    with Person(url, "hana", state_dir=state_dir) as person:
        person.expect(r"you have 2 game\(s\) kept from earlier: m lists them")
        person.expect(LOBBY)
        person.say("m")
        person.expect(rf" 1\. {room} +skipper +multi +seat 0")
        person.expect(r" 2\. gone0001 +skipper +multi +seat 1")
        person.expect(LOBBY)
        person.say("m 2")  # a room the server does not know: the entry is dropped
        person.expect(r"error: \[room/not_found\] ")
        person.expect(r"room gone0001 no longer holds that seat: forgotten")
        person.expect(LOBBY)
        person.say("m 1")  # now the only one left: the seat of the first session
        person.expect(rf"joined room {room} \(skipper\) in seat 0")
        person.expect(r"players: 0 hana \(you\)( \[host\])?, 1 Bot 1 \[bot\]")
        person.expect(MOVE)  # the seat's turn, kept for it
        person.say(sensible(person.menu()))
        person.expect(r"\. you: ")
        person.say("l")  # leaving forgets the token
        person.expect(LOBBY)
        person.say("m")
        person.expect(r"no games kept for this server")
        return person.quit()


@pytest.mark.timeout(60)
async def test_seat_tokens_outlive_the_program_and_my_games_resumes_them(
        server: Server, tmp_path: Path) -> None:
    from cardhall.client.seat_store import SeatStore
    room, _, status = await in_thread(_ctrl_c_session, server.url, str(tmp_path))
    assert status == 130  # ended by Ctrl-C, as a shell counts it
    path = tmp_path / "cardhall" / "seats.json"
    assert path.stat().st_mode & 0o777 == 0o600  # a token plays the seat: owner only
    (entry,) = SeatStore(path).entries(server.url)
    assert (entry["room"], entry["seat"], entry["game"], entry["mode"]) == \
        (room, 0, "skipper", "multi")
    assert len(entry["token"]) >= 16
    # another session's client cannot take the seat by joining again ...
    async with Client(server.url, name="hana") as other:
        with pytest.raises(ServerError, match="room/already_started"):
            await other.join(room, seat=0)
    SeatStore(path).put(server.url, "gone0001", 1, "x" * 22, game="skipper", mode="multi")
    out = await in_thread(_resume_session, server.url, str(tmp_path), room)
    assert "Traceback" not in out
    assert SeatStore(path).entries(server.url) == []


# -- issue #21: the server goes down and comes back without the room ---------------------------

def _restart_session(url: str, stopped: threading.Event, restarted: threading.Event,
                     stop: Callable[[], None], start: Callable[[], None]) -> str:
    with Person(url, "ivan") as person:
        person.expect(LOBBY)
        room = person.create_room("skipper", "multi", "2", "", "n", "")
        person.expect(WAITING)
        stop()
        assert stopped.wait(EXPECT_TIMEOUT)
        # said at once, then one line per failed attempt
        person.expect(r"error: lost the connection to ws://\S+; reconnecting")
        person.expect(r"\* reconnecting: attempt 1 failed \(.+\); next try in \d+\.\d s")
        person.expect(r"\* reconnecting: attempt 2 failed")
        start()
        assert restarted.wait(EXPECT_TIMEOUT)
        person.expect(r"\* reconnected to ws://")
        person.expect(rf"error: room {room} is gone \(the server restarted")
        person.expect(LOBBY)  # not the dead table: the lobby of the new server
        assert "could not resume" not in person.output  # no raw log lines on the screen
        return person.quit()


@pytest.mark.timeout(90)
async def test_a_server_restart_is_said_at_once_and_a_lost_room_goes_back_to_the_lobby(
        ) -> None:
    from cardhall.bench.procs import free_port
    loop = asyncio.get_running_loop()
    port = free_port()
    servers = [Server(Settings(host="127.0.0.1", port=port))]
    await servers[0].start()
    stopped, restarted = threading.Event(), threading.Event()

    async def stop() -> None:
        await servers[-1].stop()
        stopped.set()

    async def start() -> None:
        servers.append(Server(Settings(host="127.0.0.1", port=port)))
        await servers[-1].start()
        restarted.set()

    try:
        out = await in_thread(
            _restart_session, servers[0].url, stopped, restarted,
            lambda: asyncio.run_coroutine_threadsafe(stop(), loop),
            lambda: asyncio.run_coroutine_threadsafe(start(), loop))
    finally:
        await servers[-1].stop()
    assert "Traceback" not in out


# -- issue #21: terminals that cannot print the suit symbols ----------------------------------

def _ascii_session(url: str, extra: tuple[str, ...], env: dict[str, str]) -> str:
    with Person(url, "jo", *extra, env=env) as person:
        person.expect(LOBBY)
        person.create_room("skipper", "solo", "seed=7", "n", "")
        person.expect(MOVE)
        person.say(sensible(person.menu()))
        person.expect(r"\. you: ")
        person.expect(MOVE)
        out = person.quit()
        assert person.exit_status() == 0
        return out


@pytest.mark.parametrize(("extra", "env"), [
    ((), {"PYTHONIOENCODING": "ascii"}),  # detected: the output cannot encode the suits
    ((), {"PYTHONIOENCODING": "latin-1"}),
    (("--ascii",), {}),  # asked for on a UTF-8 terminal
], ids=["ascii-terminal", "latin-1-terminal", "--ascii"])
@pytest.mark.timeout(60)
async def test_ascii_card_mode(server: Server, extra: tuple[str, ...],
                               env: dict[str, str]) -> None:
    out = await in_thread(_ascii_session, server.url, extra, env)
    assert "Traceback" not in out
    assert not set(out) & set("\u2663\u2666\u2665\u2660\u2713")
    assert re.search(r"C AC \(1\) +D AD \(1\) +H AH \(1\) +S AS \(1\)", out)
    assert re.search(r"your hand: ((10|[2-9AJQK])[CDHS] ?){5}", out)


# -- issue #21: the create dialogue ---------------------------------------------------------------

def _create_dialogue_session(url: str) -> str:
    with Person(url, "kim") as person:
        person.expect(LOBBY)
        person.say("c", "shah")
        # the game's own options and the room options, from list_games
        person.expect(r"  seed=\(not set\)  int 0\.\.\d+  Deal number")
        person.expect(r"  max_moves=3000  int 1\.\.1000000  Room move limit")
        person.expect(r"  on_abandon=bot  str one of bot/forfeit  ")
        person.expect(r"options as name=value words \[Enter = all defaults, x = cancel\]:")
        assert "turn_limit" not in person.output  # not a Shah option: never suggested
        person.say("seed=7 max_moves=0 bogus=1 turn_seconds=60")
        # the good ones stay; each bad one is asked again on its own
        person.expect(r"error: option 'max_moves' must be >= 1, not 0")
        person.expect(r"max_moves \[int 1\.\.1000000, default 3000; Enter = leave it out, "
                      r"x = cancel\]:")
        person.say("lots")
        person.expect(r"error: option 'max_moves' must be an integer, not 'lots'")
        person.expect(r"max_moves \[")
        person.say("50")
        person.expect(r"error: no option 'bogus' here; the options are: bid_seconds, ")
        person.expect(r"name=value instead \[Enter = leave it out, x = cancel\]:")
        person.say("")
        person.expect(r"private room\? \[y/N\]:")
        person.say("n")
        person.expect(r"room name \[Enter = chosen by the server\]:")
        person.say("Kim's evening deal")
        person.expect(r"created room (\w+)")
        person.expect(r"clocks: seat 0 kim \(you\) (60|59|58) s left")  # turn_seconds=60 kept
        person.expect(MOVE)
        person.new_drawing()
        person.say(person.menu()["deal the next circle"])  # a Shah event, told in words
        person.expect(r"\. table: dealt the middle circle: (\S+[\u2663\u2666\u2665\u2660] ?){8}")
        person.say("l")
        person.expect(LOBBY)
        person.say("r")
        person.expect(r" 1\. \w+ +shah .* Kim's evening deal")
        return person.quit()


@pytest.mark.timeout(60)
async def test_create_dialogue_lists_options_keeps_good_ones_and_names_the_room(
        server: Server) -> None:
    await in_thread(_create_dialogue_session, server.url)
    (summary,) = await lobby(server.url)
    assert summary["name"] == "Kim's evening deal" and summary["game"] == "shah"
    async with Client(server.url, name="watcher") as watcher:
        joined = await watcher.spectate(summary["room"])
    assert joined.view["max_moves"] == 50


def _default_seats_session(url: str) -> str:
    with Person(url, "pat") as person:
        person.expect(LOBBY)
        person.say("c", "skipper", "multi")
        person.expect(r"seats \[2-6, Enter = 4\]:")  # as the web's New-room form
        person.say("", "", "n", "")
        person.expect(r"waiting for players \(1/4 seats\)")
        return person.quit()


@pytest.mark.timeout(60)
async def test_a_multi_room_has_four_seats_unless_told_otherwise(server: Server) -> None:
    await in_thread(_default_seats_session, server.url)
    (summary,) = await lobby(server.url)
    assert (summary["mode"], summary["seats"]) == ("multi", 4)


# -- issue #21: giving up asks first ---------------------------------------------------------------

def _close_shop_session(url: str) -> str:
    with Person(url, "lee") as person:
        person.expect(LOBBY)
        person.create_room("shop", "", "n", "")
        person.expect(MOVE)
        close = person.menu()["close shop (give up)"]
        person.say(close)
        person.expect(r"really close shop \(give up\)\? \[y/N\]>")
        person.say("")  # Enter: no
        person.expect(r"not done: close shop \(give up\); keep playing")
        person.expect(MOVE)
        person.say(close)
        person.expect(r"really close shop \(give up\)\? \[y/N\]>")
        person.say("y")
        person.expect(r"GAME OVER: you lost")
        person.expect(LOBBY)
        return person.quit()


@pytest.mark.timeout(60)
async def test_close_shop_asks_for_confirmation(server: Server) -> None:
    out = await in_thread(_close_shop_session, server.url)
    assert out.count("GAME OVER") == 1
    (summary,) = await lobby(server.url)
    assert summary["status"] == "finished"


# -- issue #21: Shah and Thirty-Six events in words ---------------------------------------------

def test_shah_and_thirtysix_event_lines_are_words() -> None:
    shah, thirtysix = event_describer("shah"), event_describer("thirtysix")
    # rays and foundations numbered 1-8, as drawn (issue #33; the wire counts from 0)
    assert event_text({"type": "play", "card": "QH1", "foundation": 3, "from": "talon"}, 0,
                      shah) == "table: played Q\u2665 to foundation 4 (from the talon)"
    assert event_text({"type": "fill", "card": "7S0", "ray": 2, "circle": 1, "from": "up"},
                      0, shah) == ("table: refilled ray 3, middle circle, with 7\u2660 from "
                                   "the turned card")
    assert event_text({"type": "deal", "cards": ["2H0", "TC1"], "circle": 0}, 0, shah) == \
        "table: dealt the inner circle: 2\u2665 10\u2663"
    assert event_text({"type": "turn", "card": None}, 0, shah) == "table: turned the pack over"
    assert event_text({"type": "reveal", "turn": 3, "cards": ["9S", "KH"],
                       "enemy_total": 19}, 0, thirtysix) == \
        "table: turn 3: the ENEMY shows 9\u2660 and K\u2665 (total 19)"
    assert event_text({"type": "commit", "cards": ["TD", "5C"], "total": 15,
                       "enemy_total": 12, "result": "won"}, 0, thirtysix) == \
        "table: committed 10\u2666 and 5\u2663: 15 against 12, won"
    assert event_text({"type": "take", "card": "7H", "to_enemy": ["2C"]}, 0, thirtysix) == \
        "table: took 7\u2665; the ENEMY takes 2\u2663"
    # an event the game's phrases do not know is still spelled out, cards as cards
    assert event_text({"type": "odd", "cards": ["AS"]}, 0, shah) == "table: odd cards A\u2660"
    assert event_describer("nosuchgame") is None


def _thirtysix_session(url: str) -> str:
    with Person(url, "max") as person:
        person.expect(LOBBY)
        person.create_room("thirtysix", "seed=5", "n", "")
        person.expect(MOVE)
        menu = person.menu()
        person.new_drawing()
        person.say(next(n for phrase, n in menu.items() if phrase.startswith("commit ")))
        person.expect(r"\. table: committed .+: \d+ against \d+, (won|lost)")
        person.expect(MOVE)  # won: take an ENEMY card; lost: give a row card
        person.say(next(n for phrase, n in person.menu().items()
                        if phrase.startswith(("take ", "give "))))
        person.expect(r"\. table: (took|gave) \S+")
        person.expect(r"turn 2: the ENEMY shows \S+ and \S+ \(total \d+\)")
        return person.quit()


@pytest.mark.timeout(60)
async def test_thirtysix_events_in_the_terminal_are_words(server: Server) -> None:
    out = await in_thread(_thirtysix_session, server.url)
    events = event_lines(out)
    assert events and not any(re.search(r"\b(reveal|enemy_total|to_enemy)\b|\[", line)
                              for line in events)


# -- issue #21: a race's events do not scroll the menu away -----------------------------------

def _race_session(url: str) -> list[list[str]]:
    with Person(url, "nia") as person:
        person.expect(LOBBY)
        person.create_room("skipper", "race", "2", "bot_seconds=0.2", "n", "")
        person.expect(WAITING)
        person.say("s")
        person.expect(MOVE)
        screens = []
        for _ in range(15):  # the bot plays on while the person thinks
            person.expect(r"\. seat 1: ")
            person.expect(MOVE)
            screens.append(person.settled_lines())
        return screens


@pytest.mark.timeout(90)
async def test_race_events_keep_the_menu_in_view(server: Server) -> None:
    for screen in await in_thread(_race_session, server.url):
        # at the bottom, whatever the bot did: the menu, the clocks, the move prompt
        assert re.match(MOVE, screen[-1]), "\n".join(screen)
        top = max(i for i, line in enumerate(screen) if line == "your actions:")
        assert all(MENU_ITEM.match(line.strip()) or line.startswith("clocks:")
                   for line in screen[top + 1:-1]), "\n".join(screen)
        assert any(line.startswith(". seat 1: ") for line in screen[:top])


def _refused_option_session(url: str) -> str:
    with Person(url, "olga") as person:
        person.expect(LOBBY)
        # first_seat=4 passes the option's own limits (0..5) but not a room of 2 seats: only
        # the server knows; the other answers stand and only first_seat is asked again
        person.say("c", "skipper", "multi", "2", "turn_limit=7 first_seat=4", "n", "Duo")
        person.expect(r"error: \[lobby/bad_options\] first_seat 4 is not a seat of 2")
        person.expect(r"first_seat \[int 0\.\.5, default 0; Enter = leave it out, "
                      r"x = cancel\]:")
        person.say("1")
        person.expect(r"created room (\w+)")
        person.expect(WAITING)
        person.say("s")
        person.expect(r"\* the game has started")
        return person.quit()


@pytest.mark.timeout(60)
async def test_create_dialogue_asks_again_only_for_the_option_the_server_refused(
        server: Server) -> None:
    out = await in_thread(_refused_option_session, server.url)
    # each answer is written once with its question: none of them was asked again
    assert out.count("private room? [y/N]: n\n") == 1
    assert out.count("x = cancel]: turn_limit=7 first_seat=4\n") == 1
    (summary,) = await lobby(server.url)
    assert (summary["name"], summary["seats"], summary["mode"]) == ("Duo", 2, "multi")
    options = server.lobby.rooms[summary["room"]].table.options
    assert (options["turn_limit"], options["first_seat"]) == (7, 1)
