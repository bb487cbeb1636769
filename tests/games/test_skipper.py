"""Skipper engine: the seed's and RULINGS' worked examples, options, the setting and the
samples of a seat's view (random playouts of the whole contract:
tests/games/test_game_contract.py)."""

from __future__ import annotations

import random
from typing import Any

import msgpack
import pytest

from cardhall.games import (
    GameOver,
    IllegalAction,
    NotYourTurn,
    OptionError,
    SnapshotError,
    LogEntry,
    UnknownAction,
    create,
    replay,
)
from cardhall.games import cards as C
from cardhall.games.bots import strategy
from cardhall.games.skipper import Skipper

ALL = [C.code(c) for c in range(52)]


def deck(first: list[str], *, aces: bool = False) -> list[str]:
    """A full stock order starting with ``first``, the rest in a fixed order."""
    rest = [c for c in ALL if c not in first and (aces or c[0] != "A")]
    return first + rest


def solo(first: list[str], **opts: Any) -> Skipper:
    game = create("skipper", {"mode": "solo", "seed": 1,
                              "deck": deck(first, aces=opts.get("no_aces_out", False)),
                              **opts}, 1)
    assert isinstance(game, Skipper)
    return game


def stack_values(game: Skipper, seat: int, suit: str) -> list[int]:
    return game.view(seat)["seats"][seat]["stacks"]["CDHS".index(suit)]["values"]


def plays(game: Skipper, seat: int = 0) -> set[tuple[str, str]]:
    return {(a[1], a[2]) for a in game.legal_actions(seat) if a[0] == "play"}


# -- the seed's and RULINGS' worked examples (K1-K3) ------------------------------------------


def test_five_of_diamonds_goes_on_four_of_diamonds_not_four_of_spades() -> None:
    g = solo(["2D", "3D", "4D", "2S", "3S", "4S", "5D"])
    for card, stack in [("2D", "D"), ("3D", "D"), ("4D", "D"), ("2S", "S"), ("3S", "S")]:
        g.apply(0, ("play", card, stack))
    g.apply(0, ("end",))
    g.apply(0, ("play", "4S", "S"))
    assert stack_values(g, 0, "D") == [4] and stack_values(g, 0, "S") == [4]
    assert ("5D", "D") in plays(g)
    assert ("5D", "S") not in plays(g)
    before = g.snapshot()
    with pytest.raises(IllegalAction, match="not a S card"):
        g.apply(0, ("play", "5D", "S"))
    assert g.snapshot() == before
    g.apply(0, ("play", "5D", "D"))
    assert stack_values(g, 0, "D") == [5]


def test_queen_on_five_of_spades_lets_seven_follow_not_six() -> None:
    g = solo(["2S", "3S", "4S", "5S", "QD", "6S", "7S"])
    for card in ["2S", "3S", "4S", "5S"]:
        g.apply(0, ("play", card, "S"))
    g.apply(0, ("play", "QD", "S"))
    assert stack_values(g, 0, "S") == [6]
    g.apply(0, ("end",))
    assert ("7S", "S") in plays(g)
    assert ("6S", "S") not in plays(g)
    with pytest.raises(IllegalAction):
        g.apply(0, ("play", "6S", "S"))


def test_king_on_ace_lets_three_or_four_follow_not_two() -> None:
    g = solo(["KH", "2S", "3S", "4S", "9C"])
    g.apply(0, ("play", "KH", "S"))
    assert stack_values(g, 0, "S") == [2, 3]
    assert ("3S", "S") in plays(g) and ("4S", "S") in plays(g)
    assert ("2S", "S") not in plays(g)
    g.apply(0, ("play", "4S", "S"))
    assert stack_values(g, 0, "S") == [4]


def test_king_then_queen_on_ace_lets_four_or_five_follow() -> None:
    g = solo(["KH", "QC", "4S", "5S", "3S"])
    g.apply(0, ("play", "KH", "S"))
    g.apply(0, ("play", "QC", "S"))
    assert stack_values(g, 0, "S") == [3, 4]
    assert {("4S", "S"), ("5S", "S")} <= plays(g)
    assert ("3S", "S") not in plays(g)


def test_king_skips_one_or_two_never_zero_and_queen_exactly_one() -> None:
    g = solo(["KH", "2S", "QD", "9C", "9D"])
    assert ("2S", "S") in plays(g)  # before the king: the natural 2
    g.apply(0, ("play", "KH", "S"))
    assert ("2S", "S") not in plays(g)  # K2: never a skip of 0
    assert stack_values(g, 0, "S") == [2, 3]  # a king skips 1 or 2
    g.apply(0, ("play", "QD", "S"))
    assert stack_values(g, 0, "S") == [3, 4]  # a queen skips exactly 1 (K2)


