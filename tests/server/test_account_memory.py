"""Tests of the in-memory account store (``cardhall.server.accounts.account_memory``) on what is its
own: keys claimed all or none, a rename moving the account in the username order, expired
tokens swept out of memory, one process to tell. (tests/server/test_accounts.py runs the
account store port over every backend.)"""

from __future__ import annotations

import pytest
from cardhall.server.accounts import account_memory
from cardhall.server.accounts.account_memory import MemoryAccounts
from cardhall.server.accounts.account_store import KeyTaken
from cardhall.server.accounts.identity import Account
from limits.aio.storage import MemoryStorage


def _account(i: str, username: str, *keys: tuple[str, str]) -> Account:
    return Account(id=i * 16, username=username, name=username,
                   keys=(("user", username), *keys))


async def test_a_create_with_one_key_taken_claims_none_of_its_keys() -> None:
    """All or none: after the refusal the account's other keys are still free."""
    store = MemoryAccounts()
    await store.create(_account("a", "ann", ("device", "d1")))
    with pytest.raises(KeyTaken) as err:
        await store.create(_account("b", "bob", ("name", "bob"), ("device", "d1")))
    assert err.value.kind == "device"
    assert await store.lookup("user", "bob") is None and await store.lookup("name", "bob") is None
    assert await store.get("b" * 16) is None
    with pytest.raises(KeyTaken) as err:
        await store.create(_account("a", "zed"))
    assert err.value.kind == "id"


async def test_a_rename_moves_the_keys_and_the_username_order() -> None:
    """The old username is free for others at once; pages list the new one."""
    store = MemoryAccounts()
    old = _account("a", "ann")
    await store.create(old)
    await store.create(_account("b", "bob"))
    new = old.with_(username="zoe", keys=(("user", "zoe"),))
    await store.save(new, old)
    assert await store.lookup("user", "ann") is None and await store.lookup("user", "zoe")
    assert [a.username for a in await store.page("", 10)] == ["bob", "zoe"]
    await store.create(_account("c", "ann"))
    with pytest.raises(KeyTaken):
        await store.save(new.with_(keys=(("user", "bob"),)), new)
    assert await store.lookup("user", "zoe") == "a" * 16  # the refused save changed nothing


async def test_expired_tokens_are_swept_after_enough_writes(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Tokens nobody reads again do not pile up: every SWEEP_EVERY writes the expired go."""
    now = [1000.0]
    monkeypatch.setattr(account_memory, "SWEEP_EVERY", 4)
    store = MemoryAccounts(clock=lambda: now[0])
    for i in range(3):
        await store.put_token(f"acc{i}", f"d{i}", {"kind": "s"}, 10)
    now[0] += 11
    assert len(store.tokens) == 3
    await store.put_token("fresh", "d9", {"kind": "s"}, 10)  # the 4th write sweeps
    assert set(store.tokens) == {"fresh"}
    assert await store.get_token("fresh", "d9") == {"kind": "s"}


async def test_one_process_counts_alone() -> None:
    """Not shared; sign-in limits count in this process; no other process to tell."""
    store = MemoryAccounts()
    assert store.shared is False and isinstance(store.limits_storage(), MemoryStorage)
    await store.note_process("a", "host:1:x")
    assert await store.processes("a") == []
