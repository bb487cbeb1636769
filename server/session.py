"""Request handling shared by every kind of peer: a local socket or a forwarded one.

:class:`Session` holds the handlers of the client requests (``list_rooms`` .. ``ping``). A
:class:`~cardhall.server.connection.Connection` is a Session on a local WebSocket; a
forwarded peer (a client connected to another server process, whose requests reach the
room's owner through the store) is a Session too, so every request is handled by the same
code wherever the client is connected.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .. import protocol as p
from .room import Room, RoomError

if TYPE_CHECKING:
    from .app import Server


class Session:
    """A peer of the server that sends requests and receives frames.

    Subclasses provide :meth:`send`. Attributes every session has: ``server``, ``session``
    (random id, also the host identity of rooms it creates), ``name`` (from its hello),
    ``rooms`` (rooms it is seated in or watching, by id) and ``closed``.
    """

    server: Server
    session: str
    name: str
    rooms: dict[str, Room]
    closed: bool

    def send(self, msg: p.Message) -> None:
        """Queue ``msg`` for the peer without waiting."""
        raise NotImplementedError

    def send_error(self, code: str, message: str, re: Any = None) -> None:
        """Queue an ``error`` reply."""
        self.send(p.Error(code=code, message=message, re=re))

    # -- requests ------------------------------------------------------------------------

    async def _list_rooms(self, msg: p.ListRooms) -> None:
        rooms = [p.RoomSummary(**s) for s in self.server.lobby.list(msg.game)]
        self.send(p.Rooms(rooms=rooms, re=msg.id))

    async def _create_room(self, msg: p.CreateRoom) -> None:
        room = await self.server.lobby.create(self, msg, dict(msg.options), msg.private,
                                              msg.name)
        self.send(p.RoomCreated(room=room.id, code=room.code, re=msg.id))

    async def _join_room(self, room: Room, seat: int | None, re: Any) -> None:
        def work() -> None:
            seat_no, token = room.join(self, seat)
            view = room.view_for(seat_no)
            member = room.members[self]
            member.last, member.last_state = view, room.game.state_id
            self.send(p.Joined(room=room.id, seat=seat_no, token=token, view=view, re=re))
            if room.taken == room.game.seats and room.status == "waiting":
                room.start(None)  # full: start at once

        await room.submit(work)

    async def _join(self, msg: p.Join) -> None:
        lobby = self.server.lobby
        room = lobby.by_code(msg.code) if msg.code is not None else lobby.find_public(
            msg.room or "")
        await self._join_room(room, msg.seat, msg.id)

    async def _quick_join(self, msg: p.QuickJoin) -> None:
        lobby = self.server.lobby
        room = lobby.quick_room(msg)
        if room is None:
            room = await lobby.create(self, msg)
        try:
            await self._join_room(room, None, msg.id)
        except RoomError as exc:
            if exc.code not in ("room/full", "room/already_started"):
                raise
            # Someone took the last seat first: make a fresh room.
            await self._join_room(await lobby.create(self, msg), None, msg.id)

    async def _spectate(self, msg: p.Spectate) -> None:
        room = self.server.lobby.find_public(msg.room)

        def work() -> None:
            room.spectate(self)
            member = room.members[self]
            view = room.view_for(member.seat)
            member.last, member.last_state = view, room.game.state_id
            self.send(p.Joined(room=room.id, seat=member.seat, view=view, re=msg.id))

        await room.submit(work)

    async def _leave(self, msg: p.Leave) -> None:
        room = self._member_room(msg.room)
        await room.submit(lambda: room.leave(self))
        self.send(p.Left(room=room.id, re=msg.id))

    async def _start(self, msg: p.Start) -> None:
        room = self.server.lobby.find(msg.room)
        await room.submit(lambda: room.start(self, msg.id))

    async def _resume(self, msg: p.Resume) -> None:
        room = self.server.lobby.find(msg.room)

        def work() -> None:
            seat = room.resume(self, msg.token)
            view = room.view_for(seat)
            member = room.members[self]
            member.last, member.last_state = view, room.game.state_id
            self.send(p.Joined(room=room.id, seat=seat, token=msg.token, view=view, re=msg.id))

        await room.submit(work)

    async def _act(self, msg: p.Act) -> None:
        room = self._member_room(msg.room)
        await room.submit(lambda: room.act(self, msg))

    async def _get_view(self, msg: p.GetView) -> None:
        room = self._member_room(msg.room)
        await room.submit(lambda: room.full_view(self, msg.id))

    async def _ping(self, msg: p.Ping) -> None:
        self.send(p.Pong(re=msg.id))

    def _member_room(self, room_id: str) -> Room:
        room = self.rooms.get(room_id)
        if room is None:
            self.server.lobby.find(room_id)  # room/not_found if it does not exist at all
            raise RoomError("room/not_seated", f"you are not in room {room_id!r}")
        return room


HANDLERS: dict[type, Any] = {
    p.ListRooms: Session._list_rooms,
    p.CreateRoom: Session._create_room,
    p.Join: Session._join,
    p.QuickJoin: Session._quick_join,
    p.Spectate: Session._spectate,
    p.Leave: Session._leave,
    p.Start: Session._start,
    p.Resume: Session._resume,
    p.Act: Session._act,
    p.GetView: Session._get_view,
    p.Ping: Session._ping,
}
