"""Leaderboards (issues #21, #29): solo scores recorded at game over, kept per account (the
best one; shown by the account's display name), read with ``get_leaderboard``; on both
stores (``server`` runs each test twice). Players sign in as guests (a device secret per
name); a connection signed in to no account is not ranked."""

from __future__ import annotations

import asyncio
import random
from typing import Any

import pytest
import redis

from cardhall import protocol as p
from cardhall.client.bots import play_seat
from cardhall.client.client import Client, ServerError
from cardhall.games.bots import strategy
from cardhall.server import leaderboard
from cardhall.server.app import Server
from cardhall.server.accounts.identity import Account
from cardhall.server.store.redis_store import RedisStore
from cardhall.server.room import Room
from cardhall.server.phases import Phase
from cardhall.games import get

GAME_SECONDS = 120  # a greedy solo game takes well under a second; the machine is loaded


async def settle(server: Server, room_id: str) -> None:
    """Wait until the room's queued work (the score's write, posted at game over) is done."""
    room = server.lobby.rooms.get(room_id)
    if room is not None:
        await asyncio.wait_for(room.submit(lambda: None), 30)


def device(name: str) -> str:
    """The guest device secret of the player ``name`` in these tests."""
    return f"{name}-device-secret-of-the-tests"


async def player(server: Server, name: str) -> str:
    """The id of ``name``'s guest account (made now the first time), named ``name``."""
    async with Client(server.url, guest=device(name), name=name) as c:
        assert c.account is not None and c.name == name
        return c.account.account


async def play_solo(server: Server, name: str, game: str, *, mode: str | None = None,
                    options: dict[str, Any] | None = None, seed: int = 1,
                    guest: bool = True) -> tuple[str, dict[str, Any]]:
    """A solo game of ``game`` played to its end by the greedy bot strategy over a client
    signed in to ``name``'s guest account (``guest`` False: signed in to none, named
    ``name``); returns the room id and the ``game_over`` outcome once the room's queued work
    is done."""
    async with Client(server.url, guest=device(name) if guest else None, name=name) as c:
        created = await c.create_room(game, mode=mode, options=options or {})
        await c.join(created.room)
        result = await asyncio.wait_for(
            play_seat(c, created.room, 0, strategy(game, "greedy"), random.Random(seed)),
            GAME_SECONDS)
    await settle(server, created.room)
    return created.room, result.outcome


async def board(server: Server, game: str, **kw: Any) -> p.Leaderboard:
    name = kw.pop("as_name", "reader")
    async with Client(server.url, guest=device(name), name=name) as c:
        return await c.leaderboard(game, **kw)


async def accounts(server: Server, *names: str) -> dict[str, str]:
    """Accounts made straight in the server's account store, each holding its name as
    username and display name; returns their ids by name."""
    ids = {}
    for name in names:
        ids[name] = f"id-{name}"
        await server.accounts.create(Account(id=ids[name], username=name, name=name,
                                             keys=(("user", name),)))
    return ids


# -- rules (no server) -------------------------------------------------------------------


def test_which_rooms_have_a_board() -> None:
    from cardhall.games import get
    solo = get("skipper")({"mode": "solo"}, 1).options
    assert leaderboard.board_of("skipper", solo, 1) is leaderboard.boards()["skipper", "solo"]
    assert leaderboard.board_of("skipper", {**solo, "seed": 5, "turn_limit": 9}, 1) is not None
    assert leaderboard.board_of("skipper", {**solo, "hand_size": 4}, 1) is None  # Harder
    multi = get("skipper")({"mode": "multi"}, 2).options
    assert leaderboard.board_of("skipper", multi, 2) is None
    ts = get("thirtysix")({}, 1).options
    assert leaderboard.board_of("thirtysix", ts, 1).order == "desc"  # type: ignore[union-attr]
    assert leaderboard.board_of("thirtysix", {**ts, "baltimore": True}, 1) is None
    assert leaderboard.board_of("shah", get("shah")({}, 1).options, 1) is None


def test_which_outcomes_count() -> None:
    sk = leaderboard.boards()["skipper", "solo"]
    ts = leaderboard.boards()["thirtysix", leaderboard.STANDARD]
    assert leaderboard.score_of(sk, {"reason": "won", "scores": [23]}) == 23
    assert leaderboard.score_of(sk, {"reason": "turn_limit", "scores": [500]}) is None
    assert leaderboard.score_of(sk, {"reason": "resigned", "scores": [3]}) is None
    assert leaderboard.score_of(ts, {"reason": "scored 30 points, not more than 36",
                                     "scores": [30]}) == 30
    assert leaderboard.score_of(ts, {"reason": "resigned with 40 points",
                                     "scores": [40]}) is None
    assert leaderboard.score_of(ts, None) is None


