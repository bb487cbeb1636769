"""The web client as people use it (issue #33's defects; #35 items 3 and 4 for the web
client), in Debian's Chromium driven by Playwright (``executable_path``, never
``playwright install``), at a desktop (1280x900) and a phone (390x844) viewport: the New-room
form's defaults, the host role, names, the give-up confirmation, phones, the rendering
glitches, a lost connection, auto-trash, the lobby's order, stale and missing updates, and a
server that stops answering."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from cardhall import games
from cardhall import protocol as p
from cardhall.client.client import Client
from cardhall.server.app import Server
from cardhall.server.room import Room
from cardhall.server.memory_store import MemoryStore
from cardhall.server.phases import Phase

from .. import web_screens as ws
from ..conftest import serving
from ..room_harness import Flaky
from .test_web import _need_browser, room_attr, shot

pytestmark = pytest.mark.timeout(240)


@contextlib.asynccontextmanager
async def site(**settings: Any) -> AsyncIterator[tuple[Server, Any, list[str]]]:
    """A server (memory store, no message rate limit) and a Chromium; yields the server, the
    browser and the list the pages' errors go to (checked empty at the end)."""
    _need_browser()
    errors: list[str] = []
    async with serving(MemoryStore, msg_rate=None, **settings) as make, ws.chromium() as b:
        server = await make()
        yield server, b, errors
    assert not errors, errors


async def page_at(b: Any, server: Server, errors: list[str], viewport: str = "desktop") -> Any:
    """A new player's page on the lobby of ``server``."""
    return await ws.open_page(b, server.port, viewport, errors)


async def seated(b: Any, server: Server, errors: list[str], ready: str) -> tuple[Any, Room]:
    """A new player's page seated in a Skipper solo room (seed 3) made with the form, once
    ``ready`` (a selector) shows; and the room."""
    page = await page_at(b, server, errors)
    await ws.create(page, "skipper", mode="solo", seed=3)
    await page.wait_for_selector(ready)
    return page, server.lobby.rooms[await room_attr(page, "room")]


# -- 1. the New-room form sends only what the player changed --------------------------------

def form_cases() -> list[tuple[str, str | None]]:
    """(game, mode) for every game and each of its modes."""
    return [(g["game"], mode) for g in games.catalog() for mode in (g["modes"] or [None])]


async def test_form_defaults_make_the_room_the_protocol_makes_without_options() -> None:
    """Each game's room (each mode) created from the form with every option left alone has
    the options and room settings of a room created over the protocol with none (the seed
    aside, drawn per room): Skipper multi keeps K11's skip-draws."""
    async with site() as (server, b, errors):
        page = await page_at(b, server, errors)
        host = Client(f"ws://127.0.0.1:{server.port}/", name="proto", reconnect=False)
        await host.connect()
        try:
            for game, mode in form_cases():
                await page.select_option("#create-game", game)
                if mode is not None:
                    await page.select_option("#create-mode", mode)
                seats = int(await page.input_value("#create-seats"))
                await page.click("#create-submit")
                await page.wait_for_selector("#room")
                made = server.lobby.rooms[await room_attr(page, "room")]
                plain = server.lobby.rooms[(await host.create_room(
                    game, mode=mode, seats=seats)).room]
                drop_seed = lambda o: {k: v for k, v in o.items() if k != "seed"}  # noqa: E731
                assert drop_seed(made.table.options) == drop_seed(plain.table.options), (game, mode)
                assert made.table.settings == plain.table.settings, (game, mode)
                await ws.back_to_lobby(page)
            skipper = next(r for r in server.lobby.rooms.values()
                           if r.table.game_name == "skipper" and r.table.options["mode"] == "multi")
            assert skipper.table.options["skip_draws"] is not False
        finally:
            await host.close()


# -- 2. the host role moves, and the page knows it -----------------------------------------

async def test_host_leaves_and_the_next_player_gets_the_start_button() -> None:
    async with site() as (server, b, errors):
        ann = await page_at(b, server, errors)
        await ws.create(ann, "skipper", mode="multi", seats=4)
        room_id = await room_attr(ann, "room")
        bob = await page_at(b, server, errors)
        await bob.click("#refresh")
        await bob.click(f"tr[data-room='{room_id}'] button.join")
        await bob.wait_for_selector("#room[data-seat='1']")
        assert not await bob.locator("#start").count()  # Ann hosts
        await ann.click("#leave")
        await bob.wait_for_selector("#start")
        await bob.wait_for_selector(".seat-item[data-seat='1'] .host")
        log = await bob.inner_text("#log")
        ann_name = await ann.evaluate("() => window.cardhall.session.name")
        # Issue #44: the player who left by name (not "seat 0"), the page's own seat as "You".
        assert "You are now the host" in log and f"{ann_name} left." in log, log
        await bob.click("#start")
        await bob.wait_for_selector("#room[data-status='playing']")
        assert server.lobby.rooms[room_id].table.phase is Phase.PLAYING


