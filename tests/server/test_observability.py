"""Observability: game start/finish log lines, per-game and rate-limit metrics, the
access log of ``/healthz`` (DEBUG, not INFO), and ``/healthz`` with a paused Redis."""

from __future__ import annotations

import asyncio
import io
import logging
import re
import shutil
import signal
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
import websockets
from cardhall import protocol as p
from cardhall.client.bots import play_games
from cardhall.client.client import Client, ServerError
from cardhall.server.app import Server
from cardhall.server.logs import formatter
from cardhall.server.metrics import HEALTH_FRESH_SECONDS
from cardhall.server.store.redis_store import RedisStore
from cardhall.games import OUTCOMES, outcome_kind

from ..conftest import RedisProcess, ServerFactory, serving


def scrape(port: int) -> dict[str, float]:
    """``{sample name with labels: value}`` of the server's ``/metrics``."""
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as resp:
        body = resp.read().decode()
    return {name: float(value) for name, value in
            (line.rsplit(" ", 1) for line in body.splitlines()
             if line and not line.startswith("#"))}


async def ascrape(server: Server) -> dict[str, float]:
    """:func:`scrape` without blocking the server's event loop."""
    return await asyncio.to_thread(scrape, server.port)


def records(caplog: pytest.LogCaptureFixture, name: str) -> list[logging.LogRecord]:
    """The captured records of the event ``name``."""
    return [r for r in caplog.records if r.getMessage() == name]


@contextmanager
def log_lines(level: int) -> Iterator[io.StringIO]:
    """Render every record of the process at ``level`` and above as the server's log lines
    (:func:`formatter`, logfmt) into the yielded buffer, as ``cardhall serve`` does."""
    buffer = io.StringIO()
    handler = logging.StreamHandler(buffer)
    handler.setFormatter(formatter("kv"))
    handler.setLevel(level)
    root = logging.getLogger()
    old = root.level
    root.addHandler(handler)
    root.setLevel(level)
    try:
        yield buffer
    finally:
        root.removeHandler(handler)
        root.setLevel(old)


# -- game start and finish ------------------------------------------------------------------


async def test_a_game_logs_its_start_and_its_outcome(server: Server,
                                                     caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="cardhall.room")
    [played] = await play_games([server.url], "skipper", "solo", 1, 1, "greedy", seed=2,
                                timeout=60)
    [started] = records(caplog, "game_started")
    [finished] = records(caplog, "game_finished")
    assert started.levelno == finished.levelno == logging.INFO
    fields = vars(started)
    assert {k: fields[k] for k in ("room", "game", "mode", "seats", "humans", "bots")} == {
        "room": played["room"], "game": "skipper", "mode": "solo", "seats": 1, "humans": 1,
        "bots": 0}
    fields = vars(finished)
    assert (fields["room"], fields["game"], fields["mode"]) == (played["room"], "skipper",
                                                                 "solo")
    outcome = {"winner": played["winner"], "reason": played["outcome"]}  # game_over's
    assert fields["winner"] == outcome["winner"] and fields["reason"] == outcome["reason"]
    assert fields["outcome"] == outcome_kind(outcome)
    assert fields["turns"] == played["turns"] > 0
    assert 0 <= fields["duration"] <= played["duration_s"] + 5
    line = formatter("kv").format(finished)
    assert "event=game_finished" in line and f"room={played['room']}" in line
    assert f"outcome={fields['outcome']}" in line and "duration=" in line


async def test_server_bots_count_as_bots_and_a_resignation_is_abandoned(
        server: Server, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="cardhall.room")
    async with Client(server.url) as client:
        multi = (await client.create_room("skipper", mode="multi", seats=3)).room
        await client.join(multi, seat=0)
        await client.start(multi)  # seats 1 and 2: server bots
        solo = (await client.create_room("skipper", mode="solo")).room
        await client.join(solo)  # a full room starts
        await client.get_view(solo)
        await client.act(solo, ("resign",))
        async with asyncio.timeout(10):
            while not records(caplog, "game_finished"):
                await asyncio.sleep(0.02)
    by_room = {r.room: r for r in records(caplog, "game_started")}  # type: ignore[attr-defined]
    assert (by_room[multi].seats, by_room[multi].humans,  # type: ignore[attr-defined]
            by_room[multi].bots) == (3, 1, 2)  # type: ignore[attr-defined]
    [finished] = records(caplog, "game_finished")
    assert (finished.room, finished.outcome, finished.reason,  # type: ignore[attr-defined]
            finished.winner) == (solo, "abandoned", "resigned", None)  # type: ignore
    metrics = await ascrape(server)
    labels = 'game="skipper",mode="solo"'
    assert metrics[f'cardhall_games_finished_total{{{labels},outcome="abandoned"}}'] == 1
    assert metrics[f'cardhall_games_finished_total{{{labels},outcome="won"}}'] == 0
    assert metrics['cardhall_games_started_total{game="skipper",mode="multi"}'] == 1


