"""Lobby routing and takeover: one live copy of a room per process, and fenced stale copies.

The store is a real redis-server (``redis_server``); delays injected into the store's calls
let several routes of one room interleave with a takeover in one process.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest

from cardhall import protocol as p
from cardhall.client.client import Client
from cardhall.server.app import Server
from cardhall.server.config import Settings
from cardhall.server.store.redis_store import RedisStore
from cardhall.server.room import Room
from cardhall.server.store.memory_store import MemoryStore
from cardhall.server.store.ports import Lease, Loaded, OwnershipLost

from ..conftest import RedisProcess, serving
from ..room_harness import Recorder


class SlowStore(RedisStore):
    """A Redis store whose owner lookups, acquisitions and loads take ``delay`` seconds
    longer (a loaded Redis), so that routes of one room overlap a takeover."""

    delay = 0.1

    async def owner(self, room_id: str) -> str | None:
        await asyncio.sleep(self.delay)
        return await super().owner(room_id)

    async def acquire(self, room_id: str) -> Lease | None:
        await asyncio.sleep(self.delay)
        return await super().acquire(room_id)

    async def load(self, room_id: str, *, lease: Lease | None = None) -> Loaded | None:
        await asyncio.sleep(2 * self.delay)
        return await super().load(room_id, lease=lease)


@pytest.fixture
async def orphan(redis_server: RedisProcess) -> AsyncIterator[tuple[str, RedisStore]]:
    """A started 2-seat room created by a process that then died (its lease released):
    its id and that process's store."""
    redis_server.flush()
    store = RedisStore(redis_server.url)
    server = Server(Settings(port=0), store)
    host = Recorder("host", [])
    room = await server.lobby.create(host, p.CreateRoom(  # type: ignore[arg-type]
        game="skipper", mode="multi", seats=2))
    await room.close()
    await store.release(room.id)
    yield room.id, store
    await store.close()


@pytest.fixture
async def taker(redis_server: RedisProcess) -> AsyncIterator[Server]:
    """A server (not listening) whose store is slow."""
    server = Server(Settings(port=0), SlowStore(redis_server.url))
    yield server
    for room in list(server.lobby.rooms.values()):
        await room.close()
    await server.store.close()


async def test_concurrent_routes_take_a_room_over_once(orphan: tuple[str, RedisStore],
                                                       taker: Server) -> None:
    """Routes of one ownerless room start while a takeover of it runs and after it ended
    (their owner lookup answered before it did): every one gets the same, single copy."""
    # Counted at the store's load (each copy of the room is built from one: Lobby._load);
    # the compiled build's Room takes no patched from_loaded.
    room_id, _ = orphan
    lobby = taker.lobby
    loads: list[Loaded] = []
    load = taker.store.load

    async def counting(room_id: str, **kwargs: Any) -> Loaded | None:
        loaded = await load(room_id, **kwargs)
        if loaded is not None:
            loads.append(loaded)
        return loaded

    routes = []
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(taker.store, "load", counting)
        for _ in range(8):  # one every 50 ms: during the takeover (400 ms) and after it
            routes.append(asyncio.create_task(lobby.route(room_id)))
            await asyncio.sleep(0.05)
        results = await asyncio.wait_for(asyncio.gather(*routes), 10)
    assert len(loads) == 1, f"{len(loads)} copies of the room were loaded"
    room = lobby.rooms[room_id]
    assert isinstance(room, Room)
    assert all(r is room for r in results) and lobby.rooms == {room_id: room}
    assert room.lease is not None and room.lease.process == taker.store.process_id


class LosingStore(RedisStore):
    """A Redis store whose acquisition waits for ``go`` and then loses the race: ``rival``
    (another process) acquires the room just before it does."""

    def __init__(self, url: str, rival: RedisStore) -> None:
        super().__init__(url)
        self.rival = rival
        self.acquiring = asyncio.Event()
        self.go = asyncio.Event()

    async def acquire(self, room_id: str) -> Lease | None:
        self.acquiring.set()
        await self.go.wait()
        assert await self.rival.acquire(room_id) is not None
        return await super().acquire(room_id)


