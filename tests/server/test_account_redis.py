"""The Redis account store (``server/accounts/account_redis.py``) on what is its own: the key layout
(every key of an account under its ``{acct:ID}`` hash tag, unique keys that hold no user
text but the username), token records that Redis expires with PX and a token set that lives
as long as the longest token, a key released only by the account holding it, accounts shared
by the processes of a lobby (which it notes for bans), and counters shared through Redis.
(tests/server/test_account_store.py runs the account store port over every backend.)"""

from __future__ import annotations

import hashlib
from collections.abc import AsyncIterator

import pytest
from limits.aio.storage import RedisStorage

from cardhall.server.accounts.account_redis import RedisAccounts
from cardhall.server.accounts.account_store import KeyTaken
from cardhall.server.accounts.identity import Account
from cardhall.server.store.redis_store import RedisStore

from ..conftest import RedisProcess


@pytest.fixture
async def two(redis_server: RedisProcess) -> AsyncIterator[tuple[RedisAccounts, RedisAccounts]]:
    """The account stores of two server processes on one (flushed) Redis."""
    redis_server.flush()
    stores = [RedisStore(redis_server.url), RedisStore(redis_server.url)]
    try:
        yield (RedisAccounts(stores[0].redis, stores[0].health),
               RedisAccounts(stores[1].redis, stores[1].health))
    finally:
        for store in stores:
            await store.close()


def _account(i: str, username: str, *keys: tuple[str, str]) -> Account:
    return Account(id=i * 16, username=username, name=username,
                   keys=(("user", username), *keys))


async def test_the_key_layout(two: tuple[RedisAccounts, RedisAccounts]) -> None:
    accounts, _ = two
    ann = _account("a", "ann", ("device", "secret-device-digest"))
    await accounts.create(ann)
    await accounts.put_token(ann.id, "d1", {"kind": "s"}, 60)
    r = accounts.redis
    tag = f"cardhall:{{acct:{ann.id}}}"
    device = hashlib.sha256(b"secret-device-digest").hexdigest()[:32]
    assert sorted(k.decode() for k in await r.keys("*")) == sorted([
        f"{tag}:a", f"{tag}:t:d1", f"{tag}:tokens", "cardhall:key:user:ann",
        f"cardhall:key:device:{device}", "cardhall:accounts"])
    assert await r.get(f"cardhall:key:device:{device}") == ann.id.encode()
    assert await r.zrange("cardhall:accounts", 0, -1) == [f"ann\0{ann.id}".encode()]


async def test_tokens_expire_in_redis_and_their_set_lives_as_long_as_the_longest(
        two: tuple[RedisAccounts, RedisAccounts]) -> None:
    accounts, _ = two
    r = accounts.redis
    tag = "cardhall:{acct:a1}"
    await accounts.put_token("a1", "long", {"kind": "r"}, 600)
    await accounts.put_token("a1", "short", {"kind": "s"}, 60)
    assert 59_000 < await r.pttl(f"{tag}:t:short") <= 60_000
    assert 599_000 < await r.pttl(f"{tag}:t:long") <= 600_000
    assert 599_000 < await r.pttl(f"{tag}:tokens") <= 600_000  # not shortened by "short"
    await accounts.put_token("a1", "longer", {"kind": "r"}, 900)
    assert await r.pttl(f"{tag}:tokens") > 600_000  # lengthened
    assert await accounts.drop_all_tokens("a1") == 3
    assert await r.exists(f"{tag}:tokens", f"{tag}:t:long") == 0


async def test_a_key_is_released_only_by_the_account_holding_it(
        two: tuple[RedisAccounts, RedisAccounts]) -> None:
    accounts, _ = two
    ann = _account("a", "ann", ("name", "ann"))
    await accounts.create(ann)
    with pytest.raises(KeyTaken):  # claims "bob" first, then finds "ann"'s name key taken
        await accounts.create(_account("b", "bob", ("name", "ann")))
    assert await accounts.lookup("user", "bob") is None
    assert await accounts.lookup("name", "ann") == ann.id  # ann's key is left to ann
    assert await accounts.get("b" * 16) is None
    with pytest.raises(KeyTaken) as err:  # the same id twice
        await accounts.create(_account("a", "ann2"))
    assert err.value.kind == "id"
    # A save from a stale record that names ann's key drops it only if bob held it.
    bob = _account("b", "bob")
    await accounts.create(bob)
    await accounts.save(bob, bob.with_(keys=(*bob.keys, ("name", "ann"))))
    assert await accounts.lookup("name", "ann") == ann.id


async def test_the_processes_of_a_lobby_share_accounts_and_are_noted(
        two: tuple[RedisAccounts, RedisAccounts]) -> None:
    one, other = two
    ann = _account("a", "ann")
    await one.create(ann)
    await one.put_token(ann.id, "d1", {"kind": "s"}, 60)
    assert await other.get(ann.id) == ann
    assert await other.get_token(ann.id, "d1") == {"kind": "s"}
    await other.drop_tokens(ann.id, "d1")
    assert await one.get_token(ann.id, "d1") is None
    await one.note_process(ann.id, "p1")
    await other.note_process(ann.id, "p2")
    assert await one.processes(ann.id) == ["p1", "p2"]
    assert 0 < await one.redis.ttl(f"cardhall:{{acct:{ann.id}}}:procs") <= 30 * 86_400
    assert one.shared is True
    assert isinstance(one.limits_storage(), RedisStorage)
