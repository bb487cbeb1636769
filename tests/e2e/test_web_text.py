"""Words a player reads (issue #44, items 3-9), in Debian's Chromium driven by Playwright (the
harness of tests/e2e/test_web.py): game-over summaries, status bars and log lines without raw
values, one name for each seat, the hint when no card can be played, the account pop-overs,
the game-over box without card motion, the leaderboards' texts and the chat's length limit.
Most checks call the page's own modules (``import()`` in the page) on views the engines make,
so each is quick and needs no whole game; each failed on the code before its fix.
"""

from __future__ import annotations

from typing import Any

import pytest

from cardhall.games import create
from cardhall.server.store.memory_store import MemoryStore

from ..conftest import serving
from .test_web import browser
from .test_web_people import DESKTOP, PHONE, page_at

pytestmark = pytest.mark.slow

#: JavaScript: ``[module path, function name, ...arguments]`` -> the function's result; an
#: argument ``WHO`` is the seat-naming function (seat 3 -> "Seat3").
CALL = """async ([path, fn, ...args]) => {
    const m = await import(path);
    return m[fn](...args.map((a) => a === 'WHO' ? (s) => `Seat${s}` : a)); }"""
WHO = "WHO"
#: JavaScript: ``[module path, view, legal actions]`` -> the text of the table it draws.
#: A renderer returns a Preact element (server/static/js/renderers.js): drawn into a <div>
#: (``box``) by Preact.
DRAW = """async ([path, view, legal]) => {
    const m = await import(path);
    const { html, render } = await import('/js/ui.js');
    const ui = { seat: 0, view, selected: null, select() {}, marks: [], toggle() {},
                 act() {}, seatName: (s) => `Seat${s}`, handled() {}, legal,
                 button: (a, label) => html`<button>${label}</button>` };
    const box = document.createElement('div');
    render(m.render(view, ui), box);
    return box.textContent; }"""


def played(game: str, moves: int | None, **options: Any) -> Any:
    """A solo ``game`` (seed 5) after ``moves`` first-listed moves then a resignation, or
    played to its end (``moves`` None) by always taking the first move listed."""
    g = create(game, {"seed": 5, **options}, 1)
    n = 0
    events: list[dict[str, Any]] = []
    while not g.over and n < 3000:
        legal = g.legal_actions(0)
        action = legal[-1] if moves is not None and n >= moves else legal[0]
        events += g.apply(0, action)
        n += 1
    return g, events


async def page_of(b: Any, port: int, errors: list[str],
                  viewport: dict[str, int] = DESKTOP) -> Any:
    return await page_at(b, port, errors, viewport)


# -- item 3: broken or raw text -------------------------------------------------------------

async def test_game_over_texts_and_status_bars_read_as_words() -> None:
    """Thirty-Six's end names no "(null)" and says how many points win; its commit is a
    sentence; ShuffleJack's resigned game shows its score; Skipper's race names its reason in
    words; Shop's status bar is no debug line."""
    errors: list[str] = []
    async with serving(MemoryStore, msg_rate=None) as make, browser() as b:
        server = await make()
        page = await page_of(b, server.port, errors)
        ts = "/js/games/thirtysix.js"
        g, events = played("thirtysix", None)
        view = g.view(0)
        assert view["enemy_total"] is None  # the end of the game: no ENEMY cards shown
        drawn = await page.evaluate(DRAW, [ts, view, []])
        assert "null" not in drawn and "undefined" not in drawn, drawn
        assert "/36" not in drawn and "37 to win" in drawn, drawn
        text = await page.evaluate(CALL, [ts, "describeOutcome", g.outcome()])
        assert "You lost" in text and "null" not in text, text
        commit = next(e for e in events if e["type"] == "commit")
        line = await page.evaluate(CALL, [ts, "describeEvent", commit, WHO])
        assert "result" not in line and "enemy total" not in line, line
        assert line.startswith("Committed") and str(commit["total"]) in line, line

        sj, _ = played("shufflejack", 3)
        text = await page.evaluate(CALL, ["/js/games/shufflejack.js", "describeOutcome",
                                          sj.outcome()])
        assert "score ." not in text and "score 0" in text.lower(), text

        race = {"winner": 3, "reason": "completed", "scores": [1, 0, 2, 4]}
        text = await page.evaluate(CALL, ["/js/games/skipper.js", "describeOutcome", race, WHO,
                                          {"mode": "multi"}])
        assert "(completed)" not in text and "Seat3 won" in text, text
        assert "all four stacks" in text, text

        shop = create("shop", {"seed": 5}, 1)
        drawn = await page.evaluate(DRAW, ["/js/games/shop.js", shop.view(0),
                                           shop.legal_actions(0)])
        for raw in ("phase shortcut", "lit needed", "moves 0/"):
            assert raw not in drawn, drawn
        assert "52 cards in the stock" in drawn and "7 candles to light" in drawn, drawn
        shah = create("shah", {"seed": 5}, 1)
        drawn = await page.evaluate(DRAW, ["/js/games/shah.js", shah.view(0),
                                           shah.legal_actions(0)])
        assert "phase " not in drawn and "cards in the pack" in drawn, drawn
        assert not errors, errors