# -- 3. names ---------------------------------------------------------------------------

async def connection_names(server: Server) -> set[str]:
    return {c.name for c in server.connections}


async def test_names_enter_applies_keeps_the_form_and_shows_on_table_and_log() -> None:
    """Enter in the name field applies the name (the form keeps the mode and seats chosen);
    a name typed and not applied is used when the player joins; the table's headers and
    the event log say the players' names."""
    async with site() as (server, b, errors):
        bob = await page_at(b, server, errors)
        await bob.select_option("#create-game", "skipper")
        await bob.select_option("#create-mode", "multi")
        await bob.fill("#create-seats", "2")
        await bob.fill("#player-name", "Bob")
        await bob.press("#player-name", "Enter")
        for _ in range(100):
            if "Bob" in await connection_names(server):
                break
            await asyncio.sleep(0.05)
        assert "Bob" in await connection_names(server)
        await bob.wait_for_function("() => document.body.dataset.conn === 'open'")
        assert await bob.input_value("#create-mode") == "multi"
        assert await bob.input_value("#create-seats") == "2"
        await bob.click("#create-submit")
        await bob.wait_for_selector("#room[data-status='waiting']")
        room_id = await room_attr(bob, "room")

        ann = await page_at(b, server, errors)
        await ann.fill("#player-name", "Ann")  # typed, never applied by hand
        await ann.click("#refresh")
        await ann.click(f"tr[data-room='{room_id}'] button.join")
        await ann.wait_for_selector("#room[data-seat='1'][data-status='playing']")
        room = server.lobby.rooms[room_id]
        assert [s.name for s in room.table.seats if s is not None] == ["Bob", "Ann"]
        await bob.wait_for_selector("#room[data-status='playing']")
        assert await bob.inner_text(".seat[data-seat='0'] .seat-title") == "Bob (you)"
        await bob.wait_for_selector(".seat[data-seat='1'] .seat-title:text-is('Ann')")
        # Whoever is to act moves; the other page's log names the mover.
        mover, other, name = ((bob, ann, "Bob") if room.table.game.to_act() == [0]
                              else (ann, bob, "Ann"))
        await mover.evaluate("""() => { const r = window.cardhall.room;
            const a = r.view.legal_actions.find(x => x[0] !== 'resign'); return r.act(a); }""")
        await other.wait_for_function(
            "name => [...document.querySelectorAll('#log li')]"
            ".some(li => li.textContent.startsWith(name + ' '))", arg=name)
        assert "seat 0" not in await other.inner_text("#log")


# -- 4. giving up is asked for again --------------------------------------------------------

async def test_resign_asks_before_it_is_sent() -> None:
    async with site() as (server, b, errors):
        page, room = await seated(b, server, errors, "#room[data-mine='1']")
        before = room.table.game.state_id
        await page.click(".turn-buttons button.resign")
        await page.wait_for_selector("#confirm[role='alertdialog']")
        assert await page.evaluate("() => document.activeElement.id") == "confirm-no"
        await asyncio.sleep(0.3)
        assert room.table.game.state_id == before and not room.table.game.over  # nothing was sent
        await page.click("#confirm-no")
        await page.wait_for_selector("#confirm", state="detached")
        await page.click(".turn-buttons button.resign")
        await page.click("#confirm-yes")
        await page.wait_for_selector("#game-over")
        assert room.table.game.over and room.table.game.outcome()["reason"].startswith("resign")


# -- 5. phones: no sideways scrolling, targets a finger can hit ------------------------------

