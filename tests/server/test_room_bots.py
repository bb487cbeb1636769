"""Room timers, server bots and the end of a game: a timed-out turn plays one default turn,
every server bot of a real-time room moves, and the view kept by deltas ends ``finished``."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable
from typing import Any

import msgpack
import pytest

from cardhall import protocol as p
from cardhall.client.client import Client, ServerError
from cardhall.server.app import Server
from cardhall.games import create, replay
from cardhall.server.room import Room
from cardhall.server.store.memory_store import MemoryStore
from cardhall.server.phases import Phase

from ..room_harness import Recorder, WriteLog


class Keeper(Recorder):
    """A stand-in connection that keeps its view as a client does (full views, then deltas)
    and every ``game_over`` it gets."""

    def __init__(self, name: str, log: WriteLog) -> None:
        super().__init__(name, log)
        self.view: dict[str, Any] | None = None
        self.game_over: list[dict[str, Any]] = []

    def send_raw(self, *frames: bytes) -> None:
        """Record the write, and follow the view."""
        super().send_raw(*frames)
        for frame in frames:
            m = msgpack.unpackb(frame)
            if m["t"] == "update":
                if m.get("view") is not None:
                    self.view = m["view"]
                elif self.view is not None:
                    self.view = p.apply_delta(self.view, m["delta"])
            elif m["t"] == "game_over":
                self.game_over.append(m)


async def room_of(game_name: str, options: dict[str, Any], seats: int, humans: int,
            **settings: Any) -> tuple[Room, list[Keeper]]:
    """A started room of ``game_name``: the first ``humans`` seats taken by :class:`Keeper`
    stand-ins, the others by server bots."""
    game = create(game_name, options, seats)
    room = Room(id="r1", name="r1", game_name=game_name, game=game,
                settings={"turn_seconds": None, "bid_seconds": None, "grace_seconds": 60.0,
                          "on_abandon": "bot", **settings}, store=MemoryStore())
    log: WriteLog = []
    conns = [Keeper(f"seat{i}", log) for i in range(humans)]
    for i, conn in enumerate(conns):
        await room.apply(room.table.join(conn, i, reply=False))  # type: ignore[arg-type]
    await room.apply(room.table.start(None))
    return room, conns


async def test_timed_out_turn_of_a_solo_game_plays_one_default_turn() -> None:
    # Shop Solitaire: every action is a turn (TYPE.turn_end_verbs None). Before, the timer played
    # up to 16 default actions, since none of them was "end", "pass" or "resign".
    room, _ = await room_of("shop", {"seed": 4}, 1, 1, turn_seconds=600.0)
    try:
        assert room.table.game.state_id == 0 and 0 in room.table.deadlines
        room.table.deadlines[0] = time.time() - 1.0
        await room._on_timer()
        assert room.table.game.state_id == 1
        assert 500 < room.table.deadlines[0] - time.time() <= 600  # a fresh clock for the next turn
    finally:
        await room.close()


async def test_timed_out_skipper_turn_plays_until_the_turn_ends() -> None:
    room, _ = await room_of("skipper", {"seed": 4, "mode": "solo"}, 1, 1, turn_seconds=600.0)
    try:
        room.table.deadlines[0] = time.time() - 1.0
        await room._on_timer()
        view = room.table.game.view(0)
        assert view["seats"][0]["turns"] == 1 and view["seats"][0]["phase"] == "start"
    finally:
        await room.close()


async def test_every_server_bot_of_a_race_room_moves() -> None:
    # Before, _bot_step always moved the first bot seat: turns per seat [0, 11, 0].
    room, _ = await room_of("skipper", {"seed": 3, "mode": "race"}, 3, 1, bot_seconds=0.001)
    room.start_task()
    try:
        turns: list[int] = [0, 0, 0]
        deadline = time.monotonic() + 60.0
        while time.monotonic() < deadline and not room.table.game.over:
            turns = [s["turns"] for s in room.table.game.view(None)["seats"]]
            if min(turns[1:]) >= 3:
                break
            await asyncio.sleep(0.01)
        assert turns[0] == 0  # the human seat never acted
        assert min(turns[1:]) >= 3, turns
    finally:
        await room.close()


async def test_a_server_bot_decides_off_the_event_loop() -> None:
    """A server bot's strategy runs in a worker thread on a copy of its view: The Shah's
    planning bot takes up to tens of ms a move, and on the loop it stalled every room of
    the process for that long. Meanwhile the loop serves others (a ticker keeps ticking)."""
    room, _ = await room_of("shah", {"seed": 2}, 1, 0)
    real = room.table._bot
    threads: list[bool] = []
    ticks = 0

    def slow(view: Any, rng: Any) -> Any:
        threads.append(threading.current_thread() is threading.main_thread())
        assert type(view) is dict  # a copy, not a live view of the game
        time.sleep(0.05)  # a long plan (time.sleep: it holds the thread, as CPU work would)
        return real(view, rng)

    async def ticker() -> None:
        nonlocal ticks
        while True:
            await asyncio.sleep(0.005)
            ticks += 1

    room.table._bot = slow
    tick = asyncio.create_task(ticker())
    room.start_task()
    try:
        deadline = time.monotonic() + 30.0
        while len(threads) < 5 and time.monotonic() < deadline and not room.table.game.over:
            await asyncio.sleep(0.01)
        assert len(threads) >= 5 and not any(threads)  # never on the loop's thread
        assert ticks >= len(threads)  # the loop ran while the bot thought
    finally:
        tick.cancel()
        await room.close()


async def test_view_kept_by_deltas_says_finished_and_game_over_matches_it() -> None:
    room, (seat0, seat1) = await room_of("skipper", {"seed": 5, "mode": "multi"}, 2, 2)
    try:
        assert seat0.view is not None and seat0.view["room"]["status"] == "playing"
        await room.play(seat0, p.Act(room="r1", state_id=room.table.game.state_id,  # type: ignore
                                    action=["resign"]))
        assert room.table.phase is Phase.FINISHED
        for keeper in (seat0, seat1):
            view = keeper.view
            assert view is not None
            assert view["room"]["status"] == "finished"
            assert view["over"] is True and view["legal_actions"] == []
            assert view == room.table.view_for(0 if keeper is seat0 else 1)
            (over,) = keeper.game_over
            outcome = dict(over["outcome"])
            stats = outcome.pop("stats")
            assert outcome == view["outcome"]  # game_over.outcome = the view's + "stats"
            assert stats == room.table.game.stats()
    finally:
        await room.close()


async def _until(done: Callable[[], bool]) -> None:
    """Wait (at most 2 s) until ``done()``; fail the test if it never is."""
    for _ in range(100):
        if done():
            return
        await asyncio.sleep(0.02)
    raise AssertionError("the awaited update never came")


async def test_a_seat_sets_auto_trash_off_its_turn_through_the_client(server: Server) -> None:
    # RULINGS K6m: the preference is each seat's own; a seat may send it on any turn.
    async with Client(server.url) as a, Client(server.url) as b:
        room = (await a.create_room("skipper", mode="multi", seats=2)).room
        await a.join(room)
        jb = await b.join(room)
        await _until(lambda: b.views[room]["room"]["status"] == "playing")
        view = b.views[room]
        assert jb.seat not in view["to_act"]  # not b's turn
        assert view["seats"][jb.seat]["auto_trash"] is True
        await b.set_auto_trash(room, False)
        await _until(lambda: a.views[room]["seats"][jb.seat]["auto_trash"] is False)
        assert a.views[room]["to_act"] == view["to_act"]  # no move was made
        with pytest.raises(ServerError) as err:
            await b.act(room, ["auto_trash", "sometimes"])
        assert err.value.code == "action/unknown"


async def test_a_setting_from_a_seat_off_its_turn_stales_no_action(server: Server) -> None:
    """Issue #35 item 10, #31: a seat's ``("auto_trash", ...)`` is its own setting, no move:
    it leaves ``state_id`` as it is, so the seat on turn still acts from the view it chose
    from (it used to be refused ``action/stale_state`` after every flip of another seat);
    the setting is logged, and the log replays to the room's game."""
    async with Client(server.url) as a, Client(server.url) as b:
        room = (await a.create_room("skipper", mode="multi", seats=2)).room
        ja = await a.join(room)
        jb = await b.join(room)
        await _until(lambda: a.views[room]["room"]["status"] == "playing")
        chosen = a.views[room]
        assert chosen["to_act"] == [ja.seat]
        sid = chosen["state_id"]
        action = next(x for x in chosen["legal_actions"] if x[0] == "discard")
        for value in ("off", "on", "off"):  # seat b, off its turn, again and again
            await b.act(room, ["auto_trash", value], state_id=0)
        await _until(lambda: a.views[room]["seats"][jb.seat]["auto_trash"] is False)
        assert a.views[room]["state_id"] == sid
        await a.act(room, action, state_id=sid)  # was: action/stale_state
        game = server.lobby.rooms[room].table.game
        assert game.state_id == sid + 1 and game.log_length == sid + 4
        log = await server.store.log(room)
        assert [e[0] for e in log[-4:]] == ["s", "s", "s", "a"]
        again = replay(type(game), game.options, game.seats, log)
        assert again.snapshot() == game.snapshot()
