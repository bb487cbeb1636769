"""Rated rooms on a server (issue #45 items 1 and 2), on every store: a room created with the
room option ``rated`` is public, of a rated game type, one seat per account, and forfeits an
abandoned seat; its finished game moves its players' ratings once (reported again, as after
a takeover, it changes nothing); abandoning is a loss; ``GET /ratings`` lists them, guests
left out when the operator asks for registered accounts only; ``GET /ratings?key=K`` answers
the ratings of given keys whatever their rank and the board setting.

On the old code ``create_room`` with ``rated`` answers ``lobby/bad_options`` (no such
option) and nothing is rated.
"""

from __future__ import annotations

import asyncio
import json
import urllib.request
from typing import Any

import pytest
from cardhall.client.client import Client, ServerError
from cardhall.server import rated
from cardhall.server.app import Server
from cardhall.server.ratings import Entry, Rating, board_id

from ..conftest import ServerFactory
from .test_visibility import wait_status

A, B = "a" * 32, "b" * 32
BOARD = board_id("skipper", "multi")
RATED = {"rated": True}


async def ratings_of(server: Server, keys: list[str], seconds: float = 10.0
                     ) -> dict[str, Rating]:
    """The ratings of ``keys`` once all are rated (polls: rating runs in the background)."""
    for _ in range(int(seconds / 0.02)):
        got = await server.ratings.ratings(BOARD, keys)
        if len(got) == len(keys):
            return got
        await asyncio.sleep(0.02)
    raise AssertionError(f"never rated: {keys}")


async def accounts(host: Client, guest: Client) -> tuple[str, str]:
    """The account ids of two signed-in clients."""
    assert host.account is not None and guest.account is not None
    return host.account.account, guest.account.account


async def test_a_rated_game_moves_ratings_once(make_server: ServerFactory) -> None:
    server = await make_server()
    async with Client(server.url, guest=A) as host, Client(server.url, guest=B) as guest:
        created = await host.create_room("skipper", mode="multi", seats=2, options=RATED)
        room = created.room
        await host.join(room)
        await guest.join(room)
        await wait_status(host, room, "playing")
        live = server.lobby.rooms[room]
        assert live.table.settings["rated"] and live.table.settings["on_abandon"] == "forfeit"
        # The room facts say it is rated (clients show the seats' ratings).
        assert host.views[room]["room"]["rated"] is True
        a, b = await accounts(host, guest)
        assert [q["key"] for q in host.views[room]["room"]["players"]] == [a, b]
        await host.act(room, ["resign"])
        await wait_status(guest, room, "finished")
        a, b = await accounts(host, guest)
        got = await ratings_of(server, [a, b])
        assert got[b].mu > 25.0 > got[a].mu and got[a].games == got[b].games == 1
        # The finished game reported again (a takeover's process finishing it): no change.
        game = rated.rated_game(live, rated.SERVER_BOT)
        assert game is not None and game.ranks == (2, 1)
        assert await server.ratings.rate(game) is None
        assert await server.ratings.ratings(BOARD, [a, b]) == got


async def test_abandoning_a_rated_game_is_its_loss(make_server: ServerFactory) -> None:
    """The guest drops and its grace window ends: its seat forfeits (no bot plays on), the
    host wins, and the guest's rating falls."""
    server = await make_server()
    async with Client(server.url, guest=A) as host:
        created = await host.create_room("skipper", mode="multi", seats=2,
                                         options={**RATED, "grace_seconds": 0.1,
                                                  "on_abandon": "bot"})
        room = created.room
        await host.join(room)
        guest = Client(server.url, guest=B, reconnect=False)
        await guest.connect()
        await guest.join(room)
        assert guest.account is not None
        b = guest.account.account
        await wait_status(host, room, "playing")
        await guest.close()
        await wait_status(host, room, "finished")
        assert host.account is not None
        a = host.account.account
        got = await ratings_of(server, [a, b])
        assert got[a].mu > 25.0 > got[b].mu


