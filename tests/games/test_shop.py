"""Tests of the Shop Solitaire engine (``cardhall.games.shop``): RULINGS S1-S13."""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
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
from cardhall.games.shop import ShopSolitaire, greedy_strategy

from tests.engine_harness import assert_default_actions, assert_refused, play_out

PLAIN = {"shortcut": False, "shelves": 0}


def deck_with(front: Sequence[str]) -> list[str]:
    """A stock order starting with ``front``, then the other cards suit by suit."""
    rest = [C.code(c) for c in C.full_deck()]
    return list(front) + [c for c in rest if c not in front]


EXAMPLE_CANDLES = ["2H", "JD", "5D", "AD", "9H", "QH", "8D"]
EXAMPLE_TRAYS = [("TH", 0), ("KS", 3), ("7H", 1), ("3S", 4), ("4H", 2), ("5S", 5)]
EXAMPLE_LEDGER = ["2C", "3C", "4C", "5C", "6C", "7C", "8C", "9C", "TC", "JC", "QC", "KC"]


def example_game(after: Sequence[str] = (), **opts: Any) -> ShopSolitaire:
    """The seed's example position minus the ledger: candles lit, scales balanced 21-21."""
    front = EXAMPLE_CANDLES + [c for c, _ in EXAMPLE_TRAYS] + list(after)
    game = ShopSolitaire({**PLAIN, **opts, "deck": deck_with(front)})
    assert [s for s in game.view(0)["candles"]] == [[c] for c in EXAMPLE_CANDLES]
    first = True
    for code, tray in EXAMPLE_TRAYS:
        if not first:
            game.apply(0, ("draw",))
        first = False
        assert game.pending == [C.parse(code)]
        game.apply(0, ("tray", code, tray))
    assert game.balanced() and game.side_sums() == [21, 21]
    return game


# -- known values from the seed --------------------------------------------------------------


def test_seed_example_win() -> None:
    game = example_game(EXAMPLE_LEDGER)
    assert game.view(0)["ledger_suit"] == "C" and game.view(0)["sides"] == ["H", "S"]
    for n in range(12):
        game.apply(0, ("draw",))  # each club goes into the ledger by itself (forced)
        assert len(game.ledger) == n + 1
    out = game.outcome()
    assert out == {"winner": 0, "reason": "ledger filled", "scores": [12]}
    assert sorted(game.view(0)["ledger"]) == sorted(EXAMPLE_LEDGER)
    assert game.to_act() == [] and game.legal_actions(0) == []
    with pytest.raises(GameOver):
        game.apply(0, ("draw",))


def test_ledger_ace_only_puts_out_a_candle() -> None:
    game = example_game(["AC"])
    game.apply(0, ("draw",))
    legal = game.legal_actions(0)
    assert legal == [("candle", "AC", i) for i in range(7)] + [("close_shop",)]
    assert_refused(game, ("ledger", "AC"), IllegalAction, "ace")
    game.apply(0, ("candle", "AC", 3))
    assert not game.is_lit(3)


def test_shelf_value_limit() -> None:
    # Q shelf: a purchase of 5 + 6 = 11 fits, adding an ace (12) does not (RULINGS S12)
    game = ShopSolitaire({"shortcut": False, "shelves": 1,
                          "deck": deck_with(EXAMPLE_CANDLES + ["QS", "5H", "6C", "AS"])})
    assert game.pending == [C.parse("QS")]
    assert ("shelve", "QS", 0) in game.legal_actions(0)
    game.apply(0, ("shelve", "QS", 0))
    game.apply(0, ("draw",))
    game.apply(0, ("purchase", "5H", 0))
    game.apply(0, ("draw",))
    assert ("purchase", "6C", 0) in game.legal_actions(0)
    game.apply(0, ("purchase", "6C", 0))
    game.apply(0, ("draw",))
    legal = game.legal_actions(0)
    assert ("purchase", "AS", 0) not in legal
    assert_refused(game, ("purchase", "AS", 0), IllegalAction, "total 12")
    assert game.view(0)["shelves"] == [{"shelf": "QS", "purchase": ["5H", "6C"]}]
    # play the purchase: the shelf card goes under the stock, the two cards come into play
    game.apply(0, ("tray", "AS", 0))
    game.apply(0, ("play_purchase", 0))
    assert game.stock[-1] == C.parse("QS")
    assert set(game.view(0)["in_play"]) <= {"5H", "6C"}


