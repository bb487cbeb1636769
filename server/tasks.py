"""Background tasks: stopped for good, even when a library swallows a cancellation, and
never left behind by their owner."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import Any

#: Seconds a shutdown lets background work already running finish before cancelling it
#: (:meth:`Background.close`): store writes and relayed frames take milliseconds; a store
#: or process that does not answer is given up on after this.
SHUTDOWN_GRACE = 5.0


async def cancel_until_done(task: asyncio.Task[Any], poll: float = 0.5) -> BaseException | None:
    """Cancel ``task`` and wait until it has ended, cancelling it again every ``poll`` seconds.

    A library that swallows one ``CancelledError`` (redis-py's connection and pub/sub reads
    can, when the cancel lands inside them) must not keep a room or a lease loop running, nor
    hang a shutdown that waits for it.

    Returns:
        The exception the task ended with; None when it was cancelled or returned. Never
        raises the task's exception.
    """
    while not task.done():
        task.cancel()
        await asyncio.wait({task}, timeout=poll)
    return None if task.cancelled() else task.exception()


def start_eagerly(coro: Coroutine[Any, None, None], name: str) -> asyncio.Task[None] | None:
    """Run ``coro`` now, in the caller, up to its first suspension: what
    ``asyncio.Task(coro, eager_start=True)`` does on Python 3.12 and later, for 3.11.

    The caller is a callback of the running loop (the socket's callback that read a frame:
    :mod:`.driver`). A coroutine that never waits (a frame handled against the in-memory store) is
    done before this returns, without a task or a trip round the loop. One that waits goes
    on in a task from the point where it waited, as it would have in its own task; but
    until then it ran outside any task, so code that needs ``asyncio.current_task()``
    (``asyncio.timeout``, redis-py's socket reads) must not run before its first wait.

    Returns:
        None when ``coro`` finished; else the task (named ``name``) that drives it on.

    Raises:
        Exception: whatever ``coro`` raised before its first suspension.
    """
    try:
        waited = coro.send(None)
    except StopIteration:
        return None
    return asyncio.get_running_loop().create_task(_drive(coro, waited), name=name)


async def _drive(coro: Coroutine[Any, None, None], waited: Any) -> None:
    """Drive ``coro`` on, as its task would, from the point where it yielded ``waited``
    (the future it waits on, or None for a bare yield: ``asyncio.sleep(0)``)."""
    while True:
        error: BaseException | None = None
        if waited is None:
            try:
                await asyncio.sleep(0)
            except asyncio.CancelledError as exc:
                error = exc
        elif asyncio.isfuture(waited):
            waited._asyncio_future_blocking = False  # taken over, as a task does
            try:
                await waited
            except asyncio.CancelledError as exc:
                if not waited.cancelled():  # this task was cancelled, not the future
                    error = exc
            except Exception:  # the future's own error: the coroutine reads it from the future
                pass
        else:
            error = RuntimeError(f"coroutine yielded {waited!r}, not a future")
        try:
            waited = coro.send(None) if error is None else coro.throw(error)
        except StopIteration:
            return


class Background:
    """Fire-and-forget tasks that must not outlive their owner (a store, the lobby, the
    cluster): each is held until it is done (the loop keeps only weak references to tasks),
    and :meth:`close` cancels those still running and waits for them. A task left pending
    when its event loop closes is destroyed without running its ``finally`` blocks: a Redis
    pipeline inside it keeps its connection, and warns about it when collected.
    """

    def __init__(self) -> None:
        self._tasks: set[asyncio.Task[Any]] = set()
        self._soon: dict[object, tuple[asyncio.Handle, Callable[[], Coroutine[Any, Any, Any]]]] = {}

    def spawn(self, coro: Coroutine[Any, Any, Any]) -> asyncio.Task[Any]:
        """Run ``coro`` as a task of this owner's (must be called inside a running loop)."""
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    def spawn_soon(self, make: Callable[[], Coroutine[Any, Any, Any]]) -> None:
        """Spawn ``make()`` on the loop's next round, after the callbacks already due (a
        flush that batches the work of this round). Until then it is this owner's all the
        same: :meth:`close` spawns it at once, so the work is neither lost nor started
        after the owner closed (a flush started after its store closed reopens a
        connection that nobody closes)."""
        key = object()  # not the handle: a callback that names its own handle is a cycle

        def run() -> None:
            self._soon.pop(key, None)
            self.spawn(make())

        self._soon[key] = (asyncio.get_running_loop().call_soon(run), make)

    async def close(self, grace: float = 0.0) -> None:
        """Give the running tasks up to ``grace`` seconds to end by themselves (tasks they
        spawn meanwhile included, and those :meth:`spawn_soon` holds), then cancel every
        task still running and wait for each (:func:`cancel_until_done`); their exceptions
        are dropped (each task logs its own failures). A grace lets a removal in progress
        finish its store writes instead of stopping between two of them."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + grace
        while self._spawn_due() and (left := deadline - loop.time()) > 0:
            await asyncio.wait(set(self._tasks), timeout=left)
        while self._spawn_due():
            for task in list(self._tasks):
                await cancel_until_done(task)
                self._tasks.discard(task)

    def _spawn_due(self) -> bool:
        """Spawn what :meth:`spawn_soon` holds now; True while any task is running."""
        for handle, make in list(self._soon.values()):
            handle.cancel()
            self.spawn(make())
        self._soon.clear()
        return bool(self._tasks)