@pytest.mark.parametrize("store_kind", ["memory"])
@pytest.mark.parametrize(("kwargs", "needle"), [
    ({"private": True}, "public"),
    ({"mode": "solo", "seats": 1}, "not rated"),
    ({"options": {**RATED, "multi_seat": True}}, "one seat"),
])
async def test_rated_rooms_refuse(make_server: ServerFactory, kwargs: dict[str, Any],
                                  needle: str) -> None:
    server = await make_server()
    args: dict[str, Any] = {"mode": "multi", "seats": 2, "options": RATED, **kwargs}
    async with Client(server.url, guest=A) as host:
        with pytest.raises(ServerError) as err:
            await host.create_room("skipper", **args)
    assert err.value.code == "lobby/bad_options" and needle in str(err.value)


def fetch(url: str) -> tuple[int, Any]:
    """GET ``url``: (status, JSON body or text)."""
    try:
        with urllib.request.urlopen(url, timeout=10) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


@pytest.mark.parametrize("store_kind", ["memory"])
async def test_the_ratings_list_over_http(make_server: ServerFactory) -> None:
    server = await make_server()
    games = [rated.RatedGame("g1", BOARD, (rated.RatedSeat("x", "Xena", guest=True),
                                           rated.RatedSeat("y", "Yann")), (1, 2))]
    for g in games:
        await server.ratings.rate(g)
    base = server.url.replace("ws://", "http://")
    status, body = await asyncio.to_thread(fetch, f"{base}/ratings?game=skipper&mode=multi")
    assert status == 200
    assert [(e["name"], e["games"], e["provisional"]) for e in body["entries"]] == [
        ("Xena", 1, True), ("Yann", 1, True)]
    assert body["entries"][0]["rating"] > body["entries"][1]["rating"]
    status, _ = await asyncio.to_thread(fetch, f"{base}/ratings?game=skipper&mode=solo")
    assert status == 404
    status, body = await asyncio.to_thread(
        fetch, f"{base}/ratings/history?game=skipper&mode=multi&account=y")
    assert status == 200 and [e["room"] for e in body["entries"]] == ["g1"]
    entry = body["entries"][0]
    assert entry["before"]["rating"] == 1500 and entry["after"]["rating"] < 1500
    server.rater.boards = "registered"
    status, body = await asyncio.to_thread(fetch, f"{base}/ratings?game=skipper&mode=multi")
    assert [e["name"] for e in body["entries"]] == ["Yann"]


