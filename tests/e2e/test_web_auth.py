"""Accounts in the browser (issue #29, item 7), in Debian's Chromium driven by Playwright
(``executable_path``; skips without ``/usr/bin/chromium`` or playwright): a page signs in as
its browser's guest, registers from the account menu, and another page sees the name at the
table; a reload stays signed in; My games takes the seat back from another browser."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from cardhall.server.store.memory_store import MemoryStore

from ..conftest import TEST_SETTINGS, serving
from ..web_screens import CHROMIUM, chromium, create, open_page

PASSWORD = "correct horse battery"


def _need_browser() -> None:
    if not CHROMIUM.exists():
        pytest.skip("/usr/bin/chromium is not installed (apt-get install chromium)")
    pytest.importorskip("playwright.async_api")


async def account_name(page: Any) -> str:
    return str(await page.inner_text("#account-name"))


async def register(page: Any, username: str) -> None:
    """Register ``username`` from the account menu (upgrading the page's guest)."""
    await page.click("#account-register")
    await page.fill("#account-username", username)
    await page.fill("#account-password", PASSWORD)
    await page.click("#register-submit")
    await page.wait_for_function(
        "n => document.querySelector('#account-name').textContent === n", arg=username)


async def test_register_in_one_page_see_the_name_in_another_reload_stays_signed_in(
        tmp_path: Path) -> None:
    _need_browser()
    errors: list[str] = []
    async with serving(MemoryStore, **TEST_SETTINGS) as make, chromium() as b:
        server = await make()
        ann = await open_page(b, server.port, "desktop", errors)
        bob = await open_page(b, server.port, "desktop", errors)
        assert (await account_name(ann)).endswith("(guest)")  # signed in as its browser's guest
        guest = await ann.evaluate("() => window.cardhall.account.info.account")
        await register(ann, "Annabel")
        assert await ann.evaluate("() => window.cardhall.account.info.account") == guest
        await create(ann, "skipper", mode="multi", seats=2)
        room = await ann.evaluate("() => window.cardhall.room.roomId")
        await bob.evaluate("id => window.cardhall.join({room: id})", room)
        await bob.wait_for_selector("#room[data-status='playing']")
        seats = bob.locator("#room .seat-item")
        await seats.filter(has_text="Annabel").wait_for()
        assert "Annabel" in await bob.inner_text("#room")
        await ann.reload()
        await ann.wait_for_selector("#room[data-status='playing']")
        assert await account_name(ann) == "Annabel"  # no "(guest)": the session was restored
        assert await ann.evaluate("() => window.cardhall.account.info.account") == guest
        assert await ann.evaluate(
            "() => window.cardhall.room.seatName(window.cardhall.room.seat)") == "Annabel (you)"
        # Another browser, signed in to Annabel: My games lists the seat and takes it back.
        desk = await open_page(b, server.port, "desktop", errors)
        await desk.click("#account-signin")
        await desk.fill("#account-username", "annabel")
        await desk.fill("#account-password", PASSWORD)
        await desk.click("#signin-submit")
        await desk.wait_for_function(
            "() => document.querySelector('#account-name').textContent === 'Annabel'")
        await desk.click("#account-games")
        await desk.click(f"#my-running li[data-room='{room}'] button.resume")
        await desk.wait_for_selector("#room[data-status='playing']")
        assert await desk.evaluate("() => window.cardhall.room.roomId") == room
        await ann.wait_for_selector("#create-form")  # the seat moved: back in the lobby
        await desk.click("#account-signout")
        await desk.wait_for_function(
            "() => document.querySelector('#account-name').textContent.endsWith('(guest)')")
        await desk.screenshot(path=str(tmp_path / "signed-out.png"))
    assert not errors, errors


async def test_a_taken_name_is_refused_in_the_lobby() -> None:
    _need_browser()
    errors: list[str] = []
    async with serving(MemoryStore, **TEST_SETTINGS) as make, chromium() as b:
        server = await make()
        first = await open_page(b, server.port, "desktop", errors)
        await first.fill("#player-name", "Zed")
        await first.press("#player-name", "Enter")
        await first.wait_for_function(
            "() => document.querySelector('#account-name').textContent === 'Zed (guest)'")
        second = await open_page(b, server.port, "desktop", errors)
        await second.fill("#player-name", "ZED")
        await second.press("#player-name", "Enter")
        await second.wait_for_selector("#notice")
        assert "cannot be yours" in await second.inner_text("#notice")
        assert not (await account_name(second)).startswith("ZED")
    assert not errors, errors


async def sign_in(page: Any, username: str) -> None:
    """Fill and send the account menu's sign-in form (the answer is not awaited)."""
    await page.click("#account-signin")
    await page.fill("#account-username", username)
    await page.fill("#account-password", PASSWORD)
    await page.click("#signin-submit")


async def test_a_browser_that_signed_in_before_is_not_locked_out_by_guesses() -> None:
    """Issue #41, item 3: the page keeps its remembered-device token (``localStorage``) and
    sends it with its next sign-in: after ten wrong guesses from elsewhere it signs in,
    where another browser is refused (``auth/rate_limited``)."""
    _need_browser()
    from cardhall.client.client import Client, ServerError

    errors: list[str] = []
    async with serving(MemoryStore, **TEST_SETTINGS) as make, chromium() as b:
        server = await make()
        cleo = await open_page(b, server.port, "desktop", errors)
        await register(cleo, "Cleo")
        kept = await cleo.evaluate(
            "() => JSON.parse(localStorage.getItem('cardhall.remembered')).cleo")
        assert kept.startswith("chd1.")
        await cleo.click("#account-signout")
        await cleo.wait_for_function(
            "() => document.querySelector('#account-name').textContent.endsWith('(guest)')")
        async with Client(server.url) as guesser:
            for k in range(10):
                with pytest.raises(ServerError):
                    await guesser.login("cleo", f"guess {k}")
        other = await open_page(b, server.port, "desktop", errors)
        await sign_in(other, "cleo")
        await other.wait_for_selector("#account-error")
        assert "too many" in await other.inner_text("#account-error")
        await sign_in(cleo, "Cleo")
        await cleo.wait_for_function(
            "() => document.querySelector('#account-name').textContent === 'Cleo'")
        renewed = await cleo.evaluate(
            "() => JSON.parse(localStorage.getItem('cardhall.remembered')).cleo")
        assert renewed.startswith("chd1.") and renewed != kept
    assert not errors, errors
