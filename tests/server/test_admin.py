"""The operators' admin HTTP API and CLI (issue #21): authentication, listing, closing rooms,
kicking seats, draining a process for a rolling restart (rooms handed over through Redis to
another ``cardhall serve`` process while a game goes on), and ``cardhall admin``.

Every endpoint and command here is new: on the code before it, each request answers the
web app's 404 (or the CLI has no ``admin`` command), so every test fails there.
"""

from __future__ import annotations

import asyncio
import json
import random
import shutil
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import msgpack
import pytest
import websockets
from websockets.exceptions import InvalidStatus

from cardhall import protocol as p
from cardhall.client.bots import bot_clients, play_seat, seat_bots, stop_bots
from cardhall.client.client import Client, ServerError
from cardhall.games.bots import strategy
from cardhall.server.app import Server
from cardhall.server.store.redis_store import RedisStore
from cardhall.server.store.sqlite_store import SQLiteStore
from cardhall.server.room import RoomError
from cardhall.server.store.memory_store import MemoryStore

from ..conftest import (
    ROOT,
    RedisProcess,
    ServeProcess,
    ServerFactory,
    assert_one_error,
    free_port,
    run_cli,
    serving,
)
from ..room_harness import started_room

TOKEN = "s3cret-admin-token"


def http_url(server: Server) -> str:
    """``http://host:port`` of an in-process server."""
    return f"http://127.0.0.1:{server.port}"


async def call(base: str, method: str, path: str,
               token: str | None = TOKEN) -> tuple[int, dict[str, Any]]:
    """One HTTP request (urllib, in a thread); returns the status and the JSON answer."""
    def parse(body: bytes) -> dict[str, Any]:
        try:
            return dict(json.loads(body))
        except ValueError:  # not the admin API (/healthz): its text
            return {"raw": body.decode(errors="replace")}

    def go() -> tuple[int, dict[str, Any]]:
        req = urllib.request.Request(base + path, method=method)
        if token is not None:
            req.add_header("Authorization", f"Bearer {token}")
        if method == "POST":
            req.add_header("Content-Length", "0")
        try:
            with urllib.request.urlopen(req, timeout=30) as resp:
                return resp.status, parse(resp.read())
        except urllib.error.HTTPError as exc:
            return exc.code, parse(exc.read())

    return await asyncio.to_thread(go)


async def raw_frames(ws: Any, until: str, seconds: float = 10.0) -> list[dict[str, Any]]:
    """Decoded frames read from a raw websocket until one of type ``until``."""
    frames = []
    async with asyncio.timeout(seconds):
        while True:
            frame = msgpack.unpackb(await ws.recv(), raw=False)
            frames.append(frame)
            if frame.get("t") == until:
                return frames


async def raw_join(url: str, room: str) -> tuple[Any, int]:
    """A raw websocket that said hello and joined ``room``; returns it and its seat."""
    ws = await websockets.connect(url)
    await ws.send(p.encode(p.Hello(v=p.PROTOCOL_VERSION, client="raw", id=0)))
    await raw_frames(ws, "welcome")
    await ws.send(p.encode(p.Join(room=room, id=1)))
    joined = (await raw_frames(ws, "joined"))[-1]
    return ws, joined["seat"]


# -- authentication -------------------------------------------------------------------------


async def test_admin_api_is_off_without_a_token(make_server: ServerFactory) -> None:
    server = await make_server()
    status, body = await call(http_url(server), "GET", "/admin/rooms")
    assert status == 404 and "disabled" in body["error"]
    status, _ = await call(http_url(server), "POST", "/admin/drain")
    assert status == 404
    assert not server.admin.draining


