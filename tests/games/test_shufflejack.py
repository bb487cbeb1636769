"""Tests of the ShuffleJack engine (cardhall.games.shufflejack), its bots and renderer."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import pytest
from cardhall.games import (
    GameOver,
    IllegalAction,
    NotYourTurn,
    OptionError,
    SnapshotError,
    UnknownAction,
    bots,
    create,
)
from cardhall.games import (
    cards as C,
)
from cardhall.games import shufflejack as S
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.engine_harness import (
    assert_default_actions,
    assert_refused,
    assert_view_contract,
    cards_in,
    play_out,
)
from tests.engine_profiles import SHUFFLEJACK_KNOWN as KNOWN
from tests.engine_profiles import shufflejack_deck as make_deck

ALL_CODES = C.codes(C.full_deck())


def play(game: S.ShuffleJack, actions: Sequence[Sequence[Any]]) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = []
    for action in actions:
        events.extend(game.apply(0, action))
    return events


def doctor(game: S.ShuffleJack, **changes: Any) -> S.ShuffleJack:
    """A copy of ``game`` with snapshot fields replaced (to set up later positions)."""
    snap = game.snapshot()
    snap.update(changes)
    return S.ShuffleJack.restore(snap)


# -- whole games (random playouts with every check: tests/games/test_game_contract.py) ----------

@pytest.mark.parametrize("strategy", ["random", "greedy"])
def test_a_game_scores_its_rounds(strategy: str) -> None:
    for seed in range(6):
        game = play_out(S.ShuffleJack({"seed": seed}), bots.strategy("shufflejack", strategy),
                        random.Random(seed))
        assert game.outcome()["scores"] == [game.score()]


# -- known values ------------------------------------------------------------------------

def test_known_scores() -> None:
    assert S.advances(15, 7) and not S.advances(7, 7)
    assert S.round_score(10, 2, 3) == 39
    assert [S.bonus(n) for n in (4, 3, 2, 1, 0)] == [0, 2, 3, 4, 0]


def test_blackjack_values() -> None:
    def bj(*codes: str) -> bool:
        return S.is_blackjack([C.parse(c) for c in codes])

    assert bj("AS", "KS") and bj("AS", "AH", "9C") and bj("TC", "JD", "AC")
    assert bj("5S", "6S", "TS") and bj("AS", "AH", "AD", "8C")
    assert not bj("AS", "AH") and not bj("KS", "QS", "2S") and not bj("9S", "9H")


def test_known_hands_in_the_tableau() -> None:
    game = S.ShuffleJack({"deck": KNOWN})
    hands = [a for a in game.legal_actions(0) if a[0] == "hand"]
    assert ("hand", 1, 2) in hands  # A+K
    assert ("hand", 6, 7, 8) in hands  # A+A+9
    assert ("hand", 11, 12, 13) in hands  # 10+J+A
    assert hands == sorted(hands)
    assert game.legal_actions(0)[-1] == ("resign",)
    assert ("deal",) not in game.legal_actions(0)  # the tableau is full
    assert ("next",) not in game.legal_actions(0)  # the deck has cards (J7)
    events = play(game, [("hand", 1, 2)])
    assert events[0]["cards"] == ["AS", "KS"] and game.hands == 1
    assert game.view(0)["tableau"][:2] == [None, None]


@pytest.mark.parametrize("action, message", [
    (("hand", 5, 6), "one row or one column"),  # across two rows
    (("hand", 1, 2, 3, 4, 5, 6), "2 to 5 cards"),
    (("hand", 2, 1), "ascending"),
    (("hand", 1, 3), "not 21"),
    (("hand", 1), "2 to 5 cards"),
    (("deal",), "tableau is full"),
    (("next",), "deck still has"),
])
def test_refused_hands(action: Sequence[Any], message: str) -> None:
    assert_refused(S.ShuffleJack({"deck": KNOWN}), action, IllegalAction, message)


def test_locked_position_refused_while_the_deck_has_cards() -> None:
    game = doctor(S.ShuffleJack({"deck": KNOWN}), locked=[2], round=2)
    assert ("hand", 1, 2) not in game.legal_actions(0)
    assert_refused(game, ("hand", 1, 2), IllegalAction, "locked")
    unlocked = doctor(game, deck=[])  # J6: all unlock once the deck is empty
    assert ("hand", 1, 2) in unlocked.legal_actions(0)
    assert not unlocked.view(0)["locks_active"]
    unlocked.apply(0, ("hand", 1, 2))


def test_empty_empty_positions_refused() -> None:
    game = S.ShuffleJack({"deck": KNOWN})
    play(game, [("hand", 1, 2)])
    with pytest.raises(IllegalAction, match="empty"):
        game.apply(0, ("hand", 1, 6))


def test_consolidation_then_deal() -> None:
    game = S.ShuffleJack({"deck": KNOWN})
    before = game.view(0)["tableau"]
    play(game, [("hand", 1, 2), ("hand", 6, 7, 8)])
    assert ("deal",) in game.legal_actions(0)  # J5: any time
    play(game, [("deal",)])
    after = game.view(0)["tableau"]
    # J4: the last cards fill the first holes (25 -> 1, 24 -> 2, 23 -> 6, 22 -> 7, 21 -> 8),
    # then the deck deals into 21..25 in order.
    assert after[0:2] == [before[24], before[23]]
    assert after[5:8] == [before[22], before[21], before[20]]
    assert after[20:25] == KNOWN[25:30]
    assert game.view(0)["deck"] == 27 - 5


def test_round_end_and_advance() -> None:
    base = S.ShuffleJack({"seed": 3})
    tab = list(base.tableau)
    # Round 3, 10 hands, 2 cards left, deck empty: scores (10 + 3) x 3 = 39 and advances.
    game = doctor(base, round=3, locked=[4, 9], deck=[], hands=10,
                  tableau=[tab[0], tab[1]] + [None] * 23,
                  cashed=[c for c in C.full_deck() if c not in tab[:2]])
    assert ("next",) in game.legal_actions(0)
    events = play(game, [("next",)])
    assert game.round_scores == [39] and game.round == 4 and not game.over
    assert events[0] == {"type": "round_over", "round": 3, "hands": 10, "left": 2,
                         "score": 39, "passed": True}
    assert len(game.locked) == 3 and {4, 9} < set(game.locked)  # J6
    assert game.view(0)["deck"] == 27 and game.hands == 0 and game.cashed == []  # J9


def test_equal_hands_and_cards_left_ends_the_game() -> None:
    base = S.ShuffleJack({"seed": 3})
    tab = list(base.tableau)
    game = doctor(base, deck=[], hands=7, tableau=tab[:7] + [None] * 18,
                  cashed=[c for c in C.full_deck() if c not in tab[:7]])
    play(game, [("next",)])
    assert game.over and game.round_scores == [7]
    assert game.outcome() == {"winner": None, "reason": "round 1 failed: 7 hands, 7 cards left",
                              "scores": [7]}


def test_fifteen_hands_seven_left_continue() -> None:
    base = S.ShuffleJack({"seed": 3})
    tab = list(base.tableau)
    game = doctor(base, deck=[], hands=15, tableau=tab[:7] + [None] * 18,
                  cashed=[c for c in C.full_deck() if c not in tab[:7]])
    play(game, [("next",)])
    assert not game.over and game.round == 2 and game.round_scores == [15]


def test_round_seven_is_the_last() -> None:
    base = S.ShuffleJack({"seed": 3})
    tab = list(base.tableau)
    game = doctor(base, round=7, locked=[1, 2, 3, 4, 5, 6], round_scores=[1] * 6, deck=[],
                  hands=16, tableau=tab[:3] + [None] * 22,
                  cashed=[c for c in C.full_deck() if c not in tab[:3]])
    play(game, [("next",)])
    assert game.over and game.outcome()["winner"] == 0
    assert game.round_scores[-1] == (16 + 2) * 7 and game.score() == 6 + 126
    assert game.stats()["passed"] == 1  # only counts rounds passed in this game object


def test_stuck_round_can_only_end() -> None:
    no_hands = make_deck(["2S", "2H", "2D", "2C", "3S", "3H", "3D", "3C", "4S", "4H",
                          "4D", "4C", "5S", "5H", "5D", "5C", "6S", "6H", "6D", "6C",
                          "7S", "7H", "7D", "7C", "8S"])
    # Low cards only; any hand left over is blocked by locking one of its positions.
    game = S.ShuffleJack({"deck": no_hands})
    shapes = game.hand_shapes()
    if shapes:  # make the position stuck by locking a card of every hand instead
        game = doctor(game, round=7, locked=sorted({s[0] for s in shapes})[:6])
    if game.hand_shapes():
        pytest.skip("could not build a stuck tableau")
    assert game.legal_actions(0) == [("next",), ("resign",)]
    play(game, [("next",)])
    assert game.over and "failed" in game.outcome()["reason"]


# -- property: J8's limits ---------------------------------------------------------------

@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32), picks=st.lists(st.integers(0, 10**6), max_size=400))
def test_no_round_exceeds_18_hands_or_clears_the_deck(seed: int, picks: list[int]) -> None:
    game = S.ShuffleJack({"seed": seed})
    picks_iter = iter(picks)
    while not game.over:
        legal = [a for a in game.legal_actions(0) if a[0] != "resign"]
        hands = [a for a in legal if a[0] == "hand"]
        pool = hands or legal  # favour hands: the property is about long rounds
        action = pool[next(picks_iter, 0) % len(pool)]
        for event in game.apply(0, action):
            if event["type"] == "round_over":
                assert event["hands"] <= 18
                assert event["left"] >= 1
        assert game.hands <= 18 and game.cards_left() >= 1


@given(st.lists(st.sampled_from(C.full_deck()), min_size=2, max_size=5, unique=True))
def test_blackjack_matches_brute_force(cards: list[int]) -> None:
    values = [min(C.rank(c), 10) for c in cards]
    totals = {sum(values)}
    for _ in range(sum(C.rank(c) == 1 for c in cards)):
        totals |= {t + 10 for t in totals}
    assert S.is_blackjack(cards) == (21 in totals)


# -- contract ----------------------------------------------------------------------------

@pytest.mark.parametrize("options, message", [
    ({"rounds": 3}, "unknown option"),
    ({"deck": ALL_CODES[:25]}, "the 52 cards of one deck"),
    ({"deck": ALL_CODES[:51] + ["2C"]}, "duplicates"),
    ({"deck": ALL_CODES[:51] + ["1S"]}, "not a card code"),
    ({"seed": "x"}, "integer"),
])
def test_bad_options(options: dict[str, Any], message: str) -> None:
    with pytest.raises(OptionError, match=message):
        create("shufflejack", options)


def test_same_seed_same_deal() -> None:
    assert S.ShuffleJack({"seed": 9}).snapshot() == S.ShuffleJack({"seed": 9}).snapshot()
    assert S.ShuffleJack({"seed": 9}).view(0)["tableau"] != \
        S.ShuffleJack({"seed": 10}).view(0)["tableau"]
    assert S.ShuffleJack({"deck": ",".join(KNOWN)}).view(0)["tableau"] == KNOWN[:25]


@pytest.mark.parametrize("action, error", [
    (("hand", 0, 1), UnknownAction),
    (("hand", 1, "2"), UnknownAction),
    (("deal", 1), UnknownAction),
    (("fold",), UnknownAction),
    ("deal", UnknownAction),
    (("hand", 1, 3), IllegalAction),
])
def test_illegal_actions_leave_state_unchanged(action: Any, error: type) -> None:
    assert_refused(S.ShuffleJack({"deck": KNOWN}), action, error)


def test_not_your_turn_resign_and_game_over() -> None:
    game = S.ShuffleJack({"seed": 4})
    with pytest.raises(NotYourTurn):
        game.apply(1, ("hand", 1, 2))
    assert game.legal_actions(1) == []
    play(game, [("resign",)])
    assert game.over and game.outcome()["winner"] is None and game.to_act() == []
    with pytest.raises(GameOver):
        game.apply(0, ("deal",))


def test_restore_rejects_garbage() -> None:
    with pytest.raises(SnapshotError):
        S.ShuffleJack.restore({"game": "thirtysix"})
    snap = S.ShuffleJack({"seed": 1}).snapshot()
    snap["tableau"] = snap["tableau"][:3]
    with pytest.raises(SnapshotError):
        S.ShuffleJack.restore(snap)


def test_views() -> None:
    game = S.ShuffleJack({"seed": 987654321, "deck": KNOWN})
    for seat in (0, None):
        view = game.view(seat)
        assert_view_contract(view, 987654321)
        assert cards_in(view) == set(KNOWN[:25])
    assert game.view(None)["legal_actions"] == []


def test_default_action_is_legal_and_never_resigns() -> None:
    assert_default_actions(S.ShuffleJack({"seed": 8}))


def test_bots_sanity() -> None:
    reached = {}
    for name in ("greedy", "random"):
        strat = bots.strategy("shufflejack", name)
        total = 0
        for seed in range(12):
            game = play_out(S.ShuffleJack({"seed": 500 + seed}), strat, random.Random(seed))
            total += game.stats()["rounds"]
        reached[name] = total
    assert reached["greedy"] > reached["random"]


def test_renderer() -> None:
    from cardhall.client.renderers import renderer

    render, describe = renderer("shufflejack")
    game = S.ShuffleJack({"seed": 5})
    steps = 0
    while not game.over and steps < 60:
        view = game.view(0)
        text = render(view, color=False)
        assert "Round" in text and "\x1b[" not in text
        for action in view["legal_actions"][:3]:
            assert describe(action)
        game.apply(0, game.default_action(0))
        steps += 1
    assert describe(("hand", 1, 2)) == "hand at 1 2"
    assert render(game.view(None))
