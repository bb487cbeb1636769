"""The browser client: its files served on the WebSocket port, and real games played in
Debian's Chromium driven by Playwright (``executable_path``; never ``playwright install``).

The browser tests skip when ``/usr/bin/chromium`` or the ``playwright`` package is missing
(``.ci/run`` installs chromium). Screenshots go to ``$CARDHALL_TEST_ARTIFACTS`` (default
``test-artifacts/web`` in the repository).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from cardhall.server import web
from cardhall.server.app import Server
from cardhall.server.config import Settings
from cardhall.server.store.memory_store import MemoryStore

from .. import web_screens
from ..conftest import serving
from ..web_screens import CHROMIUM

#: JavaScript: the card codes of the elements found.
CARDS_OF = "els => els.map(e => e.dataset.card)"
ARTIFACTS = Path(os.environ.get("CARDHALL_TEST_ARTIFACTS")
                 or Path(__file__).resolve().parents[2] / "test-artifacts" / "web")


async def http_get(port: int, path: str, headers: dict[str, str] | None = None
                   ) -> tuple[int, dict[str, str], bytes]:
    """One raw HTTP/1.1 GET (the path is sent as is, ``..`` included): status, headers
    (lower-case names), body."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    lines = [f"GET {path} HTTP/1.1", f"Host: 127.0.0.1:{port}", "Connection: close"]
    lines += [f"{k}: {v}" for k, v in (headers or {}).items()]
    writer.write(("\r\n".join(lines) + "\r\n\r\n").encode())
    await writer.drain()
    data = await asyncio.wait_for(reader.read(), timeout=10)
    writer.close()
    head, _, body = data.partition(b"\r\n\r\n")
    status_line, *header_lines = head.decode("latin-1").split("\r\n")
    out = {}
    for line in header_lines:
        name, _, value = line.partition(":")
        out[name.strip().lower()] = value.strip()
    return int(status_line.split()[1]), out, body


# -- serving the files (no browser) ------------------------------------------------------

async def test_root_serves_the_web_app(server: Server) -> None:
    status, headers, body = await http_get(server.port, "/")
    assert status == 200
    assert headers["content-type"] == "text/html; charset=utf-8"
    assert b'<script type="module" src="/js/app.js">' in body
    assert headers["cache-control"] == "no-cache"
    assert int(headers["content-length"]) == len(body)


async def test_static_files_types_and_cache(server: Server) -> None:
    status, headers, body = await http_get(server.port, "/js/protocol.js")
    assert status == 200 and headers["content-type"].startswith("text/javascript")
    assert b"applyDelta" in body
    status, headers, body = await http_get(server.port, "/vendor/msgpack/index.mjs")
    assert status == 200 and headers["content-type"].startswith("text/javascript")
    assert headers["cache-control"] == web.VENDOR_CACHE
    status, headers, _ = await http_get(server.port, "/app.css")
    assert status == 200 and headers["content-type"].startswith("text/css")
    etag = headers["etag"]
    status, headers2, body = await http_get(server.port, "/app.css", {"If-None-Match": etag})
    assert status == 304 and body == b"" and headers2["etag"] == etag


@pytest.mark.parametrize("path", [
    "/../pyproject.toml", "/js/../../web.py", "/../app.py", "/..%2fapp.py", "/%2e%2e/app.py",
    "/.hidden", "/js/", "/nothing.js", "/vendor/msgpack/../../../web.py", "//etc/passwd",
    "/js\\..\\..\\web.py",
])
async def test_no_directory_traversal(server: Server, path: str) -> None:
    status, _, body = await http_get(server.port, path)
    assert status == 404, body
    assert b"def respond" not in body and b"[project]" not in body


async def test_health_and_metrics_still_served(server: Server) -> None:
    status, _, body = await http_get(server.port, "/healthz")
    assert (status, body) == (200, b"ok\n")
    status, _, body = await http_get(server.port, "/metrics")
    assert status == 200 and b"cardhall" in body


def test_resolve_stays_inside_root(tmp_path: Path) -> None:
    root = tmp_path / "static"
    root.mkdir()
    (root / "index.html").write_text("x")
    (tmp_path / "secret.txt").write_text("s")
    (root / "link.txt").symlink_to(tmp_path / "secret.txt")
    assert web.resolve("/", root) == (root / "index.html").resolve()
    assert web.resolve("/index.html?x=1", root) == (root / "index.html").resolve()
    assert web.resolve("/link.txt", root) is None  # a symlink out of the folder
    assert web.resolve("/../secret.txt", root) is None
    assert web.resolve("index.html", root) is None