async def test_admin_api_needs_the_right_token(make_server: ServerFactory,
                                               caplog: pytest.LogCaptureFixture) -> None:
    server = await make_server(admin_token=TOKEN)
    base = http_url(server)
    caplog.set_level("INFO", logger="cardhall.admin")
    for token in (None, "wrong", TOKEN + "x", ""):
        status, body = await call(base, "GET", "/admin/rooms", token=token)
        assert status == 401, (token, status, body)
    status, _ = await call(base, "POST", "/admin/drain", token="wrong")
    assert status == 401 and not server.admin.draining
    status, body = await call(base, "GET", "/admin/rooms")
    assert status == 200 and body == {"rooms": [], "cursor": None}
    # Every request is logged (who, what, the answer), never the token.
    text = "\n".join(f"{r.getMessage()} {r.__dict__}" for r in caplog.records)
    assert "admin_denied" in text and "'status': 200" in text
    assert TOKEN not in text and "wrong" not in text


async def test_unknown_endpoint_and_method(make_server: ServerFactory) -> None:
    server = await make_server(admin_token=TOKEN)
    base = http_url(server)
    assert (await call(base, "GET", "/admin/nothing"))[0] == 404
    assert (await call(base, "POST", "/admin/rooms"))[0] == 405
    assert (await call(base, "GET", "/admin/rooms/abc/close"))[0] == 405
    assert (await call(base, "GET", "/admin/rooms?limit=0"))[0] == 400
    assert (await call(base, "POST", "/admin/drain?timeout=-1"))[0] == 400
    assert (await call(base, "POST", "/admin/rooms/nosuchroom/close"))[0] == 404


# -- list, close, kick ----------------------------------------------------------------------


async def test_list_rooms_pages_every_room_with_its_owner(make_server: ServerFactory) -> None:
    server = await make_server(admin_token=TOKEN)
    async with Client(server.url) as c:
        made = {(await c.create_room("skipper", mode="multi", seats=2, private=i == 0)).room
                for i in range(5)}
    listed: list[dict[str, Any]] = []
    cursor = None
    for _ in range(10):
        path = "/admin/rooms?limit=2" + (f"&cursor={cursor}" if cursor else "")
        status, body = await call(http_url(server), "GET", path)
        assert status == 200 and len(body["rooms"]) <= 2
        listed += body["rooms"]
        cursor = body["cursor"]
        if cursor is None:
            break
    assert {r["room"] for r in listed} == made  # the private room too
    assert {r["owner"] for r in listed} == {server.store.process_id}


async def test_close_room_tells_members_and_removes_it(make_server: ServerFactory) -> None:
    server = await make_server(admin_token=TOKEN)
    async with Client(server.url) as host, Client(server.url) as guest:
        room = (await host.create_room("skipper", mode="multi", seats=3)).room
        await host.join(room)
        await guest.join(room)
        ws, _ = await raw_join(server.url, room)
        status, body = await call(http_url(server), "POST", f"/admin/rooms/{room}/close")
        assert status == 200 and body["closed"] and body["members_told"] == 3
        frames = await raw_frames(ws, "left")
        assert {"t": "error", "code": "room/closed"}.items() <= frames[-2].items()
        assert frames[-1] == {"t": "left", "room": room}
        await ws.close()
        deadline = time.monotonic() + 10
        while room in host.seats or room in guest.seats:  # the client forgets the room
            assert time.monotonic() < deadline
            await asyncio.sleep(0.02)
        assert [n.code for n in guest.notices] == ["room/closed"]  # the client keeps it
        assert await server.store.load(room) is None
        assert room not in server.lobby.rooms
        assert (await call(http_url(server), "GET", "/admin/rooms"))[1]["rooms"] == []
        with pytest.raises(ServerError) as err:
            await guest.join(room)
        assert err.value.code == "room/not_found"
    assert (await call(http_url(server), "POST", f"/admin/rooms/{room}/close"))[0] == 404


