"""The host role of a waiting room (issue #33, defect 2): handed to the longest-seated player
when the host leaves or is dropped past its grace window, announced with ``seat_event host``
and ``room.players[i].host``; quick join never seats anyone in a room nobody can start."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

import pytest

from cardhall import protocol as p
from cardhall.client.client import Client, ServerError
from cardhall.server.room import Room
from cardhall.server.store.memory_store import MemoryStore
from cardhall.games.skipper import Skipper
from cardhall.server.store.ports import Loaded, StoreError
from cardhall.server.phases import Phase

from ..conftest import serving
from ..room_harness import Recorder, WriteLog


async def seat_events(client: Client, room: str, want: int, timeout: float = 5.0
                      ) -> list[tuple[int, str]]:
    """The next ``want`` seat events of ``room`` that ``client`` receives, as (seat, event),
    ``joined`` ones left out (not what these tests are about)."""
    got: list[tuple[int, str]] = []

    async def read() -> None:
        async for msg in client.updates():
            if isinstance(msg, p.SeatEvent) and msg.room == room and msg.event != "joined":
                got.append((msg.seat, msg.event))
                if len(got) == want:
                    return

    await asyncio.wait_for(read(), timeout)
    return got


def hosts(client: Client, room: str) -> list[int]:
    """The seats ``room``'s players flag as the host's in ``client``'s view."""
    players = client.views[room]["room"]["players"]
    return [s for s, pl in enumerate(players) if pl is not None and pl.get("host")]


@contextlib.asynccontextmanager
async def served(*names: str) -> AsyncIterator[tuple[Any, list[Client]]]:
    """A server on a memory store (no message rate limit) and :func:`clients` named
    ``names`` connected to it; yields (the server, the clients)."""
    async with serving(MemoryStore, msg_rate=None) as make:
        server = await make()
        async with clients(f"ws://127.0.0.1:{server.port}/", *names) as out:
            yield server, out


@contextlib.asynccontextmanager
async def clients(url: str, *names: str) -> AsyncIterator[list[Client]]:
    """Connected clients named ``names`` (no reconnection), closed at the end."""
    out: list[Client] = []
    try:
        for name in names:
            c = Client(url, name=name, reconnect=False)
            await c.connect()
            out.append(c)
        yield out
    finally:
        for c in out:
            await c.close()


async def test_host_who_leaves_hands_the_role_to_the_longest_seated() -> None:
    async with served("Ann", "Bob", "Cy") as (server, (ann, bob, cy)):
        room = (await ann.create_room("skipper", mode="multi", seats=4)).room
        await ann.join(room)
        await bob.join(room)
        await cy.join(room)  # seated after Bob
        await bob.get_view(room)
        assert hosts(bob, room) == [0]
        await ann.leave(room)
        assert await seat_events(bob, room, 2) == [(0, "left"), (1, "host")]
        await bob.get_view(room)
        assert hosts(bob, room) == [1]
        with pytest.raises(ServerError) as refused:
            await cy.start(room)
        assert refused.value.code == "room/not_host"
        await bob.start(room)
        assert server.lobby.rooms[room].table.phase is Phase.PLAYING


async def test_host_dropped_past_grace_hands_over_and_within_grace_keeps_it() -> None:
    async with served("Ann", "Bob") as (server, (ann, bob)):
        room = (await ann.create_room("skipper", mode="multi", seats=3,
                                      options={"grace_seconds": 0.5})).room
        await ann.join(room)
        await bob.join(room)
        await ann.drop()  # no leave: the seat is held for its grace window
        assert await seat_events(bob, room, 1) == [(0, "dropped")]
        with pytest.raises(ServerError) as refused:  # Ann may still come back
            await bob.start(room)
        assert refused.value.code == "room/not_host"
        assert await seat_events(bob, room, 2) == [(0, "left"), (1, "host")]
        await bob.start(room)
        assert server.lobby.rooms[room].table.phase is Phase.PLAYING


