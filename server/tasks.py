"""Stopping background tasks for good, even when a library swallows a cancellation."""

from __future__ import annotations

import asyncio
from typing import Any


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