def test_messages_round_trip_and_refuse_bad_fields() -> None:
    ask = p.GetLeaderboard(id=3, game="skipper", mode="solo", limit=100, around="bob")
    assert p.decode(p.encode(ask), side="client") == ask
    reply = p.Leaderboard(game="skipper", mode="solo", order="asc",
                          entries=[{"rank": 1, "name": "bob", "score": 20}], total=1,
                          you={"rank": 1, "score": 20}, re=3)
    assert p.decode(p.encode(reply), side="server") == reply
    with pytest.raises(p.BadValue):
        p.GetLeaderboard(game="skipper", limit=101)
    with pytest.raises(p.BadValue):
        p.Leaderboard(game="skipper", mode="solo", order="up")
    with pytest.raises(p.BadValue):
        p.Leaderboard(game="skipper", mode="solo", order="asc",
                      entries=[{"rank": 1, "name": "bob"}])
    with pytest.raises(p.BadType):
        p.Leaderboard(game="skipper", mode="solo", order="asc",
                      entries=[{"rank": True, "name": "bob", "score": 1}])


# -- stores --------------------------------------------------------------------------------


async def test_store_keeps_the_best_value_per_name_and_the_best_size(server: Server) -> None:
    store = server.store
    assert await store.record_score("g:m", "bob", 30, 3) is True
    assert await store.record_score("g:m", "bob", 31, 3) is False  # worse: not kept
    assert await store.record_score("g:m", "bob", 30, 3) is False  # equal: not an improvement
    assert await store.record_score("g:m", "bob", 25, 3) is True
    await store.record_score("g:m", "carol", 25, 3)  # tie: by name, bob first
    await store.record_score("g:m", "dave", 40, 3)
    await store.record_score("g:m", "al", 10, 3)  # the board is over 3: dave is dropped
    rows, total = await store.board_page("g:m", 0, 10)
    assert rows == [("al", 10), ("bob", 25), ("carol", 25)] and total == 3
    assert await store.board_rank("g:m", "carol") == (2, 25)
    assert await store.board_rank("g:m", "dave") is None
    assert await store.board_page("g:m", 1, 1) == ([("bob", 25)], 3)
    assert await store.board_page("other", 0, 5) == ([], 0)
    assert await store.board_rank("other", "al") is None


async def test_redis_board_key_layout(server: Server) -> None:
    if not isinstance(server.store, RedisStore):
        pytest.skip("the Redis key layout")
    board_id = leaderboard.boards()["skipper", "solo"].id
    assert board_id == "acct/skipper:solo"  # entries are account ids
    await server.store.record_score(board_id, "0123456789abcdef", 30, 1000)
    r = redis.Redis.from_url(server.store.url)
    try:
        assert r.type("cardhall:board:acct/skipper:solo") == b"zset"
        assert r.zscore("cardhall:board:acct/skipper:solo", "0123456789abcdef") == 30.0
    finally:
        r.close()


# -- recording at game over ---------------------------------------------------------------


async def test_won_skipper_solo_is_ranked_by_turns(server: Server) -> None:
    _, outcome = await play_solo(server, "alice", "skipper")
    assert outcome["reason"] == "won"  # greedy wins every solo deal it gets (simulate)
    turns = outcome["scores"][0]
    got = await board(server, "skipper", as_name="alice")
    assert (got.game, got.mode, got.order, got.total) == ("skipper", "solo", "asc", 1)
    assert got.entries == [{"rank": 1, "name": "alice", "score": turns}]
    assert got.you == {"rank": 1, "score": turns}
    assert (await board(server, "skipper")).you is None  # "reader" has no score


async def test_points_games_keep_the_best_game_of_a_name(server: Server) -> None:
    scores = []
    for seed in (1, 2, 3):
        _, outcome = await play_solo(server, "bob", "thirtysix", seed=seed)
        scores.append(outcome["scores"][0])
        got = await board(server, "thirtysix")
        assert got.order == "desc" and got.mode == "standard"
        assert got.entries == [{"rank": 1, "name": "bob", "score": max(scores)}]
    _, outcome = await play_solo(server, "bob", "shufflejack")
    got = await board(server, "shufflejack", mode="standard")
    assert got.entries == [{"rank": 1, "name": "bob", "score": outcome["scores"][0]}]


