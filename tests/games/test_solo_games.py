"""What every solo game shares (``SoloGame``): seat 0 only, a quit verb at every point, and a
forfeit that ends the game as a loss and replays from the log."""

from __future__ import annotations

import pytest

from cardhall.games import GameOver, NotYourTurn, UnknownAction, create, get
from cardhall.games.solo import SoloGame
from cardhall.games import replay

SOLO = ["shop", "shah", "thirtysix", "shufflejack"]


@pytest.mark.parametrize("name", SOLO)
def test_forfeit_ends_the_game_and_replays(name: str) -> None:
    game = create(name, {"seed": 11})
    assert isinstance(game, SoloGame)
    first = game.legal_actions(0)[0]
    game.apply(0, first)
    before = game.state_id
    events = game.forfeit(0)
    assert game.over and game.state_id == before + 1 and events
    assert game.outcome() is not None and game.outcome()["winner"] is None
    with pytest.raises(GameOver):
        game.forfeit(0)
    # A room's log holds the forfeit as ["f", 0, None]: it replays to the same state.
    again = replay(get(name), game.options, 1, [["a", 0, list(first)], ["f", 0, None]])
    assert again.snapshot() == game.snapshot()


@pytest.mark.parametrize("name", SOLO)
def test_bad_seats_and_verbs_are_refused_alike(name: str) -> None:
    game = create(name, {"seed": 11})
    action = game.legal_actions(0)[0]
    for seat in (1, False, -1):
        assert game.legal_actions(seat) == [] and game.default_action(seat) is None
        with pytest.raises(NotYourTurn):
            game.apply(seat, action)
        with pytest.raises(NotYourTurn):
            game.forfeit(seat)
    with pytest.raises(UnknownAction):
        game.apply(0, [["a list is no verb"]])
    assert game.state_id == 0 and not game.over
