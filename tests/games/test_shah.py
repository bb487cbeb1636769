"""Tests of The Shah engine (``cardhall.games.shah``): RULINGS H1-H10."""

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
    create,
)
from cardhall.games import cards as C
from cardhall.games.bots import random_strategy, strategy
from cardhall.games.shah import TheShah, greedy_strategy, pack_cards

from tests.engine_harness import assert_default_actions, assert_refused, play_out


def deck_with(front: Sequence[str]) -> list[str]:
    """A pack order starting with ``front``, then the other pack cards in a fixed order
    chosen so that no two or marriage sits in the next few cards."""
    rest = [C.code(c) for c in sorted(pack_cards(), key=lambda c: (-C.rank(c), c))]
    return list(front) + [c for c in rest if c not in front]


# -- setup ----------------------------------------------------------------------------------


def test_setup_counts() -> None:
    # Outer circle: 9S on ray 0 and 8S1 on ray 1 can marry, so the engine waits there.
    front = ["QC", "QD", "QH", "QS", "QC1", "QD1", "QH1", "QS1",
             "JC", "JD", "JH", "JS", "JC1", "JD1", "JH1", "JS1",
             "9S", "8S1", "TC", "TD", "TH", "TS", "TC1", "TD1"]
    game = TheShah({"deck": deck_with(front)})
    zones = game.card_locations()
    in_play = sum(len(v) for k, v in zones.items() if k not in ("shah", "aside"))
    assert in_play == 96
    assert len(zones["aside"]) == 7 and all(C.rank(c) == C.KING for c in zones["aside"])
    assert zones["shah"] == [C.parse("KS")]
    assert sum(len(v) for k, v in zones.items()) == 104
    assert [C.codes(zones[f"foundation:{f}"]) for f in range(8)] == [
        ["AC"], ["AD"], ["AH"], ["AS"], ["AC1"], ["AD1"], ["AH1"], ["AS1"]]
    assert sum(len(v) for k, v in zones.items() if k.startswith("star:")) == 24
    assert len(zones["stock"]) == 64 and zones["talon"] == [] and zones["up"] == []
    view = game.view(0)
    assert view["phase"] == "play"
    assert view["star"][0] == [["QC"], ["JC"], ["9S"]]
    assert ["marry", "8S1", 0] in view["legal_actions"]
    assert view["stock_count"] == 64


def test_same_seed_same_deal_and_seed_hidden() -> None:
    a, b, c = TheShah({"seed": 7}), TheShah({"seed": 7}), TheShah({"seed": 8})
    assert a.snapshot() == b.snapshot()
    assert a.view(0)["star"] != c.view(0)["star"]
    assert "seed" not in str(a.view(0).keys())
    assert a.view(None)["legal_actions"] == []


@pytest.mark.parametrize("opts, words", [
    ({"deck": ["2C"] * 88}, "duplicates"),
    ({"deck": [C.code(c) for c in pack_cards()][:87]}, "got 87"),
    ({"deck": ["AC"] + [C.code(c) for c in pack_cards()][1:]}, "unexpected"),
    ({"deck": ["XX"] + [C.code(c) for c in pack_cards()][1:]}, "not a card code"),
    ({"max_moves": 0}, ">= 1"),
    ({"grace": True}, "unknown option"),
    ({"seed": "abc"}, "integer"),
])
def test_bad_options(opts: dict[str, Any], words: str) -> None:
    with pytest.raises(OptionError, match=words):
        TheShah(opts)
    with pytest.raises(OptionError):
        TheShah(seats=2)


# -- the deal (H3) ----------------------------------------------------------------------------


def test_deal_plays_are_optional_and_refilled_at_once() -> None:
    deck = deck_with(["2C"])
    game = TheShah({"deck": deck})
    assert game.phase == "deal"
    legal = game.legal_actions(0)
    assert legal == [("play", "2C", 0), ("play", "2C", 4), ("deal",), ("resign",)]
    with pytest.raises(IllegalAction, match="during the deal"):
        game.apply(0, ("marry", "2C", 1))
    game.apply(0, ("play", "2C", 4))
    assert C.codes(game.foundations[4]) == ["AC1", "2C"]
    assert C.codes(game.star[0][0]) == [deck[8]]  # the vacancy took the next pack card
    assert game.phase == "play"  # no more choices: the rest of the deal was forced