#: JavaScript: the page's width facts and every visible control smaller than 40 px either
#: way (a checkbox counts by its label, which toggles it too).
TARGETS = """() => {
  const small = [];
  for (const el of document.querySelectorAll(
      'button, a[href], input, select, summary, textarea, [role=button]')) {
    const r = el.getBoundingClientRect();
    if (!r.width || !r.height || getComputedStyle(el).visibility === 'hidden') continue;
    let w = r.width, h = r.height;
    if (el.type === 'checkbox' || el.type === 'radio')
      for (const l of el.labels || []) {
        const lr = l.getBoundingClientRect(); w = Math.max(w, lr.width); h = Math.max(h, lr.height);
      }
    if (w < 39.5 || h < 39.5)
      small.push(`${el.tagName}#${el.id} ${(el.textContent || el.getAttribute('aria-label')
        || '').trim().slice(0, 30)} ${Math.round(w)}x${Math.round(h)}`);
  }
  return {scroll: document.documentElement.scrollWidth, inner: innerWidth, small};
}"""


async def test_every_screen_fits_a_phone_and_its_screenshots_are_written(
        tmp_path: Path) -> None:
    """At 390x844 every screen (the lobby, a waiting room, each game's table, game over)
    is no wider than the screen and every control is at least 40 px each way; the
    screenshot helper (``python -m tests.web_screens``) writes each screen's picture."""
    _need_browser()
    seen: dict[str, dict[str, Any]] = {}

    async def check(screen: str, page: Any) -> None:
        if screen == "lobby":  # the form's options too
            await page.eval_on_selector_all("#create-form details",
                                            "ds => ds.forEach(d => { d.open = true; })")
        facts = seen[screen] = await page.evaluate(TARGETS)
        assert facts["scroll"] <= facts["inner"] == 390, (screen, facts)
        assert not facts["small"], (screen, facts["small"])

    written = await ws.write_screenshots(tmp_path, viewports=("phone",), on_screen=check)
    assert list(seen) == list(ws.SCREENS)
    assert [p.name for p in written] == [f"web-{s}-phone.png" for s in ws.SCREENS]
    for path in written:
        head = path.read_bytes()[:24]
        assert head[:8] == b"\x89PNG\r\n\x1a\n"
        assert int.from_bytes(head[16:20], "big") == 390  # the IHDR width


# -- 6. rendering glitches ----------------------------------------------------------------

async def show_view(page: Any, view: dict[str, Any]) -> None:
    """Draw ``view`` (an engine view) at the page's table, with the room facts and the
    state_id it has (its next update from the server still applies)."""
    await page.evaluate("""v => { const r = window.cardhall.room;
        r.view = {...v, room: r.view.room, state_id: r.view.state_id};
        window.cardhall.render(); }""", view)


async def test_rendering_glitches_are_gone() -> None:
    """No "◀ to act" in a waiting room; a seat out of the game says so without its turn's
    phase; Shop's scale sides are apart and every card of a candle shows with its height;
    the game-over buttons do not touch."""
    async with site() as (server, b, errors):
        page = await page_at(b, server, errors)
        await ws.create(page, "skipper", mode="multi", seats=3)
        await page.wait_for_selector("#room[data-status='waiting'] .skipper")
        assert not await page.locator("#room .to-act").count()

        skipper = games.create("skipper", {"mode": "multi", "seed": 5}, 3)
        skipper.forfeit(1)
        await show_view(page, skipper.view(0))
        facts = await page.inner_text(".seat[data-seat='1'] h3 small")
        assert facts.strip() == "turns 0 \u00b7 out of the game"
        await ws.back_to_lobby(page)

        await ws.create(page, "shop", seed=7)
        await page.wait_for_selector("#room[data-status='playing'] .shop")
        shop = games.create("shop", {"seed": 7}, 1)
        import random

        rng = random.Random(1)
        while max(len(c) for c in shop.view(0)["candles"]) < 3 and not shop.over:
            legal = [a for a in shop.legal_actions(0) if a[0] != "close_shop"]
            candles = [a for a in legal if a[0] == "candle"]
            shop.apply(0, rng.choice(candles or legal))
        view = shop.view(0)
        await show_view(page, view)
        assert ")side" not in await page.inner_text(".shop")
        assert await page.locator(".sides .side").count() == 2
        for i, cards in enumerate(view["candles"]):
            if cards:
                shown = await page.eval_on_selector_all(
                    f".slot:nth-child({i + 1}) .candle [data-card]", "els => els.map(e =>"
                    " e.dataset.card)")
                assert shown == cards
        assert "3 high" in await page.inner_text(".shop")
        await page.evaluate("() => window.cardhall.room.refetch()")  # the true view again
        await page.wait_for_selector(".shop .candle", state="detached")
        await ws.give_up(page)
        gap = await page.evaluate("""() => { const [a, b] = [...document.querySelectorAll(
            '#game-over button')].map(e => e.getBoundingClientRect());
            return b.top >= a.bottom ? b.top - a.bottom : b.left - a.right; }""")
        assert gap >= 4


