"""A room whose store fails (``server/room/driver.py``): the engine never shows what the
store may not hold, and the room recovers by itself once the store is back (issue #18, defect 2).

An append that fails (Redis down, or its reply lost) leaves the room "broken": the engine
is rolled back to the last state the store is known to hold, ``get_view`` and ``act``
answer ``server/unavailable``, and the room reloads from the store with backoff; once that
succeeds every member gets the true state, turn timers are re-armed and server bots move
again. Run on both stores (an outage made by switching the store's appends and loads off),
and with a real redis-server stopped and restarted.
"""

from __future__ import annotations

import asyncio
import random
import shutil
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from cardhall import protocol as p
from cardhall.client.client import Client, ServerError
from cardhall.server.app import Server
from cardhall.games import get
from cardhall.games.bots import strategy
from cardhall.games.skipper import Skipper
from cardhall.server.store.redis_store import RedisStore
from cardhall.games import replay as replay_log
from cardhall.server.room import SNAPSHOT_EVERY, Room
from cardhall.server.store.memory_store import MemoryStore
from cardhall.server.store.ports import Lease, Loaded, LogEntry, Store, StoreError
from cardhall.server.phases import Phase

from ..conftest import RedisProcess, serving
from ..room_harness import Recorder, WriteLog, started_room

GREEDY = strategy("skipper", "greedy")