async def test_quick_join_skips_a_room_whose_host_is_away() -> None:
    """A room whose host dropped (within its grace) is not offered by quick join: the
    joiner gets a fresh room it hosts. Once the grace is over with nobody connected, the
    room is gone (issue #35: a waiting room whose players all dropped expires with their
    grace), and quick join seats the next player in a room that player hosts."""
    async with served("Ann", "Bob", "Cy") as (server, (ann, bob, cy)):
        room = (await ann.create_room("skipper", mode="multi", seats=4,
                                      options={"grace_seconds": 1.0})).room
        await ann.join(room)
        await ann.drop()
        await asyncio.sleep(0.2)  # the server sees the drop
        joined = await bob.quick_join("skipper", mode="multi")
        assert joined.room != room
        await bob.start(joined.room)  # Bob's own room: he hosts it
        await asyncio.sleep(1.2)  # Ann's grace is over: nobody holds a seat
        assert room not in server.lobby.rooms
        joined = await cy.quick_join("skipper", mode="multi")
        assert joined.room != room and joined.seat == 0
        assert hosts(cy, joined.room) == [0]
        await cy.start(joined.room)
        assert server.lobby.rooms[joined.room].table.phase is Phase.PLAYING


async def test_the_first_to_sit_hosts_a_room_whose_creator_never_sat() -> None:
    async with served("Ann", "Bob") as (server, (ann, bob)):
        room = (await ann.create_room("skipper", mode="multi", seats=3)).room
        await ann.close()  # gone without sitting down
        await bob.join(room)
        assert hosts(bob, room) == [0]
        await bob.start(room)
        assert server.lobby.rooms[room].table.phase is Phase.PLAYING


class Stand:
    """A stand-in member of a room: its session id and the frames written to it."""

    def __init__(self, session: str) -> None:
        self.session_id, self.name, self.process = session, session, "test"
        self.account = ""  # signed in to no account
        self.act_reply = "ok"
        self.rooms: dict[str, Any] = {}
        self.remote_rooms: set[str] = set()
        self.frames: list[p.Message] = []

    def send(self, msg: p.Message) -> None:
        self.frames.append(msg)

    def send_raw(self, *frames: bytes) -> None:
        self.frames += [p.decode(f, side="server") for f in frames]

    def push(self) -> None:
        pass

    def send_error(self, code: str, message: str, re: Any = None) -> None:
        self.frames.append(p.Error(code=code, message=message, re=re))


def waiting_room(host: str = "ann") -> Room:
    from cardhall.games.skipper import Skipper

    return Room(id="r1", name="r1", game_name="skipper", game_cls=Skipper,
                options=Skipper({"mode": "multi"}, 4).options, seat_count=4,
                settings={"turn_seconds": None, "bid_seconds": None, "grace_seconds": 60.0,
                          "on_abandon": "bot", "bot_seconds": None},
                store=MemoryStore(), host=host)


async def test_creator_sitting_down_late_takes_the_role_back_and_it_survives_a_reload(
        ) -> None:
    room = waiting_room()
    ann, bob, cy = Stand("ann"), Stand("bob"), Stand("cy")
    await room.apply(room.table.join(bob, None, reply=False))  # quicker than the creator's own join
    assert [s.host if s else None for s in room.table.seats] == [True, None, None, None]
    await room.apply(room.table.join(ann, None, reply=False))
    assert [s.host if s else None for s in room.table.seats] == [False, True, None, None]
    assert [(m.seat, m.event) for m in bob.frames if isinstance(m, p.SeatEvent)] == [
        (0, "joined"), (0, "host"), (1, "joined"), (1, "host")]
    await room.apply(room.table.join(cy, None, reply=False))
    await room.apply(room.table.leave(ann))  # the host leaves: Bob sat first
    assert room.table.seats[0] is not None and room.table.seats[0].host and room.table.host == "bob"
    assert room.table.view_for(2)["room"]["players"][0]["host"] is True
    state = room.table.state()
    assert state["host"] == "bob"
    again = Room.from_loaded(Loaded(record=room.table.record(), state=state, snapshot=None,
                                    snapshot_state_id=0, entries=[]), room.store,
                             room.table.game_cls)
    assert again.table.host == "bob"
    assert again.table.seats[0] is not None and again.table.seats[0].host
    assert again.table.seats[0].since == room.table.seats[0].since > 0


class _SaveFails(MemoryStore):
    """A memory store whose state writes fail (the store is down)."""

    async def save_state(self, room_id: str, state: dict[str, Any], summary: dict[str, Any],
                         *, lease: Any = None) -> None:
        raise StoreError("store down (test)")


