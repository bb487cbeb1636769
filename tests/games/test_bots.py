"""Tests of the shared bot strategies and their registry (``cardhall.games.bots``)."""

from __future__ import annotations

import importlib
import random
from pathlib import Path

import pytest
from cardhall.games import MODULES, create, names
from cardhall.games.bots import load_strategy, random_strategy, strategy, view_legal_actions
from cardhall.games.errors import OptionError


def test_legal_actions_come_as_tuples_in_the_views_order() -> None:
    """A view with none is a ValueError: the seat may not act now."""
    assert view_legal_actions({"legal_actions": [["play", "5D"], ("draw",)]}) == [
        ("play", "5D"), ("draw",)]
    with pytest.raises(ValueError, match="no legal action"):
        view_legal_actions({"legal_actions": []})


def test_random_play_never_concedes_while_anything_else_is_legal() -> None:
    """Over many draws every other action comes up and no conceding one (CONCEDE_VERBS);
    alone, it is chosen; the same rng seed chooses the same."""
    view = {"legal_actions": [["resign"], ["draw"], ["concede"], ["play", "AS"],
                              ["close_shop"]]}
    picks = {random_strategy(view, random.Random(i)) for i in range(200)}
    assert picks == {("draw",), ("play", "AS")}
    assert random_strategy({"legal_actions": [["resign"]]}, random.Random(0)) == ("resign",)
    assert random_strategy(view, random.Random(9)) == random_strategy(view, random.Random(9))


@pytest.mark.parametrize("game", names())
def test_every_strategy_of_every_game_picks_a_legal_action(game: str) -> None:
    """``random`` exists for each game, beside the game's own table."""
    g = create(game, {"seed": 3})
    seat = g.to_act()[0]
    view = g.bot_view(seat)
    legal = view_legal_actions(view)
    table = getattr(importlib.import_module(f"cardhall.games.{MODULES[game]}"), "STRATEGIES", {})
    for name in {"random", *table}:
        assert tuple(strategy(game, name)(view, random.Random(1))) in legal, name


def test_an_unknown_strategy_names_the_known_ones() -> None:
    """OptionError listing what the game has."""
    with pytest.raises(OptionError, match=r"no strategy 'clever' for shop; known: .*random"):
        strategy("shop", "clever")


def test_a_users_strategy_loads_from_a_file_or_a_module(tmp_path: Path) -> None:
    """``file.py:function`` and ``module:function``; ``strategy`` hands a spec with a colon
    to the loader."""
    bot = tmp_path / "mybot.py"
    bot.write_text("def first(view, rng):\n    return view['legal_actions'][0]\n")
    choose = strategy("shop", f"{bot}:first")
    assert choose({"legal_actions": [["x"], ["y"]]}, random.Random(0)) == ["x"]
    assert load_strategy("random:choice") is random.choice


@pytest.mark.parametrize("spec, needle", [
    ("nocolon", "expected module:function"), ("mod:", "expected module:function"),
    ("/no/such/file.py:f", "cannot load /no/such/file.py: FileNotFoundError"),
    ("no_such_module_xyz:f", "ModuleNotFoundError"),
    ("random:not_there", "has no function 'not_there'"),
    ("random:BPF", "has no function 'BPF'"),
])
def test_a_users_strategy_that_cannot_load_is_an_option_error(spec: str, needle: str) -> None:
    """Any failure of the user's module is reported, never raised as it is."""
    with pytest.raises(OptionError) as err:
        load_strategy(spec)
    assert needle in str(err.value)


def test_a_file_that_fails_on_import_is_reported(tmp_path: Path) -> None:
    """The user's own exception, by name, in an OptionError."""
    bad = tmp_path / "broken.py"
    bad.write_text("raise RuntimeError('oops')\n")
    with pytest.raises(OptionError, match="RuntimeError: oops"):
        load_strategy(f"{bad}:f")
