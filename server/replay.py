"""Replays of finished rooms: the view at any state of a game that is over (``get_replay``).

The engines are deterministic given the seed, so the game at state ``s`` is the fresh deal of
the room's options after the log's entries up to the one that led to state ``s + 1``
(:func:`cardhall.games.replay`; the seats' settings at state ``s`` included). A
:class:`Replay` walks the log once and keeps a packed engine snapshot every :data:`STRIDE`
states; the view at any state is then one snapshot restored plus the entries of at most
:data:`STRIDE` states applied, so a viewer
stepping forwards and backwards through a long game costs the server a few actions per step,
not the whole game. The last :data:`CACHED` replays are kept (by room and deal), so the
browser's replay viewer (``js/replay.js``) and ``cardhall verify``-style tools share them.

The game is over, its seed revealed by ``game_over`` and ``get_log`` (protocol/README.md,
"Fair deals"), so no view here shows anything a player could not compute already; still,
every view goes through the visibility rule (:mod:`.visibility`): a private room's replay
only to its members (anyone else is answered as about a missing room, before the end and
after), a seat's own view only to the member holding that seat.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Mapping, Sequence
from typing import Any

import msgpack

from ..games import Game, LogEntry, replay
from .room import Room, RoomError
from . import visibility
from .room import rules as table
from .room.rules import Event, Phase

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
        entries: The whole log (``[kind, seat, action]`` entries: :class:`LogEntry`).

    Raises:
        GameError: an entry does not apply (the log is not of this game).
    """

    def __init__(self, cls: type[Game], options: Mapping[str, Any], seats: int,
                 entries: Sequence[LogEntry | Sequence[Any]]) -> None:
        self.cls, self.options, self.seats = cls, dict(options), seats
        self.entries = [LogEntry.of(e) for e in entries]
        #: (log index, packed snapshot) of states 0, STRIDE, 2 * STRIDE, ... as first reached
        self._snapshots: list[tuple[int, bytes]] = []
        #: ends[s]: the log index just past state s's last entry (its settings included)
        self._ends: list[int] = []
        game = cls(self.options, seats)
        self._snapshots.append((0, msgpack.packb(game.snapshot())))
        for n, entry in enumerate(self.entries):
            before = game.state_id
            game.apply_entry(entry)
            if game.state_id != before:
                self._ends.append(n)
                if game.state_id % STRIDE == 0:
                    self._snapshots.append((n + 1, msgpack.packb(game.snapshot())))
        self._ends.append(len(self.entries))

    @property
    def final(self) -> int:
        """The final state_id (the log's actions and forfeits)."""
        return len(self._ends) - 1

    def at(self, state_id: int) -> tuple[Game, list[dict[str, Any]]]:
        """The game at ``state_id`` (its settings at that state applied) and the events of
        the entries that led there from the state before (at 0: of the settings only).

        Raises:
            ValueError: ``state_id`` is not in ``0..final``.
        """
        if not 0 <= state_id <= self.final:
            raise ValueError(f"state_id {state_id} is not in 0..{self.final}")
        base = 0 if state_id == 0 else (state_id - 1) // STRIDE
        start, packed = self._snapshots[base]
        snap = msgpack.unpackb(packed, strict_map_key=False)
        game = replay(self.cls, self.options, self.seats, [], snap)
        events: list[dict[str, Any]] = []
        for entry in self.entries[start:self._ends[state_id]]:
            before = game.state_id
            step = game.apply_entry(entry)
            events = step if game.state_id != before else events + step
        return game, events


async def replay_of(room: Room) -> Replay:
    """The replay of finished ``room`` (built from its stored log, or the cached one).

    Raises:
        RoomError: ``room/not_finished`` (the game is not over).
        StoreError: the store is unavailable.
        GameError: the stored log does not replay (a bug).
    """
    t = room.table
    if t.phase is not Phase.FINISHED:  # as the transition table says
        table.step(t.phase, Event.REPLAY)
    key = (room.id, t.salt, t.state_id)
    replay = _cache.get(key)
    if replay is None:
        entries = await room.store.log(room.id)
        replay = Replay(t.game_cls, t.options, t.seat_count, entries)
        _cache[key] = replay
        while len(_cache) > CACHED:
            _cache.popitem(last=False)
    _cache.move_to_end(key)
    return replay


async def replay_view(room: Room, viewer: visibility.Viewer, state_id: int, seat: int | None
                      ) -> tuple[dict[str, Any], list[dict[str, Any]], int]:
    """The view of ``seat`` (None: the public view) at ``state_id`` of finished ``room``, as
    ``viewer`` (the asking session) may see it, with the room's facts under ``"room"`` and no
    legal actions, the events that led there, and the final state_id.

    Raises:
        RoomError: ``room/not_found`` (a private room ``viewer`` may not see: as a missing
            room, :func:`.visibility.hidden`), ``room/not_seated`` (``seat`` is not the
            viewer's), ``room/not_finished``; ``protocol/bad_value`` (``state_id`` past the
            end or ``seat`` not a seat of the room).
        StoreError: the store is unavailable.
    """
    if not visibility.may_see(room.table, viewer):
        raise visibility.hidden(room.id)
    visibility.seat_view(room.table, viewer, seat)
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
    view["room"] = room.table.facts()
    return view, events, replay.final
