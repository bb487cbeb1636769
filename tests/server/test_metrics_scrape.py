"""``/metrics`` of a live server after a known sequence of accepted actions, refused acts
and rate-limited messages: the per-action series (counted in plain attributes since issue
#43, exposed by collectors at scrape time) keep their names, labels, HELP and TYPE lines,
latency bucket boundaries and ``_created`` samples, and count exactly what happened.
(tests/server/test_metrics.py pins the same exposition line for line without a server.)"""

from __future__ import annotations

import asyncio
import time
import urllib.request

import pytest
import websockets
from cardhall import protocol as p
from cardhall.client.client import Client, ServerError
from cardhall.server.metrics import LATENCY_BUCKETS

from ..conftest import ServerFactory
from .test_metrics import PER_ACTION, PER_ACTION_EXPOSITION

#: The ``le`` labels of the latency histogram, in order.
LE = ["0.0001", "0.00025", "0.0005", "0.001", "0.0025", "0.005", "0.01", "0.025", "0.05",
      "0.1", "0.25", "1.0", "+Inf"]


def _get(port: int) -> str:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as resp:
        return str(resp.read().decode())


async def _flood(url: str) -> None:
    """A hello then pings as fast as the socket takes them, until the server closes it."""
    ws = await websockets.connect(url, compression=None)
    await ws.send(p.encode(p.Hello(v=1, client="flood")))
    try:
        for i in range(200):
            await ws.send(p.encode(p.Ping(id=i)))
        async with asyncio.timeout(20):
            async for _ in ws:
                pass
    except websockets.ConnectionClosed:
        pass
    assert ws.close_code == 4008
    ws.transport.abort()


@pytest.mark.parametrize("store_kind", ["memory"])
async def test_scrape_counts_a_known_sequence_of_actions_refusals_and_limits(
        make_server: ServerFactory) -> None:
    server = await make_server(msg_rate=20, msg_burst=40, max_rate_strikes=2,
                               rate_strike_window=10)
    t0 = time.time()
    async with Client(server.url) as client:  # Shop Solitaire: one seat, starts when full
        room = (await client.create_room("shop")).room
        await client.join(room)
        await client.get_view(room)
        for _ in range(6):
            await client.act(room, client.views[room]["legal_actions"][0])
        state = client.views[room]["state_id"]
        for action, state_id in ((("no-such-verb",), state),
                                 (client.views[room]["legal_actions"][0], state + 5)):
            with pytest.raises(ServerError):
                await client.act(room, action, state_id)
    await _flood(server.url)  # max_rate_strikes 2: three refused, the third closes
    text = await asyncio.to_thread(_get, server.port)
    t1 = time.time()
    samples = {name: float(value) for name, value in
               (line.rsplit(" ", 1) for line in text.splitlines() if not line.startswith("#"))}
    shop = 'game="shop",mode="-"'
    assert samples[f"cardhall_actions_accepted_total{{{shop}}}"] == 6
    assert samples["cardhall_actions_total"] == 6
    assert samples[f"cardhall_actions_refused_total{{{shop}}}"] == 2
    assert samples["cardhall_messages_rate_limited_total"] == 3
    buckets = [(line.split('"')[1], float(line.rsplit(" ", 1)[1])) for line in text.splitlines()
               if line.startswith("cardhall_action_latency_seconds_bucket")]
    assert [le for le, _ in buckets] == LE == [*map(repr, LATENCY_BUCKETS), "+Inf"]
    counts = [n for _, n in buckets]
    assert counts == sorted(counts) and counts[-1] == 6  # cumulative, every act timed
    assert samples["cardhall_action_latency_seconds_count"] == 6
    assert 0 < samples["cardhall_action_latency_seconds_sum"] < t1 - t0
    created = {name: value for name, value in samples.items()
               if name.startswith(PER_ACTION) and "_created" in name}
    assert sorted(created) == ["cardhall_action_latency_seconds_created",
                               f"cardhall_actions_accepted_created{{{shop}}}",
                               f"cardhall_actions_refused_created{{{shop}}}",
                               "cardhall_messages_rate_limited_created"]
    assert all(t0 - 60 <= t <= t1 for t in created.values())  # made with the server or room
    heads = [line for line in text.splitlines()
             if line.startswith("#") and line.split(" ")[2].startswith(PER_ACTION)]
    assert heads == [line for line in PER_ACTION_EXPOSITION.splitlines()
                     if line.startswith("#")]