# -- item 4: one name for each seat ---------------------------------------------------------

LOG = "() => [...document.querySelectorAll('#log li')].map((e) => e.textContent)"


async def test_log_and_table_name_seats_the_same_way() -> None:
    """The host's log says "Bob sat down." (the seat event's name); a server bot is "Bot 2" at
    the table (not "seat 2 (bot)"); the page's own moves read "You ...", never "Ann (you)";
    My games numbers the seat as the table does (seat 0, not "seat 1")."""
    from .test_web import Player
    from .test_web_people import create_room, set_name
    errors: list[str] = []
    async with serving(MemoryStore, msg_rate=None) as make, browser() as b:
        server = await make()
        ann = await page_of(b, server.port, errors)
        await set_name(ann, "Ann")
        room_id = await create_room(ann, seats=3)
        bob = await page_of(b, server.port, errors)
        await set_name(bob, "Bob")
        await bob.click("#refresh")
        await bob.click(f"tr[data-room='{room_id}'] button.join")
        await bob.wait_for_selector("#room[data-seat='1']")
        await ann.wait_for_function(
            "() => [...document.querySelectorAll('#log li')].some("
            "(e) => e.textContent.includes('sat down'))")
        lines = await ann.evaluate(LOG)
        assert "Bob sat down." in lines, lines
        assert not any("seat 1 sat down" in line for line in lines), lines
        await ann.click("#start")
        await ann.wait_for_selector("#room[data-status='playing']")
        await ann.wait_for_selector("#room[data-mine='1']")
        await Player(ann, 0).act()  # one move by clicking
        await ann.wait_for_function(
            "() => [...document.querySelectorAll('#log li')].some("
            "(e) => /^You (played|discarded|put|drew)/.test(e.textContent))")
        seats = await ann.eval_on_selector_all(".seats .seat-name",
                                               "els => els.map((e) => e.textContent)")
        assert seats == ["Ann (you)", "Bob", "Bot 2"], seats
        lines = await ann.evaluate(LOG)
        assert not any("(you)" in line for line in lines), lines
        assert any(line.startswith("You ") and "sit at seat" not in line
                   for line in lines), lines
        await ann.click("#account-games")
        await ann.wait_for_selector(f"#my-running li[data-room='{room_id}']")
        running = await ann.inner_text(f"#my-running li[data-room='{room_id}']")
        assert "seat 0" in running, running
        assert not errors, errors


# -- item 5: what to do when no card can be played ------------------------------------------

#: JavaScript: ``[module path, view, legal actions]`` -> the table drawn into ``#probe``.
MOUNT = DRAW.replace("return box.textContent;",
                     "document.querySelector('#probe')?.remove(); box.id = 'probe';"
                     " document.body.append(box); return box.textContent;")


