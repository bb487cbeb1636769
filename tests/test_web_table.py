"""The web client as people use it (issue #33's defects; #35 items 3 and 4 for the web
client), in Debian's Chromium driven by Playwright (``executable_path``, never
``playwright install``), at a desktop (1280x900) and a phone (390x844) viewport: the New-room
form's defaults, the host role, names, the give-up confirmation, phones, the rendering
glitches, a lost connection, auto-trash, the lobby's order, stale and missing updates, and a
server that stops answering."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from cardhall import games
from cardhall import protocol as p
from cardhall.client.client import Client
from cardhall.server.app import Server
from cardhall.server.store import MemoryStore

from . import web_screens as ws
from .conftest import serving
from .test_web import _need_browser, room_attr, shot

pytestmark = pytest.mark.timeout(240)


@contextlib.asynccontextmanager
async def site(**settings: Any) -> AsyncIterator[tuple[Server, Any, list[str]]]:
    """A server (memory store, no message rate limit) and a Chromium; yields the server, the
    browser and the list the pages' errors go to (checked empty at the end)."""
    _need_browser()
    errors: list[str] = []
    async with serving(MemoryStore, msg_rate=None, **settings) as make, ws.chromium() as b:
        server = await make()
        yield server, b, errors
    assert not errors, errors


async def page_at(b: Any, server: Server, errors: list[str], viewport: str = "desktop") -> Any:
    """A new player's page on the lobby of ``server``."""
    return await ws.open_page(b, server.port, viewport, errors)


# -- 1. the New-room form sends only what the player changed --------------------------------

def form_cases() -> list[tuple[str, str | None]]:
    """(game, mode) for every game and each of its modes."""
    return [(g["game"], mode) for g in games.catalog() for mode in (g["modes"] or [None])]


async def test_form_defaults_make_the_room_the_protocol_makes_without_options() -> None:
    """Each game's room (each mode) created from the form with every option left alone has
    the options and room settings of a room created over the protocol with none (the seed
    aside, drawn per room): Skipper multi keeps K11's skip-draws."""
    async with site() as (server, b, errors):
        page = await page_at(b, server, errors)
        host = Client(f"ws://127.0.0.1:{server.port}/", name="proto", reconnect=False)
        await host.connect()
        try:
            for game, mode in form_cases():
                await page.select_option("#create-game", game)
                if mode is not None:
                    await page.select_option("#create-mode", mode)
                seats = int(await page.input_value("#create-seats"))
                await page.click("#create-submit")
                await page.wait_for_selector("#room")
                made = server.lobby.rooms[await room_attr(page, "room")]
                plain = server.lobby.rooms[(await host.create_room(
                    game, mode=mode, seats=seats)).room]
                drop_seed = lambda o: {k: v for k, v in o.items() if k != "seed"}  # noqa: E731
                assert drop_seed(made.options) == drop_seed(plain.options), (game, mode)
                assert made.settings == plain.settings, (game, mode)
                await ws.back_to_lobby(page)
            skipper = next(r for r in server.lobby.rooms.values()
                           if r.game_name == "skipper" and r.options["mode"] == "multi")
            assert skipper.options["skip_draws"] is not False
        finally:
            await host.close()
