"""The table built for people (issue #33, "What players of online card sites expect"), in
Debian's Chromium driven by Playwright (the harness of tests/e2e/test_web.py), at 1280x900 and at
a 390x844 phone viewport: chat between pages (and the HTML injection probe), room links
(joining, watching, reloading), the rules and the reasons of an end, the replay viewer with
the deal check, sounds and card motion. Every feature here is new: on the old code each test
fails at its first look for the feature's element.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest

from cardhall.server.app import Server
from cardhall.server.store.memory_store import MemoryStore

from ..conftest import serving
from .test_web import browser, room_attr, shot

DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}
#: JavaScript: the text of every line of a chat list.
LINES = "els => els.map(e => e.textContent)"


async def page_at(b: Any, port: int, errors: list[str], viewport: dict[str, int] = DESKTOP,
                  path: str = "/", wait: str = "#create-form", **context: Any) -> Any:
    """A page with its own storage (a separate player) at ``viewport``, opened on ``path``."""
    ctx = await b.new_context(viewport=viewport, **context)
    page = await ctx.new_page()
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error"
            and "favicon" not in m.text else None)
    page.set_default_timeout(20_000)
    await page.goto(f"http://127.0.0.1:{port}{path}")
    if wait:
        await page.wait_for_selector(wait)
    return page


async def set_name(page: Any, name: str) -> None:
    """Take ``name`` as the player's name (the page reconnects with it)."""
    await page.evaluate("n => window.cardhall.setPlayerName(n)", name)
    await page.wait_for_function(
        "n => window.cardhall.session && window.cardhall.session.name === n"
        " && window.cardhall.session.open && document.querySelector('#create-form')", arg=name)


async def create_room(page: Any, game: str = "skipper", mode: str | None = "multi",
                      seats: int | None = 3, private: bool = False,
                      options: dict[str, str] | None = None) -> str:
    """Create a room from the New-room form and sit down; returns its id. ``options``: form
    field id (``opt-turn_limit``, ``ropt-turn_seconds``) -> value typed in."""
    await page.select_option("#create-game", game)
    if mode is not None:
        await page.select_option("#create-mode", mode)
    if seats is not None:
        await page.fill("#create-seats", str(seats))
    if private:
        await page.check("#create-private")
    for field, value in (options or {}).items():
        await page.click(f"details:has(#{field}) summary")
        await page.fill(f"#{field}", value)
    await page.click("#create-submit")
    await page.wait_for_selector("#room")
    return str(await room_attr(page, "room"))


async def no_sideways_scroll(page: Any, selector: str) -> None:
    """The page does not scroll sideways, and ``selector`` lies within the viewport."""
    facts = await page.evaluate("""sel => { const e = document.querySelector(sel);
        const r = e.getBoundingClientRect();
        return {sw: document.documentElement.scrollWidth, iw: window.innerWidth,
                right: r.right, left: r.left}; }""", selector)
    assert facts["sw"] <= facts["iw"], facts
    assert facts["left"] >= 0 and facts["right"] <= facts["iw"] + 0.5, facts


async def small_targets(page: Any, selector: str) -> list[str]:
    """The buttons and inputs under ``selector`` less than 40 px high (or wide)."""
    return list(await page.eval_on_selector_all(
        f"{selector} button, {selector} input, {selector} summary",
        """els => els.filter(e => e.offsetParent !== null).filter(e => {
            const r = e.getBoundingClientRect(); return r.height < 40 || r.width < 40; })
          .map(e => (e.id || e.className || e.tagName) + ':' + e.textContent.trim())"""))


# -- chat -----------------------------------------------------------------------------------

