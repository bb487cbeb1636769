"""The matchmaking queue's waves (issue #45 item 3, server/matchmaking.py): a wave pairs the
closest ratings, each missed wave widens the spread a ticket accepts, never the same table
twice in a row while others wait, bots fill the seats of a ticket that waited
``bot_after`` seconds, and the waves run by themselves (every ``wave_seconds``, or at once
when ``wave_at`` tickets wait)."""

from __future__ import annotations

import asyncio

from cardhall.server.matchmaking import Matchmaker, Table, Ticket, pair


def tickets(*ratings: float, sizes: tuple[int, ...] = (2,)) -> list[Ticket]:
    """A ticket per rating, keyed ``p<rating>``."""
    return [Ticket(f"p{r:g}", f"p{r:g}", r, sizes) for r in ratings]


def names(tables: list[Table]) -> list[list[str]]:
    """Each table's players' keys."""
    return sorted(sorted(t.key for t in table.tickets) for table in tables)


def test_a_wave_pairs_the_closest_ratings() -> None:
    tables, left = pair(tickets(1500, 1900, 1520, 1880, 1700), window=100)
    assert names(tables) == [["p1500", "p1520"], ["p1880", "p1900"]]
    assert [t.key for t in left] == ["p1700"] and left[0].missed == 1
    four, _ = pair(tickets(1000, 1010, 1020, 1030, 1500, 1510, 1520, 1530, sizes=(4,)))
    assert names(four) == [["p1000", "p1010", "p1020", "p1030"],
                           ["p1500", "p1510", "p1520", "p1530"]]
    assert all(t.spread == 30 for t in four)


def test_larger_tables_first_for_tickets_that_accept_several_sizes() -> None:
    tables, left = pair(tickets(1500, 1510, 1520, 1530, 1540, sizes=(2, 3, 4)))
    assert [t.seats for t in tables] == [4] and len(left) == 1


def test_the_window_widens_with_each_missed_wave() -> None:
    waiting = tickets(1500, 1800)  # 300 apart: window 100, +50 per missed wave
    waves = 0
    tables: list[Table] = []
    while not tables:
        tables, waiting = pair(waiting, window=100, widen=50)
        waves += 1
        if not tables:
            assert all(t.missed == waves for t in waiting)
    assert waves == 5  # 100 + 50 * 4 = 300 at the fifth wave
    assert names(tables) == [["p1500", "p1800"]]


def test_a_fresh_ticket_keeps_its_own_narrow_window() -> None:
    """A ticket that missed many waves does not drag a new one into a wide table."""
    old, new = tickets(1500, 1800)
    old.missed = 10
    tables, _ = pair([old, new], window=100, widen=50)
    assert tables == []


def test_never_the_same_table_twice_in_a_row_when_others_wait() -> None:
    a, b, c = tickets(1500, 1510, 1600)
    a.last = b.last = frozenset({"p1500", "p1510"})
    tables, left = pair([a, b, c], window=200)
    assert names(tables) == [["p1510", "p1600"]] and [t.key for t in left] == ["p1500"]
    # Nobody else waits: the rematch is allowed.
    tables, _ = pair([a, b], window=200)
    assert names(tables) == [["p1500", "p1510"]]


def test_bots_fill_after_the_wait() -> None:
    lone = Ticket("p", "p", 1500, (4,), since=0.0)
    tables, left = pair([lone], now=5.0, bot_after=10.0)
    assert tables == [] and left == [lone]
    tables, left = pair([lone], now=10.0, bot_after=10.0)
    assert left == [] and [(t.seats, t.bots, len(t.tickets)) for t in tables] == [(4, 3, 1)]


async def test_waves_run_by_themselves_and_seat_each_ticket_once() -> None:
    seated: list[tuple[str, str, Table]] = []

    async def seat(game: str, mode: str, table: Table) -> None:
        seated.append((game, mode, table))

    queue = Matchmaker(seat, wave_seconds=0.05, wave_at=100)
    try:
        for t in tickets(1500, 1510):
            queue.join("skipper", "multi", t)
        queue.join("skipper", "multi", Ticket("p1500", "again", 1500, (2,)))  # replaces
        assert queue.waiting("skipper", "multi") == 2
        for _ in range(100):
            if seated:
                break
            await asyncio.sleep(0.02)
        assert [(g, m, sorted(t.name for t in tb.tickets)) for g, m, tb in seated] == [
            ("skipper", "multi", ["again", "p1510"])]
        assert queue.waiting("skipper", "multi") == 0
        assert queue.last["p1510"] == frozenset({"p1500", "p1510"})
        # Leaving: by key, and by owner (a closed connection).
        owner = object()
        queue.join("skipper", "race", Ticket("x", "x", 1500, (2,), owner=owner))
        queue.join("skipper", "race", Ticket("y", "y", 2500, (2,)))
        assert queue.leave_owner(owner) == 1 and queue.leave("y") == 1
    finally:
        await queue.close()


async def test_enough_waiting_tickets_start_a_wave_at_once() -> None:
    seated: list[Table] = []

    async def seat(game: str, mode: str, table: Table) -> None:
        seated.append(table)

    queue = Matchmaker(seat, wave_seconds=60.0, wave_at=4)
    try:
        for t in tickets(1500, 1510, 1520, 1530):
            queue.join("skipper", "multi", t)
        for _ in range(100):
            if seated:
                break
            await asyncio.sleep(0.02)
        assert len(seated) == 2
    finally:
        await queue.close()


async def test_the_players_of_a_table_not_seated_wait_again() -> None:
    calls: list[Table] = []

    async def seat(game: str, mode: str, table: Table) -> None:
        calls.append(table)
        if len(calls) == 1:
            raise RuntimeError("the room could not be made")

    queue = Matchmaker(seat, wave_seconds=60.0, wave_at=100)
    try:
        for t in tickets(1500, 1510):
            queue.join("skipper", "multi", t)
        await queue.wave()
        assert queue.waiting("skipper", "multi") == 2
        await queue.wave()
        assert len(calls) == 2 and queue.waiting("skipper", "multi") == 0
    finally:
        await queue.close()


def test_ticket_ids_differ_across_processes() -> None:
    """The processes of a lobby keep their tickets in one Redis hash by id: two processes'
    first tickets must not share one (a per-process counter made both ``t1``)."""
    import subprocess
    import sys

    code = ("from cardhall.server.matchmaking import Ticket; "
            "print(Ticket('a', 'a', 1500.0, (2,)).id)")
    ids = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True, timeout=60).stdout.strip() for _ in range(2)}
    assert len(ids) == 2 and all(len(i) == 16 for i in ids)