def test_queen_of_spades_on_ace_of_spades_does_not_complete_spades() -> None:
    g = solo(["QS", "2C", "3C", "4C", "5C"])
    g.apply(0, ("play", "QS", "S"))
    spades = g.view(0)["seats"][0]["stacks"][3]
    assert spades["values"] == [2] and spades["complete"] is False


def test_jack_of_own_suit_completes_and_a_complete_stack_takes_nothing() -> None:
    order = ["2S", "3S", "4S", "5S", "6S", "7S", "8S", "9S", "TS", "JS", "QS", "KH", "9C"]
    g = solo(order)
    for card in order[:5]:
        g.apply(0, ("play", card, "S"))
    g.apply(0, ("end",))
    for card in order[5:10]:
        g.apply(0, ("play", card, "S"))
    spades = g.view(0)["seats"][0]["stacks"][3]
    assert spades["complete"] and spades["values"] == [11]
    g.apply(0, ("end",))
    assert "QS" in g.view(0)["hand"]
    assert ("QS", "S") not in plays(g) and ("KH", "S") not in plays(g)
    with pytest.raises(IllegalAction, match="complete"):
        g.apply(0, ("play", "QS", "S"))


def test_skipper_may_not_skip_past_twelve() -> None:
    # K4: KC on 10S gives {11, 12}; QD then {12, 13}; a further queen would leave no e <= 12.
    order = ["2S", "3S", "4S", "QD", "QH", "5S", "6S", "7S", "8S", "9S", "TS", "KC"]
    g = solo(order)
    for batch in (["2S", "3S", "4S"], ["5S", "6S", "7S"], ["8S", "9S", "TS"]):
        for card in batch:
            g.apply(0, ("play", card, "S"))
        g.apply(0, ("end",))
    g.apply(0, ("play", "KC", "S"))  # {10} -> {11, 12}: top KC is no spade, not complete
    assert stack_values(g, 0, "S") == [11, 12]
    g.apply(0, ("play", "QD", "S"))  # {12, 13}: 12 is still <= 12
    assert stack_values(g, 0, "S") == [12, 13]
    assert ("QH", "S") not in plays(g)  # {13, 14} would be past the end
    with pytest.raises(IllegalAction, match="past 12"):
        g.apply(0, ("play", "QH", "S"))


def test_drawn_three_of_hearts_with_hearts_at_six_is_trashed() -> None:
    # KH on AH -> {2,3}; 4H, 5H, 6H -> {6}. The next draw brings 3H: dead (K6).
    order = ["KH", "4H", "5H", "6H", "9C", "3H", "9D", "9S", "TC"]
    g = solo(order)
    for card in ["KH", "4H", "5H", "6H"]:
        g.apply(0, ("play", card, "H"))
    g.apply(0, ("end",))
    hand = g.view(0)["hand"]
    assert "3H" not in hand and len(hand) == 5
    assert g.view(0)["seats"][0]["trash"] == 1
    assert "3H" in C.codes(g.card_locations()["trash:0"])


def test_no_trashing_keeps_the_dead_three_in_hand() -> None:
    order = ["KH", "4H", "5H", "6H", "9C", "3H", "9D", "9S", "TC"]
    g = solo(order, no_trashing=True)
    for card in ["KH", "4H", "5H", "6H"]:
        g.apply(0, ("play", card, "H"))
    g.apply(0, ("end",))
    assert "3H" in g.view(0)["hand"]
    assert ("discard", "3H") in g.legal_actions(0)


# -- turns (K5, K6) ----------------------------------------------------------------------------


def test_play_turn_and_discard_turn_never_mix() -> None:
    g = solo(["2S", "9C", "9D", "9H", "8C"])
    g.apply(0, ("play", "2S", "S"))
    assert not [a for a in g.legal_actions(0) if a[0] == "discard"]
    with pytest.raises(IllegalAction, match="played this turn"):
        g.apply(0, ("discard", "9C"))
    g.apply(0, ("end",))
    g.apply(0, ("discard", "9C"))
    assert not [a for a in g.legal_actions(0) if a[0] == "play"]


def test_nothing_playable_means_discard_at_least_one() -> None:
    g = solo(["9C", "9D", "9H", "9S", "8C", "7C"])
    assert ("end",) not in g.legal_actions(0)
    with pytest.raises(IllegalAction, match="must discard"):
        g.apply(0, ("end",))
    g.apply(0, ("discard", "9C"))
    assert ("end",) in g.legal_actions(0)
    g.apply(0, ("end",))
    assert g.view(0)["hand"] == ["7C", "8C", "9D", "9H", "9S"]
    assert g.view(0)["seats"][0]["turns"] == 1


