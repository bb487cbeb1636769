"""Tests of the Redis key layout (``cardhall.server.store.redis_keys``) without a Redis: one slot
per room, lobby shards spread over the slot space, index moves queued on a pipeline, refusals."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from cardhall.server.store import redis_keys as K
from cardhall.server.store.ports import LogConflict, OwnershipLost, pack, unpack
from redis.crc import REDIS_CLUSTER_HASH_SLOTS, key_slot
from redis.exceptions import ResponseError


class Pipe:
    """Records the commands queued on it, as a redis-py pipeline would send them."""

    def __init__(self) -> None:
        self.calls: list[tuple[Any, ...]] = []

    def hset(self, name: str, field: str, value: bytes) -> None:
        self.calls.append(("hset", name, field, value))

    def zadd(self, name: str, mapping: dict[str, float]) -> None:
        self.calls.append(("zadd", name, mapping))

    def zrem(self, name: str, member: str) -> None:
        self.calls.append(("zrem", name, member))


def test_every_key_of_a_room_is_in_one_slot() -> None:
    """The fenced scripts touch one slot only, on a Redis Cluster too."""
    for room in ("r1", "x{y}z", "0123456789abcdef"):
        parts = [K.key(room, p) for p in ("record", "state", "log", "snap", "owner", "epoch")]
        assert len({key_slot(k.encode()) for k in parts}) == 1
        assert parts[0] == f"cardhall:{{room:{room}}}:record"


def test_lobby_shards_spread_over_the_slot_space() -> None:
    """Shard ``i``'s keys share one slot in the ``i``-th equal part of the 16,384 slots."""
    lobby = K.LobbyKeys(K.CLUSTER_LOBBY_SHARDS)
    for i in range(K.CLUSTER_LOBBY_SHARDS):
        keys = [lobby.lobby(i), lobby.codes(i), *lobby.all_indexes(i, "skipper")]
        slots = {key_slot(k.encode()) for k in keys}
        assert len(slots) == 1
        assert slots.pop() * K.CLUSTER_LOBBY_SHARDS // REDIS_CLUSTER_HASH_SLOTS == i
    spread = Counter(lobby.shard(f"room{n}") for n in range(1600))
    assert set(spread) == set(range(16)) and min(spread.values()) > 50


def test_one_shard_uses_the_plain_names() -> None:
    """A lone Redis or Sentinel master: the documented key names, every id in shard 0."""
    lobby = K.LobbyKeys(1)
    assert (lobby.lobby(0), lobby.codes(0)) == (K.LOBBY, K.CODES)
    assert lobby.index(0, "waiting:shop") == K.index_key("waiting:shop") == (
        "cardhall:index:waiting:shop")
    assert {lobby.shard(f"r{n}") for n in range(50)} == {0}
    assert K.inbox("host:1:abc") == "cardhall:inbox:host:1:abc"


def test_put_writes_the_entry_and_moves_the_room_between_indexes() -> None:
    """A waiting public room is in all four indexes; once full it leaves the waiting ones."""
    lobby, pipe = K.LobbyKeys(1), Pipe()
    summary = {"game": "shop", "mode": None, "status": "waiting", "private": False,
               "taken": 0, "seats": 2}
    lobby.put(pipe, "r1", summary)
    assert pipe.calls[0] == ("hset", K.LOBBY, "r1", pack(summary))
    assert unpack(pipe.calls[0][3]) == summary
    assert sorted(c[1] for c in pipe.calls if c[0] == "zadd") == [
        "cardhall:index:all", "cardhall:index:game:shop", "cardhall:index:waiting",
        "cardhall:index:waiting:shop"]
    pipe.calls.clear()
    lobby.reindex(pipe, "r1", {**summary, "taken": 2})
    assert sorted((c[0], c[1]) for c in pipe.calls) == [
        ("zadd", "cardhall:index:all"), ("zadd", "cardhall:index:game:shop"),
        ("zrem", "cardhall:index:waiting"), ("zrem", "cardhall:index:waiting:shop")]


@pytest.mark.parametrize("reply, cls", [
    ("OWNERSHIP r1 is held by p2#3", OwnershipLost), ("CONFLICT log is 7 long", LogConflict),
    ("ERR wrong number of arguments", None), ("NOSCRIPT No matching script", None),
])
def test_a_scripts_refusal_becomes_its_store_error(reply: str, cls: type | None) -> None:
    """Other error replies are not the store's refusals (None: the caller re-raises)."""
    err = K.refusal(ResponseError(reply))
    assert (type(err) if err is not None else None) is cls
    if err is not None:
        assert str(err) == reply


def test_pack_keeps_bytes_and_unpack_takes_int_keys() -> None:
    """Bytes stay bytes (bin type); a map keyed by seat numbers reads back."""
    data = {"token": b"\x00\xff", "seats": {0: "alice", 1: None}}
    assert unpack(pack(data)) == data  # the stores' one form (store/ports.py)
    assert K.text(b"caf\xc3\xa9") == "café" and K.text("x") == "x"
