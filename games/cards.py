"""Playing cards as small integers, with a compact text code.

A card is an ``int``: ``deck * 52 + suit * 13 + (rank - 1)``, where

* ``rank`` is 1..13 (A=1, 2..10, J=11, Q=12, K=13),
* ``suit`` is 0..3 in the order clubs, diamonds, hearts, spades (``C D H S``),
* ``deck`` is 0..9, the identity of the physical deck the card belongs to (games with several
  decks, such as multiplayer Skipper or The Shah's two packs, tell equal faces apart by it).

The card code (used in options, actions, views and on the wire) is rank letter + suit letter,
followed by the deck index when it is not 0::

    "AS"  ace of spades, deck 0       "TD"  ten of diamonds, deck 0
    "QH3" queen of hearts, deck 3     "9C1" nine of clubs, deck 1

Rank letters: ``A 2 3 4 5 6 7 8 9 T J Q K``; suit letters: ``C D H S``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Final

from .errors import UnknownAction

RANKS = "A23456789TJQK"
SUITS = "CDHS"
SUIT_SYMBOLS = {"C": "\u2663", "D": "\u2666", "H": "\u2665", "S": "\u2660"}
MAX_DECKS = 10
CARDS_PER_DECK = 52

CLUBS, DIAMONDS, HEARTS, SPADES = range(4)
ACE, JACK, QUEEN, KING = 1, 11, 12, 13

Card = int

_CODES: Final[list[str]] = [
    RANKS[r] + SUITS[s] + (str(d) if d else "")
    for d in range(MAX_DECKS)
    for s in range(4)
    for r in range(13)
]
_BY_CODE: Final[dict[str, int]] = {c: i for i, c in enumerate(_CODES)}


def make(rank: int, suit: int, deck: int = 0) -> Card:
    """Build a card from rank 1..13, suit 0..3 (C, D, H, S) and deck 0..9."""
    return deck * 52 + suit * 13 + rank - 1


def rank(card: Card) -> int:
    """Rank of ``card``: 1 (ace) .. 13 (king)."""
    return card % 13 + 1


def suit(card: Card) -> int:
    """Suit of ``card``: 0 clubs, 1 diamonds, 2 hearts, 3 spades."""
    return card // 13 % 4


def deck_of(card: Card) -> int:
    """Index of the deck ``card`` belongs to (0..9)."""
    return card // 52


def is_red(card: Card) -> bool:
    """True for diamonds and hearts."""
    return card // 13 % 4 in (DIAMONDS, HEARTS)


def face(card: Card) -> Card:
    """The card's face without deck identity (the deck-0 card of equal rank and suit)."""
    return card % 52


def code(card: Card) -> str:
    """Compact code of ``card``, e.g. ``"QS"`` or ``"QS3"`` (see module docstring)."""
    return _CODES[card]


def codes(cards: Iterable[Card]) -> list[str]:
    """Codes of several cards, in order."""
    return [_CODES[c] for c in cards]


def parse(text: object) -> Card:
    """Parse a card code such as ``"TD"`` or ``"QH3"``.

    Raises:
        UnknownAction: ``text`` is not a string or not a valid card code.
    """
    try:
        return _BY_CODE[text]  # type: ignore[index]
    except (KeyError, TypeError):
        raise UnknownAction(f"not a card code: {text!r}") from None


def pretty(card: Card) -> str:
    """Human form with a suit symbol, e.g. ``"Q\u2660"`` or ``"10\u2666"`` (deck not shown)."""
    r = rank(card)
    return ("10" if r == 10 else RANKS[r - 1]) + SUIT_SYMBOLS[SUITS[suit(card)]]


def full_deck(deck: int = 0) -> list[Card]:
    """The 52 cards of deck ``deck`` in a fixed order (suit by suit, ace to king)."""
    base = deck * 52
    return list(range(base, base + 52))


def parse_deck(codes: Any, expected: Iterable[Card], what: str) -> list[Card]:
    """Validate a ``deck`` option: the card codes of ``expected``, each exactly once, in any
    order (index 0 is dealt or drawn first; the engine says which).

    Args:
        codes: The option's value (a list of card codes).
        expected: The cards the deck must hold.
        what: How the error names them, e.g. ``"the 52 cards of one deck"``.

    Returns:
        The cards in the given order.

    Raises:
        OptionError: not a list, a bad code, a duplicate, a missing or unexpected card.
    """
    from .errors import OptionError

    if not isinstance(codes, (list, tuple)):
        raise OptionError(f"option 'deck' must be a list of card codes, not {codes!r}")
    out: list[Card] = []
    for text in codes:
        try:
            out.append(parse(text))
        except UnknownAction:
            raise OptionError(f"option 'deck': {text!r} is not a card code") from None
    want = set(expected)
    seen: set[Card] = set()
    dupes = sorted({c for c in out if c in seen or seen.add(c)})  # type: ignore[func-returns-value]
    missing = sorted(want - seen)
    extra = sorted(seen - want)
    if dupes or missing or extra:
        raise OptionError(
            f"option 'deck' must list {what} once each; got {len(out)} codes"
            + (f", duplicates {codes_of(dupes)}" if dupes else "")
            + (f", missing {codes_of(missing)[:12]}" if missing else "")
            + (f", unexpected {codes_of(extra)}" if extra else ""))
    return out


codes_of = codes


def parse_full_deck(codes: Any) -> list[Card] | None:
    """A ``deck`` option of one whole 52-card deck (None: deal at random, returned as None).

    Raises:
        OptionError: see :func:`parse_deck`.
    """
    return None if codes is None else parse_deck(codes, full_deck(), "the 52 cards of one deck")
