"""Tests of the engines' error tree (``cardhall.games.errors``): the codes clients read."""

from __future__ import annotations

import pytest
from cardhall.games import errors as E


@pytest.mark.parametrize("cls, code, parent", [
    (E.GameError, "game/error", Exception),
    (E.OptionError, "options/invalid", E.GameError),
    (E.SnapshotError, "game/bad_snapshot", E.GameError),
    (E.IllegalAction, "action/illegal", E.GameError),
    (E.UnknownAction, "action/unknown", E.IllegalAction),
    (E.GameOver, "action/game_over", E.IllegalAction),
    (E.NotYourTurn, "action/not_your_turn", E.IllegalAction),
])
def test_each_error_has_its_code_and_place_in_the_tree(
        cls: type[E.GameError], code: str, parent: type[Exception]) -> None:
    """The code is a class attribute (readable without an instance) and on each instance; the
    message is both ``message`` and ``str(err)``."""
    assert cls.code == code
    assert cls.__mro__[1] is parent
    err = cls("why not")
    assert (err.code, err.message, str(err)) == (code, "why not", "why not")


def test_codes_are_distinct_and_namespaced() -> None:
    """No two errors share a code, and each code is ``namespace/name``."""
    classes = [E.GameError, E.OptionError, E.SnapshotError, E.IllegalAction, E.UnknownAction,
               E.GameOver, E.NotYourTurn]
    found = [c.code for c in classes]
    assert len(set(found)) == len(found)
    assert all(len(c.split("/")) == 2 and all(c.split("/")) for c in found)
