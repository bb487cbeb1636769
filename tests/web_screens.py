"""Every screen of the web client, reached in Debian's Chromium as a player would reach it:
the phone test of test_web_table.py checks each one, and this module's ``main`` writes
screenshots of each to a folder (the README's and docs' pictures).

Usage (from the checkout; needs /usr/bin/chromium and playwright)::

    python -m tests.web_screens [--out docs]

writes ``web-<screen>-desktop.png`` (1280x900) and ``web-<screen>-phone.png`` (390x844) for
each screen of :data:`SCREENS`.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import re
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

from cardhall.client.client import Client
from cardhall.server.app import Server
from cardhall.server.config import Settings
from cardhall.server.store.memory_store import MemoryStore

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync"]
#: Viewports by name: (width, height) in CSS pixels.
VIEWPORTS = {"desktop": (1280, 900), "phone": (390, 844)}
#: The solo games shown one by one (Skipper is shown at a four-seat table).
SOLO_GAMES = ("shop", "shah", "thirtysix", "shufflejack")
#: The screens :func:`walk` shows, in order.
SCREENS = ("lobby", "waiting", "skipper", *SOLO_GAMES, "game-over")
#: Verbs that give a game up (games/bots.py CONCEDE_VERBS).
GIVE_UP = ("resign", "close_shop", "concede")


@contextlib.asynccontextmanager
async def chromium() -> AsyncIterator[Any]:
    """A headless Debian Chromium (Playwright's ``executable_path``, never its download)."""
    from playwright.async_api import async_playwright

    async with async_playwright() as p:
        b = await p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield b
        finally:
            await b.close()


async def open_page(b: Any, port: int, viewport: str, errors: list[str],
                    size: tuple[int, int] | None = None) -> Any:
    """A page with its own storage (a separate player) at ``viewport`` (a :data:`VIEWPORTS`
    name; ``size``, (width, height) in CSS pixels, instead of its size when given), on the
    lobby; its page errors and console errors go to ``errors``.

    The page prefers reduced motion: cards do not glide after a redraw, so a card is
    clickable as soon as it is drawn (on a loaded machine a glide can keep a card "not
    stable" for Playwright while updates keep coming). The motion itself is tested apart
    (tests/e2e/test_web_people.py)."""
    width, height = size or VIEWPORTS[viewport]
    context = await b.new_context(viewport={"width": width, "height": height},
                                  is_mobile=viewport == "phone",
                                  has_touch=viewport == "phone", reduced_motion="reduce")
    page = await context.new_page()
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error"
            and "favicon" not in m.text else None)
    page.set_default_timeout(20_000)
    await page.goto(f"http://127.0.0.1:{port}/")
    await page.wait_for_selector("#create-form")
    return page


async def furnish_lobby(url: str) -> list[Client]:
    """Rooms for the lobby to list, made over the protocol: a Skipper multi room waiting
    with one seat taken, a solo game being played, a finished one. Returns the clients
    (close them at the end)."""
    waiting, playing, done = (Client(url, name=n) for n in ("Ann", "Bob", "Cy"))
    for c in (waiting, playing, done):
        await c.connect()
    room = (await waiting.create_room("skipper", mode="multi", seats=4,
                                      name="Ann's table")).room
    await waiting.join(room)
    await playing.join((await playing.create_room("thirtysix", name="Bob plays")).room)
    over = (await done.create_room("skipper", mode="solo", name="Cy's solo")).room
    await done.join(over)
    await done.act(over, ["resign"])
    return [waiting, playing, done]


async def create(page: Any, game: str, *, mode: str | None = None, seats: int = 1,
                 seed: int | None = None) -> None:
    """Fill the lobby's New-room form and submit it: the page sits in the new room."""
    await page.select_option("#create-game", game)
    if mode is not None:
        await page.select_option("#create-mode", mode)
    await page.fill("#create-seats", str(seats))
    if seed is not None:
        await page.click("details:has(#opt-seed) summary")
        await page.fill("#opt-seed", str(seed))
    await page.click("#create-submit")
    await page.wait_for_selector("#room")


