"""Issue #44 item 10 (the phone, 390x844) and item 11 (the lobby's welcome), in Debian's
Chromium driven by Playwright (``executable_path``, never ``playwright install``), each at the
phone size and at a desktop size (1280x800): a short header, the other seats of a four-seat
table side by side and small, the room list near the top of the lobby, no Chat or Watching
panel in a solo game, a finger-sized auto-trash switch; a newcomer's welcome with a picture
and one Play per game."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

import pytest
from cardhall import games
from cardhall.server.app import Server
from cardhall.server.store.memory_store import MemoryStore

from .. import web_screens as ws
from ..conftest import serving
from .test_web import _need_browser, room_attr, shot

pytestmark = pytest.mark.timeout(240)

#: The sizes of this module's tests: (width, height) in CSS pixels by name.
SIZES = {"phone": (390, 844), "desktop": (1280, 800)}
#: The header's height at most, in CSS pixels (issue #44: "about 60-70 px").
MAX_HEADER_PX = 70
#: A touch target's side at least, in CSS pixels (a fingertip).
MIN_TOUCH_PX = 44


@contextlib.asynccontextmanager
async def site() -> AsyncIterator[tuple[Server, Any, list[str]]]:
    """A server (memory store, no message rate limit) and a Chromium; yields the server, the
    browser and the list the pages' errors go to (checked empty at the end)."""
    _need_browser()
    errors: list[str] = []
    async with serving(MemoryStore, msg_rate=None) as make, ws.chromium() as b:
        server = await make()
        yield server, b, errors
    assert not errors, errors


async def open_at(b: Any, server: Server, errors: list[str], size: str) -> Any:
    """A new player's page on the lobby at ``size`` (a :data:`SIZES` name)."""
    return await ws.open_page(b, server.port, size, errors, SIZES[size])


async def box(page: Any, selector: str) -> dict[str, float]:
    """The bounding box of the first element matching ``selector``, in page coordinates
    (x, y, width, height in CSS pixels; y from the top of the page, scrolled or not)."""
    found = await page.evaluate(
        """sel => { const el = document.querySelector(sel); if (!el) return null;
                    const r = el.getBoundingClientRect();
                    return {x: r.x + scrollX, y: r.y + scrollY, width: r.width,
                            height: r.height}; }""", selector)
    assert found is not None, f"{selector} is not on the page"
    return dict(found)


async def four_seat_table(page: Any) -> None:
    """Make a Skipper multi room of four seats, start it (bots take the free seats) and wait
    until the page's own hand shows."""
    await ws.create(page, "skipper", mode="multi", seats=4)
    await page.click("#start")
    await page.wait_for_selector("#room[data-status='playing'] #hand")


# -- item 10: the phone ---------------------------------------------------------------------

@pytest.mark.parametrize("size", list(SIZES))
async def test_header_is_short_in_the_lobby_and_at_the_table(size: str) -> None:
    """The header (name, screen, sounds, account) is at most 70 px tall on both screens."""
    async with site() as (server, b, errors):
        page = await open_at(b, server, errors, size)
        await page.wait_for_function("() => document.body.dataset.conn === 'open'")
        lobby = await box(page, "header")
        await four_seat_table(page)
        table = await box(page, "header")
        await page.screenshot(path=shot(f"header-{size}"))
        assert lobby["height"] <= MAX_HEADER_PX, lobby
        assert table["height"] <= MAX_HEADER_PX, table
        assert lobby["width"] <= SIZES[size][0] and table["width"] <= SIZES[size][0]


@pytest.mark.parametrize("size", list(SIZES))
async def test_other_seats_are_compact_at_a_four_seat_table(size: str) -> None:
    """The three other seats of a four-seat Skipper table take at most half the screen's
    height together (side by side, small cards), and nothing is wider than the screen."""
    async with site() as (server, b, errors):
        page = await open_at(b, server, errors, size)
        await four_seat_table(page)
        me = await room_attr(page, "seat")
        others = await page.evaluate(
            """me => [...document.querySelectorAll('.skipper .seat[data-seat]')]
                 .filter(s => s.dataset.seat !== me).map(s => {
                   const r = s.getBoundingClientRect();
                   return {top: r.top + scrollY, bottom: r.bottom + scrollY, right: r.right}; })
            """, me)
        await page.screenshot(path=shot(f"seats-{size}"), full_page=True)
        assert len(others) == 3, others
        span = max(o["bottom"] for o in others) - min(o["top"] for o in others)
        assert span <= SIZES[size][1] / 2, (span, others)
        assert max(o["right"] for o in others) <= SIZES[size][0], others
        width = await page.evaluate("() => document.documentElement.scrollWidth")
        assert width <= SIZES[size][0], width


@pytest.mark.parametrize("size", list(SIZES))
async def test_room_list_is_near_the_top_of_the_lobby(size: str) -> None:
    """The room list's panel starts within the first 60% of the screen's height (on a phone
    it used to sit under every form)."""
    async with site() as (server, b, errors):
        page = await open_at(b, server, errors, size)
        await page.wait_for_selector(".rooms-panel")
        where = await box(page, ".rooms-panel")
        await page.screenshot(path=shot(f"lobby-list-{size}"), full_page=True)
        assert where["y"] <= SIZES[size][1] * 0.6, where