async def test_kick_in_a_waiting_room_frees_the_seat(make_server: ServerFactory) -> None:
    server = await make_server(admin_token=TOKEN)
    async with Client(server.url) as host, Client(server.url) as late:
        room = (await host.create_room("skipper", mode="multi", seats=3)).room
        await host.join(room)
        ws, seat = await raw_join(server.url, room)
        status, body = await call(http_url(server), "POST",
                                  f"/admin/rooms/{room}/seats/{seat}/kick")
        assert status == 200 and body["seat_now"] == "freed"
        frames = await raw_frames(ws, "left")
        assert {"t": "error", "code": "room/kicked"}.items() <= frames[-2].items()
        await ws.close()
        assert (await late.join(room, seat=seat)).seat == seat  # the seat is free again
        # Kicking an empty seat, or a seat out of range, is refused.
        assert (await call(http_url(server), "POST", f"/admin/rooms/{room}/seats/2/kick"))[0] \
            == 404
        assert (await call(http_url(server), "POST", f"/admin/rooms/{room}/seats/9/kick"))[0] \
            == 404


@pytest.mark.parametrize("on_abandon", ["bot", "forfeit"])
async def test_kick_in_a_playing_room_follows_on_abandon(make_server: ServerFactory,
                                                         on_abandon: str) -> None:
    server = await make_server(admin_token=TOKEN)
    async with Client(server.url) as host, Client(server.url, reconnect=False) as kicked:
        room = (await host.create_room("skipper", mode="multi", seats=3, options={
            "on_abandon": on_abandon})).room
        await host.join(room)
        joined = await kicked.join(room)
        token = kicked.seats[room][1]
        await host.start(room)
        status, body = await call(http_url(server), "POST",
                                  f"/admin/rooms/{room}/seats/{joined.seat}/kick")
        assert status == 200 and body["seat_now"] == on_abandon
        seen: list[Any] = []
        async with asyncio.timeout(10):
            async for msg in host.updates():
                if isinstance(msg, p.SeatEvent) and msg.seat == joined.seat:
                    seen.append(msg.event)
                    if msg.event == on_abandon:
                        break
        assert seen[-2:] == ["left", on_abandon]
        assert room not in kicked.seats  # told with left: the client dropped its token
        # The token is void: the kicked player cannot take the seat back.
        with pytest.raises(ServerError) as err:
            await kicked.resume(room, token)
        assert err.value.code == "room/bad_token"
        # Nobody holds the seat any more: a second kick is refused.
        assert (await call(http_url(server), "POST",
                           f"/admin/rooms/{room}/seats/{joined.seat}/kick"))[0] == 404


async def test_a_page_of_rooms_asks_redis_for_all_owners_at_once(
        redis_server: RedisProcess) -> None:
    """``GET /admin/rooms`` read each room's owner with its own ``GET`` (one round trip per
    room: 500 for a full page); now one ``MGET`` per page."""
    redis_server.flush()
    async with serving(lambda: RedisStore(redis_server.url), msg_rate=None,
                       rooms_per_minute=None, admin_token=TOKEN) as make:
        server = await make()
        async with Client(server.url) as c:
            made = {(await c.create_room("skipper", mode="multi", seats=2)).room
                    for _ in range(40)}
        store = server.store
        assert isinstance(store, RedisStore)

        async def calls(command: str) -> int:
            stats = await store.redis.info("commandstats")
            return int(stats.get(f"cmdstat_{command}", {}).get("calls", 0))

        gets, mgets = await calls("get"), await calls("mget")
        status, body = await call(http_url(server), "GET", "/admin/rooms?limit=100")
        assert status == 200 and {r["room"] for r in body["rooms"]} == made
        assert {r["owner"] for r in body["rooms"]} == {store.process_id}
        assert await calls("get") - gets < 10  # not one per room
        assert await calls("mget") - mgets == 1


