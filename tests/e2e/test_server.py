"""End-to-end: real servers on 127.0.0.1, real clients and bots over WebSockets."""

from __future__ import annotations

import asyncio
import copy
import dataclasses
import random
from typing import Any

import msgpack
import pytest
import websockets

from cardhall import protocol as p
from cardhall.client import bots as bots_module
from cardhall.client.bots import SeatResult, play_games, play_seat
from cardhall.client.client import Client, ServerError
from cardhall.server.app import Server
from cardhall.games import cards as C
from cardhall.games import get
from cardhall.games.bots import strategy
from cardhall.games import replay
from cardhall.server.fanout import LATER_SPECTATORS

from ..conftest import ServerFactory
from ..engine_harness import cards_in, keys_in

GREEDY = strategy("skipper", "greedy")


async def replay_room(server: Server, room_id: str) -> Any:
    """The engine rebuilt from the store's record and log of the room."""
    loaded = await server.store.load(room_id)
    assert loaded is not None
    record = loaded.record
    entries = await server.store.log(room_id)
    return record, entries, replay(get(record["game"]), record["options"], record["seats"],
                                   entries)


def allowed_by_state(record: dict[str, Any], entries: list[Any]
                     ) -> tuple[list[list[set[str]]], list[list[dict[str, Any]]]]:
    """For every state id, the cards each seat (and, last, a spectator) may see, and the
    engine's view of each seat (and, last, a spectator's)."""
    game = get(record["game"])(record["options"], record["seats"])
    out = []
    truth: list[list[dict[str, Any]]] = []
    viewers = [*range(game.seats), None]

    def snapshot_allowed() -> list[set[str]]:
        locs = game.card_locations()
        public: set[str] = set()
        for zone, cards in locs.items():
            if zone.startswith(("stack:", "bid:")) or zone == "auction":
                public.update(C.codes(cards))
            elif zone.startswith("discard:") and cards:
                public.add(C.code(cards[-1]))
        per_seat = [public | set(C.codes(locs[f"hand:{s}"])) for s in range(game.seats)]
        truth.append(msgpack.unpackb(msgpack.packb([game.view(s) for s in viewers])))
        return per_seat + [public]

    out.append(snapshot_allowed())
    for kind, seat, action in entries:
        if kind == "f":
            game.forfeit(seat)
        else:
            game.apply(seat, action)
        out.append(snapshot_allowed())
    return out, truth


def check_frames(frames: list[p.Update], first_view: dict[str, Any],
                 allowed: list[list[set[str]]], who: int,
                 truth: list[list[dict[str, Any]]]) -> int:
    """Rebuild the views a client saw from its updates, check each is the engine's view of
    that seat at that state (``truth``; the server's ``room`` facts aside) and that none
    leaks; returns how many views were checked."""
    view = copy.deepcopy(first_view)
    checked = 0
    for msg in frames:
        if msg.view is not None:
            view = copy.deepcopy(msg.view)
        else:
            assert msg.delta is not None
            p.apply_delta(view, copy.deepcopy(msg.delta))
        assert view["state_id"] == msg.state_id
        assert {k: v for k, v in view.items() if k != "room"} == truth[msg.state_id][who]
        leaked = cards_in(view) - allowed[msg.state_id][who]
        assert not leaked, f"seat {who} saw {sorted(leaked)} at state {msg.state_id}"
        # Bids are laid face up (K10): a final bid goes straight to the seller's hand, so
        # bid and sold events name cards that are public at that moment.
        face_up = cards_in([e for e in msg.events if e.get("type") in ("bid", "sold")])
        leaked_events = cards_in(msg.events) - allowed[msg.state_id][who] - allowed[
            max(0, msg.state_id - 1)][who] - face_up
        assert not leaked_events, f"events leak {leaked_events}: {msg.events} at {msg.state_id}"
        assert "seed" not in keys_in(view) and "deck" not in view["options"]
        assert "token" not in keys_in(view)
        checked += 1
    return checked


