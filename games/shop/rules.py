"""Shop Solitaire: light the candles, balance the scales, fill the ledger (the seed's rules
text as read by RULINGS S1-S13, restated in ``docs/rules/shop.md``).

One 52-card deck. Every card drawn from the stock must go to a candle (up to seven stacks, lit
when a red card is on top, at most five cards tall), to one of the six trays of the scales
(three per side, each side weighing one suit of its own colour, the two sides of opposite
colours), or to the ledger (the 12 non-ace cards of the remaining black suit, only while the
scales are balanced). Where a card must go is fixed by RULINGS S3-S4; the player only decides
what the rules leave open (which candle, which tray, trims, recalibrations, scrapping, the shelf
and purchase, closing shop).

State machine (:data:`PHASES`)::

    shortcut ──light x7 / no_shortcut──▶ play ──(win, close shop, move limit, stuck)──▶ over

Inside ``play`` there are two situations: *between draws* (no card in play: draw, trim,
recalibrate, scrap, play the shelf or the purchase, close shop) and *placing* (one or more
cards in play, from the stock, the shelf or the purchase: put one where the rules allow, or
shelve / purchase a drawn card; trim only when a card has nowhere to go, RULINGS S3 last line).
Whenever the only move besides closing shop is a draw or a placement, the engine makes it by
itself (a forced move is no decision), so ``legal_actions`` always offers a real choice.

Readings beyond the RULINGS (also in ``docs/rules/shop.md``):

* Empty candle places are all alike, so a card that must start a candle (S3 a) starts the
  first empty one; a card that may go on the scales while both sides are unset may go on any of
  the six trays.
* Shelving and purchasing are open only to a card just drawn from the stock (the seed: "a drawn
  card"), never to a card coming off the shelf or out of the purchase.
* Trimming is offered between draws, and while a card is in play only if some card in play has
  nowhere to go (the forced trim of S3). Recalibrating, scrapping and playing the shelf or
  purchase happen between draws (S6).
* Playing the purchase puts the shelf card on the bottom of the stock and the purchase cards in
  play; the player places them one at a time in any order, each by S3 as if just drawn.
* After the short-cut the stock is shuffled (seed "Short-cuts"), except when an explicit
  ``deck`` order was given: then the remaining cards keep their order, so tests can set up
  positions.
* "Shuffled back into the deck" shuffles the whole stock. Closing shop returns every card to
  the stock (seed "Close Shop") and ends the game as a loss.
* "Work in the dark" (option ``lit_needed``): every rule that asks for "all candles lit"
  (S3 b-d, S6, S12) asks for at least ``lit_needed`` lit candles instead. A red card that goes
  on an unlit candle lights it and must pick the shortest unlit one (S1).
* More shelves (option ``shelves``): each shelf has its own purchase; a card is shelved on the
  first empty shelf. ``shelves = 0`` plays without the optional shelving.
* Jokers (the seed's last alternate) are not offered: the seed leaves their rules open.
* Score: the number of ledger entries filled when the game ended (12 on a win).

Actions (card codes are strings, see :mod:`.cards`; candles 0..n-1, trays 0..5 where 0-2 are
the left side and 3-5 the right side; shelves 0..k-1)::

    ("light", code)           short-cut: light the next candle with this red card of the stock
    ("no_shortcut",)          play without the short-cut (only before the first light)
    ("draw",)                 turn the next stock card; it is placed at once if forced
    ("candle", code, i)       put a card in play on candle i
    ("tray", code, j)         put a card in play on tray j
    ("ledger", code)          put a card in play into the ledger
    ("shelve", code, k)       put the drawn card on (empty) shelf k
    ("purchase", code, k)     reserve the drawn card in shelf k's purchase
    ("trim", i)               trim candle i (4 or 5 cards) to the bottom of the stock
    ("recalibrate",)          empty the trays (and scrap the ledger) into the stock
    ("scrap",)                empty the ledger into the stock
    ("play_shelf", k)         play shelf k's card; its purchase is shuffled into the stock
    ("play_purchase", k)      play shelf k's purchase; the shelf card goes under the stock
    ("close_shop",)           concede: everything goes back into the stock
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, ClassVar

from .. import cards as C
from ..base import Action, Event
from ..errors import OptionError, UnknownAction
from ..options import SEED, Option
from ..rng import GameRNG
from ..solo import SettlingSoloGame

#: A candle takes no card once it is this tall (seed "Candles").
CANDLE_MAX = 5
#: A candle may be trimmed once it is at least this tall (seed "Candles").
TRIM_MIN = 4
#: Trays on the scales; trays 0-2 are the left side, 3-5 the right side (seed "Scales").
TRAYS = 6
#: Ledger entries: every card of the ledger suit but the ace (seed "Ledger", RULINGS S10).
LEDGER_SIZE = 12

#: Phases and the verbs each accepts (``close_shop`` is accepted in every live phase).
PHASES: dict[str, frozenset[str]] = {
    "shortcut": frozenset({"light", "no_shortcut", "close_shop"}),
    "play": frozenset({"draw", "candle", "tray", "ledger", "shelve", "purchase", "trim",
                       "recalibrate", "scrap", "play_shelf", "play_purchase", "close_shop"}),
    "over": frozenset(),
}
#: Argument kinds of every verb: "card" is a card code, "int" a small index.
VERBS: dict[str, tuple[str, ...]] = {
    "light": ("card",), "no_shortcut": (), "draw": (), "candle": ("card", "int"),
    "tray": ("card", "int"), "ledger": ("card",), "shelve": ("card", "int"),
    "purchase": ("card", "int"), "trim": ("int",), "recalibrate": (), "scrap": (),
    "play_shelf": ("int",), "play_purchase": ("int",), "close_shop": (),
}
#: Verbs the engine makes by itself when they are the only move besides closing shop.
FORCED_VERBS = frozenset({"draw", "candle", "tray", "ledger"})
PLACE_VERBS = frozenset({"candle", "tray", "ledger"})


def value(card: int) -> int:
    """Weight of ``card`` on the scales and in the purchase: A=1 .. K=13 (seed "Scales")."""
    return C.rank(card)


def _side_of(tray: int) -> int:
    return 0 if tray < 3 else 1


class ShopSolitaire(SettlingSoloGame):
    """The Shop Solitaire engine (one seat).

    The game ends when the ledger is filled (``winner`` 0), on closing shop, at the move limit,
    when no move is left, or on a forfeit (``winner`` ``None``); ``outcome()["scores"]`` is
    ``[ledger entries filled when the game ended]`` (12 on a win).

    Args:
        options: See :attr:`OPTIONS`: ``seed``, ``deck`` (explicit stock order, 52 codes,
            index 0 drawn first), ``shortcut`` (RULINGS S13), ``shelves`` (0-4), ``shelf_suits``
            (shelved cards of different suits), ``candles`` (5-7), ``lit_needed`` (work in the
            dark), ``max_moves`` (the room's move limit, RULINGS S11).
        seats: Must be 1.

    Raises:
        OptionError: unknown option, bad value, a ``deck`` that is not exactly the 52 cards,
            ``lit_needed`` above ``candles``, or a seat count other than 1.
    """

    name: ClassVar[str] = "shop"
    title: ClassVar[str] = "Shop Solitaire"
    #: Closing shop is the way to give up (seed "Close Shop").
    QUIT_VERB: ClassVar[str] = "close_shop"
    VERBS: ClassVar[Mapping[str, tuple[str, ...]]] = VERBS
    FORCED_VERBS: ClassVar[frozenset[str]] = FORCED_VERBS
    #: A position with no legal move at all loses (RULINGS S11).
    NO_MOVE_REASON: ClassVar[str] = "no legal move"
    OPTIONS: ClassVar[tuple[Option, ...]] = (
        SEED,
        Option("deck", list, None,
               "Explicit stock order: the 52 card codes, index 0 drawn first. None: shuffled."),
        Option("shortcut", bool, True,
               "Start by lighting every candle with red cards chosen from the stock (S13)."),
        Option("shelves", int, 1, "Shelves, each with its own purchase; 0 = no shelving "
               "(seed 'Shelving', 'Alternates').", min=0, max=4),
        Option("shelf_suits", bool, False,
               "Shelved cards must all be of different suits (seed 'Alternates')."),
        Option("candles", int, 7, "Number of candles (seed 'Alternates': fewer candles).",
               min=5, max=7),
        Option("lit_needed", int, None, "Lit candles needed to work the scales, ledger and "
               "shelf ('work in the dark'); None = all candles.", min=1, max=7),
        Option("max_moves", int, 2000, "Room move limit; reaching it loses (RULINGS S11).",
               min=1, max=1_000_000),
    )

    def __init__(self, options: Mapping[str, Any] | None = None, seats: int = 1) -> None:
        super().__init__(options, seats)
        opts = self.options
        n = opts["candles"]
        if opts["lit_needed"] is not None and opts["lit_needed"] > n:
            raise OptionError(f"option 'lit_needed' must be <= candles ({n}), "
                              f"not {opts['lit_needed']}")
        self.rng = GameRNG(opts["seed"])
        stock = C.parse_full_deck(opts["deck"])
        if stock is None:
            stock = C.full_deck()
            self.rng.shuffle(stock)
        self.stock: list[int] = stock
        self.candles: list[list[int]] = [[] for _ in range(n)]
        self.trays: list[list[int]] = [[] for _ in range(TRAYS)]
        self.sides: list[int | None] = [None, None]
        self.ledger: list[int] = []
        self.shelf: list[int | None] = [None] * opts["shelves"]
        self.purchase: list[list[int]] = [[] for _ in range(opts["shelves"])]
        self.pending: list[int] = []
        self.source: str | None = None
        self.phase = "shortcut" if opts["shortcut"] else "play"
        self._outcome = None
        self.counters = {
            "draws": 0, "trims": 0, "recalibrations": 0, "scraps": 0, "best_ledger": 0,
            "forced": 0,
        }
        self._settle([])

    # -- derived state ---------------------------------------------------------------------

    @property
    def lit_needed(self) -> int:
        """Lit candles needed for the scales, ledger and shelf (all of them by default)."""
        need = self.options["lit_needed"]
        return len(self.candles) if need is None else int(need)

    def is_lit(self, i: int) -> bool:
        """True when candle ``i`` has a red card on top (seed "Candles")."""
        stack = self.candles[i]
        return bool(stack) and C.is_red(stack[-1])

    def all_lit(self) -> bool:
        """True when enough candles burn to work the scales (all of them; see ``lit_needed``)."""
        return sum(1 for i in range(len(self.candles)) if self.is_lit(i)) >= self.lit_needed

    def side_sums(self) -> list[int]:
        """Sum of the top cards' values on each side, ``[left, right]`` (seed "Scales")."""
        sums = [0, 0]
        for j, tray in enumerate(self.trays):
            if tray:
                sums[_side_of(j)] += value(tray[-1])
        return sums

    def balanced(self) -> bool:
        """True when all six trays hold cards and both sides weigh the same (RULINGS S5)."""
        if not all(self.trays):
            return False
        left, right = self.side_sums()
        return left == right

    def ledger_suit(self) -> int | None:
        """The black suit not weighed on the scales, once a black suit is on them; else None."""
        for s in self.sides:
            if s is not None and not C.is_red(s * 13):
                return C.SPADES if s == C.CLUBS else C.CLUBS
        return None

    def _shortest(self, idx: list[int]) -> list[int]:
        if not idx:
            return []
        low = min(len(self.candles[i]) for i in idx)
        return [i for i in idx if len(self.candles[i]) == low]

    def _candle_targets(self, card: int, light_only: bool = False) -> list[int]:
        """Candles ``card`` may go on (RULINGS S1-S2): lighting or putting out uses the
        shortest candidate; a red card on a lit candle or a black one on an unlit candle may
        go on any candle under five cards."""
        short = [i for i, s in enumerate(self.candles) if s and len(s) < CANDLE_MAX]
        lit = [i for i in short if self.is_lit(i)]
        unlit = [i for i in short if not self.is_lit(i)]
        if C.is_red(card):
            change = self._shortest(unlit)
            same = [] if light_only else lit
        else:
            change = self._shortest(lit)
            same = unlit
        return sorted(set(change) | set(same))

    def placements(self, card: int) -> list[Action]:
        """Where ``card`` may go now if it were just drawn, in the order of RULINGS S3-S4.

        Returns:
            Placement actions (``candle``/``tray``/``ledger``), empty when the only place is a
            full candle (a candle must be trimmed first).
        """
        cd = C.code(card)
        for i, stack in enumerate(self.candles):
            if not stack:  # S3 (a): a missing candle is started first
                return [("candle", cd, i)]
        if not self.all_lit():  # S3 (b)
            return [("candle", cd, i) for i in self._candle_targets(card, C.is_red(card))]
        s = C.suit(card)
        if self.sides[0] is None and self.sides[1] is None:  # S3 (c)
            return [("tray", cd, j) for j in range(TRAYS)]
        if s in self.sides:  # S3 (d): a balance-suit card goes to its side
            k = self.sides.index(s)
            return [("tray", cd, j) for j in range(3 * k, 3 * k + 3)]
        if None in self.sides:  # S4: the opposite colour starts the other side
            k = self.sides.index(None)
            other = self.sides[1 - k]
            assert other is not None
            if C.is_red(card) != C.is_red(other * 13):
                return [("tray", cd, j) for j in range(3 * k, 3 * k + 3)]
        if C.is_red(card):  # the other red suit: any candle under five
            return [("candle", cd, i) for i in self._candle_targets(card)]
        if self.balanced() and C.rank(card) != C.ACE:  # the ledger suit (S10)
            return [("ledger", cd)]
        return [("candle", cd, i) for i in self._candle_targets(card)]

    def _reserve_actions(self, card: int) -> list[Action]:
        """Shelve / purchase moves for a card just drawn (seed "Shelving", RULINGS S12)."""
        if self.source != "stock" or not self.shelf or not self.all_lit():
            return []
        out: list[Action] = []
        cd = C.code(card)
        empty = [k for k, c in enumerate(self.shelf) if c is None]
        if empty:
            suits = {C.suit(c) for c in self.shelf if c is not None}
            if not (self.options["shelf_suits"] and C.suit(card) in suits):
                out.append(("shelve", cd, empty[0]))
        for k, sc in enumerate(self.shelf):
            if sc is not None and sum(map(value, self.purchase[k])) + value(card) < value(sc):
                out.append(("purchase", cd, k))
        return out

    def _trim_actions(self) -> list[Action]:
        return [("trim", i) for i, s in enumerate(self.candles) if len(s) >= TRIM_MIN]

    def _moves(self) -> list[Action]:
        """Every legal move except ``close_shop``, in a fixed order."""
        if self.phase == "shortcut":
            out: list[Action] = [("light", C.code(c))
                                 for c in sorted(self.stock) if C.is_red(c)]
            if all(not s for s in self.candles):
                out.append(("no_shortcut",))
            return out
        if self.phase != "play":
            return []
        if self.pending:
            out = []
            stuck = False
            for card in self.pending:
                places = self.placements(card)
                stuck = stuck or not places
                out.extend(places)
            if len(self.pending) == 1:
                out.extend(self._reserve_actions(self.pending[0]))
            if stuck:
                out.extend(self._trim_actions())
            return out
        out = []
        if self.stock:
            out.append(("draw",))
        out.extend(self._trim_actions())
        if self.all_lit():
            if any(self.trays):
                out.append(("recalibrate",))
            if self.ledger:
                out.append(("scrap",))
            for k, sc in enumerate(self.shelf):
                if sc is not None and self.placements(sc):
                    out.append(("play_shelf", k))
            for k, p in enumerate(self.purchase):
                if p:
                    out.append(("play_purchase", k))
        return out

    # -- the contract ----------------------------------------------------------------------

    def default_action(self, seat: object) -> Action | None:
        """For a turn timer: draw when possible, else the first legal move; never close shop
        unless nothing else is legal. ``None`` when ``seat`` may not act."""
        legal = self.legal_actions(seat)
        if not legal:
            return None
        if ("draw",) in legal:
            return ("draw",)
        return legal[0]

    def stats(self) -> dict[str, Any]:
        """Counters: ``turns`` (actions taken), ``draws``, ``trims``, ``recalibrations``,
        ``scraps``, ``best_ledger`` (most ledger entries ever filled), ``forced`` (moves the
        engine made by itself) and ``ledger`` (entries filled now)."""
        out: dict[str, Any] = {"turns": self.state_id, "ledger": len(self.ledger)}
        out.update(self.counters)
        return out

    def card_locations(self) -> dict[str, list[int]]:
        """Zones: ``stock``, ``candle:i``, ``tray:j``, ``ledger``, ``shelf:k``,
        ``purchase:k`` and ``in_play`` (cards drawn and not placed yet)."""
        zones: dict[str, list[int]] = {"stock": list(self.stock), "ledger": list(self.ledger),
                                       "in_play": list(self.pending)}
        for i, s in enumerate(self.candles):
            zones[f"candle:{i}"] = list(s)
        for j, t in enumerate(self.trays):
            zones[f"tray:{j}"] = list(t)
        for k, sc in enumerate(self.shelf):
            zones[f"shelf:{k}"] = [] if sc is None else [sc]
            zones[f"purchase:{k}"] = list(self.purchase[k])
        return zones

    def view(self, seat: int | None) -> dict[str, Any]:
        """The public table (every stack is face up; only the stock's order is hidden).

        Keys besides the contract's: ``phase``, ``candles`` (lists of codes, bottom first),
        ``lit`` (bools), ``lit_needed``, ``trays`` (six lists, 0-2 left side), ``sides``
        (suit letter or None per side), ``weights`` ([left, right] top sums), ``balanced``,
        ``ledger_suit``, ``ledger``, ``shelves`` (list of ``{"shelf", "purchase"}``),
        ``in_play`` (cards drawn and not placed), ``in_play_from``, ``stock_count``,
        ``shortcut_cards`` (red cards still in the stock, during the short-cut only),
        ``moves`` and ``max_moves``.
        """
        ls = self.ledger_suit()
        return {
            **self._contract_view(seat),
            "phase": self.phase,
            "candles": [C.codes(s) for s in self.candles],
            "lit": [self.is_lit(i) for i in range(len(self.candles))],
            "lit_needed": self.lit_needed,
            "trays": [C.codes(t) for t in self.trays],
            "sides": [None if s is None else C.SUITS[s] for s in self.sides],
            "weights": self.side_sums(),
            "balanced": self.balanced(),
            "ledger_suit": None if ls is None else C.SUITS[ls],
            "ledger": C.codes(self.ledger),
            "shelves": [{"shelf": None if sc is None else C.code(sc),
                         "purchase": C.codes(self.purchase[k])}
                        for k, sc in enumerate(self.shelf)],
            "in_play": C.codes(self.pending),
            "in_play_from": self.source,
            "stock_count": len(self.stock),
            "shortcut_cards": (C.codes(sorted(c for c in self.stock if C.is_red(c)))
                               if self.phase == "shortcut" else []),
            "moves": self.state_id,
            "max_moves": self.options["max_moves"],
        }

    # -- snapshot ----------------------------------------------------------------------------

    def _snapshot_table(self) -> dict[str, Any]:
        """Stock, candles, trays, sides, ledger, shelf, purchase, pending and source."""
        return {
            "stock": list(self.stock),
            "candles": [list(s) for s in self.candles],
            "trays": [list(t) for t in self.trays],
            "sides": list(self.sides),
            "ledger": list(self.ledger),
            "shelf": list(self.shelf),
            "purchase": [list(p) for p in self.purchase],
            "pending": list(self.pending),
            "source": self.source,
        }

    def _restore_table(self, data: Mapping[str, Any]) -> None:
        """Set stock, candles, trays, sides, ledger, shelves, purchases and the cards in play
        from ``data``."""
        self.stock = [int(c) for c in data["stock"]]
        self.candles = [[int(c) for c in s] for s in data["candles"]]
        self.trays = [[int(c) for c in t] for t in data["trays"]]
        self.sides = [None if s is None else int(s) for s in data["sides"]]
        self.ledger = [int(c) for c in data["ledger"]]
        self.shelf = [None if c is None else int(c) for c in data["shelf"]]
        self.purchase = [[int(c) for c in p] for p in data["purchase"]]
        self.pending = [int(c) for c in data["pending"]]
        self.source = data["source"]

    def _consistent(self) -> bool:
        """A known phase, six trays and two sides."""
        return self.phase in PHASES and len(self.trays) == TRAYS and len(self.sides) == 2

    # -- mutation ----------------------------------------------------------------------------

    def _shuffle_in(self, returned: list[int]) -> None:
        """Shuffle returned cards back into the stock (RULINGS S7: the whole stock)."""
        if returned:
            self.stock.extend(returned)
            self.rng.shuffle(self.stock)

    def _do(self, act: Action) -> list[Event]:
        """Carry out a legal action (the handler ``_do_VERB``; the three placements share
        :meth:`_do_place`, shelving and purchasing :meth:`_do_reserve`); returns its
        events."""
        verb = act[0]
        if verb in PLACE_VERBS:
            return self._do_place(act)
        if verb in ("shelve", "purchase"):
            return self._do_reserve(act)
        handler: Callable[[Action], list[Event]] = getattr(self, "_do_" + verb)
        return handler(act)

    def _do_light(self, act: Action) -> list[Event]:
        """The short-cut: light the next candle with this red card of the stock (S13)."""
        card = C.parse(act[1])
        self.stock.remove(card)
        i = next(i for i, s in enumerate(self.candles) if not s)
        self.candles[i].append(card)
        if all(self.candles):
            self.phase = "play"
            if self.options["deck"] is None:
                self.rng.shuffle(self.stock)
        return [{"type": "light", "card": act[1], "candle": i}]

    def _do_no_shortcut(self, act: Action) -> list[Event]:
        """Play without the short-cut."""
        self.phase = "play"
        return [{"type": "no_shortcut"}]

    def _do_draw(self, act: Action) -> list[Event]:
        """Turn the next stock card; it is in play."""
        card = self.stock.pop(0)
        self.pending = [card]
        self.source = "stock"
        self.counters["draws"] += 1
        return [{"type": "draw", "card": C.code(card)}]

    def _do_place(self, act: Action) -> list[Event]:
        """Put a card in play on a candle, a tray or into the ledger (S1-S4, S10)."""
        verb = act[0]
        card = C.parse(act[1])
        self.pending.remove(card)
        if not self.pending:
            self.source = None
        if verb == "candle":
            self.candles[act[2]].append(card)
        elif verb == "tray":
            j = act[2]
            if self.sides[_side_of(j)] is None:
                self.sides[_side_of(j)] = C.suit(card)
            self.trays[j].append(card)
        else:
            self.ledger.append(card)
            self.counters["best_ledger"] = max(self.counters["best_ledger"],
                                               len(self.ledger))
        ev: Event = {"type": "place", "card": act[1], "to": verb}
        if len(act) > 2:
            ev["index"] = act[2]
        return [ev]

    def _do_reserve(self, act: Action) -> list[Event]:
        """Shelve the drawn card, or reserve it in a shelf's purchase (S12)."""
        verb = act[0]
        card = C.parse(act[1])
        self.pending = []
        self.source = None
        if verb == "shelve":
            self.shelf[act[2]] = card
        else:
            self.purchase[act[2]].append(card)
        return [{"type": verb, "card": act[1], "shelf": act[2]}]

    def _do_trim(self, act: Action) -> list[Event]:
        """Trim a candle to the bottom of the stock, in order (S6, S7)."""
        i = act[1]
        n = len(self.candles[i])
        self.stock.extend(self.candles[i])  # RULINGS S7: to the bottom, in order
        self.candles[i] = []
        self.counters["trims"] += 1
        return [{"type": "trim", "candle": i, "cards": n}]

    def _do_recalibrate(self, act: Action) -> list[Event]:
        """Empty the trays and scrap the ledger into the stock (S6, S7, S9)."""
        back = [c for t in self.trays for c in t] + self.ledger
        self.trays = [[] for _ in range(TRAYS)]
        self.sides = [None, None]  # RULINGS S9
        self.ledger = []
        self._shuffle_in(back)
        self.counters["recalibrations"] += 1
        return [{"type": "recalibrate", "cards": len(back)}]

    def _do_scrap(self, act: Action) -> list[Event]:
        """Empty the ledger into the stock (S6, S7)."""
        back = self.ledger
        self.ledger = []
        self._shuffle_in(back)
        self.counters["scraps"] += 1
        return [{"type": "scrap", "cards": len(back)}]

    def _do_play_shelf(self, act: Action) -> list[Event]:
        """Play a shelf's card; its purchase is shuffled into the stock (S12)."""
        k = act[1]
        shelved = self.shelf[k]
        assert shelved is not None
        card = shelved
        self.shelf[k] = None
        back, self.purchase[k] = self.purchase[k], []
        self._shuffle_in(back)
        self.pending = [card]
        self.source = "shelf"
        return [{"type": "play_shelf", "shelf": k, "card": C.code(card),
                 "returned": len(back)}]

    def _do_play_purchase(self, act: Action) -> list[Event]:
        """Play a shelf's purchase; the shelf card goes under the stock (S12)."""
        k = act[1]
        sc = self.shelf[k]
        assert sc is not None
        self.stock.append(sc)  # seed: the shelf card goes on the bottom of the deck
        self.shelf[k] = None
        self.pending, self.purchase[k] = self.purchase[k], []
        self.source = "purchase"
        return [{"type": "play_purchase", "shelf": k, "cards": C.codes(self.pending)}]

    def _do_close_shop(self, act: Action) -> list[Event]:
        """Concede: every card goes back into the stock, the game is lost (S11)."""
        self._finish(None, "closed shop")
        back = ([c for s in self.candles for c in s] + [c for t in self.trays for c in t]
                + self.ledger + [c for c in self.shelf if c is not None]
                + [c for p in self.purchase for c in p] + self.pending)
        self.candles = [[] for _ in self.candles]
        self.trays = [[] for _ in range(TRAYS)]
        self.sides = [None, None]
        self.ledger = []
        self.shelf = [None] * len(self.shelf)
        self.purchase = [[] for _ in self.purchase]
        self.pending = []
        self.source = None
        self._shuffle_in(back)
        return [{"type": "close_shop"}]

    def _finish(self, winner: int | None, reason: str) -> None:
        self.phase = "over"
        self._outcome = {"winner": winner, "reason": reason, "scores": [len(self.ledger)]}

    def _win_reason(self) -> str | None:
        """``"ledger filled"`` once the ledger holds all 12 entries (RULINGS S10)."""
        return "ledger filled" if len(self.ledger) >= LEDGER_SIZE else None

    def _move_limit_events(self) -> list[Event]:
        """``{"type": "move_limit"}`` (RULINGS S11)."""
        return [{"type": "move_limit"}]

    # -- checks and explanations ---------------------------------------------------------------

    @staticmethod
    def _check_arg(kind: str, arg: Any) -> None:
        """A ``"card"``: the code of a card of the one deck.

        Raises:
            UnknownAction: a bad card code, or a card of another deck.
        """
        if C.deck_of(C.parse(arg)) != 0:
            raise UnknownAction(f"Shop Solitaire uses one deck: {arg!r}")

    def _why_illegal(self, act: Action) -> str:
        """A human reason why a well-formed ``act`` is not legal now (names the rule)."""
        verb = act[0]
        if verb not in PHASES[self.phase]:
            return f"{verb!r} is not possible now (phase {self.phase!r})"
        if verb == "light":
            card = C.parse(act[1])
            if not C.is_red(card):
                return f"{act[1]} is black: candles are lit with red cards (RULINGS S13)"
            return f"{act[1]} is not in the stock"
        if verb == "no_shortcut":
            return "the short-cut has begun: light the remaining candles (RULINGS S13)"
        if verb == "draw":
            if self.pending:
                return f"place {', '.join(C.codes(self.pending))} before drawing (RULINGS S3)"
            return "the stock is empty"
        if verb in ("trim",):
            i = act[1]
            if not 0 <= i < len(self.candles):
                return f"there is no candle {i}"
            if len(self.candles[i]) < TRIM_MIN:
                return f"candle {i} is {len(self.candles[i])} cards tall: only candles of 4 " \
                       "or 5 cards may be trimmed (seed 'Candles')"
            return "place the card in play first: a trim is only forced when it has nowhere " \
                   "to go (RULINGS S3, S6)"
        if verb in ("recalibrate", "scrap", "play_shelf", "play_purchase"):
            if self.pending:
                return f"{verb} only between draws: place the card in play first (RULINGS S6)"
            if not self.all_lit():
                return f"{verb} needs {self.lit_needed} lit candles (RULINGS S6, S12)"
            if verb == "recalibrate":
                return "the scales are empty"
            if verb == "scrap":
                return "the ledger is empty"
            k = act[1]
            if not 0 <= k < len(self.shelf) or self.shelf[k] is None:
                return f"shelf {k} holds no card"
            if verb == "play_purchase":
                return f"shelf {k}'s purchase is empty"
            return f"the shelf card {C.code(int(self.shelf[k] or 0))} has no legal place now " \
                "(RULINGS S12)"
        card = C.parse(act[1])
        if card not in self.pending:
            return f"{act[1]} is not the card in play"
        if verb in ("shelve", "purchase"):
            k = act[2]
            if self.source != "stock":
                return "only a card just drawn from the stock may be shelved or purchased"
            if not self.all_lit():
                return f"shelving needs {self.lit_needed} lit candles (RULINGS S12)"
            if not 0 <= k < len(self.shelf):
                return f"there is no shelf {k}"
            sc = self.shelf[k]
            if verb == "shelve":
                if sc is not None:
                    return f"shelf {k} is taken"
                return "shelve on the first empty shelf, with a suit not already shelved"
            if sc is None:
                return f"shelf {k} is empty: shelve a card before purchasing"
            total = sum(map(value, self.purchase[k])) + value(card)
            return (f"the purchase would total {total}, not below the shelf card "
                    f"{C.code(sc)} ({value(sc)}) (RULINGS S12)")
        places = self.placements(card)
        if verb == "ledger" and C.suit(card) == self.ledger_suit() and C.rank(card) == C.ACE:
            return f"{act[1]} is the ledger suit's ace: it may only put out a candle (RULINGS S10)"
        if verb == "candle":
            i = act[2]
            if 0 <= i < len(self.candles) and len(self.candles[i]) >= CANDLE_MAX:
                return f"candle {i} is {CANDLE_MAX} cards tall: trim a candle first (RULINGS S3)"
        if not places:
            return f"{act[1]} has nowhere to go: trim a candle first (RULINGS S3)"
        where = ", ".join(f"{a[0]} {a[2]}" if len(a) > 2 else a[0] for a in places)
        return f"{act[1]} cannot go there: RULINGS S1-S4 send it to {where}"