async def test_close_and_kick_reach_a_room_owned_by_another_process(
        redis_server: RedisProcess) -> None:
    """The request goes to one process; the room runs on the other (forwarded to its owner
    through its inbox)."""
    redis_server.flush()
    async with serving(lambda: RedisStore(redis_server.url), msg_rate=None,
                       admin_token=TOKEN) as make:
        owner, other = await make(), await make()
        async with Client(owner.url) as host, Client(other.url) as guest:
            room = (await host.create_room("skipper", mode="multi", seats=3)).room
            await host.join(room)
            await guest.join(room)
            assert room in owner.lobby.rooms and room not in other.lobby.rooms
            ws, seat = await raw_join(other.url, room)
            status, body = await call(http_url(other), "POST",
                                      f"/admin/rooms/{room}/seats/{seat}/kick")
            assert status == 200 and body["owner"] == owner.store.process_id
            assert {"t": "error", "code": "room/kicked"}.items() <= (
                await raw_frames(ws, "left"))[-2].items()
            await ws.close()
            status, body = await call(http_url(other), "POST", f"/admin/rooms/{room}/close")
            assert status == 200 and body["members_told"] == 2, body
            deadline = time.monotonic() + 10
            while room in guest.seats or room in host.seats:
                assert time.monotonic() < deadline, "members not told"
                await asyncio.sleep(0.02)
            assert await owner.store.load(room) is None and room not in owner.lobby.rooms


async def test_work_waiting_for_a_room_that_is_handed_over_is_refused_not_lost() -> None:
    """A drain stops a room between two work items; a request queued behind the running one
    gets ``server/unavailable`` (the client retries at the new owner) instead of waiting
    for ever for a room task that is gone. (Before, such a caller hung.)"""
    room, _, _, _ = await started_room(2, {"seed": 3})
    room.start_task()
    release = asyncio.Event()

    async def running() -> None:
        await release.wait()

    first = room.submit(running)
    await asyncio.sleep(0.05)  # the room's task runs it
    queued = room.submit(lambda: "never run")
    closing = asyncio.create_task(room.close())
    await asyncio.sleep(0.05)
    release.set()
    await closing
    with pytest.raises(RoomError) as err:
        await asyncio.wait_for(queued, 5)
    assert err.value.code == "server/unavailable"
    assert first.done()


# -- drain ----------------------------------------------------------------------------------


async def test_drain_with_the_memory_store_waits_for_games() -> None:
    async with serving(MemoryStore, msg_rate=None, admin_token=TOKEN) as make:
        await _memory_drain(await make())


async def test_drain_with_the_memory_store_ends_when_the_games_end() -> None:
    """The drain waits for the game being played, and is done as soon as it ends."""
    async with serving(MemoryStore, msg_rate=None, admin_token=TOKEN) as make:
        server = await make()
        base = http_url(server)
        async with Client(server.url, reconnect=False) as c:
            room = (await c.create_room("skipper", mode="solo")).room
            seat = (await c.join(room)).seat
            assert seat is not None
            status, body = await call(base, "POST", "/admin/drain?timeout=120")
            assert status == 202 and body["rooms_left"] == [room]
            await asyncio.sleep(0.5)
            assert (await call(base, "GET", "/admin/drain"))[1]["state"] == "draining"
            result = await asyncio.wait_for(play_seat(c, room, seat, strategy(
                "skipper", "greedy"), random.Random(1)), 60)
            assert result.outcome
            deadline = time.monotonic() + 10
            while (body := (await call(base, "GET", "/admin/drain"))[1])["state"] != "drained":
                assert time.monotonic() < deadline
                await asyncio.sleep(0.05)
            assert body["rooms_left"] == [] and body["seconds"] < 120