async def give_up(page: Any) -> None:
    """Give the game up: click its give-up button (resign, close shop, concede), say yes
    when asked, and wait for the game-over panel."""
    verbs = "|".join(GIVE_UP)
    button = page.locator("#room button.action", has_text=re.compile(
        rf"^({verbs.replace('_', ' ')})\b", re.IGNORECASE))
    if not await button.count():
        button = page.locator("#room button.action").filter(has_text=re.compile(
            "give up|resign", re.IGNORECASE))
    await button.first.click()
    await page.click("#confirm-yes")
    await page.wait_for_selector("#game-over")


async def back_to_lobby(page: Any) -> None:
    """Leave the room (Leave, or Back to the lobby once the game is over); in a game of
    several seats under way, say yes when asked (a bot takes the seat)."""
    await page.click("#leave")
    await page.wait_for_selector("#create-form, #leave-yes")
    if await page.locator("#leave-yes").count():
        await page.click("#leave-yes")
    await page.wait_for_selector("#create-form")


async def walk(page: Any) -> AsyncIterator[str]:
    """Take ``page`` (on the lobby of a server) through every screen of :data:`SCREENS`,
    yielding each one's name while it is shown (a full table, the page's turn). The page's
    player is named "Dee" first (Enter in the name field)."""
    await page.fill("#player-name", "Dee")
    await page.press("#player-name", "Enter")
    await page.wait_for_function("() => window.cardhall.session.name === 'Dee'"
                                 " && document.body.dataset.conn === 'open'")
    await page.click("#refresh")
    await page.wait_for_selector(".rooms tr[data-room]")
    yield "lobby"
    await create(page, "skipper", mode="multi", seats=4)
    await page.wait_for_selector("#room[data-status='waiting']")
    yield "waiting"
    await page.click("#start")
    await page.wait_for_selector("#room[data-status='playing'][data-mine='1'] #hand")
    yield "skipper"
    await back_to_lobby(page)
    for game in SOLO_GAMES:
        await create(page, game, seed=7)
        await page.wait_for_selector("#room[data-status='playing'][data-mine='1']")
        yield game
        if game != SOLO_GAMES[-1]:
            await back_to_lobby(page)
    await give_up(page)
    yield "game-over"


async def write_screenshots(
        out: Path, viewports: Sequence[str] = tuple(VIEWPORTS),
        on_screen: Callable[[str, Any], Awaitable[None]] | None = None) -> list[Path]:
    """Screenshots of every screen (:data:`SCREENS`) at each of ``viewports`` (names of
    :data:`VIEWPORTS`) into ``out``, as ``web-<screen>-<viewport>.png`` (the viewport's
    size, not the whole page); a server of its own (memory store) per viewport, on a free
    port.

    Args:
        out: The folder (made if missing).
        viewports: Which viewports.
        on_screen: Called with each screen's name and the page after its screenshot
            (the tests check each screen with it). None: nothing.

    Returns:
        The files written, in order.

    Raises:
        RuntimeError: the page reported an error (a script error or a console error).
    """
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    errors: list[str] = []
    async with chromium() as b:
        for viewport in viewports:
            # A server per viewport: each page is a new browser (a new guest account), and
            # a display name is one account's (issue #29), so both could not be "Dee".
            async with Server(Settings(host="127.0.0.1", port=0, msg_rate=None),
                              MemoryStore()) as server:
                clients = await furnish_lobby(f"ws://127.0.0.1:{server.port}/")
                try:
                    page = await open_page(b, server.port, viewport, errors)
                    async for screen in walk(page):
                        path = out / f"web-{screen}-{viewport}.png"
                        await page.screenshot(path=str(path))
                        written.append(path)
                        if on_screen is not None:
                            await on_screen(screen, page)
                    await page.context.close()
                finally:
                    for c in clients:
                        await c.close()
    if errors:
        raise RuntimeError(f"the page reported errors: {errors}")
    return written


def main() -> None:
    """``python -m tests.web_screens [--out DIR]``: write the screenshots, print their
    paths."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("docs"),
                        help="folder for the PNG files (default: docs)")
    args = parser.parse_args()
    for path in asyncio.run(write_screenshots(args.out)):
        print(path)


if __name__ == "__main__":
    main()