def test_pass_allowed_when_something_is_playable() -> None:
    g = solo(["2S", "9C", "9D", "9H", "8C"])
    assert ("end",) in g.legal_actions(0)
    g.apply(0, ("end",))
    assert g.view(0)["seats"][0]["turns"] == 1


def test_empty_draw_pile_flips_the_discard_pile() -> None:
    g = solo([], hand_size=3)
    p = g.players[0]
    moved = p.stock[:]  # empty the stock into the discard pile by hand: 45 cards
    p.discard, p.stock = moved[::-1], []
    first_discarded = p.discard[0]
    for c in list(p.hand):
        if ("discard", C.code(c)) in g.legal_actions(0):
            g.apply(0, ("discard", C.code(c)))
            break
    g.apply(0, ("end",))
    assert first_discarded in p.hand  # the pile turned over: first discarded on top


def test_discard_only_when_stuck() -> None:
    g = solo(["2S", "9C", "9D", "9H", "8C"], discard_only_when_stuck=True)
    assert not [a for a in g.legal_actions(0) if a[0] == "discard"]
    with pytest.raises(IllegalAction, match="only when no card"):
        g.apply(0, ("discard", "9C"))


def test_hand_size_option() -> None:
    assert len(solo([], hand_size=3).view(0)["hand"]) == 3
    with pytest.raises(OptionError):
        solo([], hand_size=6)


# -- variants ------------------------------------------------------------------------------------


def test_strong_skippers_jack_skips_and_king_skips_three() -> None:
    g = solo(["JC", "KD", "5S", "6S", "9C"], strong_skippers=True)
    g.apply(0, ("play", "JC", "S"))
    assert stack_values(g, 0, "S") == [2]
    g.apply(0, ("play", "KD", "S"))
    assert stack_values(g, 0, "S") == [3, 4, 5]


def test_weak_skippers_queen_is_plain_and_king_skips_one() -> None:
    g = solo(["QD", "KD", "3S", "4S", "9C"], weak_skippers=True)
    assert ("QD", "S") not in plays(g)
    g.apply(0, ("play", "KD", "S"))
    assert stack_values(g, 0, "S") == [2]


def test_recycle_skippers_go_to_the_discard_pile() -> None:
    g = solo(["QD", "3S", "4S", "9C", "9H"], recycle_skippers=True)
    g.apply(0, ("play", "QD", "S"))
    locs = g.card_locations()
    assert C.parse("QD") in locs["discard:0"]
    assert C.codes(locs["stack:0:S"]) == ["AS"]
    assert stack_values(g, 0, "S") == [2]


def test_king_finishes_needs_recycle() -> None:
    with pytest.raises(OptionError, match="recycle"):
        solo([], king_finishes=True)


def test_skippers_own_suit() -> None:
    g = solo(["QD", "QS", "3S", "9C", "9H"], skippers_own_suit=True)
    assert ("QD", "S") not in plays(g) and ("QS", "S") in plays(g)
    assert ("QD", "D") in plays(g)


def test_play_from_discard() -> None:
    g = solo(["3S", "9C", "9D", "9H", "8C", "2S", "7C"], play_from_discard=True)
    g.apply(0, ("discard", "3S"))
    g.apply(0, ("end",))
    assert "2S" in g.view(0)["hand"]
    g.apply(0, ("play", "2S", "S"))
    assert ("3S", "S") in plays(g)  # the discard top
    g.apply(0, ("play", "3S", "S"))
    assert g.view(0)["seats"][0]["discard_top"] is None


def test_no_aces_out_stack_starts_with_its_ace() -> None:
    g = solo(["AS", "KD", "2H", "9C", "9H"], no_aces_out=True)
    assert ("KD", "S") not in plays(g)
    assert ("2H", "H") not in plays(g)
    g.apply(0, ("play", "AS", "S"))
    assert ("KD", "S") in plays(g)


def test_remove_four_takes_four_cards_out() -> None:
    g = create("skipper", {"seed": 3, "remove_four": True}, 1)
    assert len(g.card_locations()["removed:0"]) == 4
    assert g.view(0)["seats"][0]["stock"] == 48 - 4 - 5


# -- options --------------------------------------------------------------------------------------


