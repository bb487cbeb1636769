"""The lobby: the directory of rooms on this process, room creation and matchmaking."""

from __future__ import annotations

import asyncio
import logging
import secrets
from typing import TYPE_CHECKING, Any

from .. import protocol as p
from . import games
from .config import Settings
from .games import OptionError
from .room import Room, RoomError, split_options
from .store import Store

if TYPE_CHECKING:
    from .connection import Connection

log = logging.getLogger("cardhall.lobby")
_CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I


class Lobby:
    """All rooms of this process.

    Args:
        store: Where room records and logs go.
        settings: Server settings (room limit, finished-room time to live).
    """

    def __init__(self, store: Store, settings: Settings) -> None:
        self.store = store
        self.settings = settings
        self.rooms: dict[str, Room] = {}
        self.codes: dict[str, str] = {}

    def list(self, game: str | None = None) -> list[dict[str, Any]]:
        """Summaries of every room (optionally of one game), newest last."""
        return [r.summary() for r in self.rooms.values() if game is None or r.game_name == game]

    def find(self, room_id: str) -> Room:
        """The room ``room_id``.

        Raises:
            RoomError: ``room/not_found``.
        """
        room = self.rooms.get(room_id)
        if room is None:
            raise RoomError("room/not_found", f"no room {room_id!r}")
        return room

    def find_public(self, room_id: str) -> Room:
        """The room ``room_id`` if it may be entered by id (private rooms need their code).

        Raises:
            RoomError: ``room/not_found``.
        """
        room = self.find(room_id)
        if room.private:
            raise RoomError("room/not_found", f"room {room_id!r} is private: join it by code")
        return room

    def by_code(self, code: str) -> Room:
        """The private room with join code ``code``.

        Raises:
            RoomError: ``room/not_found``.
        """
        room_id = self.codes.get(code.upper())
        if room_id is None or room_id not in self.rooms:
            raise RoomError("room/not_found", "no open room has that join code")
        return self.rooms[room_id]

    async def create(self, conn: Connection, msg: p.CreateRoom | p.QuickJoin,
                     options: dict[str, Any] | None = None, private: bool = False,
                     name: str | None = None) -> Room:
        """Create a room from a ``create_room`` (or ``quick_join``) request.

        Raises:
            RoomError: ``lobby/unknown_game`` (no such game or mode), ``lobby/bad_options``
                (the engine or the room refused an option or the seat count),
                ``room/limit`` (too many rooms).
        """
        if len(self.rooms) >= self.settings.max_rooms:
            raise RoomError("room/limit", f"this server hosts at most {self.settings.max_rooms} "
                            "rooms")
        try:
            cls = games.get(msg.game)
        except OptionError as exc:
            raise RoomError("lobby/unknown_game", exc.message) from None
        try:
            settings, engine_opts = split_options(options or {})
        except OptionError as exc:
            raise RoomError("lobby/bad_options", exc.message) from None
        mode_option = next((o for o in cls.OPTIONS if o.name == "mode"), None)
        if msg.mode is not None:
            if mode_option is None or msg.mode not in (mode_option.choices or ()):
                raise RoomError("lobby/unknown_game", f"{msg.game} has no mode {msg.mode!r}")
            engine_opts["mode"] = msg.mode
        mode = engine_opts.get("mode", mode_option.default if mode_option else None)
        seats = msg.seats if msg.seats is not None else (1 if mode in (None, "solo") else 4)
        try:
            game = cls(engine_opts, seats)
        except OptionError as exc:
            raise RoomError("lobby/bad_options", exc.message) from None
        room_id = secrets.token_hex(4)
        while room_id in self.rooms:
            room_id = secrets.token_hex(4)
        code = None
        if private:
            code = "".join(secrets.choice(_CODE_ALPHABET) for _ in range(6))
            while code in self.codes:
                code = "".join(secrets.choice(_CODE_ALPHABET) for _ in range(6))
            self.codes[code] = room_id
        room = Room(id=room_id, name=name or f"{cls.title} {room_id}", game_name=msg.game,
                    game=game, settings=settings, store=self.store, private=private, code=code,
                    host=conn.session, on_finish=self._finished)
        await self.store.save_room(room_id, room.record())
        self.rooms[room_id] = room
        room.start_task()
        log.info("room created room=%s game=%s mode=%s seats=%d private=%s", room_id,
                 msg.game, mode, seats, private)
        return room

    def quick_room(self, msg: p.QuickJoin) -> Room | None:
        """A public waiting room of the requested game (and mode and size) with a free
        seat, oldest first, or None."""
        for room in self.rooms.values():
            if (room.game_name == msg.game and not room.private and room.status == "waiting"
                    and room.taken < room.game.seats
                    and (msg.mode is None or room.game.options.get("mode") == msg.mode)
                    and (msg.seats is None or room.game.seats == msg.seats)):
                return room
        return None

    def _finished(self, room: Room) -> None:
        asyncio.get_running_loop().call_later(
            self.settings.finished_ttl, lambda: asyncio.ensure_future(self.remove(room.id)))

    async def remove(self, room_id: str) -> None:
        """Remove a room: stop its task, forget its code and its stored state."""
        room = self.rooms.pop(room_id, None)
        if room is None:
            return
        if room.code is not None:
            self.codes.pop(room.code, None)
        for conn in list(room.members):
            conn.rooms.pop(room_id, None)
        await room.close()
        await self.store.delete_room(room_id)

    async def close(self) -> None:
        """Stop every room task (server shutdown)."""
        for room in list(self.rooms.values()):
            await room.close()
