"""Issue #44, the web client on Preact: the lobby is drawn in place, so what a player is
typing survives an update that arrives meanwhile (the room list refreshed, a leaderboard
come): the field keeps its focus, its caret and its text, with no hand restoring. In
Debian's Chromium driven by Playwright (``executable_path``), at a phone's size and a
desktop's."""

from __future__ import annotations

import pytest
from cardhall.client.client import Client

from .test_web_phone import SIZES, open_at, site

pytestmark = pytest.mark.timeout(240)

#: JavaScript: the focused element's id and value, and whether it is the same element
#: as the one marked before (``el.dataset.mark``).
FOCUS = """() => { const el = document.activeElement;
  return {id: el.id, value: el.value, same: el.dataset.mark === '1'}; }"""


@pytest.mark.parametrize("size", list(SIZES))
@pytest.mark.parametrize("field", ["create-name", "player-name", "filter-text", "join-code"])
async def test_typing_in_the_lobby_survives_updates(size: str, field: str) -> None:
    """Half a word typed into a lobby field, then the lobby is drawn again twice (its room
    list asked afresh, and a room made by someone else listed): the same element still has
    the focus and the half word, and the rest typed after it lands in it."""
    async with site() as (server, b, errors):
        page = await open_at(b, server, errors, size)
        await page.wait_for_function("() => document.body.dataset.conn === 'open'")
        await page.click(f"#{field}")
        await page.fill(f"#{field}", "")
        await page.keyboard.type("Ann")
        await page.eval_on_selector(f"#{field}", "el => { el.dataset.mark = '1'; }")
        await page.evaluate("() => window.cardhall.lobby.refresh()")
        other = Client(f"ws://127.0.0.1:{server.port}/", name="Bob", reconnect=False)
        await other.connect()
        try:
            await other.create_room("skipper", mode="multi", seats=3, name="Bob's")
            await page.evaluate("() => window.cardhall.lobby.refresh()")
            await page.wait_for_selector(".rooms td:has-text(\"Bob's\")")
        finally:
            await other.close()
        assert await page.evaluate(FOCUS) == {"id": field, "value": "Ann", "same": True}
        await page.keyboard.type("abel")
        assert await page.input_value(f"#{field}") == "Annabel"


async def test_other_modules_hook_controls_into_the_lobby() -> None:
    """A module adds a control to Play now (lobby_views.js addLobbyAction) and one to each
    game of the welcome (welcome.js addGameAction), as DOM nodes made its own way: both show
    in the lobby, work, and stay through the lobby's updates."""
    async with site() as (server, b, errors):
        page = await open_at(b, server, errors, "desktop")
        await page.wait_for_function("() => document.body.dataset.conn === 'open'")
        await page.evaluate("""async () => {
            const views = await import('/js/lobby_views.js');
            const welcome = await import('/js/welcome.js');
            window.clicked = [];
            views.addLobbyAction(() => { const b = document.createElement('button');
                b.id = 'x-extra'; b.textContent = 'Extra';
                b.onclick = () => window.clicked.push('extra'); return b; });
            welcome.addGameAction((g) => { const b = document.createElement('button');
                b.className = 'x-rated'; b.textContent = 'Rated';
                b.onclick = () => window.clicked.push(g.game); return b; });
            window.cardhall.render(); }""")
        await page.click("#lobby #x-extra")
        await page.click("#welcome .game-card[data-game='shop'] .x-rated")
        await page.evaluate("() => window.cardhall.lobby.refresh()")
        assert await page.locator("#welcome .x-rated").count() == len(
            await page.eval_on_selector_all("#welcome .game-card", "cs => cs"))
        await page.click("#lobby #x-extra")
        assert await page.evaluate("() => window.clicked") == ["extra", "shop", "extra"]