@pytest.mark.slow
async def test_chat_between_two_pages_and_a_spectator_on_a_phone() -> None:
    """Two players chat (a line, an emote); a spectator on a phone sees both and its own line
    apart, in the spectators' list; a line carrying HTML runs nothing and shows as text; a
    player mutes another for itself (kept across a reload, which also brings the history
    back); the spectators are listed on the table."""
    errors: list[str] = []
    async with serving(MemoryStore, msg_rate=None) as make, browser() as b:
        server = await make()
        a = await page_at(b, server.port, errors)
        await set_name(a, "Ann")
        room_id = await create_room(a)
        c = await page_at(b, server.port, errors)
        await set_name(c, "Bob")
        await c.click("#refresh")
        await c.click(f"tr[data-room='{room_id}'] button.join")
        await c.wait_for_selector("#room[data-seat='1'] #chat")
        w = await page_at(b, server.port, errors, PHONE)
        await set_name(w, "Kib")
        await w.click("#refresh")
        await w.click(f"tr[data-room='{room_id}'] button.spectate")
        await w.wait_for_selector("#room[data-seat=''] #chat")

        await a.fill("#chat-input", "hello from Ann")
        await a.press("#chat-input", "Enter")
        await c.click("#chat button[data-emote='good_luck']")
        await w.fill("#chat-input", "go Ann!")
        await w.click("#chat-send")
        for page in (a, c, w):
            await page.wait_for_function(
                "() => document.querySelectorAll('#chat-players li[data-n]').length === 2"
                " && document.querySelectorAll('#chat-spectators li[data-n]').length === 1")
            players = await page.eval_on_selector_all("#chat-players li[data-n]", LINES)
            assert "Ann: hello from Ann" in players[0] and "Bob:" in players[1], players
            assert "Good luck" in players[1]
            spectators = await page.eval_on_selector_all("#chat-spectators li[data-n]", LINES)
            assert "Kib: go Ann!" in spectators[0], spectators
        assert await a.input_value("#chat-input") == ""  # sent: the box is empty again
        # The spectators are listed on the players' table.
        await a.wait_for_selector("#spectators li:has-text('Kib')")
        assert "Watching (1)" in await a.inner_text("#spectators h2")

        # The injection probe: markup in a line is text, nothing of it runs.
        probe = '<img src=x onerror="window.__pwned=1"><b>bold</b>'
        await a.fill("#chat-input", probe)
        await a.press("#chat-input", "Enter")
        for page in (a, c, w):
            await page.wait_for_function(
                "() => document.querySelectorAll('#chat-players li[data-n]').length === 3")
            last = await page.eval_on_selector_all("#chat-players li[data-n]", LINES)
            assert probe in last[-1]
            assert await page.locator("#chat img, #chat b").count() == 0
            await asyncio.sleep(0.2)
            assert await page.evaluate("() => window.__pwned") is None
        await w.screenshot(path=shot("chat-spectator-phone"), full_page=True)
        await no_sideways_scroll(w, "#chat")
        assert not await small_targets(w, "#chat .emotes, #chat .chat-form")

        # Bob mutes Ann for himself: her lines go from his page only, also after a reload
        # (which brings the room's history back).
        await c.click("#chat-players li[data-n='1'] button.mute")
        await c.wait_for_function(
            "() => document.querySelectorAll('#chat-players li[data-n]').length === 1")
        assert await c.locator("#chat-muted button:has-text('Ann')").count() == 1
        await c.reload()
        await c.wait_for_selector("#room[data-seat='1'] #chat-players li[data-n='2']")
        assert await c.locator("#chat-players li[data-n='1']").count() == 0
        assert await a.locator("#chat-players li[data-n='1']").count() == 1
        await c.click("#chat-muted button:has-text('Ann')")  # unmute
        await c.wait_for_selector("#chat-players li[data-n='1']")
        await a.screenshot(path=shot("chat-desktop"), full_page=True)
        assert [line["n"] for line in server.lobby.rooms[room_id].table.chat] == [1, 2, 3, 4]
        assert not errors, errors


# -- room links -------------------------------------------------------------------------------

