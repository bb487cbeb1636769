"""The replay viewer on the games archive (issue #44 item 2), in Debian's Chromium driven by
Playwright (the harness of tests/e2e/test_web.py): a game whose room the lobby removed
(``finished_ttl``) still replays from "My games", with its deal verified; a game the server
no longer keeps says so plainly (no "Loading..." for ever, no slider, no "Deal verified").

On the old code the first replay after the removal shows "The server no longer keeps this
room", "Loading..." and a deal check all the same.
"""

from __future__ import annotations

from typing import Any

import pytest

from cardhall.server.store.memory_store import MemoryStore

from ..conftest import serving
from .test_web import browser, shot
from .test_web_people import DESKTOP, PHONE, create_room, page_at, play_to_the_end


@pytest.mark.slow
@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
async def test_my_games_replays_an_archived_game_and_says_when_one_is_gone(
        viewport: dict[str, int]) -> None:
    errors: list[str] = []
    async with serving(MemoryStore, msg_rate=None, finished_ttl=0.05) as make, \
            browser() as b:
        server = await make()
        page: Any = await page_at(b, server.port, errors, viewport)
        room_id = await create_room(page, mode="solo", seats=None,
                                    options={"opt-turn_limit": "3"})
        await page.wait_for_selector("#room[data-status='playing']")
        await play_to_the_end(page, server, room_id)
        await page.wait_for_selector("#game-over #replay-open")
        await page.click("#game-over button.secondary:has-text('lobby')")
        await page.wait_for_function("r => !window.cardhall.room", arg=room_id)
        for _ in range(200):  # the lobby removed the room and its log
            if room_id not in server.lobby.rooms and await server.store.load(room_id) is None:
                break
            await page.wait_for_timeout(25)
        assert room_id not in server.lobby.rooms
        final = (await server.store.archived(room_id) or {})["state_id"]

        item = f"#my-games li[data-room='{room_id}']"
        await page.click(f"{item} button.replay-open")
        await page.wait_for_selector(f"#replay[data-state-id='{final}']")
        await page.wait_for_selector("#deal-result[data-ok='true']")
        assert "Deal verified" in await page.inner_text("#deal-result")
        await page.click("#replay-close")

        assert await server.store.purge_archived([room_id]) == 1
        await page.click(f"{item} button.replay-open")
        await page.wait_for_selector("#replay[data-gone='1']")
        text = await page.inner_text("#replay")
        assert "no longer kept on the server" in await page.inner_text("#replay-error")
        for absent in ("Loading", "Deal verified", "state 0 of"):
            assert absent not in text, text
        assert await page.query_selector("#replay-step") is None
        assert await page.query_selector("#deal-result") is None
        await page.screenshot(path=shot(f"replay-not-kept-{viewport['width']}"), full_page=True)
        await page.click("#replay-close")
        await page.wait_for_selector(item)
        assert not errors, errors


@pytest.mark.slow
async def test_another_browser_of_the_account_replays_a_game_it_never_saw() -> None:
    """The account's My games (the server's list) has a Replay for a finished game this
    browser never kept: the viewer asks the archive for the final state and the deal (before,
    only games kept in the browser had a Replay button)."""
    from ..conftest import TEST_SETTINGS
    from .test_web_auth import register, sign_in

    errors: list[str] = []
    async with serving(MemoryStore, **{**TEST_SETTINGS, "finished_ttl": 0.05}) as make, \
            browser() as b:
        server = await make()
        ann: Any = await page_at(b, server.port, errors)
        await register(ann, "Annabel")
        room_id = await create_room(ann, mode="solo", seats=None,
                                    options={"opt-turn_limit": "3"})
        await ann.wait_for_selector("#room[data-status='playing']")
        await play_to_the_end(ann, server, room_id)
        for _ in range(200):
            if room_id not in server.lobby.rooms:
                break
            await ann.wait_for_timeout(25)
        final = (await server.store.archived(room_id) or {})["state_id"]
        desk: Any = await page_at(b, server.port, errors)
        await sign_in(desk, "annabel")
        await desk.wait_for_function(
            "() => document.querySelector('#account-name').textContent === 'Annabel'")
        await desk.click("#account-games")
        await desk.click(f"#my-finished li[data-room='{room_id}'] button.replay-open")
        await desk.wait_for_selector(f"#replay[data-state-id='{final}']")
        await desk.wait_for_selector("#deal-result[data-ok='true']")
        assert "the server reports" in await desk.inner_text("#deal-result")
        assert not errors, errors