class Outage:
    """Switches a store's appends and loads off and on (an outage of Redis, as the room
    sees it), on the store object itself, whichever store it is.

    Attributes:
        down: While True, ``append`` and ``load`` raise :class:`StoreError`.
        landed: While down, an append still writes before it fails (its reply was lost:
            "nothing may be assumed written" cuts both ways).
        failed: Appends that failed so far.
    """

    def __init__(self, store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
        self.append, self.load = store.append, store.load
        self.append_now = store.append_now
        self.down = False
        self.landed = False
        self.failed = 0
        monkeypatch.setattr(store, "append", self._append)
        monkeypatch.setattr(store, "append_now", self._append_now)
        monkeypatch.setattr(store, "load", self._load)

    def _append_now(self, room_id: str, entries: Sequence[LogEntry], expect: int,
                    state: dict[str, Any] | None, *, lease: Lease | None = None) -> bool:
        if not self.down:
            return self.append_now(room_id, entries, expect, state, lease=lease)
        if self.landed and not self.append_now(room_id, entries, expect, state, lease=lease):
            return False  # not at once: the awaited append lands, then fails
        self.failed += 1
        raise StoreError("store down (test)")

    async def _append(self, room_id: str, entries: Sequence[LogEntry], expect: int,
                      state: dict[str, Any] | None, *, lease: Lease | None = None) -> None:
        if not self.down:
            return await self.append(room_id, entries, expect, state, lease=lease)
        if self.landed:
            await self.append(room_id, entries, expect, state, lease=lease)
        self.failed += 1
        raise StoreError("store down (test)")

    async def _load(self, room_id: str, *, lease: Lease | None = None) -> Any:
        if self.down:
            raise StoreError("store down (test)")
        return await self.load(room_id, lease=lease)


async def until(check: Any, seconds: float, what: str) -> Any:
    """Poll ``check()`` (sync or async) every 20 ms until it is truthy; its value.

    Raises:
        AssertionError: still falsy after ``seconds``.
    """
    deadline = time.monotonic() + seconds
    while True:
        value = check()
        if asyncio.iscoroutine(value):
            value = await value
        if value:
            return value
        assert time.monotonic() < deadline, f"not within {seconds} s: {what}"
        await asyncio.sleep(0.02)


async def watch_bots_play(host: Client) -> str:
    """``host`` starts a 2-seat Skipper ``multi`` room without sitting down (both seats go
    to server bots, 0.02 s per action) and watches it until the bots have played 3 actions;
    the room's id."""
    room = (await host.create_room("skipper", mode="multi", seats=2, options={
        "bot_seconds": 0.02})).room
    await host.spectate(room)
    await host.start(room)
    await until(lambda: host.views.get(room, {}).get("state_id", 0) >= 3, 30, "the bots play")
    return room


async def view_when_back(c: Client, room: str, seconds: float = 20.0) -> dict[str, Any]:
    """``get_view`` until the room answers (``server/unavailable`` while it reloads)."""
    async def attempt() -> dict[str, Any] | None:
        try:
            return await c.get_view(room)
        except ServerError as exc:
            assert exc.code == "server/unavailable"
            return None

    return await until(attempt, seconds, "the room answers get_view again")  # type: ignore


async def replay(server: Server, room: str) -> Any:
    """The game rebuilt from the store's record and whole log."""
    loaded = await server.store.load(room)
    assert loaded is not None
    rec = loaded.record
    return replay_log(get(rec["game"]), rec["options"], rec["seats"],
                      await server.store.log(room))


@pytest.mark.parametrize("landed", [False, True], ids=["lost", "landed"])
async def test_a_failed_append_shows_no_unsaved_state_and_the_room_recovers(
        server: Server, monkeypatch: pytest.MonkeyPatch, landed: bool) -> None:
    outage = Outage(server.store, monkeypatch)
    async with Client(server.url) as c:
        room = (await c.create_room("skipper", options={"seed": 2})).room
        await c.join(room)
        view = await c.get_view(room)
        sid = view["state_id"]
        outage.down, outage.landed = True, landed
        with pytest.raises(ServerError) as err:
            await c.act(room, view["legal_actions"][0], sid)
        assert err.value.code == "server/unavailable"
        # Whether the action was applied is unknown: the reply must not claim either way.
        assert "not applied" not in err.value.message
        held = len(await server.store.log(room))
        assert held == sid + landed
        # The live engine was put back at once to what the store is known to hold.
        assert server.lobby.rooms[room].table.game.state_id == sid
        # While the room cannot reach its store it shows nothing the store may not hold.
        with pytest.raises(ServerError) as err:
            await c.get_view(room)
        assert err.value.code == "server/unavailable"
        assert c.views[room]["state_id"] == sid
        await asyncio.sleep(0.3)  # a few reloads fail meanwhile
        outage.down = False
        view = await view_when_back(c, room)
        assert view["state_id"] == held == len(await server.store.log(room))
        await c.act(room, view["legal_actions"][0], view["state_id"])  # accepted
        assert len(await server.store.log(room)) == held + 1
        view = await c.get_view(room)
        assert view["state_id"] == held + 1
        live = server.lobby.rooms[room].table.game
        assert live.snapshot() == (await replay(server, room)).snapshot()


async def test_a_server_bot_whose_append_failed_moves_again_and_finishes(
        server: Server, monkeypatch: pytest.MonkeyPatch) -> None:
    # The host starts a 2-seat room without sitting down: both seats go to server bots,
    # which play until the game ends; the host watches.
    outage = Outage(server.store, monkeypatch)
    async with Client(server.url) as host:
        room = await watch_bots_play(host)
        outage.down = True
        await until(lambda: outage.failed, 30, "a bot's append fails")
        held = len(await server.store.log(room))
        await asyncio.sleep(0.5)
        assert len(await server.store.log(room)) == held  # nothing got through meanwhile
        assert host.views[room]["state_id"] <= held  # nor was shown
        outage.down = False
        back = time.monotonic()

        async def moved() -> bool:
            return len(await server.store.log(room)) > held

        await until(moved, 15, "a bot moves again after the store is back")
        assert time.monotonic() - back < 10  # seconds, not never (a wide margin)
        await until(lambda: host.views[room].get("over"), 120, "the game ends")
        game = await replay(server, room)
        assert game.over and game.state_id == host.views[room]["state_id"]
        assert server.lobby.rooms[room].table.game.snapshot() == game.snapshot()


async def test_a_turn_timer_that_fired_during_an_outage_fires_again_after_it(
        server: Server, monkeypatch: pytest.MonkeyPatch) -> None:
    outage = Outage(server.store, monkeypatch)
    a, b = Client(server.url, name="a"), Client(server.url, name="b")
    async with a, b:
        room = (await a.create_room("skipper", mode="multi", seats=2, options={
            "turn_seconds": 0.4, "bid_seconds": 0.4})).room
        outage.down = True  # before the room starts: the first turn times out in the outage
        await a.join(room)
        await b.join(room)  # full: the room starts; nobody ever acts
        await until(lambda: outage.failed, 30, "the turn timer fires and its append fails")
        view = a.views[room]
        assert view["state_id"] == 0
        late = view["to_act"]
        await asyncio.sleep(0.5)
        assert await server.store.log(room) == []
        outage.down = False
        back = time.monotonic()

        async def defaults_played() -> list[LogEntry]:
            return [e for e in await server.store.log(room) if e[1] in late]

        played = await until(defaults_played, 15, "the timer fires again after the outage")
        assert time.monotonic() - back < 10
        assert all(e[2][0] in ("end", "discard", "pass") for e in played)
        game = await replay(server, room)
        assert server.lobby.rooms[room].table.game.snapshot()["state_id"] >= game.state_id > 0


async def test_a_forfeit_whose_append_failed_is_made_after_the_outage(
        server: Server, monkeypatch: pytest.MonkeyPatch) -> None:
    outage = Outage(server.store, monkeypatch)
    a, b = Client(server.url), Client(server.url, reconnect=False)
    async with a, b:
        room = (await a.create_room("skipper", mode="multi", seats=2, options={
            "on_abandon": "forfeit", "grace_seconds": 0.1})).room
        await a.join(room)
        await b.join(room)
        outage.down = True
        await b.drop()  # no reconnect: after 0.1 s the seat forfeits, in the outage
        await until(lambda: outage.failed, 30, "the forfeit's append fails")
        await asyncio.sleep(0.3)
        outage.down = False
        async with asyncio.timeout(30):
            async for msg in a.updates():
                if isinstance(msg, p.GameOver):
                    assert msg.outcome["reason"] == "last_standing"
                    break
        entries = await server.store.log(room)
        assert [e[0] for e in entries] == ["f"]
        assert (await replay(server, room)).outcome()["winner"] == 0


async def test_a_client_refetching_its_view_waits_for_the_room_to_reload(
        server: Server, monkeypatch: pytest.MonkeyPatch) -> None:
    # A client that missed an update fetches its full view (Client._refetch); should the
    # room answer server/unavailable (reloading), it asks again until the room is back.
    outage = Outage(server.store, monkeypatch)
    async with Client(server.url) as c:
        room = (await c.create_room("skipper", options={"seed": 2})).room
        await c.join(room)
        view = await c.get_view(room)
        outage.down = True
        with pytest.raises(ServerError):
            await c.act(room, view["legal_actions"][0], view["state_id"])
        c._desynced.add(room)  # as after a gap in state ids: deltas no longer apply
        refetch = asyncio.ensure_future(c._refetch(room))
        await asyncio.sleep(0.3)
        outage.down = False
        await asyncio.wait_for(refetch, 30)
        assert room not in c._desynced
        assert c.views[room]["state_id"] == len(await server.store.log(room))


@pytest.fixture
def redis_proc(tmp_path: Path) -> Iterator[RedisProcess]:
    """A redis-server of this test alone (it is stopped and restarted)."""
    if shutil.which("redis-server") is None:
        pytest.skip("redis-server is not installed")
    proc = RedisProcess(tmp_path)
    proc.start()
    yield proc
    proc.stop()


async def test_server_bots_play_on_after_redis_is_restarted(
        redis_proc: RedisProcess, caplog: pytest.LogCaptureFixture) -> None:
    async with serving(lambda: RedisStore(redis_proc.url), msg_rate=None) as make:
        server = await make()
        async with Client(server.url) as host:
            room = await watch_bots_play(host)
            redis_proc.stop()  # a clean shutdown: the append-only file is complete
            stopped = host.views[room]["state_id"]
            # Longer than redis-py's own retries of a command (about 0.7 s), shorter than a
            # room lease (3 s).
            await asyncio.sleep(1.5)
            redis_proc.start()
            await until(lambda: host.views[room]["state_id"] > stopped + 1, 20,
                        "the bots play on after the restart")
            await until(lambda: host.views[room].get("over"), 120, "the game ends")
            game = await replay(server, room)
            assert game.over and game.state_id == host.views[room]["state_id"]
            assert server.lobby.rooms[room].table.game.snapshot() == game.snapshot()
        assert any("append failed" in r.getMessage() for r in caplog.records)  # it was felt


class FlakyStore(MemoryStore):
    """A memory store whose appends and loads fail while ``down``."""

    down = False

    async def append(self, room_id: str, entries: Sequence[LogEntry], expect: int,
                     state: dict[str, Any] | None, *, lease: Lease | None = None) -> None:
        if self.down:
            raise StoreError("store down (test)")
        await super().append(room_id, entries, expect, state, lease=lease)

    def append_now(self, room_id: str, entries: Sequence[LogEntry], expect: int,
                   state: dict[str, Any] | None, *, lease: Lease | None = None) -> bool:
        if self.down:
            raise StoreError("store down (test)")
        return super().append_now(room_id, entries, expect, state, lease=lease)

    async def load(self, room_id: str, *, lease: Lease | None = None) -> Loaded | None:
        if self.down:
            raise StoreError("store down (test)")
        return await super().load(room_id, lease=lease)


async def _greedy_act(room: Room, seats: list[Recorder], rid: int) -> int:
    """One greedy action of the seat to act, through :meth:`Room.play`; the state id it was
    chosen against."""
    game = room.table.game
    seat = game.to_act()[0]
    action = GREEDY(game.bot_view(seat), random.Random(rid))
    sid = game.state_id
    await room.play(seats[seat], p.Act(room=room.id, state_id=sid,  # type: ignore[arg-type]
                                       action=list(action), id=rid))
    return sid


async def _check_rollback(r: Room, store: FlakyStore, seats: list[Recorder],
                          log: WriteLog) -> None:
    """An append of ``r`` fails: its engine is the stored state at once, and after the
    store is back the room reloads and accepts the next action."""
    stored = replay_log(Skipper, r.table.game.options, 2, await store.log("r1"))
    store.down = True
    log.clear()
    sid = await _greedy_act(r, seats, 2000)
    assert [t for _, t in log] == [["error"]]  # server/unavailable, nothing else
    assert r.table.game.state_id == sid == stored.state_id and r.table.reloading
    assert r.table.game.snapshot() == stored.snapshot()
    store.down = False
    await until(lambda: not r.table.reloading, 15, "the room reloads")
    assert r.table.game.snapshot() == stored.snapshot()
    await _greedy_act(r, seats, 3000)
    assert len(await store.log("r1")) == sid + 1


async def test_the_rollback_is_the_stored_state_past_a_snapshot_and_after_a_takeover() -> None:
    # The rollback rebuilds the last stored state from the snapshot the room took and the
    # entries since, kept in memory; a room taken over starts from the store's.
    store = FlakyStore()
    room, _, seats, log = await started_room(2, {"seed": 5, "first_seat": 0}, store)
    await store.save_room(room.id, room.table.record(), room.table.state(), room.table.summary())
    room.start_task()
    try:
        while room.table.game.state_id < SNAPSHOT_EVERY + 5:
            assert not room.table.game.over
            await _greedy_act(room, seats, room.table.game.state_id)
        assert store.snapshots["r1"][0] == SNAPSHOT_EVERY
        assert isinstance(room.table._saved_snapshot, bytes)  # kept packed: the rollback unpacks it
        await _check_rollback(room, store, seats, log)
    finally:
        await room.close()
    loaded = await store.load("r1")
    assert loaded is not None and loaded.snapshot is not None and loaded.entries
    taken = Room.from_loaded(loaded, store, Skipper)
    for s, conn in enumerate(seats):
        taken.table.reattach(conn, s)  # type: ignore[arg-type]
    taken.start_task()
    try:
        await _check_rollback(taken, store, seats, log)
    finally:
        await taken.close()


async def test_a_room_broken_again_as_its_reload_ends_reloads_again() -> None:
    # The store flaps: a reload succeeds, and the action queued right behind it fails to
    # append before the task of that reload has ended: the room must reload again.
    store = FlakyStore()
    room, _, seats, _log = await started_room(2, {"seed": 5, "first_seat": 0}, store)
    await store.save_room(room.id, room.table.record(), room.table.state(), room.table.summary())
    room.start_task()
    load = store.load
    flaps = []

    async def flapping_load(room_id: str, *, lease: Lease | None = None) -> Loaded | None:
        loaded = await load(room_id, lease=lease)
        if not flaps and not store.down:
            game = room.table.game
            seat = game.to_act()[0]
            act = p.Act(room=room.id, state_id=game.state_id, id=7,
                        action=list(GREEDY(game.bot_view(seat), random.Random(1))))
            room.post(lambda: room.apply(room.table.act(seats[seat], act)))  # type: ignore[arg-type]
            flaps.append(act)
            store.down = True  # that act's append fails
        return loaded

    store.load = flapping_load  # type: ignore[method-assign]
    try:
        store.down = True
        sid = await _greedy_act(room, seats, 1)
        assert room.table.reloading
        store.down = False
        await until(lambda: flaps, 15, "the first reload")
        await asyncio.sleep(0.2)
        assert room.table.reloading  # the act behind the reload failed: broken again
        store.down = False
        await until(lambda: not room.table.reloading, 15, "the room reloads again")
        assert room.table.game.state_id == sid
        await _greedy_act(room, seats, 2)
        assert len(await store.log("r1")) == sid + 1
    finally:
        await room.close()


async def test_an_append_writes_the_state_only_when_it_changed(server: Server) -> None:
    """Every append wrote the room's whole server-side state (~0.5 KB: seats with tokens,
    members, deadlines) beside its ~20-byte entry, though most actions change none of it.
    Now an unchanged state is not sent; after every append the store still holds the room's
    state as of that append (checked by loading it back), through turn ends (new
    deadlines) and a member who drops and comes back."""
    store = server.store
    real = store.append
    carried: list[bool] = []  # per append: was the state sent?
    wrong: list[tuple[int, Any, Any]] = []

    async def checked(room_id: str, entries: Sequence[LogEntry], expect: int,
                      state: dict[str, Any] | None, *, lease: Lease | None = None) -> None:
        expected = server.lobby.rooms[room_id].table.state()  # what the room holds now
        await real(room_id, entries, expect, state, lease=lease)
        carried.append(state is not None)
        loaded = await store.load(room_id)
        if loaded is None or loaded.state != expected:
            wrong.append((expect, loaded and loaded.state, expected))

    real_now = store.append_now

    def checked_now(room_id: str, entries: Sequence[LogEntry], expect: int,
                    state: dict[str, Any] | None, *, lease: Lease | None = None) -> bool:
        expected = server.lobby.rooms[room_id].table.state()
        if not real_now(room_id, entries, expect, state, lease=lease):
            return False  # the room awaits append (checked above)
        carried.append(state is not None)
        loading = store.load(room_id)  # a store that appends at once loads at once too
        try:
            loading.send(None)
        except StopIteration as done:
            loaded = done.value
        else:
            raise AssertionError("a store that appends at once waited to load")
        if loaded is None or loaded.state != expected:
            wrong.append((expect, loaded and loaded.state, expected))
        return True

    store.append = checked  # type: ignore[method-assign]
    store.append_now = checked_now  # type: ignore[method-assign]
    async with Client(server.url) as a, Client(server.url) as b:
        rid = (await a.create_room("skipper", mode="multi", seats=2,
                                   options={"turn_seconds": 60.0})).room
        clients = {(await a.join(rid)).seat: a, (await b.join(rid)).seat: b}
        room = server.lobby.rooms[rid]  # full: it started
        assert room.table.phase is Phase.PLAYING
        rng = random.Random(4)
        for n in range(60):
            if room.table.game.over:
                break
            if n == 20:  # a member drops and comes back: the members change
                seat_b = next(s for s, c in clients.items() if c is b)
                token = b.seats[rid][1]
                await b.close()
                async with asyncio.timeout(10):
                    while any(m.seat == seat_b for m in room.table.members.values()):
                        await asyncio.sleep(0.01)
                b = clients[seat_b] = Client(server.url)
                await b.connect()
                await b.resume(rid, token)
            seat = room.table.game.to_act()[0]
            action = rng.choice([x for x in room.table.game.legal_actions(seat)
                                 if x[0] != "resign"])
            await clients[seat].act(rid, list(action), state_id=room.table.game.state_id)
        await b.close()
    assert wrong == []
    assert len(carried) >= 30
    # A turn's end moves the clocks (deadlines) and a member's return changes the members:
    # those appends carry the state; the others (a third here, with turns of 1-3 random
    # actions; nearly all without turn clocks) leave it as it was.
    assert len(carried) - sum(carried) >= len(carried) / 4
    assert sum(carried) >= 2
