"""Tests of the in-memory store (``cardhall.server.store.memory_store``) on its own: snapshots and
the log after them, lobby indexes as rooms fill and go, join codes, boards, and what a
deleted room leaves behind (nothing)."""

from __future__ import annotations

from typing import Any

import pytest
from cardhall.server.store.memory_store import MemoryStore
from cardhall.server.store.ports import LogConflict


def _summary(taken: int = 0, **extra: Any) -> dict[str, Any]:
    return {"game": "shop", "mode": None, "status": "waiting", "private": False,
            "taken": taken, "seats": 2, **extra}


async def test_load_gives_the_latest_snapshot_and_the_log_after_it() -> None:
    """A reload replays only what the snapshot does not hold; a wrong ``expect`` is a
    LogConflict and appends nothing."""
    store = MemoryStore()
    await store.save_room("r1", {"game": "shop"}, {"s": 0}, _summary())
    await store.append("r1", [["a", 0, ["x"]], ["a", 0, ["y"]]], 0, {"s": 2})
    await store.save_snapshot("r1", 2, {"snap": 2})
    await store.append("r1", [["a", 0, ["z"]]], 2, None)
    with pytest.raises(LogConflict, match="3 long, not 2"):
        await store.append("r1", [["a", 0, ["again"]]], 2, None)
    loaded = await store.load("r1")
    assert loaded is not None
    assert (loaded.state, loaded.snapshot, loaded.snapshot_state_id) == ({"s": 2}, {"snap": 2}, 2)
    assert loaded.entries == [["a", 0, ["z"]]]
    assert len(await store.log("r1")) == 3
    assert await store.load("nope") is None


async def test_indexes_follow_the_lobby_entry_and_page_in_id_order() -> None:
    """A full room leaves the waiting index; pages start after the given id."""
    store = MemoryStore()
    for room in ("r3", "r1", "r2"):
        await store.save_room(room, {"game": "shop"}, {}, _summary())
    assert await store.index_ids("waiting:shop", "", 10) == ["r1", "r2", "r3"]
    assert await store.index_ids("all", "r1", 1) == ["r2"]
    await store.save_state("r2", {}, _summary(taken=2))
    assert await store.index_ids("waiting", "", 10) == ["r1", "r3"]
    assert await store.index_ids("game:shop", "", 10) == ["r1", "r2", "r3"]
    assert await store.index_ids("waiting:skipper", "", 10) == []


async def test_a_deleted_room_leaves_no_code_index_entry_or_lease() -> None:
    """Its join code finds nothing, it is in no index, nobody owns it, and a room of the
    same id starts again at epoch 1."""
    store = MemoryStore()
    await store.save_room("r1", {"game": "shop", "code": "ABCD"}, {}, _summary())
    await store.acquire("r1")
    assert await store.room_by_code("ABCD") == "r1"
    assert await store.owners(["r1", "r9"]) == [store.process_id, None]
    await store.delete_room("r1")
    assert await store.room_by_code("ABCD") is None
    assert await store.index_ids("all", "", 10) == [] and await store.entries(["r1"]) == [None]
    assert await store.owner("r1") is None and await store.orphans() == []
    lease = await store.save_room("r1", {"game": "shop"}, {}, _summary())
    assert lease.epoch == 1


async def test_a_board_keeps_each_names_best_and_only_the_best_size() -> None:
    """Lower is better; a worse or equal score is not recorded; the worst drop out."""
    store = MemoryStore()
    assert await store.record_score("b", "ann", 30, 2)
    assert not await store.record_score("b", "ann", 30, 2)
    assert await store.record_score("b", "ann", 20, 2)
    assert await store.record_score("b", "bob", 25, 2)
    assert await store.record_score("b", "cy", 10, 2)
    assert await store.board_page("b", 0, 10) == ([("cy", 10), ("ann", 20)], 2)
    assert await store.board_rank("b", "ann") == (1, 20)
    assert await store.board_rank("b", "bob") is None
    assert await store.board_page("none", 0, 10) == ([], 0)
