"""My games: what each account plays and played (issue #29, item 5).

:class:`Ledger` is what rooms tell (a :class:`~.account_store.SeatLedger`): a seat taken, a
seat given up, a game over. It writes to the account store's :class:`~.account_store.
GameHistory` in the background, in the order it was told (one writer task), so that no room
waits on it and a failed write (logged) loses only that entry.

:func:`my_games` answers ``get_my_games``: the account's running seats (those whose room
still has a lobby entry and is not finished; the others are forgotten as they are found) and
a page of its finished games, newest first.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from .. import protocol as p
from ..games import outcome_kind
from .accounts.account_store import GameHistory
from .store.ports import LobbyIndex, StoreError
from .tasks import cancel_until_done
from .phases import Phase, is_phase

log = logging.getLogger("cardhall.history")

__all__ = ["KEEP", "Ledger", "my_games", "seat_result"]

#: Finished games an account's history keeps (the newest).
KEEP = 200


def seat_result(outcome: dict[str, Any] | None, seat: int) -> str:
    """What a finished game was for ``seat``: ``"won"`` (the winner), ``"lost"`` (another
    seat won), ``"resigned"`` (the game ended by a resignation: RULINGS T6, a loss), else the
    game's kind (:func:`~cardhall.games.outcome_kind`: ``"limit"``, a turn or move limit
    ended it; ``"abandoned"``, forfeited, every seat out; ``"lost"``)."""
    winner = None if outcome is None else outcome.get("winner")
    if winner is not None:
        return "won" if winner == seat else "lost"
    if str((outcome or {}).get("reason") or "").startswith("resign"):
        return "resigned"
    return outcome_kind(outcome)


class Ledger:
    """Writes what rooms tell of their seats' accounts to a :class:`GameHistory`.

    Args:
        history: Where running seats and finished games are kept.
        keep: Finished games kept per account (:data:`KEEP`).
        clock: Wall clock (unix s).
    """

    def __init__(self, history: GameHistory, keep: int = KEEP,
                 clock: Callable[[], float] = time.time) -> None:
        self.history = history
        self.keep = keep
        self._clock = clock
        self._queue: asyncio.Queue[Callable[[], Awaitable[None]]] = asyncio.Queue()
        self._task: asyncio.Task[None] | None = None

    def _later(self, write: Callable[[], Awaitable[None]]) -> None:
        self._queue.put_nowait(write)
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._run(), name="ledger")

    async def _run(self) -> None:
        while not self._queue.empty():
            write = self._queue.get_nowait()
            try:
                await write()
            except StoreError as exc:
                log.warning("my games not written: %s", exc)
            except Exception:  # a bug: logged, the next writes go on
                log.exception("ledger write failed")

    async def flush(self) -> None:
        """Wait until every write told so far is done (tests, shutdown)."""
        while self._task is not None and not self._task.done():
            await asyncio.wait({self._task})

    async def close(self) -> None:
        """Stop writing (server shutdown): writes not begun are dropped."""
        if self._task is not None:
            await cancel_until_done(self._task)

    def seated(self, account_id: str, room_id: str, seat: int, game: str,
               mode: str | None) -> None:
        """The account took ``seat`` of ``room_id`` (see :class:`SeatLedger`)."""
        if not account_id:
            return
        entry = {"seat": seat, "game": game, "mode": mode, "since": int(self._clock())}
        self._later(lambda: self.history.set_seat(account_id, room_id, entry))

    def unseated(self, account_id: str, room_id: str) -> None:
        """The account holds no seat of ``room_id`` any more."""
        if account_id:
            self._later(lambda: self.history.set_seat(account_id, room_id, None))

    def finished(self, room_id: str, name: str, game: str, mode: str | None,
                 seats: Sequence[str], outcome: dict[str, Any] | None) -> None:
        """The game of ``room_id`` ended: each seat's account gets it in its history."""
        scores = (outcome or {}).get("scores") or []
        when = int(self._clock())
        for seat, account_id in enumerate(seats):
            if not account_id:
                continue
            score = scores[seat] if seat < len(scores) else None
            entry = {"room": room_id, "seat": seat, "seats": len(seats), "name": name,
                     "game": game, "mode": mode, "finished": when,
                     "result": seat_result(outcome, seat),
                     "score": score if isinstance(score, int) else None}

            async def write(account_id: str = account_id,
                            entry: dict[str, Any] = entry) -> None:
                await self.history.add_game(account_id, entry, self.keep)
                await self.history.set_seat(account_id, room_id, None)

            self._later(write)


async def my_games(history: GameHistory, rooms: LobbyIndex, account_id: str,
                   msg: p.GetMyGames) -> p.MyGames:
    """The ``my_games`` reply for ``account_id``: on the first page its running seats (each
    checked against the room's lobby entry: a room gone or finished is dropped from the
    running seats), and one page of its finished games.

    Raises:
        StoreError: a store is unavailable.
    """
    limit = msg.limit or p.MY_GAMES_LIMIT
    try:
        start = int(msg.cursor or 0)
    except ValueError:
        start = 0
    start = max(0, start)
    running: list[dict[str, Any]] = []
    if msg.cursor is None:
        held = await history.seats(account_id)
        ids = sorted(held)
        for room_id, summary in zip(ids, await rooms.entries(ids) if ids else []):
            entry = held[room_id]
            if summary is None or is_phase(summary["status"], Phase.FINISHED):
                await history.set_seat(account_id, room_id, None)
                continue
            running.append({"room": room_id, "seat": entry["seat"], "name": summary["name"],
                            "game": entry["game"], "mode": entry["mode"],
                            "status": summary["status"], "since": entry["since"]})
        running.sort(key=lambda e: -e["since"])
    finished, total = await history.games(account_id, start, limit)
    more = start + len(finished) < total
    return p.MyGames(running=running, finished=finished, total=min(total, p.MAX_ID),
                     cursor=str(start + len(finished)) if more else None, re=msg.id)
