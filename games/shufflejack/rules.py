"""ShuffleJack: Blackjack hands from a 5 x 5 tableau, over up to seven rounds.

A solitaire designed by Randy Rasa (the seed's rules text, restated in
``docs/rules/shufflejack.md``). Each round deals a fresh
shuffled deck (RULINGS J9): 25 cards fill the tableau, positions 1-25 row by row. The player
removes hands: 2-5 cards in one row or one column whose Blackjack count is exactly 21
(J1, J2). The deck may be clicked at any time to consolidate the tableau and deal into the
empty positions (J4, J5). Once the deck is empty, "next" ends the round (J7); the round
advances only when its hands outnumber the cards left (J8), at most 7 rounds (J10). Round
``r`` has ``r - 1`` locked positions, drawn from the seed and kept from round to round; they
unlock the moment the deck is empty (J6). Round score = (hands + bonus) x round (J11).

Readings beyond the RULINGS (documented in ``docs/rules/shufflejack.md``):

* "deal" is offered only when it changes something: the deck has cards and a position is
  empty. If the tableau is full, no hand can be made and the deck still has cards, the
  player is stuck: "next" is then offered too, and ends the round counting the deck's cards
  as left over (so the round fails, J8).
* A round passed in round 7 wins the game (``winner`` 0); a failed round or a resignation
  ends it with ``winner`` ``None``. Resigning scores no part of the current round.
* The ``deck`` option fixes round 1's deck: index 0 is dealt to position 1, index 25 is the
  first card the deck deals after that. Later rounds and the locked positions come from the
  seed.

Actions (tableau positions are ints 1..25, row by row)::

    ("hand", p1, p2, ...)   cash in a hand, positions ascending
    ("deal",)               consolidate the tableau and deal into empty positions
    ("next",)               end the round
    ("resign",)             abandon the game
"""

from __future__ import annotations

from collections.abc import Mapping
from itertools import pairwise
from typing import Any, ClassVar

from .. import cards as C
from ..base import Action, Event, GameType
from ..errors import IllegalAction, SnapshotError, UnknownAction
from ..options import SEED, Option
from ..rng import GameRNG
from ..solo import POINTS_GAME, CheckedSoloGame
from .bots import greedy
from .hands import (
    HAND_SHAPES,
    LINE_OF_PAIR,
    POSITIONS,
    ROUNDS,
    SIZE,
    advances,
    card_value,
    is_blackjack,
    round_score,
)

VERBS = frozenset({"hand", "deal", "next", "resign"})

OPTIONS: tuple[Option, ...] = (
    SEED,
    Option("deck", list, None,
           "Round 1's deck: 52 card codes, index 0 dealt first (to position 1). None: "
           "shuffle by seed."),
)

