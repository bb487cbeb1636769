"""A room's work items: an ``act`` on an idle room runs at once in the caller (as plain calls
when the store answers at once), one on a busy room waits its turn, and no two items ever
interleave; and one room object per room in a process, even while it is being created."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

import pytest

from cardhall import protocol as p
from cardhall.server.config import Settings
from cardhall.games.skipper import Skipper
from cardhall.server.lobby import Lobby
from cardhall.server.room import Room, play
from cardhall.server.store.memory_store import MemoryStore
from cardhall.server.store.ports import Lease, LogEntry, OwnershipLost, StoreError
from cardhall.server.phases import Phase
from cardhall.server.tasks import start_eagerly

from ..room_harness import Recorder, WriteLog, started_room


class GatedStore(MemoryStore):
    """A memory store whose appends wait for ``gate`` (a slow Redis, say)."""

    def __init__(self) -> None:
        super().__init__()
        self.gate = asyncio.Event()
        self.gate.set()
        self.appending = asyncio.Event()
        self.tasks: list[asyncio.Task[Any] | None] = []  # the task of each append

    def append_now(self, room_id: str, entries: Sequence[LogEntry], expect: int,
                   state: dict[str, Any] | None, *, lease: Lease | None = None) -> bool:
        return False  # never at once: the room awaits append

    async def append(self, room_id: str, entries: Sequence[LogEntry], expect: int,
                     state: dict[str, Any] | None, *, lease: Lease | None = None) -> None:
        self.tasks.append(asyncio.current_task())
        self.appending.set()
        await self.gate.wait()
        await super().append(room_id, entries, expect, state, lease=lease)


async def _room(store: MemoryStore) -> tuple[Room, Skipper, list[Recorder], WriteLog]:
    """A started 2-seat Skipper room, saved in ``store``, its task idle (what ``start``
    queued has run); with its game, stand-in seats and their write log."""
    room, game, seats, log = await started_room(2, {"seed": 5, "first_seat": 0}, store)
    await store.save_room(room.id, room.table.record(), room.table.state(), room.table.summary())
    room.start_task()
    async with asyncio.timeout(5):
        work = room.work
        while (work.queue is not None and not work.queue.empty()) or work.busy.locked():
            await asyncio.sleep(0)
    log.clear()
    return room, game, seats, log


def _act(game: Skipper, seat: int, rid: int) -> p.Act:
    action = game.legal_actions(seat)[0]
    return p.Act(room="r1", state_id=game.state_id, action=list(action), id=rid)


async def test_an_act_on_an_idle_room_runs_in_the_callers_task() -> None:
    store = GatedStore()
    room, game, seats, log = await _room(store)
    await room.play(seats[0], _act(game, 0, 1))  # type: ignore[arg-type]
    assert store.tasks == [asyncio.current_task()]  # not the room's task
    assert game.state_id == 1 and len(await store.log("r1")) == 1
    assert log[0] == ("seat0", ["ok", "update"])
    await room.close()


async def test_work_queued_while_an_act_appends_runs_after_it() -> None:
    store = GatedStore()
    room, game, seats, log = await _room(store)
    store.gate.clear()
    first = asyncio.create_task(room.play(seats[0], _act(game, 0, 1)))  # type: ignore[arg-type]
    await store.appending.wait()  # applied, now waiting in the store's append
    assert game.state_id == 1 and log == []
    view = room.submit(lambda: room.apply(room.table.view(seats[1], 9)))  # type: ignore[arg-type]
    second = asyncio.create_task(room.play(seats[0], _act(game, 0, 2)))  # type: ignore[arg-type]
    await asyncio.sleep(0.01)
    assert not view.done() and not second.done() and log == []  # both wait their turn
    store.gate.set()
    await asyncio.gather(first, view, second)
    # In arrival order: the first act's replies, the view, then the second act's replies.
    assert log == [("seat0", ["ok", "update"]), ("seat1", ["update"]),
                   ("seat1", ["update"]),
                   ("seat0", ["ok", "update"]), ("seat1", ["update"])]
    assert len(await store.log("r1")) == 2 and game.state_id == 2
    assert store.tasks[0] is first and store.tasks[1] is room.work.task  # inline, then queued
    await room.close()


async def test_a_caller_cancelled_while_appending_leaves_the_room_to_reload() -> None:
    store = GatedStore()
    room, game, seats, log = await _room(store)
    store.gate.clear()
    act = _act(game, 0, 1)
    task = asyncio.create_task(room.play(seats[0], act))  # type: ignore[arg-type]
    await store.appending.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert room.table.reloading and not room.work.busy.locked()
    assert log == []  # nobody heard of an action the store may not hold
    store.gate.set()
    # The player tries again: the room first reloads the engine from the store (which never
    # got the first try), then applies the action.
    retry = p.Act(room="r1", state_id=0, action=act.action, id=2)
    await room.play(seats[0], retry)  # type: ignore[arg-type]
    assert not room.table.reloading and room.table.game is not game
    assert ("seat0", ["ok", "update"]) in log
    assert room.table.game.state_id == 1 and len(await store.log("r1")) == 1
    await room.close()


class AtOnceStore(MemoryStore):
    """A memory store that notes its appends: at once (with the task they ran in), awaited;
    ``fail``: the next plain-call append raises it (nothing written)."""

    def __init__(self) -> None:
        super().__init__()
        self.now: list[asyncio.Task[Any] | None] = []
        self.awaited = 0
        self.fail: Exception | None = None

    def append_now(self, room_id: str, entries: Sequence[LogEntry], expect: int,
                   state: dict[str, Any] | None, *, lease: Lease | None = None) -> bool:
        self.now.append(asyncio.current_task())
        fail, self.fail = self.fail, None
        if fail is not None:
            raise fail
        return super().append_now(room_id, entries, expect, state, lease=lease)

    async def append(self, room_id: str, entries: Sequence[LogEntry], expect: int,
                     state: dict[str, Any] | None, *, lease: Lease | None = None) -> None:
        self.awaited += 1
        await super().append(room_id, entries, expect, state, lease=lease)


async def test_an_act_on_an_idle_room_is_plain_calls_when_the_store_answers_at_once() -> None:
    """Issue #43 item 2: from a loop callback (as the socket's), an idle room carries the act
    out before act_now returns: no task, coroutine or future; the append durable first."""
    store = AtOnceStore()
    room, game, seats, log = await _room(store)
    loop = asyncio.get_running_loop()
    done: asyncio.Future[Any] = loop.create_future()

    def callback() -> None:  # outside any task, as the socket's data_received
        rest = room.act_now(seats[0], _act(game, 0, 1))  # type: ignore[arg-type]
        done.set_result((rest, list(log), room.work.busy.locked()))

    loop.call_soon(callback)
    rest, sent, busy = await done
    assert rest is None and not busy and room.work.idle()
    assert sent == [("seat0", ["ok", "update"]), ("seat1", ["update"])]
    assert store.now == [None] and store.awaited == 0  # appended in the callback, at once
    assert game.state_id == 1 and len(await store.log("r1")) == 1
    assert room.work.task is None or room.work.queue is None or room.work.queue.empty()
    await room.close()


async def test_a_coroutine_work_item_running_keeps_an_act_off_the_plain_path() -> None:
    """A work item that waits holds the room: an act meanwhile neither runs nor appends
    until it has ended, then runs (its own work item), in order."""
    store = AtOnceStore()
    room, game, seats, log = await _room(store)
    gate = asyncio.Event()
    trace: list[str] = []

    async def slow() -> None:
        trace.append("item<")
        await gate.wait()
        trace.append(f">item at {game.state_id}")

    item = room.submit(slow)
    await asyncio.sleep(0)  # the item runs, waiting on the gate
    assert trace == ["item<"] and room.work.busy.locked() and not room.work.idle()
    rest = room.act_now(seats[0], _act(game, 0, 1))  # type: ignore[arg-type]
    assert rest is not None  # not carried out: queued behind the item
    task = asyncio.get_running_loop().create_task(rest)
    await asyncio.sleep(0.01)
    assert game.state_id == 0 and store.now == [] and log == []
    gate.set()
    await asyncio.gather(item, task)
    assert trace == ["item<", ">item at 0"] and game.state_id == 1
    assert log == [("seat0", ["ok", "update"]), ("seat1", ["update"])]
    await room.close()


async def test_a_queued_work_item_keeps_an_act_off_the_plain_path() -> None:
    """A work item queued and not yet run goes first: the act queues behind it."""
    store = AtOnceStore()
    room, game, seats, log = await _room(store)
    ran: list[int] = []
    item = room.submit(lambda: ran.append(game.state_id))
    rest = room.act_now(seats[0], _act(game, 0, 1))  # type: ignore[arg-type]
    assert rest is not None and game.state_id == 0 and ran == []
    await asyncio.gather(item, rest)
    assert ran == [0] and game.state_id == 1
    await room.close()


async def test_an_act_whose_append_must_be_awaited_holds_the_room_until_answered() -> None:
    """The store cannot append at once: act_now hands on a coroutine that already holds the
    room (a work item posted meanwhile, and another act, wait for it), nobody told until
    the append is answered."""
    store = GatedStore()
    room, game, seats, log = await _room(store)
    store.gate.clear()
    rest = room.act_now(seats[0], _act(game, 0, 1))  # type: ignore[arg-type]
    assert rest is not None and game.state_id == 1  # applied, its append to be awaited
    assert room.work.busy.locked() and not room.work.idle() and log == []
    first = start_eagerly(rest, "first")  # as the connection runs it: at once
    assert first is not None and store.appending.is_set()  # waiting in the store's append
    second = room.act_now(seats[0], _act(game, 0, 2))  # type: ignore[arg-type]
    assert second is not None and game.state_id == 1  # queued behind the first
    later = start_eagerly(second, "second")
    view = room.submit(lambda: room.apply(room.table.view(seats[1], 9)))  # type: ignore[arg-type]
    await asyncio.sleep(0.01)
    assert log == [] and not view.done() and game.state_id == 1
    store.gate.set()
    await asyncio.gather(first, later, view)  # type: ignore[arg-type]
    assert log == [("seat0", ["ok", "update"]), ("seat1", ["update"]),
                   ("seat0", ["ok", "update"]), ("seat1", ["update"]),
                   ("seat1", ["update"])]
    assert not room.work.busy.locked() and len(await store.log("r1")) == 2
    await room.close()


@pytest.mark.parametrize("error", [StoreError("down (test)"), OwnershipLost("moved (test)")])
async def test_a_refused_plain_call_append_rolls_back_and_tells_nobody(error: Exception) -> None:
    """An append refused at once (the store down, or the room owned elsewhere) rolls the
    engine back before anyone hears of the action: the actor gets the refusal, the room
    reloads (or is given up), and its work lock is free."""
    store = AtOnceStore()
    room, game, seats, log = await _room(store)
    lost: list[Room] = []
    room.on_lost = lost.append
    store.fail = error
    await room.play(seats[0], _act(game, 0, 1))  # type: ignore[arg-type]
    assert len(store.now) == 1 and store.awaited == 0  # refused at once
    assert await store.log("r1") == [] and not room.work.busy.locked()
    assert [types for name, types in log if name == "seat1"] == []  # nobody told
    assert log == [("seat0", ["error"])]
    if isinstance(error, OwnershipLost):
        assert lost == [room]
    else:
        assert room.table.reloading
        async with asyncio.timeout(5):  # reloaded from the store: the action never was
            while room.table.reloading:
                await asyncio.sleep(0.01)
        assert room.table.game.state_id == 0
    await room.close()


class SlowCreateStore(MemoryStore):
    """A memory store whose ``save_room`` writes, then waits for ``gate`` before it returns
    (Redis has the room; its reply is on the way)."""

    def __init__(self) -> None:
        super().__init__()
        self.gate = asyncio.Event()
        self.saved: asyncio.Queue[str] = asyncio.Queue()

    async def save_room(self, room_id: str, record: dict[str, Any], state: dict[str, Any],
                        summary: dict[str, Any]) -> Lease:
        lease = await super().save_room(room_id, record, state, summary)
        self.saved.put_nowait(room_id)
        await self.gate.wait()
        return lease


async def test_a_room_being_created_is_routed_to_not_loaded_twice() -> None:
    # A quick join on the same process may find the room in the store's listing while its
    # creation still waits on the store: routing must give the room being created, not
    # load a second copy of it from the store (two copies seated two players in one seat).
    store = SlowCreateStore()
    lobby = Lobby(store, Settings(), cluster=None)  # type: ignore[arg-type]
    host = Recorder("host", [])
    creating = asyncio.create_task(lobby.create(host, p.CreateRoom(  # type: ignore[arg-type]
        game="skipper", mode="multi", seats=2)))
    room_id = await asyncio.wait_for(store.saved.get(), 5)
    assert [s["room"] for s in await store.list_rooms()] == [room_id]
    routed = await asyncio.wait_for(lobby.route(room_id), 5)
    store.gate.set()
    room = await creating
    assert routed is room and lobby.rooms == {room_id: room}
    await room.close()


async def test_a_room_whose_store_write_fails_is_not_kept() -> None:
    store = SlowCreateStore()
    lobby = Lobby(store, Settings(), cluster=None)  # type: ignore[arg-type]
    creating = asyncio.create_task(lobby.create(Recorder("host", []),  # type: ignore[arg-type]
                                                p.CreateRoom(game="skipper", seats=1)))
    await asyncio.wait_for(store.saved.get(), 5)
    creating.cancel()  # the creation is cancelled mid-write (a store error takes the same path)
    with pytest.raises(asyncio.CancelledError):
        await creating
    assert lobby.rooms == {}


class SlowDeleteStore(MemoryStore):
    """A memory store whose room deletion takes a while (a remote store's round trips)."""

    def __init__(self) -> None:
        super().__init__()
        self.deleting = asyncio.Event()

    async def delete_room(self, room_id: str) -> None:
        self.deleting.set()
        await asyncio.sleep(0.1)
        await super().delete_room(room_id)


async def test_a_removal_running_when_the_lobby_closes_still_deletes_the_room() -> None:
    # Shutdown used to cancel it between closing the room and deleting it from the store:
    # the room was then neither running here nor gone from the store.
    store = SlowDeleteStore()
    lobby = Lobby(store, Settings(), cluster=None)  # type: ignore[arg-type]
    room = await lobby.create(Recorder("host", []),  # type: ignore[arg-type]
                              p.CreateRoom(game="skipper", seats=1))
    assert room.id in store.records
    lobby.background.spawn(lobby.remove(room.id))
    await asyncio.wait_for(store.deleting.wait(), 5)
    await asyncio.wait_for(lobby.close(), 10)
    assert room.id not in store.records and room.id not in lobby.rooms


async def test_a_finished_room_sends_game_over_again_when_frames_were_lost() -> None:
    """A member whose frames were lost (its process's inbox was away during a Redis outage)
    is sent its full view again; once the game is over, the ``game_over`` too: a client
    that missed it would wait for it for ever (seen in the chaos drill's Redis kill). A
    room taken over after its game ended sends it to every member as well."""
    room, game, seats, log = await started_room(2, {"first_seat": 0})
    while not game.over:  # forfeits end it: every seat but one gives up
        room.table.game.forfeit(game.to_act()[0])
    await room.apply(room.table._do([play.FINISH]))
    assert room.table.phase is Phase.FINISHED
    log.clear()
    await room.apply(room.table.resend(seats[1]))  # type: ignore[arg-type]
    assert log == [("seat1", ["update"]), ("seat1", ["game_over"])]
    log.clear()
    await room.apply(room.table.resync())
    assert sorted(w for w in log if w[1] == ["game_over"]) == [
        ("seat0", ["game_over"]), ("seat1", ["game_over"])]


async def test_a_seat_resumed_after_the_game_ended_gets_game_over() -> None:
    """A player whose server was killed as the game ended resumes its seat elsewhere: the
    ``joined`` (with the final view) is followed by the ``game_over`` it never got (seen in
    the chaos drill's owner kill -9: one bot waited for it for ever)."""
    room, game, seats, log = await started_room(2, {"first_seat": 0})
    token = room.table.seats[1].token  # type: ignore[union-attr]
    await room.apply(room.table.drop(seats[1]))  # type: ignore[arg-type]
    while not game.over:
        room.table.game.forfeit(game.to_act()[0])
    await room.apply(room.table._do([play.FINISH]))
    log.clear()
    again = Recorder("again", log)
    await room.apply(room.table.resume(again, token))  # type: ignore[arg-type]
    assert room.table.members[again].seat == 1  # type: ignore[index]
    assert log[-2:] == [("again", ["joined"]), ("again", ["game_over"])]
