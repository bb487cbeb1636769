"""Tests of ``cardhall.server.accounts.identity``: what tests/server/test_accounts.py does not cover
(records kept and read back, what operators see, digests and ids, the weak-password error)."""

from __future__ import annotations

import hashlib

import msgpack
import pytest
from cardhall.server.accounts.identity import (
    ACTIVE, BANNED, DEVICE, Account, AuthError, check_password, digest, new_account_id, new_token,
    read_token)

ALICE = Account(id="0123456789abcdef", username="alice", name="Alice", created=1_800_000_000.5,
                guest=False, password="$argon2id$v=19$...", subject="ab" * 32,
                keys=(("user", "alice"), ("name", "alice")))


def test_a_record_round_trips_through_msgpack() -> None:
    """What a store keeps (msgpack) reads back as the very account."""
    record = msgpack.unpackb(msgpack.packb(ALICE.record()))
    assert Account.from_record(record) == ALICE


def test_an_old_record_gets_defaults_and_a_broken_one_is_a_key_error() -> None:
    """Missing optional fields are filled in; ``id``, ``username`` and ``name`` are needed."""
    old = Account.from_record({"id": "x", "username": "bob", "name": "Bob"})
    assert (old.status, old.guest, old.password, old.keys, old.created) == (
        ACTIVE, False, "", (), 0.0)
    with pytest.raises(KeyError):
        Account.from_record({"id": "x", "username": "bob"})


def test_what_an_operator_sees_holds_no_secret() -> None:
    """No password hash, no subject digest, no keys; whole seconds; external when a subject
    is held; banned accounts say so."""
    public = ALICE.with_(status=BANNED).public()
    assert public == {"account": "0123456789abcdef", "username": "alice", "name": "Alice",
                      "created": 1_800_000_000, "status": "banned", "guest": False,
                      "external": True}
    assert ALICE.with_(status=BANNED).banned and not ALICE.banned
    assert not ALICE.with_(subject="").public()["external"]


def test_digests_and_ids_have_their_documented_shapes() -> None:
    """SHA-256 of UTF-8 (lone surrogates too, never a crash); 16 hex digits per id; a token's
    digest is the digest of its secret part."""
    assert digest("é") == hashlib.sha256("é".encode()).hexdigest()
    assert len(digest("\ud800")) == 64
    ids = {new_account_id() for _ in range(50)}
    assert len(ids) == 50 and all(len(i) == 16 and int(i, 16) >= 0 for i in ids)
    token, kept = new_token("s", "0123456789abcdef")
    assert kept == digest(token.rsplit(".", 1)[1]) and kept not in token


def test_a_weak_password_error_names_its_size_in_bytes() -> None:
    """``auth/weak_password``, counting UTF-8 bytes (four é are eight bytes: enough)."""
    check_password("é" * 4)
    with pytest.raises(AuthError) as err:
        check_password("é" * 3)
    assert err.value.code == "auth/weak_password" and "this one has 6" in err.value.message


def test_a_remembered_device_token_reads_back_as_its_own_kind() -> None:
    """Issue #41: ``chd1.`` tokens are the third kind, told apart from access and refresh
    tokens by their prefix."""
    token, kept = new_token(DEVICE, "0123456789abcdef")
    assert token.startswith("chd1.0123456789abcdef.")
    assert read_token(token) == (DEVICE, "0123456789abcdef", kept)
    assert read_token(token.replace("chd1", "chx1")) is None
