"""Tests of names people see (``cardhall.server.accounts.names``): what
tests/server/test_accounts.py does not cover (the limits of a username, guests' names, search
prefixes, keys' symmetry)."""

from __future__ import annotations

import pytest
from cardhall.server.accounts import names


def test_username_length_is_counted_after_normalisation() -> None:
    """3 and 32 code points pass; invisible characters do not count towards the minimum."""
    assert names.username("abc") == "abc"
    assert names.username("a" * names.USERNAME_MAX) == "a" * 32
    for bad in ("ab", "a\u200bb", "a" * 33):
        with pytest.raises(names.BadName, match="3 to 32 characters"):
            names.username(bad)


@pytest.mark.parametrize("bad, needle", [
    ("_alice", "begins with a letter or a digit"),
    (".x1", "begins with a letter or a digit"),
    ("al ice", "SPACE"),
    ("al@ice", "COMMERCIAL AT"),
    ("Guest-7QF3K2", "guests'"),
    ("guest-", "guests'"),
])
def test_username_faults_are_bad_names_that_say_why(bad: str, needle: str) -> None:
    """A BadName is a ValueError whose message names the fault (or the character)."""
    with pytest.raises(names.BadName) as err:
        names.username(bad)
    assert isinstance(err.value, ValueError) and needle in str(err.value)


def test_guest_names_are_reserved_and_their_display_names_upper_case() -> None:
    """A guest's username is the one kind no one can register."""
    user, shown = names.guest_names("7qF3k2")
    assert (user, shown) == ("guest-7qf3k2", "Guest-7QF3K2")
    assert names.is_reserved(user) and names.is_reserved(shown)
    assert names.display_name(shown) == shown


def test_username_prefix_normalises_without_checking() -> None:
    """What a search compares: the form a username is kept in, even for a short fragment."""
    assert names.username_prefix(" ＡＬ\u200b ") == "al"
    assert names.username_prefix("_") == "_"


def test_name_keys_ignore_case_width_spaces_and_invisibles() -> None:
    """Two keys, equal sets for names that differ only in what people cannot see."""
    keys = names.name_keys("Zoë  Kay")
    assert names.name_keys(" zoë kay\u00ad ") == keys
    assert names.name_keys("ＺＯË\tKAY") == keys
    assert not names.name_keys("Zoe Kay2") & keys


def test_external_names_are_one_rule_username_and_display_alike() -> None:
    """Issue #41, item 7: an identity provider's account without a free claimed name gets
    ``user-`` and its tag as username and display name alike: a valid username, not a
    guest's, and a valid display name."""
    user, shown = names.external_names("7QF3K2")
    assert (user, shown) == ("user-7qf3k2", "user-7qf3k2")
    assert names.username(user) == user and names.display_name(shown) == shown
    assert not names.is_reserved(shown)