# -- in the browser -----------------------------------------------------------------------

def _need_browser() -> Any:
    if not CHROMIUM.exists():
        pytest.skip("/usr/bin/chromium is not installed (apt-get install chromium)")
    try:
        from playwright.async_api import async_playwright
    except ImportError:
        pytest.skip("playwright is not installed (pip install -e .[test])")
    return async_playwright


@contextlib.asynccontextmanager
async def browser() -> AsyncIterator[Any]:
    """A headless Debian Chromium."""
    _need_browser()
    async with web_screens.chromium() as b:
        yield b


async def new_page(b: Any, port: int, errors: list[str]) -> Any:
    """A page with its own storage (a separate player), opened on the lobby (1280x900)."""
    return await web_screens.open_page(b, port, "desktop", errors)


def shot(name: str) -> str:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return str(ARTIFACTS / f"{name}.png")


async def room_attr(page: Any, name: str) -> str | None:
    return await page.evaluate(
        f"() => {{ const r = document.querySelector('#room');"
        f" return r ? r.dataset.{name} : null; }}")


async def wait_new_state(page: Any, old: str) -> None:
    """Until the page's state_id moves on from ``old``, the game is over or an error shows."""
    await page.wait_for_function(
        """old => { const r = document.querySelector('#room');
                    return !r || r.dataset.stateId !== old || r.dataset.over === '1'
                        || document.querySelector('#act-error'); }""", arg=old)
    err = page.locator("#act-error")
    assert not await err.count(), await err.inner_text()


async def dom_cards(page: Any) -> list[str]:
    return list(await page.eval_on_selector_all("[data-card]", CARDS_OF))


async def check_hidden_hands(page: Any, room: Any, seat: int) -> bool:
    """The page shows its own hand exactly as the engine deals it, and no card of another
    seat's hand (when the page holds the engine's current state). True when checked."""
    game = room.table.game
    if str(game.state_id) != await room_attr(page, "stateId"):
        return False
    shown = await dom_cards(page)
    hand = await page.eval_on_selector_all("#hand [data-card]", CARDS_OF)
    if str(game.state_id) != await room_attr(page, "stateId"):
        return False  # moved on while reading
    assert sorted(hand) == sorted(game.view(seat)["hand"])
    for other in range(game.seats):
        if other != seat:
            hidden = set(game.view(other)["hand"])
            assert not hidden & set(shown), f"seat {seat}'s page shows seat {other}'s hand"
    return True


class Player:
    """One browser page playing Skipper by clicking, as a person would."""

    def __init__(self, page: Any, seat: int) -> None:
        self.page = page
        self.seat = seat
        self.auctioned = False
        self.bids = 0
        self.actions = 0
        self.last = ""
        self.saw_auction_panel = False

    async def act(self) -> str:
        """Make one move by clicking; returns what it did."""
        page = self.page
        if await page.locator("#auction").count():
            self.saw_auction_panel = True
        bids = page.locator("#hand button[data-bid='1']")
        if await bids.count():
            if self.bids == 0:
                await bids.first.click()
                self.bids += 1
                return "bid"
            await page.locator("#auction button.action").click()
            return "pass"
        if await page.locator("#auction button.action").count():
            await page.locator("#auction button.action").click()  # no card can bid
            return "pass"
        hand = page.locator("#hand button.card")
        n = await hand.count()
        if not self.auctioned and n:
            await hand.first.click()
            auction = page.locator(".selection button.auction")
            if await auction.count():
                await page.screenshot(path=shot(f"skipper-seat{self.seat}-selected"))
                await auction.click()
                self.auctioned = True
                return "auction"
            await page.locator(".selection button.secondary").click()
        for i in range(n):
            await hand.nth(i).click()
            stack = page.locator(".stack button.highlight")
            if await stack.count():
                await stack.first.click()
                return "play"
            await page.locator(".selection button.secondary").click()
        end = page.locator(".turn-buttons button.end")
        if self.last == "discard" and await end.count():
            await end.click()
            return "end"
        if n:
            await hand.first.click()
            discard = page.locator(".selection button.discard")
            if await discard.count():
                await discard.click()
                return "discard"
            await page.locator(".selection button.secondary").click()
        if not await end.count():
            legal = await page.evaluate("() => window.cardhall.room.view.legal_actions")
            pytest.fail(f"no move found by clicking; legal actions: {legal}")
        await end.click()
        return "end"