@pytest.mark.parametrize("store_kind", ["memory"])
async def test_seated_players_ratings_by_key_over_http(make_server: ServerFactory,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """``GET /ratings?...&key=K`` answers the list's entries of the keys asked whatever their
    rank (beyond the list's limit) and whatever ``rated_boards`` says (a guest off a
    registered-only list), in the order asked; a key never rated is left out; bad keys are
    refused with 400. On the old code the keys are ignored: the answer is the list (its first
    entry, with the limit at 1)."""
    server = await make_server()
    await server.ratings.rate(rated.RatedGame("g1", BOARD, (
        rated.RatedSeat("top", "Topa"), rated.RatedSeat("low", "Lowe"),
        rated.RatedSeat("guest1", "Gus", guest=True)), (1, 3, 2)))
    monkeypatch.setattr(rated, "LIST_LIMIT", 1)
    base = server.url.replace("ws://", "http://") + "/ratings?game=skipper&mode=multi"
    status, body = await asyncio.to_thread(fetch, base + "&limit=1000")
    assert status == 200 and [e["key"] for e in body["entries"]] == ["top"]
    server.rater.boards = "registered"
    status, body = await asyncio.to_thread(
        fetch, base + "&key=low&key=nobody&key=guest1&key=low")
    assert status == 200, body
    assert body["board"] == BOARD and body["mode"] == "multi"
    assert [(e["key"], e["name"], e["guest"]) for e in body["entries"]] == [
        ("low", "Lowe", False), ("guest1", "Gus", True)]
    stored = await server.ratings.ratings(BOARD, ["low", "guest1"])
    assert [e["rating"] for e in body["entries"]] == [stored["low"].shown,
                                                      stored["guest1"].shown]
    assert body["entries"][0]["rating"] < 1500 and body["entries"][0]["games"] == 1
    assert set(body["entries"][0]) == set(Entry("k", "n", Rating()).record())
    status, body = await asyncio.to_thread(fetch, base + "&key=nobody")
    assert status == 200 and body["entries"] == []
    status, body = await asyncio.to_thread(fetch, base.replace("multi", "race") + "&key=low")
    assert status == 200 and body["entries"] == []
    refused = {"&key=": "key: 1 to", "&key=low&key=": "key: 1 to",
               "&key=" + "x" * (rated.MAX_KEY_LENGTH + 1): "key: 1 to",
               "".join(f"&key=k{n}" for n in range(rated.MAX_KEYS + 1)): "key: at most 16"}
    for query, needle in refused.items():
        status, text = await asyncio.to_thread(fetch, base + query)
        assert status == 400 and needle in text, (query, status, text)
    # Sixteen keys, each asked twice, are sixteen: answered.
    status, _ = await asyncio.to_thread(
        fetch, base + "".join(f"&key=k{n % 16}" for n in range(32)))
    assert status == 200
    status, _ = await asyncio.to_thread(
        fetch, base.replace("multi", "solo") + "&key=low")
    assert status == 404


def test_the_server_bots_strategy_is_the_rooms() -> None:
    from cardhall.server.room.state import BOT_STRATEGY

    assert rated.SERVER_BOT == BOT_STRATEGY


@pytest.mark.parametrize("store_kind", ["redis"])
async def test_a_game_finished_across_a_takeover_is_rated_once(
        make_server: ServerFactory) -> None:
    """The rated room's process stops mid-game; the other process of the lobby takes the
    room over as its players come back, the game ends there and is rated there, once; the
    game reported again by either process changes nothing."""
    first, second = await make_server(), await make_server()
    urls = [first.url, second.url]
    async with Client(urls, guest=A) as host, Client(urls, guest=B) as guest:
        room = (await host.create_room("skipper", mode="multi", seats=2,
                                       options=RATED)).room
        await host.join(room)
        await guest.join(room)
        await wait_status(host, room, "playing")
        await first.stop()  # its leases are given up: the room is the lobby's to take over
        for _ in range(500):
            if room in second.lobby.rooms and room in host.seats and room in guest.seats:
                break
            await asyncio.sleep(0.02)
        assert room in second.lobby.rooms
        await host.act(room, ["resign"], state_id=host.views[room]["state_id"])
        a, b = await accounts(host, guest)
        got = await ratings_of(second, [a, b])
        assert got[a].games == got[b].games == 1 and got[b].mu > got[a].mu
        finished = rated.rated_game(second.lobby.rooms[room], rated.SERVER_BOT)
        assert finished is not None
        assert await second.ratings.rate(finished) is None
        assert await second.ratings.ratings(BOARD, [a, b]) == got


@pytest.mark.parametrize("store_kind", ["memory"])
async def test_a_bot_strategy_the_game_has_not_is_refused(make_server: ServerFactory) -> None:
    server = await make_server()
    async with Client(server.url, guest=A) as host:
        with pytest.raises(ServerError) as err:
            await host.create_room("shah", options={"bot_strategy": "expert"})
        assert err.value.code == "lobby/bad_options" and "bot_strategy" in str(err.value)
        with pytest.raises(ServerError) as err:  # never a module of the server's to load
            await host.create_room("skipper", options={"bot_strategy": "os:system"})
        assert err.value.code == "lobby/bad_options"
        made = await host.create_room("skipper", mode="multi", seats=2,
                                      options={"bot_strategy": "random"})
        assert server.lobby.rooms[made.room].table.settings["bot_strategy"] == "random"