@pytest.mark.slow
async def test_room_links_join_watch_and_reload() -> None:
    """The address names the room (``/r/ROOM``); "Copy link" copies it; opening it on a phone
    joins the room and a reload keeps the seat; once the room has started the link watches
    it, and the watcher's reload watches again; a private room's link is ``/join/CODE``."""
    errors: list[str] = []
    async with serving(MemoryStore, msg_rate=None) as make, browser() as b:
        server = await make()
        a = await page_at(b, server.port, errors, permissions=["clipboard-read",
                                                               "clipboard-write"])
        room_id = await create_room(a, seats=2)
        await a.wait_for_function("r => location.pathname === '/r/' + r", arg=room_id)
        await a.click("#copy-link")
        await a.wait_for_selector("#link-status:has-text('copied')")
        link = await a.evaluate("() => navigator.clipboard.readText()")
        assert link == f"http://127.0.0.1:{server.port}/r/{room_id}"

        phone = await page_at(b, server.port, errors, PHONE, path=f"/r/{room_id}",
                              wait="#room[data-seat='1']")
        assert await room_attr(phone, "room") == room_id
        await phone.wait_for_selector("#room[data-status='playing']")  # full: it started
        await phone.reload()
        await phone.wait_for_selector(f"#room[data-room='{room_id}'][data-seat='1']")
        assert await phone.evaluate("() => location.pathname") == f"/r/{room_id}"
        await phone.screenshot(path=shot("room-link-phone"), full_page=True)

        # The room is full and playing: its link watches it; a reload watches again.
        late = await page_at(b, server.port, errors, path=f"#/r/{room_id}",
                             wait="#room[data-seat='']")
        assert await room_attr(late, "room") == room_id
        await late.reload()
        await late.wait_for_selector(f"#room[data-room='{room_id}'][data-seat='']")
        # Leaving puts the lobby's address back.
        await late.click("#leave")
        await late.wait_for_selector("#lobby")
        assert await late.evaluate("() => location.pathname") == "/"

        # A private room: its link is its join code.
        host = await page_at(b, server.port, errors)
        private = await create_room(host, seats=3, private=True)
        code = await host.inner_text("#room-code")
        await host.wait_for_function("c => location.pathname === '/join/' + c", arg=code)
        guest = await page_at(b, server.port, errors, PHONE, path=f"/join/{code}",
                              wait="#room[data-seat='1']")
        assert await room_attr(guest, "room") == private
        await guest.reload()
        await guest.wait_for_selector(f"#room[data-room='{private}'][data-seat='1']")
        bad = await page_at(b, server.port, errors, path="/r/nosuchroom", wait="#lobby")
        assert "does not open" in await bad.inner_text("#notice")
        assert not errors, errors


# -- rules, reasons, replay -------------------------------------------------------------------

async def one_move(page: Any) -> None:
    """One legal move of the page's seat with the app's own act (end the turn, pass, or
    discard when it must), and wait for the state it makes."""
    old = await room_attr(page, "stateId")
    await page.evaluate("""() => { const r = window.cardhall.room;
        const legal = r.view.legal_actions;
        const pick = legal.find(a => a[0] === 'end') || legal.find(a => a[0] === 'pass')
          || legal.find(a => a[0] === 'discard') || legal.find(a => a[0] !== 'resign');
        if (pick) r.act(pick); }""")
    await page.wait_for_function(
        "old => { const r = document.querySelector('#room');"
        " return r.dataset.stateId !== old || r.dataset.over === '1'; }", arg=old)


async def play_to_the_end(page: Any, server: Server, room_id: str, limit: float = 120) -> None:
    """Play the page's seat until the game is over, with the app's own act (the moves are
    not what is tested here): ends turns, discarding when it must."""
    deadline = time.monotonic() + limit
    while await room_attr(page, "over") != "1":
        assert time.monotonic() < deadline, "the game did not end in time"
        if await room_attr(page, "mine") == "1":
            await one_move(page)
        else:
            await asyncio.sleep(0.05)


@pytest.mark.slow
@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
async def test_replay_viewer_steps_to_the_end_and_back(viewport: dict[str, int]) -> None:
    """A finished game (Skipper solo, turn limit 3): the game-over panel says why it ended;
    its Replay opens the viewer at the last state, which matches the final table the page was
    shown (its cards, and the view's hash the page kept), with the deal verified by WebCrypto;
    stepping back shows the earlier states and their events, forward again the end; "My
    games" in the lobby lists the game and replays it after the room was left."""
    errors: list[str] = []
    async with serving(MemoryStore, msg_rate=None) as make, browser() as b:
        server = await make()
        page = await page_at(b, server.port, errors, viewport)
        room_id = await create_room(page, mode="solo", seats=None,
                                    options={"opt-turn_limit": "3"})
        await page.wait_for_selector("#room[data-status='playing']")
        await play_to_the_end(page, server, room_id)
        room = server.lobby.rooms[room_id]
        final = room.table.game.state_id
        await page.wait_for_selector("#game-over #replay-open")
        assert await page.inner_text("#outcome-why") == \
            "You lost: the turn limit was reached (K7)."
        table_cards = sorted(await page.eval_on_selector_all(
            "#room .table [data-card]", "els => els.map(e => e.dataset.card)"))

        await page.click("#replay-open")
        await page.wait_for_selector(f"#replay[data-state-id='{final}']")
        await page.wait_for_selector("#final-match")
        assert await page.inner_text("#final-match") == "The replay ends at the view you saw."
        await page.wait_for_selector("#deal-result[data-ok='true']")
        assert "Deal verified" in await page.inner_text("#deal-result")
        replay_cards = sorted(await page.eval_on_selector_all(
            "#replay .table [data-card]", "els => els.map(e => e.dataset.card)"))
        assert replay_cards == table_cards
        await page.screenshot(path=shot(f"replay-end-{viewport['width']}"), full_page=True)
        if viewport is PHONE:
            await no_sideways_scroll(page, "#replay .replay-controls")
            assert not await small_targets(page, "#replay .replay-controls")

        await page.click("#replay-back")
        await page.wait_for_selector(f"#replay[data-state-id='{final - 1}']")
        assert await page.inner_text("#replay-position") == f"state {final - 1} of {final}"
        assert await page.inner_text("#replay-events") != ""
        await page.click("#replay-first")
        await page.wait_for_selector("#replay[data-state-id='0']")
        assert await page.inner_text("#replay-events") == "The deal."
        await page.click("#replay-last")
        await page.wait_for_selector(f"#replay[data-state-id='{final}']")
        assert sorted(await page.eval_on_selector_all(
            "#replay .table [data-card]", "els => els.map(e => e.dataset.card)")) == table_cards
        await page.click("#replay-close")
        await page.wait_for_selector("#game-over")

        # My games: the game is listed in the lobby, and replays from there.
        await page.click("#game-over button.secondary:has-text('lobby')")
        await page.wait_for_selector(f"#my-games li[data-room='{room_id}']")
        assert "turn limit" in await page.inner_text(f"#my-games li[data-room='{room_id}']")
        await page.click(f"#my-games li[data-room='{room_id}'] button.replay-open")
        await page.wait_for_selector(f"#replay[data-state-id='{final}']")
        await page.wait_for_selector("#deal-result[data-ok='true']")
        assert not errors, errors