@pytest.mark.parametrize("size", list(SIZES))
async def test_each_room_filter_label_stays_on_the_line_of_its_control(size: str) -> None:
    """The room list's filters wrap on a phone, but each label wraps with its control: a
    label's middle is within the height of its control (a phone used to leave "Status" and
    "Search" at a line's end and their controls on the next line)."""
    async with site() as (server, b, errors):
        page = await open_at(b, server, errors, size)
        await page.wait_for_selector("#filter-text")
        for control in ("filter-game", "filter-status", "filter-text"):
            label = await box(page, f"label[for='{control}']")
            field = await box(page, f"#{control}")
            middle = label["y"] + label["height"] / 2
            assert field["y"] <= middle <= field["y"] + field["height"], (control, label, field)
            assert label["x"] < field["x"], (control, label, field)


@pytest.mark.parametrize("size", list(SIZES))
async def test_solo_game_has_no_chat_or_watching_panel(size: str) -> None:
    """A solo game shows neither the Chat nor the Watching panel (nobody to talk to); a
    multiplayer table still shows both."""
    async with site() as (server, b, errors):
        page = await open_at(b, server, errors, size)
        await ws.create(page, "skipper", mode="solo", seed=3)
        await page.wait_for_selector("#room[data-status='playing'] #hand")
        assert await page.locator("#chat").count() == 0
        assert await page.locator("#spectators").count() == 0
        await ws.back_to_lobby(page)
        await ws.create(page, "skipper", mode="multi", seats=2)
        await page.wait_for_selector("#room #chat")
        assert await page.locator("#spectators").count() == 1


@pytest.mark.parametrize("size", list(SIZES))
async def test_auto_trash_switch_is_a_finger_sized_target(size: str) -> None:
    """The auto-trash checkbox's touch target (the checkbox with its label) is at least
    44x44 px, the box itself at least 24 px, and a tap near the target's corner toggles it."""
    async with site() as (server, b, errors):
        page = await open_at(b, server, errors, size)
        await ws.create(page, "skipper", mode="solo", seed=3)
        await page.wait_for_selector("#auto-trash")
        target = await box(page, "label[for='auto-trash']")
        check = await box(page, "#auto-trash")
        assert target["width"] >= MIN_TOUCH_PX and target["height"] >= MIN_TOUCH_PX, target
        assert check["width"] >= 24 and check["height"] >= 24, check
        before = await page.is_checked("#auto-trash")
        await page.locator("label[for='auto-trash']").click(position={"x": 2, "y": 2})
        await page.wait_for_function(
            "want => document.querySelector('#auto-trash').checked === want", arg=not before)
        # The server took it: the log says so.
        await page.wait_for_function(
            "() => /auto-trash/.test(document.querySelector('#log').textContent)")


# -- item 11: the lobby's welcome -----------------------------------------------------------

@pytest.mark.parametrize("size", list(SIZES))
async def test_a_newcomer_sees_what_cardhall_is_and_each_game_with_a_picture_and_play(
        size: str) -> None:
    """The lobby opens with a welcome saying what Cardhall is, above the room list; each
    game the server hosts has a card with a picture (an SVG drawn by the page, no image
    fetched), its name, and one Play; Play on a solo game sits the player at its table,
    playing, at once (Skipper: its solo mode)."""
    async with site() as (server, b, errors):
        page = await open_at(b, server, errors, size)
        await page.wait_for_selector("#welcome")
        assert "Cardhall" in await page.inner_text("#welcome h2")
        assert "card games" in (await page.inner_text("#welcome")).lower()
        catalog = {g["game"]: g["title"] for g in games.catalog()}
        shown = await page.eval_on_selector_all(
            "#welcome .game-card", """cards => cards.map(c => ({
                game: c.dataset.game, title: c.querySelector('h3').textContent,
                svg: c.querySelectorAll('svg.game-picture *').length,
                w: c.querySelector('svg.game-picture').getBoundingClientRect().width,
                plays: [...c.querySelectorAll('button')].filter(
                    b => b.textContent.trim() === 'Play').length}))""")
        assert {s["game"]: s["title"] for s in shown} == catalog, shown
        for card in shown:
            assert card["svg"] >= 3 and card["w"] >= 60, card  # a picture, drawn
            assert card["plays"] == 1, card
        assert await page.locator("#welcome img").count() == 0
        welcome, rooms = await box(page, "#welcome"), await box(page, ".rooms-panel")
        assert welcome["y"] < rooms["y"], (welcome, rooms)
        await page.screenshot(path=shot(f"welcome-{size}"), full_page=True)
        # Play sits the player in a new game of their own, under way.
        await page.locator("#play-shop").scroll_into_view_if_needed()
        await page.click("#play-shop")
        await page.wait_for_selector("#room[data-status='playing'][data-seat='0']")
        made = server.lobby.rooms[await room_attr(page, "room")]
        assert made.table.game_name == "shop"
        await ws.back_to_lobby(page)
        await page.click("#play-skipper")
        await page.wait_for_selector("#room[data-status='playing'][data-seat='0'] #hand")
        made = server.lobby.rooms[await room_attr(page, "room")]
        assert made.table.game_name == "skipper" and made.table.options["mode"] == "solo"
