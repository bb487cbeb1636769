"""The web client's "Leaderboards" panel (issue #21) in Debian's Chromium (Playwright), with
the helpers of test_web.py: a solo game finished through the client library puts its
player's name on the board the page shows."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest

from cardhall.server.app import Server
from cardhall.server.store.memory_store import MemoryStore

from ..conftest import serving
from ..server.test_leaderboard import play_solo
from .test_web import browser, new_page, shot


@asynccontextmanager
async def lobby_page() -> AsyncIterator[tuple[Server, Any]]:
    """A server (memory store) and a Chromium page on its lobby; the page's console
    errors fail the test at the end."""
    errors: list[str] = []
    async with serving(MemoryStore, msg_rate=None) as make, browser() as b:
        server = await make()
        yield server, await new_page(b, server.port, errors)
    assert not errors, errors


@pytest.mark.timeout(180)
async def test_lobby_leaderboard_panel_shows_a_finished_solo_game() -> None:
    async with lobby_page() as (server, page):
        await page.wait_for_selector("#leaderboards #board-table")
        assert await page.select_option("#board-game", "skipper") == ["skipper"]
        await page.wait_for_selector("#board-table td.none")  # nobody yet
        _, outcome = await play_solo(server, "webwinner", "skipper")
        assert outcome["reason"] == "won"
        await page.click("#board-refresh")
        row = page.locator('#board-table tr[data-name="webwinner"]')
        await row.wait_for()
        cells = await row.locator("td").all_inner_texts()
        assert cells == ["1", "webwinner", str(outcome["scores"][0])]
        caption = await page.inner_text("#board-caption")
        assert "fewest turns first" in caption and "1 player" in caption
        await page.screenshot(path=shot("leaderboard"))
        await page.select_option("#board-game", "shah")
        await page.wait_for_selector("text=This game keeps no leaderboard.")
        await page.select_option("#board-game", "thirtysix")
        await page.wait_for_selector("#board-table td.none")
        assert "most points first" in await page.inner_text("#board-caption")


@pytest.mark.timeout(180)
async def test_the_players_name_is_kept_and_sent_as_the_hello_name() -> None:
    # Every web player was "cardhall-web/0.1" on the boards and at the tables: the lobby's
    # "Your name" is kept in the browser and the page reconnects with it as its hello name.
    async with lobby_page() as (server, page):
        await page.wait_for_selector("#player-name")
        await page.fill("#player-name", "  Ada   Lovelace ")
        await page.click("#set-name")

        def names() -> set[str]:
            return {c.name for c in server.connections}

        for _ in range(100):  # reconnects after its 0.5 s back-off
            if "Ada Lovelace" in names():
                break
            await asyncio.sleep(0.1)
        assert names() == {"Ada Lovelace"}
        await page.reload()
        await page.wait_for_selector("#player-name")
        assert await page.input_value("#player-name") == "Ada Lovelace"
        for _ in range(50):
            if names() == {"Ada Lovelace"}:
                break
            await asyncio.sleep(0.1)
        assert names() == {"Ada Lovelace"}  # kept across a reload
