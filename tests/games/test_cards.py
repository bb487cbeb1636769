"""Tests of the card encoding (``cardhall.games.cards``): ints, codes and deck options."""

from __future__ import annotations

import pytest
from cardhall.games import cards as C
from cardhall.games.errors import OptionError, UnknownAction


def test_a_card_is_deck_suit_rank_and_its_code_round_trips() -> None:
    """``deck * 52 + suit * 13 + rank - 1``; every one of the 520 codes parses back."""
    queen = C.make(C.QUEEN, C.HEARTS, 3)
    assert queen == 3 * 52 + 2 * 13 + 11
    assert (C.rank(queen), C.suit(queen), C.deck_of(queen)) == (12, C.HEARTS, 3)
    assert C.code(queen) == "QH3" and C.face(queen) == C.make(C.QUEEN, C.HEARTS)
    assert C.code(C.make(10, C.DIAMONDS)) == "TD"
    every = range(C.MAX_DECKS * C.CARDS_PER_DECK)
    assert [C.parse(C.code(c)) for c in every] == list(every)


def test_colours_and_pretty_forms() -> None:
    """Diamonds and hearts are red; ``pretty`` writes 10 in full and hides the deck."""
    assert [C.is_red(C.make(1, s)) for s in range(4)] == [False, True, True, False]
    assert C.pretty(C.make(10, C.DIAMONDS, 2)) == "10\u2666"
    assert C.pretty(C.make(C.ACE, C.SPADES)) == "A\u2660"


@pytest.mark.parametrize("text", ["", "1S", "AX", "as", "AS10", "AS0", None, 7, ["AS"]])
def test_parse_refuses_what_is_not_a_card_code(text: object) -> None:
    """Lower case, deck 0 written out, deck 10, non-strings: UnknownAction, never a crash."""
    with pytest.raises(UnknownAction, match="not a card code"):
        C.parse(text)


def test_a_deck_option_is_the_expected_cards_once_each_in_the_given_order() -> None:
    """A whole reversed deck is taken in that order; ``None`` means a random deal."""
    deck = list(reversed(C.full_deck()))
    assert C.parse_full_deck(C.codes(deck)) == deck
    assert C.parse_full_deck(None) is None
    assert C.full_deck(1) == list(range(52, 104))


@pytest.mark.parametrize("value, needle", [
    ("AS,2S", "must be a list"),
    (["AS", "ZZ"], "'ZZ' is not a card code"),
    (["AS", "AS"], "duplicates ['AS']"),
    (["AS"], "missing"),
    (["AS", "2S", "AS1"], "unexpected ['AS1']"),
])
def test_a_bad_deck_option_names_its_fault(value: object, needle: str) -> None:
    """Not a list, a bad code, a duplicate, a missing and an unexpected card: OptionError."""
    expected = [C.make(C.ACE, C.SPADES), C.make(2, C.SPADES)]
    with pytest.raises(OptionError) as err:
        C.parse_deck(value, expected, "two spades")
    assert needle in str(err.value)