async def test_four_greedy_bots_finish_multi_with_auctions_and_skip_draws(
        server: Server) -> None:
    records = await play_games([server.url], "skipper", "multi", 4, 3, "greedy", seed=7,
                               timeout=120)
    assert len(records) == 3
    assert sum(r["auctions"] for r in records) > 0
    assert sum(r["skip_draws"] for r in records) > 0
    for rec in records:
        assert rec["outcome"] in ("completed", "unwinnable", "turn_limit", "last_standing")
        record, entries, game = await replay_room(server, rec["room"])
        assert game.over and game.state_id == rec["state_id"] == len(entries)
        assert game.outcome()["winner"] == rec["winner"]
        # The live room's engine and the replay agree bit for bit.
        assert game.snapshot() == server.lobby.rooms[rec["room"]].game.snapshot()


async def test_every_frame_each_seat_received_leaks_nothing(server: Server) -> None:
    clients = [Client(server.url, name=f"p{i}") for i in range(4)]
    for c in clients:
        await c.connect()
    watcher = Client(server.url, name="watcher")
    await watcher.connect()
    try:
        created = await clients[0].create_room("skipper", mode="multi", seats=4)
        spectated = await watcher.spectate(created.room)
        assert spectated.seat is None and spectated.view["hand"] is None
        joins = [await c.join(created.room) for c in clients]
        tasks = [play_seat(c, created.room, j.seat or 0, GREEDY, random.Random(i),
                           keep_frames=True) for i, (c, j) in enumerate(zip(clients, joins))]
        watch = play_seat(watcher, created.room, -1, GREEDY, random.Random(9), keep_frames=True)
        async with asyncio.timeout(120):
            results: list[SeatResult] = await asyncio.gather(*tasks, watch)
        record, entries, _ = await replay_room(server, created.room)
        allowed, truth = allowed_by_state(record, entries)
        total = 0
        for j, res in zip(joins, results[:4]):
            assert j.seat is not None
            total += check_frames(res.frames, j.view, allowed, j.seat, truth)
        # The spectator saw the whole game: every state id, and never a hand.
        spectator = results[4]
        assert [f.state_id for f in spectator.frames][-1] == spectator.state_id
        assert sorted({f.state_id for f in spectator.frames}) == list(
            range(0, spectator.state_id + 1))
        total += check_frames(spectator.frames, spectated.view, allowed, 4, truth)
        assert total > 100
    finally:
        for c in [*clients, watcher]:
            await c.close()


async def test_solo_and_race_finish_over_the_wire(server: Server) -> None:
    solo = await play_games([server.url], "skipper", "solo", 1, 2, "greedy", timeout=60)
    assert all(r["winner"] == 0 for r in solo)
    race = await play_games([server.url], "skipper", "race", 3, 1, "greedy",
                            options={"skip_draws": True}, timeout=120)
    assert race[0]["outcome"] in ("completed", "all_out")
    _, entries, game = await replay_room(server, race[0]["room"])
    seats_in_order = [e[1] for e in entries]
    # Truly concurrent: seats' actions interleave (no seat plays a whole game alone first).
    switches = sum(a != b for a, b in zip(seats_in_order, seats_in_order[1:]))
    assert switches > 10
    assert game.snapshot() == server.lobby.rooms[race[0]["room"]].game.snapshot()


async def test_race_actions_from_different_seats_do_not_make_each_other_stale(
        server: Server) -> None:
    a, b = Client(server.url), Client(server.url)
    await a.connect()
    await b.connect()
    try:
        room = (await a.create_room("skipper", mode="race", seats=2)).room
        ja = await a.join(room)
        jb = await b.join(room)
        await asyncio.sleep(0.1)
        sid = b.views[room]["state_id"]
        # Both choose against the same state; both are accepted.
        act_a = a.views[room]["legal_actions"][0]
        act_b = b.views[room]["legal_actions"][0]
        await a.act(room, act_a, sid)
        await b.act(room, act_b, sid)
        assert ja.seat != jb.seat
    finally:
        await a.close()
        await b.close()


async def seated_solo(c: Client) -> tuple[str, list[Any], int]:
    """Seat ``c`` in a new solo Skipper room (seed 2); returns (room, its first legal
    action, the state id to act against)."""
    room = (await c.create_room("skipper", options={"seed": 2})).room
    await c.join(room)
    await asyncio.sleep(0.05)
    view = c.views[room]
    return room, view["legal_actions"][0], view["state_id"]