async def test_a_worse_game_does_not_replace_the_best(server: Server) -> None:
    best = leaderboard.boards()["skipper", "solo"]
    alice = await player(server, "alice")
    await server.store.record_score(best.id, alice, best.rank_value(1), 1000)  # 1 turn
    _, outcome = await play_solo(server, "alice", "skipper")
    assert outcome["reason"] == "won" and outcome["scores"][0] > 1
    assert (await board(server, "skipper")).entries == [
        {"rank": 1, "name": "alice", "score": 1}]
    await server.store.record_score(best.id, alice, best.rank_value(10_000), 1000)
    assert (await board(server, "skipper")).entries[0]["score"] == 1


async def test_a_player_signed_in_to_no_account_is_not_ranked(server: Server) -> None:
    _, outcome = await play_solo(server, "drifter", "thirtysix", guest=False)
    assert outcome["scores"]
    assert (await board(server, "thirtysix")).total == 0


async def test_a_chosen_deal_is_not_ranked(server: Server) -> None:
    room_id, outcome = await play_solo(server, "alice", "skipper", options={"seed": 12})
    assert outcome["reason"] == "won"
    loaded = await server.store.load(room_id)  # a takeover would know it too
    assert loaded is not None and loaded.record["chosen_deal"] is True
    assert Room.from_loaded(loaded, server.store, get("skipper")).table.chosen_deal is True
    _, outcome = await play_solo(server, "alice", "thirtysix", options={"seed": 12})
    assert outcome["scores"]
    assert (await board(server, "skipper")).entries == []
    assert (await board(server, "thirtysix")).entries == []


async def test_house_rules_are_not_ranked(server: Server) -> None:
    _, outcome = await play_solo(server, "alice", "thirtysix", options={"baltimore": True})
    assert outcome["scores"]
    assert (await board(server, "thirtysix")).total == 0


async def test_a_seat_a_server_bot_played_is_not_ranked(server: Server) -> None:
    """The player leaves at once: a server bot plays the seat to the end (on_abandon bot).
    Only a solo room stored before solo games were kept for their players (issue #44 item
    1: no ``solo_keep`` setting) does this now; a kept one ends as a forfeit instead."""
    async with Client(server.url, guest=device("quitter")) as c:
        created = await c.create_room("skipper", options={"bot_seconds": 0})
        room = server.lobby.rooms[created.room]
        room.table.settings.pop("solo_keep")  # as a room stored before issue #44 item 1
        await c.join(created.room)
        await c.leave(created.room)
    for _ in range(600):
        if room.table.phase is Phase.FINISHED:
            break
        await asyncio.sleep(0.1)
    assert room.table.phase is Phase.FINISHED and room.table.game.outcome()["reason"] == "won"
    await settle(server, created.room)
    assert (await board(server, "skipper")).total == 0


async def test_a_seat_a_bot_held_for_a_while_is_not_ranked(server: Server) -> None:
    """The player drops, a server bot takes the seat after the grace window, the player
    resumes and wins: not ranked (the bot played part of the game). A solo room stored
    before solo games were kept for their players (no ``solo_keep`` setting) still does
    this after a restart."""
    c = Client(server.url, guest=device("dropper"))
    await c.connect()
    created = await c.create_room("skipper",
                                  options={"grace_seconds": 0.2, "bot_seconds": 30})
    room = server.lobby.rooms[created.room]
    room.table.settings.pop("solo_keep")  # as a room stored before issue #44 item 1
    joined = await c.join(created.room)
    await c.close()
    for _ in range(300):
        if room.table.seats[0] is not None and room.table.seats[0].bot:
            break
        await asyncio.sleep(0.05)
    assert room.table.seats[0] is not None and room.table.seats[0].bot
    async with Client(server.url, guest=device("dropper")) as c2:
        await c2.resume(created.room, joined.token)
        result = await asyncio.wait_for(
            play_seat(c2, created.room, 0, strategy("skipper", "greedy"), random.Random(1)),
            GAME_SECONDS)
    assert result.outcome["reason"] == "won"
    await settle(server, created.room)
    assert (await board(server, "skipper")).total == 0
    # The store keeps it: a process taking the room over knows the seat was assisted.
    loaded = await server.store.load(created.room)
    assert loaded is not None and loaded.state is not None
    assert loaded.state["seats"][0]["assisted"] is True
    copy = Room.from_loaded(loaded, server.store, get("skipper"))
    held = copy.table.seats[0]
    assert held is not None and held.assisted and not held.bot
    assert copy.table.chosen_deal is False