async def test_rules_pages_are_served_from_docs_rules(server: Server) -> None:
    """``/rules/GAME.html`` is docs/rules/GAME.md as HTML (raw HTML off), for every game;
    an unknown game is 404; room links serve the app."""
    from pathlib import Path

    from cardhall import games
    from cardhall.server.web import rules_html

    from .test_web import http_get

    root = Path(__file__).resolve().parents[2]
    for game in games.names():
        status, headers, body = await http_get(server.port, f"/rules/{game}.html")
        assert status == 200 and headers["content-type"] == "text/html; charset=utf-8"
        text = (root / "docs" / "rules" / f"{game}.md").read_text(encoding="utf-8")
        assert body.decode() == rules_html(text) and body.startswith(b"<h1>")
    assert (await http_get(server.port, "/rules/nosuch.html"))[0] == 404
    assert (await http_get(server.port, "/rules/../../pyproject.toml"))[0] == 404
    for path in ("/r/ab12cd34", "/join/KQ7X", "/r/ab12cd34/"):
        status, _, body = await http_get(server.port, path)
        assert status == 200 and b'<script type="module" src="/js/app.js">' in body
    assert "<img" not in rules_html('<img src=x onerror="alert(1)">')


def test_rules_ship_in_the_wheel() -> None:
    """The rules pages ship with the server package (server/rules links to docs/rules)."""
    import tomllib
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    config = tomllib.loads((root / "pyproject.toml").read_text())
    assert "rules/*.md" in config["tool"]["setuptools"]["package-data"]["cardhall.server"]
    assert (root / "server" / "rules").resolve() == (root / "docs" / "rules").resolve()