@pytest.mark.parametrize("opts, seats, match", [
    ({"bogus": 1}, 1, "unknown option"),
    ({"mode": "duel"}, 1, "mode"),
    ({"hand_size": "five"}, 1, "integer"),
    ({"strong_skippers": "maybe"}, 1, "true or false"),
    ({"strong_skippers": True, "weak_skippers": True}, 1, "cannot both"),
    ({"mode": "solo"}, 2, "1 seat"),
    ({"mode": "multi"}, 1, "2..6"),
    ({"mode": "multi", "first_seat": 3}, 3, "first_seat"),
    ({"deck": ["2S"]}, 1, "exactly"),
    ({"deck": deck([])[:-1] + ["2S"]}, 1, "duplicates 1"),
    ({"deck": deck([])[:-1] + ["ZZ"]}, 1, "not a card code"),
    ({"seed": -1}, 1, "seed"),
])
def test_bad_options_raise_clear_errors(opts: dict[str, Any], seats: int, match: str) -> None:
    with pytest.raises(OptionError, match=match):
        create("skipper", opts, seats)


def test_options_from_strings() -> None:
    g = create("skipper", {"hand_size": "4", "no_trashing": "on", "seed": "7"}, 1)
    assert g.options["hand_size"] == 4 and g.options["no_trashing"] is True
    assert g.options["seed"] == 7


def test_same_seed_same_deal_and_deck_fixes_the_order() -> None:
    a, b = create("skipper", {"seed": 42}, 1), create("skipper", {"seed": 42}, 1)
    assert a.snapshot() == b.snapshot()
    assert create("skipper", {"seed": 43}, 1).snapshot() != a.snapshot()
    g = solo(["9C", "8C", "7C", "6C", "5C"])
    assert g.view(0)["hand"] == ["5C", "6C", "7C", "8C", "9C"]


# -- multiplayer (K8-K13) --------------------------------------------------------------------------


def multi(seats: int, firsts: list[list[str]], **opts: Any) -> Skipper:
    decks = [deck(f) for f in firsts]
    game = create("skipper", {"mode": "multi", "seed": 5, "deck": decks, **opts}, seats)
    assert isinstance(game, Skipper)
    return game


def test_auction_example_p1_p2_p3() -> None:
    # P1 (seat 0) auctions 5D; P2 (seat 1) bids a jack; P3 (seat 2) passes: P2 wins the 5D
    # and P1 gets the jack.
    g = multi(3, [["5D", "9C", "9H", "9S", "8C"], ["JC", "9C", "9H", "9S", "8C"],
                  ["KC", "9C", "9H", "9S", "8C"]])
    g.apply(0, ("auction", "5D"))
    assert g.to_act() == [1]
    assert g.view(2)["auction"] == {"seller": 0, "card": "5D", "bids": [], "bidder": 1}
    with pytest.raises(NotYourTurn):
        g.apply(2, ("pass",))
    g.apply(1, ("bid", "JC1"))
    assert g.to_act() == [2]
    assert ("bid", "9C2") not in g.legal_actions(2)  # must beat the jack (K10)
    with pytest.raises(IllegalAction, match="beat"):
        g.apply(2, ("bid", "9C2"))
    g.apply(2, ("pass",))
    assert "5D" in g.view(1)["hand"]
    assert "JC1" in g.view(0)["hand"] and "5D" not in g.view(0)["hand"]
    assert g.to_act() == [1]  # a successful auction ends the turn (K9)
    assert g.stats()["auctions"] == 1 and g.stats()["sold"] == 1


def test_failed_auction_leaves_seller_free_to_discard_only() -> None:
    g = multi(2, [["5D", "9C", "9H", "2S", "8C"], ["9C", "9D", "9H", "9S", "8C"]])
    g.apply(0, ("auction", "5D"))
    g.apply(1, ("pass",))
    assert g.to_act() == [0] and "5D" in g.view(0)["hand"]
    verbs = {a[0] for a in g.legal_actions(0)}
    assert verbs == {"discard", "end", "resign"}
    with pytest.raises(IllegalAction, match="failed auction"):
        g.apply(0, ("play", "2S", "S"))


def test_higher_bid_wins_and_lower_bids_go_back() -> None:
    g = multi(3, [["5D", "9C", "9H", "9S", "8C"], ["7C", "9C", "9H", "9S", "8C"],
                  ["JC", "9C", "9H", "9S", "8C"]])
    g.apply(0, ("auction", "5D"))
    g.apply(1, ("bid", "7C1"))
    g.apply(2, ("bid", "JC2"))
    assert "7C1" in g.view(1)["hand"] and "5D" in g.view(2)["hand"]
    assert "JC2" in g.view(0)["hand"]


def test_skipper_makes_every_other_player_draw_one() -> None:
    g = multi(3, [["QD", "9C", "9H", "9S", "8C"], ["7C"], ["7C"]])
    sizes = [g.view(0)["seats"][i]["hand"] for i in range(3)]
    g.apply(0, ("play", "QD", "S"))
    after = [g.view(0)["seats"][i]["hand"] for i in range(3)]
    assert after == [sizes[0] - 1, sizes[1] + 1, sizes[2] + 1]  # hands may exceed 5 (K12)
    assert g.stats()["skip_draws"] == 1