@pytest.mark.slow
async def test_skipper_multi_two_pages_two_bots_to_the_end() -> None:
    """Two browser pages and two server bots play a 4-seat Skipper multi game to the end:
    an auction happens (page 0 auctions a card; the others bid or pass), page 1 reloads
    mid-game and resumes its seat, neither page ever shows another seat's hand."""
    errors: list[str] = []
    async with serving(MemoryStore, msg_rate=None) as make, browser() as b:
        server = await make()
        a = await new_page(b, server.port, errors)
        await a.screenshot(path=shot("lobby"))
        await a.select_option("#create-game", "skipper")
        await a.select_option("#create-mode", "multi")
        await a.fill("#create-seats", "4")
        await a.fill("#create-name", "browser table")
        await a.click("details:has(#opt-turn_limit) summary")
        await a.fill("#opt-turn_limit", "4")
        await a.click("#create-submit")
        await a.wait_for_selector("#room[data-status='waiting']")
        room_id = await room_attr(a, "room")
        room = server.lobby.rooms[room_id]
        assert room.table.options["turn_limit"] == 4 and room.table.seat_count == 4

        bpage = await new_page(b, server.port, errors)
        await bpage.click("#refresh")
        await bpage.wait_for_selector(f"tr[data-room='{room_id}']")
        await bpage.screenshot(path=shot("lobby-with-room"))
        await bpage.click(f"tr[data-room='{room_id}'] button.join")
        await bpage.wait_for_selector("#room[data-seat='1']")
        await a.wait_for_selector(".seat-item[data-seat='1'][data-status='connected']")
        await a.click("#start")
        await a.wait_for_selector("#room[data-status='playing']")
        await a.wait_for_selector(".seat-item[data-seat='3'][data-status='bot']")

        # A third page watches: it sees the table but no hand at all.
        watcher = await new_page(b, server.port, errors)
        await watcher.click("#refresh")
        await watcher.click(f"tr[data-room='{room_id}'] button.spectate")
        await watcher.wait_for_selector("#room[data-seat=''] .skipper")
        assert not await watcher.locator("#hand").count()
        hands = {c for s in range(4) for c in room.table.game.view(s)["hand"]}
        assert not hands & set(await dom_cards(watcher))
        await watcher.screenshot(path=shot("skipper-spectator"))
        await watcher.context.close()

        players = [Player(a, 0), Player(bpage, 1)]
        checks = auctions_seen = 0
        reloaded = False
        deadline = time.monotonic() + 240
        while time.monotonic() < deadline:
            if all([await room_attr(p.page, "over") == "1" for p in players]):
                break
            for p in players:
                if await check_hidden_hands(p.page, room, p.seat):
                    checks += 1
                if await room_attr(p.page, "mine") != "1" or await room_attr(p.page, "over") == "1":
                    continue
                old = await room_attr(p.page, "stateId")
                p.last = await p.act()
                p.actions += 1
                await wait_new_state(p.page, old)
                if p.seat == 1 and p.actions == 2 and not reloaded:
                    await p.page.screenshot(path=shot("skipper-before-reload"))
                    stored = "() => localStorage.getItem('cardhall.seat')"
                    token = await p.page.evaluate(stored)
                    await p.page.reload()
                    await p.page.wait_for_selector("#room[data-seat='1'] #hand")
                    assert await room_attr(p.page, "room") == room_id
                    reloaded = True
                    if str(room.table.game.state_id) == await room_attr(p.page, "stateId"):
                        hand = await p.page.eval_on_selector_all(
                            "#hand [data-card]", CARDS_OF)
                        assert sorted(hand) == sorted(room.table.game.view(1)["hand"])
                    assert await p.page.evaluate(stored) == token  # the same seat token
                    await a.wait_for_function(
                        "() => [...document.querySelectorAll('#log li')]"
                        ".some(li => li.textContent.includes('is back'))")
                if p.last == "auction":
                    await p.page.screenshot(path=shot(f"skipper-auction-seat{p.seat}"))
                    for q in players:  # every page tells of the auction in words
                        await q.page.wait_for_function(
                            "() => document.querySelector('#log').textContent"
                            ".includes('up for auction')")
                        auctions_seen += 1
            await asyncio.sleep(0.05)
        else:
            pytest.fail("the game did not end in time")

        assert room.table.game.over
        for p in players:
            await p.page.wait_for_selector("#game-over #play-again")
            await p.page.screenshot(path=shot(f"skipper-game-over-seat{p.seat}"), full_page=True)
            outcome = await p.page.inner_text("#outcome")
            assert "turn limit" in outcome or "won" in outcome, outcome
        assert players[0].auctioned and reloaded and checks >= 10
        assert room.table.game.counters["auctions"] >= 1
        assert auctions_seen >= 2
        await a.click("#play-again")  # a new room like this one, the page seated in it
        await a.wait_for_function(
            "old => { const r = document.querySelector('#room');"
            " return r && r.dataset.room !== old && r.dataset.status === 'waiting'; }",
            arg=room_id)
        again = server.lobby.rooms[await room_attr(a, "room")]
        assert again.table.seat_count == 4 and again.table.options["mode"] == "multi"
        assert not errors, errors