# -- 7. a lost connection and a kick ------------------------------------------------------

async def test_a_kicked_player_is_told_why() -> None:
    async with site() as (server, b, errors):
        page = await page_at(b, server, errors)
        await ws.create(page, "skipper", mode="multi", seats=3)
        room = server.lobby.rooms[await room_attr(page, "room")]
        await room.submit(lambda: room.apply(room.table.kick(0)))
        await page.wait_for_selector("#lobby")
        assert "operator removed you" in await page.inner_text("#notice")


# -- 8. auto-trash ------------------------------------------------------------------------

async def test_auto_trash_toggle_sets_the_seat_preference() -> None:
    async with site() as (server, b, errors):
        page, room = await seated(b, server, errors, "#room[data-status='playing'] #auto-trash")
        assert await page.is_checked("#auto-trash") and room.table.game.view(0)["seats"][0][
            "auto_trash"] is True
        for want in (False, True):
            await page.click("#auto-trash")
            for _ in range(100):
                if room.table.game.view(0)["seats"][0]["auto_trash"] is want:
                    break
                await asyncio.sleep(0.05)
            assert room.table.game.view(0)["seats"][0]["auto_trash"] is want
            await page.wait_for_function(
                "want => document.querySelector('#auto-trash').checked === want", arg=want)
        assert "auto-trash" in await page.inner_text("#log")


# -- 9. the lobby's order -----------------------------------------------------------------

async def test_lobby_lists_rooms_to_join_first_newest_first_and_hides_finished() -> None:
    """Rooms to join come first, newest first, then rooms being played; finished rooms only
    with "show finished", last. A room to join is listed first even when more than a page
    of rooms being played sort before it by id."""
    from ..room_harness import Recorder

    async with site() as (server, b, errors):
        host = Recorder("host", [])
        lobby = server.lobby

        async def make(mode: str, seats: int, created: float) -> Any:
            room = await lobby.create(host, p.CreateRoom(  # type: ignore[arg-type]
                game="skipper", mode=mode, seats=seats))
            room.table.created = created
            await room.save_state()
            return room

        playing = []
        for i in range(110):  # a person (the stand-in) plays each
            room = await make("solo", 1, 1_000 + i)
            async def sit_and_start(r: Room = room) -> None:
                await r.apply(r.table.join(host, 0, reply=False))
                await r.apply(r.table.start(None))

            await room.submit(sit_and_start)
            await room.save_state()
            playing.append(room)
        done = await make("solo", 1, 5_000)
        # a server bot plays it to the end
        await done.submit(lambda: done.apply(done.table.start(None)))
        for _ in range(200):
            if done.table.phase is Phase.FINISHED:
                break
            await asyncio.sleep(0.05)
        await done.save_state()
        cutoff = sorted(r.id for r in playing)[99]
        older = await make("multi", 4, 2_000)
        for _ in range(200):  # a room to join whose id sorts after the first page
            newer = await make("multi", 4, 3_000)
            if newer.id > cutoff:
                break
            await lobby.remove(newer.id)
        assert newer.id > cutoff

        page = await page_at(b, server, errors)
        ids = await page.eval_on_selector_all(".rooms tr[data-room]",
                                              "rs => rs.map(r => r.dataset.room)")
        assert ids[:2] == [newer.id, older.id]
        assert done.id not in ids
        statuses = [lobby.rooms[i].table.phase.stored for i in ids]
        assert statuses[2:] == ["playing"] * (len(ids) - 2)
        assert [lobby.rooms[i].table.created for i in ids[2:]] == sorted(
            (lobby.rooms[i].table.created for i in ids[2:]), reverse=True)
        await page.check("#filter-finished")
        while await page.locator("#more-rooms").count():
            await page.click("#more-rooms")
            await page.wait_for_timeout(100)
        ids = await page.eval_on_selector_all(".rooms tr[data-room]",
                                              "rs => rs.map(r => r.dataset.room)")
        assert ids[-1] == done.id and len(ids) == 113


# -- #35 items 3 and 4: stale updates, gaps, a server that stops answering -----------------

