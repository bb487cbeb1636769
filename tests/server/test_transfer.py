"""Tests of moving a lobby between stores (``cardhall.server.store.transfer``) over in-memory
stores: rooms with their logs and snapshots, rooms the target holds left alone, a source in use
refused, accounts with their seats and games in order, boards, ratings. (tests/server/
test_sqlite_store.py runs ``cardhall migrate`` between SQLite and Redis.)"""

from __future__ import annotations

from typing import Any

import pytest
from cardhall.server.accounts.account_memory import MemoryAccounts
from cardhall.server.accounts.identity import Account
from cardhall.server.leaderboard import boards
from cardhall.server.ratings import MemoryRatings, RatedGame, RatedSeat, board_id
from cardhall.server.store.memory_store import MemoryStore
from cardhall.server.store import transfer
from cardhall.server.store.transfer import (TransferError, copy_accounts, copy_archive,
                                           copy_ratings, copy_store)


def _summary(room: str, status: str = "waiting") -> dict[str, Any]:
    return {"room": room, "game": "shop", "mode": None, "status": status, "private": False,
            "taken": 1, "seats": 1, "name": room}


async def _source() -> MemoryStore:
    store = MemoryStore()
    await store.save_room("r1", {"game": "shop", "code": "JOIN"}, {"s": 1},
                          _summary("r1", "playing"))
    await store.append("r1", [["a", 0, ["x"]], ["a", 0, ["y"]]], 0, None)
    await store.save_snapshot("r1", 1, {"snap": 1})
    await store.save_room("r2", {"game": "shop"}, {"finished_at": 0}, _summary("r2", "finished"))
    return store


async def test_rooms_arrive_whole_and_rooms_held_by_the_target_are_skipped() -> None:
    """Record, state, log, snapshot, join code; the target's own room is not overwritten
    and is said; figures count by status."""
    source, target, said = await _source(), MemoryStore(), []
    await target.save_room("r2", {"game": "shop", "mine": True}, {}, _summary("r2"))
    done = await copy_store(source, target, 300.0, said.append)
    assert (done["rooms"], done["playing"], done["skipped"], done["entries"]) == (1, 1, 1, 2)
    assert said == ["room r2 is in the target already: skipped"]
    loaded = await target.load("r1")
    assert loaded is not None and loaded.state == {"s": 1}
    assert (loaded.snapshot, loaded.snapshot_state_id, loaded.entries) == (
        {"snap": 1}, 1, [["a", 0, ["y"]]])
    assert await target.room_by_code("JOIN") == "r1"
    assert target.records["r2"] == {"game": "shop", "mine": True}


