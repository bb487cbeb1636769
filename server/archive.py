"""The games archive (issue #44 item 2, "match history that lasts"): what is kept of a
finished game after its room is gone, and the reads that fall back on it.

A finished room is listed by the lobby for ``--finished-ttl`` seconds (5 minutes), then
removed with its state and log. Before that, as the game ends, the lobby keeps its record in
the store's :class:`~.store.Archive` (:func:`keep`; the record's shape is the port's): the
log, the seed, salt and commitment, the outcome, the seats' names and accounts, and the room
facts of the final view. When a ``get_log`` or ``get_replay`` names a room that no process
runs any more, the session answers from that record (:func:`answer`), through the one
visibility rule (:mod:`.visibility`): a public game to anyone, a private one only to the
accounts that held its seats (anyone else is answered as about a missing room), a seat's
own replay only to that seat's account. ``cardhall verify --url --room`` reads ``get_log``,
so it verifies an archived game too.

Records are kept for ever by default; ``--history-days N`` prunes those of games finished
more than N days ago (:class:`Pruner`, hourly, and a Redis key expires by itself then), and
an operator purges a game at once (``POST /admin/archive/purge``, ``cardhall admin
purge-games``).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import msgpack

from .. import games
from .. import protocol as p
from ..games import GameError, OptionError
from . import visibility
from .replay import CACHED, Replay
from .room import Room, RoomError
from .store.ports import Archive, StoreError
from .tasks import cancel_until_done

__all__ = ["DAY", "PRUNE_SECONDS", "ArchivedGame", "Pruner", "answer", "game_record", "keep",
           "log_page", "prune"]

log = logging.getLogger("cardhall.archive")

#: Seconds in a day (``--history-days``).
DAY = 86_400.0
#: Seconds between two prunes of the archive (:class:`Pruner`).
PRUNE_SECONDS = 3600.0
#: Most entries in one ``log`` page; their packed size is capped too (:data:`LOG_PAGE_BYTES`).
LOG_PAGE_ENTRIES = 1000
#: Bytes of packed entries in one ``log`` page at most (one entry always fits), far below
#: the protocol's 65536-byte frame size (the rest of the page is a few hundred bytes).
LOG_PAGE_BYTES = 32 * 1024

_cache: OrderedDict[tuple[str, str, int], Replay] = OrderedDict()


def log_page(entries: Sequence[Any], first: int) -> tuple[list[Any], bool]:
    """The page of ``entries`` from index ``first``: at most :data:`LOG_PAGE_ENTRIES`
    entries of :data:`LOG_PAGE_BYTES` packed bytes (one at least), each as a list, and
    whether entries follow it."""
    page: list[Any] = []
    size = 0
    for entry in entries[first:first + LOG_PAGE_ENTRIES]:
        size += len(msgpack.packb(list(entry)))
        if size > LOG_PAGE_BYTES and page:
            break
        page.append(list(entry))
    return page, first + len(page) < len(entries)


def game_record(room: Room) -> dict[str, Any]:
    """The archived record of finished ``room`` (see :class:`~.store.Archive`), without its
    ``entries`` (read from the store once the last append is in: :func:`keep`).

    Raises:
        RuntimeError: the room never started (a bug of the caller).
    """
    t = room.table
    game = t.dealt()
    outcome = dict(game.outcome() or {})
    outcome["stats"] = game.stats()
    table = dict(t.facts())
    table["spectators"] = {"count": 0, "names": []}
    return {"room": room.id, "name": t.name, "game": t.game_name,
            "mode": t.options.get("mode"), "seats": t.seat_count,
            "private": t.private, "host": t.host, "options": dict(t.options),
            "salt": t.salt, "commitment": t.commitment, "state_id": game.state_id,
            "outcome": outcome, "table": table,
            "players": [None if h is None else {"name": h.name, "bot": h.bot,
                                                "account": h.account} for h in t.seats],
            "finished_at": t.finished_at or time.time()}


async def keep(store: Archive, log_of: Any, room_id: str, game: dict[str, Any],
               days: float | None) -> None:
    """Archive ``game`` (:func:`game_record`) with the room's whole log, read now from
    ``log_of`` (the store's :meth:`~.store.RoomLog.log`).

    Args:
        days: ``--history-days`` (None: kept until purged).

    Raises:
        StoreError: the store is unavailable.
    """
    entries = await log_of(room_id)
    record = {**game, "entries": [list(e) for e in entries]}
    await store.archive_game(room_id, record, None if days is None else days * DAY)


@dataclass(frozen=True, slots=True)
class _Held:
    """A seat of an archived game, as the visibility rule reads it."""

    account: str


class ArchivedGame:
    """An archived record (:class:`~.store.Archive`) as the visibility rule reads a room
    (:class:`~.visibility.Seen`): no member is connected to it any more.

    Args:
        record: The archived record.
    """

    def __init__(self, record: dict[str, Any]) -> None:
        self.record = record
        self.id: str = record["room"]
        self.private = bool(record["private"])
        self.host: str = record.get("host") or ""
        self.seats: list[_Held | None] = [
            None if s is None else _Held(s.get("account") or "") for s in record["players"]]
        self.members: dict[Any, Any] = {}


async def answer(store: Archive, viewer: visibility.Viewer,
                 msg: p.GetLog | p.GetReplay) -> p.Log | p.Replay:
    """The answer to ``msg`` about a room no process runs any more, from its archived
    record.

    Raises:
        RoomError: ``room/not_found`` (no record, or a private game ``viewer`` may not see:
            :func:`.visibility.hidden`), ``room/not_seated`` (a seat's replay asked by
            another than its account), ``protocol/bad_value`` (``state_id`` past the end,
            or no such seat), ``server/internal`` (a record of an unknown game).
        StoreError: the store is unavailable.
    """
    record = await store.archived(msg.room)
    if record is None:
        raise visibility.hidden(msg.room)
    game = ArchivedGame(record)
    if not visibility.may_see(game, viewer):
        raise visibility.hidden(msg.room)
    if isinstance(msg, p.GetLog):
        first = msg.first or 0
        page, more = log_page(record["entries"], first)
        return p.Log(room=game.id, game=record["game"], seats=record["seats"],
                     options=dict(record["options"]), salt=record["salt"] or None,
                     commitment=record["commitment"], state_id=record["state_id"],
                     outcome=dict(record["outcome"]), first=first, entries=page, more=more,
                     re=msg.id)
    visibility.seat_view(game, viewer, msg.seat)
    replay = _replay_of(record)
    if msg.seat is not None and msg.seat >= replay.seats:
        raise RoomError("protocol/bad_value", f"get_replay: seat: the room has seats "
                        f"0..{replay.seats - 1}")
    try:
        state, events = replay.at(msg.state_id)
    except ValueError as exc:
        raise RoomError("protocol/bad_value", f"get_replay: {exc}") from None
    view = state.view(msg.seat)
    view["legal_actions"] = []
    view["room"] = record["table"]
    return p.Replay(room=game.id, state_id=msg.state_id, final=replay.final, seat=msg.seat,
                    view=view, events=events, re=msg.id)


def _replay_of(record: dict[str, Any]) -> Replay:
    """The :class:`~.replay.Replay` of an archived record (the last :data:`CACHED` kept).

    Raises:
        RoomError: ``server/internal`` (the record's game is unknown here, or its log does
            not replay).
    """
    key = (record["room"], record["salt"] or "", int(record["state_id"]))
    replay = _cache.get(key)
    if replay is None:
        try:
            replay = Replay(games.get(record["game"]), record["options"], record["seats"],
                            record["entries"])
        except (OptionError, GameError) as exc:
            log.error("archived game %s does not replay: %s", record["room"], exc)
            raise RoomError("server/internal", "the archived game is damaged") from None
        _cache[key] = replay
        while len(_cache) > CACHED:
            _cache.popitem(last=False)
    _cache.move_to_end(key)
    return replay


async def prune(store: Archive, days: float, now: float | None = None) -> int:
    """Forget the archived games that finished more than ``days`` days before ``now``
    (unix s; None: now). Returns how many.

    Raises:
        StoreError: the store is unavailable.
    """
    moment = time.time() if now is None else now
    return await store.prune_archive(moment - days * DAY)


class Pruner:
    """Prunes the archive every :data:`PRUNE_SECONDS` (the first time at :meth:`start`),
    when ``--history-days`` is set.

    Args:
        store: The archive.
        days: ``--history-days`` (None: nothing is pruned, no task runs).
        every: Seconds between two prunes.
    """

    def __init__(self, store: Archive, days: float | None,
                 every: float = PRUNE_SECONDS) -> None:
        self.store, self.days, self.every = store, days, every
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        """Start pruning (no-op without ``days``)."""
        if self.days is not None and self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._run(), name="pruner")

    async def _run(self) -> None:
        assert self.days is not None
        while True:
            try:
                count = await prune(self.store, self.days)
            except StoreError as exc:
                log.warning("games archive not pruned: %s", exc)
            else:
                if count:
                    log.info("games archive: %d games finished more than %g days ago "
                             "forgotten", count, self.days)
            await asyncio.sleep(self.every)

    async def close(self) -> None:
        """Stop pruning."""
        if self._task is not None:
            await cancel_until_done(self._task)
            self._task = None
