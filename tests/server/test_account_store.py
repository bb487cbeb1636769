"""The account store port (``server/accounts/account_store.py``) on each backend: memory, Redis and
SQLite run the same tests (keys held by one account, paging by username, tokens that expire
and are dropped, the history of games and seats). What is a backend's own:
tests/server/test_account_memory.py, test_account_redis.py, test_account_sqlite.py."""

from __future__ import annotations

import asyncio
import itertools
from typing import Any

import pytest

from cardhall.server.accounts import names
from cardhall.server.accounts.account_store import AccountStore, KeyTaken
from cardhall.server.history import Ledger
from cardhall.server.accounts.identity import Account

_ids = itertools.count()


def account(username: str, name: str | None = None, **kw: Any) -> Account:
    keys = (("user", username), *(("name", k) for k in sorted(names.name_keys(name or
                                                                             username))))
    return Account(id=f"{next(_ids):016x}", username=username, name=name or username,
                   keys=kw.pop("keys", keys), **kw)


async def test_keys_are_held_by_one_account(accounts: AccountStore) -> None:
    alice = account("alice", "Alice")
    await accounts.create(alice)
    assert await accounts.get(alice.id) == alice
    assert await accounts.lookup("user", "alice") == alice.id
    twin = account("alice2", "ALICE")  # its name's key is alice's
    with pytest.raises(KeyTaken) as err:
        await accounts.create(twin)
    assert err.value.kind == "name"
    assert await accounts.get(twin.id) is None  # nothing kept
    assert await accounts.lookup("user", "alice2") is None  # its username released
    renamed = alice.with_(name="Al", keys=(("user", "alice"), ("name", "al"),
                                           ("name", "alice")))
    await accounts.save(renamed, alice)
    bob = account("bob")
    await accounts.create(bob)
    with pytest.raises(KeyTaken):
        await accounts.save(bob.with_(keys=(*bob.keys, ("name", "al"))), bob)
    assert await accounts.get(bob.id) == bob  # unchanged
    assert await accounts.get_many([bob.id, "nobody", alice.id]) == [bob, None, renamed]
    upgraded = renamed.with_(username="alicia", keys=(("user", "alicia"), ("name", "al")))
    await accounts.save(upgraded, renamed)
    assert await accounts.lookup("user", "alice") is None
    assert await accounts.lookup("name", "alice") is None
    assert await accounts.lookup("user", "alicia") == alice.id


async def test_accounts_page_by_username(accounts: AccountStore) -> None:
    for username in ("carol", "ann", "bob", "anna", "annie"):
        await accounts.create(account(username))
    assert [a.username for a in await accounts.page("", 10)] == [
        "ann", "anna", "annie", "bob", "carol"]
    assert [a.username for a in await accounts.page("", 2)] == ["ann", "anna"]
    assert [a.username for a in await accounts.page("anna", 2)] == ["annie", "bob"]
    assert [a.username for a in await accounts.page("", 10, "ann")] == ["ann", "anna", "annie"]
    assert [a.username for a in await accounts.page("ann", 10, "ann")] == ["anna", "annie"]
    assert await accounts.page("", 10, "z") == []


async def test_tokens_expire_and_are_dropped(accounts: AccountStore) -> None:
    await accounts.put_token("a1", "d1", {"kind": "s", "pair": "d2"}, 30)
    await accounts.put_token("a1", "d2", {"kind": "r", "pair": "d1"}, 30)
    await accounts.put_token("a1", "short", {"kind": "s"}, 0.2)
    assert await accounts.get_token("a1", "d1") == {"kind": "s", "pair": "d2"}
    assert await accounts.get_token("a2", "d1") is None
    await asyncio.sleep(0.4)
    assert await accounts.get_token("a1", "short") is None
    await accounts.drop_tokens("a1", "d1")
    assert await accounts.get_token("a1", "d1") is None
    assert await accounts.get_token("a1", "d2") is not None
    await accounts.put_token("a1", "d3", {"kind": "s"}, 30)
    assert await accounts.drop_all_tokens("a1") >= 2
    assert await accounts.get_token("a1", "d2") is None
    assert await accounts.get_token("a1", "d3") is None


async def test_history_keeps_the_newest_games_and_the_seats(accounts: AccountStore) -> None:
    ledger = Ledger(accounts, keep=3)
    ledger.seated("a1", "r1", 2, "skipper", "multi")
    ledger.seated("", "r1", 0, "skipper", "multi")  # no account: nothing kept
    await ledger.flush()
    assert list(await accounts.seats("a1")) == ["r1"]
    for n in range(5):
        ledger.finished(f"r{n}", f"Room {n}", "skipper", "multi", ["", "a1"],
                        {"winner": 1, "reason": "won", "scores": [3, 9]})
    await ledger.flush()
    games, total = await accounts.games("a1", 0, 10)
    assert total == 3 and [g["room"] for g in games] == ["r4", "r3", "r2"]
    assert games[0] == {"room": "r4", "seat": 1, "seats": 2, "name": "Room 4",
                        "game": "skipper", "mode": "multi", "finished": games[0]["finished"],
                        "result": "won", "score": 9}
    assert await accounts.seats("a1") == {}  # r1 finished: the seat is gone
    assert (await accounts.games("a1", 2, 5)) == (games[2:], 3)