async def test_stale_update_is_ignored_and_a_gap_fetches_the_view() -> None:
    async with site() as (server, b, errors):
        page, room = await seated(b, server, errors, "#room[data-mine='1'] #hand")
        await page.evaluate("""() => { const r = window.cardhall.room;
            const a = r.view.legal_actions.find(x => x[0] === 'discard'); return r.act(a); }""")
        await page.wait_for_function("() => window.cardhall.room.view.state_id === 1")
        conn = next(iter(room.table.members))
        hand = sorted(room.table.game.view(0)["hand"])

        async def shown() -> list[str]:
            return sorted(await page.eval_on_selector_all("#hand [data-card]",
                                                          "els => els.map(e => e.dataset.card)"))

        assert await shown() == hand
        conn.send(p.Update(room=room.id, state_id=0, delta={"hand": ["AS"], "state_id": 0},
                           events=[{"type": "draw", "seat": 0, "count": 1}]))
        conn.send(p.Update(room=room.id, state_id=1, delta={}, events=[]))  # a marker
        await page.wait_for_timeout(300)
        assert await shown() == hand
        assert await page.evaluate("() => window.cardhall.room.view.state_id") == 1
        # A delta three states ahead cannot be applied: the page asks for the full view.
        conn.send(p.Update(room=room.id, state_id=4, delta={"hand": ["AS"], "state_id": 4},
                           events=[]))
        await page.wait_for_timeout(500)
        assert await shown() == hand
        assert await page.evaluate("() => window.cardhall.room.view.state_id") == 1


async def test_a_stopped_server_shows_reconnecting_then_the_seat_is_resumed(
        tmp_path: Path) -> None:
    """A server process stopped (SIGSTOP) keeps its sockets open and answers nothing: the
    page's liveness check (``ping``) takes the connection for lost within seconds and says
    "Reconnecting…", with the seat list unknown and the buttons off (Leave aside); once
    the server runs again (SIGCONT) the page reconnects and resumes its seat."""
    _need_browser()
    from cardhall.bench.procs import Child, free_port, serve_command

    port = free_port()
    # This interpreter's `python -m cardhall.cli`: `cardhall` is on PATH only in an
    # activated venv.
    server = Child("cardhall", serve_command(port, "--host", "127.0.0.1", "--msg-rate", "0"),
                   port, tmp_path / "serve.log")
    errors: list[str] = []
    try:
        async with ws.chromium() as b:
            context = await b.new_context(viewport={"width": 1280, "height": 900})
            page = await context.new_page()
            page.on("pageerror", lambda exc: errors.append(str(exc)))
            page.set_default_timeout(20_000)
            await page.goto(f"http://127.0.0.1:{port}/")
            await page.wait_for_selector("#create-form")
            await page.click("#quick-join")
            await page.wait_for_selector("#room[data-seat='0'][data-mine='1'] button.resign")
            room_id = await room_attr(page, "room")
            os.kill(server.pid, signal.SIGSTOP)
            try:
                await page.wait_for_selector("#conn-status:has-text('Reconnecting')",
                                             timeout=15_000)
                await page.screenshot(path=shot("stopped-server"))
                assert await page.is_disabled("button.resign")
                assert await page.is_enabled("#leave")
                statuses = await page.eval_on_selector_all(
                    ".seat-item[data-seat='0']", "els => els.map(e => e.dataset.status)")
                assert statuses == ["unknown"]
            finally:
                os.kill(server.pid, signal.SIGCONT)
            await page.wait_for_function("() => document.body.dataset.conn === 'open'",
                                         timeout=30_000)
            await page.wait_for_selector(f"#room[data-room='{room_id}'][data-seat='0']")
            await page.wait_for_selector(".seat-item[data-seat='0'][data-status='connected']")
            assert await page.is_enabled("button.resign")
    finally:
        server.stop()
    assert not errors, errors


# -- a create and a join refused for now (issue #41 item 8) --------------------------------

async def test_a_create_and_join_refused_for_now_are_asked_again_and_said() -> None:
    """The store refuses the first create and the first join for a moment (a Sentinel
    failover): the page says the server is busy and tries again; the player sits down."""
    _need_browser()
    errors: list[str] = []
    store = Flaky(creates=1, seats=1)
    async with serving(lambda: store, msg_rate=None) as make, ws.chromium() as b:
        server = await make()
        page = await page_at(b, server, errors)
        await page.select_option("#create-game", "skipper")
        await page.select_option("#create-mode", "solo")
        await page.click("#create-submit")
        notice = page.locator("#notice", has_text="busy for a moment (server/unavailable)")
        await notice.wait_for(timeout=10_000)
        await page.wait_for_selector("#room[data-seat='0']", timeout=15_000)
        assert store.creates == 0 and store.seats == 0  # both were refused once
        assert not await page.locator("#create-form").count()
    assert not errors, errors
