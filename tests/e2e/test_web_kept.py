"""Leaving a game in the browser (issue #44 item 1), in Debian's Chromium driven by
Playwright (skips without ``/usr/bin/chromium`` or playwright): a solo game left is kept,
paused, and another browser signed in to the same account resumes it at the same state; in
a game of several seats under way, Leave first asks, saying a bot takes the seat."""

from __future__ import annotations

from cardhall.server.store.memory_store import MemoryStore

from ..conftest import TEST_SETTINGS, serving
from ..web_screens import chromium, create, open_page
from .test_web_auth import _need_browser, account_name, register, sign_in


async def test_a_solo_game_left_is_resumed_in_another_browser_at_the_same_state() -> None:
    _need_browser()
    errors: list[str] = []
    async with serving(MemoryStore, **TEST_SETTINGS) as make, chromium() as b:
        server = await make()
        phone = await open_page(b, server.port, "phone", errors)
        await register(phone, "Solene")
        await create(phone, "skipper", mode="solo")
        await phone.wait_for_selector("#room[data-status='playing'][data-seat='0']")
        room = await phone.evaluate("() => window.cardhall.room.roomId")
        state = await phone.get_attribute("#room", "data-state-id")
        await phone.click("#leave")  # no question: the game is kept, not given away
        await phone.wait_for_selector("#create-form")
        assert "kept for you" in await phone.inner_text("#notice")
        desk = await open_page(b, server.port, "desktop", errors)
        await sign_in(desk, "solene")
        await desk.wait_for_function(
            "() => document.querySelector('#account-name').textContent === 'Solene'")
        assert await account_name(desk) == "Solene"
        await desk.click("#account-games")
        await desk.click(f"#my-running li[data-room='{room}'] button.resume")
        await desk.wait_for_selector(f"#room[data-room='{room}'][data-status='playing']")
        assert await desk.get_attribute("#room", "data-state-id") == state
        assert await desk.get_attribute("#room", "data-seat") == "0"
    assert not errors, errors


async def test_leaving_a_game_of_several_seats_asks_first() -> None:
    _need_browser()
    errors: list[str] = []
    async with serving(MemoryStore, **TEST_SETTINGS) as make, chromium() as b:
        server = await make()
        ann = await open_page(b, server.port, "desktop", errors)
        bob = await open_page(b, server.port, "phone", errors)
        await create(ann, "skipper", mode="multi", seats=2)
        room = await ann.evaluate("() => window.cardhall.room.roomId")
        await bob.evaluate("id => window.cardhall.join({room: id})", room)
        await bob.wait_for_selector("#room[data-status='playing']")
        await bob.click("#leave")
        await bob.wait_for_selector("#leave-confirm")
        assert "bot takes your seat" in await bob.inner_text("#leave-confirm")
        await bob.click("#leave-no")  # stays
        assert not await bob.locator("#leave-confirm").count()
        assert await bob.get_attribute("#room", "data-status") == "playing"
        await bob.click("#leave")
        await bob.click("#leave-yes")
        await bob.wait_for_selector("#create-form")
        await ann.wait_for_selector(".seat-item[data-seat='1'][data-status='bot']")
    assert not errors, errors