async def test_stale_state_is_refused_and_retry_is_safe(server: Server) -> None:
    async with Client(server.url) as c:
        room, action, sid = await seated_solo(c)
        await c.act(room, action, sid)
        with pytest.raises(ServerError) as err:
            await c.act(room, action, sid)  # the same request again, as after a lost reply
        assert err.value.code == "action/stale_state"
        assert len(await server.store.log(room)) == 1


async def test_a_request_during_a_reconnection_waits_for_the_resume(server: Server) -> None:
    # Dropped, the client reconnects and resumes its seat; an act issued meanwhile goes out
    # only after the resume (before, it failed with ConnectionLost on the dead socket, or
    # reached the new connection ahead of the resume and was refused as room/not_seated).
    async with Client(server.url) as c:
        room, action, sid = await seated_solo(c)
        await c.drop()
        while c._ready.is_set():  # the reader sees the drop; the reconnection starts
            await asyncio.sleep(0.001)
        await c.act(room, action, sid)
        assert c.reconnects == 1
        assert len(await server.store.log(room)) == 1
        await c.get_view(room)
        assert c.views[room]["state_id"] == sid + 1


async def test_a_request_waits_for_the_recovery_of_a_second_drop(
        server: Server, monkeypatch: pytest.MonkeyPatch) -> None:
    # Dropped again while resuming: the first recovery is cut short, and a request waiting
    # meanwhile must wait for the second one's resume too (before, the first recovery let it
    # go at once: it failed with ConnectionLost or was refused as room/not_seated).
    async with Client(server.url) as c:
        room, action, sid = await seated_solo(c)
        request = c._request
        drops = 0

        async def request_dropping_once(msg: p.Message) -> p.Message:
            nonlocal drops
            if isinstance(msg, p.Resume) and drops == 0:
                drops += 1
                await c.drop()  # the new connection drops before this resume goes out
            return await request(msg)

        monkeypatch.setattr(c, "_request", request_dropping_once)
        await c.drop()
        while c._ready.is_set():
            await asyncio.sleep(0.001)
        await c.act(room, action, sid)
        assert (drops, c.reconnects) == (1, 2)
        assert len(await server.store.log(room)) == 1


