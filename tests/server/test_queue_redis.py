"""Rated play's queue across server processes on Redis (issue #45 item 3,
server/store/queue_redis.py and the shared mode of server/rated_queue.py): one queue per game type
for the whole lobby, a ticket never seated twice however many processes run waves at once,
a dead process's tickets expire, and players connected to two processes are seated at one
table (the seats of the other process's players joined through forwarding)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from cardhall.client.client import Client
from cardhall.server.matchmaking import Ticket, pair
from cardhall.server.store.queue_redis import RedisTickets
from cardhall.server.store.redis_store import RedisStore

from ..conftest import RedisProcess, ServerFactory

QUEUE = "skipper:multi"
SECRETS = [c * 32 for c in "abcdefgh"]


def ticket(key: str, rating: float) -> Ticket:
    return Ticket(key, key, rating, (2,))


async def test_a_ticket_is_claimed_once(redis_server: RedisProcess) -> None:
    """Two processes read the same four tickets and both try to claim the tables they pair:
    each table is claimed by one of them, and a table one of whose tickets left is claimed
    by none."""
    redis_server.flush()
    stores = [RedisStore(redis_server.url), RedisStore(redis_server.url)]
    try:
        queues = [RedisTickets(s.redis, s.health, s.process_id) for s in stores]
        for k, r in enumerate([1500, 1510, 1700, 1710]):
            await queues[k % 2].add(QUEUE, ticket(f"p{k}", r), f"s{k}")
        seen = [await q.tickets(QUEUE) for q in queues]
        assert all(len(s) == 4 for s in seen)
        tables = [pair(s, window=100)[0] for s in seen]
        assert all(len(t) == 2 for t in tables)
        claims = await asyncio.gather(*(q.claim(QUEUE, t.tickets)
                                        for q, ts in zip(queues, tables) for t in ts))
        assert sum(claims) == 2  # each of the two tables once
        assert await queues[0].tickets(QUEUE) == []
        # A table whose ticket left meanwhile is claimed by nobody (and its others stay).
        await queues[0].add(QUEUE, ticket("x", 1500), "sx")
        await queues[0].add(QUEUE, ticket("y", 1500), "sy")
        both = await queues[1].tickets(QUEUE)
        await queues[0].remove(QUEUE, [t.id for t in both if t.key == "x"])
        assert not await queues[1].claim(QUEUE, both)
        assert [t.key for t in await queues[1].tickets(QUEUE)] == ["y"]
    finally:
        for s in stores:
            await s.close()


async def test_a_dead_processs_tickets_expire(redis_server: RedisProcess) -> None:
    redis_server.flush()
    stores = [RedisStore(redis_server.url), RedisStore(redis_server.url)]
    try:
        dying = RedisTickets(stores[0].redis, stores[0].health, stores[0].process_id,
                             alive_seconds=0.3)
        living = RedisTickets(stores[1].redis, stores[1].health, stores[1].process_id)
        await dying.add(QUEUE, ticket("gone", 1500), "s1")
        await living.add(QUEUE, ticket("here", 1500), "s2")
        assert len(await living.tickets(QUEUE)) == 2
        await asyncio.sleep(0.5)  # the dying process renewed nothing
        assert [t.key for t in await living.tickets(QUEUE)] == ["here"]
        assert [t.key for t in await dying.tickets(QUEUE, drop_dead=False)] == ["here"]
    finally:
        for s in stores:
            await s.close()


@pytest.mark.parametrize("store_kind", ["redis"])
async def test_two_processes_seat_each_player_once(make_server: ServerFactory) -> None:
    """Six players, three connected to each of two processes, queue for 2-seat tables with
    equal ratings: every one gets exactly one ``matched``, seated
    in its room, three rooms in all, whichever process ran the waves."""
    servers = [await make_server(queue_wave_seconds=0.1),
               await make_server(queue_wave_seconds=0.1)]
    clients = [Client(servers[k % 2].url, guest=SECRETS[k]) for k in range(6)]
    try:
        for c in clients:
            await c.connect()
        for c in clients:
            await c.queue_join("skipper", "multi", [2])
        matches = [await c.matched(timeout=20) for c in clients]
        rooms = {m.room for m in matches}
        assert len(rooms) == 3
        assert sorted(sum(m.room == r for m in matches) for r in rooms) == [2, 2, 2]
        for c, m in zip(clients, matches):
            for _ in range(100):
                if m.room in c.seats:
                    break
                await asyncio.sleep(0.02)
            assert m.room in c.seats
        # Some player sits in a room the other process runs (seated through forwarding).
        assert any(m.room not in servers[k % 2].lobby.rooms for k, m in enumerate(matches))
        await asyncio.sleep(0.5)  # a second wave seats nobody twice
        assert all(c.matches.empty() for c in clients)
        for s in servers:
            assert not s.queue.local
    finally:
        for c in clients:
            await c.close()


@pytest.mark.parametrize("store_kind", ["redis"])
async def test_a_table_that_cannot_be_seated_puts_its_players_back(
        make_server: ServerFactory) -> None:
    """The first room of a wave cannot be created (the process is full, say): the waves go
    on, its players wait again and the next wave seats them."""
    from cardhall.server.phases import RoomError

    server = await make_server(queue_wave_seconds=0.1)
    real, failed = server.queue.lobby, []

    class Full:
        async def create(self, *args: Any) -> Any:
            if not failed:
                failed.append(1)
                raise RoomError("room/limit", "this server hosts at most 1 rooms")
            return await real.create(*args)

    server.queue.lobby = Full()
    async with Client(server.url, guest=SECRETS[0]) as one, \
            Client(server.url, guest=SECRETS[1]) as two:
        await one.queue_join("skipper", "multi", [2])
        await two.queue_join("skipper", "multi", [2])
        first, second = await one.matched(timeout=10), await two.matched(timeout=10)
        assert failed and first.room == second.room


@pytest.mark.parametrize("store_kind", ["redis"])
async def test_enough_waiting_players_start_a_wave_at_once(make_server: ServerFactory) -> None:
    """Waves every 60 s, a wave at once from 2 tickets: two players, one connected to each
    of two processes, are matched within seconds (the join that makes the queue long
    enough runs a wave there and then). On the old code the first wave waits 60 s."""
    servers = [await make_server(queue_wave_seconds=60.0),
               await make_server(queue_wave_seconds=60.0)]
    for s in servers:
        s.queue.matchmaker.wave_at = 2
    clients = [Client(servers[k].url, guest=SECRETS[k]) for k in range(2)]
    try:
        for c in clients:
            await c.connect()
        await clients[0].queue_join("skipper", "multi", [2])
        await asyncio.sleep(0.3)
        assert clients[0].matches.empty()  # one waiting: no wave yet
        await clients[1].queue_join("skipper", "multi", [2])
        matches = [await c.matched(timeout=5) for c in clients]
        assert matches[0].room == matches[1].room
    finally:
        for c in clients:
            await c.close()
