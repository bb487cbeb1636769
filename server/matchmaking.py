"""The matchmaking queue of rated play (issue #45 item 3): players ask for a rated game type
and a seat count (or several: "2-4"), and the server seats them in *waves*.

A wave (:func:`pair`) looks at every ticket waiting for one game type and makes tables that
minimise the rating spread (the highest shown rating of a table minus its lowest):

1. Tables of the largest size first (4, then 3, then 2 seats), each among the tickets that
   accept that size. The tickets are sorted by rating; the candidate tables are the runs of
   consecutive tickets (the closest ratings), and they are taken smallest spread first, each
   ticket once.
2. A table is acceptable when its spread is within the *window* of each of its tickets:
   ``window + widen * missed`` rating points, where ``missed`` counts the waves the ticket
   waited through unseated (lichess's bonus per missed wave): each missed wave widens what
   the ticket accepts, so that a player far from everyone is seated in the end.
3. No same table twice in a row: a table whose players are exactly those of the last table
   one of them sat at is skipped while other tickets wait for that size.
4. Bots fill the wait: a ticket that has waited ``bot_after`` seconds (``--queue-bot-after``)
   and is still unseated after the wave gets a table with the other such tickets near its
   rating, its empty seats given to server bots (:attr:`Table.bots`), whose rating is near
   the table's (the server bots' rating: :data:`~.rated.SERVER_BOT`).

Waves run every ``wave_seconds`` (:class:`Matchmaker`), or at once when ``wave_at`` tickets
wait for one game type. The queue of one process lives in its memory; a connection that
closes leaves it (:meth:`Matchmaker.leave_owner`).
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from .tasks import cancel_until_done

__all__ = ["BOT_AFTER", "SIZES", "WAVE_AT", "WAVE_SECONDS", "WIDEN", "WINDOW", "Matchmaker",
           "Table", "Ticket", "pair"]

log = logging.getLogger("cardhall.matchmaking")

#: Table sizes of rated play, largest first.
SIZES = (4, 3, 2)
#: Seconds between two waves.
WAVE_SECONDS = 3.0
#: Tickets waiting for one game type that start a wave at once.
WAVE_AT = 16
#: Rating points a ticket accepts at first, and more per missed wave.
WINDOW, WIDEN = 100.0, 50.0
#: Default ``--queue-bot-after`` (None: bots never fill).
BOT_AFTER: float | None = None


@dataclass(slots=True, eq=False)
class Ticket:
    """One player waiting in the queue.

    Attributes:
        key: The player's rating key (account id).
        name: Display name.
        rating: Its shown rating (:attr:`~.ratings.Rating.shown`) for the game type.
        sizes: The table sizes it accepts (2..4 seats).
        since: When it joined (a clock's seconds: :class:`Matchmaker`'s).
        owner: Who to tell (the connection), opaque here.
        missed: Waves it waited through unseated.
        last: The keys of the last table it sat at (no same table twice in a row).
        id: The ticket's id (64 random bits: unique across the processes of a lobby, whose
            tickets share one Redis hash).
    """

    key: str
    name: str
    rating: float
    sizes: tuple[int, ...]
    since: float = 0.0
    owner: Any = None
    missed: int = 0
    last: frozenset[str] = frozenset()
    id: str = field(default_factory=lambda: secrets.token_hex(8))

    def window(self, window: float, widen: float) -> float:
        """The spread it accepts now: ``window + widen * missed`` rating points."""
        return window + widen * self.missed


@dataclass(frozen=True, slots=True)
class Table:
    """A table a wave made.

    Attributes:
        tickets: Its players, lowest rating first.
        seats: Its seat count.
        bots: Seats given to server bots (``seats - len(tickets)``).
    """

    tickets: tuple[Ticket, ...]
    seats: int
    bots: int = 0

    @property
    def spread(self) -> float:
        """Highest rating minus lowest, of its players (0 for one player)."""
        ratings = [t.rating for t in self.tickets]
        return max(ratings) - min(ratings)


def pair(tickets: Sequence[Ticket], *, window: float = WINDOW, widen: float = WIDEN,
         now: float = 0.0, bot_after: float | None = None) -> tuple[list[Table], list[Ticket]]:
    """One wave over the tickets of one game type (see the module docstring).

    Args:
        tickets: The waiting tickets.
        window, widen: Rating points accepted at first, and more per missed wave.
        now: The clock's time (bots fill for tickets waiting ``bot_after`` seconds).
        bot_after: Seconds of waiting after which bots fill a table; None: never.

    Returns:
        The tables made, and the tickets left waiting (each with ``missed`` one more).
    """
    left = sorted(tickets, key=lambda t: (t.rating, t.since, t.id))
    tables: list[Table] = []
    for size in SIZES:
        made = _tables_of(left, size, window, widen)
        if made:
            seated = {t.id for table in made for t in table.tickets}
            left = [t for t in left if t.id not in seated]
            tables += made
    if bot_after is not None:
        due = [t for t in left if now - t.since >= bot_after]
        filled = _with_bots(due)
        seated = {t.id for table in filled for t in table.tickets}
        left = [t for t in left if t.id not in seated]
        tables += filled
    for t in left:
        t.missed += 1
    return tables, left


def _tables_of(tickets: list[Ticket], size: int, window: float,
               widen: float) -> list[Table]:
    """The tables of ``size`` seats among ``tickets`` (sorted by rating): runs of
    consecutive tickets, smallest spread first, each acceptable to all its tickets."""
    eligible = [t for t in tickets if size in t.sizes]
    if len(eligible) < size:
        return []
    others_wait = len(eligible) > size
    candidates: list[tuple[float, int]] = []
    for i in range(len(eligible) - size + 1):
        group = eligible[i:i + size]
        spread = group[-1].rating - group[0].rating
        if spread > min(t.window(window, widen) for t in group):
            continue
        if others_wait and _repeat(group):
            continue
        candidates.append((spread, i))
    candidates.sort()
    used = [False] * len(eligible)
    tables = []
    for _, i in candidates:
        if any(used[i:i + size]):
            continue
        used[i:i + size] = [True] * size
        tables.append(Table(tuple(eligible[i:i + size]), size))
    return tables


def _repeat(group: Sequence[Ticket]) -> bool:
    """Whether ``group`` is the last table of one of its players."""
    keys = frozenset(t.key for t in group)
    return any(t.last == keys for t in group)


def _with_bots(due: list[Ticket]) -> list[Table]:
    """Tables for the tickets that waited long enough (sorted by rating): runs of up to
    the largest size the run's first ticket accepts, among those that accept it; the empty
    seats go to bots."""
    tables = []
    rest = list(due)
    while rest:
        size = max(rest[0].sizes)
        group = [t for t in rest if size in t.sizes][:size]
        rest = [t for t in rest if t not in group]
        tables.append(Table(tuple(group), size, size - len(group)))
    return tables


Seat = Callable[[str, str, Table], Awaitable[None]]


class Matchmaker:
    """The queues of this process, one per rated game type, and the waves that seat them.

    Args:
        seat: Called with ``(game, mode, table)`` for each table a wave makes (the server
            creates the rated room and tells its players); its errors are logged.
        wave_seconds: Seconds between two waves.
        wave_at: Tickets of one game type that start a wave at once.
        window, widen: See :func:`pair`.
        bot_after: ``--queue-bot-after`` seconds, or None.
        clock: Seconds (monotonic).
    """

    def __init__(self, seat: Seat, *, wave_seconds: float = WAVE_SECONDS,
                 wave_at: int = WAVE_AT, window: float = WINDOW, widen: float = WIDEN,
                 bot_after: float | None = BOT_AFTER,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.seat_table = seat
        self.wave_seconds, self.wave_at = wave_seconds, wave_at
        self.window, self.widen, self.bot_after = window, widen, bot_after
        self.clock = clock
        #: Waiting tickets per game type ``(game, mode)``, by ticket id.
        self.pools: dict[tuple[str, str], dict[str, Ticket]] = {}
        #: The last table of each key (no same table twice in a row).
        self.last: dict[str, frozenset[str]] = {}
        self._task: asyncio.Task[None] | None = None
        self._now = asyncio.Event()

    def join(self, game: str, mode: str, ticket: Ticket) -> Ticket:
        """Put ``ticket`` in the queue of (``game``, ``mode``); a ticket of the same key
        waiting there is replaced (one ticket per player and game type). Starts the waves
        on first use.

        Returns:
            The ticket, its ``since`` and ``last`` set.
        """
        pool = self.pools.setdefault((game, mode), {})
        for old in [t for t in pool.values() if t.key == ticket.key]:
            del pool[old.id]
        ticket.since = self.clock()
        ticket.last = self.last.get(ticket.key, frozenset())
        pool[ticket.id] = ticket
        if len(pool) >= self.wave_at:
            self._now.set()
        self._start()
        return ticket

    def leave(self, key: str, game: str | None = None) -> int:
        """Take ``key``'s tickets out (of one game type's queue when ``game`` is given: its
        modes). Returns how many."""
        count = 0
        for (g, _), pool in self.pools.items():
            if game is None or g == game:
                for old in [t for t in pool.values() if t.key == key]:
                    del pool[old.id]
                    count += 1
        return count

    def leave_owner(self, owner: Any) -> int:
        """Take out every ticket of ``owner`` (a closed connection). Returns how many."""
        count = 0
        for pool in self.pools.values():
            for old in [t for t in pool.values() if t.owner is owner]:
                del pool[old.id]
                count += 1
        return count

    def waiting(self, game: str, mode: str) -> int:
        """Tickets waiting for (``game``, ``mode``)."""
        return len(self.pools.get((game, mode), {}))

    async def wave(self) -> list[Table]:
        """Run one wave over every queue now; the tables made are seated (:attr:`seat_table`)
        and returned. The players of a table that could not be seated (:attr:`seat_table`
        raised) wait again."""
        made: list[Table] = []
        for (game, mode), pool in list(self.pools.items()):
            if not pool:
                continue
            tables, _ = pair(list(pool.values()), window=self.window, widen=self.widen,
                             now=self.clock(), bot_after=self.bot_after)
            for table in tables:
                keys = frozenset(t.key for t in table.tickets)
                for t in table.tickets:
                    pool.pop(t.id, None)
                    self.last[t.key] = keys
                try:
                    await self.seat_table(game, mode, table)
                except Exception:  # one table's failure must not stop the waves
                    log.exception("queue %s %s: a table was not seated: its players wait "
                                  "again", game, mode)
                    for t in table.tickets:
                        pool[t.id] = t
            made += tables
        return made

    def _start(self) -> None:
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._run(), name="queue")

    async def _run(self) -> None:
        while True:
            try:
                await asyncio.wait_for(self._now.wait(), self.wave_seconds)
            except TimeoutError:
                pass
            self._now.clear()
            await self.wave()

    async def close(self) -> None:
        """Stop the waves (waiting tickets are dropped)."""
        if self._task is not None:
            await cancel_until_done(self._task)
            self._task = None