# -- RULINGS K6m: dead cards in multi, the auto_trash preference -----------------------------


def _sell_two_of_diamonds(**opts: Any) -> Skipper:
    """Seat 0 sells its 2D to seat 1 for 7S1; seat 1 then plays its own 2D1, so seat 0's 2D
    is dead for seat 1 but live for seat 0 (its diamonds still stand at the ace)."""
    g = multi(2, [["2D", "7C", "8C", "9C", "TC"], ["2D", "7S", "8S", "9S", "TS"]], **opts)
    g.apply(0, ("auction", "2D"))
    g.apply(1, ("bid", "7S1"))
    g.apply(1, ("play", "2D1", "D"))
    g.apply(1, ("end",))
    return g


def _cycle_until_redrawn(g: Skipper, card: str) -> str:
    """Seat 1 discards its whole hand every turn (the sold card first), seat 0 one card,
    until seat 1's pile flips and ``card`` is drawn again: where it went (``hand``/``trash``)."""
    code = C.parse(card)
    g.apply(0, ("discard", g.view(0)["hand"][0]))
    g.apply(0, ("end",))
    hand = g.view(1)["hand"]
    for c in [card] + [c for c in hand if c != card]:
        g.apply(1, ("discard", c))
    g.apply(1, ("end",))
    for _ in range(40):
        where = g.card_locations()
        for zone in ("hand:1", "trash:1"):
            if code in where[zone]:
                return zone.split(":")[0]
        g.apply(0, ("discard", g.view(0)["hand"][0]))
        g.apply(0, ("end",))
        for c in g.view(1)["hand"]:
            g.apply(1, ("discard", c))
        g.apply(1, ("end",))
    raise AssertionError(f"{card} was never drawn again")


def test_sold_card_is_not_trashed_while_its_former_owner_can_play_it() -> None:
    # K6m: dead only when no active seat could ever play it. Under K6 judged for the drawing
    # seat alone, seat 1 trashed seat 0's 2D and seat 0's diamonds could never go on.
    g = _sell_two_of_diamonds()
    assert _cycle_until_redrawn(g, "2D") == "hand"
    assert g.stats()["trashed"] == 0


def test_card_dead_for_every_active_seat_is_trashed_in_multi() -> None:
    # Seat 0 plays its 2D, seat 1 skips its diamonds past 2 with KD1: seat 1's 2D1 (still in
    # its stock) is dead for both seats, and seat 1 trashes it when it draws it.
    g = _both_past_two_of_diamonds()
    assert _cycle_until_redrawn_any(g, "2D1") == "trash"


def _both_past_two_of_diamonds() -> Skipper:
    g = multi(2, [["2D", "7C", "8C", "9C", "TC"], ["KD", "7S", "8S", "9S", "TS"]])
    g.apply(0, ("play", "2D", "D"))
    g.apply(0, ("end",))
    g.apply(1, ("play", "KD1", "D"))
    g.apply(1, ("end",))
    return g


def _cycle_until_redrawn_any(g: Skipper, card: str) -> str:
    """Like :func:`_cycle_until_redrawn`, from seat 0's turn, the card already discarded."""
    code = C.parse(card)
    for _ in range(40):
        where = g.card_locations()
        for zone in ("hand:1", "trash:1"):
            if code in where[zone]:
                return zone.split(":")[0]
        legal = g.legal_actions(0)
        g.apply(0, next(a for a in legal if a[0] == "discard"))
        g.apply(0, ("end",))
        for c in g.view(1)["hand"]:
            g.apply(1, ("discard", c))
        g.apply(1, ("end",))
    raise AssertionError(f"{card} was never drawn again")


def test_auto_trash_is_each_seats_own_setting() -> None:
    g = _both_past_two_of_diamonds()
    assert [s["auto_trash"] for s in g.view(None)["seats"]] == [True, True]  # room default
    sid = g.state_id
    events = g.apply_setting(1, ("auto_trash", "off"))  # not seat 1's turn: no move
    assert events == [{"type": "auto_trash", "seat": 1, "on": False}]
    assert g.state_id == sid  # RULINGS K6m: a preference stales nobody's chosen action
    assert [s["auto_trash"] for s in g.view(0)["seats"]] == [True, False]
    assert all(a[0] != "auto_trash" for a in g.legal_actions(0))
    with pytest.raises(UnknownAction):
        g.apply_setting(1, ("auto_trash", "maybe"))
    with pytest.raises(UnknownAction):  # a setting is no action
        g.apply(1, ("auto_trash", "on"))
    log = [LogEntry.setting(1, ("auto_trash", "off"))]
    again = replay(Skipper, g.options, 2, log)
    assert isinstance(again, Skipper) and again.players[1].auto_trash is False
    assert again.state_id == 0 and again.log_length == 1
    assert _cycle_until_redrawn_any(g, "2D1") == "hand"  # dead, but seat 1 keeps it