def test_candle_at_five_must_be_trimmed_first() -> None:
    # five candles of black cards: all unlit; each black card may go on any unlit candle (S2)
    blacks = [C.code(c) for c in C.full_deck() if not C.is_red(c)]
    game = ShopSolitaire({"shortcut": False, "shelves": 0, "candles": 5,
                          "deck": deck_with(blacks[:25] + ["2H"])})
    while game.pending != [C.parse("2H")]:
        game.apply(0, next(a for a in game.legal_actions(0) if a[0] in ("candle", "draw")))
    assert [len(s) for s in game.candles] == [5] * 5
    legal = game.legal_actions(0)
    assert legal == [("trim", i) for i in range(5)] + [("close_shop",)]
    assert_refused(game, ("candle", "2H", 2), IllegalAction, "trim")
    trimmed = list(game.candles[2])
    assert C.codes(trimmed) == [blacks[2]] + blacks[13:17]
    game.apply(0, ("trim", 2))
    assert C.codes(game.candles[2]) == ["2H"]  # the red card started the trimmed candle
    assert game.stock[-5:] == trimmed  # to the bottom of the stock, in order (S7)


def test_placement_order_and_shortest_candle() -> None:
    # S3 (a): the first seven cards start candles; (b) a red card lights the shortest unlit
    front = ["2S", "3S", "4S", "5S", "6S", "7S", "8H", "9C", "TH", "JC", "QH"]
    game = ShopSolitaire({**PLAIN, "deck": deck_with(front)})
    assert game.view(0)["candles"] == [["2S"], ["3S"], ["4S"], ["5S"], ["6S"], ["7S"], ["8H"]]
    # nothing was decided yet: 9C may go on any unlit candle or put out the lit one (S2)
    assert game.pending == [C.parse("9C")]
    assert game.legal_actions(0)[:-1] == [("candle", "9C", i) for i in range(7)]
    game.apply(0, ("candle", "9C", 0))  # then TH is drawn by itself (nothing else to do)
    # TH must light one of the shortest unlit candles: 1..5
    assert game.legal_actions(0)[:-1] == [("candle", "TH", i) for i in range(1, 6)]
    with pytest.raises(IllegalAction, match="S1-S4"):
        game.apply(0, ("candle", "TH", 0))
    with pytest.raises(IllegalAction, match="S1-S4"):
        game.apply(0, ("tray", "TH", 0))


def test_scales_sides_and_other_red_suit() -> None:
    # S4: after a heart starts one side, diamonds go to candles and a black card starts the
    # other side; a club is then the ledger suit and puts out a candle while unbalanced.
    lights = ["2H", "3H", "4H", "5H", "6H", "7H", "8H"]
    game = ShopSolitaire({**PLAIN, "deck": deck_with(lights + ["9H", "9D", "9S", "9C"])})
    assert game.legal_actions(0)[:-1] == [("tray", "9H", j) for j in range(6)]
    game.apply(0, ("tray", "9H", 4))
    assert game.sides == [None, C.HEARTS]
    game.apply(0, ("draw",))
    assert game.legal_actions(0)[:-1] == [("candle", "9D", i) for i in range(7)]
    game.apply(0, ("candle", "9D", 6))
    game.apply(0, ("draw",))
    assert game.legal_actions(0)[:-1] == [("tray", "9S", j) for j in range(3)]
    game.apply(0, ("tray", "9S", 1))
    assert game.view(0)["sides"] == ["S", "H"] and game.view(0)["ledger_suit"] == "C"
    game.apply(0, ("draw",))
    # 9C must put out one of the shortest lit candles (0..5; candle 6 is two tall)
    assert game.legal_actions(0)[:-1] == [("candle", "9C", i) for i in range(6)]
    game.apply(0, ("candle", "9C", 0))
    assert not game.all_lit()
    assert ("recalibrate",) not in game.legal_actions(0)  # S6: only with all candles lit


def test_recalibrate_scraps_the_ledger_and_frees_the_suits() -> None:
    game = example_game(EXAMPLE_LEDGER[:3])
    for _ in range(3):
        game.apply(0, ("draw",))
    assert len(game.ledger) == 3
    n = len(game.stock)
    game.apply(0, ("recalibrate",))
    assert game.ledger == [] and not any(game.trays) and game.sides == [None, None]
    assert len(game.stock) + len(game.pending) == n + 9  # the next draw was forced
    assert game.stats()["best_ledger"] == 3 and game.stats()["recalibrations"] == 1