async def test_drain_with_the_sqlite_store_closes_at_once_and_a_restart_resumes_the_game(
        tmp_path: Path) -> None:
    """The rooms stay in the data file: the drain does not wait for the game; the client,
    closed with 1012, resumes its seat on the server restarted on the file."""
    async with serving(lambda: SQLiteStore(tmp_path / "data.db"), msg_rate=None,
                       admin_token=TOKEN) as make:
        server = await make()
        async with Client(server.url, reconnect=False) as c:
            room = (await c.create_room("skipper", mode="solo")).room
            joined = await c.join(room)
            await c.act(room, strategy("skipper", "greedy")(c.views[room], random.Random(1)))
            status, body = await call(http_url(server), "POST", "/admin/drain?timeout=120")
            assert status == 200 and body["store"] == "durable"  # drained at once
            ws = c._ws
            assert ws is not None
            async with asyncio.timeout(10):
                await ws.wait_closed()
            assert ws.close_code == 1012
            _, body = await call(http_url(server), "GET", "/admin/drain")
            assert body["state"] == "drained" and body["rooms_kept"] == 1
            assert body["seconds"] < 10  # the game was not waited for
        await server.stop()
        again = await make()
        async with Client(again.url) as c:
            back = await c.resume(room, joined.token)
            assert back.view["state_id"] == 1


async def _memory_drain(server: Server) -> None:
    base = http_url(server)
    async with Client(server.url, reconnect=False) as c:
        room = (await c.create_room("skipper", mode="solo")).room
        await c.join(room)  # solo: starts at once
        status, body = await call(base, "POST", "/admin/drain?timeout=1.5")
        assert status == 202 and body["state"] == "draining" and body["store"] == "memory"
        # No new rooms, no new connections, and the load balancer is told.
        with pytest.raises(ServerError) as err:
            await c.create_room("skipper", mode="solo")
        assert err.value.code == "server/unavailable"
        with pytest.raises(InvalidStatus) as refused:
            await websockets.connect(server.url)
        assert refused.value.response.status_code == 503
        health = await call(base, "GET", "/healthz", token=None)
        assert health[0] == 503
        # The game goes on until the timeout, then the connection is closed with 1012.
        await c.get_view(room)
        deadline = time.monotonic() + 15
        while (await call(base, "GET", "/admin/drain"))[1]["state"] != "drained":
            assert time.monotonic() < deadline
            await asyncio.sleep(0.1)
        _, body = await call(base, "GET", "/admin/drain")
        assert body["rooms_left"] == [room] and body["connections_closed"] == 1
        ws = c._ws
        assert ws is not None
        async with asyncio.timeout(10):
            await ws.wait_closed()
        assert ws.close_code == 1012


needs_redis = pytest.mark.skipif(shutil.which("redis-server") is None,
                                 reason="redis-server is not installed")