async def test_routes_waiting_on_a_lost_takeover_get_the_new_owner(
        orphan: tuple[str, RedisStore], redis_server: RedisProcess) -> None:
    """A route that finds a takeover of the room under way waits for it; when another
    process acquired the room first (the takeover found nothing), it routes to that
    process, as the route that ran the takeover does (never None)."""
    room_id, rival = orphan
    store = LosingStore(redis_server.url, rival)
    server = Server(Settings(port=0), store)
    try:
        first = asyncio.create_task(server.lobby.route(room_id))
        await asyncio.wait_for(store.acquiring.wait(), 10)  # its takeover is under way
        second = asyncio.create_task(server.lobby.route(room_id))
        for _ in range(10):  # let the second route find the takeover and wait for it
            await asyncio.sleep(0)
        store.go.set()
        results = await asyncio.wait_for(asyncio.gather(first, second), 10)
        assert server.lobby.rooms == {}
    finally:
        await store.close()
    assert results == [rival.process_id, rival.process_id]


async def test_a_stale_copy_is_fenced_and_demoted_alone(orphan: tuple[str, RedisStore],
                                                        taker: Server) -> None:
    """The process acquires a room again (a newer copy, as after a demotion) while the
    older copy still runs: the older copy's writes are refused by the lease's epoch, its
    renewal reports it lost, and demoting it leaves the newer copy alone."""
    room_id, _ = orphan
    lobby, store = taker.lobby, taker.store
    old = await lobby.route(room_id)
    assert isinstance(old, Room) and old.lease is not None
    del lobby.rooms[room_id]  # as a demotion does first; the old copy's task still runs
    new = await lobby.route(room_id)
    assert isinstance(new, Room) and new is not old
    assert new.lease is not None and new.lease != old.lease
    assert await store.owner(room_id) == store.process_id  # same process, newer epoch
    state = old.table.state()
    with pytest.raises(OwnershipLost):
        await store.append(room_id, [["a", 0, ["draw"]]], old.table.state_id, state,
                           lease=old.lease)
    with pytest.raises(OwnershipLost):
        await old.save_state()
    assert await store.log(room_id) == []  # nothing of the old copy was written
    await new.save_state()  # the current copy writes
    assert await store.renew({room_id: old.lease}) == [room_id]
    assert await store.renew({room_id: new.lease}) == []
    await lobby.demote(old)
    assert lobby.rooms == {room_id: new}
    await old.close()


async def test_an_expired_lease_is_renewed_only_if_nobody_acquired_it(
        orphan: tuple[str, RedisStore], taker: Server) -> None:
    """A lease that expired while its owner could not renew (Redis down) is taken back by
    the owner's renewal or next fenced write, unless the room was acquired meanwhile."""
    room_id, other = orphan
    room = await taker.lobby.route(room_id)
    assert isinstance(room, Room) and room.lease is not None
    redis = taker.store.redis  # type: ignore[attr-defined]
    lease_key = f"cardhall:{{room:{room_id}}}:owner"
    await redis.delete(lease_key)  # expired
    assert await taker.store.renew({room_id: room.lease}) == []
    assert await other.owner(room_id) == taker.store.process_id
    await redis.delete(lease_key)
    await room.save_state()  # a write takes it back too
    assert await other.owner(room_id) == taker.store.process_id
    assert 0 < await redis.pttl(lease_key) <= 1000 * taker.store.lease_seconds
    await redis.delete(lease_key)  # expired, and then ...
    assert await other.acquire(room_id) is not None  # ... another process took it
    assert await taker.store.renew({room_id: room.lease}) == [room_id]
    with pytest.raises(OwnershipLost):
        await room.save_state()
    assert await other.owner(room_id) == other.process_id