@pytest.mark.slow
async def test_reconnecting_then_resumed_and_gone_room_back_to_lobby() -> None:
    """A dropped connection shows "Reconnecting…", then the page resumes its seat by
    itself; a stored seat of a room that no longer exists sends the page to the lobby."""
    errors: list[str] = []
    async with serving(MemoryStore, msg_rate=None) as make, browser() as b:
        server = await make()
        page = await new_page(b, server.port, errors)
        await page.select_option("#quick-game", "skipper")
        await page.click("#quick-join")
        await page.wait_for_selector("#room[data-seat='0']")
        room_id = await room_attr(page, "room")
        assert room_id in server.lobby.rooms
        stored = await page.evaluate("() => JSON.parse(localStorage.getItem('cardhall.seat'))")
        assert stored["room"] == room_id and stored["token"]

        for conn in list(server.connections):  # the server drops the socket
            conn.ws.close(1001, "going away")
        await page.wait_for_selector("#conn-status:has-text('Reconnecting')")
        await page.screenshot(path=shot("reconnecting"))
        await page.wait_for_function("() => document.body.dataset.conn === 'open'")
        await page.wait_for_selector(f"#room[data-room='{room_id}'][data-seat='0']")
        assert not await page.locator("#conn-status").count()

        await page.evaluate("""() => localStorage.setItem('cardhall.seat',
            JSON.stringify({room: 'no-such-room', token: 'x'}))""")
        await page.reload()
        await page.wait_for_selector("#lobby")
        assert "gone" in await page.inner_text("#notice")
        assert await page.evaluate("() => localStorage.getItem('cardhall.seat')") is None
        assert not errors, errors


async def solo_move(page: Any) -> str:
    """One move of a solo game by clicking cards (and targets), as a player would: returns
    what was clicked. Which cards to pick for a multi-card move is read from the view."""
    old = await room_attr(page, "stateId")
    legal = await page.evaluate("() => window.cardhall.room.view.legal_actions")
    if await page.locator("#score-hand").count():
        hand = next(a for a in legal if a[0] == "hand")
        for pos in hand[1:]:
            await page.click(f"#tableau [data-pos='{pos}']")
        await page.click("#score-hand")
        return f"hand {hand[1:]}"
    commits = [a for a in legal if a[0] == "commit" and len(a) > 1]
    if commits and await page.locator("#commit").count():
        for card in commits[0][1:]:
            await page.click(f"#row [data-card='{card}']")
        await page.click("#commit")
        return f"commit {commits[0][1:]}"
    cards = page.locator("#room .table button.card")
    for i in range(min(await cards.count(), 8)):
        card = cards.nth(i)
        code = await card.get_attribute("data-card")
        await card.click()
        await page.wait_for_function(
            """old => document.querySelector('.card.selected, button.target')
                      || document.querySelector('#room').dataset.stateId !== old""", arg=old)
        if await room_attr(page, "stateId") != old:
            return f"click {code}"
        target = page.locator("#room .table button.target")
        if await target.count():
            label = await target.first.get_attribute("aria-label")
            await target.first.click()
            return f"{code} -> {label}"
        # Not for this card: deselect it.
        await page.locator(f"#room .table button.card[data-card='{code}']").first.click()
    buttons = page.locator(".other-actions button, .turn-buttons button.end")
    for i in range(await buttons.count()):
        text = (await buttons.nth(i).inner_text()).lower()
        if not any(w in text for w in ("resign", "close shop", "concede", "nothing")):
            await buttons.nth(i).click()
            return text
    pytest.fail(f"no move found by clicking; legal actions: {legal}")


