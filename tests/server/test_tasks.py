"""Background tasks stop even when a library swallows a cancellation, are never left behind
by their owner, and get a grace to finish at shutdown."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any

from cardhall.server.cluster import Cluster
from cardhall.server.store.memory_store import MemoryStore
from cardhall.server.tasks import Background, cancel_until_done, start_eagerly


async def test_a_task_that_swallows_one_cancellation_is_still_stopped() -> None:
    caught = 0

    async def stubborn() -> None:  # what a redis-py read cut short can look like
        nonlocal caught
        while True:
            try:
                await asyncio.sleep(10)
            except asyncio.CancelledError:
                caught += 1
                if caught > 1:
                    raise

    task = asyncio.get_running_loop().create_task(stubborn())
    await asyncio.sleep(0)
    assert await asyncio.wait_for(cancel_until_done(task, poll=0.05), 5) is None
    assert task.cancelled() and caught == 2


async def test_the_exception_a_task_ended_with_is_returned_not_raised() -> None:
    async def broken() -> None:
        raise ValueError("boom")

    task = asyncio.get_running_loop().create_task(broken())
    await asyncio.sleep(0)
    exc = await cancel_until_done(task)
    assert isinstance(exc, ValueError)


async def test_background_holds_its_tasks_until_done_and_close_stops_the_rest() -> None:
    bg = Background()
    finished: list[str] = []

    async def quick() -> None:
        finished.append("quick")

    async def slow() -> None:
        try:
            await asyncio.sleep(60)
        finally:
            finished.append("slow cleaned up")  # a finally block runs: not destroyed

    bg.spawn(quick())
    slow_task = bg.spawn(slow())
    await asyncio.sleep(0.01)
    assert finished == ["quick"] and bg._tasks == {slow_task}
    await asyncio.wait_for(bg.close(), 5)
    assert slow_task.cancelled() and finished == ["quick", "slow cleaned up"]
    assert not bg._tasks


async def test_close_with_a_grace_lets_running_work_finish_and_cancels_the_rest() -> None:
    bg = Background()
    events: list[str] = []

    async def store_write() -> None:  # a removal's store write, a few ms
        await asyncio.sleep(0.05)
        events.append("written")
        bg.spawn(follow_up())  # spawned during the grace: waited for too

    async def follow_up() -> None:
        await asyncio.sleep(0.05)
        events.append("follow-up")

    async def hung() -> None:  # a store that does not answer
        try:
            await asyncio.sleep(60)
        finally:
            events.append("hung cancelled")

    bg.spawn(store_write())
    stuck = bg.spawn(hung())
    await asyncio.sleep(0)
    loop = asyncio.get_running_loop()
    t0 = loop.time()
    await asyncio.wait_for(bg.close(grace=0.5), 5)
    assert events == ["written", "follow-up", "hung cancelled"]
    assert stuck.cancelled() and not bg._tasks
    assert 0.5 <= loop.time() - t0 < 4  # waited out the grace for the hung one, no longer


class NobodyListens(MemoryStore):
    """A store whose published frames reach nobody, at a process that is alive (what a
    process's inbox resubscribing looks like); counts the liveness checks."""

    def __init__(self) -> None:
        super().__init__()
        self.checks = 0
        self.published: list[str] = []

    async def publish(self, process: str, payload: bytes) -> bool:
        self.published.append(process)
        return False

    async def alive(self, process: str) -> bool:
        self.checks += 1
        return True


async def test_a_stopping_cluster_sends_its_frames_but_does_not_chase_lost_ones() -> None:
    store = NobodyListens()
    cluster = Cluster(SimpleNamespace(store=store))  # type: ignore[arg-type]
    cluster.peer("p2", "s1", "remote player")
    cluster.send_out("p2", "s1", b"frame")
    await asyncio.sleep(0.05)
    assert store.checks == 1 and cluster.background._tasks  # resending, until one arrives
    await asyncio.wait_for(cluster.stop(), 5)
    cluster.send_out("p2", "s1", b"frame")  # a room closing during shutdown
    loop = asyncio.get_running_loop()
    t0 = loop.time()
    await asyncio.wait_for(cluster.background.close(grace=5), 10)
    assert store.checks == 1  # published, found undelivered, not chased
    assert loop.time() - t0 < 2  # the shutdown's grace was not spent resending


async def test_work_spawned_soon_is_the_owners_until_it_runs() -> None:
    ran: list[str] = []

    async def flush() -> None:
        ran.append("flushed")

    bg = Background()
    bg.spawn_soon(flush)
    await bg.close(grace=1)  # before the loop got round to it
    assert ran == ["flushed"]  # run within the grace, not lost
    bg.spawn_soon(flush)
    await bg.close()  # no grace: spawned and cancelled by close
    await asyncio.sleep(0.05)
    assert ran == ["flushed"] and not bg._tasks  # never started after its owner closed


async def test_frames_queued_just_before_shutdown_still_go_out() -> None:
    store = NobodyListens()
    cluster = Cluster(SimpleNamespace(store=store))  # type: ignore[arg-type]
    await cluster.stop()
    cluster.send_out("p2", "s1", b"frame")  # flushed on the loop's next round
    await cluster.background.close(grace=5)  # the server's last close (5 s at most)
    assert store.published == ["p2"]


async def test_a_coroutine_that_never_waits_is_done_before_start_eagerly_returns() -> None:
    seen: list[Any] = []

    async def handle() -> None:
        seen.append(asyncio.current_task())

    assert start_eagerly(handle(), "t") is None
    assert seen == [asyncio.current_task()]  # it ran in the caller, at once


async def test_a_coroutine_that_waits_goes_on_in_a_task_from_where_it_waited() -> None:
    loop = asyncio.get_running_loop()
    fut: asyncio.Future[int] = loop.create_future()
    bad: asyncio.Future[int] = loop.create_future()
    seen: list[Any] = []

    async def handle() -> int:
        seen.append("start")
        seen.append(await fut)
        await asyncio.sleep(0)  # a bare yield
        try:
            await bad
        except ValueError as exc:  # the future's error reaches the coroutine
            seen.append(str(exc))
        await asyncio.sleep(0.01)
        seen.append("end")
        return 5

    task = start_eagerly(handle(), "t")  # type: ignore[arg-type]
    assert task is not None and seen == ["start"] and task.get_name() == "t"
    fut.set_result(3)
    bad.set_exception(ValueError("no"))
    await asyncio.wait_for(task, 5)
    assert seen == ["start", 3, "no", "end"]


async def test_cancelling_the_task_of_an_eager_start_cancels_the_coroutine() -> None:
    loop = asyncio.get_running_loop()
    seen: list[str] = []
    done: asyncio.Future[None] = loop.create_future()

    async def handle() -> None:
        try:
            await asyncio.sleep(10)
        except asyncio.CancelledError:
            seen.append("cancelled at its wait")
            raise

    task = start_eagerly(handle(), "t")
    assert task is not None
    await asyncio.sleep(0)
    task.cancel()
    await asyncio.wait({task}, timeout=5)
    assert task.cancelled() and seen == ["cancelled at its wait"]

    async def waits_on(fut: asyncio.Future[None]) -> None:
        try:
            await fut
        except asyncio.CancelledError:
            seen.append("cancelled although its future had finished")
            raise

    task = start_eagerly(waits_on(done), "t")
    assert task is not None
    await asyncio.sleep(0)
    done.set_result(None)  # done, but the task has not woken up yet when it is cancelled
    task.cancel()
    await asyncio.wait({task}, timeout=5)
    assert task.cancelled() and seen[-1] == "cancelled although its future had finished"
