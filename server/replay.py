"""Replays of finished rooms: the view at any state of a game that is over (``get_replay``).

The engines are deterministic given the seed, so the game at state ``s`` is the fresh deal of
the room's options after the first ``s`` entries of its log. A :class:`Replay` walks the log
once and keeps a packed engine snapshot every :data:`STRIDE` states; the view at any state
is then one snapshot restored plus at most :data:`STRIDE` entries applied, so a viewer
stepping forwards and backwards through a long game costs the server a few actions per step,
not the whole game. The last :data:`CACHED` replays are kept (by room and deal), so the
browser's replay viewer (``js/replay.js``) and ``cardhall verify``-style tools share them.

The game is over, its seed revealed by ``game_over`` and ``get_log`` (protocol/README.md,
"Fair deals"), so no view here shows anything a player could not compute already; a seat's
own view is still given only to the member holding that seat.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Mapping, Sequence
from typing import Any

import msgpack

from ..games import Game
from .room import Room, RoomError, rebuild
from .store import LogEntry

__all__ = ["CACHED", "STRIDE", "Replay", "replay_of", "replay_view"]

#: States between two kept snapshots of a replay.
STRIDE = 32
#: Replays kept at once (least recently used dropped first).
CACHED = 16

_cache: OrderedDict[tuple[str, str, int], Replay] = OrderedDict()


class Replay:
    """One finished game, replayable to any state.

    Args:
        cls: The engine class.
        options: The engine's resolved options (seed included).
        seats: Number of seats.
        entries: The whole log (``[kind, seat, action]`` entries).

    Raises:
        GameError: an entry does not apply (the log is not of this game).
    """

    def __init__(self, cls: type[Game], options: Mapping[str, Any], seats: int,
                 entries: Sequence[LogEntry]) -> None:
        self.cls, self.options, self.seats = cls, dict(options), seats
        self.entries = [tuple(e) for e in entries]
        self._snapshots: list[bytes] = []  # the packed snapshot of states 0, STRIDE, ...
        game = cls(self.options, seats)
        for sid, entry in enumerate(self.entries):
            if sid % STRIDE == 0:
                self._snapshots.append(msgpack.packb(game.snapshot()))
            _apply(game, entry)
        if len(self.entries) % STRIDE == 0:
            self._snapshots.append(msgpack.packb(game.snapshot()))

    @property
    def final(self) -> int:
        """The final state_id (the number of log entries)."""
        return len(self.entries)

    def at(self, state_id: int) -> tuple[Game, list[dict[str, Any]]]:
        """The game at ``state_id`` and the events of the entry that led there (``[]`` at 0).

        Raises:
            ValueError: ``state_id`` is not in ``0..final``.
        """
        if not 0 <= state_id <= self.final:
            raise ValueError(f"state_id {state_id} is not in 0..{self.final}")
        start = 0 if state_id == 0 else (state_id - 1) // STRIDE * STRIDE
        snap = msgpack.unpackb(self._snapshots[start // STRIDE], strict_map_key=False)
        game = rebuild(self.cls, self.options, self.seats, snap, [])
        events: list[dict[str, Any]] = []
        for entry in self.entries[start:state_id]:
            events = _apply(game, entry)
        return game, events


def _apply(game: Game, entry: Sequence[Any]) -> list[dict[str, Any]]:
    kind, seat, action = entry
    return game.forfeit(seat) if kind == "f" else game.apply(seat, action)


async def replay_of(room: Room) -> Replay:
    """The replay of finished ``room`` (built from its stored log, or the cached one).

    Raises:
        RoomError: ``room/not_finished`` (the game is not over).
        StoreError: the store is unavailable.
        GameError: the stored log does not replay (a bug).
    """
    if room.status != "finished":
        raise RoomError("room/not_finished", "a room's game can be replayed once it is over")
    key = (room.id, room.salt, room.state_id)
    replay = _cache.get(key)
    if replay is None:
        entries = await room.store.log(room.id)
        replay = Replay(room.game_cls, room.options, room.seat_count, entries)
        _cache[key] = replay
        while len(_cache) > CACHED:
            _cache.popitem(last=False)
    _cache.move_to_end(key)
    return replay


async def replay_view(room: Room, state_id: int, seat: int | None
                      ) -> tuple[dict[str, Any], list[dict[str, Any]], int]:
    """The view of ``seat`` (None: the public view) at ``state_id`` of finished ``room``,
    with the room's facts under ``"room"`` and no legal actions, the events that led there,
    and the final state_id.

    Raises:
        RoomError: ``room/not_finished``; ``protocol/bad_value`` (``state_id`` past the end
            or ``seat`` not a seat of the room).
        StoreError: the store is unavailable.
    """
    replay = await replay_of(room)
    if seat is not None and seat >= replay.seats:
        raise RoomError("protocol/bad_value", f"get_replay: seat: the room has seats "
                        f"0..{replay.seats - 1}")
    try:
        game, events = replay.at(state_id)
    except ValueError as exc:
        raise RoomError("protocol/bad_value", f"get_replay: {exc}") from None
    view = game.view(seat)
    view["legal_actions"] = []
    view["room"] = room.table()
    return view, events, replay.final
