"""A room's copy whose lease is not confirmed current (its process stalled past it: another
may run the room by now) sends no frame of the room's state, neither fan-outs nor a member's
own view; once the lease is confirmed again every member gets its full view (issue #35)."""

from __future__ import annotations

import asyncio

from cardhall import protocol as p
from cardhall.server.room import Room

from ..room_harness import Recorder, WriteLog, started_room


async def _lapsed_room() -> tuple[Room, WriteLog]:
    """A started 2-seat Skipper room whose lease ran out a second ago by the loop's clock
    (a shared store's copy, woken from a stall), its write log cleared."""
    room, _game, _seats, log = await started_room(2, {"seed": 5, "first_seat": 0})
    room.start_task()
    await _idle(room)
    room.lease_until = asyncio.get_running_loop().time() - 1.0
    log.clear()
    return room, log


async def _idle(room: Room) -> None:
    """Until the room's work queue is empty and nothing runs."""
    async with asyncio.timeout(5):
        while room.work.busy.locked() or (room.work.queue is not None
                                          and not room.work.queue.empty()):
            await asyncio.sleep(0.01)


async def _renewed(room: Room) -> None:
    """The store renewed the lease: let the resync it posts run."""
    room.confirmed(asyncio.get_running_loop().time() + 60.0)
    await asyncio.sleep(0.01)
    await _idle(room)


async def test_a_lapsed_copy_answers_get_view_unavailable_and_sends_no_view() -> None:
    """``get_view`` on a copy past its lease: ``server/unavailable`` with the request's id,
    not the view (it may be older than what the new owner has sent). Before, the view went
    out: a stalled owner woken up answered with a view 100 states old."""
    room, log = await _lapsed_room()
    seat = room.table.seats[1].conn
    errors: list[p.Message] = []
    seat.send_error = lambda code, message, re=None: errors.append(  # type: ignore[union-attr]
        p.Error(code=code, message=message, re=re))
    await room.apply(room.table.view(seat, 9))  # type: ignore[arg-type]
    assert log == []
    assert [(e.code, e.re) for e in errors] == [("server/unavailable", 9)]  # type: ignore[attr-defined]
    await _renewed(room)
    assert sorted(log) == [("seat0", ["update"]), ("seat1", ["update"])]
    await room.close()


async def test_a_lapsed_copy_sends_no_fanout_until_its_lease_is_confirmed() -> None:
    """An action applied on a copy past its lease (the store took it: its lease held
    there) is fanned out to nobody; the renewal sends each member its full view."""
    room, log = await _lapsed_room()
    game = room.table.game
    seat = room.table.seats[0].conn
    action = list(game.legal_actions(0)[0])
    await room.play(seat, p.Act(room="r1", state_id=game.state_id, action=action,  # type: ignore[arg-type]
                                id=1))
    assert game.state_id == 1 and log == []
    await _renewed(room)
    assert sorted(log) == [("seat0", ["update"]), ("seat1", ["update"])]
    await room.close()


async def test_a_lapsed_copy_sends_no_room_facts_until_its_lease_is_confirmed() -> None:
    """A spectator comes to a copy past its lease: the players are sent no delta of the
    room's facts (at this copy's state, which the new owner's may have passed); the renewal
    sends every member its full view, facts included."""
    room, log = await _lapsed_room()
    watcher = Recorder("watcher", log)
    await room.apply(room.table.spectate(watcher))  # type: ignore[arg-type]
    await asyncio.sleep(0.05)  # the facts' send is a work item of its own
    await _idle(room)
    assert [name for name, _ in log if name != "watcher"] == []
    await _renewed(room)
    assert sorted(e for e in log if e[0] != "watcher") == [("seat0", ["update"]),
                                                           ("seat1", ["update"])]
    await room.close()
