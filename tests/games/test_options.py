"""Tests of the declarative game options (``cardhall.games.options``)."""

from __future__ import annotations

from typing import Any

import pytest
from cardhall.games.errors import OptionError
from cardhall.games.options import SEED, Option, parse_kv, parse_options, shown

SPEC = [
    Option("fast", bool, False, "Play fast."),
    Option("hand", int, 5, "Hand size.", min=1, max=10),
    Option("limit", float, None, "Seconds a turn.", min=0.5),
    Option("style", str, "a", "Style.", choices=("a", "b")),
    Option("deck", list, None, "Cards."),
]


@pytest.mark.parametrize("name, raw, want", [
    ("fast", "ON", True), ("fast", "0", False), ("fast", True, True),
    ("hand", "7", 7), ("hand", 10, 10),
    ("limit", "2.5", 2.5), ("limit", 3, 3.0),
    ("deck", "AS, 2S", ["AS", "2S"]), ("deck", "AS,2S;AH", [["AS", "2S"], ["AH"]]),
    ("deck", ("AS", ("2S",)), ["AS", ["2S"]]),
    ("style", None, None),
])
def test_coerce_takes_strings_for_every_kind(name: str, raw: Any, want: Any) -> None:
    """Command-line strings and native values both give the option's kind."""
    option = next(o for o in SPEC if o.name == name)
    got = option.coerce(raw)
    assert got == want and type(got) is type(want)


@pytest.mark.parametrize("name, raw, needle", [
    ("fast", "maybe", "true or false"), ("fast", 1, "true or false"),
    ("hand", True, "an integer"), ("hand", "7.0", "an integer"), ("hand", 0, ">= 1"),
    ("hand", 11, "<= 10"), ("limit", "nan", "finite"), ("limit", float("inf"), "finite"),
    ("limit", 0.1, ">= 0.5"), ("style", "c", "one of 'a', 'b'"), ("style", 3, "a string"),
    ("deck", 5, "a list"),
])
def test_coerce_refuses_a_wrong_kind_or_range(name: str, raw: Any, needle: str) -> None:
    """Each fault is an OptionError naming the option and what it must be."""
    option = next(o for o in SPEC if o.name == name)
    with pytest.raises(OptionError) as err:
        option.coerce(raw)
    assert f"option {name!r}" in str(err.value) and needle in str(err.value)


def test_parse_options_fills_defaults_and_refuses_unknown_names() -> None:
    """Every option comes back; unknown names are listed (five at most) with the known ones."""
    assert parse_options(SPEC, {"hand": "3"}) == {"fast": False, "hand": 3, "limit": None,
                                                 "style": "a", "deck": None}
    assert parse_options(SPEC, None)["hand"] == 5
    with pytest.raises(OptionError) as err:
        parse_options(SPEC, {f"x{i}": 1 for i in range(7)})
    assert "and more" in str(err.value) and "known: deck, fast" in str(err.value)


def test_describe_names_the_kind_and_only_the_bounds_it_has() -> None:
    """The ``games`` reply's shape of an option."""
    assert SPEC[1].describe() == {"name": "hand", "kind": "int", "default": 5,
                                  "doc": "Hand size.", "min": 1, "max": 10}
    assert SPEC[3].describe()["choices"] == ["a", "b"]
    assert set(SPEC[0].describe()) == {"name", "kind", "default", "doc"}
    assert SEED.coerce("42") == 42
    with pytest.raises(OptionError):
        SEED.coerce(-1)


def test_an_int_options_limits_stay_ints_on_either_build() -> None:
    """An int's bounds are ints in the ``games`` reply (clients print them: ``int 0..5``, not
    ``0.0..5.0``) and exact: the seed's largest is 2**63 - 1, not 2**63 (a float field of a
    compiled class held them as C doubles)."""
    described = SPEC[1].describe()
    assert [type(described[k]) for k in ("min", "max")] == [int, int]
    assert type(SPEC[2].describe()["min"]) is float
    assert SEED.describe()["max"] == 2**63 - 1 and type(SEED.max) is int
    assert SEED.coerce(2**63 - 1) == 2**63 - 1
    with pytest.raises(OptionError, match="<= 9223372036854775807"):
        SEED.coerce(2**63)


def test_shown_clips_a_long_value_and_parse_kv_splits_pairs() -> None:
    """An echoed value stays short; ``k=v`` strings need an ``=`` and a key."""
    assert len(shown("x" * 2000)) <= 64
    assert parse_kv([" a = 1 ", "b=x=y", "c="]) == {"a": "1", "b": "x=y", "c": ""}
    for bad in ("novalue", "=1"):
        with pytest.raises(OptionError, match="expected key=value"):
            parse_kv([bad])
