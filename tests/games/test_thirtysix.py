"""Tests of the Thirty-Six engine (cardhall.games.thirtysix), its bots and renderer."""

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
from cardhall.games import thirtysix as T

from tests.engine_harness import (
    assert_default_actions,
    assert_refused,
    assert_view_contract,
    cards_in,
    play_out,
)
from tests.engine_profiles import thirtysix_allowed

ALL_CODES = C.codes(C.full_deck())


def make_deck(left: Sequence[str] = (), right: Sequence[str] = (),
              player: Sequence[str] = ()) -> list[str]:
    """A ``deck`` option whose ENEMY stacks and PLAYER stack start with the given cards
    (top first); the rest are filled in card order."""
    used = [*left, *right, *player]
    assert len(set(used)) == len(used)
    rest = iter(c for c in ALL_CODES if c not in used)
    parts = []
    for given, size in ((left, 17), (right, 17), (player, 18)):
        parts.extend([*given, *(next(rest) for _ in range(size - len(given)))])
    assert sorted(parts) == sorted(ALL_CODES)
    return parts


def play(game: T.ThirtySix, actions: Sequence[Sequence[Any]]) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = []
    for action in actions:
        events.extend(game.apply(0, action))
    return events


# -- whole games (random playouts with every check: tests/games/test_game_contract.py) ----------

@pytest.mark.parametrize("options", [{}, {"baltimore": True}, {"short_refill": True}])
@pytest.mark.parametrize("strategy", ["random", "greedy"])
def test_a_game_is_seventeen_turns_scored_by_the_collection(options: dict[str, Any],
                                                            strategy: str) -> None:
    for seed in range(4):
        game = play_out(T.ThirtySix({"seed": seed, **options}),
                        bots.strategy("thirtysix", strategy), random.Random(seed))
        assert game.stats()["turns"] == T.TURNS
        assert game.outcome()["scores"] == [game.score()]


# -- known values ------------------------------------------------------------------------

def test_known_totals() -> None:
    nine_d, three_c = C.parse("9D"), C.parse("3C")
    assert T.enemy_total([nine_d, three_c]) == 12
    assert T.enemy_total([nine_d, three_c], clubs_double=True) == 15
    assert T.player_total([C.parse("5H"), C.parse("KS")], hearts_double=True) == 20
    assert T.count_value(C.parse("AS")) == 1 and T.count_value(C.parse("QD")) == 10
    assert T.collection_score(C.full_deck()) == 72


def test_known_totals_in_game() -> None:
    deck = make_deck(left=["9D"], right=["3C"])
    assert T.ThirtySix({"deck": deck}).view(0)["enemy_total"] == 12
    assert T.ThirtySix({"deck": deck, "clubs_double": True}).view(0)["enemy_total"] == 15
    assert T.ThirtySix({"deck": deck, "baltimore": True}).view(0)["enemy_total"] == 15


def test_meeting_the_total_wins_the_turn() -> None:
    deck = make_deck(left=["9D"], right=["3C"], player=["7S", "5H", "4S", "2S", "3S", "6S"])
    game = T.ThirtySix({"deck": deck})
    play(game, [("commit", "7S", "5H")])  # 12 against 12
    assert game.phase == "take"
    assert game.legal_actions(0) == [("take", "9D"), ("take", "3C"), ("resign",)]
    play(game, [("take", "9D")])
    view = game.view(0)
    assert sorted(view["collection"]) == sorted(["7S", "5H", "9D"])  # RULINGS T3
    assert view["enemy_collection"] == ["3C"]
    assert view["row"][:4] == ["4S", "2S", "3S", "6S"] and len(view["row"]) == 5  # T4: draw 1
    assert view["turn"] == 2


def test_falling_short_loses_the_turn_and_a_row_card() -> None:
    deck = make_deck(left=["9D"], right=["3C"], player=["7S", "4H", "4S", "2S", "3S", "6S"])
    game = T.ThirtySix({"deck": deck})
    play(game, [("commit", "7S", "4H")])  # 11 against 12
    assert game.phase == "surrender"
    # RULINGS T2: any row card, committed or not, may go to the ENEMY.
    assert [a[1] for a in game.legal_actions(0)[:-1]] == ["7S", "4H", "4S", "2S", "3S", "6S"]
    play(game, [("surrender", "2S")])
    view = game.view(0)
    assert sorted(view["collection"]) == ["4H", "7S"]
    assert sorted(view["enemy_collection"]) == ["2S", "3C", "9D"]
    assert view["row"][:3] == ["4S", "3S", "6S"] and len(view["row"]) == 4