# -- availability, marriages and the grace (H2, H4, H6) -------------------------------------


def _lane_game() -> TheShah:
    """Ray 0 holds 2C (inner), 2D (middle), 2H (outer); ray 1's outer card is 3C."""
    front = ["2C", "QC", "QD", "QH", "QS", "QC1", "QD1", "QH1",
             "2D", "JC", "JD", "JH", "JS", "JC1", "JD1", "JH1",
             "2H", "3C", "TC", "TD", "TH", "TS", "TC1", "TD1"]
    game = TheShah({"deck": deck_with(front)})
    game.apply(0, ("deal",))  # 2C is playable in circle 0; deal on
    game.apply(0, ("deal",))  # 2D is playable in circle 1; deal on
    assert game.phase == "play"
    return game


def test_inner_card_may_be_played_but_never_married() -> None:
    game = _lane_game()
    # During the deal 2C was covered: now only the outer 2H of ray 0 is available.
    assert ("play", "2C", 0) not in game.legal_actions(0)
    game.apply(0, ("play", "2H", 2))
    assert ("play", "2D", 1) in game.legal_actions(0)  # middle card released (H4)
    game.apply(0, ("play", "2D", 1))
    legal = game.legal_actions(0)
    assert ("play", "2C", 0) in legal and ("play", "2C", 4) in legal
    assert not [a for a in legal if a[0] == "marry" and a[1] == "2C"]
    assert_refused(game, ("marry", "2C", 1), IllegalAction, "inner circle")
    # the outer 3C would be a fine marriage target for an outer card, but not for 2C
    game.apply(0, ("play", "2C", 0))
    assert C.codes(game.foundations[0]) == ["AC", "2C"]


def test_grace_only_on_a_fully_empty_ray() -> None:
    game = _lane_game()
    game.apply(0, ("play", "2H", 2))
    game.apply(0, ("play", "2D", 1))
    assert not [a for a in game.legal_actions(0) if a[0] == "grace"]
    with pytest.raises(IllegalAction, match="not fully empty"):
        game.apply(0, ("grace", "3C", 0))
    game.apply(0, ("play", "2C", 0))
    graces = [a for a in game.legal_actions(0) if a[0] == "grace"]
    assert ("grace", "3C", 0) in graces and all(a[2] == 0 for a in graces)
    assert len(graces) == 7  # the outer card of each other ray
    with pytest.raises(IllegalAction):
        game.apply(0, ("grace", "QD", 0))  # an inner card of ray 1 is no outer card
    nxt = game.stock[:2]
    game.apply(0, ("grace", "3C", 0))
    assert C.codes(game.star[0][0]) == ["3C"]
    # the talon is empty, so the two places left were refilled from the pack at once
    assert [game.star[0][1], game.star[0][2]] == [[nxt[0]], [nxt[1]]]
    assert game.phase == "play" and game.vacancies() == [(1, 2)]


def test_refill_order_and_no_turn_with_vacancies() -> None:
    game = _lane_game()
    game.apply(0, ("play", "2H", 2))
    game.apply(0, ("play", "2D", 1))
    game.apply(0, ("play", "2C", 0))
    assert game.vacancies() == [(0, 0), (0, 1), (0, 2)]
    with pytest.raises(IllegalAction, match="refill"):
        game.apply(0, ("turn",))
    nxt = game.stock[0]
    game.apply(0, ("fill", "pack"))  # ends the moves; every fill is then forced
    assert game.star[0][0] == [nxt]  # inner circle first (H5)
    assert all(game.star[0])
    assert game.phase == "play"


def test_marriage_and_talon() -> None:
    # outer: 9S on ray 0, 8S1 on ray 1; the marriage is single-card and descending (H1, H7)
    front = ["QC", "QD", "QH", "QS", "QC1", "QD1", "QH1", "QS1",
             "JC", "JD", "JH", "JS", "JC1", "JD1", "JH1", "JS1",
             "9S", "8S1", "TC", "TD", "TH", "TS", "TC1", "TD1"]
    game = TheShah({"deck": deck_with(front)})
    with pytest.raises(IllegalAction, match="one rank higher"):
        game.apply(0, ("marry", "9S", 1))
    nxt = game.stock[0]
    game.apply(0, ("marry", "8S1", 0))
    assert C.codes(game.star[0][2]) == ["9S", "8S1"]
    # no other move was left, so the vacancy was refilled from the pack by itself
    assert game.star[1][2] == [nxt] and game.phase == "play" and not game.vacancies()
    assert game.up is not None  # ... and the next card was turned, also forced
    # one pack card filled the space, the others were turned; all but the last are on the talon
    assert len(game.talon) == game.counters["turned"] - 2
    before = game.up
    assert ("turn",) in game.legal_actions(0)
    game.apply(0, ("turn",))
    assert before in game.talon


