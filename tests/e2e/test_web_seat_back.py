"""The web client comes back to its room, in Debian's Chromium driven by Playwright (at
desktop and phone sizes). When the server took the page for gone while its socket stayed
open (protocol/README.md "Reconnection", step 6: in a cluster, the room's server lost
contact with the page's server), told so by a ``seat_event dropped`` for its own seat or,
that notice lost, by its next action refused ``room/not_seated``, it sends ``resume`` with
its seat token on the same connection (and the action once more). A resume or a spectate
refused for now (``server/unavailable``) is asked again. A host's Start takes its dropped
seat back (the server does). A seat another tab took keeps its saved token, and the tab
that lost it does not take it back."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from cardhall import protocol as p
from cardhall.client.client import Client
from cardhall.server.app import Server
from cardhall.server.room import Room
from cardhall.server.store.memory_store import MemoryStore

from ..conftest import serving
from ..room_harness import Flaky, Hiccup
from .test_web import browser, room_attr
from .test_web_people import DESKTOP, PHONE, page_at
from .test_web_room import seed_with_a_play, solo_table, waiting_table

pytestmark = pytest.mark.slow


async def drop_the_page(server: Server, page: Any) -> tuple[Room, Any]:
    """Take the page's connection for gone in its room, as a room's server does for the
    clients of a server it lost contact with: the seat is held for its grace window, and the
    connection stays open. Returns (the room, the page's server-side connection)."""
    room_id = await room_attr(page, "room")
    assert room_id
    room = server.lobby.rooms[room_id]
    (conn,) = room.table.members
    await room.submit(lambda: room.apply(room.table.drop(conn)))
    holder = room.table.seats[0]
    assert holder is not None and holder.conn is None and holder.grace_until
    return room, conn


async def seated_again(room: Room, conn: Any, seconds: float = 10.0) -> None:
    """Until ``conn`` holds seat 0 of ``room`` again with no grace window left (fails after
    ``seconds``)."""
    async with asyncio.timeout(seconds):
        while True:
            holder = room.table.seats[0]
            if holder is not None and holder.conn is conn and holder.grace_until is None:
                return
            await asyncio.sleep(0.05)


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
async def test_a_page_told_its_seat_was_dropped_sits_again_and_plays_on(
        viewport: dict[str, int]) -> None:
    """The page hears ``seat_event dropped`` for its own seat on its open connection: it
    resumes the seat on that connection (the room holds it again, no grace window left), and
    a card played afterwards lands on its stack."""
    seed, card, suit = seed_with_a_play()
    async with solo_table(seed, viewport) as (server, page):
        room, conn = await drop_the_page(server, page)
        conn.send(p.SeatEvent(room=room.id, seat=0, event="dropped"))
        await seated_again(room, conn)
        await page.wait_for_function(
            "() => { const r = window.cardhall.room; return r && r.seat === 0"
            " && r.view.room.players[0].connected; }")
        before = room.table.game.state_id
        await page.click(f"#hand button[data-card='{card}']")
        await page.click(f".seat.mine [data-stack='{suit}'].highlight")
        await page.wait_for_selector(f".seat.mine [data-stack='{suit}'][data-card='{card}']")
        assert room.table.game.state_id == before + 1


async def test_an_action_refused_not_seated_takes_the_seat_back_and_goes_again() -> None:
    """The notice never came: the page's next action is refused ``room/not_seated``. The
    page resumes the seat, sends the action once more, and it is applied; no error shows."""
    seed, card, suit = seed_with_a_play()
    async with solo_table(seed) as (server, page):
        room, conn = await drop_the_page(server, page)
        before = room.table.game.state_id
        await page.click(f"#hand button[data-card='{card}']")
        await page.click(f".seat.mine [data-stack='{suit}'].highlight")
        await page.wait_for_selector(f".seat.mine [data-stack='{suit}'][data-card='{card}']")
        assert room.table.game.state_id == before + 1
        holder = room.table.seats[0]
        assert holder is not None and holder.conn is conn and holder.grace_until is None
        assert await page.evaluate("() => window.cardhall.room.error") == ""


async def test_a_chat_line_refused_not_seated_takes_the_seat_back_and_goes_again() -> None:
    """The notice never came, and the player's next request is a chat line: refused
    ``room/not_seated``, the page resumes the seat and sends the line once more; it is
    shown, and no error is."""
    async with waiting_table() as (server, page, room_id):
        room, conn = await drop_the_page(server, page)
        await page.fill("#chat-input", "still here")
        await page.press("#chat-input", "Enter")
        await page.wait_for_selector("#chat-players li[data-n]:has-text('still here')")
        await seated_again(room, conn)
        assert room.id == room_id
        assert await page.inner_text("#chat-error") == ""


async def test_a_seat_taken_back_while_the_store_refuses_for_a_moment_is_asked_again() -> None:
    """The page takes its seat back while the store refuses the seat's write once (a
    Sentinel failover): the resume is answered ``server/unavailable``, the page says the
    server is busy and asks again, and it sits in its seat once more."""
    seed, _, _ = seed_with_a_play()
    store = Flaky(creates=0, seats=0)
    async with solo_table(seed, store=lambda: store) as (server, page):
        room, conn = await drop_the_page(server, page)
        store.seats = 1
        conn.send(p.SeatEvent(room=room.id, seat=0, event="dropped"))
        notice = page.locator("#notice", has_text="busy for a moment (server/unavailable)")
        await notice.wait_for(timeout=10_000)
        await seated_again(room, conn)
        assert store.seats == 0  # refused once
        await page.wait_for_function(
            "() => { const r = window.cardhall.room; return r && r.seat === 0"
            " && r.view.room.players[0].connected; }")


async def test_a_host_whose_drop_notice_was_lost_starts_and_plays() -> None:
    """The page hosts a waiting room; its seat is dropped while its connection stays open,
    and the notice never comes. Its Start takes the seat back (the server's part: a start
    from the seat's own session) and the page plays the started game from its seat: its hand
    shows, and no error does (before, the game started without it)."""
    async with waiting_table() as (server, page, room_id):
        room, conn = await drop_the_page(server, page)
        await page.click("#start")
        await page.wait_for_selector(f"#room[data-room='{room_id}'][data-status='playing'] #hand")
        await seated_again(room, conn)
        assert await page.evaluate("() => window.cardhall.room.error") == ""


async def connection_of(server: Server, page: Any) -> Any:
    """The server's connection of ``page``'s current session."""
    return server.sessions[await page.evaluate("() => window.cardhall.session.welcome.session")]


async def reconnected(server: Server, page: Any) -> None:
    """Close ``page``'s connection from the server (1001) and wait until the page is
    connected again: on a new session, and open.

    The wait is for that lasting change, polled on a timer every 100 ms, not for the page's
    passing ``reconnecting`` state: a page in the background, or on a loaded machine, may
    run no animation frame while it lasts (Playwright's default polling), and the wait would
    miss it."""
    before = await page.evaluate("() => window.cardhall.session.welcome.session")
    server.sessions[before].ws.close(1001, "going away")
    await page.wait_for_function(
        "old => { const s = window.cardhall.session; return s.welcome"
        " && s.welcome.session !== old && document.body.dataset.conn === 'open'; }",
        arg=before, polling=100)


async def test_a_second_tab_takes_the_seat_and_keeps_it_across_reconnections() -> None:
    """A second tab of the same browser (the same saved seat) takes the seat: the first tab,
    in the background, is told ``left`` and goes to the lobby, but the saved seat token
    stays, for it is the second tab's too. The second tab's connection then drops, and the
    tab resumes its seat (before, the first tab had deleted the token, and the second tab
    fell to the lobby); the first tab's drops too, and it stays in the lobby rather than
    take the seat back."""
    seed, _, _ = seed_with_a_play()
    async with solo_table(seed) as (server, first):
        room_id = await room_attr(first, "room")
        # The first tab in the background: its frames are handled late (timers of a
        # background tab are throttled), after the second tab saved the seat.
        await first.evaluate("() => { const s = window.cardhall.session;"
                             " const receive = s._receive.bind(s);"
                             " s._receive = (data) => setTimeout(() => receive(data), 500); }")
        second = await first.context.new_page()
        await second.goto(first.url)
        await second.wait_for_selector(f"#room[data-room='{room_id}'][data-seat='0']")
        await first.wait_for_selector("#lobby")
        assert "no longer in that room" in await first.inner_text("#notice")
        saved = await second.evaluate("() => JSON.parse(localStorage.getItem('cardhall.seat'))")
        assert saved is not None and saved["room"] == room_id
        room = server.lobby.rooms[room_id]
        await reconnected(server, second)
        await second.wait_for_selector(f"#room[data-room='{room_id}'][data-seat='0']")
        await seated_again(room, await connection_of(server, second))
        await reconnected(server, first)
        await first.wait_for_selector("#lobby")
        await asyncio.sleep(0.5)  # time a resume would take, to be sure none went out
        await seated_again(room, await connection_of(server, second), 0.5)
        assert await first.locator("#room").count() == 0


async def test_a_watcher_refused_for_now_after_a_reconnection_is_asked_again(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A page watching a room reconnects, and its first ``spectate`` on the new connection
    is refused ``server/unavailable`` (the room moving between servers): the page says the
    server is busy, asks again and watches the room (before, it fell to the lobby)."""
    refusal = Hiccup(monkeypatch, p.Spectate)
    errors: list[str] = []
    async with serving(MemoryStore, msg_rate=None) as make, browser() as b:
        server = await make()
        async with Client(server.url) as host:
            room_id = (await host.create_room("skipper", mode="multi", seats=2)).room
            await host.join(room_id)
            page = await page_at(b, server.port, errors)
            await page.evaluate("room => window.cardhall.spectate(room)", room_id)
            await page.wait_for_selector(f"#room[data-room='{room_id}'][data-seat='']")
            refusal.before.update(server.sessions)
            await reconnected(server, page)
            notice = page.locator("#notice", has_text="busy for a moment (server/unavailable)")
            await notice.wait_for(timeout=10_000)
            await page.wait_for_selector(f"#room[data-room='{room_id}'][data-seat='']")
            assert refusal.hits == 1
    assert not errors, errors


async def test_a_resume_left_unanswered_after_a_reconnection_is_asked_again(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The page reconnects and resumes its seat; the first ``resume`` is never answered (sent
    to a room's server that stalled while another took the room over). After the page's
    wait for a reply (``replyMs``, shortened here) it says so, asks again, and sits in its
    seat once more (before, it waited for that answer as long as the connection lasted)."""
    seed, _, _ = seed_with_a_play()
    lost = Hiccup(monkeypatch, p.Resume, unanswered=True)
    async with solo_table(seed) as (server, page):
        room = server.lobby.rooms[await room_attr(page, "room")]
        await page.evaluate("() => { window.cardhall.replyMs = 500; }")
        lost.before.update(server.sessions)
        await reconnected(server, page)
        notice = page.locator("#notice", has_text="did not answer (request/timeout)")
        await notice.wait_for(timeout=10_000)
        await seated_again(room, await connection_of(server, page))
        assert lost.hits == 1
        await page.wait_for_function(
            "() => { const r = window.cardhall.room; return r && r.seat === 0"
            " && r.view.room.players[0].connected; }", polling=100)