def test_a_setting_logged_as_an_action_replays_as_one() -> None:
    # Rooms logged ("auto_trash", ...) as an action, which moved state_id, before settings
    # had entries of their own: such a log replays to the state it had then.
    g = multi(2, [["2D"], ["2D"]])
    again = replay(Skipper, g.options, 2, [["a", 1, ["auto_trash", "off"]], ["a", 0, ["end"]]])
    assert isinstance(again, Skipper)
    assert again.players[1].auto_trash is False and again.state_id == 2


def test_no_trashing_sets_the_room_default_and_snapshots_keep_the_preference() -> None:
    g = multi(2, [["2D"], ["2D"]], no_trashing=True)
    assert [s["auto_trash"] for s in g.view(None)["seats"]] == [False, False]
    g.apply_setting(0, ("auto_trash", "on"))
    back = Skipper.restore(msgpack.unpackb(msgpack.packb(g.snapshot())))
    assert [s["auto_trash"] for s in back.view(None)["seats"]] == [True, False]


def test_first_seat_and_clockwise_turns() -> None:
    g = create("skipper", {"mode": "multi", "seed": 1, "first_seat": 2}, 3)
    assert g.to_act() == [2]
    with pytest.raises(NotYourTurn):
        g.apply(0, ("end",))
    order = []
    for _ in range(4):
        seat = g.to_act()[0]
        order.append(seat)
        for _ in range(10):  # the timer default: discard one card, then end (a pass)
            g.apply(seat, g.default_action(seat))
            if g.to_act() != [seat]:
                break
    assert order == [2, 0, 1, 2]


def test_view_shows_own_hand_only_and_never_the_seed() -> None:
    g = create("skipper", {"mode": "multi", "seed": 99}, 3)
    for seat in (0, 1, 2):
        v = g.view(seat)
        assert v["hand"] == C.codes(g.players[seat].hand)
        assert "seed" not in v["options"] and "deck" not in v["options"]
        assert all(isinstance(s["hand"], int) for s in v["seats"])
    spectator = g.view(None)
    assert spectator["hand"] is None and spectator["legal_actions"] == []


def test_resign_in_multi_takes_the_seat_out_and_last_one_wins() -> None:
    g = create("skipper", {"mode": "multi", "seed": 1}, 2)
    g.apply(0, ("resign",))
    assert g.over and g.outcome()["winner"] == 1
    assert g.outcome()["reason"] == "last_standing"
    with pytest.raises(GameOver):
        g.apply(1, ("end",))


def test_forfeit_of_a_bidder_moves_the_auction_on() -> None:
    g = multi(3, [["5D", "9C", "9H", "9S", "8C"], ["7C"], ["JC", "9C", "9H", "9S", "8C"]])
    g.apply(0, ("auction", "5D"))
    g.forfeit(1)
    assert g.to_act() == [2]
    g.apply(2, ("bid", "JC2"))
    assert "5D" in g.view(2)["hand"] and g.to_act() == [2]


# -- race (K14) ------------------------------------------------------------------------------------


def test_race_seats_act_at_once_without_auctions() -> None:
    g = create("skipper", {"mode": "race", "seed": 2}, 3)
    assert g.to_act() == [0, 1, 2]
    assert not [a for a in g.legal_actions(1) if a[0] == "auction"]
    with pytest.raises(IllegalAction, match="no auctions"):
        g.apply(1, ("auction", g.view(1)["hand"][0]))
    g.apply(2, g.default_action(2))
    g.apply(0, g.default_action(0))
    assert g.view(None)["turn"] is None


def test_race_skip_draws_are_an_option() -> None:
    for on in (False, True):
        g = create("skipper", {"mode": "race", "seed": 5, "skip_draws": on,
                               "deck": [deck(["QD", "9C", "9H", "9S", "8C"]), deck([])]}, 2)
        before = g.view(1)["seats"][1]["hand"]
        g.apply(0, ("play", "QD", "S"))
        assert g.view(1)["seats"][1]["hand"] == before + (1 if on else 0)


# -- malformed actions -----------------------------------------------------------------------------