def test_losing_a_committed_card_banks_the_others() -> None:
    deck = make_deck(left=["9D"], right=["3C"], player=["7S", "4H", "4S", "2S", "3S", "6S"])
    game = T.ThirtySix({"deck": deck})
    play(game, [("commit", "7S", "4H"), ("surrender", "7S")])
    assert game.view(0)["collection"] == ["4H"]
    assert game.view(0)["row"][:4] == ["4S", "2S", "3S", "6S"]


def test_commit_nothing_concedes_the_turn() -> None:
    game = T.ThirtySix({"deck": make_deck(player=["7S", "4H", "4S", "2S", "3S", "6S"])})
    assert game.legal_actions(0)[0] == ("commit",)  # RULINGS T1
    play(game, [("commit",)])
    assert game.phase == "surrender"


def _at_last_turn(collection: Sequence[str]) -> T.ThirtySix:
    deck = make_deck(left=["KS"], right=["2D"], player=["TS", "2S", "3S", "4S", "5S", "6S"])
    snap = T.ThirtySix({"deck": deck}).snapshot()
    coll = [C.parse(c) for c in collection]
    for key in ("stack",):
        snap[key] = [c for c in snap[key] if c not in coll]
    snap["enemy"] = [[c for c in s if c not in coll] for s in snap["enemy"]]
    snap["collection"] = coll
    snap["turn"] = T.TURNS
    return T.ThirtySix.restore(snap)


THIRTY_THREE = ["AC", "AD", "AH", "JC", "JD", "JH", "QC", "QD", "QH", "KC", "KD", "KH",
                "7C", "7D", "7H", "8C", "8D", "8H"]


def test_37_wins_and_36_loses() -> None:
    assert T.collection_score([C.parse(c) for c in THIRTY_THREE]) == 33
    game = _at_last_turn(THIRTY_THREE)
    play(game, [("commit", "TS", "2S"), ("take", "KS")])  # +1 +1 +2
    assert game.over and game.score() == 37
    assert game.outcome() == {"winner": 0, "reason": "scored 37 points, more than 36",
                              "scores": [37]}
    game = _at_last_turn(THIRTY_THREE)
    play(game, [("commit", "TS", "2S"), ("take", "2D")])  # +1 +1 +1
    assert game.over and game.score() == 36
    assert game.outcome()["winner"] is None
    assert game.view(0)["row"] == ["3S", "4S", "5S", "6S"]  # RULINGS T5: no draw at the end


def test_exactly_17_turns_and_reshuffle() -> None:
    game = T.ThirtySix({"seed": 3})
    reshuffles = 0
    turns = 0
    while not game.over:
        turns += game.phase == "commit"
        if game.phase == "commit":
            action = game.legal_actions(0)[-2]  # commit the whole row
        else:
            action = game.legal_actions(0)[0]
        events = game.apply(0, action)
        reshuffles += sum(e["type"] == "reshuffle" for e in events)
        if any(e["type"] == "reshuffle" for e in events):
            assert game.view(0)["collection"] == []  # the collection became the stack
    assert turns == T.TURNS == game.stats()["turns"]
    assert reshuffles == game.stats()["reshuffles"] >= 1  # 6 cards a turn empty 12 quickly
    assert game.card_locations()["enemy_stack:0"] == []


def test_empty_row_refills_to_six() -> None:
    deck = make_deck(left=["2D"], right=["3D"], player=["7S", "4H", "4S", "2S", "3S", "6S"])
    game = T.ThirtySix({"deck": deck})
    play(game, [("commit", "7S", "4H", "4S", "2S", "3S", "6S"), ("take", "2D")])
    assert len(game.view(0)["row"]) == 6 and game.view(0)["player_stack"] == 6


# -- harder rules ------------------------------------------------------------------------

