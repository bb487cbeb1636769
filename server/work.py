"""A room's work queue: every change to a room is a work item, run one at a time, in order.

:class:`WorkQueue` is the room's driver machinery (DESIGN "Rooms"): a queue, the task that
runs it, and a lock held while a work item runs, whichever task runs it, so that work items
never interleave. It knows nothing of rooms: :class:`~cardhall.server.room.Room` holds one
and puts its joins, actions, timers and reloads on it.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Callable
from typing import Any

from .phases import RoomError
from .tasks import cancel_until_done

log = logging.getLogger("cardhall.room")


def _noop() -> None:
    """A work item that does nothing (wakes an idle task: :meth:`WorkQueue.close`)."""


class Busy:
    """The lock a room's work item holds while it runs (``asyncio.Lock``'s ``locked``,
    ``acquire``, ``release`` and ``async with``), which may also be taken by a plain call
    (:meth:`hold`): a room runs an idle room's action as plain calls, holding it, and hands
    it on to a coroutine should the action have to wait after all (``Room.act_now``).

    Fair: a release hands the lock to the first waiter at once (it stays held), so nothing
    can take it between the release and the waiter's wake-up.

    Attributes:
        held: True while some work item holds it.
    """

    __slots__ = ("held", "_waiters")

    def __init__(self) -> None:
        self.held = False
        self._waiters: deque[asyncio.Future[None]] = deque()

    def locked(self) -> bool:
        """True while held."""
        return self.held

    def hold(self) -> bool:
        """Take the lock now if it is free (nobody holds it or waits for it).

        Returns:
            True when taken (release it with :meth:`release`); False: held already.
        """
        if self.held:
            return False
        self.held = True
        return True

    async def acquire(self) -> bool:
        """Take the lock, waiting (in order of arrival) while it is held. Returns True."""
        if not self.held:
            self.held = True
            return True
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters.append(fut)
        try:
            await fut  # handed over by release(): held for this caller
        except asyncio.CancelledError:
            if fut.done() and not fut.cancelled():
                self.release()  # handed over just before the cancellation: pass it on
            elif fut in self._waiters:
                self._waiters.remove(fut)
            raise
        return True

    def release(self) -> None:
        """Release the lock: to its first waiter (still held), or free.

        Raises:
            RuntimeError: it is not held.
        """
        if not self.held:
            raise RuntimeError("the work lock is not held")
        waiters = self._waiters
        while waiters:
            fut = waiters.popleft()
            if not fut.done():
                fut.set_result(None)
                return
        self.held = False

    async def __aenter__(self) -> None:
        await self.acquire()

    async def __aexit__(self, *exc: object) -> None:
        self.release()


class WorkQueue:
    """The work items of one room, run in order by one task, never two at once.

    Attributes:
        name: The task's name (``room-<id>``; in the log of a failed work item too).
        queue: The queued work items (None until the first one: a waiting room nobody
            entered holds no queue and no task).
        task: The task running them (None: not started yet, or closed).
        busy: Held while a work item runs, whichever task runs it (a room runs an action
            at once in the caller, as plain calls, when the queue is idle:
            ``Room.act_now``; :meth:`idle`).
        waiting: Futures of :meth:`submit` not resolved yet: failed by :meth:`close`, so
            that no caller waits for ever for a work item that will never run.
        may_run: :meth:`start` was called: work items start the task.
        closed: :meth:`close` was called: nothing runs any more.
    """

    __slots__ = ("name", "queue", "task", "busy", "waiting", "may_run", "closed")

    def __init__(self, name: str) -> None:
        self.name = name
        self.queue: asyncio.Queue[Callable[[], Any]] | None = None
        self.task: asyncio.Task[None] | None = None
        self.busy = Busy()
        self.waiting: set[asyncio.Future[Any]] = set()
        self.may_run = False
        self.closed = False

    def idle(self) -> bool:
        """True when a work item may run now in the caller: nothing holds :attr:`busy`,
        nothing is queued, the queue is not closed."""
        queue = self.queue
        return not self.busy.held and not self.closed and (queue is None or queue.empty())

    def start(self) -> None:
        """Let the task run: it starts now if work is queued, else with the first work
        item."""
        self.may_run = True
        if self.queue is not None and not self.queue.empty():
            self._spawn()

    def _spawn(self) -> None:
        if self.task is None and self.may_run and not self.closed:
            self.task = asyncio.get_running_loop().create_task(self._run(), name=self.name)

    def post(self, item: Callable[[], Any]) -> None:
        """Queue ``item`` (sync, or returning an awaitable) without waiting for it (making
        the queue, starting the task)."""
        queue = self.queue
        if queue is None:
            queue = self.queue = asyncio.Queue()
        queue.put_nowait(item)
        if self.task is None:
            self._spawn()

    async def _run(self) -> None:
        queue = self.queue
        assert queue is not None  # the task starts with the first work item
        while not self.closed:
            item = await queue.get()
            if self.closed:  # woken by close(): end without a cancellation (see there)
                return
            try:
                async with self.busy:
                    result = item()
                    if asyncio.iscoroutine(result):
                        await result
            except asyncio.CancelledError:
                raise
            except Exception:  # a bug in one work item must not kill the room
                log.exception("%s: work item failed", self.name)

    def submit(self, fn: Callable[[], Any]) -> asyncio.Future[Any]:
        """Run ``fn`` (sync or async) as a work item; the future gets its result or
        exception (:class:`RoomError` ``server/unavailable`` when the queue is closed
        before it ran)."""
        fut: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self.waiting.add(fut)
        fut.add_done_callback(self.waiting.discard)

        async def item() -> None:
            try:
                res = fn()
                if asyncio.iscoroutine(res):
                    res = await res
            except Exception as exc:  # delivered to the caller
                if not fut.done():
                    fut.set_exception(exc)
            else:
                if not fut.done():
                    fut.set_result(res)

        self.post(item)
        return fut

    async def close(self) -> None:
        """Stop the task (queued work items never run); callers of :meth:`submit` whose
        work item has not run get ``server/unavailable`` (:class:`RoomError`)."""
        self.closed = True
        # The ended task is dropped: a cancelled task keeps its CancelledError, whose
        # traceback holds the task's frames and so the room (a reference cycle that only the
        # cycle collector would free: issue #35).
        task, self.task = self.task, None
        if task is not None:
            if not self.busy.held and self.queue is not None:
                # Idle: woken, it ends by itself. A task ended by a cancellation keeps
                # frames of it (and so the room) alive in a reference cycle.
                self.queue.put_nowait(_noop)
                await asyncio.wait({task}, timeout=1.0)
            exc = await cancel_until_done(task)
            if exc is not None:
                log.error("%s task ended with %r", self.name, exc)
        for fut in list(self.waiting):
            if not fut.done():
                fut.set_exception(RoomError("server/unavailable", "the room is no longer run "
                                            "by this server process: retry"))
                fut.exception()  # retrieved: no warning when its caller is gone