@pytest.mark.parametrize("action", [
    (), "play", ("fly",), ("play", "5D"), ("play", "5D", "X"), ("play", "ZZ", "S"),
    ("play", 5, "S"), ("discard",), ("end", 1), (1, 2), ("play", "5D", ["S"]),
])
def test_malformed_actions_are_unknown_and_change_nothing(action: Any) -> None:
    g = create("skipper", {"seed": 1}, 1)
    before = g.snapshot()
    with pytest.raises(UnknownAction):
        g.apply(0, action)
    assert g.snapshot() == before and g.state_id == 0


def test_restore_rejects_garbage() -> None:
    with pytest.raises(SnapshotError):
        Skipper.restore({"game": "shop"})
    with pytest.raises(SnapshotError):
        Skipper.restore({"game": "skipper", "v": 1})


def test_bot_view_equals_view() -> None:
    game = create("skipper", {"mode": "multi", "seed": 8}, 3)
    bot = strategy("skipper", "greedy")
    rng = random.Random(1)
    for _ in range(60):
        if game.over:
            break
        seat = game.to_act()[0]
        assert dict(game.bot_view(seat)) == game.view(seat)
        game.apply(seat, bot(game.bot_view(seat), rng))


@pytest.mark.parametrize("options", [
    {"mode": "multi", "seed": 4},
    {"mode": "race", "seed": 5},
    {"mode": "multi", "seed": 6, "recycle_skippers": True, "play_from_discard": True},
])
def test_reused_view_parts_match_views_built_afresh(options: dict[str, Any]) -> None:
    """Views share unchanged seats between calls (and the room's diff skips them by
    identity): after every action they must equal the views of a game restored from a
    snapshot, which has no reused parts."""
    game = create("skipper", options, 3)
    rng = random.Random(2)
    seats: list[int | None] = [0, 1, 2, None]
    before = game.views(seats)
    for _ in range(300):
        if game.over:
            break
        seat = game.to_act()[0]
        game.apply(seat, rng.choice([a for a in game.legal_actions(seat) if a[0] != "resign"]))
        views = game.views(seats)
        assert views == Skipper.restore(game.snapshot()).views(seats)
        for i in range(3):  # an unchanged seat is the very same object; a changed one is not
            old, new = before[None]["seats"][i], views[None]["seats"][i]
            assert (old is new) == (old == new)
        before = views


def test_default_action_always_applies() -> None:
    game = create("skipper", {"mode": "multi", "seed": 21, "turn_limit": 30}, 3)
    while not game.over:
        seat = game.to_act()[0]
        action = game.default_action(seat)
        assert action in game.legal_actions(seat) and action[0] != "resign"
        game.apply(seat, action)
    assert game.outcome()["reason"] in ("turn_limit", "unwinnable")


def test_greedy_beats_random_in_solo() -> None:
    def mean_turns(bot_name: str) -> tuple[float, int]:
        bot, wins, turns = strategy("skipper", bot_name), 0, []
        for seed in range(40):
            g = create("skipper", {"seed": seed}, 1)
            rng = random.Random(seed)
            while not g.over:
                g.apply(0, bot(g.bot_view(0), rng))
            wins += g.outcome()["winner"] == 0
            turns.append(g.outcome()["scores"][0])
        return sum(turns) / len(turns), wins
    greedy_turns, greedy_wins = mean_turns("greedy")
    random_turns, _ = mean_turns("random")
    assert greedy_wins >= 36 and greedy_turns < random_turns / 2


# -- bots: greedy never gives away a live card, keeps finishers, random ends turns -------------


def test_greedy_never_bids_a_card_it_can_still_use() -> None:
    # Seat 1 wants the 2D (its diamonds stand at the ace) but every card it holds is still
    # live for itself: before, it paid with its "furthest" card (9S1, 7C1...); now it passes.
    g = multi(2, [["2D", "7C", "8C", "9C", "TC"], ["9S", "7C", "8C", "9C", "TC"]])
    g.apply(0, ("auction", "2D"))
    assert strategy("skipper", "greedy")(g.bot_view(1), random.Random(1)) == ("pass",)


def test_greedy_does_not_auction_a_card_it_can_still_use() -> None:
    # Seat 1's diamonds reach 4, so it could play seat 0's 5D at once; seat 0 still needs
    # the 5D itself (its diamonds stand at the ace): before, greedy auctioned it.
    g = multi(2, [["9C", "5D", "8C", "9H", "TC", "JH"], ["2D", "3D", "4D", "9S", "8S"]])
    g.apply(0, ("discard", "9C"))
    g.apply(0, ("end",))
    for card in ("2D1", "3D1", "4D1"):
        g.apply(1, ("play", card, "D"))
    g.apply(1, ("end",))
    assert ("auction", "5D") in g.legal_actions(0)
    choice = strategy("skipper", "greedy")(g.bot_view(0), random.Random(1))
    assert choice[0] != "auction", choice