@pytest.mark.slow
async def test_how_to_play_auction_help_and_reasons() -> None:
    """The table's "How to play" shows the game's rules page; where a player bids, the
    auction is explained (the rules page's own paragraph); a timed-out turn is told with its
    reason; the reasons of a Skipper loss come from the engine's event."""
    errors: list[str] = []
    async with serving(MemoryStore, msg_rate=None) as make, browser() as b:
        server = await make()
        a = await page_at(b, server.port, errors)
        await a.click("#rules-panel button[data-game='shah']")
        await a.wait_for_selector("dialog#rules[open] h1:has-text('Shah')")
        await a.keyboard.press("Escape")
        await a.wait_for_selector("dialog#rules", state="detached")
        room_id = await create_room(a, seats=2, options={"ropt-turn_seconds": "20"})
        await a.click("#how-to-play")
        await a.wait_for_selector("dialog#rules[open] h2:has-text('Multiplayer')")
        assert "In an auction" in await a.inner_text("dialog#rules")
        await a.click("#rules-close")
        c = await page_at(b, server.port, errors, PHONE, path=f"/r/{room_id}",
                          wait="#room[data-status='playing'][data-seat='1']")
        # Seat 0 auctions a card: seat 1 bids, with the auction explained where it bids.
        await a.wait_for_selector("#room[data-mine='1'] #hand button.card")
        hand = a.locator("#hand button.card")
        for i in range(await hand.count()):
            await hand.nth(i).click()
            if await a.locator(".selection button.auction").count():
                await a.click(".selection button.auction")
                break
            await a.locator(".selection button.secondary").click()
        await c.wait_for_selector("#room[data-mine='1'] #auction-help")
        await c.click("#auction-help summary")
        text = await c.inner_text("#auction-help")
        assert "In an auction the card is shown" in text
        await c.screenshot(path=shot("auction-help-phone"), full_page=True)
        await no_sideways_scroll(c, "#auction-help")
        # Nobody bids: seat 1's bid timer runs out, and the pages say so.
        room = server.lobby.rooms[room_id]
        room.table._deadlines = {s: time.time() for s in room.table.deadlines}
        room.post(room._on_timer)
        await a.wait_for_function("() => document.querySelector('#log').textContent"
                                  ".includes('ran out of time')")
        said = await a.evaluate("""async () => {
            const { explainEnd } = await import('/js/help.js');
            return explainEnd('skipper', {winner: null, reason: 'unwinnable', scores: [7]}, 0,
                              [{type: 'unwinnable', seat: 0, why: 'gone', stack: 'H'}]); }""")
        assert said == ("You lost: every card that could finish hearts is gone, so hearts can "
                        "never finish (K7).")
        assert not errors, errors


# -- sound and motion -------------------------------------------------------------------------

SOUND_PROBE = """{ window.__tones = 0;
  const Real = window.AudioContext;
  window.AudioContext = class extends Real {
    createOscillator() { const o = super.createOscillator(); const start = o.start.bind(o);
      o.start = (...a) => { window.__tones += 1; return start(...a); }; return o; } }; }"""


@pytest.mark.slow
async def test_sounds_are_off_by_default_and_cards_move_unless_reduced_motion() -> None:
    """No sound plays until the player turns sounds on (kept in localStorage); then a turn
    and the game's end play tones (WebAudio oscillators). Cards get a short transition,
    none under prefers-reduced-motion; keyboard focus and aria labels are untouched."""
    errors: list[str] = []
    async with serving(MemoryStore, msg_rate=None) as make, browser() as b:
        server = await make()
        ctx = await b.new_context(viewport=DESKTOP)
        await ctx.add_init_script(SOUND_PROBE)
        page = await ctx.new_page()
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        await page.goto(f"http://127.0.0.1:{server.port}/")
        await page.wait_for_selector("#create-form")
        assert await page.get_attribute("#sound-toggle", "aria-checked") == "false"
        room_id = await create_room(page, mode="solo", seats=None,
                                    options={"opt-turn_limit": "2"})
        await page.wait_for_selector("#room[data-mine='1']")
        await one_move(page)
        await asyncio.sleep(0.3)
        assert await page.evaluate("() => window.__tones") == 0  # off by default
        await page.click("#sound-toggle")
        assert await page.get_attribute("#sound-toggle", "aria-checked") == "true"
        assert await page.evaluate("() => localStorage.getItem('cardhall.sound')") == "on"
        tones = await page.evaluate("() => window.__tones")
        assert tones >= 1  # the toggle plays a taste
        await play_to_the_end(page, server, room_id)
        await page.wait_for_function("t => window.__tones > t", arg=tones)  # game over

        moving = """() => { const e = document.createElement('span');
            e.className = 'card moving'; document.body.append(e);
            const d = getComputedStyle(e).transitionDuration; e.remove(); return d; }"""
        assert await page.evaluate(moving) == "0.18s"
        calm = await b.new_context(viewport=DESKTOP, reduced_motion="reduce")
        still = await calm.new_page()
        await still.goto(f"http://127.0.0.1:{server.port}/")
        await still.wait_for_selector("#create-form")
        assert await still.evaluate(moving) == "0s"
        # Motion: a card that changes place starts where it was (a translate) and glides.
        moved = await page.evaluate("""async () => {
            const { measure, animate } = await import('/js/motion.js');
            const root = document.createElement('div');
            root.innerHTML = '<div class="table"><span class="card" data-card="AS"></span></div>';
            document.body.append(root);
            const before = measure(root);
            root.querySelector('.table').style.paddingLeft = '200px';
            const again = document.createElement('span');
            again.className = 'card'; again.dataset.card = 'AS';
            root.querySelector('.table').replaceChildren(again);
            animate(root, before);
            const moving = again.classList.contains('moving');
            root.remove(); return moving; }""")
        assert moved is True
        assert not errors, errors