def test_short_refill() -> None:
    deck = make_deck(left=["2D"], right=["3D"], player=["7S", "4H", "4S", "2S", "3S", "6S"])
    game = T.ThirtySix({"deck": deck, "short_refill": True})
    assert len(game.view(0)["row"]) == 6
    play(game, [("commit", "7S", "4H", "4S", "2S", "3S", "6S"), ("take", "2D")])
    assert len(game.view(0)["row"]) == 3


def test_discard_rightmost() -> None:
    deck = make_deck(left=["9D"], right=["3C"], player=["7S", "4H", "4S", "2S", "3S", "6S"])
    game = T.ThirtySix({"deck": deck, "discard_rightmost": True})
    play(game, [("commit", "7S", "4H")])  # lost: the right-most card goes at once
    assert game.phase == "commit" and "6S" in game.view(0)["enemy_collection"]


def test_ace_wins() -> None:
    deck = make_deck(left=["AD"], right=["2C"], player=["7S", "4H", "4S", "2S", "3S", "6S"])
    game = T.ThirtySix({"deck": deck, "ace_wins": True})
    play(game, [("commit", "7S", "4H", "4S", "2S", "3S", "6S")])
    assert game.phase == "surrender"
    assert T.ThirtySix({"deck": deck}).wins_turn([C.parse("7S")])


def test_beat_faces() -> None:
    deck = make_deck(left=["KD"], right=["2C"], player=["7S", "5H", "4S", "2S", "3S", "6S"])
    game = T.ThirtySix({"deck": deck, "beat_faces": True})
    assert not game.wins_turn([C.parse("7S"), C.parse("5H")])  # 12 only meets 12
    assert game.wins_turn([C.parse("7S"), C.parse("5H"), C.parse("2S")])
    assert T.ThirtySix({"deck": deck}).wins_turn([C.parse("7S"), C.parse("5H")])


# -- Baltimore rules ---------------------------------------------------------------------

def test_baltimore_preset_turns_on_the_five_rules() -> None:
    rules = T.ThirtySix({"seed": 1, "baltimore": True}).view(0)["rules"]
    assert all(rules[r] for r in T.BALTIMORE_RULES)
    assert not any(rules[r] for r in T.HARDER_RULES)


def test_row_of_four() -> None:
    game = T.ThirtySix({"seed": 2, "row_of_four": True})
    assert len(game.view(0)["row"]) == 4 and game.view(0)["player_stack"] == 14


def test_two_clubs_take_the_row() -> None:
    deck = make_deck(left=["9C", "2D"], right=["3C", "3D"],
                     player=["7S", "5H", "4S", "2S", "3S", "6S", "8S", "9S"])
    game = T.ThirtySix({"deck": deck, "two_clubs": True})
    view = game.view(0)
    assert view["turn"] == 2 and view["enemy"] == ["2D", "3D"]
    assert sorted(view["enemy_collection"]) == sorted(["9C", "3C", "7S", "5H", "4S", "2S",
                                                       "3S", "6S"])
    assert view["row"][:2] == ["8S", "9S"] and len(view["row"]) == 6
    assert view["last"]["result"] == "two clubs"


def test_hearts_double_and_surrender_lowest() -> None:
    deck = make_deck(left=["KD"], right=["9C"], player=["9H", "AS", "4S", "AH", "3S", "6S"])
    game = T.ThirtySix({"deck": deck, "hearts_double": True})
    assert game.wins_turn([C.parse("9H"), C.parse("AS")])  # 18 + 1 >= 19
    game = T.ThirtySix({"deck": deck, "surrender_lowest": True})
    play(game, [("commit", "4S")])
    # Both aces count 1: the player chooses between them.
    assert game.legal_actions(0) == [("surrender", "AS"), ("surrender", "AH"), ("resign",)]
    game = T.ThirtySix({"deck": deck, "surrender_lowest": True, "hearts_double": True})
    play(game, [("commit", "4S")])  # AH counts 2 now: AS goes at once
    assert "AS" in game.view(0)["enemy_collection"] and game.phase == "commit"


# -- contract ----------------------------------------------------------------------------

