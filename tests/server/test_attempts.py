"""Tests of sign-in attempts and remembered devices (``cardhall.server.accounts.attempts``) on each
account store (memory, SQLite, Redis): attempts made at once never pass a limit together,
and a remembered-device token is good for its own account only, once. The same end to end,
over servers: tests/server/test_auth.py."""

from __future__ import annotations

import asyncio


from cardhall.server.accounts.account_store import AccountStore
from cardhall.server.accounts.attempts import DEVICE_SECONDS, Attempts, Devices
from cardhall.server.accounts.identity import ACCESS, new_token, read_token

ALICE, BOB = "0123456789abcdef", "fedcba9876543210"


async def test_attempts_made_at_once_are_counted_before_any_passes(
        accounts: AccountStore) -> None:
    """60 reservations for one account at once: exactly 10 pass (``10/5 minutes``), in the
    store's own ``limits`` storage (Redis: shared by every process); another account and a
    remembered device have budgets of their own, as has each address."""
    attempts = Attempts(accounts.limits_storage(), "10/5 minutes", "3/minute", "1/minute")
    passed = await asyncio.gather(*(attempts.reserve("alice") for _ in range(60)))
    assert passed.count(True) == 10
    assert await attempts.reserve("bob")
    assert await attempts.reserve("alice", device="d" * 64)
    assert [await attempts.from_address("192.0.2.1") for _ in range(4)] == [
        True, True, True, False]
    assert await attempts.from_address("192.0.2.2")
    assert [await attempts.new_guest("192.0.2.1") for _ in range(2)] == [True, False]


async def test_a_remembered_device_token_is_good_for_its_account_once(
        accounts: AccountStore) -> None:
    """A new token checks for its account (its digest comes back), never for another one;
    its replacement voids it; an access token, a mangled one and none are no device token;
    dropping the account's tokens forgets its devices."""
    devices = Devices(accounts)
    token = await devices.remember(ALICE)
    kind, account, kept = read_token(token)  # type: ignore[misc]
    assert (kind, account) == ("d", ALICE) and DEVICE_SECONDS >= 30 * 86_400
    assert await devices.check(token, ALICE) == kept
    assert await devices.check(token, BOB) == ""
    assert await devices.check(token, None) == ""
    assert await devices.check(None, ALICE) == ""
    assert await devices.check(token[:-1] + ("A" if token[-1] != "A" else "B"), ALICE) == ""
    access, digest = new_token(ACCESS, ALICE)
    await accounts.put_token(ALICE, digest, {"kind": ACCESS}, 60)
    assert await devices.check(access, ALICE) == ""
    renewed = await devices.remember(ALICE, forget=kept)
    assert await devices.check(token, ALICE) == ""
    assert await devices.check(renewed, ALICE) != ""
    await accounts.drop_all_tokens(ALICE)
    assert await devices.check(renewed, ALICE) == ""
