"""A room's life from creation to removal (issue #35): a finished room is freed by reference
counting alone, and rooms nobody plays in expire. Each server test runs on both stores."""

from __future__ import annotations

import asyncio
import gc
import weakref
from collections.abc import Iterator

import pytest

from cardhall.client.client import Client
from cardhall.server.app import Server

from .conftest import ServerFactory


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
    freed: list[weakref.ref[object]] = []
    async with Client(server.url) as host, Client(server.url) as watcher:
        solo = await host.create_room("skipper", mode="solo")
        await host.join(solo.room)
        freed.append(weakref.ref(server.lobby.rooms[solo.room]))
        await host.act(solo.room, ["resign"])
        multi = await host.create_room("skipper", mode="multi", seats=2,
                                       options={"turn_seconds": 30})
        await host.join(multi.room)
        await watcher.spectate(multi.room)
        freed.append(weakref.ref(server.lobby.rooms[multi.room]))
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
    assert [ref() is None for ref in freed] == [True, True]
