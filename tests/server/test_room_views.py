"""What a room sends its members (``server/room/views.py``), over the wire: every view and delta
each seat and a spectator received rebuilds the engine's view of that seat and leaks no card,
and many spectators (past the batching threshold) get every update in order."""

from __future__ import annotations

import asyncio
import copy
import random
from typing import Any

import msgpack

from cardhall import protocol as p
from cardhall.client.bots import SeatResult, play_seat
from cardhall.client.client import Client
from cardhall.server.app import Server
from cardhall.games import cards as C
from cardhall.games import get
from cardhall.games.bots import strategy
from cardhall.server.room.views import LATER_SPECTATORS

from ..conftest import ServerFactory
from ..engine_harness import cards_in, keys_in
from ..room_harness import replay_room

GREEDY = strategy("skipper", "greedy")


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
            assert "state_id" not in msg.delta  # the Client speaks version 2
            p.apply_update(view, copy.deepcopy(msg.delta), msg.state_id)
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
        final = server.lobby.rooms[room].table.view_for(None)
        for i, w in enumerate(watchers):
            states = seen[i]
            assert states[-1] == -1 and states[-2] == result.state_id, states[-3:]
            steps = [b - a for a, b in zip(states[:-1], states[1:-1])]
            assert set(steps) <= {0, 1}, states  # in order, none missing
            assert w.stale_updates == 0
            assert {k: v for k, v in w.views[room].items() if k != "room"} == {
                k: v for k, v in final.items() if k != "room"}
            await w.close()