async def test_an_append_that_landed_unanswered_makes_the_room_reload_not_move(
        redis_server: RedisProcess) -> None:
    """An append can find its own entry already in the log: redis-py resends a script whose
    connection failed, and the first send had landed. The store then answers CONFLICT while
    this copy still holds the lease. Nothing is lost and the room is still this copy's: it
    reloads from the store (the entry landed) and runs on under the same lease. Before,
    CONFLICT was taken for a lost lease: the room was demoted and taken over again."""
    redis_server.flush()
    store = RedisStore(redis_server.url)
    server = Server(Settings(port=0), store)
    writes: list[tuple[str, list[str]]] = []
    try:
        host = Recorder("host", writes)
        room = await server.lobby.create(host, p.CreateRoom(  # type: ignore[arg-type]
            game="skipper", mode="multi", seats=2))
        seats = [Recorder(f"seat{i}", writes) for i in range(2)]
        for i, conn in enumerate(seats):
            await room.apply(room.table.join(conn, i, reply=False))  # type: ignore[arg-type]
        await room.apply(room.table.start(None))
        lease, sid = room.lease, room.table.state_id
        seat = room.table.game.to_act()[0]
        action = list(room.table.game.legal_actions(seat)[0])
        # The first send of the append landed; its answer never came.
        await store.append(room.id, [["a", seat, action]], sid, room.table.state(), lease=lease)
        writes.clear()
        await room.play(seats[seat], p.Act(room=room.id, state_id=sid, action=action, id=1))
        assert ("seat%d" % seat, ["error"]) in writes  # told: fate unknown, choose again
        for _ in range(200):  # the reload (backoff from 50 ms) brings the landed entry in
            if not room.table.reloading:
                break
            await asyncio.sleep(0.02)
        assert not room.table.reloading
        assert room.table.state_id == sid + 1 == len(await store.log(room.id))
        assert server.lobby.rooms.get(room.id) is room and room.lease == lease
        held = await store.redis.get(f"cardhall:{{room:{room.id}}}:owner")
        assert held is not None and held.decode() == str(lease)  # not given up, not retaken
    finally:
        for room in list(server.lobby.rooms.values()):
            await room.close()
        await store.close()


class StallingStore(RedisStore):
    """A Redis store that can stall as a paused process does: once ``stall`` is set, its
    lease renewals and the reply of its next append wait until ``wake`` is set (the append
    itself lands in Redis at once)."""

    def __init__(self, url: str) -> None:
        super().__init__(url, lease_seconds=1.0)
        self.stall = False
        self.wake = asyncio.Event()
        self.appended = asyncio.Event()

    async def renew(self, leases: Any) -> list[str]:
        if self.stall:
            await self.wake.wait()
        return await super().renew(leases)

    async def append(self, *args: Any, **kwargs: Any) -> None:
        await super().append(*args, **kwargs)
        if self.stall:
            self.appended.set()
            await self.wake.wait()