async def test_a_source_whose_rooms_a_server_runs_is_refused_whole(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """TransferError naming a room; nothing is copied."""
    source, target = await _source(), MemoryStore()

    async def owners(room_ids: list[str]) -> list[str | None]:
        return ["host:9:live" if r == "r2" else None for r in room_ids]

    monkeypatch.setattr(source, "owners", owners)
    with pytest.raises(TransferError, match=r"1 rooms of the source are run by a server .*r2"):
        await copy_store(source, target, 300.0)
    assert target.records == {}


async def test_accounts_come_with_seats_and_games_in_order_unless_a_key_clashes() -> None:
    """The newest ``keep`` games, newest first on the target too; an account whose
    username the target holds under another id is skipped and said."""
    source, target, said = MemoryAccounts(), MemoryAccounts(), []
    alice = Account(id="a" * 16, username="alice", name="Alice", keys=(("user", "alice"),))
    bob = Account(id="b" * 16, username="bob", name="Bob", keys=(("user", "bob"),))
    for account in (alice, bob):
        await source.create(account)
    await target.create(Account(id="c" * 16, username="bob", name="Other Bob",
                                keys=(("user", "bob"),)))
    await source.set_seat(alice.id, "r1", {"seat": 0, "game": "shop", "mode": None,
                                           "since": 5})
    for i in range(4):
        await source.add_game(alice.id, {"room": f"g{i}", "finished": i}, 10)
    assert await copy_accounts(source, target, 3, said.append) == 1
    assert said == ["account bob not copied: its user key is held by another account of "
                    "the target"]
    games, total = await target.games(alice.id, 0, 10)
    assert [g["room"] for g in games] == ["g3", "g2", "g1"] and total == 3
    assert set(await target.seats(alice.id)) == {"r1"}
    assert await copy_accounts(source, target, 3) == 0  # held now: skipped silently


async def test_boards_keep_the_better_value() -> None:
    """A name on both sides keeps the better (lower) value; counts are entries read."""
    board = next(iter(boards().values())).id
    source, target = MemoryStore(), MemoryStore()
    await source.record_score(board, "ann", 10, 100)
    await source.record_score(board, "bob", 50, 100)
    await target.record_score(board, "bob", 20, 100)
    done = await copy_store(source, target, 300.0)
    assert done["board_entries"] == 2 and done["accounts"] == 0
    assert (await target.board_page(board, 0, 10))[0] == [("ann", 10), ("bob", 20)]


async def test_the_games_archive_comes_along_page_by_page(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Every archived game, across several pages, oldest first; a record the target holds
    already is kept as it is (issue #44 item 2: migrate lost the match history)."""
    monkeypatch.setattr(transfer, "ARCHIVE_PAGE", 2)
    source, target = MemoryStore(), MemoryStore()
    for n in range(5):
        await source.archive_game(f"g{n}", {"room": f"g{n}", "finished_at": 10.0 - n,
                                            "entries": [["a", 0, [n]]]})
    await target.archive_game("g2", {"room": "g2", "finished_at": 1.0, "entries": []})
    assert await source.archived_ids(0, 10) == ["g4", "g3", "g2", "g1", "g0"]
    assert await copy_archive(source, target) == 4
    assert await target.archived_ids(0, 10) == ["g2", "g4", "g3", "g1", "g0"]
    assert await target.archived("g0") == await source.archived("g0")
    assert (await target.archived("g2") or {})["entries"] == []  # the target's own
    assert (await copy_store(source, target, 300.0))["archived"] == 0  # nothing twice


async def test_ratings_their_history_and_rated_games_come_along_page_by_page(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Every rating of every rated game type with its history, and every rated game's mark
    and changes (so a game is not rated twice on the target, and My games shows its rating
    change), across pages; a key the target holds keeps its own rating (issue #45: migrate
    left the ratings behind)."""
    monkeypatch.setattr(transfer, "RATING_PAGE", 2)
    source, target = MemoryRatings(), MemoryRatings()
    board = board_id("skipper", "multi")
    for n in range(3):
        await source.rate(RatedGame(f"g{n}", board, (
            RatedSeat("ann", "Ann"), RatedSeat("bob", "Bob"), RatedSeat(f"c{n}", "C", True)),
            (1, 2, 3), at=100.0 + n))
    await target.rate(RatedGame("t0", board, (RatedSeat("bob", "Bob2"), RatedSeat("zed", "Z")),
                                (2, 1), at=50.0))
    assert await copy_ratings(source, target) == (4, 3)
    listed = {e.key: e for e in await target.listing(board, 10)}
    assert set(listed) == {"ann", "bob", "c0", "c1", "c2", "zed"}
    assert listed["bob"].name == "Bob2" and listed["bob"].rating.games == 1  # the target's
    assert listed["c0"].guest and listed["ann"] == (await source.listing(board, 1))[0]
    assert await target.history(board, "ann") == await source.history(board, "ann")
    assert [g for g, _ in await target.rated_ids(board, 0, 10)] == ["t0", "g0", "g1", "g2"]
    assert await target.game_changes(board, "g1") == await source.game_changes(board, "g1")
    again = RatedGame("g2", board, (RatedSeat("ann", "Ann"), RatedSeat("bob", "Bob")), (1, 2))
    assert await target.rate(again) is None  # rated once, on either side
    assert await copy_ratings(source, target) == (0, 0)
    done = await copy_store(MemoryStore(), MemoryStore(), 300.0, ratings=(source, target))
    assert (done["ratings"], done["rated_games"]) == (0, 0)
