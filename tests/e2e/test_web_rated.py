"""The web client's "Play rated" (issue #45, server/static/js/rated.js) in Debian's Chromium
(Playwright): one player at a desktop viewport (1280x800) and one on a phone (390x844) press
"Play rated" for a 2-player Skipper multi table; the queue seats them together, the table
shows both players' ratings (the banner, and each seat's on the seat list, provisional marked
"?"; a spectator sees them too: the room's facts say ``rated``), and after the game each sees
its rating move (before -> after) in its rated games and in My games. On the old code there
is no "Play rated" panel (and, before the second round of #45, no rating on the seat list nor
in My games). Players off the list the client reads (ranked beyond its limit, or guests
under ``rated_boards = "registered"``) show their real ratings at the table: it reads them by
key (``GET /ratings?key=K``); before that, "1500?"."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from playwright.async_api import Error as PlaywrightError

from cardhall.server import rated
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


async def account_of(page: Any) -> str:
    """The account id (rating key) the page signed in as (a guest)."""
    await page.wait_for_function(
        "() => window.cardhall.account.info && window.cardhall.account.info.account")
    return str(await page.evaluate("() => window.cardhall.account.info.account"))


async def seat_texts(server: Any, page: Any) -> list[str]:
    """What the seat list should show, seat by seat: each seated player's rating in the
    store ("1523", "1480?"), read by the rating keys of the room's facts."""
    keys = await page.evaluate(
        "() => window.cardhall.room.view.room.players.map(p => p && p.key)")
    got = await server.ratings.ratings("skipper:multi", [k for k in keys if k])
    return [f"{got[k].shown}{'?' if got[k].provisional else ''}" if k in got else "1500?"
            for k in keys]


@pytest.mark.timeout(180)
@pytest.mark.parametrize("beyond", ["limit", "registered"])
async def test_a_seated_player_beyond_the_list_shows_its_rating(
        beyond: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two players already rated sit at a rated table (desktop and phone sizes), both off
    the rating list the client reads: ranked beyond its limit (the limit patched to 1, Ada
    on top), or guests under ``rated_boards = "registered"``. The banner and the seat list
    show their real ratings (read by key), not a new player's "1500?", before the game and
    after it. On the old code both show "1500?" (the list has neither)."""
    errors: list[str] = []
    async with serving(MemoryStore, msg_rate=None, queue_wave_seconds=0.2) as make, \
            browser() as b:
        server = await make()
        if beyond == "limit":
            monkeypatch.setattr(rated, "LIST_LIMIT", 1)
            for k in range(15):
                await server.ratings.rate(RatedGame(f"old{k}", "skipper:multi", (
                    RatedSeat("a", "Ada"), RatedSeat("b", "Bob")), (1, 2)))
        else:
            server.rater.boards = "registered"
        desk = await page_at(b, server.port, errors, DESKTOP, wait="#rated-play")
        phone = await page_at(b, server.port, errors, PHONE, wait="#rated-play",
                              is_mobile=True, has_touch=True)
        keys = [await account_of(desk), await account_of(phone)]
        await server.ratings.rate(RatedGame("before", "skipper:multi", (
            RatedSeat(keys[0], "Desk", guest=True), RatedSeat(keys[1], "Phone", guest=True)),
            (1, 2)))
        listed = await server.rater.listing("skipper", "multi", 1000)
        assert not {e["key"] for e in listed["entries"]} & set(keys), listed
        await queue_up(desk)
        await queue_up(phone)
        for page in (desk, phone):
            await page.wait_for_selector("#rated-banner")
            await page.wait_for_selector(".seats .seat-item:nth-child(2) .seat-rating")
        want = await seat_texts(server, desk)
        assert "1500?" not in want and len(set(want)) == 2, want
        for page in (desk, phone):
            assert await page.locator(".seats .seat-rating").all_inner_texts() == want
            banner = await page.inner_text("#rated-banner")
            assert all(w in banner for w in want) and "1500?" not in banner, banner
        assert await overflow(phone) <= 0
        room = await desk.evaluate("() => window.cardhall.room.roomId")
        await desk.wait_for_function(
            "() => window.cardhall.room.view.room.status === 'playing'")
        for page in (desk, phone):  # the player to act resigns (Skipper: in turn)
            try:
                await page.evaluate(
                    "r => window.cardhall.session.request({t: 'act', room: r, action: "
                    "['resign'], state_id: window.cardhall.room.view.state_id})", room)
                break
            except PlaywrightError as exc:
                assert "turn" in str(exc), exc
        for _ in range(500):  # rated in the background
            now = await server.ratings.ratings("skipper:multi", keys)
            if all(r.games == 2 for r in now.values()):
                break
            await asyncio.sleep(0.02)
        after = await seat_texts(server, desk)
        assert after != want and "1500?" not in after, after
        for page in (desk, phone):  # the table reads its seats' ratings again
            await page.wait_for_function(
                "w => JSON.stringify([...document.querySelectorAll('.seats .seat-rating')]"
                ".map(e => e.textContent)) === JSON.stringify(w)", arg=after)
    assert not errors, errors
