"""Tests of "My games" (``cardhall.server.history``) over the in-memory account store and a
stub lobby: seat results, the ledger's writes, and the pages of ``my_games``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

import pytest
from cardhall import protocol as p
from cardhall.protocol.accounts import RESULTS
from cardhall.server.accounts.account_memory import MemoryAccounts
from cardhall.server.history import Ledger, my_games, seat_result
from cardhall.server.store.ports import LobbyIndex, StoreError


class Lobby:
    """The one method of a LobbyIndex that ``my_games`` reads: entries by room id."""

    def __init__(self, entries: dict[str, dict[str, Any]]) -> None:
        self.entries_by_id = entries

    async def entries(self, room_ids: Sequence[str]) -> list[dict[str, Any] | None]:
        return [self.entries_by_id.get(r) for r in room_ids]


@pytest.mark.parametrize("outcome", [
    {"winner": 2}, {"winner": None}, {"winner": None, "reason": None},
    {"winner": None, "reason": "move limit"}, {"winner": None, "reason": "all_out"},
    {"winner": None, "reason": "something new"}, {}, None,
])
def test_every_seat_result_is_one_my_games_accepts(outcome: dict[str, Any] | None) -> None:
    """Whatever an engine's outcome says, each seat's result is one of the protocol's
    RESULTS: ``my_games`` refuses any other (its known values: test_accounts.py)."""
    assert all(seat_result(outcome, seat) in RESULTS for seat in range(4))


async def test_the_ledger_writes_seats_and_finished_games_in_order() -> None:
    """Taken seats become running; a finished game goes first in each seated account's
    history (not an empty seat's) and frees its seat; scores that are not ints are None."""
    store = MemoryAccounts()
    ledger = Ledger(store, clock=lambda: 1_800_000_000.7)
    ledger.seated("alice", "r1", 0, "skipper", "multi")
    ledger.seated("bob", "r1", 1, "skipper", "multi")
    ledger.seated("", "r1", 2, "skipper", "multi")
    assert await store.seats("alice") == {}  # not yet: written in the background
    await ledger.flush()
    assert (await store.seats("alice"))["r1"] == {"seat": 0, "game": "skipper",
                                                  "mode": "multi", "since": 1_800_000_000}
    ledger.finished("r1", "Friday", "skipper", "multi", ["alice", "bob", ""],
                    {"winner": 1, "scores": [3, 1.5]})
    await ledger.flush()
    games, total = await store.games("bob", 0, 10)
    assert total == 1 and games[0] == {
        "room": "r1", "seat": 1, "seats": 3, "name": "Friday", "game": "skipper",
        "mode": "multi", "finished": 1_800_000_000, "result": "won", "score": None}
    assert (await store.games("alice", 0, 10))[0][0]["score"] == 3
    assert await store.seats("alice") == {} and await store.seats("bob") == {}
    await ledger.close()


async def test_a_failed_write_loses_only_itself(monkeypatch: pytest.MonkeyPatch) -> None:
    """A StoreError is logged; the writes after it still land."""
    store = MemoryAccounts()
    real = store.set_seat
    calls = 0

    async def flaky(account_id: str, room_id: str, entry: dict[str, Any] | None) -> None:
        nonlocal calls
        calls += 1
        if calls == 1:
            raise StoreError("store down")
        await real(account_id, room_id, entry)

    monkeypatch.setattr(store, "set_seat", flaky)
    ledger = Ledger(store)
    ledger.seated("alice", "r1", 0, "shop", None)
    ledger.seated("alice", "r2", 0, "shop", None)
    await ledger.flush()
    assert set(await store.seats("alice")) == {"r2"}
    await ledger.close()


async def test_my_games_drops_gone_rooms_and_pages_newest_first() -> None:
    """Running seats of rooms gone or finished are forgotten; later pages carry no running
    seats; the cursor counts finished games and is absent on the last page."""
    store = MemoryAccounts()
    for room, since in (("r1", 10), ("r2", 30), ("gone", 20), ("over", 40)):
        await store.set_seat("a", room, {"seat": 0, "game": "shop", "mode": None,
                                         "since": since})
    for i in range(3):
        await store.add_game("a", {"room": f"f{i}", "seat": 0, "seats": 1, "name": "", "game":
                                   "shop", "mode": None, "finished": i, "result": "lost",
                                   "score": None}, 10)
    lobby = cast(LobbyIndex, Lobby({"r1": {"name": "One", "status": "waiting"},
                                    "r2": {"name": "Two", "status": "playing"},
                                    "over": {"name": "Done", "status": "finished"}}))
    first = await my_games(store, lobby, "a", p.GetMyGames(id=5, limit=2))
    assert [e["room"] for e in first.running] == ["r2", "r1"]
    assert first.running[0]["status"] == "playing" and first.running[0]["name"] == "Two"
    assert [g["room"] for g in first.finished] == ["f2", "f1"]
    assert (first.total, first.cursor, first.re) == (3, "2", 5)
    assert set(await store.seats("a")) == {"r1", "r2"}
    last = await my_games(store, lobby, "a", p.GetMyGames(cursor=first.cursor, limit=2))
    assert last.running == [] and [g["room"] for g in last.finished] == ["f0"]
    assert last.cursor is None
    junk = await my_games(store, lobby, "a", p.GetMyGames(cursor="-5"))
    assert [g["room"] for g in junk.finished] == ["f2", "f1", "f0"]