def test_shortcut_phase() -> None:
    game = ShopSolitaire({"seed": 4})
    legal = game.legal_actions(0)
    assert len([a for a in legal if a[0] == "light"]) == 26
    assert ("no_shortcut",) in legal
    with pytest.raises(IllegalAction, match="black"):
        game.apply(0, ("light", "KS"))
    for code in ["AH", "2H", "3H", "4H", "5H", "6H"]:
        game.apply(0, ("light", code))
        assert ("no_shortcut",) not in game.legal_actions(0)
    game.apply(0, ("light", "7H"))
    assert game.phase == "play" and game.all_lit()
    assert game.view(0)["shortcut_cards"] == []


def test_close_shop_and_move_limit() -> None:
    game = ShopSolitaire({"seed": 2})
    game.apply(0, ("close_shop",))
    out = game.outcome()
    assert out is not None and out["winner"] is None and out["reason"] == "closed shop"
    assert len(game.stock) == 52
    game = ShopSolitaire({"seed": 2, "max_moves": 3})
    for _ in range(3):
        game.apply(0, random_strategy(game.view(0), random.Random(0)))
    assert game.outcome()["reason"] == "move limit"  # type: ignore[index]


@pytest.mark.parametrize("opts, words", [
    ({"deck": ["AS"] * 52}, "duplicates"),
    ({"deck": [C.code(c) for c in C.full_deck()][:51]}, "got 51"),
    ({"deck": ["AS1"] + [C.code(c) for c in C.full_deck()][1:]}, "unexpected"),
    ({"deck": ["11"] + [C.code(c) for c in C.full_deck()][1:]}, "not a card code"),
    ({"candles": 4}, ">= 5"),
    ({"candles": 5, "lit_needed": 6}, "lit_needed"),
    ({"shelves": 5}, "<= 4"),
    ({"shortcut": "maybe"}, "true or false"),
    ({"jokers": 2}, "unknown option"),
])
def test_bad_options(opts: dict[str, Any], words: str) -> None:
    with pytest.raises(OptionError, match=words):
        ShopSolitaire(opts)


# -- the contract ------------------------------------------------------------------------------


def test_errors_leave_the_state_alone() -> None:
    game = ShopSolitaire({"seed": 3, "shortcut": False})
    for bad, exc in [(("bogus",), UnknownAction), (("trim", "x"), UnknownAction),
                     (("candle", "QS3", 0), UnknownAction), ("draw", UnknownAction),
                     (("trim", 0), IllegalAction), (("scrap",), IllegalAction),
                     (("light", "AH"), IllegalAction), (("play_shelf", 0), IllegalAction)]:
        assert_refused(game, bad, exc)
    with pytest.raises(NotYourTurn):
        game.apply(1, ("close_shop",))
    with pytest.raises(SnapshotError):
        ShopSolitaire.restore({"game": "shah"})
    with pytest.raises(SnapshotError):
        ShopSolitaire.restore({"game": "shop"})


def test_same_seed_same_deal_and_every_move_counts_as_a_turn() -> None:
    # Replays, snapshots and random playouts: tests/games/test_game_contract.py.
    assert ShopSolitaire({"seed": 5}).snapshot() == ShopSolitaire({"seed": 5}).snapshot()
    game = play_out(create("shop", {"seed": 12, "max_moves": 400}), greedy_strategy,
                    random.Random(3))
    assert game.stats()["turns"] == game.state_id


def test_default_action_never_closes_shop() -> None:
    assert_default_actions(ShopSolitaire({"seed": 8, "max_moves": 300}), "close_shop")


def test_bot_sanity() -> None:
    deals = 12
    best = {"random": 0, "greedy": 0}
    for bot in best:
        choose = strategy("shop", bot)
        for seed in range(deals):
            game = play_out(ShopSolitaire({"seed": 500 + seed, "max_moves": 500}), choose,
                            random.Random(seed))
            assert game.outcome() is not None
            best[bot] += game.stats()["best_ledger"]
    assert best["greedy"] > best["random"]


def test_renderer_draws_views_and_describes_actions() -> None:
    from cardhall.client.renderers import renderer

    render, describe = renderer("shop")
    game = ShopSolitaire({"seed": 21})
    rng = random.Random(0)
    for _ in range(60):
        for seat in (0, None):
            text = render(game.view(seat), color=False)
            assert "Candles" in text and "Scales" in text and "Ledger" in text
        for action in game.legal_actions(0):
            phrase = describe(action)
            assert phrase and "?" not in phrase
        game.apply(0, greedy_strategy(game.view(0), rng))
    game.apply(0, ("close_shop",))
    assert "Game over" in render(game.view(None), color=False)
    assert describe(("light", "QH")) == "light a candle with Q\u2665 (short-cut)"


