"""The SQLite account store (``server/accounts/account_sqlite.py``) on what is its own: the rows it
keeps (an account and its keys all or none, expired tokens deleted as new ones come, games
beyond ``keep`` deleted), its clock deciding expiry, accounts surviving a reopened file, and
one process (no other to tell, counters of its own). (tests/server/test_account_store.py
runs the account store port over every backend.)"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from limits.aio.storage import MemoryStorage

from cardhall.server.accounts.account_sqlite import SQLiteAccounts, create_tables, plain
from cardhall.server.accounts.account_store import KeyTaken
from cardhall.server.accounts.identity import Account


def _open(path: Path | str, clock: list[float] | None = None
          ) -> tuple[sqlite3.Connection, SQLiteAccounts]:
    db = sqlite3.connect(path, isolation_level=None)
    if not db.execute("SELECT 1 FROM sqlite_master WHERE name = 'accounts'").fetchone():
        create_tables(db)
    now = clock or [1_000_000.0]
    return db, SQLiteAccounts(*plain(db), clock=lambda: now[0])


def _count(db: sqlite3.Connection, table: str) -> int:
    return int(db.execute(f"SELECT count(*) FROM {table}").fetchone()[0])


def _account(i: str, username: str, *keys: tuple[str, str]) -> Account:
    return Account(id=i * 16, username=username, name=username,
                   keys=(("user", username), *keys))


async def test_an_account_whose_key_is_taken_leaves_no_row() -> None:
    db, accounts = _open(":memory:")
    await accounts.create(_account("a", "ann", ("name", "ann")))
    with pytest.raises(KeyTaken) as err:
        await accounts.create(_account("b", "bob", ("device", "d1"), ("name", "ann")))
    assert err.value.kind == "name"
    assert _count(db, "accounts") == 1 and _count(db, "account_keys") == 2  # ann's only
    assert await accounts.lookup("device", "d1") is None


async def test_tokens_expire_by_the_stores_clock_and_expired_rows_are_deleted() -> None:
    clock = [1_000_000.0]
    db, accounts = _open(":memory:", clock)
    await accounts.put_token("a1", "old", {"kind": "s"}, 10)
    await accounts.put_token("a1", "new", {"kind": "s"}, 100)
    clock[0] += 10  # "old" expires now (its deadline is not after the clock)
    assert await accounts.get_token("a1", "old") is None
    assert await accounts.get_token("a1", "new") == {"kind": "s"}
    assert _count(db, "account_tokens") == 2  # a read deletes nothing
    await accounts.put_token("a2", "other", {"kind": "r"}, 100)
    assert _count(db, "account_tokens") == 2  # the write dropped the expired row
    assert await accounts.drop_all_tokens("a1") == 1


async def test_only_the_newest_games_are_kept_as_rows() -> None:
    db, accounts = _open(":memory:")
    for n in range(5):
        await accounts.add_game("a1", {"room": f"r{n}"}, keep=2)
    await accounts.add_game("a2", {"room": "x"}, keep=2)
    assert _count(db, "account_games") == 3
    games, total = await accounts.games("a1", 0, 10)
    assert total == 2 and [g["room"] for g in games] == ["r4", "r3"]


async def test_accounts_tokens_and_seats_survive_a_reopened_file(tmp_path: Path) -> None:
    db, accounts = _open(tmp_path / "accounts.db")
    ann = _account("a", "ann", ("device", "d1"))
    await accounts.create(ann)
    await accounts.put_token(ann.id, "t1", {"kind": "s"}, 3600)
    await accounts.set_seat(ann.id, "r1", {"seat": 2, "game": "skipper"})
    db.close()
    db, again = _open(tmp_path / "accounts.db")
    assert await again.get(ann.id) == ann
    assert await again.lookup("device", "d1") == ann.id
    assert await again.get_token(ann.id, "t1") == {"kind": "s"}
    assert await again.seats(ann.id) == {"r1": {"seat": 2, "game": "skipper"}}
    db.close()


async def test_one_process_owns_the_file() -> None:
    _, accounts = _open(":memory:")
    assert accounts.shared is False
    await accounts.note_process("a1", "p1")
    assert await accounts.processes("a1") == []
    assert isinstance(accounts.limits_storage(), MemoryStorage)
