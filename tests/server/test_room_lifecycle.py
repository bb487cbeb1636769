"""A room's life from creation to removal (issue #35): a finished room is freed by reference
counting alone, and rooms nobody plays in expire. Each server test runs on both stores."""

from __future__ import annotations

import asyncio
import gc
from collections.abc import Iterator

import pytest
import websockets

from cardhall import protocol as p
from cardhall.client.bots import play_games
from cardhall.client.client import Client, ServerError
from cardhall.server.app import Server
from cardhall.server.room import Room

from ..conftest import ServerFactory


@pytest.fixture
def no_cycle_collector() -> Iterator[None]:
    """Python's cycle collector off for the test: whatever is freed, reference counting
    freed (the collector runs once first, so that earlier garbage does not count)."""
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def live_rooms(ids: set[str]) -> set[str]:
    """The ids among ``ids`` of :class:`Room` objects still alive (the cycle collector's list
    of the objects it tracks: the compiled build's rooms take no weak reference)."""
    return {o.id for o in gc.get_objects() if type(o) is Room and o.id in ids}


async def wait_until_removed(server: Server, room: str, seconds: float = 10.0) -> None:
    """Wait until the lobby of ``server`` no longer runs ``room``."""
    for _ in range(int(seconds / 0.02)):
        if room not in server.lobby.rooms:
            return
        await asyncio.sleep(0.02)
    raise AssertionError(f"room {room} was not removed in {seconds} s")


@pytest.mark.usefixtures("no_cycle_collector")
async def test_a_finished_room_is_freed_without_the_cycle_collector(
        make_server: ServerFactory) -> None:
    """Issue #35 defect 1: the ``Room`` of a finished and removed game, solo or with a
    server bot, a turn timer and a spectator, is freed by reference counting (its ended
    task's cancellation traceback held it in a cycle before)."""
    server = await make_server(finished_ttl=0.05)
    freed: set[str] = set()
    async with Client(server.url) as host, Client(server.url) as watcher:
        solo = await host.create_room("skipper", mode="solo")
        await host.join(solo.room)
        freed.add(solo.room)
        await host.act(solo.room, ["resign"])
        multi = await host.create_room("skipper", mode="multi", seats=2,
                                       options={"turn_seconds": 30})
        await host.join(multi.room)
        await watcher.spectate(multi.room)
        freed.add(multi.room)
        assert live_rooms(freed) == freed  # the scan sees a live room
        await host.start(multi.room)
        await host.get_view(multi.room)
        for _ in range(100):  # the bot may have moved since: act on the latest view
            try:
                await host.act(multi.room, ["resign"])
                break
            except Exception:
                await host.get_view(multi.room)
        await wait_until_removed(server, solo.room)
        await wait_until_removed(server, multi.room)
    await asyncio.sleep(0.1)  # the connections' tasks end
    assert live_rooms(freed) == set()


async def spam(url: str, address: str, connections: int) -> tuple[int, set[str]]:
    """``connections`` connections from ``address`` one after another, each creating rooms
    until refused. Returns (rooms created, refusal codes seen)."""
    created, codes = 0, set()
    for _ in range(connections):
        async with websockets.connect(url, compression=None, local_addr=(address, 0)) as ws:
            await ws.send(p.encode(p.Hello(v=p.PROTOCOL_VERSION, client="spam")))
            await ws.recv()
            for rid in range(1, 100):
                await ws.send(p.encode(p.CreateRoom(game="skipper", mode="multi", seats=4,
                                                    options={}, id=rid)))
                reply = p.decode(await ws.recv(), side="server")
                if not isinstance(reply, p.RoomCreated):
                    codes.add(getattr(reply, "code", reply.TYPE))
                    break
                created += 1
    return created, codes


