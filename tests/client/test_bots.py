"""Scripted bots (``client/bots.py``): the watchdog, and bots playing whole games against a
live server whose store refuses a create and a join for a moment."""

from __future__ import annotations

import asyncio
import random
from typing import Any

import pytest

from cardhall import protocol as p
from cardhall.client import bots as bots_module
from cardhall.client.bots import play_games, play_seat
from cardhall.client.client import Client, ServerError
from cardhall.client.connection import PATIENT_ATTEMPTS

from ..conftest import TEST_SETTINGS, serving
from ..room_harness import Flaky


async def test_bot_watchdog_waits_for_an_action_still_under_way(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # The watchdog acts again when the seat may act and nothing happened for STALL_SECONDS;
    # a slow reply is not "nothing": no second act may go out while the first one waits.
    monkeypatch.setattr(bots_module, "STALL_SECONDS", 0.3)
    calls: list[int] = []
    loop = asyncio.get_running_loop()
    ends = loop.time() + 1.1  # the game ends before a stall period after the reply

    class SlowClient:
        views = {"r": {"state_id": 3, "over": False, "legal_actions": [["end"]]}}

        async def act(self, room: str, action: Any, sid: int) -> None:
            calls.append(sid)
            await asyncio.sleep(1.0)  # over three stall periods

        async def updates(self) -> Any:
            await asyncio.sleep(ends - loop.time())
            yield p.GameOver(room="r", state_id=4, outcome={"winner": 0})

    result = await play_seat(SlowClient(), "r", 0,  # type: ignore[arg-type]
                             lambda view, rng: ["end"], random.Random(1))
    assert result.outcome == {"winner": 0}
    assert calls == [3]
    assert result.actions == 1


async def test_bots_play_on_when_the_first_create_and_join_are_refused_for_now() -> None:
    # Issue #41 item 8: right after a Sentinel start, the store refuses writes for a moment;
    # the bots' create and join are answered server/unavailable and asked again (backoff).
    store = Flaky(creates=1, seats=1)
    async with serving(lambda: store, **TEST_SETTINGS) as make:
        server = await make()
        async with asyncio.timeout(60):
            records = await play_games([server.url], "skipper", "multi", 2, 2, "greedy",
                                       seed=3, timeout=60)
    assert store.creates == 0 and store.seats == 0  # both were refused once
    assert len(records) == 2
    for record in records:
        assert all(r.outcome.get("reason") for r in record["results"])  # played to the end


async def test_a_patient_create_gives_up_after_its_tries() -> None:
    # Bounded: a store that stays down is said as server/unavailable after the last try.
    store = Flaky(creates=1000)
    async with serving(lambda: store, **TEST_SETTINGS) as make:
        server = await make()
        async with Client(server.url) as c:
            loop = asyncio.get_running_loop()
            t0 = loop.time()
            with pytest.raises(ServerError) as refused:
                await c.create_room("skipper", patient=True)
            assert refused.value.code == "server/unavailable"
            assert 1000 - store.creates == PATIENT_ATTEMPTS
            assert loop.time() - t0 < 20
            with pytest.raises(ServerError):  # without patience: refused at once
                await c.create_room("skipper")
            assert 1000 - store.creates == PATIENT_ATTEMPTS + 1
