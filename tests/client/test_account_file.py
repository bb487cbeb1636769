"""Tests of ``cardhall play``'s account file (``cardhall.client.account_file``): per server,
a device secret kept for good, access tokens kept and forgotten, never a password."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest
from cardhall.client.account_file import FORMAT, AccountFile, sign_in_options

A, B = "ws://a:1", "ws://b:2"


def _reply(account: str = "acc1", username: str = "alice", token: str | None = "tok",
           refresh: str | None = "ref", device: str | None = None) -> SimpleNamespace:
    return SimpleNamespace(account=account, username=username, token=token, refresh=refresh,
                           device=device)


def test_the_guest_secret_is_made_once_per_server(tmp_path: Path) -> None:
    """32 random bytes (43 URL-safe characters), the same on the next call and the next
    process; another server gets its own."""
    path = tmp_path / "account.json"
    secret = AccountFile(path).guest_secret(A)
    assert len(secret) == 43
    assert AccountFile(path).guest_secret(A) == secret
    assert AccountFile(path).guest_secret(B) != secret
    data = json.loads(path.read_text())
    assert data["format"] == FORMAT and set(data["servers"]) == {A, B}


def test_tokens_are_kept_from_a_reply_and_forgotten_without_the_secret(tmp_path: Path) -> None:
    """A reply without new tokens keeps the old ones; an anonymous reply changes nothing;
    a logout forgets the session, not the device."""
    file = AccountFile(tmp_path / "account.json")
    secret = file.guest_secret(A)
    file.keep_tokens(A, _reply())
    file.keep_tokens(A, _reply(username="alice2", token=None, refresh=None))
    assert file.get(A) == {"guest": secret, "token": "tok", "refresh": "ref",
                           "account": "acc1", "username": "alice2"}
    file.keep_tokens(A, _reply(account=""))
    assert file.get(A)["account"] == "acc1"
    file.forget_tokens(A)
    assert file.get(A) == {"guest": secret}
    assert file.get(B) == {}


def test_the_remembered_device_token_is_kept_through_a_logout(tmp_path: Path) -> None:
    """Issue #41: a password sign-in's remembered-device token is kept (a reply without one
    keeps the old one); a logout forgets the session, not the device's token."""
    file = AccountFile(tmp_path / "account.json")
    file.keep_tokens(A, _reply(device="chd1.a.b"))
    file.keep_tokens(A, _reply(token=None, refresh=None))
    assert file.get(A)["device"] == "chd1.a.b"
    file.forget_tokens(A)
    assert file.get(A) == {"device": "chd1.a.b"}


def test_only_the_listed_fields_are_kept(tmp_path: Path) -> None:
    """A password (or any other field) is refused before anything is written; what the file
    holds beyond the fields, or not as text, is not read back."""
    path = tmp_path / "account.json"
    file = AccountFile(path)
    with pytest.raises(ValueError, match="not kept: password"):
        file.put(A, token="t", password="hunter2")
    assert not path.exists()
    path.write_text(json.dumps({"format": FORMAT, "servers": {
        A: {"token": "t", "password": "p", "refresh": 5}}}))
    assert file.get(A) == {"token": "t"}


async def test_sign_in_options_without_a_command_use_what_is_kept(tmp_path: Path) -> None:
    """No connection is opened: the kept session and device secret become the Client's
    options, and its ``on_account`` keeps the tokens of later replies."""
    file = AccountFile(tmp_path / "account.json")
    file.put(A, token="old", refresh="oldref")
    options = await sign_in_options(A, file=file)
    assert options["token"] == "old" and options["refresh"] == "oldref"
    assert options["guest"] == file.get(A)["guest"]
    options["on_account"](_reply(token="new", refresh="newref"))
    assert file.get(A)["token"] == "new"
