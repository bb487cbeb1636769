"""The README's pictures of the web client (issue #44): the lobby with its welcome, a
Skipper multi table in the middle of an auction, game over, My games and the replay viewer,
each at a desktop size (1280x800) and a phone's (390x844), as a player reaches them in
Debian's Chromium.

Usage (from the checkout; needs /usr/bin/chromium and playwright)::

    python -m tests.web_docs [--out docs]

writes ``web-<screen>.png`` (desktop) and ``web-<screen>-phone.png`` for each screen of
:data:`SCREENS`.
"""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from cardhall.server.app import Server
from cardhall.server.config import Settings
from cardhall.server.store.memory_store import MemoryStore

from . import web_screens as ws

#: Viewports by name: (width, height) in CSS pixels; the file's suffix.
SIZES = {"desktop": ((1280, 800), ""), "phone": ((390, 844), "-phone")}
#: The screens :func:`walk` shows, in order.
SCREENS = ("lobby", "auction", "game-over", "my-games", "replay")
#: Seconds a server bot thinks over each action at the pictured table: the auction stays
#: open while the bot is to bid.
BOT_SECONDS = 15
#: Turns of the page's own at most before it gives up waiting for a card to auction.
MAX_TURNS = 12


async def auction(page: Any) -> None:
    """At a started Skipper multi table, on the page's turns: select a card of the hand
    and put it up for auction when the game allows it (else discard it and end the turn),
    until the auction panel shows (:data:`MAX_TURNS` turns at most).

    Raises:
        RuntimeError: no auction came within :data:`MAX_TURNS` turns.
    """
    for _ in range(MAX_TURNS):
        await page.wait_for_selector("#room[data-mine='1'] #hand", timeout=120_000)
        await page.locator("#hand .card.clickable").first.click()
        if await page.locator(".selection button.auction").count():
            await page.click(".selection button.auction")
            await page.wait_for_selector("#auction")
            return
        state = await page.eval_on_selector("#room", "r => r.dataset.stateId")
        if await page.locator(".selection button.discard").count():
            await page.click(".selection button.discard")
            await page.wait_for_function(
                "s => document.querySelector('#room').dataset.stateId !== s", arg=state)
        end = page.locator("#room[data-mine='1'] button.end")
        if await end.count():
            await end.click()
    raise RuntimeError(f"no auction within {MAX_TURNS} turns")


async def walk(page: Any) -> AsyncIterator[str]:
    """Take ``page`` (on a server's lobby) through :data:`SCREENS`, yielding each one's
    name while it shows."""
    await page.fill("#player-name", "Dee")
    await page.press("#player-name", "Enter")
    await page.click("#refresh")
    await page.wait_for_selector(".rooms tr[data-room]")
    await page.evaluate("() => scrollTo(0, 0)")
    yield "lobby"
    await page.select_option("#create-game", "skipper")
    await page.select_option("#create-mode", "multi")
    await page.fill("#create-seats", "2")
    await page.click("details:has(#ropt-bot_seconds) summary")
    await page.fill("#ropt-bot_seconds", str(BOT_SECONDS))
    await page.click("#create-submit")
    await page.click("#start")
    await auction(page)
    yield "auction"
    await ws.give_up(page)
    yield "game-over"
    await page.click("#account-games")
    await page.wait_for_selector("#account-panel li")
    yield "my-games"
    await page.keyboard.press("Escape")
    await page.click("#replay-open")
    await page.wait_for_selector("#deal-result[data-ok='true']")
    yield "replay"


async def write(out: Path) -> list[Path]:
    """Each screen of :data:`SCREENS` at each size of :data:`SIZES` into ``out`` (made if
    missing), a server of its own (memory store, 127.0.0.1, a free port) per size.

    Returns:
        The files written, in order.

    Raises:
        RuntimeError: the page reported an error, or no auction came.
    """
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    errors: list[str] = []
    async with ws.chromium() as b:
        for size, ((width, height), suffix) in SIZES.items():
            async with Server(Settings(host="127.0.0.1", port=0, msg_rate=None),
                              MemoryStore()) as server:
                clients = await ws.furnish_lobby(f"ws://127.0.0.1:{server.port}/")
                try:
                    context = await b.new_context(
                        viewport={"width": width, "height": height},
                        is_mobile=size == "phone", has_touch=size == "phone",
                        reduced_motion="reduce")
                    page = await context.new_page()
                    page.on("pageerror", lambda exc: errors.append(str(exc)))
                    page.set_default_timeout(30_000)
                    await page.goto(f"http://127.0.0.1:{server.port}/")
                    await page.wait_for_selector("#create-form")
                    async for screen in walk(page):
                        path = out / f"web-{screen}{suffix}.png"
                        await page.screenshot(path=str(path))
                        written.append(path)
                    await context.close()
                finally:
                    for c in clients:
                        await c.close()
    if errors:
        raise RuntimeError(f"the page reported errors: {errors}")
    return written


def main() -> None:
    """``python -m tests.web_docs [--out DIR]``: write the pictures, print their paths."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("docs"),
                        help="folder for the PNG files (default: docs)")
    for path in asyncio.run(write(parser.parse_args().out)):
        print(path)


if __name__ == "__main__":
    main()