@needs_redis
async def test_drain_hands_a_game_in_progress_to_another_process(tmp_path: Path) -> None:
    """Two ``cardhall serve --redis-url`` processes; four bots play a Skipper game owned by
    A (two of them connected to A, two to B). ``cardhall admin drain`` on A: A hands the
    room to B through Redis and closes its clients with 1012; they reconnect to B and
    resume their seats; the game ends on B with every acknowledged action in the log (none
    lost, none doubled); A reports drained and its /healthz answers 503."""
    redis_proc = RedisProcess(tmp_path)
    redis_proc.start()
    token_file = tmp_path / "token"
    token_file.write_text(TOKEN + "\n")
    a = b = None
    store = RedisStore(redis_proc.url)
    clients: list[Client] = []
    play: list[asyncio.Task[Any]] = []
    try:
        a = ServeProcess(tmp_path, "--redis-url", redis_proc.url, "--admin-token-file",
                         str(token_file))
        b = ServeProcess(tmp_path, "--redis-url", redis_proc.url, "--admin-token", TOKEN)
        clients = bot_clients([a.url, b.url], 4)
        room, seats = await seat_bots(clients, "skipper", "multi", {"turn_limit": 40})
        choose = strategy("skipper", "greedy")
        rng = random.Random(7)
        play = [asyncio.create_task(play_seat(c, room, s, choose, random.Random(rng.random()),
                                              think=0.03))
                for c, s in zip(clients, seats)]
        deadline = time.monotonic() + 30
        while (clients[1].views.get(room) or {}).get("state_id", 0) < 8:  # mid-game
            assert time.monotonic() < deadline and not any(t.done() for t in play)
            await asyncio.sleep(0.02)
        assert f":{a.proc.pid}:" in (await store.owner(room) or "")
        before = (clients[1].views.get(room) or {})["state_id"]
        drain = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "cardhall.cli", "admin", "drain",
            "--url", f"http://127.0.0.1:{a.port}", "--token-file", str(token_file),
            "--timeout", "20", stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
            cwd=ROOT)
        out, err = await asyncio.wait_for(drain.communicate(), 90)
        assert drain.returncode == 0, err.decode()
        report = json.loads(out.decode().strip().splitlines()[-1])
        assert report["state"] == "drained" and report["store"] == "shared"
        assert report["rooms_handed_over"] == 1 and report["rooms_not_taken_over"] == []
        assert report["connections_closed"] == 2
        assert f":{b.proc.pid}:" in (await store.owner(room) or "")
        assert (await call(f"http://127.0.0.1:{a.port}", "GET", "/healthz", token=None))[0] \
            == 503
        assert (await call(f"http://127.0.0.1:{b.port}", "GET", "/healthz", token=None))[0] \
            == 200
        async with asyncio.timeout(120):
            results = await asyncio.gather(*play)
        # The game went on after the drain and ended on B.
        assert results[0].state_id > before and results[0].outcome
        for c in clients[0::2]:  # they were on A: closed with 1012, now on B
            assert c.reconnects >= 1 and c.url == b.url
        loaded = await store.load(room)
        assert loaded is not None
        entries = await store.log(room)
        accepted = sum(r.actions for r in results)
        assert results[0].state_id == len(entries)
        # Every acknowledged action is in the log, at most one per bot in flight at the
        # handover was applied unanswered; the log replays to the game's end.
        assert accepted <= len(entries) <= accepted + len(results)
        from cardhall.games import get
        from cardhall.games import replay
        game = replay(get("skipper"), loaded.record["options"], loaded.record["seats"],
                      entries)
        assert game.over and game.state_id == results[0].state_id
        assert "Traceback" not in a.stderr(20000) and "Traceback" not in b.stderr(20000)
    finally:
        await stop_bots(play, clients)
        await store.close()
        for proc in (a, b):
            if proc is not None:
                proc.stop()
        redis_proc.stop()


# -- the CLI --------------------------------------------------------------------------------


async def test_cli_admin_rooms_prints_an_aligned_table(make_server: ServerFactory) -> None:
    from cardhall.cli import main
    from click.testing import CliRunner

    server = await make_server(admin_token=TOKEN)
    async with Client(server.url, name="host") as host:
        duo = (await host.create_room("skipper", mode="multi", seats=2, name="Friday")).room
        await host.join(duo)
    _, listing = await call(http_url(server), "GET", "/admin/rooms")
    (owner,) = {r["owner"] for r in listing["rooms"]}
    result = await asyncio.to_thread(CliRunner().invoke, main, [
        "admin", "rooms", "--url", http_url(server), "--token", TOKEN])
    assert result.exit_code == 0, result.output
    assert result.output.splitlines() == [
        "room       game           seats status    owner                        name",
        f"{duo:<10} skipper          1/2 waiting   {owner or '-':<28} Friday"]


