"""The client library against a real server (both stores): recovering a dropped seat."""

from __future__ import annotations

from cardhall.client.client import Client
from cardhall.server.app import Server


async def test_a_seat_dropped_while_connected_is_resumed_on_not_seated(server: Server) -> None:
    """The server takes the client's connection for gone and holds its seat for the grace
    window, but the client hears nothing of it (the notice was lost). Its next action is
    refused with ``room/not_seated``; the client library resumes the seat with its token
    and sends the action again, which is applied."""
    async with Client(server.url) as c:
        room_id = (await c.create_room("skipper", seats=1,
                                       options={"seed": 3})).room
        seat = (await c.join(room_id)).seat
        room = server.lobby.rooms[room_id]
        conn = server.sessions[c.session]
        await room.submit(lambda: room.dropped(conn))
        holder = room.seats[seat or 0]
        assert holder is not None and holder.conn is None and holder.grace_until
        view = c.views[room_id]
        assert view["legal_actions"]
        await c.act(room_id, view["legal_actions"][0], view["state_id"])
        assert c.seat_resumes == 1
        assert holder.conn is conn and holder.grace_until is None
        assert room.game.state_id == view["state_id"] + 1