async def test_create_spam_from_four_addresses_leaves_room_for_a_bots_game(
        make_server: ServerFactory) -> None:
    """Issue #35 defect 2, a short drill (benchmarks/createspam.py is the long one): 4
    addresses reconnect and create rooms until refused, 30 connections each; a bots game
    from a fifth address beside them creates its room and plays it to the end. Before,
    each connection got its own allowance, the spam filled the cap and the bots game was
    refused ``room/limit``."""
    server = await make_server(max_rooms=200, rooms_per_minute_per_address=30)
    addresses = ("127.0.0.2", "127.0.0.3", "127.0.0.4", "127.0.0.5")
    results = list(await asyncio.gather(*(spam(server.url, a, 20) for a in addresses)))
    spammers = asyncio.gather(*(spam(server.url, a, 10) for a in addresses))
    records = await play_games([server.url], "skipper", "multi", 2, 1, timeout=120)
    results += await spammers
    assert records[0]["state_id"] > 0 and records[0]["outcome"]
    assert sum(created for created, _ in results) <= 4 * 30 + 4  # the allowance, at most
    assert {code for _, codes in results for code in codes} == {"room/limit"}


async def test_room_creation_is_limited_per_address_across_connections(
        make_server: ServerFactory) -> None:
    server = await make_server(rooms_per_minute_per_address=4, rooms_per_minute=None)
    for _ in range(2):
        async with Client(server.url) as c:
            await c.create_room("skipper")
            await c.create_room("skipper")
    async with Client(server.url) as c:
        with pytest.raises(ServerError) as err:
            await c.create_room("skipper")  # a fresh connection gets no fresh allowance
        assert err.value.code == "room/limit" and "from one address" in err.value.message
    assert (await spam(server.url, "127.0.0.2", 1))[0] == 4  # another address: its own


async def test_a_waiting_room_nobody_sits_in_expires(make_server: ServerFactory) -> None:
    """A waiting room nobody sits in is removed ``empty_room_ttl`` after its creation (its
    spectators are told: ``error room/closed``, then ``left``); one with a seated player
    stays, and becomes empty (and expires) when that player leaves. (Two seconds: the
    host's join and the watcher's spectate must land before then; at 0.3 s a slow Redis
    round once let the kept room expire first.)"""
    server = await make_server(empty_room_ttl=2.0)
    async with Client(server.url) as host, Client(server.url) as watcher:
        empty = (await host.create_room("skipper", mode="multi", seats=2)).room
        kept = (await host.create_room("skipper", mode="multi", seats=2)).room
        await host.join(kept)
        await watcher.spectate(empty)
        await wait_until_removed(server, empty, 5)
        assert kept in server.lobby.rooms
        for _ in range(100):
            if empty not in watcher.spectating:
                break
            await asyncio.sleep(0.02)
        assert empty not in watcher.spectating
        assert [n.code for n in watcher.notices] == ["room/closed"]
        await host.leave(kept)
        await wait_until_removed(server, kept, 5)


async def test_a_waiting_room_whose_players_dropped_expires_after_their_grace(
        make_server: ServerFactory) -> None:
    server = await make_server(empty_room_ttl=600)
    async with Client(server.url, reconnect=False) as host:
        room = (await host.create_room("skipper", mode="multi", seats=2,
                                       options={"grace_seconds": 0.3})).room
        await host.join(room)
    await wait_until_removed(server, room, 5)  # its grace, not the 600 s of an empty room


async def test_at_the_cap_an_empty_waiting_room_gives_way(make_server: ServerFactory) -> None:
    """Only rooms somebody sits in count against ``max_rooms``: at the cap, a new room
    takes the place of the waiting room nobody has sat in for the longest."""
    server = await make_server(max_rooms=3)
    async with Client(server.url) as spammer, Client(server.url) as player:
        first = (await spammer.create_room("skipper", mode="multi", seats=2)).room
        await spammer.create_room("skipper", mode="multi", seats=2)
        taken = (await spammer.create_room("skipper", mode="multi", seats=2)).room
        await spammer.join(taken)
        joined = await player.quick_join("skipper", mode="multi", seats=3)
        assert first not in server.lobby.rooms and joined.room in server.lobby.rooms
        assert taken in server.lobby.rooms
