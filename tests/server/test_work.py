"""Tests of a room's work queue (``cardhall.server.work``) on its own, without a room: order,
one at a time, a failing item contained, nobody left waiting after close."""

from __future__ import annotations

import asyncio
import logging

import pytest
from cardhall.server.phases import RoomError
from cardhall.server.work import WorkQueue


async def test_nothing_runs_before_start_then_all_run_in_order() -> None:
    """Posted items wait for ``start``; then sync and async items run in posting order."""
    work = WorkQueue("room-t1")
    ran: list[int] = []

    async def later(i: int) -> None:
        await asyncio.sleep(0)
        ran.append(i)

    work.post(lambda: ran.append(1))
    work.post(lambda: later(2))
    work.post(lambda: ran.append(3))
    await asyncio.sleep(0)
    assert ran == [] and work.task is None
    work.start()
    assert await work.submit(lambda: "done") == "done"
    assert ran == [1, 2, 3]
    await work.close()


async def test_items_never_interleave_and_hold_the_busy_lock() -> None:
    """An async item that yields is finished before the next item begins."""
    work = WorkQueue("room-t2")
    work.start()
    trace: list[str] = []

    async def item(tag: str) -> None:
        assert work.busy.locked()
        trace.append(f"{tag}<")
        await asyncio.sleep(0)
        await asyncio.sleep(0)
        trace.append(f">{tag}")

    results = [work.submit(lambda t=t: item(t)) for t in "abc"]  # type: ignore[misc]
    await asyncio.gather(*results)
    assert trace == ["a<", ">a", "b<", ">b", "c<", ">c"]
    await work.close()


async def test_a_failing_item_is_logged_and_the_next_runs(
        caplog: pytest.LogCaptureFixture) -> None:
    """A bug in one item does not stop the room; a submitted one's error goes to its caller."""
    work = WorkQueue("room-t3")
    work.start()

    def boom() -> None:
        raise RuntimeError("bug in an item")

    work.post(boom)
    with pytest.raises(KeyError):
        await work.submit(lambda: {}["missing"])
    assert await work.submit(lambda: 7) == 7
    failed = [r for r in caplog.records if r.levelno == logging.ERROR]
    assert len(failed) == 1 and "room-t3: work item failed" in failed[0].getMessage()
    await work.close()


async def test_close_fails_every_waiting_caller_and_runs_nothing_more() -> None:
    """``server/unavailable`` for callers whose item never ran; the task ends, not leaks."""
    work = WorkQueue("room-t4")
    waiting = work.submit(lambda: "never")  # not started: stays queued
    ran: list[str] = []
    await work.close()
    with pytest.raises(RoomError) as err:
        await waiting
    assert err.value.code == "server/unavailable"
    await asyncio.sleep(0)  # the futures' done callbacks run on the next loop pass
    assert work.task is None and work.closed and not work.waiting
    work.start()
    work.post(lambda: ran.append("late"))
    await asyncio.sleep(0)
    assert ran == [] and work.task is None


async def test_close_of_an_idle_running_queue_ends_its_task() -> None:
    """The idle task is woken and ends by itself (no cancellation cycle keeps the room)."""
    work = WorkQueue("room-t5")
    work.start()
    await work.submit(lambda: None)
    task = work.task
    assert task is not None and not task.done()
    await work.close()
    assert task.done() and not task.cancelled()


async def test_the_busy_lock_hands_over_to_its_waiter_with_no_gap_for_a_plain_call() -> None:
    """A release while a work item waits hands the lock to it: a plain call's ``hold`` in
    between (an act on a room that looks idle) is refused, so it cannot run first."""
    work = WorkQueue("room-t6")
    work.start()
    busy = work.busy
    assert busy.hold() and not busy.hold()  # taken by a plain call: held
    ran: list[str] = []
    done = work.submit(lambda: ran.append("item"))
    await asyncio.sleep(0)  # the task took the item, waits for the lock
    assert ran == [] and work.queue is not None and work.queue.empty()
    busy.release()  # handed over to the waiting item, not freed
    assert busy.locked() and not busy.hold() and not work.idle()
    await done
    assert ran == ["item"] and not busy.locked() and work.idle()
    await work.close()


async def test_a_cancelled_waiter_of_the_busy_lock_leaves_it_free() -> None:
    """A waiter cancelled before or just after the hand-over does not keep the lock."""
    work = WorkQueue("room-t7")
    busy = work.busy
    assert busy.hold()
    waiter = asyncio.create_task(busy.acquire())
    await asyncio.sleep(0)
    waiter.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiter
    busy.release()
    assert not busy.locked()
    assert busy.hold()
    waiter = asyncio.create_task(busy.acquire())
    await asyncio.sleep(0)
    busy.release()  # handed over...
    waiter.cancel()  # ...and cancelled before it woke: passed on, so freed
    with pytest.raises(asyncio.CancelledError):
        await waiter
    assert not busy.locked() and work.idle()
    with pytest.raises(RuntimeError):
        busy.release()
