"""Rated play's queue on the wire (issue #45 item 3, server/rated_queue.py): ``queue_join``
answers ``queued`` with the rating; a wave seats the closest ratings together in a rated
room (each player ``joined``, then ``matched``) and the game is rated; bots fill the table
of a player who waited ``--queue-bot-after`` seconds; ``queue_leave`` and a closed
connection leave the queue; an anonymous connection and a game type that is not rated are
refused.

On the old code ``queue_join`` is an unknown message type (``protocol/unknown_type``).
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from cardhall.client.client import Client, ServerError
from cardhall.server.ratings import RatedGame, RatedSeat, board_id

from ..conftest import ServerFactory

MEMORY = pytest.mark.parametrize("store_kind", ["memory"])

BOARD = board_id("skipper", "multi")
SECRETS = [c * 32 for c in "abcdef"]


@MEMORY
async def test_waves_seat_the_closest_ratings_and_the_game_is_rated(
        make_server: ServerFactory) -> None:
    """Four players, two strong and two weak by their ratings, queue for 2-seat tables:
    the wave seats strong with strong and weak with weak."""
    server = await make_server(queue_wave_seconds=0.2)
    clients = [Client(server.url, guest=s) for s in SECRETS[:4]]
    for c in clients:
        await c.connect()
    try:
        ids = [c.account.account for c in clients if c.account is not None]
        # Ratings: 0 and 2 strong, 1 and 3 weak (each won or lost two earlier games).
        for k, (w, lo) in enumerate([(0, 1), (2, 3)] * 2):
            await server.ratings.rate(RatedGame(f"old{k}", BOARD, (
                RatedSeat(ids[w], "w"), RatedSeat(ids[lo], "l")), (1, 2)))
        queued = [await c.queue_join("skipper", "multi", [2]) for c in clients]
        assert queued[0].rating > 1500 > queued[1].rating and queued[0].provisional
        matches = [await c.matched(timeout=10) for c in clients]
        assert matches[0].room == matches[2].room != matches[1].room == matches[3].room
        assert all(m.seats == 2 and m.bots == 0 for m in matches)
        assert sum(m.host for m in matches) == 2
        room = matches[0].room
        assert clients[0].seats[room][0] in (0, 1) and room in clients[2].seats
        live = server.lobby.rooms[room]
        assert live.table.settings["rated"]
        for _ in range(200):
            if clients[0].views[room]["room"]["status"] == "playing":
                break
            await asyncio.sleep(0.02)
        await clients[0].act(room, ["resign"])
        for _ in range(200):
            if (await server.ratings.ratings(BOARD, [ids[2]]))[ids[2]].games == 3:
                break
            await asyncio.sleep(0.02)
        assert (await server.ratings.ratings(BOARD, [ids[2]]))[ids[2]].games == 3
    finally:
        for c in clients:
            await c.close()


@MEMORY
async def test_bots_fill_after_the_wait(make_server: ServerFactory) -> None:
    server = await make_server(queue_wave_seconds=0.1, queue_bot_after=0.3)
    async with Client(server.url, guest=SECRETS[0]) as alone:
        await alone.queue_join("skipper", "multi", [4])
        match = await alone.matched(timeout=10)
        assert (match.seats, match.bots, match.host) == (4, 3, True)
        for _ in range(200):
            if alone.views[match.room]["room"]["status"] == "playing":
                break
            await asyncio.sleep(0.02)
        assert alone.views[match.room]["room"]["status"] == "playing"


@MEMORY
async def test_leaving_the_queue(make_server: ServerFactory) -> None:
    server = await make_server(queue_wave_seconds=30)
    queue = server.queue.matchmaker
    async with Client(server.url, guest=SECRETS[0]) as one:
        two = Client(server.url, guest=SECRETS[1])
        await two.connect()
        await one.queue_join("skipper", "race", [2])
        await two.queue_join("skipper", "race", [3])
        assert queue.waiting("skipper", "race") == 2
        await one.queue_leave()
        assert queue.waiting("skipper", "race") == 1
        await two.close()
        for _ in range(100):
            if not queue.waiting("skipper", "race"):
                break
            await asyncio.sleep(0.02)
        assert queue.waiting("skipper", "race") == 0


@MEMORY
async def test_queue_join_refusals(make_server: ServerFactory) -> None:
    server = await make_server()
    async with Client(server.url, guest=SECRETS[0]) as player:
        with pytest.raises(ServerError) as err:
            await player.queue_join("skipper", "solo", [2])
        assert err.value.code == "lobby/unknown_game"
    async with Client(server.url) as anonymous:
        with pytest.raises(ServerError) as err:
            await anonymous.queue_join("skipper", "multi", [2])
        assert err.value.code == "auth/required"


QUEUE_TYPES = ("queue_join", "queue_leave", "queued", "matched")


def test_json_schemas_describe_the_queue_messages() -> None:
    """docs/schemas/protocol/TYPE.json accepts every sample message of its type (as sent on
    the wire) and refuses what the protocol refuses."""
    import json
    from pathlib import Path

    import jsonschema
    import msgpack

    from cardhall import protocol as p

    from ..protocol.test_protocol import SAMPLES

    folder = Path(__file__).resolve().parents[2] / "docs" / "schemas" / "protocol"
    schemas = {t: json.loads((folder / f"{t}.json").read_text(encoding="utf-8"))
               for t in QUEUE_TYPES}
    seen = set()
    for msg in SAMPLES:
        if msg.TYPE in schemas:
            jsonschema.validate(msgpack.unpackb(p.encode(msg)), schemas[msg.TYPE])
            seen.add(msg.TYPE)
    assert seen == set(QUEUE_TYPES)
    for tag, bad in (("queue_join", {"t": "queue_join", "game": "skipper", "mode": "multi",
                                     "seats": [5]}),
                     ("queue_join", {"t": "queue_join", "game": "skipper", "mode": "multi",
                                     "seats": [2, 2]}),
                     ("matched", {"t": "matched", "room": "r", "game": "g", "mode": "m",
                                  "seats": 4, "bots": 4, "host": True, "spread": 0})):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(bad, schemas[tag])
        with pytest.raises(p.ProtocolError):
            p.decode(msgpack.packb(bad), side="server" if tag == "matched" else "client")


@MEMORY
async def test_a_player_whose_seat_was_taken_first_goes_back_to_the_queue(
        make_server: ServerFactory) -> None:
    """Between the room's creation and a player's seat, a stranger takes the seat (a join
    through the lobby): that player is not left stranded but waits in the queue again."""
    server = await make_server(queue_wave_seconds=30)
    queue = server.queue
    async with Client(server.url, guest=SECRETS[0]) as one, \
            Client(server.url, guest=SECRETS[1]) as two, \
            Client(server.url, guest=SECRETS[2]) as stranger:
        real = queue.lobby

        class Sniped:
            """The lobby, but the stranger sits in each new room before the queue does."""

            async def create(self, *args: Any) -> Any:
                room = await real.create(*args)
                await stranger.join(room.id)
                return room

        queue.lobby = Sniped()
        await one.queue_join("skipper", "multi", [2])
        await two.queue_join("skipper", "multi", [2])
        tables = await queue.matchmaker.wave()
        assert len(tables) == 1
        first = await one.matched(timeout=10)
        assert first.room in stranger.seats and first.room in one.seats
        assert two.matches.empty() and first.room not in two.seats
        assert queue.matchmaker.waiting("skipper", "multi") == 1  # two waits again


@MEMORY
async def test_bots_near_the_tables_rating_fill_it(make_server: ServerFactory) -> None:
    """The server bots' strategies have ratings of their own; a weak player's table gets
    the strategy rated nearest it (random), and the game rates that strategy's bots."""
    server = await make_server(queue_wave_seconds=0.1, queue_bot_after=0.2)
    async with Client(server.url, guest=SECRETS[0]) as weak:
        assert weak.account is not None
        me = weak.account.account
        for k in range(6):  # expert beats greedy beats random beats the weak player
            await server.ratings.rate(RatedGame(f"old{k}", BOARD, (
                RatedSeat("bot:expert", "e"), RatedSeat("bot:greedy", "g"),
                RatedSeat("bot:random", "r"), RatedSeat(me, "w")), (1, 2, 3, 4)))
        queued = await weak.queue_join("skipper", "multi", [2])
        found = await server.ratings.ratings(BOARD, ["bot:random", "bot:greedy"])
        assert abs(found["bot:random"].shown - queued.rating) < abs(
            found["bot:greedy"].shown - queued.rating)
        match = await weak.matched(timeout=10)
        assert match.bots == 1
        room = server.lobby.rooms[match.room]
        assert room.table.settings["bot_strategy"] == "random"
        keys = [q["key"] for q in room.table.facts()["players"]]  # each seat's rating key
        assert sorted(keys) == sorted([me, "bot:random"]), keys
        await weak.act(match.room, ["resign"], state_id=weak.views[match.room]["state_id"])
        for _ in range(200):
            if (await server.ratings.ratings(BOARD, ["bot:random"]))["bot:random"].games == 7:
                break
            await asyncio.sleep(0.02)
        assert (await server.ratings.ratings(BOARD, ["bot:random"]))["bot:random"].games == 7