@pytest.mark.parametrize("options, message", [
    ({"colour": True}, "unknown option"),
    ({"deck": ALL_CODES[:51]}, "the 52 cards of one deck"),
    ({"deck": ALL_CODES[:51] + ["AS"]}, "duplicates ['AS']"),
    ({"deck": ALL_CODES[:51] + ["ZZ"]}, "not a card code"),
    ({"deck": ALL_CODES[:51] + ["KS1"]}, "missing ['KS']"),
    ({"baltimore": "maybe"}, "true or false"),
    ({"seed": -1}, ">= 0"),
])
def test_bad_options(options: dict[str, Any], message: str) -> None:
    with pytest.raises(OptionError, match=message.replace("[", r"\[").replace("]", r"\]")):
        create("thirtysix", options)


def test_bad_seat_count() -> None:
    with pytest.raises(OptionError):
        T.ThirtySix({"seed": 1}, seats=2)


def test_same_seed_same_deal_and_deck_string() -> None:
    assert T.ThirtySix({"seed": 9}).snapshot() == T.ThirtySix({"seed": 9}).snapshot()
    assert T.ThirtySix({"seed": 9}).view(0)["row"] != T.ThirtySix({"seed": 10}).view(0)["row"]
    deck = make_deck()
    assert T.ThirtySix({"deck": ",".join(deck)}).view(0)["row"] == deck[34:40]


@pytest.mark.parametrize("action, error", [
    (("commit", "4S", "7S"), IllegalAction),  # out of row order
    (("commit", "KH"), IllegalAction),  # not in the row
    (("take", "9D"), IllegalAction),  # wrong phase
    (("surrender", "7S"), IllegalAction),
    (("play", "7S"), UnknownAction),
    (("commit", "7X"), UnknownAction),
    (("take",), UnknownAction),
    (("resign", 1), UnknownAction),
    ([], UnknownAction),
])
def test_illegal_actions_leave_state_unchanged(action: Sequence[Any], error: type) -> None:
    deck = make_deck(left=["9D"], right=["3C"], player=["7S", "4H", "4S", "2S", "3S", "6S"])
    assert_refused(T.ThirtySix({"deck": deck}), action, error)


def test_not_your_turn_and_game_over() -> None:
    game = T.ThirtySix({"seed": 4})
    assert_refused(game, ("resign",), NotYourTurn, seat=1)
    assert game.legal_actions(1) == []
    game.apply(0, ("resign",))
    assert game.over and game.outcome()["winner"] is None
    assert game.outcome()["reason"].startswith("resigned")
    with pytest.raises(GameOver):
        game.apply(0, ("resign",))
    assert game.legal_actions(0) == [] and game.to_act() == []


def test_restore_rejects_garbage() -> None:
    with pytest.raises(SnapshotError):
        T.ThirtySix.restore({"game": "shufflejack"})
    snap = T.ThirtySix({"seed": 1}).snapshot()
    del snap["row"]
    with pytest.raises(SnapshotError):
        T.ThirtySix.restore(snap)


def test_views_hide_stacks_seed_and_deck() -> None:
    deck = make_deck()
    game = T.ThirtySix({"seed": 123456789, "deck": deck})
    for seat in (0, None):
        view = game.view(seat)
        assert_view_contract(view, 123456789)
        assert cards_in(view) <= thirtysix_allowed(game, seat)
    assert game.view(None)["legal_actions"] == []
    assert game.view(None)["row"] == game.view(0)["row"]


def test_default_action_is_legal_and_never_resigns() -> None:
    assert_default_actions(T.ThirtySix({"seed": 8}))


def test_bots_sanity() -> None:
    greedy, rand = (bots.strategy("thirtysix", n) for n in ("greedy", "random"))
    results = {}
    for name, strat in (("greedy", greedy), ("random", rand)):
        wins = 0
        for seed in range(30):
            game = play_out(T.ThirtySix({"seed": 1000 + seed}), strat, random.Random(seed))
            wins += game.outcome()["winner"] == 0
        results[name] = wins
    assert results["greedy"] >= 20  # "an experienced player wins most of the time"
    assert results["random"] < results["greedy"]


def test_renderer() -> None:
    from cardhall.client.renderers import renderer

    render, describe = renderer("thirtysix")
    game = T.ThirtySix({"seed": 5})
    while not game.over:
        view = game.view(0)
        text = render(view, color=False)
        assert "ENEMY" in text and "row" in text.lower()
        assert "\x1b[" not in text
        for action in view["legal_actions"][:3]:
            assert describe(action)
        game.apply(0, game.default_action(0))
    assert "37" in render(game.view(None)) or "36" in render(game.view(None))
