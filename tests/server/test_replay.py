"""``get_replay`` (issue #33, the replay viewer): the view of a finished room at any state,
replayed by the engine on the server: the final state's view is the one the players were
sent, every state equals a replay from the deal, a seat's view only for its player.

On the old code ``get_replay`` is ``protocol/unknown_type``: every test here fails there.
"""

from __future__ import annotations

import random

import pytest

from cardhall import games
from cardhall import protocol as p
from cardhall.client.bots import play_seat
from cardhall.client.client import Client, ServerError
from cardhall.games.bots import strategy
from cardhall.server import replay
from cardhall.server.app import Server


async def finished_room(server: Server, c: Client, other: Client) -> str:
    """A 2-seat Skipper multi game with a turn limit of 3, played to the end by two bot
    clients ``c`` (seat 0) and ``other`` (seat 1); returns the room id."""
    room = (await c.create_room("skipper", mode="multi", seats=2,
                                options={"turn_limit": 3})).room
    await c.join(room)
    await other.join(room)
    import asyncio

    bot = strategy("skipper", "greedy")
    await asyncio.gather(play_seat(c, room, 0, bot, random.Random(1)),
                         play_seat(other, room, 1, bot, random.Random(2)))
    return room


def strip(view: dict[str, object]) -> dict[str, object]:
    return {k: v for k, v in view.items() if k not in ("room", "legal_actions")}


async def test_replay_steps_match_the_game(server: Server) -> None:
    async with Client(server.url) as a, Client(server.url) as b, Client(server.url) as w:
        room = await finished_room(server, a, b)
        live = server.lobby.rooms[room]
        final = live.table.game.state_id
        assert final > 5
        # The end: what each seat was last sent, and the public view.
        end = await a.replay(room, final, seat=0)
        assert end.final == final and end.state_id == final and end.seat == 0
        assert strip(end.view) == strip(a.views[room])
        assert end.view["legal_actions"] == [] and end.view["room"]["status"] == "finished"
        await w.spectate(room)
        public = await w.replay(room, final)
        assert public.seat is None and strip(public.view) == strip(w.views[room])
        # Every state: the engine's replay from the deal, with the step's events.
        log = await w.fetch_log(room)
        for sid in sorted({0, 1, replay.STRIDE - 1, replay.STRIDE, replay.STRIDE + 1,
                           final // 2, final - 1, final}):
            if sid > final:
                continue
            got = await w.replay(room, sid)
            game = type(live.table.game)(log.options, 2)
            events: list[object] = []
            for entry in log.entries[:sid]:
                events = game.apply_entry(entry)
            want = game.view(None)
            assert strip(got.view) == strip(want), sid
            assert got.events == events
        # Backwards works as well as forwards (a cached replay).
        assert (await w.replay(room, 1)).view == (await w.replay(room, 1)).view


async def test_replay_refusals(server: Server) -> None:
    async with Client(server.url) as a, Client(server.url) as b, Client(server.url) as w:
        room = await finished_room(server, a, b)
        final = server.lobby.rooms[room].table.game.state_id
        await w.spectate(room)
        with pytest.raises(ServerError) as err:
            await w.replay(room, 0, seat=0)  # a spectator asks for a seat's hand
        assert err.value.code == "room/not_seated"
        with pytest.raises(ServerError) as err:
            await b.replay(room, 0, seat=0)  # another seat's player
        assert err.value.code == "room/not_seated"
        with pytest.raises(ServerError) as err:
            await w.replay(room, final + 1)
        assert err.value.code == "protocol/bad_value"
        with pytest.raises(ServerError) as err:
            await w.replay("nosuchroom", 0)
        assert err.value.code == "room/not_found"
        playing = (await a.create_room("skipper", mode="multi", seats=2)).room
        await a.join(playing)
        with pytest.raises(ServerError) as err:
            await a.replay(playing, 0)
        assert err.value.code == "room/not_finished"


def test_replay_of_a_long_solo_game_restores_from_snapshots() -> None:
    """A Replay keeps a snapshot every STRIDE states; each state's view equals the engine
    played straight through (the snapshots restore exactly)."""
    game = games.create("shop", {"seed": 3}, 1)
    rng = random.Random(4)
    entries = []
    views = [game.view(0)]
    while not game.over and len(entries) < 3 * replay.STRIDE + 5:
        action = rng.choice([a for a in game.legal_actions(0) if a[0] != "close_shop"]
                            or game.legal_actions(0))
        game.apply(0, action)
        entries.append(["a", 0, action])
        views.append(game.view(0))
    r = replay.Replay(type(game), game.options, 1, entries)
    assert r.final == len(entries)
    for sid in range(r.final + 1):
        assert r.at(sid)[0].view(0) == views[sid], sid
    with pytest.raises(ValueError):
        r.at(r.final + 1)
    assert p.GetReplay(room="r", state_id=0).to_map() == {"t": "get_replay", "room": "r",
                                                           "state_id": 0}


def test_a_replay_counts_states_not_entries_and_applies_each_states_settings() -> None:
    """A seat's setting is logged but moves no state_id: the replay's states are the
    actions', and the game at a state has the settings made at it."""
    game = games.create("skipper", {"mode": "multi", "seed": 5}, 2)
    entries = []
    for n in range(2 * replay.STRIDE + 3):
        if n % 5 == 0:
            entries.append(games.LogEntry.setting(n % 2, ["auto_trash", "off" if n % 10
                                                          else "on"]))
            game.apply_entry(entries[-1])
        seat = game.to_act()[0]
        entries.append(games.LogEntry.act(seat, game.default_action(seat) or ["resign"]))
        game.apply_entry(entries[-1])
    r = replay.Replay(type(game), game.options, 2, entries)
    assert r.final == game.state_id < len(entries)
    assert r.at(r.final)[0].snapshot() == game.snapshot()
    at_five, events = r.at(5)
    assert at_five.state_id == 5 and at_five.settings_applied == 2  # the setting at 5 too
    assert events[-1]["type"] == "auto_trash"