@pytest.mark.parametrize("mode", ["solo", "multi"])
async def test_skipper_says_what_to_do_when_no_card_can_be_played(mode: str) -> None:
    """Seed 1 deals seat 0 no card that plays on a stack: the hand says so, names the way on
    (discard, or auction in multi) and highlights the cards that can go."""
    g = create("skipper", {"seed": 1, "mode": mode}, 1 if mode == "solo" else 2)
    legal = g.legal_actions(0)
    assert not [a for a in legal if a[0] == "play"] and [a for a in legal if a[0] == "discard"]
    errors: list[str] = []
    async with serving(MemoryStore, msg_rate=None) as make, browser() as b:
        server = await make()
        page = await page_of(b, server.port, errors)
        view = {**g.view(0), "room": {"status": "playing", "players": []}}
        await page.evaluate(MOUNT, ["/js/games/skipper.js", view, legal])
        hint = page.locator("#probe #no-play-hint")
        assert await hint.count() == 1
        text = await hint.inner_text()
        assert "No card" in text and "discard" in text.lower(), text
        assert ("auction" in text.lower()) == (mode == "multi"), text
        discardable = sorted({a[1] for a in legal if a[0] == "discard"})
        lit = await page.eval_on_selector_all("#probe #hand .card.highlight",
                                              "els => els.map((e) => e.dataset.card)")
        assert sorted(lit) == discardable, (lit, discardable)
        assert not errors, errors


# -- item 6: the account pop-overs ----------------------------------------------------------

#: JavaScript: whether the account panel and the room list overlap on the screen.
OVERLAP = """() => { const a = document.querySelector('#account-panel');
    const r = document.querySelector('.rooms-panel');
    if (!a || !r) return null;
    const p = a.getBoundingClientRect(), q = r.getBoundingClientRect();
    return p.left < q.right && q.left < p.right && p.top < q.bottom && q.top < p.bottom; }"""


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
async def test_account_popovers_close_on_escape_and_outside_and_cover_no_room_list(
        viewport: dict[str, int]) -> None:
    """Register, Sign in and My games each close with Escape and with a click outside them
    (a click inside keeps them open), and none lies over the room list."""
    errors: list[str] = []
    async with serving(MemoryStore, msg_rate=None) as make, browser() as b:
        server = await make()
        page = await page_of(b, server.port, errors, viewport)
        await page.wait_for_selector("#account-register")
        for button in ("#account-register", "#account-signin", "#account-games"):
            await page.click(button)
            await page.wait_for_selector("#account-panel")
            assert await page.evaluate(OVERLAP) is False, button
            await page.click("#account-panel h3, #account-panel label >> nth=0")
            assert await page.locator("#account-panel").count() == 1, button
            await page.keyboard.press("Escape")
            await page.wait_for_selector("#account-panel", state="detached")
            await page.click(button)
            await page.wait_for_selector("#account-panel")
            await page.click(".rooms-panel h2")
            await page.wait_for_selector("#account-panel", state="detached")
        assert not errors, errors


# -- item 7: no card flies when the game-over box appears -----------------------------------

#: JavaScript: count the cards that start moving from now on (``window.__moving``).
WATCH_MOTION = """() => { window.__moving = 0;
    new MutationObserver((records) => { for (const r of records)
        if (r.target.classList && r.target.classList.contains('moving')) window.__moving++; })
      .observe(document.body, { subtree: true, attributes: true, attributeFilter: ['class'] });
  }"""


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
async def test_game_over_box_moves_no_card(viewport: dict[str, int]) -> None:
    """Resigning a ShuffleJack game shows the game-over box above the table: the table moves
    down, and its cards go with it (before, every card flew from its old place on the
    screen)."""
    errors: list[str] = []
    async with serving(MemoryStore, msg_rate=None) as make, browser() as b:
        server = await make()
        page = await page_of(b, server.port, errors, viewport)
        await page.select_option("#create-game", "shufflejack")
        await page.fill("#create-seats", "1")
        await page.click("#create-submit")
        await page.wait_for_selector("#room[data-status='playing'][data-mine='1']")
        await page.wait_for_selector("#tableau [data-card]")
        await page.evaluate(WATCH_MOTION)
        await page.click(".other-actions button:has-text('Resign')")
        await page.click("#confirm-yes")
        await page.wait_for_selector("#game-over")
        await page.wait_for_timeout(400)
        assert await page.evaluate("() => window.__moving") == 0
        # The end in words, once: no raw "game over: reason ..." log line (the engine's own
        # end event), no second line repeating the first.
        lines = await page.evaluate(LOG)
        assert not any(line.lower().startswith("game over: reason") for line in lines), lines
        why = page.locator("#outcome-why")
        assert not await why.count() or (await why.inner_text()
                                          != await page.inner_text("#outcome"))
        assert not errors, errors