def test_forfeit_is_a_loss() -> None:
    game = ShopSolitaire({"seed": 1})
    with pytest.raises(NotYourTurn):
        game.forfeit(1)
    game.forfeit(0)
    assert game.outcome()["reason"] == "forfeited"  # type: ignore[index]
    with pytest.raises(GameOver):
        game.forfeit(0)


# -- the greedy bot (issue #21) ---------------------------------------------------------------

def _greedy_positions(seeds: Iterable[int]) -> Iterable[ShopSolitaire]:
    """Every position the greedy bot meets while playing the deals of ``seeds``."""
    for seed in seeds:
        game = ShopSolitaire({"seed": seed})
        rng = random.Random(seed)
        while not game.over:
            yield game
            game.apply(0, greedy_strategy(game.view(0), rng))


def test_greedy_is_view_only_deterministic_and_legal() -> None:
    # Shuffling the hidden stock leaves the view, and so the bot's choice, unchanged; the
    # choice is one of the legal actions and does not depend on the rng's state.
    shuffler = random.Random(1)
    for n, game in enumerate(_greedy_positions(range(3))):
        view = game.view(0)
        action = greedy_strategy(view, random.Random(0))
        assert action in game.legal_actions(0)
        assert greedy_strategy(view, random.Random(99)) == action
        if n % 7 or len(game.stock) < 2:
            continue
        data = game.snapshot()
        while data["stock"] == game.snapshot()["stock"]:
            shuffler.shuffle(data["stock"])
        twin = ShopSolitaire.restore(data)
        assert twin.view(0) == view
        assert greedy_strategy(twin.view(0), random.Random(0)) == action


def test_greedy_wins_a_real_share_of_deals() -> None:
    # Issue #21: the old bot won 2 of seeds 0..99 and none of 0..59 (it never trimmed the
    # candles that held the cards the scales or the ledger waited for). The new one wins 9 of
    # seeds 0..59 (41 of 0..299); the bar leaves room for small heuristic changes.
    wins = [seed for seed in range(60)
            if play_shop_greedy(seed).outcome()["winner"] == 0]  # type: ignore[index]
    assert len(wins) >= 6, wins


def test_greedy_trims_the_candle_holding_the_card_the_scales_wait_for() -> None:
    # Issue #21: the scales are one short and the only card that balances them lies in a
    # tall lit candle; the stock holds nothing that helps. The old bot drew on (and would have
    # recalibrated); the new one trims that candle so the card comes back.
    game = _position_waiting_for_a_candle_card()
    view = game.view(0)
    assert not view["balanced"] and ("draw",) in game.legal_actions(0)
    assert greedy_strategy(view, random.Random(0)) == ("trim", 2)


def play_shop_greedy(seed: int) -> ShopSolitaire:
    """The deal of ``seed`` played to its end by the greedy bot."""
    game = ShopSolitaire({"seed": seed})
    rng = random.Random(seed)
    while not game.over:
        game.apply(0, greedy_strategy(game.view(0), rng))
    return game


def _position_waiting_for_a_candle_card() -> ShopSolitaire:
    """All candles lit; diamonds (left) weigh 13 against spades (right) 14 (tops ``4D AD 8D``
    against ``5S 2S 7S``); the ledger suit is clubs. Every other diamond and spade lies under
    the tray tops, except ``9D`` (it balances the scales on ``8D``), in candle 2 under three
    hearts; the stock holds only clubs and hearts."""
    data = ShopSolitaire({"seed": 0}).snapshot()
    candles = [["AH", "2H"], ["3H", "4H"], ["9D", "5H", "6H", "7H"], ["8H"], ["9H"],
               ["TH"], ["JH"]]
    tops = ["4D", "AD", "8D", "5S", "2S", "7S"]
    under = {C.code(c) for c in C.full_deck()
             if C.suit(c) in (C.DIAMONDS, C.SPADES)} - set(tops) - {"9D"}
    trays = [[t] for t in tops]
    trays[0] = sorted(c for c in under if c[1] == "D") + trays[0]
    trays[3] = sorted(c for c in under if c[1] == "S") + trays[3]
    used = {c for s in candles + trays for c in s}
    stock = [c for c in C.full_deck() if C.code(c) not in used]
    assert all(C.suit(c) in (C.CLUBS, C.HEARTS) for c in stock)
    data.update({"phase": "play", "stock": stock,
                 "candles": [[C.parse(c) for c in s] for s in candles],
                 "trays": [[C.parse(c) for c in t] for t in trays],
                 "sides": [C.DIAMONDS, C.SPADES], "ledger": [], "shelf": [None],
                 "purchase": [[]], "pending": [], "source": None})
    return ShopSolitaire.restore(data)
