"""The lobby: error replies that always fit the protocol (issue #18 defect 4), and room
listings that page through any number of rooms with filters, plus quick join through the
waiting-room index (issue #18 defect 5). Each server test runs on both stores."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import msgpack
import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from cardhall import protocol as p
from cardhall.client.client import Client, ServerError
from cardhall.cli import main
from cardhall.games.skipper import Skipper
from cardhall.server.store.redis_store import RedisStore
from cardhall.server.store.sqlite_store import SQLiteStore
from cardhall.server.store.memory_store import MemoryStore

from ..conftest import ServerFactory

LONG = "x" * 2000


# -- defect 4: long option values and names --------------------------------------------------


@pytest.mark.parametrize("options", [
    {"mode": LONG},              # a value the game checks against its choices
    {"hand_size": LONG},         # a value that is not a number
    {"turn_seconds": LONG},      # a room option's value
    {LONG: 1},                   # an option name nobody knows
    {f"{i}{LONG[:1500]}": i for i in range(20)},  # many long unknown names
], ids=["mode", "hand_size", "turn_seconds", "name", "names"])
async def test_a_long_option_gets_bad_options_and_the_connection_goes_on(
        make_server: ServerFactory, options: dict[str, object]) -> None:
    server = await make_server(rooms_per_minute=None)
    async with Client(server.url, reconnect=False) as c:
        with pytest.raises(ServerError) as err:
            await c.create_room("skipper", seats=1, options=options)
        assert err.value.code == "lobby/bad_options"
        assert len(err.value.message) <= 1024
        assert LONG[:200] not in err.value.message  # the echoed value is clipped
        # The same connection is still served.
        assert await c.ping() >= 0
        created = await c.create_room("skipper", seats=1, options={"seed": 3})
        joined = await c.join(created.room)
        assert joined.seat == 0


@given(st.text(max_size=5000), st.sampled_from(sorted(p.ERROR_CODES)),
       st.none() | st.integers(0, 2**31 - 1) | st.text(max_size=64))
def test_any_error_message_is_encodable(message: str, code: str, re: object) -> None:
    reply = p.error_reply(code, message, re)  # type: ignore[arg-type]
    assert reply.code == code and len(reply.message) <= 1024
    assert message.startswith(reply.message[:-3] if len(message) > 1024 else reply.message)
    assert p.decode(p.encode(reply), side="server") == reply


@given(st.text(max_size=5000), st.text(min_size=1, max_size=80), st.integers() | st.text())
def test_an_unbuildable_error_falls_back_to_a_fixed_one(message: str, code: str,
                                                        re: object) -> None:
    class Odd(Exception):
        pass

    exc = Odd()
    exc.code, exc.message, exc.re = code, message, re  # type: ignore[attr-defined]
    reply = p.error_reply(exc)
    assert p.decode(p.encode(reply), side="server") == reply


# -- waiting rooms hold no engine and no task ------------------------------------------------


async def test_a_waiting_room_holds_no_engine_or_task_and_deals_its_seed_at_start(
        server: object) -> None:
    srv: Any = server
    async with Client(srv.url, reconnect=False) as host:
        created = await host.create_room("skipper", mode="multi", seats=3)
        room = srv.lobby.rooms[created.room]
        seed = room.table.options["seed"]  # drawn by the server at creation (fair deals)
        assert room.table.game is None and room.work.task is None and room.work.queue is None
        joined = await host.join(created.room)
        # A joined player of a waiting room gets the view of the deal the start will make.
        dealt = Skipper({"mode": "multi", "seed": seed}, 3)
        assert joined.view["room"]["status"] == "waiting"
        assert {k: v for k, v in joined.view.items() if k not in ("room", "legal_actions")} \
            == {k: v for k, v in dealt.view(0).items() if k != "legal_actions"}
        assert room.table.game is None  # the deal made for the view was not kept
        await host.start(created.room)
        assert room.table.game is not None and room.table.game.snapshot() == dealt.snapshot()
        loaded = await srv.store.load(created.room)
        assert loaded.record["options"]["seed"] == seed


# -- defect 5: paging, filters, the waiting-room index ----------------------------------------


class _Host:
    """Stands in for the creating connection (the lobby reads its ``session``)."""

    session_id = "host"


async def _fill(srv: Any, n: int) -> dict[str, dict[str, Any]]:
    """Create ``n`` rooms straight through the lobby, of several games, modes, sizes and
    states (some private, some started); returns their lobby entries by id."""
    host: Any = _Host()
    kinds = [("skipper", "multi", 4, False), ("skipper", "race", 2, False),
             ("shop", None, 1, False), ("skipper", "multi", 3, True)]
    made = []
    for i in range(n):
        game, mode, seats, private = kinds[i % len(kinds)]
        room = await srv.lobby.create(host, p.CreateRoom(game=game, mode=mode, seats=seats),
                                      {"bot_seconds": 60}, private=private)  # bots idle
        made.append(room)
    for room in made[::10]:  # a tenth start (bots take the seats): not waiting any more
        await room.submit(lambda room=room: room.apply(room.table.start(None)))
        await room.submit(lambda: None)  # the state saved by the start has been written
    return {r["room"]: r for r in await srv.store.list_rooms()}


async def _pages(c: Client, **filters: Any) -> list[p.Rooms]:
    pages, cursor = [], None
    for _ in range(10_000):
        page = await c.rooms_page(cursor=cursor, **filters)
        pages.append(page)
        if not page.more:
            return pages
        assert page.cursor is not None and len(page.rooms) <= filters.get("limit", 100)
        cursor = page.cursor
    raise AssertionError("paging does not end")


async def test_paging_lists_5000_rooms_exactly_once_and_filters_select(
        make_server: ServerFactory) -> None:
    srv: Any = await make_server()
    entries = await _fill(srv, 5000)
    assert len(entries) == 5000
    # A client's listing never shows a private room (issue #35).
    public = {rid: e for rid, e in entries.items() if not e["private"]}
    async with Client(srv.url, reconnect=False) as c:
        # An old client (no filters, no cursor) gets the first page and a cursor: before
        # paging, a listing of more than 4,096 rooms failed with server/internal.
        first = await c.request(p.ListRooms(id=1))
        assert isinstance(first, p.Rooms) and first.more and first.cursor
        assert [r.room for r in first.rooms] == sorted(public)[:100]
        pages = await _pages(c, limit=200)
        listed = [r.room for page in pages for r in page.rooms]
        assert listed == sorted(public)  # every public room once, in id order
        assert len(pages) <= 25
        for filters, fits in [
            ({"game": "shop"}, lambda e: e["game"] == "shop"),
            ({"game": "skipper", "mode": "race"},
             lambda e: e["game"] == "skipper" and e["mode"] == "race"),
            ({"waiting": True},
             lambda e: e["status"] == "waiting" and not e["private"]
             and e["taken"] < e["seats"]),
            ({"game": "skipper", "waiting": True},
             lambda e: e["game"] == "skipper" and e["status"] == "waiting"
             and not e["private"] and e["taken"] < e["seats"]),
            ({"game": "nosuchgame"}, lambda e: False),
        ]:
            got = [r["room"] async for r in c.iter_rooms(**filters)]
            want = sorted(rid for rid, e in public.items() if fits(e))
            assert got == want, filters
        # 3,750 public rooms, of which 500 started (every tenth room, of kinds 0 and 2).
        assert len([r async for r in c.iter_rooms(waiting=True)]) == 3250
        assert await c.list_rooms("shop") == [
            public[r] for r in sorted(public) if public[r]["game"] == "shop"]


async def test_quick_join_reads_the_waiting_index_not_every_room(
        make_server: ServerFactory) -> None:
    srv: Any = await make_server()
    entries = await _fill(srv, 2000)
    read: list[int] = []
    real = srv.store.entries

    async def counting(room_ids: Any) -> Any:
        read.append(len(room_ids))
        return await real(room_ids)

    srv.store.entries = counting
    async with Client(srv.url, reconnect=False) as c:
        joined = await c.quick_join("skipper", mode="race", seats=2)
    entry = entries[joined.room]  # an existing room, not a fresh one
    assert entry["mode"] == "race" and entry["status"] == "waiting" and entry["taken"] == 0
    # The first free race room in id order (all rooms are on this process).
    waiting_race = sorted(r for r, e in entries.items() if e["mode"] == "race"
                          and e["status"] == "waiting")
    assert joined.room == waiting_race[0]
    assert sum(read) <= 2 * 256, read  # a page or two of the index, not 2,000 entries


def test_paging_fields_are_checked() -> None:
    def frame(**fields: Any) -> bytes:
        return msgpack.packb(fields, use_bin_type=True)

    assert p.decode(frame(t="list_rooms", waiting=True, cursor="ab", limit=200),
                    side="client") == p.ListRooms(waiting=True, cursor="ab", limit=200)
    for bad in [{"limit": 0}, {"limit": p.LIST_LIMIT_MAX + 1}, {"cursor": ""},
                {"cursor": "x" * 65}]:
        with pytest.raises(p.BadValue):
            p.decode(frame(t="list_rooms", **bad), side="client")
    with pytest.raises(p.BadType):
        p.decode(frame(t="list_rooms", waiting=1), side="client")
    for bad in [{"cursor": "ab"}, {"more": True}, {"more": False, "cursor": "ab"}]:
        with pytest.raises(p.BadValue):
            p.decode(frame(t="rooms", rooms=[], **bad), side="server")
    last = p.Rooms(rooms=[])
    assert p.decode(p.encode(last), side="server") == last and "more" not in last.to_map()


async def test_cli_rooms_filters_and_names_an_unknown_game(server: object) -> None:
    srv: Any = server
    entries = await _fill(srv, 12)
    runner = CliRunner()
    result = await asyncio.to_thread(runner.invoke, main,
                                     ["rooms", "--url", srv.url, "--game", "nosuch"])
    assert result.exit_code != 0 and "unknown game 'nosuch'" in result.output
    result = await asyncio.to_thread(runner.invoke, main, [
        "rooms", "--url", srv.url, "--game", "skipper", "--waiting", "--json"])
    assert result.exit_code == 0, result.output
    want = sorted(r for r, e in entries.items() if e["game"] == "skipper"
                  and e["status"] == "waiting" and not e["private"])
    assert [r["room"] for r in json.loads(result.output)] == want and want


async def test_cli_rooms_prints_an_aligned_table(server: object) -> None:
    srv: Any = server
    runner = CliRunner()
    result = await asyncio.to_thread(runner.invoke, main, ["rooms", "--url", srv.url])
    assert result.exit_code == 0 and result.output == "no rooms\n", result.output
    async with Client(srv.url, name="host") as host:
        duo = (await host.create_room("skipper", mode="multi", seats=2, name="Friday")).room
        await host.join(duo)
        shop = (await host.create_room("shop", name="Quiet")).room
        await host.create_room("shop", private=True, name="Hidden")  # never listed
    result = await asyncio.to_thread(runner.invoke, main, ["rooms", "--url", srv.url])
    assert result.exit_code == 0, result.output
    header, *rows = result.output.splitlines()
    assert header == "room       game         mode     seats status    access  name"
    assert sorted(rows) == sorted([
        f"{duo:<10} skipper      multi      1/2 waiting   public  Friday",
        f"{shop:<10} shop         -          0/1 waiting   public  Quiet"])


async def test_store_pages_list_stable_rooms_once_while_rooms_come_and_go(
        store_kind: str, request: pytest.FixtureRequest) -> None:
    if store_kind == "redis":
        proc = request.getfixturevalue("redis_server")
        proc.flush()
        store: Any = RedisStore(proc.url)
    elif store_kind == "sqlite":
        store = SQLiteStore(request.getfixturevalue("tmp_path") / "data.db")
    else:
        store = MemoryStore()

    def summary(rid: str, status: str = "waiting") -> dict[str, Any]:
        return {"room": rid, "name": rid, "game": "skipper", "mode": "multi", "seats": 2,
                "taken": 0, "status": status, "private": False, "spectators": 0}

    async def add(rid: str) -> None:
        await store.save_room(rid, {"room": rid, "game": "skipper", "code": None}, {},
                              summary(rid))

    try:
        ids = [f"{i:08x}" for i in range(0, 1200, 2)]
        for rid in ids:
            await add(rid)
        gone = set(ids[100::7])
        seen: list[str] = []
        cursor = None
        for step in range(1000):
            page, cursor = await store.list_page(waiting=True, cursor=cursor, limit=50)
            seen += [e["room"] for e in page]
            for rid in list(gone)[step * 3:step * 3 + 3]:  # rooms go ...
                await store.delete_room(rid)
            await add(f"{step * 2 + 1:08x}")  # ... and come, before and after the cursor
            if step == 2:  # one room starts: out of the waiting index
                await store.save_state(ids[-1], {}, summary(ids[-1], "playing"))
            if cursor is None:
                break
        assert len(seen) == len(set(seen))
        stable = set(ids) - gone - {ids[-1]}
        assert stable <= set(seen) and ids[-1] not in seen
        assert await store.index_ids("waiting:skipper", ids[-2], 5) == [
            r for r in sorted(set(ids) | {f"{s * 2 + 1:08x}" for s in range(step + 1)})
            if r > ids[-2] and r != ids[-1]][:5]
    finally:
        await store.close()


async def test_a_lobby_without_indexes_is_indexed_on_first_listing(
        redis_server: Any) -> None:
    redis_server.flush()
    store = RedisStore(redis_server.url)
    try:
        for i in range(700):
            status = "playing" if i % 3 == 0 else "waiting"
            await store.save_room(f"r{i:04d}", {"room": f"r{i:04d}", "game": "shop"}, {}, {
                "room": f"r{i:04d}", "name": "", "game": "shop", "mode": None, "seats": 1,
                "taken": 0, "status": status, "private": False, "spectators": 0})
        index_keys = [k async for k in store.redis.scan_iter("cardhall:index:*")]
        await store.redis.delete(*index_keys)  # as written by a version without indexes
        fresh = RedisStore(redis_server.url)
        try:
            listed, cursor = [], None
            while True:
                page, cursor = await fresh.list_page(game="shop", waiting=True, cursor=cursor)
                listed += [e["room"] for e in page]
                if cursor is None:
                    break
            assert listed == [f"r{i:04d}" for i in range(700) if i % 3]
        finally:
            await fresh.close()
    finally:
        await store.close()