class ShuffleJack(CheckedSoloGame):
    """The ShuffleJack engine (solo, seat 0); rules and actions in the module docstring.

    ``outcome()["scores"]`` is ``[total score]`` (sum of the round scores, J11); ``winner``
    is 0 only when round 7 is passed.

    Args:
        options: Room options (:data:`OPTIONS`): ``seed`` and ``deck``.
        seats: Must be 1.

    Raises:
        OptionError: unknown option, bad value (a ``deck`` that is not exactly the 52 cards),
            or a seat count other than 1.
    """

    name: ClassVar[str] = "shufflejack"
    title: ClassVar[str] = "ShuffleJack"
    OPTIONS: ClassVar[tuple[Option, ...]] = OPTIONS
    TYPE: ClassVar[GameType] = POINTS_GAME
    VERBS: ClassVar[frozenset[str]] = VERBS

    def __init__(self, options: Mapping[str, Any] | None = None, seats: int = 1) -> None:
        super().__init__(options, seats)
        first = C.parse_full_deck(self.options["deck"])
        self.rng = GameRNG(self.options["seed"])
        self.round = 0
        self.locked: list[int] = []
        self.tableau: list[int | None] = [None] * POSITIONS
        self.deck: list[int] = []
        self.cashed: list[int] = []
        self.hands = 0
        self.total_hands = 0
        self.round_scores: list[int] = []
        self.over_reason: str | None = None
        self.won = False
        self.passed = 0
        self._cache: tuple[int, list[Action]] | None = None
        self._start_round(first, [])

    # -- rules ----------------------------------------------------------------------------

    def _start_round(self, order: list[int] | None, events: list[Event]) -> None:
        """Begin the next round: fresh deck (J9), one more locked position (J6), deal 25."""
        self.round += 1
        if order is None:
            order = C.full_deck()
            self.rng.shuffle(order)
        if self.round > 1:
            free = [p for p in range(1, POSITIONS + 1) if p not in self.locked]
            self.locked.append(free[self.rng.randrange(len(free))])
        self.deck = order[::-1]  # top of the deck at the end
        self.tableau = [self.deck.pop() for _ in range(POSITIONS)]
        self.cashed = []
        self.hands = 0
        events.append({"type": "round", "round": self.round, "locked": sorted(self.locked)})

    def locks_active(self) -> bool:
        """Locked positions count only while the deck has cards (RULINGS J6)."""
        return bool(self.deck) and bool(self.locked)

    def cards_left(self) -> int:
        """Cards not cashed in this round (tableau plus deck)."""
        return 52 - len(self.cashed)

    def hand_shapes(self) -> list[tuple[int, ...]]:
        """Every valid hand now, as ascending 1-based positions (J1, J2, J6), sorted."""
        usable = [c is not None for c in self.tableau]
        if self.locks_active():
            for p in self.locked:
                usable[p - 1] = False
        out: list[tuple[int, ...]] = []
        tab = self.tableau
        for shape in HAND_SHAPES:
            if all(usable[i] for i in shape) and is_blackjack([tab[i] for i in shape]):  # type: ignore[misc]
                out.append(tuple(i + 1 for i in shape))
        return out

    def can_deal(self) -> bool:
        """``deal`` changes something: the deck has cards and a position is empty (J5)."""
        return bool(self.deck) and None in self.tableau

    def stuck(self) -> bool:
        """Deck not empty, tableau full and no hand: only ``next`` can end the round."""
        return bool(self.deck) and not self.can_deal() and not self.hand_shapes()

    # -- the contract ---------------------------------------------------------------------

    @property
    def over(self) -> bool:
        """True after a failed round, round 7, or a resignation."""
        return self.over_reason is not None

    def _moves(self) -> list[Action]:
        """Hands (J1, J2, J6; sorted by positions), then ``deal`` when it changes something
        (J5) and ``next`` once the deck is empty (J7) or the player is stuck (the module's
        reading); ``resign`` follows them in :meth:`legal_actions`. Cached per ``state_id``
        (do not mutate)."""
        if self._cache is not None and self._cache[0] == self.state_id:
            return self._cache[1]
        out: list[Action] = [("hand", *shape) for shape in self.hand_shapes()]
        if self.can_deal():
            out.append(("deal",))
        # Deck empty (J7), or stuck (no hand, no deal: the module's reading beyond J7).
        if not self.deck or not out:
            out.append(("next",))
        self._cache = (self.state_id, out)
        return out

    def _act(self, verb: str, positions: list[int]) -> list[Event]:
        """Carry out a well-formed action (see :meth:`apply`), checked in full first.

        Returns:
            Public events, e.g. ``{"type": "hand", "positions": [1, 2], "cards": [...]}``.

        Raises:
            IllegalAction: the rules forbid it: a hand that is not 2-5 positions, not
                ascending, not in one row or column, on an empty or locked position, or not
                worth 21; ``deal`` with an empty deck or a full tableau; ``next`` while the
                deck has cards (and the player is not stuck).
        """
        events: list[Event] = []
        if verb == "hand":
            self._check_hand(positions)
            self._cash(positions, events)
        elif verb == "deal":
            if not self.deck:
                raise IllegalAction("the deck is empty: make hands or end the round (next)")
            if None not in self.tableau:
                raise IllegalAction("the tableau is full: there is nowhere to deal")
            self._deal(events)
        elif verb == "next":
            if self.deck and not self.stuck():
                raise IllegalAction(f"the deck still has {len(self.deck)} cards: next ends a "
                                    "round only once the deck is empty")
            self._end_round(events)
        else:
            self._finish("resigned", events)
        return events

    def _parse_args(self, verb: str, args: list[Any]) -> list[int]:
        """Tableau positions of a ``hand``; the other verbs take none.

        Raises:
            UnknownAction: a position that is not an int 1..25, or arguments to ``deal``,
                ``next`` or ``resign``.
        """
        if verb != "hand":
            if args:
                raise UnknownAction(f"{verb} takes no arguments")
            return []
        for p in args:
            if isinstance(p, bool) or not isinstance(p, int) or not 1 <= p <= POSITIONS:
                raise UnknownAction(f"tableau positions are ints 1..25, not {p!r}")
        return args

    def _check_hand(self, positions: list[int]) -> None:
        if not 2 <= len(positions) <= SIZE:
            raise IllegalAction(f"a hand has 2 to 5 cards, not {len(positions)}")
        if any(b <= a for a, b in pairwise(positions)):
            raise IllegalAction("list a hand's positions once each, in ascending order")
        idx = [p - 1 for p in positions]
        lines = {LINE_OF_PAIR.get(pair, -1) for pair in pairwise(idx)}
        if len(lines) != 1 or -1 in lines:
            raise IllegalAction("a hand's cards must lie in one row or one column")
        empty = [p for p in positions if self.tableau[p - 1] is None]
        if empty:
            raise IllegalAction(f"position(s) {empty} are empty")
        if self.locks_active():
            bad = [p for p in positions if p in self.locked]
            if bad:
                raise IllegalAction(f"position(s) {bad} are locked while the deck has cards")
        cards = [c for c in (self.tableau[i] for i in idx) if c is not None]
        if not is_blackjack(cards):
            total = sum(card_value(c) for c in cards)
            raise IllegalAction(f"{' '.join(C.codes(cards))} counts {total} "
                                "(aces 1 or 11), not 21")

    def _cash(self, positions: list[int], events: list[Event]) -> None:
        cards = [self.tableau[p - 1] for p in positions]
        for p in positions:
            self.tableau[p - 1] = None
        self.cashed.extend(cards)  # type: ignore[arg-type]
        self.hands += 1
        self.total_hands += 1
        events.append({"type": "hand", "positions": list(positions),
                       "cards": C.codes(cards), "hands": self.hands})  # type: ignore[arg-type]

    def _deal(self, events: list[Event]) -> None:
        """Consolidate (RULINGS J4), then deal into the empty positions in order."""
        tab = self.tableau
        lo, hi = 0, POSITIONS - 1
        moves = 0
        while True:
            while lo < POSITIONS and tab[lo] is not None:
                lo += 1
            while hi >= 0 and tab[hi] is None:
                hi -= 1
            if lo >= hi:
                break
            tab[lo], tab[hi] = tab[hi], None
            moves += 1
        dealt = 0
        for i in range(POSITIONS):
            if tab[i] is None and self.deck:
                tab[i] = self.deck.pop()
                dealt += 1
        events.append({"type": "deal", "moved": moves, "dealt": dealt, "deck": len(self.deck)})

    def _end_round(self, events: list[Event]) -> None:
        """Score the round (J11); advance (J8) unless it failed or was round 7 (J10)."""
        left = self.cards_left()
        score = round_score(self.hands, left, self.round)
        self.round_scores.append(score)
        passed = advances(self.hands, left)
        events.append({"type": "round_over", "round": self.round, "hands": self.hands,
                       "left": left, "score": score, "passed": passed})
        self.passed += passed
        if not passed:
            self._finish(f"round {self.round} failed: {self.hands} hands, {left} cards left",
                         events)
        elif self.round >= ROUNDS:
            self.won = True
            self._finish(f"all {ROUNDS} rounds passed", events)
        else:
            self._start_round(None, events)

    def _finish(self, reason: str, events: list[Event]) -> None:
        if reason == "resigned":
            reason = f"resigned in round {self.round}"
        self.over_reason = reason
        events.append({"type": "game_over", "reason": reason, "score": self.score()})

    def score(self) -> int:
        """Total score: sum of the scored rounds (J11)."""
        return sum(self.round_scores)

    def outcome(self) -> dict[str, Any] | None:
        """``None`` while running; then ``{"winner": 0 if round 7 was passed else None,
        "reason": str, "scores": [total score]}``."""
        if not self.over:
            return None
        return {"winner": 0 if self.won else None, "reason": self.over_reason,
                "scores": [self.score()]}

    def stats(self) -> dict[str, Any]:
        """``{"rounds": rounds reached, "passed": rounds passed, "hands": hands in all,
        "score": total score}``."""
        return {"rounds": self.round, "passed": self.passed, "hands": self.total_hands,
                "score": self.score()}

    def default_action(self, seat: object) -> Action | None:
        """The greedy bot's choice (:func:`greedy`); never resigns. ``None`` if it cannot
        act."""
        if self.over or not self._is_player(seat):
            return None
        return greedy(self.view(0), None)

    def view(self, seat: int | None) -> dict[str, Any]:
        """The public table (the tableau is face up; the deck is shown as a count).

        Returns:
            The contract keys plus ``round`` (1..7), ``rounds`` (7), ``tableau`` (25 codes or
            ``None`` for empty positions, position 1 first), ``locked`` (positions, sorted),
            ``locks_active``, ``deck`` (cards in the deck), ``hands`` (this round),
            ``cards_left`` (tableau plus deck), ``total_hands``, ``round_scores`` and
            ``score``.
        """
        return {
            **self._contract_view(seat),
            "round": self.round,
            "rounds": ROUNDS,
            "tableau": [None if c is None else C.code(c) for c in self.tableau],
            "locked": sorted(self.locked),
            "locks_active": self.locks_active(),
            "deck": len(self.deck),
            "hands": self.hands,
            "cards_left": self.cards_left(),
            "total_hands": self.total_hands,
            "round_scores": list(self.round_scores),
            "score": self.score(),
        }

    def card_locations(self) -> dict[str, list[int]]:
        """Zones: ``tableau``, ``deck`` and ``cashed`` (this round's hands); every round
        gathers all 52 cards into a fresh deck."""
        return {"tableau": [c for c in self.tableau if c is not None],
                "deck": list(self.deck), "cashed": list(self.cashed)}

    # -- snapshot -------------------------------------------------------------------------

    def _snapshot_table(self) -> dict[str, Any]:
        """Round, locked positions, tableau, deck, cashed cards, hands, scores and the end."""
        return {
            "round": self.round,
            "locked": list(self.locked),
            "tableau": list(self.tableau),
            "deck": list(self.deck),
            "cashed": list(self.cashed),
            "hands": self.hands,
            "total_hands": self.total_hands,
            "round_scores": list(self.round_scores),
            "over_reason": self.over_reason,
            "won": self.won,
            "passed": self.passed,
        }

    def _restore_table(self, data: Mapping[str, Any]) -> None:
        """:meth:`_snapshot_table`'s fields (and an empty legal-move cache).

        Raises:
            SnapshotError: a tableau that is not 25 positions.
        """
        self.round = int(data["round"])
        self.locked = [int(p) for p in data["locked"]]
        self.tableau = list(data["tableau"])
        if len(self.tableau) != POSITIONS:
            raise SnapshotError("the tableau must have 25 positions")
        self.deck = list(data["deck"])
        self.cashed = list(data["cashed"])
        self.hands = int(data["hands"])
        self.total_hands = int(data["total_hands"])
        self.round_scores = [int(s) for s in data["round_scores"]]
        self.over_reason = data["over_reason"]
        self.won = bool(data["won"])
        self.passed = int(data["passed"])
        self._cache = None