@pytest.mark.parametrize("seats", [3, 2])
async def test_a_join_whose_save_failed_tells_nobody_and_changes_nothing(seats: int) -> None:
    """Saved before anyone is told (issue #31): a join whose state could not be saved sends
    no ``seat_event`` (before, every member heard ``joined`` then ``left``), leaves the seat
    free and the host role where it was; with the last seat (``seats`` 2), the start the same
    save held is undone too: the room waits, no bot sits, nobody heard ``started``."""
    log: WriteLog = []
    settings = {"turn_seconds": 30.0, "bid_seconds": None, "grace_seconds": 60.0,
                "on_abandon": "bot"}
    room = Room(id="r1", name="r1", game_name="skipper", settings=settings,
                store=_SaveFails(), game_cls=Skipper,
                options=Skipper({"mode": "multi"}, seats).options, seat_count=seats,
                host="host")
    host, guest = Recorder("host", log), Recorder("guest", log)
    await room.apply(room.table.join(host, 0, reply=False))  # type: ignore[arg-type]
    log.clear()
    with pytest.raises(StoreError):
        await room.apply(room.table.join(guest, None, 7))  # type: ignore[arg-type]
    assert log == []
    assert list(room.table.seats[1:]) == [None] * (seats - 1) and room.table.taken == 1
    assert guest not in room.table.members and not guest.rooms
    assert room.table.phase is Phase.WAITING and room.table.phase.stored == "waiting"
    assert room.table.host == "host"
    assert room.table.seats[0] is not None and room.table.seats[0].host
    assert not room.table.deadlines


async def until(check: Any, seconds: float = 5.0) -> None:
    """Until ``check()`` is true (polled every 20 ms; fails after ``seconds``)."""
    async with asyncio.timeout(seconds):
        while not check():
            await asyncio.sleep(0.02)


async def dropped_while_open(server: Any, room_id: str, client: Client) -> Any:
    """Drop ``client``'s connection from ``room_id`` while it stays open, as a room's server
    does for the clients of a server it lost contact with (the ``seat_event dropped`` it is
    told is then lost: nothing reads it). Returns the server's connection of ``client``."""
    room = server.lobby.rooms[room_id]
    conn = server.sessions[client.session_id]
    await room.submit(lambda: room.apply(room.table.drop(conn)))
    assert conn not in room.table.members
    return conn


async def test_a_host_dropped_while_its_connection_stayed_open_starts_and_plays() -> None:
    """The host's seat was dropped while its connection stayed open, and the notice was
    lost: its ``start`` takes the seat back first (every member is told ``seat_event
    resumed``), and the host is a member of the game it started: it holds its seat with no
    grace window, and its view of the game comes (before, the room started without it, and
    its seat went to a bot once the grace window was over)."""
    async with served("Ann", "Bob") as (server, (ann, bob)):
        room_id = (await ann.create_room("skipper", mode="multi", seats=3)).room
        await ann.join(room_id)
        await bob.join(room_id)
        conn = await dropped_while_open(server, room_id, ann)
        assert await seat_events(bob, room_id, 1) == [(0, "dropped")]
        await ann.start(room_id)
        room = server.lobby.rooms[room_id]
        assert room.table.phase is Phase.PLAYING
        holder = room.table.seats[0]
        assert holder is not None and holder.conn is conn and holder.grace_until is None
        assert room.table.members[conn].seat == 0
        assert await seat_events(bob, room_id, 1) == [(0, "resumed")]
        await until(lambda: ann.views[room_id]["room"]["status"] == "playing")
        assert ann.views[room_id]["room"]["players"][0]["connected"]


async def test_a_dropped_seat_is_taken_back_only_by_its_own_session() -> None:
    """The creator never sat, and the host role went to Bob's seat (lent); Bob's seat is
    dropped while his connection stays open. Cy, seated, may not start (``room/not_host``)
    and nothing changes; the creator may start, and Bob's seat stays his, held for him
    (the creator's start does not take a seat that was not its session's)."""
    async with served("Ann", "Bob", "Cy") as (server, (ann, bob, cy)):
        room_id = (await ann.create_room("skipper", mode="multi", seats=3)).room
        await bob.join(room_id)
        await cy.join(room_id)
        await dropped_while_open(server, room_id, bob)
        room = server.lobby.rooms[room_id]
        seats = room.table.seats
        with pytest.raises(ServerError) as refused:
            await cy.start(room_id)
        assert refused.value.code == "room/not_host"
        assert room.table.seats == seats and room.table.phase is Phase.WAITING
        await ann.start(room_id)
        assert room.table.phase is Phase.PLAYING
        holder = room.table.seats[0]
        assert holder is not None and holder.conn is None and holder.host
        assert holder.name == "Bob" and holder.grace_until is not None
        assert server.sessions[ann.session_id] not in room.table.members