def _view(hand: list[str], values: list[list[int]], complete: list[bool],
          legal: list[tuple[str, ...]], stock: int = 10) -> dict[str, Any]:
    stacks = [{"suit": s, "cards": [], "values": v, "complete": c}
              for s, v, c in zip("CDHS", values, complete)]
    seat = {"stacks": stacks, "discard_top": None, "discard": 0, "stock": stock,
            "hand": len(hand), "trash": 0, "turns": 9, "phase": "start", "status": "active",
            "auto_trash": True}
    return {"game": "skipper", "mode": "solo", "options": {}, "seat": 0, "seats": [seat],
            "auction": None, "hand": hand, "legal_actions": [list(a) for a in legal]}


def test_greedy_does_not_lift_a_stack_past_ten_off_suit_without_a_finisher() -> None:
    # Spades stand at 10, the other books are complete; the hand holds only off-suit
    # skippers. QD or KH on spades would leave J as a finisher impossible, and no spade Q/K
    # is in hand: before, greedy spent one at random; now it cycles a card instead.
    legal = [("play", "QD", "S"), ("play", "KH", "S"), ("discard", "QD"), ("discard", "KH"),
             ("resign",)]
    view = _view(["QD", "KH"], [[12], [12], [12], [10]], [True, True, True, False], legal)
    for seed in range(8):
        choice = strategy("skipper", "greedy")(view, random.Random(seed))
        assert choice[0] == "discard", choice
    # With the spade queen in hand the lift is fine (QS can finish on 11 as a natural).
    legal_qs = [("play", "KH", "S"), ("play", "QS", "S"), ("discard", "KH"),
                ("discard", "QS"), ("resign",)]
    view = _view(["KH", "QS"], [[12], [12], [12], [10]], [True, True, True, False], legal_qs)
    assert strategy("skipper", "greedy")(view, random.Random(1))[0] == "play"


def test_random_bot_finishes_four_seat_games_within_the_turn_limit() -> None:
    # Before (uniform over every legal action, K6 judged per seat): 0 of 200 finished.
    from cardhall.games.simulate import run
    records = list(run("skipper", {"mode": "multi"}, 4, "random", 10, 2))
    done = sum(r["outcome"] == "completed" for r in records)
    assert done >= 9, [r["outcome"] for r in records]


def test_greedy_finishes_four_seat_games_with_auctions() -> None:
    # Before (K6 judged per seat, greedy selling cards it still needed): 110 of 200.
    from cardhall.games.simulate import run
    records = list(run("skipper", {"mode": "multi"}, 4, "greedy", 20, 2))
    assert all(r["outcome"] == "completed" for r in records), [r["outcome"] for r in records]
    assert sum(r["sold"] for r in records) >= 20  # auctions still happen


# -- the expert bot -----------------------------------------------------------------------------


def _midgame(mode: str, seats: int, seed: int, steps: int, **opts: Any) -> Skipper:
    g = create("skipper", {"mode": mode, "seed": seed, **opts}, seats)
    assert isinstance(g, Skipper)
    greedy, rng = strategy("skipper", "greedy"), random.Random(seed)
    for _ in range(steps):
        if g.over:
            break
        seat = g.to_act()[0]
        g.apply(seat, greedy(g.bot_view(seat), rng))
    return g


@pytest.mark.parametrize("mode,seats,opts", [
    ("solo", 1, {}), ("multi", 3, {}), ("multi", 2, {"remove_four": True}), ("race", 2, {})])
def test_resample_deals_consistent_with_the_view(mode: str, seats: int,
                                                       opts: dict[str, Any]) -> None:
    for seed in range(4):
        for steps in (0, 37, 150):
            g = _midgame(mode, seats, seed, steps, **opts)
            if g.over:
                continue
            for me in range(seats):
                view = g.view(me)
                det = Skipper.resample(view, random.Random(seed))
                assert det.view(me) == view
                cards = sorted(c for cs in det.card_locations().values() for c in cs)
                assert cards == list(range(52 * seats))  # every card once


def test_expert_is_deterministic_given_its_generator_and_plays_legally() -> None:
    expert = strategy("skipper", "expert")
    for mode, seats, steps in (("solo", 1, 11), ("multi", 2, 40), ("multi", 3, 8),
                               ("race", 2, 30)):
        g = _midgame(mode, seats, 3, steps)
        seat = g.to_act()[0]
        first = expert(g.bot_view(seat), random.Random(9))
        assert first == expert(g.bot_view(seat), random.Random(9))
        assert first in [tuple(a) for a in g.legal_actions(seat)]
        assert first[0] != "resign"