class Watching(Client):
    """A client that notes every update it was sent older than the view it held."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.older: list[tuple[int, int]] = []

    def _dispatch(self, msg: p.Message) -> None:
        if isinstance(msg, p.Update) and msg.room in self.views:
            held = self.views[msg.room].get("state_id", -1)
            if msg.state_id < held:
                self.older.append((held, msg.state_id))
        super()._dispatch(msg)


async def test_a_woken_owner_sends_no_stale_frame(redis_server: RedisProcess) -> None:
    """Issue #35 defect 3: the owner of a room stalls (its lease renewals and the reply of
    an append it made wait, as in a paused process) past its lease; the other process
    takes the room over and the game goes on there. When the stalled owner wakes, its
    append's reply comes in: it must not send that old state to anyone (before, every
    member got an update older than its view)."""
    redis_server.flush()
    owner_store = StallingStore(redis_server.url)
    owner = Server(Settings(host="127.0.0.1", port=0, msg_rate=None), owner_store)
    other = Server(Settings(host="127.0.0.1", port=0, msg_rate=None),
                   RedisStore(redis_server.url, lease_seconds=1.0))
    await owner.start()
    await other.start()
    try:
        async with Client(owner.url) as host, Watching(other.url) as a, \
                Watching(other.url) as b:  # the seats reach the room through the other
            room = (await host.create_room("skipper", mode="multi", seats=2)).room
            await a.join(room)
            await b.join(room)  # full: it starts
            for _ in range(200):
                if any(c.views[room]["legal_actions"] for c in (a, b)):
                    break
                await asyncio.sleep(0.02)
            mover = a if a.views[room]["legal_actions"] else b
            owner_store.stall = True
            sid = mover.views[room]["state_id"]
            act = asyncio.create_task(mover.act(room, mover.views[room]["legal_actions"][0]))
            await asyncio.wait_for(owner_store.appended.wait(), 10)
            for _ in range(200):  # the other process takes the room over
                if room in other.lobby.rooms:
                    break
                await asyncio.sleep(0.05)
            assert room in other.lobby.rooms
            for _ in range(100):  # its full views reach both seats: the append landed
                if all(c.views[room]["state_id"] == sid + 1 for c in (a, b)):
                    break
                await asyncio.sleep(0.05)
            nxt = a if a.views[room]["legal_actions"] else b
            await nxt.act(room, nxt.views[room]["legal_actions"][0])  # the game goes on
            for _ in range(100):
                if all(c.views[room]["state_id"] == sid + 2 for c in (a, b)):
                    break
                await asyncio.sleep(0.05)
            views = [c.views[room]["state_id"] for c in (a, b)]
            owner_store.wake.set()  # the owner wakes: the append's reply comes in
            await asyncio.sleep(1.0)
            act.cancel()
            assert views == [sid + 2, sid + 2]
            assert (a.older, b.older) == ([], [])
    finally:
        owner_store.wake.set()
        await owner.stop()
        await other.stop()


class _StartGate(MemoryStore):
    """A memory store that holds back the save of a started room's state (status
    ``playing``) until :attr:`gate` is set; :attr:`holding` is set while it waits."""

    def __init__(self) -> None:
        super().__init__()
        self.gate = asyncio.Event()
        self.holding = asyncio.Event()

    async def save_state(self, room_id: str, state: dict[str, Any],
                         summary: dict[str, Any], *, lease: Lease | None = None) -> None:
        if state.get("status") == "playing" and not self.gate.is_set():
            self.holding.set()
            await self.gate.wait()
        await super().save_state(room_id, state, summary, lease=lease)


@pytest.mark.parametrize("how", ["start", "full"])
async def test_a_start_is_saved_before_anyone_is_told(how: str) -> None:
    """Nobody hears of a start (``started``, a view with the deal) before the store holds
    the started state: a process that takes the room over in between would find it waiting
    while its players were playing (a full-suite run saw ``room/not_started`` after a
    takeover). Started by the host (``start``) or by the player who fills the last seat."""
    store = _StartGate()
    async with serving(lambda: store, msg_rate=None) as make:
        server = await make()
        async with Client(server.url) as host, Client(server.url) as guest:
            room = (await host.create_room("skipper", mode="multi", seats=2)).room
            await host.join(room)
            pending = asyncio.create_task(
                host.start(room) if how == "start" else guest.join(room))
            async with asyncio.timeout(5):
                await store.holding.wait()
            await asyncio.sleep(0.3)  # time for any frame sent before the save to arrive
            assert host.views[room]["room"]["status"] == "waiting"
            assert not host.views[room]["legal_actions"]
            store.gate.set()
            async with asyncio.timeout(5):
                await pending
                while host.views[room]["room"]["status"] != "playing":
                    await asyncio.sleep(0.01)
            loaded = await store.load(room)
            assert loaded is not None and loaded.state["status"] == "playing"