@pytest.mark.slow
@pytest.mark.parametrize("game", ["shop", "shah", "thirtysix", "shufflejack", "skipper"])
async def test_solo_game_played_by_clicking(game: str) -> None:
    """Each solo game is created from the lobby form (a seed option filled in) and played
    for several moves by clicking its cards; the page follows the engine's state."""
    errors: list[str] = []
    async with serving(MemoryStore, msg_rate=None) as make, browser() as b:
        server = await make()
        page = await new_page(b, server.port, errors)
        await page.select_option("#create-game", game)
        await page.fill("#create-seats", "1")
        await page.click("details:has(#opt-seed) summary")
        await page.fill("#opt-seed", "7")
        await page.click("#create-submit")
        await page.wait_for_selector("#room")
        room = server.lobby.rooms[await room_attr(page, "room")]
        assert room.table.options["seed"] == 7
        if await room_attr(page, "status") == "waiting":  # a full room may start by itself
            await page.click("#start")
        await page.wait_for_selector("#room[data-status='playing'][data-mine='1']")
        await page.screenshot(path=shot(f"{game}-start"), full_page=True)
        moves = []
        for _ in range(5):
            if await room_attr(page, "over") == "1":
                break
            old = await room_attr(page, "stateId")
            moves.append(await solo_move(page))
            await wait_new_state(page, old)
        await page.screenshot(path=shot(f"{game}-after-moves"), full_page=True)
        assert room.table.game.state_id >= 5 or room.table.game.over, moves
        await page.wait_for_function("s => document.querySelector('#room').dataset.stateId === s",
                                     arg=str(room.table.game.state_id))
        labels = await page.eval_on_selector_all(
            "#room .table [data-card]", "els => els.map(e => e.getAttribute('aria-label'))")
        assert labels and all(" of " in label for label in labels)  # words for every card
        assert not errors, errors


@pytest.mark.slow
async def test_https_page_speaks_wss_with_origin_allow_list(tmp_path: Path) -> None:
    """Served over TLS, the page connects with ``wss://`` to the same port; with the page's
    origin on the allow-list two pages meet in a private room joined by its code; a page of
    an origin not on the list is refused and says it is reconnecting."""
    from ..server.test_hardening import self_signed

    from cardhall.bench.procs import free_port

    certfile, keyfile = self_signed(tmp_path)
    port = free_port()
    errors: list[str] = []
    settings = Settings(host="127.0.0.1", port=port, certfile=str(certfile),
                        keyfile=str(keyfile), origins=(f"https://127.0.0.1:{port}",))
    async with Server(settings, MemoryStore()), browser() as b:
        pages = []
        for _ in range(2):
            context = await b.new_context(ignore_https_errors=True)
            page = await context.new_page()
            page.on("pageerror", lambda exc: errors.append(str(exc)))
            page.set_default_timeout(20_000)
            await page.goto(f"https://127.0.0.1:{port}/")
            await page.wait_for_selector("#create-form")
            assert await page.evaluate("() => window.cardhall.session.ws.url") == \
                f"wss://127.0.0.1:{port}/"
            pages.append(page)
        a, c = pages
        await a.select_option("#create-game", "skipper")
        await a.select_option("#create-mode", "multi")
        await a.fill("#create-seats", "2")
        await a.check("#create-private")
        await a.click("#create-submit")
        await a.wait_for_selector("#room-code")
        code = await a.inner_text("#room-code")
        await c.fill("#join-code", code)
        await c.click("#join-by-code")
        await c.wait_for_selector("#room[data-seat='1']")
        assert await room_attr(c, "room") == await room_attr(a, "room")
        # A full room starts by itself.
        await a.wait_for_selector("#room[data-status='playing']")
        await c.wait_for_selector("#room[data-status='playing'] #hand")
        await a.screenshot(path=shot("wss-private-room"))

        # The same files served to another origin: its WebSocket is refused (HTTP 403).
        context = await b.new_context(ignore_https_errors=True)
        other = await context.new_page()
        await other.goto(f"https://localhost:{port}/")
        await other.wait_for_selector("#conn-status:has-text('Reconnecting')")
        assert not await other.locator("#create-form").count()
        assert not errors, errors