# -- item 8: the leaderboards' words --------------------------------------------------------

@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
async def test_empty_boards_say_what_counts(viewport: dict[str, int]) -> None:
    """An empty ShuffleJack or Thirty-Six board says finishing a game counts (a resigned one
    not); Skipper's says winning; the words fit a phone's width."""
    errors: list[str] = []
    async with serving(MemoryStore, msg_rate=None) as make, browser() as b:
        server = await make()
        page = await page_of(b, server.port, errors, viewport)
        for game, words in (("shufflejack", "Finish"), ("thirtysix", "Finish"),
                            ("skipper", "Win")):
            await page.select_option("#board-game", game)
            await page.wait_for_function(
                "w => (document.querySelector('#board-how') || {}).textContent?.includes(w)",
                arg=words)
            text = await page.inner_text("#leaderboards")
            assert "win a solo game" not in text and "Nobody yet" in text, text
            assert ("resign" in text) == (game != "skipper"), text
            wide = await page.evaluate("() => document.documentElement.scrollWidth")
            assert wide <= viewport["width"], wide
        assert not errors, errors


# -- item 9: the chat's length limit --------------------------------------------------------

#: JavaScript: a room's chat (chat.js: its state, Chat, drawn by ChatPanel) put on the page
#: alone, redrawn as the app would (app.render).
CHAT_BOX = """async () => { const { Chat, ChatPanel } = await import('/js/chat.js');
    const { html, render } = await import('/js/ui.js');
    const host = document.createElement('div'); document.body.append(host);
    const app = { session: null, room: { roomId: 'r1', seat: 0 },
                  render() { render(html`<${ChatPanel} ...${chat.props()} />`, host); } };
    const chat = new Chat(app, 'r1'); app.render(); }"""


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
async def test_chat_shows_its_limit_as_the_player_types(viewport: dict[str, int]) -> None:
    """The chat box counts the characters typed against the limit (300); a longer line is
    kept whole (not cut without a word), marked too long, and Send waits until it fits."""
    errors: list[str] = []
    async with serving(MemoryStore, msg_rate=None) as make, browser() as b:
        server = await make()
        page = await page_of(b, server.port, errors, viewport)
        await page.evaluate(CHAT_BOX)
        await page.type("#chat-input", "hello")
        assert "5/300" in (await page.inner_text("#chat-count")).replace(" ", "")
        long = "é" * 290 + "0123456789" * 2
        await page.fill("#chat-input", long)
        assert await page.input_value("#chat-input") == long  # nothing cut
        count = page.locator("#chat-count")
        assert "310/300" in (await count.inner_text()).replace(" ", "")
        assert "over" in (await count.get_attribute("class") or "")
        assert await page.locator("#chat-send").is_disabled()
        box = await count.bounding_box()
        assert box is not None and box["x"] + box["width"] <= viewport["width"]
        await page.press("#chat-input", "Backspace")
        await page.fill("#chat-input", long[:300])
        assert not await page.locator("#chat-send").is_disabled()
        assert "over" not in (await count.get_attribute("class") or "")
        assert not errors, errors


async def test_skipper_hint_goes_once_a_card_is_discarded() -> None:
    """After a discard the turn may end: the hint is gone (End turn is the way on)."""
    g = create("skipper", {"seed": 1, "mode": "solo"}, 1)
    g.apply(0, next(a for a in g.legal_actions(0) if a[0] == "discard"))
    legal = g.legal_actions(0)
    assert any(a[0] == "end" for a in legal)
    errors: list[str] = []
    async with serving(MemoryStore, msg_rate=None) as make, browser() as b:
        server = await make()
        page = await page_of(b, server.port, errors)
        view = {**g.view(0), "room": {"status": "playing", "players": []}}
        await page.evaluate(MOUNT, ["/js/games/skipper.js", view, legal])
        assert await page.locator("#probe #no-play-hint").count() == 0
        assert await page.locator("#probe #hand .card.highlight").count() == 0
        assert not errors, errors