# -- get_leaderboard -----------------------------------------------------------------------


async def test_limit_around_and_you(server: Server) -> None:
    sk = leaderboard.boards()["skipper", "solo"]
    ids = await accounts(server, *(f"p{i:02}" for i in range(30)))
    ids["p03"] = await player(server, "p03")  # the reader's own account
    for i in range(30):  # p00 is the best (10 turns), p29 the worst
        await server.store.record_score(sk.id, ids[f"p{i:02}"], sk.rank_value(10 + i), 1000)
    top = await board(server, "skipper")
    assert [e["rank"] for e in top.entries] == list(range(1, p.LEADERBOARD_LIMIT + 1))
    assert top.entries[0] == {"rank": 1, "name": "p00", "score": 10} and top.total == 30
    page = await board(server, "skipper", limit=5, around="p17", as_name="p03")
    assert [e["name"] for e in page.entries] == ["p15", "p16", "p17", "p18", "p19"]
    assert [e["rank"] for e in page.entries] == [16, 17, 18, 19, 20]
    assert page.you == {"rank": 4, "score": 13}
    tail = await board(server, "skipper", limit=100, around="p29")
    assert tail.entries[-1]["name"] == "p29" and len(tail.entries) == 30  # clipped at 0
    unknown = await board(server, "skipper", limit=3, around="nobody")
    assert [e["rank"] for e in unknown.entries] == [1, 2, 3]
    ts = leaderboard.boards()["thirtysix", leaderboard.STANDARD]
    ids = await accounts(server, "lo", "hi", "mid")
    for name, points in (("lo", 20), ("hi", 40), ("mid", 30)):
        await server.store.record_score(ts.id, ids[name], ts.rank_value(points), 1000)
    desc = await board(server, "thirtysix")
    assert [(e["name"], e["score"]) for e in desc.entries] == [
        ("hi", 40), ("mid", 30), ("lo", 20)]


async def test_unknown_game_and_games_without_a_board(server: Server) -> None:
    async with Client(server.url, name="x") as c:
        for game, mode, code in (("nope", None, "lobby/unknown_game"),
                                 ("skipper", "bogus", "lobby/unknown_game"),
                                 ("thirtysix", "solo", "lobby/unknown_game"),
                                 ("skipper", "multi", "lobby/no_leaderboard"),
                                 ("shah", None, "lobby/no_leaderboard")):
            with pytest.raises(ServerError) as err:
                await c.leaderboard(game, mode)
            assert err.value.code == code
        assert (await c.leaderboard("skipper", "solo")).entries == []  # still connected


# -- the terminal client (a person in a pty) ---------------------------------------------


def _terminal_session(url: str, secret: str) -> str:
    import shutil
    import tempfile
    from pathlib import Path

    from cardhall.client.account_file import AccountFile

    from ..client.test_terminal import LOBBY, Person

    state = tempfile.mkdtemp(prefix="cardhall-test-state-")
    AccountFile(Path(state) / "cardhall" / "account.json").put(url, guest=secret)
    person = Person(url, "alice", state_dir=state)
    try:
        person.expect(LOBBY)
        person.say("b skipper")
        person.expect(r"leaderboard skipper solo \(fewest first, 2 names\):")
        person.expect(r"1\. bob +17")
        person.expect(r"2\. alice +23")
        person.expect(r"you: rank 2, score 23")
        person.expect(LOBBY)
        person.say("leaderboards", "thirtysix")  # asks for the game
        person.expect(r"leaderboard thirtysix standard \(most first, 0 names\):")
        person.expect(r"nobody yet")
        person.expect(LOBBY)
        person.say("b shah")
        person.expect(r"error: \[lobby/no_leaderboard\] ")
        person.expect(LOBBY)
        return person.output
    finally:
        person.close()
        shutil.rmtree(state, ignore_errors=True)


@pytest.mark.timeout(120)
async def test_terminal_lobby_shows_a_leaderboard(server: Server) -> None:
    sk = leaderboard.boards()["skipper", "solo"]
    ids = await accounts(server, "bob")
    ids["alice"] = await player(server, "alice")
    await server.store.record_score(sk.id, ids["alice"], sk.rank_value(23), 1000)
    await server.store.record_score(sk.id, ids["bob"], sk.rank_value(17), 1000)
    await asyncio.to_thread(_terminal_session, server.url, device("alice"))