async def test_browser_apply_delta_matches_the_reference() -> None:
    """The browser's applyDelta (js/protocol.js) turns each view of a played Skipper game
    into the next one from the reference ``diff`` (protocol/delta.py), JSON Pointer escapes
    included."""
    import random

    from cardhall.protocol.delta import diff
    from cardhall import games

    game = games.create("skipper", {"mode": "multi", "seed": 11}, 3)
    rng = random.Random(5)
    cases = [({"a/b": 1, "m~n": [1, 2]}, {"a/b": 2, "m~n": [1, 3]})]
    views = [game.view(0)]
    while not game.over and len(views) < 60:
        seat = game.to_act()[0]
        moves = [a for a in game.legal_actions(seat) if a[0] != "resign"]
        game.apply(seat, rng.choice(moves))
        views.append(game.view(0))
    cases += [(old, new) for old, new in zip(views, views[1:])]
    triples = [[old, diff(old, new), new] for old, new in cases]
    assert any(any(k.startswith("/") for k in d) for _, d, _ in triples)  # pointers were used
    async with serving(MemoryStore, msg_rate=None) as make, browser() as b:
        server = await make()
        page = await new_page(b, server.port, [])
        bad = await page.evaluate("""async (triples) => {
            const { applyDelta } = await import('/js/protocol.js');
            return triples.filter(([old, delta, want]) =>
                JSON.stringify(applyDelta(structuredClone(old), delta)) !== JSON.stringify(want))
              .length; }""", triples)
        assert bad == 0


async def focused(page: Any) -> dict[str, str]:
    """The focused element's tag, text, aria-label and data-card."""
    return dict(await page.evaluate("""() => { const e = document.activeElement;
        return {tag: e.tagName, text: e.textContent.trim(),
                label: e.getAttribute('aria-label') || '', card: e.dataset.card || ''}; }"""))


async def tab_to(page: Any, want: Any, limit: int = 80) -> dict[str, str]:
    """Press Tab until ``want(focused)`` holds; returns that element's facts."""
    for _ in range(limit):
        await page.keyboard.press("Tab")
        info = await focused(page)
        if want(info):
            return info
    pytest.fail("no such element in the Tab order")


@pytest.mark.slow
async def test_keyboard_only_turn_with_countdown() -> None:
    """A Skipper solo turn played with Tab and Enter only (cards are labelled buttons), in a
    room with a turn timer shown as a countdown that runs down."""
    errors: list[str] = []
    async with serving(MemoryStore, msg_rate=None) as make, browser() as b:
        server = await make()
        page = await new_page(b, server.port, errors)
        await page.select_option("#create-game", "skipper")
        await page.fill("#create-seats", "1")
        await page.click("details:has(#ropt-turn_seconds) summary")
        await page.fill("#ropt-turn_seconds", "120")
        await page.click("#create-submit")
        await page.wait_for_selector("#room")
        if await room_attr(page, "status") == "waiting":
            await page.click("#start")
        await page.wait_for_selector("#room[data-mine='1'] .timer.big")
        first = await page.inner_text(".timer.big")
        assert first.startswith("\u23f1 1:") or first.startswith("\u23f1 2:"), first
        room = server.lobby.rooms[await room_attr(page, "room")]
        old = await room_attr(page, "stateId")

        card = await tab_to(page, lambda f: f["card"] != "" and "in your hand" in f["label"])
        assert card["tag"] == "BUTTON" and " of " in card["label"]
        await page.keyboard.press("Enter")  # select it
        await page.wait_for_selector(f"#hand [data-card='{card['card']}'][aria-pressed='true']")
        assert (await focused(page))["card"] == card["card"]  # focus kept across the redraw
        target = await tab_to(page, lambda f: "here" in f["label"] or f["text"] == "Discard it")
        await page.keyboard.press("Enter")
        await wait_new_state(page, old)
        assert room.table.game.state_id == int(old) + 1
        events = await page.inner_text("#log")
        assert ("discarded" in events) or ("played" in events), (target, events)
        await page.wait_for_timeout(2200)
        later = await page.inner_text(".timer.big")
        assert later != first  # it counts down
        assert not errors, errors


