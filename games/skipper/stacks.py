"""Skipper's cards and stacks: the room options, the rule parameters they select, one seat's
cards, what a stack takes (RULINGS K1-K4) and which cards can never be played (K6).

Stacks (K1): each suit stack keeps ``E``, the set of ranks its top may stand for, as a
bitmask (bit ``e`` set = the top may stand for ``e``). A natural card of rank ``r`` needs
``r - 1`` in ``E``; a skipper shifts every value by each of its skip amounts. A stack is
complete (K3) when its top card is a finishing card of its own suit and ``E`` holds a value
of at least the finishing value.

The skip table (which ranks skip, and by how much) is :func:`skip_amounts`, the one place it
is written; the engine (:class:`Rules`) and the bots read it there.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, Final

from .. import cards as C
from ..errors import OptionError, UnknownAction
from ..options import SEED, Option

#: Stack names: the suit letters ``"C"``, ``"D"``, ``"H"``, ``"S"``.
SUIT_LETTERS = C.SUITS
#: Card number -> its code, rank (1..13) and suit (0..3), for every card of every deck.
CODE: Final = [C.code(c) for c in range(C.MAX_DECKS * 52)]
RANK: Final = [c % 13 + 1 for c in range(C.MAX_DECKS * 52)]
SUIT: Final = [c // 13 % 4 for c in range(C.MAX_DECKS * 52)]
#: Card number -> its actions, built once and shared (tuples: never changed), so that
#: ``legal_actions`` makes no tuple and lists of them compare by identity (issue #43):
#: ``("play", code, stack)`` for each stack in order, ``("discard" | "auction" | "bid", code)``.
#: (Typed as tuples of any length: a compiled build keeps a fixed-length tuple unboxed and
#: would box it anew on every read.)
PLAY_ACTS: Final[list[tuple[tuple[str, ...], ...]]] = [
    tuple(("play", code, stack) for stack in SUIT_LETTERS) for code in CODE]
DISCARD_ACTS: Final[list[tuple[str, ...]]] = [("discard", code) for code in CODE]
AUCTION_ACTS: Final[list[tuple[str, ...]]] = [("auction", code) for code in CODE]
BID_ACTS: Final[list[tuple[str, ...]]] = [("bid", code) for code in CODE]
END_ACT: Final[tuple[str, ...]] = ("end",)
PASS_ACT: Final[tuple[str, ...]] = ("pass",)
RESIGN_ACT: Final[tuple[str, ...]] = ("resign",)
#: Values 0..12: a skipper must leave some e <= 12 (K4).
CAP: Final = (1 << 13) - 1

MODES = ("solo", "multi", "race")
# Phases of a seat's turn (the turn table: :data:`TURN`).
START: Final = "start"
PLAYED: Final = "played"
DISCARDED: Final = "discarded"
AUCTIONED: Final = "auctioned"
# Seat status.
ACTIVE: Final = "active"
WON: Final = "won"
OUT: Final = "out"

# The turn's state machine (K5, K9), one table (the design notes' "One transition table",
# as h11 keeps its state machine): for the phase of the acting seat's turn, the verbs it
# takes and the phase each leads to. A verb not in its phase's row is refused with the row's
# reason (WHY_NOT); legal_actions lists a row's verbs in order, each with the cards allowed.
#   start      nothing done yet: play, auction (multi), discard, or end (= pass, K5)
#   played     >= 1 card played: play more or end                          K5 "never both"
#   discarded  >= 1 card discarded: discard more or end                    K5
#   auctioned  the auction failed: discard or end (same rule as K5)        K9
# "end" draws (K6) and hands the turn on; "auction" opens the bids (K10): a sale ends the
# turn, no sale leads to "auctioned". "resign" is taken at every point, bids included.
TURN: Final[dict[str, dict[str, str]]] = {
    START: {"play": PLAYED, "auction": AUCTIONED, "discard": DISCARDED, "end": START},
    PLAYED: {"play": PLAYED, "end": START},
    DISCARDED: {"discard": DISCARDED, "end": START},
    AUCTIONED: {"discard": DISCARDED, "end": START},
}
#: Why a verb is not in a phase's row of :data:`TURN`.
WHY_NOT: Final = {
    START: "{verb} is not possible at the start of a turn",
    PLAYED: "you have played this turn: play more or end (K5)",
    DISCARDED: "you have discarded this turn: discard more or end (K5)",
    AUCTIONED: "after a failed auction you may only discard or end (K9)",
}
#: Phases in which nothing has been played or discarded yet: "end" there is a pass, which
#: K5 allows only while some card in hand is playable (or the hand is empty).
PASSING: Final = (START, AUCTIONED)
#: The verbs of the seat whose bid it is, during an auction (K10).
BIDDING: Final = ("bid", "pass")
#: Verbs and their arity (the verb included).
ARITY: Final = {"play": 3, "discard": 2, "end": 1, "auction": 2, "bid": 2, "pass": 1, "resign": 1}

OPTIONS: tuple[Option, ...] = (
    SEED,
    Option("mode", str, "solo", "solo, multi (turns, auctions, skip-draws) or race (K14).",
           choices=MODES),
    Option("deck", list, None,
           "Explicit stock order as card codes, first drawn first: one list for every seat, "
           "or one list per seat. Must hold exactly the deck's cards (48, or 52 with "
           "no_aces_out)."),
    Option("turn_limit", int, 500, "Turns per seat before the game ends unfinished (K7).",
           min=1, max=100_000),
    Option("first_seat", int, 0, "Seat that takes the first turn in multi (K13).",
           min=0, max=5),
    Option("skip_draws", bool, None,
           "Every skipper played makes every other seat draw one card (K11). Default: on in "
           "multi, off in race (K14); meaningless in solo."),
    Option("shuffle_on_flip", bool, False,
           "Shuffle the discard pile when it becomes the new draw pile, instead of flipping "
           "it over (K6 option)."),
    Option("hand_size", int, 5, "Cards in hand after each draw; Harder: 4 or 3.",
           choices=(3, 4, 5)),
    Option("strong_skippers", bool, False,
           "Easier: kings skip 1-3, queens 1-2, and jacks become skippers skipping 1."),
    Option("recycle_skippers", bool, False,
           "Easier: a skipper played as a skip goes to the discard pile (and so back into the "
           "draw pile) instead of staying on the stack."),
    Option("king_finishes", bool, False,
           "Easier, with recycle_skippers: a book is finished only by its own king."),
    Option("play_from_discard", bool, False,
           "Easier: the top card of your discard pile may be played like a hand card."),
    Option("skippers_own_suit", bool, False,
           "Harder: a skipper may be played only on its own suit's stack."),
    Option("no_trashing", bool, False,
           "Harder: dead cards are never trashed; they stay in hand until discarded (this is "
           "K6's auto_trash preference turned off)."),
    Option("no_aces_out", bool, False,
           "Harder: the aces are shuffled into the deck; each stack must be started by its ace."),
    Option("discard_only_when_stuck", bool, False,
           "Harder: you may discard only when no card in your hand is playable."),
    Option("weak_skippers", bool, False,
           "Harder: only kings skip (exactly 1); queens are plain cards; books end with a "
           "queen (or a skipping king of the suit reaching 12)."),
    Option("remove_four", bool, False,
           "Harder: before the deal, 4 random cards are removed from each deck unseen."),
)


def skip_amounts(options: Mapping[str, Any]) -> dict[int, tuple[int, ...]]:
    """The skip table: rank -> the amounts a skipper of that rank skips (RULINGS K1, K2: a
    queen exactly 1, a king 1 or 2; the Easier ``strong_skippers``: a jack 1, a queen 1-2, a
    king 1-3; the Harder ``weak_skippers``: only a king, exactly 1).

    Args:
        options: The game's options (a view's ``options`` will do: these are public).
    """
    if options.get("strong_skippers"):
        return {11: (1,), 12: (1, 2), 13: (1, 2, 3)}
    if options.get("weak_skippers"):
        return {13: (1,)}
    return {12: (1,), 13: (1, 2)}


def values_of(e: int) -> list[int]:
    """The values in bitmask ``e`` as a sorted list (a fresh copy)."""
    out = _VALUES_MEMO.get(e)
    if out is None:
        out = _VALUES_MEMO[e] = [v for v in range(17) if e >> v & 1]
    return list(out)


_VALUES_MEMO: Final[dict[int, list[int]]] = {}


def bits_of(values: Any) -> int:
    """The bitmask of an iterable of values (the inverse of :func:`values_of`)."""
    out = 0
    for v in values:
        out |= 1 << v
    return out


def _min_value(e: int) -> int:
    return (e & -e).bit_length() - 1


class Seat:
    """One player's cards and turn state (K8: every seat has its own deck and piles).

    Attributes:
        hand: Card numbers, sorted.
        stock: The draw pile, its last item on top.
        discard: The discard pile, its last item on top.
        trash: Dead cards set aside (K6).
        removed: Cards ``remove_four`` took out unseen.
        values: Each stack's ``E`` as a bitmask (K1).
        stacks: Each stack's cards, bottom first.
        complete: Whether each stack is complete (K3).
        turns: Turns taken.
        phase: The phase of its turn (``START``, ``PLAYED``, ``DISCARDED``, ``AUCTIONED``).
        status: ``ACTIVE``, ``WON`` or ``OUT``.
        auto_trash: Its K6 preference (RULINGS K6m): trash dead cards when drawn.
    """

    #: The fields, in snapshot order (a literal: a compiled class has no ``__slots__`` to
    #: read at class creation).
    FIELDS: ClassVar[tuple[str, ...]] = (
        "hand", "stock", "discard", "trash", "removed", "values", "stacks", "complete",
        "turns", "phase", "status", "auto_trash")
    __slots__ = FIELDS

    def __init__(self, auto_trash: bool = True) -> None:
        self.hand: list[int] = []
        self.stock: list[int] = []
        self.discard: list[int] = []
        self.trash: list[int] = []
        self.removed: list[int] = []
        self.values = [0, 0, 0, 0]
        self.stacks: list[list[int]] = [[], [], [], []]
        self.complete = [False, False, False, False]
        self.turns = 0
        self.phase = START
        self.status = ACTIVE
        self.auto_trash = auto_trash

    def copy(self) -> Seat:
        """A copy with lists of its own."""
        q = Seat(self.auto_trash)  # (not Seat.__new__: a compiled class runs __init__)
        q.hand, q.stock, q.discard = list(self.hand), list(self.stock), list(self.discard)
        q.trash, q.removed, q.values = list(self.trash), list(self.removed), list(self.values)
        q.stacks = [list(x) for x in self.stacks]
        q.complete = list(self.complete)
        q.turns, q.phase, q.status = self.turns, self.phase, self.status
        q.auto_trash = self.auto_trash
        return q


class Rules:
    """The rule parameters derived from a game's options (K1-K4, K6 and the seed's variants),
    and the stack rules that read them.

    Args:
        o: The game's resolved options.

    Raises:
        OptionError: options that cannot go together.

    Attributes:
        skips: rank -> tuple of skip amounts for skipper ranks (:func:`skip_amounts`).
        min_skip: rank -> the smallest of its skips.
        finishing: ranks that may finish a book (K3).
        finish_value: the value ``E`` must reach for a book to be finished (K3).
        recycle: skippers go to the discard pile (Easier rule).
        own_suit_only: skippers only on their own suit's stack (Harder rule).
        trash: the room's default ``auto_trash`` (off with ``no_trashing``).
        aces_out: the aces start the stacks (off with ``no_aces_out``).
        discard_only_when_stuck, play_from_discard: the Harder and Easier rules.
        hand_size: cards in hand after a draw.
    """

    __slots__ = ("skips", "min_skip", "finishing", "finish_value", "recycle", "own_suit_only",
                 "trash", "aces_out", "discard_only_when_stuck", "play_from_discard",
                 "hand_size")

    def __init__(self, o: Mapping[str, Any]) -> None:
        if o["strong_skippers"] and o["weak_skippers"]:
            raise OptionError("strong_skippers and weak_skippers cannot both be on")
        if o["king_finishes"] and not o["recycle_skippers"]:
            raise OptionError("king_finishes needs recycle_skippers (seed: 'If using the "
                              "discard skippers rule above')")
        self.skips = skip_amounts(o)
        self.min_skip = {r: min(s) for r, s in self.skips.items()}
        if o["king_finishes"]:
            self.finishing, self.finish_value = frozenset({13}), 13
        elif o["weak_skippers"]:
            self.finishing, self.finish_value = frozenset({12, 13}), 12
        else:
            self.finishing, self.finish_value = frozenset({11, 12, 13}), 11  # K3
        self.recycle = bool(o["recycle_skippers"])
        self.own_suit_only = bool(o["skippers_own_suit"])
        self.trash = not o["no_trashing"]
        self.aces_out = not o["no_aces_out"]
        self.discard_only_when_stuck = bool(o["discard_only_when_stuck"])
        self.play_from_discard = bool(o["play_from_discard"])
        self.hand_size = int(o["hand_size"])

    def result(self, card: int, p: Seat, s: int) -> int | None:
        """New ``E`` of stack ``s`` of ``p`` after ``card`` is played on it, or None if
        illegal: K1 (naturals and skips), K2 (skip amounts), K3 (complete stacks take
        nothing), K4 (a skipper must leave some e <= 12) and the variants' limits."""
        if p.complete[s]:
            return None
        e = p.values[s]
        r = RANK[card]
        own = SUIT[card] == s
        if own and e >> (r - 1) & 1:
            return 1 << r  # natural (an own-suit face card is played as a natural when it can)
        skips = self.skips.get(r)
        if skips is None or e == 1 or (self.own_suit_only and not own):
            return None  # e == 1: E = {0}, an unstarted stack takes only its ace
        new = 0
        for k in skips:
            new |= e << k
        return new if new & CAP else None

    def why_not(self, card: int, p: Seat, s: int) -> str:
        """Why ``card`` cannot go on stack ``s`` of ``p`` (:meth:`result` is None), naming
        the rule."""
        code, stack = CODE[card], SUIT_LETTERS[s]
        if p.complete[s]:
            return f"the {stack} stack is complete and takes no more cards (K3)"
        e = p.values[s]
        r = RANK[card]
        needs = ", ".join(str(v + 1) for v in values_of(e))
        if e == 1:
            return f"the {stack} stack has not been started: only its ace can start it"
        if r in self.skips:
            if self.own_suit_only and SUIT[card] != s:
                return f"{code} is a skipper that may only go on its own suit's stack"
            return f"{code} would skip the {stack} stack past 12 (K4)"
        if SUIT[card] != s:
            return f"{code} is not a {stack} card and not a skipper (K1)"
        return f"{code} cannot go on the {stack} stack: it takes rank {needs} next (K1)"

    def is_finished(self, p: Seat, s: int) -> bool:
        """K3: top card a finishing card of the stack's own suit, E holding the value."""
        stack = p.stacks[s]
        if not stack:
            return False
        top = stack[-1]
        return (SUIT[top] == s and RANK[top] in self.finishing
                and p.values[s] >> self.finish_value != 0)

    def alive_on(self, card: int, p: Seat, s: int) -> bool:
        """Could ``card`` ever be played on stack ``s`` of ``p`` (K6 "dead" test)?

        E only grows, so a natural rank ``r`` needs ``r - 1 >= min(E)``, and a skipper needs
        ``min(E) + smallest skip <= 12`` (K4).
        """
        if p.complete[s]:
            return False
        lo = _min_value(p.values[s])
        r = RANK[card]
        own = SUIT[card] == s
        if own and r - 1 >= lo:
            return True
        ms = self.min_skip.get(r)
        if ms is None or (self.own_suit_only and not own):
            return False
        return max(lo, 1) + ms <= 12

    def dead_for(self, card: int, p: Seat) -> bool:
        """K6: the card can never be played by ``p`` (its stacks only move upwards)."""
        if RANK[card] in self.skips and not self.own_suit_only:
            return not any(self.alive_on(card, p, s) for s in range(4))
        return not self.alive_on(card, p, SUIT[card])

    def playable(self, p: Seat) -> list[tuple[int, int]]:
        """(card, stack) pairs playable from ``p``'s hand (K1-K4), hand order then stack
        order."""
        out = []
        skips = self.skips
        for card in p.hand:  # (self.result called as a method: no bound method made)
            if RANK[card] in skips:
                for s in range(4):
                    if self.result(card, p, s) is not None:
                        out.append((card, s))
            elif self.result(card, p, SUIT[card]) is not None:  # a plain card: own stack only
                out.append((card, SUIT[card]))
        return out

    def unwinnable(self, p: Seat, left: list[int], copies: int) -> dict[str, Any] | None:
        """K7: can ``p`` provably never finish some incomplete stack? If so, why: the keys
        the seat's ``unwinnable`` event carries besides ``seat``: ``{"why", "stack"}``, where
        ``why`` is ``"cards"`` (too few cards left for the plays the incomplete stacks need;
        ``stack``: the first of them), ``"gone"`` (every finishing card of ``stack``'s suit
        is gone) or ``"unreachable"`` (none can be reached any more); else None.

        Sound, never hasty: it assumes the best case for everything still in play (every
        available skipper usable on this stack, as often as one is left). The seat is lost
        when its cards still to come (hand, draw and discard piles) are fewer than the plays
        its stacks need at the least, or when a stack is lost. A stack is lost when
        no finishing card of its suit is left (K7's example) or when none can ever be
        reached: the values the stack may still stand for are ``E`` grown by the naturals of
        its suit still in play and, while any skipper is, by skips (K1, K2, K4).

        Args:
            p: The seat.
            left: Cards gone for good from the seat's pool, counted by face (0..51).
            copies: Copies of each face in the pool (1, or the seat count in multi).
        """
        skips = self.skips
        any_skipper = any(left[s * 13 + r - 1] < copies for r in skips for s in range(4))
        big = max(max(k) for k in skips.values())
        small = min(self.min_skip.values())
        if not self.recycle:
            # Auctions only swap cards, so the cards the seat will ever play come from its
            # hand, draw pile and discard pile; each play raises a stack by at most ``big``.
            need = sum(max(1, -(-(self.finish_value - p.values[s].bit_length() + 1) // big))
                       for s in range(4) if not p.complete[s])
            if need > len(p.hand) + len(p.stock) + len(p.discard):
                first = next(s for s in range(4) if not p.complete[s])
                return {"why": "cards", "stack": SUIT_LETTERS[first]}
        for s in range(4):
            if p.complete[s]:
                continue
            lost = self._stack_lost(p, s, left, copies, any_skipper, big, small)
            if lost is not None:
                return {"why": lost, "stack": SUIT_LETTERS[s]}
        return None

    def _stack_lost(self, p: Seat, s: int, left: list[int], copies: int, any_skipper: bool,
                    big: int, small: int) -> str | None:
        """Why no finishing card can ever reach stack ``s`` (``"gone"``: every one is gone;
        ``"unreachable"``), or None when one still can (see :meth:`unwinnable`)."""
        skips = self.skips
        base = s * 13 - 1  # face of rank r in suit s is base + r
        reach = p.values[s]
        for v in range(13):
            if reach >> v & 1:
                if v < 13 and left[base + v + 1] < copies:
                    reach |= 1 << (v + 1)
                if any_skipper and v and v + small <= 12:
                    for k in range(1, big + 1):
                        reach |= 1 << (v + k)
        gone = True
        for r in self.finishing:
            if left[base + r] >= copies:
                continue  # every copy is gone
            gone = False
            if reach >> (r - 1) & 1:
                return None  # reachable as a natural
            if r in skips and not self.recycle and any(
                    reach >> v & 1 and v + self.min_skip[r] <= 12
                    and v + max(skips[r]) >= self.finish_value for v in range(1, 13)):
                return None  # reachable as its own skipper
        return "gone" if gone else "unreachable"


def fresh_stock(deck: int, rules: Rules) -> list[int]:
    """The cards of deck number ``deck`` that a seat's draw pile starts with, in deck order:
    all 52, less the aces when they start the stacks."""
    cards = C.full_deck(deck)
    if rules.aces_out:
        cards = [c for c in cards if RANK[c] != 1]
    return cards


def deck_orders(deck: Any, seats: int, rules: Rules) -> list[list[int]] | None:
    """The draw-pile orders the ``deck`` option sets (first drawn first), one per seat, or
    None when it is not set.

    Args:
        deck: The option: card codes for every seat, or one list of them per seat.
        seats: The seat count.
        rules: The game's rules (with the aces out, a deck has 48 cards).

    Raises:
        OptionError: not one list per seat, a code that is no card or of another seat's
            deck, or not exactly the cards of a deck.
    """
    if deck is None:
        return None
    lists = deck if deck and isinstance(deck[0], list) else [deck] * seats
    if len(lists) != seats:
        raise OptionError(f"deck: {len(lists)} lists for {seats} seats")
    return [_deck_order(i, codes, rules) for i, codes in enumerate(lists)]


def _deck_order(i: int, codes: Sequence[Any], rules: Rules) -> list[int]:
    order = []
    for text in codes:
        try:
            card = C.parse(text)
        except UnknownAction:
            raise OptionError(f"deck: not a card code: {text!r}") from None
        if C.deck_of(card) not in (0, i):
            raise OptionError(f"deck: {text} belongs to deck {C.deck_of(card)}, "
                              f"not seat {i}'s deck")
        order.append(C.face(card) + 52 * i)
    want = fresh_stock(i, rules)
    if sorted(order) != want:
        missing = sorted(set(want) - set(order))
        extra = sorted(set(order) - set(want))
        dupes = len(order) - len(set(order))
        raise OptionError(
            f"deck for seat {i} must hold exactly the {len(want)} cards of a deck"
            f"{' without aces' if rules.aces_out else ''}: missing "
            f"{C.codes(missing)}, unexpected {C.codes(extra)}, duplicates {dupes}")
    return order