def test_cli_admin_commands(tmp_path: Path) -> None:
    server = ServeProcess(tmp_path, "--admin-token", TOKEN)
    off = ServeProcess(tmp_path)
    try:
        url = f"http://127.0.0.1:{server.port}"
        listed = run_cli("admin", "rooms", "--url", url, "--token", TOKEN)
        assert listed.returncode == 0 and listed.stdout.strip() == "no rooms", listed
        as_env = run_cli("admin", "rooms", "--url", url, "--json",
                         env={"CARDHALL_ADMIN_TOKEN": TOKEN})
        assert as_env.returncode == 0 and json.loads(as_env.stdout) == []
        line = assert_one_error(run_cli("admin", "rooms", "--url", url, "--token", "wrong"),
                                "401")
        assert "wrong" not in line
        assert_one_error(run_cli("admin", "rooms", "--url", url), "--token")
        assert_one_error(run_cli("admin", "close", "nosuchroom", "--url", url, "--token", TOKEN),
                         "404", "nosuchroom")
        assert_one_error(run_cli("admin", "kick", "nosuchroom", "1", "--url", url, "--token",
                                 TOKEN), "404")
        assert_one_error(run_cli("admin", "rooms", "--url", f"127.0.0.1:{server.port}",
                                 "--token", TOKEN), "http://")
        assert_one_error(run_cli("admin", "rooms", "--url", f"http://127.0.0.1:{off.port}",
                                 "--token", TOKEN), "404", "disabled")
        assert_one_error(run_cli("admin", "rooms", "--url", f"http://127.0.0.1:{free_port()}",
                                 "--token", TOKEN), "cannot reach")
        drained = run_cli("admin", "drain", "--url", url, "--token", TOKEN, "--timeout", "1")
        assert drained.returncode == 0, drained.stderr
        report = json.loads(drained.stdout)  # cardhall serve's default store: the data file
        assert report["state"] == "drained" and report["store"] == "durable"
    finally:
        server.stop()
        off.stop()



async def test_an_operator_purges_and_prunes_the_games_archive(
        make_server: ServerFactory) -> None:
    """Issue #44 item 2: ``POST /admin/games/ID/purge`` forgets one archived game (404 for a
    game not kept), ``POST /admin/games/prune?days=N`` those finished more than N days ago;
    then ``get_log`` of it answers ``room/not_found``."""
    from cardhall.client.client import ServerError

    from .test_archive import play_out

    server = await make_server(admin_token=TOKEN, finished_ttl=0.05)
    base = http_url(server)
    room = await play_out(server, private=False)
    assert await call(base, "GET", f"/admin/games/{room}/purge") == (
        405, {"error": "method not allowed here (allowed: POST)"})
    assert await call(base, "POST", f"/admin/games/{room}/purge") == (
        200, {"room": room, "purged": 1})
    status, body = await call(base, "POST", f"/admin/games/{room}/purge")
    assert status == 404 and "no game" in body["error"]
    async with Client(server.url) as c:
        with pytest.raises(ServerError) as err:
            await c.fetch_log(room)
        assert err.value.code == "room/not_found"
    other = await play_out(server, private=True)
    assert await call(base, "POST", "/admin/games/prune?days=1") == (
        200, {"days": 1.0, "pruned": 0})
    assert (await call(base, "POST", "/admin/games/prune?days=x"))[0] == 400
    assert await call(base, "POST", "/admin/games/prune?days=0") == (
        200, {"days": 0.0, "pruned": 1})
    assert await server.store.archived(other) is None


async def test_cli_admin_purges_and_prunes_games(make_server: ServerFactory) -> None:
    """``cardhall admin purge-games ROOM`` and ``prune-games --days N`` (issue #44)."""
    from cardhall.cli import main
    from click.testing import CliRunner

    from .test_archive import play_out

    server = await make_server(admin_token=TOKEN, finished_ttl=0.05)
    first = await play_out(server, private=False)
    second = await play_out(server, private=False)
    args = ["--url", http_url(server), "--token", TOKEN]
    result = await asyncio.to_thread(CliRunner().invoke, main,
                                     ["admin", "purge-games", first, *args])
    assert result.exit_code == 0 and result.output == f"game {first} purged from the archive\n"
    result = await asyncio.to_thread(CliRunner().invoke, main,
                                     ["admin", "purge-games", first, *args])
    assert result.exit_code == 1 and "404" in result.output, result.output
    result = await asyncio.to_thread(CliRunner().invoke, main,
                                     ["admin", "prune-games", "--days", "0", *args])
    assert result.exit_code == 0, result.output
    assert result.output == "1 games finished more than 0 days ago forgotten\n"
    assert await server.store.archived(second) is None