@pytest.mark.slow
async def test_create_form_from_list_games_validates() -> None:
    """The "New room" form is built from ``list_games``: each option with its description
    and default; out-of-range values are refused before anything is sent, and the server's
    refusal (a seat count the mode does not allow) is shown in words."""
    errors: list[str] = []
    async with serving(MemoryStore, msg_rate=None) as make, browser() as b:
        server = await make()
        page = await new_page(b, server.port, errors)
        await page.select_option("#create-game", "skipper")
        await page.click("details:has(#opt-turn_limit) summary")
        assert await page.input_value("#opt-turn_limit") == "500"
        doc = await page.inner_text("#opt-turn_limit-doc")
        assert "K7" in doc  # the option's own description
        modes = await page.eval_on_selector_all("#create-mode option",
                                                "os => os.map(o => o.value)")
        assert modes == ["solo", "multi", "race"]
        # The seat count follows the mode: solo Skipper has one seat (4 was refused).
        assert await page.input_value("#create-seats") == "1"
        await page.select_option("#create-mode", "multi")
        assert await page.input_value("#create-seats") == "4"
        await page.select_option("#create-mode", "solo")
        assert await page.input_value("#create-seats") == "1"

        await page.fill("#opt-turn_limit", "0")
        await page.click("#create-submit")
        assert "turn_limit" in await page.inner_text("#create-error")
        await page.fill("#opt-turn_limit", "500")
        await page.fill("#create-seats", "9")
        await page.click("#create-submit")
        assert "seats" in await page.inner_text("#create-error")
        assert not server.lobby.rooms  # nothing was sent

        await page.fill("#create-seats", "2")  # solo Skipper has one seat: the server says so
        await page.click("#create-submit")
        await page.wait_for_selector("#create-error:has-text('1 seat')")
        assert not server.lobby.rooms
        assert not errors, errors


@pytest.mark.slow
async def test_lobby_pages_through_a_server_that_pages() -> None:
    """With more rooms than one ``rooms`` page holds (100 by default), the lobby shows the
    first page and a "More rooms" button that fetches the next with the reply's cursor, until
    the server says there are no more (private rooms are never listed: issue #35); "free
    seats" asks the server for waiting public rooms only (``list_rooms.waiting``)."""
    from cardhall import protocol as p

    from ..room_harness import Recorder

    errors: list[str] = []
    async with serving(MemoryStore, msg_rate=None) as make, browser() as b:
        server = await make()
        host = Recorder("host", [])
        for i in range(180):
            await server.lobby.create(host, p.CreateRoom(  # type: ignore[arg-type]
                game="skipper", seats=1), private=i >= 150)
        page = await new_page(b, server.port, errors)
        rows = "#rooms tr[data-room], .rooms tr[data-room]"
        await page.wait_for_selector("#more-rooms")
        # The first page of the rooms to join and the first page of all rooms (test_web_table)
        assert 100 <= await page.locator(rows).count() < 180
        await page.click("#more-rooms")
        await page.wait_for_selector("#more-rooms", state="detached")
        shown = await page.eval_on_selector_all(rows, "rs => rs.map(r => r.dataset.room)")
        public = {r.id for r in server.lobby.rooms.values() if not r.table.private}
        assert sorted(shown) == sorted(public) and len(set(shown)) == 150
        await page.check("#filter-free")
        await page.wait_for_selector("#more-rooms")
        await page.click("#more-rooms")
        await page.wait_for_selector("#more-rooms", state="detached")
        shown = await page.eval_on_selector_all(rows, "rs => rs.map(r => r.dataset.room)")
        assert set(shown) == public and len(shown) == 150
        assert not errors, errors


def test_every_web_file_ships_in_the_wheel() -> None:
    """pyproject.toml's package data covers every file of server/static/ (the wheel holds
    what the server serves), and the vendored library keeps its licence and provenance."""
    import fnmatch
    import tomllib

    root = Path(__file__).resolve().parents[2]
    config = tomllib.loads((root / "pyproject.toml").read_text())
    patterns = config["tool"]["setuptools"]["package-data"]["cardhall.server"]
    files = [p.relative_to(root / "server").as_posix()
             for p in (root / "server" / "static").rglob("*") if p.is_file()]
    assert "static/index.html" in files
    missing = [f for f in files
               if not any(fnmatch.fnmatch(f, pat) and f.count("/") == pat.count("/")
                          for pat in patterns)]
    assert not missing, missing
    vendor = root / "server" / "static" / "vendor" / "msgpack"
    assert "MessagePack Community" in (vendor / "LICENSE.txt").read_text()
    assert "npm pack @msgpack/msgpack@3.1.3" in (vendor / "README.md").read_text()
