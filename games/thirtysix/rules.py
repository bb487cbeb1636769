"""Thirty-Six: a solo card game against two ENEMY stacks (the seed's rules text, restated in
``docs/rules/thirtysix.md``).

The 52 cards are dealt into two ENEMY stacks of 17 and a PLAYER stack of 18. Each turn the top
card of each ENEMY stack is turned face up; the player commits any subset of the row (the
face-up PLAYER cards) to meet or beat the ENEMY total. Seventeen turns empty the ENEMY stacks;
then the PLAYER collection is counted (number cards 1 point, faces 2, aces 3; the deck is
worth 72) and more than 36 points wins.

State machine (one table, :data:`PHASES`)::

    commit ──won──▶ take ──▶ (end of turn)
       │
       └──lost──▶ surrender ──▶ (end of turn)      (skipped when the rules fix the card)
    (end of turn) ──▶ draw ──▶ next turn's commit, or over after turn 17

With the Baltimore "two clubs" rule a turn whose ENEMY cards are both clubs resolves by
itself, before any decision (the ENEMY takes the whole row).

Readings beyond the RULINGS (documented in ``docs/rules/thirtysix.md``):

* The ``deck`` option lists the ENEMY left stack top first (indices 0-16), then the ENEMY
  right stack (17-33), then the PLAYER stack (34-51, the first six form the row).
* Under "surrender lowest" the lowest card is the one with the lowest count in the row
  (hearts doubled when that rule is on); ties are the player's choice. Combined with
  "discard right-most", the right-most of the lowest cards goes.
* The ``baltimore`` preset turns on the five Baltimore rules; the seed's four harder rules
  stay separate options (they conflict with Baltimore's row of four and lowest surrender).
* A player may resign at any time; the game then ends as a loss with the current score.

Actions (card codes are strings, see :mod:`.cards`)::

    ("commit", code, ...)   commit these row cards, listed in row order (none: concede the turn)
    ("take", code)          after a won turn: the ENEMY card to keep
    ("surrender", code)     after a lost turn: the row card the ENEMY takes
    ("resign",)             abandon the game (a loss)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from .. import cards as C
from ..base import Action, Event, GameType
from ..errors import IllegalAction, SnapshotError, UnknownAction
from ..options import SEED, Option
from ..rng import GameRNG
from ..solo import POINTS_GAME, CheckedSoloGame
from .bots import greedy
from .scoring import (
    ROW_SIZE,
    TARGET,
    TURNS,
    collection_score,
    enemy_total,
    player_total,
)

#: Phases of a game and the verbs each accepts (``resign`` is accepted in every live phase).
PHASES: dict[str, frozenset[str]] = {
    "commit": frozenset({"commit", "resign"}),
    "take": frozenset({"take", "resign"}),
    "surrender": frozenset({"surrender", "resign"}),
    "over": frozenset(),
}
VERBS = frozenset({"commit", "take", "surrender", "resign"})

#: The seed's four harder rules, each a room option.
HARDER_RULES = ("short_refill", "discard_rightmost", "ace_wins", "beat_faces")
#: The five Baltimore rules, each a room option; the ``baltimore`` preset turns all on.
BALTIMORE_RULES = ("row_of_four", "clubs_double", "two_clubs", "hearts_double",
                   "surrender_lowest")
RULES = HARDER_RULES + BALTIMORE_RULES


def _deck_option(name: str) -> Option:
    return Option(name, list, None,
                  "Explicit deal: 52 card codes; 0-16 ENEMY left stack (top first), 17-33 "
                  "ENEMY right stack, 34-51 PLAYER stack (top first). None: shuffle by seed.")


OPTIONS: tuple[Option, ...] = (
    SEED,
    _deck_option("deck"),
    Option("short_refill", bool, False,
           "Harder rule: an emptied row is refilled with only 3 cards (seed 'harder' 1)."),
    Option("discard_rightmost", bool, False,
           "Harder rule: a lost turn always costs the right-most row card (seed 'harder' 2)."),
    Option("ace_wins", bool, False,
           "Harder rule: the ENEMY wins every turn in which it shows an ace (seed 'harder' 3)."),
    Option("beat_faces", bool, False,
           "Harder rule: an ENEMY pair holding a face card must be beaten, not met "
           "(seed 'harder' 4)."),
    Option("row_of_four", bool, False, "Baltimore: the row holds at most 4 cards."),
    Option("clubs_double", bool, False, "Baltimore: ENEMY clubs count double (9D + 3C = 15)."),
    Option("two_clubs", bool, False,
           "Baltimore: two ENEMY clubs win the turn at once and take the whole row."),
    Option("hearts_double", bool, False, "Baltimore: hearts in the row count double."),
    Option("surrender_lowest", bool, False,
           "Baltimore: a lost turn costs the lowest-count row card (an ace if there is one)."),
    Option("baltimore", bool, False, "Preset: turns on all five Baltimore rules."),
)


class ThirtySix(CheckedSoloGame):
    """The Thirty-Six engine (solo, seat 0). See the module docstring for the rules and
    actions; ``outcome()["scores"]`` is ``[points in the PLAYER collection]`` (0..72) and
    ``winner`` is 0 when the score is more than 36.

    Args:
        options: Room options (:data:`OPTIONS`): ``seed``, ``deck``, the four harder rules,
            the five Baltimore rules and the ``baltimore`` preset.
        seats: Must be 1.

    Raises:
        OptionError: unknown option, bad value (e.g. a ``deck`` that is not exactly the 52
            cards), or a seat count other than 1.
    """

    name: ClassVar[str] = "thirtysix"
    title: ClassVar[str] = "Thirty-Six"
    OPTIONS: ClassVar[tuple[Option, ...]] = OPTIONS
    TYPE: ClassVar[GameType] = POINTS_GAME
    VERBS: ClassVar[frozenset[str]] = VERBS

    def __init__(self, options: Mapping[str, Any] | None = None, seats: int = 1) -> None:
        super().__init__(options, seats)
        deck = C.parse_full_deck(self.options["deck"])
        self._set_rules()
        self.rng = GameRNG(self.options["seed"])
        if deck is None:
            deck = C.full_deck()
            self.rng.shuffle(deck)
        # Stacks keep their top card at the end of the list.
        self.enemy: list[list[int]] = [deck[16::-1], deck[33:16:-1]]
        self.stack: list[int] = deck[51:33:-1]
        self.pair: list[int] = []
        self.row: list[int] = []
        self.collection: list[int] = []
        self.enemy_collection: list[int] = []
        self.committed: list[int] = []
        self.phase = "commit"
        self.turn = 1
        self.won = 0
        self.lost = 0
        self.reshuffles = 0
        self.end_reason: str | None = None
        self.resigned = False
        self.last: dict[str, Any] | None = None
        self._draw(self.row_max, [])
        self._start_turn([])

    def _set_rules(self) -> None:
        o = self.options
        preset = bool(o["baltimore"])
        self.rules: dict[str, bool] = {
            r: bool(o[r]) or (preset and r in BALTIMORE_RULES) for r in RULES
        }
        self.row_max = 4 if self.rules["row_of_four"] else ROW_SIZE
        self.refill = min(3, self.row_max) if self.rules["short_refill"] else self.row_max

    # -- rules helpers ------------------------------------------------------------------

    def enemy_total(self) -> int:
        """The current ENEMY total (seed "GAMEPLAY", Baltimore clubs double); 0 when over."""
        return enemy_total(self.pair, self.rules["clubs_double"])

    def player_total(self, committed: Sequence[int]) -> int:
        """Total of ``committed`` row cards under the current rules (Baltimore hearts)."""
        return player_total(committed, self.rules["hearts_double"])

    def wins_turn(self, committed: Sequence[int]) -> bool:
        """Whether committing ``committed`` wins this turn (RULINGS T1-T3, harder rules 3-4).

        Meet or beat the ENEMY total; with ``ace_wins`` an ENEMY ace always wins for the
        ENEMY; with ``beat_faces`` a pair holding a J/Q/K must be strictly beaten.
        """
        if self.rules["ace_wins"] and any(C.rank(c) == C.ACE for c in self.pair):
            return False
        mine, theirs = self.player_total(committed), self.enemy_total()
        if self.rules["beat_faces"] and any(C.rank(c) >= C.JACK for c in self.pair):
            return mine > theirs
        return mine >= theirs

    def surrender_choices(self) -> list[int]:
        """Row cards the ENEMY may take after a lost turn, in row order (RULINGS T2).

        Any row card by default; the lowest-count ones under ``surrender_lowest``; only the
        right-most (of those) under ``discard_rightmost``. ``[]`` when the row is empty.
        """
        choices = list(self.row)
        if choices and self.rules["surrender_lowest"]:
            low = min(self.player_total([c]) for c in choices)
            choices = [c for c in choices if self.player_total([c]) == low]
        if choices and self.rules["discard_rightmost"]:
            choices = choices[-1:]
        return choices

    def score(self) -> int:
        """Points now in the PLAYER collection (RULINGS T6)."""
        return collection_score(self.collection)

    # -- the contract -------------------------------------------------------------------

    @property
    def over(self) -> bool:
        """True after turn 17 or a resignation."""
        return self.phase == "over"

    def _moves(self) -> list[Action]:
        """The moves of the phase (see the module docstring), deterministic order; ``resign``
        follows them in :meth:`legal_actions`.

        ``commit``: every subset of the row, even none (T1), in row order (bit ``i`` of a
        counter = row card ``i``, counting up from the empty subset); ``take``: the ENEMY
        cards left to right (T3); ``surrender``: :meth:`surrender_choices` (T2).
        """
        out: list[Action] = []
        if self.phase == "commit":
            codes = C.codes(self.row)
            for mask in range(1 << len(codes)):
                out.append(("commit", *[c for i, c in enumerate(codes) if mask >> i & 1]))
        elif self.phase == "take":
            out = [("take", c) for c in C.codes(self.pair)]
        else:
            out = [("surrender", c) for c in C.codes(self.surrender_choices())]
        return out

    def _act(self, verb: str, cards: list[int]) -> list[Event]:
        """Carry out a well-formed action (see :meth:`apply`), checked in full first.

        Returns:
            Public events, e.g. ``{"type": "commit", "cards": [...], "total": 12,
            "enemy_total": 12, "result": "won"}``.

        Raises:
            IllegalAction: the verb does not fit the phase, or a card is not where the rule
                needs it (not in the row, out of row order, not a face-up ENEMY card, not one
                the rules let the ENEMY take).
        """
        if verb not in PHASES[self.phase]:
            raise IllegalAction(f"cannot {verb} now: {self._phase_hint()}")
        events: list[Event] = []
        if verb == "resign":
            self._finish("resigned", events)
        elif verb == "commit":
            self._check_commit(cards)
            self._commit(cards, events)
        elif verb == "take":
            if cards[0] not in self.pair:
                raise IllegalAction(f"{C.code(cards[0])} is not a face-up ENEMY card; take "
                                    f"one of {' '.join(C.codes(self.pair))}")
            self._take(cards[0], events)
        else:
            choices = self.surrender_choices()
            if cards[0] not in choices:
                raise IllegalAction(f"the ENEMY cannot take {C.code(cards[0])}: choose one of "
                                    f"{' '.join(C.codes(choices))}")
            self._surrender(cards[0], events)
        return events

    def _parse_args(self, verb: str, args: list[Any]) -> list[int]:
        """Card codes as ints.

        Raises:
            UnknownAction: ``resign`` with arguments, ``take``/``surrender`` without exactly
                one card, or a bad card code.
        """
        if verb == "resign" and args:
            raise UnknownAction("resign takes no arguments")
        if verb in ("take", "surrender") and len(args) != 1:
            raise UnknownAction(f"{verb} takes exactly one card code")
        return [C.parse(a) for a in args]

    def _phase_hint(self) -> str:
        return {
            "commit": "commit row cards first",
            "take": "choose which ENEMY card to take",
            "surrender": "choose the row card the ENEMY takes",
        }[self.phase]

    def _check_commit(self, cards: list[int]) -> None:
        last = -1
        for card in cards:
            if card not in self.row:
                raise IllegalAction(f"{C.code(card)} is not in the row")
            i = self.row.index(card)
            if i <= last:
                raise IllegalAction("list committed cards once each, in row order (left to "
                                    "right)")
            last = i

    # -- turn flow ----------------------------------------------------------------------

    def _start_turn(self, events: list[Event]) -> None:
        """Turn up the next ENEMY pair; auto-resolve Baltimore's two clubs (RULINGS T4)."""
        while True:
            self.pair = [self.enemy[0].pop(), self.enemy[1].pop()]
            events.append({"type": "reveal", "turn": self.turn, "cards": C.codes(self.pair),
                           "enemy_total": self.enemy_total()})
            if not (self.rules["two_clubs"]
                    and all(C.suit(c) == C.CLUBS for c in self.pair)):
                self.phase = "commit"
                return
            taken = self.row
            self.row = []
            self.enemy_collection.extend(taken + self.pair)
            self.lost += 1
            self.last = {"turn": self.turn,
                         "total": 0, "enemy_total": self.enemy_total(), "result": "two clubs",
                         "kept": 0, "to_enemy": C.codes(taken + self.pair)}
            events.append({"type": "two_clubs", "cards": C.codes(taken)})
            self.pair = []
            if not self._end_turn(events):
                return

    def _commit(self, cards: list[int], events: list[Event]) -> None:
        won = self.wins_turn(cards)
        total, theirs = self.player_total(cards), self.enemy_total()
        events.append({"type": "commit", "cards": C.codes(cards), "total": total,
                       "enemy_total": theirs, "result": "won" if won else "lost"})
        self.committed = cards
        self.last = {"turn": self.turn,
                     "total": total, "enemy_total": theirs, "result": "won" if won else "lost",
                     "kept": 0, "to_enemy": []}
        if won:
            self.won += 1
            self.phase = "take"
            return
        self.lost += 1
        choices = self.surrender_choices()
        if len(choices) > 1:
            self.phase = "surrender"
        elif choices:
            self._surrender(choices[0], events)
        else:
            self._resolve_loss(None, events)

    def _take(self, card: int, events: list[Event]) -> None:
        """Won turn (RULINGS T3): committed cards and ``card`` to the PLAYER collection."""
        other = [c for c in self.pair if c != card]
        kept = self.committed + [card]
        self.row = [c for c in self.row if c not in self.committed]
        self.collection.extend(kept)
        self.enemy_collection.extend(other)
        assert self.last is not None
        self.last["kept"] = len(kept)
        self.last["to_enemy"] = C.codes(other)
        events.append({"type": "take", "card": C.code(card), "to_enemy": C.codes(other)})
        self.pair = []
        self.committed = []
        if self._end_turn(events):
            self._start_turn(events)

    def _surrender(self, card: int, events: list[Event]) -> None:
        events.append({"type": "surrender", "card": C.code(card)})
        self._resolve_loss(card, events)

    def _resolve_loss(self, card: int | None, events: list[Event]) -> None:
        """Lost turn (RULINGS T2): ``card`` and both ENEMY cards to the ENEMY collection,
        the other committed cards to the PLAYER collection, uncommitted cards stay."""
        kept = [c for c in self.committed if c != card]
        gone = ([card] if card is not None else []) + self.pair
        self.row = [c for c in self.row if c != card and c not in kept]
        self.collection.extend(kept)
        self.enemy_collection.extend(gone)
        assert self.last is not None
        self.last["kept"] = len(kept)
        self.last["to_enemy"] = C.codes(gone)
        self.pair = []
        self.committed = []
        if self._end_turn(events):
            self._start_turn(events)

    def _end_turn(self, events: list[Event]) -> bool:
        """Finish the turn: draw (RULINGS T4) unless it was the last (T5). True if the game
        goes on."""
        if self.turn >= TURNS:
            self._finish("score", events)
            return False
        if self.row:
            want = 1 if len(self.row) < self.row_max else 0
        else:
            want = self.refill
        self._draw(want, events)
        self.turn += 1
        return True

    def _draw(self, n: int, events: list[Event]) -> None:
        """Draw ``n`` cards to the right of the row; an empty PLAYER stack is refilled by
        shuffling the PLAYER collection (seed, RULINGS T4)."""
        drawn = 0
        for _ in range(n):
            if not self.stack:
                if not self.collection:
                    break
                self.stack = self.collection
                self.collection = []
                self.rng.shuffle(self.stack)
                self.reshuffles += 1
                events.append({"type": "reshuffle", "count": len(self.stack)})
            self.row.append(self.stack.pop())
            drawn += 1
        if events is not None and drawn:
            events.append({"type": "draw", "count": drawn})

    def _finish(self, how: str, events: list[Event]) -> None:
        self.phase = "over"
        score = self.score()
        if how == "resigned":
            self.resigned = True
            self.end_reason = f"resigned with {score} points"
        elif score > TARGET:
            self.end_reason = f"scored {score} points, more than {TARGET}"
        else:
            self.end_reason = f"scored {score} points, not more than {TARGET}"
        events.append({"type": "game_over", "reason": self.end_reason, "score": score})

    def outcome(self) -> dict[str, Any] | None:
        """``None`` while running; then ``{"winner": 0 if more than 36 points (and not
        resigned) else None, "reason": str, "scores": [points]}`` (RULINGS T6)."""
        if self.phase != "over":
            return None
        score = self.score()
        win = score > TARGET and not self.resigned
        return {"winner": 0 if win else None, "reason": self.end_reason, "scores": [score]}

    def stats(self) -> dict[str, Any]:
        """``{"turns": turns played, "won": turns won, "lost": turns lost, "score": points,
        "reshuffles": PLAYER stack refills}``."""
        played = self.won + self.lost
        return {"turns": played, "won": self.won, "lost": self.lost, "score": self.score(),
                "reshuffles": self.reshuffles}

    def default_action(self, seat: object) -> Action | None:
        """The greedy bot's choice (:func:`greedy`) for seat 0; ``None`` when it cannot act.

        Never resigns.
        """
        if self.over or not self._is_player(seat):
            return None
        return greedy(self.view(0), None)

    def view(self, seat: int | None) -> dict[str, Any]:
        """The public table (everything in Thirty-Six is face up except stack order).

        Returns:
            The contract keys plus ``phase``, ``turn`` (1..17), ``turns`` (17), ``target``
            (36), ``enemy`` (face-up ENEMY cards), ``enemy_total``, ``enemy_stacks``
            (counts), ``row`` (left to right), ``committed`` (during take/surrender),
            ``player_stack`` (count), ``collection`` and ``enemy_collection`` (sorted: their
            order is not shown), ``score``, ``row_max``, ``refill``, ``rules`` (rule flags)
            and ``last`` (the last resolved turn, or ``None``: ``turn``, ``total``,
            ``enemy_total``, ``result``, ``kept`` = how many cards went to the PLAYER
            collection, ``to_enemy`` = the cards that went to the ENEMY collection; cards
            kept are not named, as a reshuffle may have hidden them in the PLAYER stack).
        """
        return {
            **self._contract_view(seat),
            "phase": self.phase,
            "turn": self.turn,
            "turns": TURNS,
            "target": TARGET,
            "enemy": C.codes(self.pair),
            "enemy_total": self.enemy_total() if self.pair else None,
            "enemy_stacks": [len(s) for s in self.enemy],
            "row": C.codes(self.row),
            "committed": C.codes(self.committed),
            "player_stack": len(self.stack),
            "collection": C.codes(sorted(self.collection)),
            "enemy_collection": C.codes(sorted(self.enemy_collection)),
            "score": self.score(),
            "row_max": self.row_max,
            "refill": self.refill,
            "rules": dict(self.rules),
            "last": None if self.last is None else {k: (list(v) if isinstance(v, list) else v)
                                                    for k, v in self.last.items()},
        }

    def card_locations(self) -> dict[str, list[int]]:
        """Zones: ``enemy_stack:0``, ``enemy_stack:1``, ``enemy`` (face up), ``row``
        (committed cards stay here until resolved), ``player_stack``, ``collection``,
        ``enemy_collection``."""
        return {
            "enemy_stack:0": list(self.enemy[0]),
            "enemy_stack:1": list(self.enemy[1]),
            "enemy": list(self.pair),
            "row": list(self.row),
            "player_stack": list(self.stack),
            "collection": list(self.collection),
            "enemy_collection": list(self.enemy_collection),
        }

    # -- snapshot -----------------------------------------------------------------------

    def _snapshot_table(self) -> dict[str, Any]:
        """Stacks, pair, row, collections, committed cards, phase, turn and counters, the
        end and the last turn."""
        return {
            "enemy": [list(self.enemy[0]), list(self.enemy[1])],
            "stack": list(self.stack),
            "pair": list(self.pair),
            "row": list(self.row),
            "collection": list(self.collection),
            "enemy_collection": list(self.enemy_collection),
            "committed": list(self.committed),
            "phase": self.phase,
            "turn": self.turn,
            "won": self.won,
            "lost": self.lost,
            "reshuffles": self.reshuffles,
            "end_reason": self.end_reason,
            "resigned": self.resigned,
            "last": None if self.last is None else {k: (list(v) if isinstance(v, list) else v)
                                                    for k, v in self.last.items()},
        }

    def _restore_table(self, data: Mapping[str, Any]) -> None:
        """The rules (from the options) and :meth:`_snapshot_table`'s fields.

        Raises:
            SnapshotError: an unknown phase.
        """
        self._set_rules()
        self.enemy = [list(data["enemy"][0]), list(data["enemy"][1])]
        self.stack = list(data["stack"])
        self.pair = list(data["pair"])
        self.row = list(data["row"])
        self.collection = list(data["collection"])
        self.enemy_collection = list(data["enemy_collection"])
        self.committed = list(data["committed"])
        self.phase = str(data["phase"])
        if self.phase not in PHASES:
            raise SnapshotError(f"bad phase {self.phase!r}")
        self.turn = int(data["turn"])
        self.won = int(data["won"])
        self.lost = int(data["lost"])
        self.reshuffles = int(data["reshuffles"])
        self.end_reason = data["end_reason"]
        self.resigned = bool(data["resigned"])
        last = data["last"]
        self.last = None if last is None else {
            k: (list(v) if isinstance(v, (list, tuple)) else v) for k, v in last.items()}