# -- winning -------------------------------------------------------------------------------


def test_sorted_pack_is_won_by_the_greedy_bot() -> None:
    order = sorted(pack_cards(), key=lambda c: (C.rank(c), C.deck_of(c), C.suit(c)))
    game = play_out(TheShah({"deck": C.codes(order)}), greedy_strategy, random.Random(0))
    out = game.outcome()
    assert out is not None and out["winner"] == 0 and out["scores"] == [88]
    assert all(C.rank(f[-1]) == C.QUEEN for f in game.foundations)
    with pytest.raises(GameOver):
        game.apply(0, ("resign",))


# -- the contract -----------------------------------------------------------------------------


def test_errors_leave_the_state_alone() -> None:
    game = TheShah({"seed": 3})
    for bad, exc in [(("bogus",), UnknownAction), (("play", "ZZ", 0), UnknownAction),
                     (("fill", "hand"), UnknownAction), ("turn", UnknownAction),
                     (("play", "QH1", 0), IllegalAction), (("marry", "2C", 3), IllegalAction)]:
        assert_refused(game, bad, exc)
    with pytest.raises(NotYourTurn):
        game.apply(1, game.legal_actions(0)[0])
    assert game.legal_actions(1) == []
    game.apply(0, ("resign",))
    assert game.over and game.outcome()["reason"] == "resigned"  # type: ignore[index]
    with pytest.raises(GameOver):
        game.apply(0, ("resign",))
    with pytest.raises(SnapshotError):
        TheShah.restore({"game": "shop"})
    with pytest.raises(SnapshotError):
        TheShah.restore({"game": "shah"})


def test_every_move_counts_as_a_turn() -> None:
    # Replays, snapshots and random playouts: tests/games/test_game_contract.py.
    game = play_out(create("shah", {"seed": 11}), greedy_strategy, random.Random(1))
    assert game.stats()["turns"] == game.state_id


def test_move_limit_ends_the_game() -> None:
    game = play_out(TheShah({"seed": 5, "max_moves": 3}), random_strategy, random.Random(0))
    assert game.state_id <= 3
    assert game.outcome()["reason"] in ("move limit", "no move left")  # type: ignore[index]


def test_default_action_never_resigns() -> None:
    assert_default_actions(TheShah({"seed": 9, "max_moves": 400}))


def test_bot_win_rates_are_sane() -> None:
    deals = 25
    scores = {"random": 0, "greedy": 0}
    wins = 0
    for bot in scores:
        choose = strategy("shah", bot)
        for seed in range(deals):
            game = play_out(TheShah({"seed": 1000 + seed, "max_moves": 600}), choose,
                            random.Random(seed))
            out = game.outcome()
            assert out is not None
            scores[bot] += out["scores"][0]
            wins += bot == "greedy" and out["winner"] == 0
    assert scores["greedy"] > scores["random"]
    assert wins <= deals // 2  # "this patience seldom succeeds"


def test_renderer_draws_views_and_describes_actions() -> None:
    from cardhall.client.renderers import renderer

    render, describe = renderer("shah")
    game = TheShah({"seed": 21})
    rng = random.Random(0)
    for _ in range(30):
        if game.over:
            break
        for seat in (0, None):
            text = render(game.view(seat), color=False)
            assert "THE SHAH" in text and "ray" in text
        assert "\x1b[31m" in render(game.view(0), color=True)
        for action in game.legal_actions(0):
            phrase = describe(action)
            assert phrase and "?" not in phrase
        game.apply(0, greedy_strategy(game.view(0), rng))
    game.apply(0, ("resign",)) if not game.over else None
    assert "Game over" in render(game.view(None), color=False)


def test_forfeit_is_a_loss() -> None:
    game = TheShah({"seed": 1})
    game.forfeit(0)
    assert game.over and game.outcome()["reason"] == "forfeited"  # type: ignore[index]
    with pytest.raises(GameOver):
        game.forfeit(0)
