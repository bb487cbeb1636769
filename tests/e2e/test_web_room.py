"""The table screen on Preact (issue #44, "The web client"), in Debian's Chromium driven by
Playwright: an update of the room redraws the table in place, so the elements a player is
using stay the same (a selected card keeps its element, its selection and its focus; the
chat's input keeps its element, its draft and its focus), and a card played still glides
from the hand to its stack (motion.js)."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

from cardhall.games import create
from cardhall.server.app import Server
from cardhall.server.store.memory_store import MemoryStore

from ..conftest import serving
from .test_web import browser, room_attr
from .test_web_people import DESKTOP, PHONE, create_room, page_at

pytestmark = pytest.mark.slow

#: JavaScript: mark the element ``selector`` names (``el.__kept``) to find it again later.
MARK = "sel => { document.querySelector(sel).__kept = true; }"
#: JavaScript: whether ``selector`` names the element MARK marked, and whether it has focus.
SAME = """sel => { const e = document.querySelector(sel);
    return { same: Boolean(e && e.__kept), focused: e === document.activeElement }; }"""
#: JavaScript: the room's view asked for again (an `update` with the whole view follows).
REFETCH = "async () => { await window.cardhall.room.refetch(); }"
#: JavaScript: count the cards that start moving from now on (``window.__moving``).
WATCH_MOTION = """() => { window.__moving = 0;
    new MutationObserver((records) => { for (const r of records)
        if (r.target.classList && r.target.classList.contains('moving')) window.__moving++; })
      .observe(document.body, { subtree: true, attributes: true, attributeFilter: ['class'] });
  }"""


def seed_with_a_play() -> tuple[int, str, str]:
    """A seed whose solo Skipper deal lets seat 0 play a card of its hand on a stack at once:
    (seed, card, stack suit)."""
    for seed in range(1, 200):
        g = create("skipper", {"seed": seed, "mode": "solo"}, 1)
        hand = g.view(0)["hand"]
        for action in g.legal_actions(0):
            if action[0] == "play" and action[1] in hand:
                return seed, str(action[1]), str(action[2])
    raise AssertionError("no seed of 1..199 deals a playable card")


async def solo_skipper(page: Any, seed: int) -> None:
    """Start a solo Skipper game of seed ``seed`` from the New-room form."""
    await page.select_option("#create-game", "skipper")
    await page.select_option("#create-mode", "solo")
    await page.click("details:has(#opt-seed) summary")
    await page.fill("#opt-seed", str(seed))
    await page.click("#create-submit")
    await page.wait_for_selector("#room[data-status='playing'][data-mine='1']")


@contextlib.asynccontextmanager
async def solo_table(seed: int, viewport: dict[str, int] = DESKTOP,
                     store: Callable[[], Any] = MemoryStore
                     ) -> AsyncIterator[tuple[Server, Any]]:
    """A server on a new store from ``store()`` (no message rate limit), a page in Chromium
    at ``viewport``, and a solo Skipper game of seed ``seed`` started there; yields (the
    server, the page). The page's errors are checked to be none on the way out."""
    errors: list[str] = []
    async with serving(store, msg_rate=None) as make, browser() as b:
        server = await make()
        page = await page_at(b, server.port, errors, viewport)
        await solo_skipper(page, seed)
        yield server, page
    assert not errors, errors


@contextlib.asynccontextmanager
async def waiting_table() -> AsyncIterator[tuple[Server, Any, str]]:
    """A server on a memory store (no message rate limit), a page in Chromium, and a
    two-seat Skipper multi room the page created and sits in (waiting, its chat shown);
    yields (the server, the page, the room's id). The page's errors are checked to be
    none on the way out."""
    errors: list[str] = []
    async with serving(MemoryStore, msg_rate=None) as make, browser() as b:
        server = await make()
        page = await page_at(b, server.port, errors)
        room_id = await create_room(page, seats=2)
        await page.wait_for_selector("#chat-input")
        yield server, page, room_id
    assert not errors, errors


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
async def test_a_selected_card_keeps_its_element_and_focus_across_updates(
        viewport: dict[str, int]) -> None:
    """Select a hand card with the keyboard, then the room's view comes again: the card is
    the same element, still selected and focused (before, every update drew a new table and
    focus was put back by hand), and the turn line is the same element too."""
    seed, card, _ = seed_with_a_play()
    async with solo_table(seed, viewport) as (_, page):
        chosen = f"#hand button[data-card='{card}']"
        await page.focus(chosen)
        await page.keyboard.press("Enter")
        await page.wait_for_selector(f"{chosen}[aria-pressed='true']")
        await page.evaluate(MARK, chosen)
        await page.evaluate(MARK, "#turn")
        old = await room_attr(page, "stateId")
        await page.evaluate("() => { window.__renders = 0; const app = window.cardhall;"
                            " const draw = app.render.bind(app);"
                            " app.render = () => { window.__renders++; draw(); }; }")
        await page.evaluate(REFETCH)
        await page.wait_for_function("() => window.__renders > 0")
        assert await room_attr(page, "stateId") == old
        assert await page.evaluate(SAME, chosen) == {"same": True, "focused": True}
        assert await page.get_attribute(chosen, "aria-pressed") == "true"
        assert (await page.evaluate(SAME, "#turn"))["same"]


async def test_a_played_card_glides_to_its_stack() -> None:
    """Play a hand card on its stack by clicking: the card starts where it was and glides
    (motion.js's .moving), the table redrawn in place by Preact."""
    seed, card, suit = seed_with_a_play()
    async with solo_table(seed) as (_, page):
        await page.click(f"#hand button[data-card='{card}']")
        await page.evaluate(WATCH_MOTION)
        old = await room_attr(page, "stateId")
        await page.click(f".seat.mine [data-stack='{suit}'].highlight")
        await page.wait_for_function(
            "old => document.querySelector('#room').dataset.stateId !== old", arg=old)
        await page.wait_for_selector(f".seat.mine [data-stack='{suit}'][data-card='{card}']")
        assert await page.evaluate("() => window.__moving") >= 1
        assert await page.locator(f"#hand [data-card='{card}']").count() == 0


async def test_the_chat_input_keeps_its_draft_and_focus_as_lines_and_updates_come() -> None:
    """A line half typed in the chat stays, with the focus, in the same input while a chat
    line arrives and the room's view comes again (Preact's diff, no moving of the panel)."""
    async with waiting_table() as (_, page, room_id):
        await page.click("#chat-input")
        await page.keyboard.type("half a li")
        await page.evaluate(MARK, "#chat-input")
        await page.evaluate("room => window.cardhall.session.request("
                            "{ t: 'chat', room, text: 'from elsewhere' })", room_id)
        await page.wait_for_selector("#chat-players li[data-n]:has-text('from elsewhere')")
        await page.evaluate(REFETCH)
        await page.keyboard.type("ne")
        assert await page.input_value("#chat-input") == "half a line"
        assert await page.evaluate(SAME, "#chat-input") == {"same": True, "focused": True}
        assert "11/300" in (await page.inner_text("#chat-count")).replace(" ", "")