async def test_bot_watchdog_waits_for_an_action_still_under_way(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # The watchdog acts again when the seat may act and nothing happened for STALL_SECONDS;
    # a slow reply is not "nothing": no second act may go out while the first one waits.
    monkeypatch.setattr(bots_module, "STALL_SECONDS", 0.3)
    calls: list[int] = []
    loop = asyncio.get_running_loop()
    ends = loop.time() + 1.1  # the game ends before a stall period after the reply

    class SlowClient:
        views = {"r": {"state_id": 3, "over": False, "legal_actions": [["end"]]}}

        async def act(self, room: str, action: Any, sid: int) -> None:
            calls.append(sid)
            await asyncio.sleep(1.0)  # over three stall periods

        async def updates(self) -> Any:
            await asyncio.sleep(ends - loop.time())
            yield p.GameOver(room="r", state_id=4, outcome={"winner": 0})

    result = await play_seat(SlowClient(), "r", 0,  # type: ignore[arg-type]
                             lambda view, rng: ["end"], random.Random(1))
    assert result.outcome == {"winner": 0}
    assert calls == [3]
    assert result.actions == 1


async def test_drop_and_resume_with_token_and_a_bot_takes_another_seat(
        make_server: ServerFactory) -> None:
    server = await make_server()
    clients = [Client(server.url, name=f"p{i}", reconnect=(i != 2)) for i in range(3)]
    for c in clients:
        await c.connect()
    room = (await clients[0].create_room("skipper", mode="multi", seats=3,
                                         options={"grace_seconds": 0.3})).room
    joins = [await c.join(room) for c in clients]
    events: list[tuple[int, str]] = []

    async def dropper(c: Client, seat: int, i: int) -> SeatResult:
        async def cut_later() -> None:
            await asyncio.sleep(0.05)
            await c.drop()
        asyncio.get_running_loop().create_task(cut_later())
        return await play_seat(c, room, seat, GREEDY, random.Random(i))

    async def quitter(c: Client) -> None:
        await asyncio.sleep(0.05)
        await c.drop()  # no reconnect: after 0.3 s a server bot takes the seat

    async def watch(c: Client, seat: int) -> SeatResult:
        return await play_seat(c, room, seat, GREEDY, random.Random(3))

    orig = clients[0]._dispatch

    def spy(msg: p.Message) -> None:
        if isinstance(msg, p.SeatEvent):
            events.append((msg.seat, msg.event))
        orig(msg)
    clients[0]._dispatch = spy  # type: ignore[method-assign]
    try:
        async with asyncio.timeout(120):
            res0, res1, _ = await asyncio.gather(
                watch(clients[0], joins[0].seat or 0),
                dropper(clients[1], joins[1].seat or 0, 1),
                quitter(clients[2]))
        assert res0.outcome and res1.outcome == res0.outcome
        seat1, seat2 = joins[1].seat, joins[2].seat
        assert (seat1, "dropped") in events and (seat1, "resumed") in events
        assert (seat2, "dropped") in events and (seat2, "bot") in events
        assert clients[1].reconnects == 1
        _, entries, game = await replay_room(server, room)
        assert game.over
        # After the drop, seat 2's turns were played by the server bot (not defaults only).
        assert any(e[1] == seat2 and e[2][0] == "play" for e in entries)
    finally:
        for c in clients:
            await c.close()


async def test_abandoned_seat_forfeits_when_room_says_so(server: Server) -> None:
    a, b = Client(server.url), Client(server.url, reconnect=False)
    await a.connect()
    await b.connect()
    try:
        room = (await a.create_room("skipper", mode="multi", seats=2, options={
            "on_abandon": "forfeit", "grace_seconds": 0.1})).room
        await a.join(room)
        token = (await b.join(room)).token
        await b.drop()
        async with asyncio.timeout(10):
            async for msg in a.updates():
                if isinstance(msg, p.GameOver):
                    assert msg.outcome["reason"] == "last_standing"
                    assert msg.outcome["winner"] == 0
                    break
        entries = await server.store.log(room)
        assert entries[-1][0] == "f"
        _, _, game = await replay_room(server, room)
        assert game.outcome()["winner"] == 0
        async with Client(server.url) as again:
            with pytest.raises(ServerError) as err:
                await again.resume(room, token or "")
            assert err.value.code == "room/bad_token"
    finally:
        await a.close()


async def test_turn_timer_plays_the_default_for_a_silent_seat(server: Server) -> None:
    async with Client(server.url) as host:
        room = (await host.create_room("skipper", mode="multi", seats=2, options={
            "turn_seconds": 0.15, "bid_seconds": 0.1})).room
        joined = await host.join(room)
        await host.start(room)  # seat 1 gets a server bot; this seat never acts
        deadlines = []
        async with asyncio.timeout(10):
            async for msg in host.updates():
                if isinstance(msg, p.Update):
                    deadlines.extend(host.views[room]["room"]["deadlines"])
                entries = await server.store.log(room)
                mine = [e for e in entries if e[1] == joined.seat]
                if sum(1 for e in mine if e[2] and e[2][0] == "end") >= 2:
                    break
        assert deadlines and all(isinstance(t, float) for _, t in deadlines)
        assert all(e[2][0] in ("end", "discard", "pass") for e in mine)


async def test_list_games_describes_what_create_room_takes(server: Server) -> None:
    async with Client(server.url) as c:
        games, room_options = await c.list_games()
        by_name = {g["game"]: g for g in games}
        assert set(by_name) == {"skipper", "shop", "shah", "thirtysix", "shufflejack"}
        skipper = by_name["skipper"]
        assert skipper["modes"] == ["solo", "multi", "race"]  # the default first
        assert by_name["shop"]["modes"] == []
        assert (skipper["min_seats"], skipper["max_seats"]) == (1, 6)
        seed = next(o for o in skipper["options"] if o["name"] == "seed")
        assert seed["kind"] == "int" and seed["default"] is None and seed["doc"]
        turn = next(o for o in room_options if o["name"] == "turn_seconds")
        assert turn["kind"] == "float" and turn["min"] > 0
        # What the listing says is what a room accepts: every mode of every game, with its
        # largest seat count and every option at its default value.
        for g in games:
            for mode in g["modes"] or [None]:
                seats = 1 if mode in (None, "solo") else g["max_seats"]
                options = {o["name"]: o["default"] for o in g["options"] + room_options
                           if o["name"] != "mode"}
                created = await c.create_room(g["game"], mode=mode, seats=seats,
                                              options=options)
                assert created.room
        with pytest.raises(ServerError) as err:  # a mode the listing does not name
            await c.create_room("skipper", mode="duel", seats=2)
        assert err.value.code == "lobby/unknown_game"


async def test_server_bots_take_their_time_in_a_race(server: Server) -> None:
    """In a real-time game a server bot acts once per ``bot_seconds`` (1 s by default), not
    as fast as the server can play: a person racing it would stand no chance."""
    async def bot_actions(options: dict[str, Any], watch: float) -> int:
        async with Client(server.url) as c:
            room = (await c.create_room("skipper", mode="race", seats=2,
                                        options=options)).room
            joined = await c.join(room)
            await c.start(room)  # the other seat goes to a server bot; this one never acts
            await asyncio.sleep(watch)
            entries = await server.store.log(room)
            return sum(1 for e in entries if e[1] != joined.seat)

    default = await bot_actions({}, 1.8)
    assert default == 1  # at 1 s; the next is due at 2 s (timers never fire early)
    fast = await bot_actions({"bot_seconds": 0.1}, 1.8)
    assert fast > default
    assert fast <= 18


async def test_private_room_join_code_and_lobby_listing(server: Server) -> None:
    async with Client(server.url) as a, Client(server.url) as b:
        created = await a.create_room("skipper", mode="multi", seats=2, private=True,
                                      name="friends")
        assert created.code is not None and len(created.code) == 6
        assert created.room not in {r["room"] for r in await b.list_rooms()}
        with pytest.raises(ServerError) as err:
            await b.join(created.room)
        assert err.value.code == "room/not_found"
        joined = await b.join(code=created.code.lower())
        assert joined.seat == 0
        assert joined.token and joined.token not in str(await a.list_rooms())


async def hidden_answer(client: Client, request: p.ClientMessage) -> tuple[str, str]:
    """The ``(code, message)`` of the error ``request`` gets, the room id in the message
    replaced by ``ROOM`` (so that answers about two rooms compare)."""
    with pytest.raises(ServerError) as err:
        await client.request(request)
    room = getattr(request, "room", "") or ""
    return err.value.code, err.value.message.replace(room, "ROOM")


async def test_private_rooms_stay_private_after_the_end(make_server: ServerFactory) -> None:
    """Issue #35: a private room is never listed (waiting, playing, finished), its log goes
    to its members only, and to anyone else every request about it is answered as one
    about a room that does not exist."""
    server = await make_server(finished_ttl=60)
    async with Client(server.url) as host, Client(server.url) as other:
        created = await host.create_room("skipper", mode="solo", private=True)
        room, unknown = created.room, "0badc0de"
        for request in (p.GetLog(room=room), p.Join(room=room), p.Spectate(room=room),
                        p.Start(room=room), p.GetView(room=room),
                        p.Resume(room=room, token="x" * 32)):
            assert (await hidden_answer(other, request)
                    == await hidden_answer(other, dataclasses.replace(request, room=unknown)))
        assert room not in {r["room"] for r in await other.list_rooms()}
        joined = await host.join(code=created.code)
        await host.act(room, ["resign"])
        for _ in range(100):
            if host.views[room]["room"]["status"] == "finished":
                break
            await asyncio.sleep(0.02)
        assert room not in {r["room"] for r in await other.list_rooms()}
        assert await hidden_answer(other, p.GetLog(room=room)) == await hidden_answer(
            other, p.GetLog(room=unknown))
        log = await host.fetch_log(room)  # the member gets it
        assert log.room == room and log.entries == [["a", joined.seat, ["resign"]]]


async def test_quick_join_fills_a_room_then_starts_it(server: Server) -> None:
    clients = [Client(server.url, name=f"q{i}") for i in range(2)]
    for c in clients:
        await c.connect()
    try:
        j1 = await clients[0].quick_join("skipper", mode="race", seats=2)
        j2 = await clients[1].quick_join("skipper", mode="race", seats=2)
        assert j1.room == j2.room and {j1.seat, j2.seat} == {0, 1}
        await asyncio.sleep(0.1)
        assert clients[0].views[j1.room]["room"]["status"] == "playing"
    finally:
        for c in clients:
            await c.close()


# -- bad input ------------------------------------------------------------------------------


async def raw(url: str, hello: bool = True, act_reply: str | None = None) -> Any:
    ws = await websockets.connect(url, compression=None)
    if hello:
        await ws.send(p.encode(p.Hello(v=1, client="raw", act_reply=act_reply)))
        assert isinstance(p.decode(await ws.recv(), side="server"), p.Welcome)
    return ws


async def reply(ws: Any) -> p.Message:
    while True:
        msg = p.decode(await ws.recv(), side="server")
        if not isinstance(msg, (p.Update, p.SeatEvent, p.Started)):
            return msg


@pytest.mark.parametrize("act_reply", [None, "ok", "update"])
async def test_an_act_is_answered_as_the_hello_asked(server: Server, act_reply: str | None
                                                     ) -> None:
    # hello.act_reply "update": the acting seat's update carries the act's id and no ok
    # comes; otherwise an ok, then the update. Errors are error replies either way.
    ws = await raw(server.url, act_reply=act_reply)
    try:
        await ws.send(p.encode(p.CreateRoom(game="skipper", mode="solo", seats=1, id=1)))
        room = (await reply(ws)).room  # type: ignore[attr-defined]
        await ws.send(p.encode(p.Join(room=room, id=2)))
        assert isinstance(await reply(ws), p.Joined)  # one seat: the game starts at once
        await ws.send(p.encode(p.GetView(room=room, id=9)))
        async with asyncio.timeout(10):
            while not isinstance(msg := p.decode(await ws.recv(), side="server"), p.Update) or (
                    msg.re != 9):
                pass
        view = msg.view
        assert view is not None and view["room"]["status"] == "playing"
        sid = view["state_id"]
        action = next(a for a in view["legal_actions"] if a[0] != "resign")
        await ws.send(p.encode(p.Act(room=room, state_id=sid, action=action, id=3)))
        async with asyncio.timeout(10):
            first = p.decode(await ws.recv(), side="server")
        if act_reply == "update":
            assert isinstance(first, p.Update) and first.re == 3
            assert first.state_id == sid + 1
        else:
            assert isinstance(first, p.Ok) and first.re == 3
            second = p.decode(await ws.recv(), side="server")
            assert isinstance(second, p.Update) and second.re is None
        await ws.send(p.encode(p.Act(room=room, state_id=sid, action=action, id=4)))
        refused = p.decode(await ws.recv(), side="server")
        assert isinstance(refused, p.Error) and refused.re == 4
        assert refused.code == "action/stale_state"
        await ws.send(p.encode(p.Ping(id=5)))  # nothing else was queued ahead of the pong
        assert isinstance(p.decode(await ws.recv(), side="server"), p.Pong)
    finally:
        await ws.close()


async def test_every_request_error_code_is_answered(server: Server) -> None:
    async with Client(server.url) as a, Client(server.url) as b:
        codes: dict[str, Any] = {}

        async def expect(code: str, coro: Any) -> None:
            with pytest.raises(ServerError) as err:
                await coro
            assert err.value.code == code, err.value
            codes[code] = err.value.message

        await expect("lobby/unknown_game", a.create_room("poker"))
        await expect("lobby/unknown_game", a.create_room("skipper", mode="duel"))
        await expect("lobby/bad_options", a.create_room("skipper", options={"hand_size": 9}))
        await expect("lobby/bad_options", a.create_room("skipper", mode="multi", seats=1))
        await expect("lobby/bad_options", a.create_room("skipper", options={"on_abandon": "x"}))
        await expect("room/not_found", a.join("nosuchroom"))
        room = (await a.create_room("skipper", mode="multi", seats=2)).room
        await expect("room/not_seated", a.act(room, ["end"], 0))
        await a.join(room)
        await expect("room/full", a.join(room))
        await expect("room/not_started", a.act(room, ["end"], 0))
        await expect("room/not_host", b.start(room))
        await expect("room/bad_token", b.resume(room, "not-a-token"))
        await b.join(room)  # full: starts
        await asyncio.sleep(0.05)
        await expect("room/already_started", a.start(room))
        sid = a.views[room]["state_id"]
        await expect("action/not_your_turn", b.act(room, ["end"], sid))
        await expect("action/unknown", a.act(room, ["fly"], sid))
        await expect("action/unknown", a.act(room, ["play", "ZZ", "S"], sid))
        await expect("action/illegal", a.act(room, ["bid", "5D"], sid))
        await expect("action/stale_state", a.act(room, ["end"], sid + 5))
        await a.act(room, ["resign"], sid)
        await asyncio.sleep(0.05)
        await expect("action/game_over", b.act(room, ["end"], sid + 1))
        assert all(codes.values()), "every error carries a message"


async def test_protocol_errors_get_typed_replies(server: Server) -> None:
    ws = await raw(server.url)
    try:
        cases = [
            (b"\xc1", "protocol/bad_frame"),
            (msgpack.packb([1, 2]), "protocol/bad_frame"),
            (msgpack.packb({"t": "fly"}), "protocol/unknown_type"),
            (msgpack.packb({"t": "join", "seat": "x", "room": "r"}), "protocol/bad_type"),
            (msgpack.packb({"t": "act", "room": "r"}), "protocol/missing_field"),
            (msgpack.packb({"t": "ping", "extra": 1}), "protocol/unknown_field"),
            (msgpack.packb({"t": "create_room", "game": "skipper", "seats": 9, "options": {},
                            "private": False}),
             "protocol/bad_value"),
            (msgpack.packb({"t": "hello", "v": 1, "client": "x"}), "protocol/unexpected"),
        ]
        for frame, code in cases:
            await ws.send(frame)
            msg = await reply(ws)
            assert isinstance(msg, p.Error) and msg.code == code, (frame, msg)
        await ws.send("a text frame")
        msg = await reply(ws)
        assert isinstance(msg, p.Error) and msg.code == "protocol/bad_frame"
        await ws.send(p.encode(p.Ping(id=5)))
        pong = await reply(ws)
        assert isinstance(pong, p.Pong) and pong.re == 5
    finally:
        await ws.close()


async def test_handshake_is_required_and_versions_checked(make_server: ServerFactory) -> None:
    server = await make_server(hello_timeout=0.3)
    ws = await raw(server.url, hello=False)
    await ws.send(p.encode(p.Ping(id=1)))
    msg = await reply(ws)
    assert isinstance(msg, p.Error) and msg.code == "protocol/handshake_required"
    await ws.send(msgpack.packb({"t": "hello", "v": 99, "client": "future"}))
    msg = await reply(ws)
    assert isinstance(msg, p.Error) and msg.code == "protocol/version"
    await ws.wait_closed()
    assert ws.close_code == 4002
    silent = await raw(server.url, hello=False)
    await silent.wait_closed()
    assert silent.close_code == 4001


async def test_oversized_frame_closes_with_1009(make_server: ServerFactory) -> None:
    server = await make_server(max_frame=1024)
    ws = await raw(server.url)
    await ws.send(msgpack.packb({"t": "ping", "pad": "x" * 5000}))
    await ws.wait_closed()
    assert ws.close_code == 1009


async def test_garbage_connection_is_closed_and_other_rooms_finish(
        make_server: ServerFactory) -> None:
    server = await make_server(max_bad_frames=1000)
    games = asyncio.get_running_loop().create_task(
        play_games([server.url], "skipper", "multi", 4, 2, "greedy", seed=1, timeout=120))
    ws = await raw(server.url)
    rng = random.Random(0)
    errors = 0
    for i in range(1001):
        frame = rng.randbytes(rng.randrange(1, 64)) if i % 2 else msgpack.packb(
            {"t": rng.choice(["act", "join", "zzz"]), "room": i})
        try:
            await ws.send(frame)
        except websockets.ConnectionClosed:
            break
    try:
        while True:
            msg = p.decode(await ws.recv(), side="server")
            errors += isinstance(msg, p.Error)
    except websockets.ConnectionClosed:
        pass
    assert ws.close_code == 4000 and errors >= 1000
    records = await games
    assert len(records) == 2 and all(r["outcome"] for r in records)


async def test_a_host_that_resumes_its_seat_may_still_start_the_room(server: Server) -> None:
    # The host is its creating connection's session: a host that lost its connection (Ctrl-C
    # in the terminal client) and resumed its seat with the token came back as a new
    # session and was refused room/not_host in its own waiting room.
    async with Client(server.url) as host:
        room = (await host.create_room("skipper", mode="multi", seats=3)).room
        token = (await host.join(room)).token
    async with Client(server.url) as guest:
        await guest.join(room)
        with pytest.raises(ServerError) as err:
            await guest.start(room)
        assert err.value.code == "room/not_host"
        async with Client(server.url) as back:
            assert token is not None
            await back.resume(room, token)
            await back.start(room)  # the host's seat, a new session: still the host
            await asyncio.sleep(0.05)
            assert back.views[room]["room"]["status"] == "playing"


async def test_shutdown_honours_close_grace_with_a_client_that_does_not_read(
        make_server: ServerFactory) -> None:
    """Issue #35 defect 7: a shutdown waits ``close_grace`` seconds (here 0.5) for a client
    to answer its close frame, not websockets' default close timeout of 10 s."""
    server = await make_server(close_grace=0.5)
    ws = await websockets.connect(server.url, compression=None)
    await ws.send(p.encode(p.Hello(v=p.PROTOCOL_VERSION, client="deaf")))
    await ws.recv()
    ws.transport.pause_reading()  # from now on it reads nothing: no close frame back
    loop = asyncio.get_running_loop()
    t0 = loop.time()
    await server.stop()
    took = loop.time() - t0
    ws.transport.abort()
    assert took < 3.0, f"the shutdown took {took:.1f} s"


async def test_forty_spectators_get_every_update_in_order_then_game_over(
        make_server: ServerFactory) -> None:
    """Issue #35 defect 9: past ``LATER_SPECTATORS`` spectators, a broadcast's spectator
    frames are written a batch of connections per loop iteration; each spectator still gets
    every update once and in order (no gap, nothing stale), the ``game_over`` after the last,
    and ends with the room's public view."""
    server = await make_server()
    watchers = [Client(server.url, name=f"w{i}") for i in range(LATER_SPECTATORS + 8)]
    seen: dict[int, list[int]] = {i: [] for i in range(len(watchers))}
    async with Client(server.url, name="player") as player:
        room = (await player.create_room("skipper", options={"seed": 11})).room
        for i, w in enumerate(watchers):
            await w.connect()
            await w.spectate(room)
        await player.join(room)  # full: it starts

        async def watch(i: int, w: Client) -> None:
            async for msg in w.updates():
                if isinstance(msg, p.Update):
                    seen[i].append(msg.state_id)
                elif isinstance(msg, p.GameOver):
                    seen[i].append(-1)
                    return

        watching = [asyncio.create_task(watch(i, w)) for i, w in enumerate(watchers)]
        result = await play_seat(player, room, 0, GREEDY, random.Random(2))
        await asyncio.wait_for(asyncio.gather(*watching), 30)
        final = server.lobby.rooms[room].view_for(None)
        for i, w in enumerate(watchers):
            states = seen[i]
            assert states[-1] == -1 and states[-2] == result.state_id, states[-3:]
            steps = [b - a for a, b in zip(states[:-1], states[1:-1])]
            assert set(steps) <= {0, 1}, states  # in order, none missing
            assert w.stale_updates == 0
            assert {k: v for k, v in w.views[room].items() if k != "room"} == {
                k: v for k, v in final.items() if k != "room"}
            await w.close()
