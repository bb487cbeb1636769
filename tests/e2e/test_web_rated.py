"""The web client's "Play rated" (issue #45, server/static/js/rated.js) in Debian's Chromium
(Playwright): one player at a desktop viewport (1280x800) and one on a phone (390x844) press
"Play rated" for a 2-player Skipper multi table; the queue seats them together, the table
shows both players' ratings (the banner, and each seat's on the seat list, provisional marked
"?"; a spectator sees them too: the room's facts say ``rated``), and after the game each sees
its rating move (before -> after) in its rated games and in My games. On the old code there
is no "Play rated" panel (and, before the second round of #45, no rating on the seat list nor
in My games)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from cardhall.server.store.memory_store import MemoryStore
from cardhall.server.ratings import RatedGame, RatedSeat

from ..conftest import serving
from .test_web import browser, shot
from .test_web_people import page_at

DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}


async def queue_up(page: Any) -> None:
    """Choose a 2-player table and press "Play rated"."""
    await page.wait_for_selector("#rated-play")
    await page.select_option("#rated-seats", "2")
    await page.click("#rated-play")
    await page.wait_for_selector("#rated-status, #room")


async def overflow(page: Any) -> int:
    """How many pixels the page is wider than its viewport (0: it fits)."""
    return int(await page.evaluate(
        "() => document.documentElement.scrollWidth - window.innerWidth"))


@pytest.mark.timeout(180)
async def test_play_rated_at_desktop_and_phone_sizes() -> None:
    errors: list[str] = []
    async with serving(MemoryStore, msg_rate=None, queue_wave_seconds=0.2) as make, \
            browser() as b:
        server = await make()
        for k in range(15):  # two established ratings for the board
            await server.ratings.rate(RatedGame(f"old{k}", "skipper:multi", (
                RatedSeat("a", "Ada"), RatedSeat("b", "Bob")), (1, 2)))
        desk = await page_at(b, server.port, errors, DESKTOP, wait="#rated-play")
        phone = await page_at(b, server.port, errors, PHONE, wait="#rated-play",
                              is_mobile=True, has_touch=True)
        assert await overflow(phone) <= 0
        await desk.wait_for_selector('#rated-board tr[data-name="Ada"]')
        rows = await desk.locator("#rated-board tr").all_inner_texts()
        assert [r.split("\t")[:2] for r in rows] == [["1", "Ada"], ["2", "Bob"]], rows
        await phone.screenshot(path=shot("rated-lobby-phone"))
        await queue_up(desk)
        await desk.screenshot(path=shot("rated-waiting-desktop"))
        await queue_up(phone)
        for page in (desk, phone):
            await page.wait_for_selector("#rated-banner")
            await page.wait_for_selector("#room")
        banner = await desk.inner_text("#rated-banner")
        assert banner.startswith("Rated game") and banner.count("1500?") == 2, banner
        for page in (desk, phone):  # each seat's rating on the seat list, provisional
            await page.wait_for_selector(".seats .seat-item:nth-child(2) .seat-rating")
            seats = await page.locator(".seats .seat-rating").all_inner_texts()
            assert seats == ["1500?", "1500?"], seats
            assert await page.locator(".seats .seat-rating.provisional").count() == 2
        assert await overflow(phone) <= 0
        await desk.screenshot(path=shot("rated-table-desktop"))
        await phone.screenshot(path=shot("rated-table-phone"))
        room = await desk.evaluate("() => window.cardhall.room.roomId")
        assert server.lobby.rooms[room].table.settings["rated"]
        # A spectator (not queued) sees the seats' ratings too: the room says it is rated.
        watcher = await page_at(b, server.port, errors, DESKTOP, wait="#rated-play")
        await watcher.evaluate("r => window.cardhall.spectate(r)", room)
        await watcher.wait_for_selector(".seats .seat-item:nth-child(2) .seat-rating")
        assert await watcher.locator(".seats .seat-rating").all_inner_texts() == [
            "1500?", "1500?"]
        await watcher.close()
        await desk.wait_for_function(
            "() => window.cardhall.room.view.room.status === 'playing'")
        await desk.evaluate(
            "r => window.cardhall.session.request({t: 'act', room: r, action: ['resign'],"
            " state_id: window.cardhall.room.view.state_id})",
            room)
        # After the game the table shows the moved ratings: the winner above 1500.
        await phone.wait_for_function(
            "() => { const b = document.querySelector('#rated-banner');"
            " return b && b.textContent.split('1500?').length < 3; }")
        for page in (desk, phone):  # and on the seat list
            await page.wait_for_function(
                "() => [...document.querySelectorAll('.seats .seat-rating')]"
                ".filter(e => e.dataset.rating !== '1500').length === 2")
        await phone.screenshot(path=shot("rated-seats-after-phone"))
        for page, up in ((phone, True), (desk, False)):
            await page.evaluate("() => window.cardhall.toLobby('')")
            await page.wait_for_selector("#rated-games li")
            line = await page.inner_text("#rated-games li")
            assert line.startswith(f"{room}: 1500? \u2192 "), line
            after = int(line.split("\u2192")[1].strip().rstrip("?"))
            assert (after > 1500) if up else (after < 1500), line
        assert await overflow(phone) <= 0
        await phone.screenshot(path=shot("rated-games-phone"))
        await desk.screenshot(path=shot("rated-games-desktop"))
        for page, up in ((phone, True), (desk, False)):  # My games: before -> after
            await page.click("#account-games")
            change = f'#my-finished li[data-room="{room}"] .rating-change'
            await page.wait_for_selector(change)
            text = await page.inner_text(change)
            assert "rating 1500? \u2192 " in text, text
            after = int(await page.get_attribute(change, "data-after") or 0)
            assert (after > 1500) if up else (after < 1500), text
            assert await overflow(page) <= 0
        await phone.screenshot(path=shot("rated-my-games-phone"))
        await desk.screenshot(path=shot("rated-my-games-desktop"))
        await asyncio.sleep(0)
    assert not errors, errors