def test_outcome_kinds_of_the_engines_reasons() -> None:
    cases = {
        ("won", 0): "won", ("completed", 2): "won", ("last_standing", 1): "won",
        ("turn_limit", None): "limit", ("move limit", None): "limit",
        ("resigned", None): "abandoned", ("forfeited", None): "abandoned",
        ("resigned in round 3", None): "abandoned", ("resigned with 20 points", None):
            "abandoned", ("all_out", None): "abandoned",
        ("unwinnable", None): "lost", ("no move left", None): "lost",
        ("closed shop", None): "lost", ("scored 30 points, not more than 36", None): "lost",
    }
    for (reason, winner), kind in cases.items():
        assert outcome_kind({"winner": winner, "reason": reason, "scores": [0]}) == kind
    assert outcome_kind(None) == "abandoned"
    assert set(cases.values()) == set(OUTCOMES)


# -- metrics ----------------------------------------------------------------------------------


async def test_per_game_metrics_count_games_actions_refusals_and_durations(
        server: Server) -> None:
    [played] = await play_games([server.url], "skipper", "solo", 1, 1, "greedy", seed=2,
                                timeout=60)
    async with Client(server.url) as client:  # two refused acts in a Shop Solitaire room
        room = (await client.create_room("shop")).room
        await client.join(room)  # a full room starts
        view = await client.get_view(room)
        for action, state_id in ((("no-such-verb",), view["state_id"]),
                                 (view["legal_actions"][0], view["state_id"] + 5)):
            with pytest.raises(ServerError):
                await client.act(room, action, state_id)
    m = await ascrape(server)
    skipper, shop = 'game="skipper",mode="solo"', 'game="shop",mode="-"'
    kind = outcome_kind({"winner": played["winner"], "reason": played["outcome"]})
    assert m[f"cardhall_games_started_total{{{skipper}}}"] == 1
    assert m[f"cardhall_games_started_total{{{shop}}}"] == 1
    assert m[f'cardhall_games_finished_total{{{skipper},outcome="{kind}"}}'] == 1
    assert sum(m[f'cardhall_games_finished_total{{{skipper},outcome="{k}"}}']
               for k in OUTCOMES) == 1
    accepted = m[f"cardhall_actions_accepted_total{{{skipper}}}"]
    assert accepted == played["state_id"] > 10
    assert m["cardhall_actions_total"] == accepted  # the shop room accepted nothing
    assert m[f"cardhall_actions_refused_total{{{skipper}}}"] == 0
    assert m[f"cardhall_actions_refused_total{{{shop}}}"] == 2
    assert m[f"cardhall_game_duration_seconds_count{{{skipper}}}"] == 1
    assert 0 <= m[f"cardhall_game_duration_seconds_sum{{{skipper}}}"] <= played["duration_s"] + 5
    assert f"cardhall_game_duration_seconds_count{{{shop}}}" in m  # bound at 0, not finished
    assert not any(played["room"] in name for name in m)  # no room id in any label


async def test_rate_limit_metrics_count_refused_messages_closes_and_rooms(
        make_server: ServerFactory) -> None:
    server = await make_server(msg_rate=20, msg_burst=10, max_rate_strikes=5,
                               rate_strike_window=10, rooms_per_minute=2, max_rooms=3)
    before = await ascrape(server)
    assert before["cardhall_messages_rate_limited_total"] == 0
    assert before['cardhall_connections_closed_total{code="4008"}'] == 0
    ws = await websockets.connect(server.url, compression=None)
    await ws.send(p.encode(p.Hello(v=1, client="flood")))
    for i in range(60):  # 10 pass (the burst less the hello), 6 refused, then 4008
        try:
            await ws.send(p.encode(p.Ping(id=i)))
        except websockets.ConnectionClosed:
            break
    async with asyncio.timeout(20):
        while (await ascrape(server))['cardhall_connections_closed_total{code="4008"}'] < 1:
            await asyncio.sleep(0.05)
    ws.transport.abort()
    async with Client(server.url) as a, Client(server.url) as b:
        for c in (a, a, b):  # joined: only rooms somebody sits in count against the cap
            await c.join((await c.create_room("skipper", mode="multi", seats=2)).room)
            if c is a and len(server.lobby.rooms) == 2:
                with pytest.raises(ServerError, match="a minute"):
                    await a.create_room("skipper")  # a's rooms per minute
        with pytest.raises(ServerError, match="at most 3"):
            await b.create_room("skipper")  # the process's max_rooms
    m = await ascrape(server)
    assert m["cardhall_messages_rate_limited_total"] == 6
    assert m['cardhall_connections_closed_total{code="4008"}'] == 1
    assert m['cardhall_rooms_refused_total{reason="rate"}'] == 1
    assert m['cardhall_rooms_refused_total{reason="capacity"}'] == 1
    assert m['cardhall_connections_refused_total{reason="server full"}'] == 0  # exported


