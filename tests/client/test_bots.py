"""Scripted bots (``client/bots.py``): the watchdog, and bots playing whole games against a
live server."""

from __future__ import annotations

import asyncio
import random
from typing import Any

import pytest

from cardhall import protocol as p
from cardhall.client import bots as bots_module
from cardhall.client.bots import play_seat


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