# -- the access log of /healthz ---------------------------------------------------------------


def lines_of(buffer: io.StringIO) -> list[str]:
    """The log lines written so far (and forget them)."""
    text = buffer.getvalue()
    buffer.seek(0)
    buffer.truncate()
    return [line for line in text.splitlines() if line]


async def test_healthz_requests_are_logged_at_debug_not_info(server: Server) -> None:
    base = f"http://127.0.0.1:{server.port}"

    def get(path: str) -> int:
        with urllib.request.urlopen(base + path, timeout=5) as resp:
            return int(resp.status)

    with log_lines(logging.INFO) as buffer:
        assert await asyncio.to_thread(get, "/healthz") == 200
        await asyncio.sleep(0.2)  # the server logs after the response went out
        assert lines_of(buffer) == []  # a probe every second: no line at INFO
        assert await asyncio.to_thread(get, "/index.html") == 200
        await asyncio.sleep(0.2)
        lines = lines_of(buffer)  # other requests: one access line, with the path
        [line] = [line for line in lines if "event=http_request" in line]
        assert not any("HTTP response sent" in line for line in lines)  # not twice
        assert "level=info" in line
        assert "path=/index.html" in line and "code=200" in line
    with log_lines(logging.DEBUG) as buffer:
        assert await asyncio.to_thread(get, "/healthz") == 200
        await asyncio.sleep(0.2)
        found = [line for line in lines_of(buffer) if "event=http_request" in line]
        assert len(found) == 1 and "level=debug" in found[0]
        assert re.search(r" path=/healthz( |$)", found[0]) and " code=200 " in found[0]
        assert "addr=127.0.0.1" in found[0]


async def test_a_websocket_makes_one_open_and_one_closed_line(server: Server) -> None:
    # websockets' own "connection open" / "connection closed" lines doubled the server's
    # conn_open / conn_closed (which carry the session, address and close code).
    with log_lines(logging.INFO) as buffer:
        async with Client(server.url):
            pass
        await asyncio.sleep(0.2)
        lines = lines_of(buffer)
    assert len([line for line in lines if "event=conn_open" in line]) == 1
    assert len([line for line in lines if "event=conn_closed" in line]) == 1
    assert not any("connection open" in line or "connection closed" in line for line in lines)


async def test_websockets_lines_name_the_address_not_the_connection_object(
        server: Server) -> None:
    # websockets logs through a LoggerAdapter with extra={"websocket": connection}: the line
    # carried `websocket=<...AdmittedConnection object at 0x7f...>`, an address in memory.
    async with Client(server.url):
        await asyncio.sleep(0.05)
        [session] = server.sessions.values()
        ws_logger = logging.LoggerAdapter(logging.getLogger("cardhall.websockets"),
                                          {"websocket": session.ws})
        with log_lines(logging.INFO) as buffer:
            ws_logger.error("keepalive ping failed")  # as websockets says it
            lines = lines_of(buffer)
    [line] = lines
    assert "event=\"keepalive ping failed\"" in line and "level=error" in line
    assert "websocket=" not in line and " object at 0x" not in line
    assert re.search(r" addr=127\.0\.0\.1( |$)", line)


async def test_healthz_answers_503_within_a_second_while_redis_is_paused(
        tmp_path: Path) -> None:
    """Issue #35 defect 6: while the server's Redis is stopped (SIGSTOP), ``/healthz``
    answers within a second, and 503 from the first answer after the pause on; 200 again
    once Redis runs (SIGCONT). Before, it answered 200, or nothing for seconds."""
    if shutil.which("redis-server") is None:
        pytest.skip("redis-server is not installed")
    redis_proc = RedisProcess(tmp_path)
    redis_proc.start()
    assert redis_proc.proc is not None
    url = ""

    def get() -> tuple[int, float]:
        t0 = time.monotonic()
        try:
            with urllib.request.urlopen(url + "/healthz", timeout=5) as resp:
                status = int(resp.status)
        except urllib.error.HTTPError as exc:
            status = exc.code
        return status, time.monotonic() - t0

    try:
        async with serving(lambda: RedisStore(redis_proc.url)) as make:
            server = await make()
            url = f"http://127.0.0.1:{server.port}"
            assert (await asyncio.to_thread(get))[0] == 200
            redis_proc.proc.send_signal(signal.SIGSTOP)
            try:
                await asyncio.sleep(HEALTH_FRESH_SECONDS)  # the last answer is stale
                answers = [await asyncio.to_thread(get) for _ in range(4)]
            finally:
                redis_proc.proc.send_signal(signal.SIGCONT)
            assert [status for status, _ in answers] == [503] * 4
            assert max(took for _, took in answers) < 1.0, answers
            for _ in range(100):  # the probe under way when Redis woke may answer first
                if (await asyncio.to_thread(get))[0] == 200:
                    break
                await asyncio.sleep(0.1)
            else:
                raise AssertionError("/healthz did not answer 200 again")
    finally:
        redis_proc.stop()
