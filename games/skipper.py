"""Skipper: the solo patience, its multiplayer game with auctions and skip-draws, and the race.

Rules: ``shared/seeds/skipper-solitaire.txt`` as read by RULINGS K1-K14; our own statement of
them is ``docs/rules/skipper.md``.

Modes (room option ``mode``):
    ``solo``  one seat; score = turns taken (K7).
    ``multi`` 2-6 seats, clockwise turns from ``first_seat`` (K13); play, auction one card or
              discard (K9); auctions bid once round the table (K10); skip-draws (K11).
    ``race``  2-6 seats all acting at once, no turn order, no auctions; skip-draws are the
              option ``skip_draws`` (K14).

Stacks (K1): each suit stack keeps ``E``, the set of ranks its top may stand for, as a
bitmask (bit ``e`` set = the top may stand for ``e``). A natural card of rank ``r`` needs
``r - 1`` in ``E``; a skipper shifts every value by each of its skip amounts. A stack is
complete (K3) when its top card is a finishing card of its own suit and ``E`` holds a value
of at least the finishing value.

Actions (tuples; card codes as in :mod:`cardhall.games.cards`; stack = suit letter)::

    ("play", card, stack)   play a card from the hand (or the discard top, option
                            play_from_discard) onto one of your stacks          K1-K4, K5
    ("discard", card)       discard one card from the hand                      K5
    ("end",)                end the turn: draw up to the hand size (K6); with
                            nothing played or discarded this is a pass          K5, K6
    ("auction", card)       multi only, first thing in a turn: put a card up    K9, K10
    ("bid", card)           the bidding seat offers a card of higher rank       K10
    ("pass",)               the bidding seat declines                           K10
    ("resign",)             concede: solo -> loss; multi/race -> the seat leaves the game
    ("auto_trash", "on"|"off")  the seat's own K6 preference (RULINGS K6m): trash dead
                            cards when drawn, or keep them. Accepted from any active seat at
                            any time (it is no move of the game: never in legal_actions)

Options are listed in :data:`OPTIONS` (each names the rule it selects).
"""

from __future__ import annotations

import bisect
import random
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

from . import cards as C
from .base import Action, Event, Game
from .bots import view_legal_actions
from .errors import (
    GameOver,
    IllegalAction,
    NotYourTurn,
    OptionError,
    SnapshotError,
    UnknownAction,
)
from .options import SEED, Option
from .rng import GameRNG

SUIT_LETTERS = C.SUITS  # stack names: "C", "D", "H", "S"
_CODE = [C.code(c) for c in range(C.MAX_DECKS * 52)]
_RANK = [c % 13 + 1 for c in range(C.MAX_DECKS * 52)]
_SUIT = [c // 13 % 4 for c in range(C.MAX_DECKS * 52)]
_CAP = (1 << 13) - 1  # values 0..12: K4, a skipper must leave some e <= 12

MODES = ("solo", "multi", "race")
# Phases of a seat's turn (the state machine of K5/K9, one table):
#   start      nothing done yet: play, discard, auction (multi), or end (= pass, when allowed)
#   played     >= 1 card played: play more or end                          K5 "never both"
#   discarded  >= 1 card discarded: discard more or end                    K5
#   auctioned  the auction failed: discard or end (same rule as K5)        K9
START, PLAYED, DISCARDED, AUCTIONED = "start", "played", "discarded", "auctioned"
# Seat status.
ACTIVE, WON, OUT = "active", "won", "out"

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


class Rules:
    """The rule parameters derived from a game's options (K1-K4 and the seed's variants).

    Attributes:
        skips: rank -> tuple of skip amounts for skipper ranks (K1, K2).
        finishing: ranks that may finish a book (K3).
        finish_value: the value ``E`` must reach for a book to be finished (K3).
        recycle: skippers go to the discard pile (Easier rule).
        own_suit_only: skippers only on their own suit's stack (Harder rule).
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
        if o["strong_skippers"]:
            self.skips = {11: (1,), 12: (1, 2), 13: (1, 2, 3)}
        elif o["weak_skippers"]:
            self.skips = {13: (1,)}
        else:
            self.skips = {12: (1,), 13: (1, 2)}  # K1, K2
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


class _Seat:
    """One player's cards and turn state (K8: every seat has its own deck and piles)."""

    __slots__ = ("hand", "stock", "discard", "trash", "removed", "values", "stacks",
                 "complete", "turns", "phase", "status", "auto_trash")

    def __init__(self, auto_trash: bool = True) -> None:
        self.hand: list[int] = []        # sorted
        self.stock: list[int] = []       # draw pile, last item = top
        self.discard: list[int] = []     # last item = top
        self.trash: list[int] = []       # dead cards set aside (K6)
        self.removed: list[int] = []     # remove_four
        self.values = [0, 0, 0, 0]       # E bitmask per stack (K1)
        self.stacks: list[list[int]] = [[], [], [], []]
        self.complete = [False, False, False, False]
        self.turns = 0
        self.phase = START
        self.status = ACTIVE
        self.auto_trash = auto_trash  # K6/K6m: this seat's preference (room default: rules)


class _ViewCache:
    """View parts a Skipper game reuses while they do not change (the room's delta diff
    skips a reused object by identity; see Skipper._public_seat, _public_seats, _reuse and
    views). Nothing in it may be mutated once handed out."""

    __slots__ = ("seats", "all_seats", "options", "shared", "reused", "hands", "mark")

    def __init__(self) -> None:
        #: seat -> (its key tuple, its public dict)
        self.seats: dict[int, tuple[Any, dict[str, Any]]] = {}
        self.all_seats: list[dict[str, Any]] | None = None  # the last list of every seat
        self.options: dict[str, Any] | None = None  # the public options (they never change)
        self.shared: tuple[int, dict[str, Any]] | None = None  # (state_id, public part)
        self.reused: dict[str, Any] = {}  # view key -> the value last returned (_reuse)
        self.hands: dict[int, tuple[tuple[int, ...], list[str]]] = {}  # seat -> (hand, view)
        #: The view parts at the state :meth:`Skipper.deltas` last saw: (state_id, the
        #: _CHANGING_SHARED values, every public seat, every seat's (hand, legal actions),
        #: None for a seat whose delta was not read at that state).
        self.mark: tuple[int, tuple[Any, ...], list[dict[str, Any]],
                         list[tuple[list[str], list[Any]] | None]] | None = None


def _min_value(e: int) -> int:
    return (e & -e).bit_length() - 1


_VALUES_MEMO: dict[int, list[int]] = {}
_NOTHING = object()  # no cached value (see Skipper._reuse)
_NO_ACTIONS: list[Any] = []  # the legal actions of a seat that may not act (never mutated)


def _values(e: int) -> list[int]:
    """The values in bitmask ``e`` as a sorted list (a fresh copy)."""
    out = _VALUES_MEMO.get(e)
    if out is None:
        out = _VALUES_MEMO[e] = [v for v in range(17) if e >> v & 1]
    return list(out)


class _LazyView(Mapping[str, Any]):
    """A seat's view whose entries are computed on first read (see Game.bot_view)."""

    __slots__ = ("_game", "_seat", "_cache")
    _cache: dict[str, Any]

    def __init__(self, game: Skipper, seat: int) -> None:
        self._game, self._seat, self._cache = game, seat, {}

    def __getitem__(self, key: str) -> Any:
        try:
            return self._cache[key]
        except KeyError:
            pass
        part = _VIEW_PARTS.get(key)
        if part is None:
            raise KeyError(key)
        value = self._cache[key] = part(self._game, self._seat)
        return value

    def __iter__(self) -> Any:
        return iter(_VIEW_PARTS)

    def __len__(self) -> int:
        return len(_VIEW_PARTS)


class _SeatDeltas(Mapping[int | None, dict[str, Any]]):
    """:meth:`Skipper.deltas`' answer: seat (None: a spectator) -> its delta. The change
    every seat shares is computed at once; a seat's own part (hand, legal actions) when its
    delta is first read, so that a room writes the acting seat's update before it builds
    the other seats' hands and legal actions. Read it before the game changes again.

    Raises:
        KeyError: a seat it was not asked for.
        RuntimeError: a delta first read after the game changed state.
    """

    __slots__ = ("_game", "_sid", "_seats", "_acting", "_shared", "_now", "_before", "_out")

    def __init__(self, game: Skipper, seats: dict[int | None, None], acting: Sequence[int],
                 shared: dict[str, Any], own_now: list[tuple[list[str], list[Any]] | None],
                 own_before: list[tuple[list[str], list[Any]] | None]) -> None:
        self._game, self._sid, self._seats, self._acting = game, game.state_id, seats, acting
        self._shared, self._now, self._before = shared, own_now, own_before
        self._out: dict[int | None, dict[str, Any]] = {}

    def __getitem__(self, seat: int | None) -> dict[str, Any]:
        out = self._out
        delta = out.get(seat)
        if delta is not None:
            return delta
        if seat not in self._seats:
            raise KeyError(seat)
        shared = self._shared
        if seat is None:
            out[seat] = shared
            return shared
        game = self._game
        if game.state_id != self._sid:
            raise RuntimeError(f"delta of seat {seat} read at state {game.state_id}, "
                               f"after the state {self._sid} it was asked at")
        now = self._now[seat]
        if now is None:
            now = self._now[seat] = game._own_part(seat, self._acting)
        (hand, legal), before = now, self._before[seat]
        assert before is not None  # Skipper.deltas returns None when one is missing
        old_hand, old_legal = before
        own: dict[str, Any] | None = None
        if hand is not old_hand and hand != old_hand:
            own = {"hand": hand}
        if legal != old_legal:
            own = {**own, "legal_actions": legal} if own else {"legal_actions": legal}
        delta = out[seat] = {**shared, **own} if own else shared
        return delta

    def __iter__(self) -> Iterator[int | None]:
        return iter(self._seats)

    def __len__(self) -> int:
        return len(self._seats)


class Skipper(Game):
    """The Skipper engine (see the module docstring for modes, actions and rulings).

    Args:
        options: Room options (see :data:`OPTIONS`); ``seed`` and ``deck`` fix the deal.
        seats: 1 for ``solo``; 2-6 for ``multi`` and ``race``.

    Raises:
        OptionError: unknown option, bad value, conflicting options, a ``deck`` that is not
            exactly the right cards, or a seat count the mode does not allow.
    """

    name = "skipper"
    title = "Skipper"
    #: Verbs after which a seat's turn (or its bid) is over: the room restarts its clock.
    TURN_END_VERBS = frozenset({"end", "auction", "bid", "pass", "resign"})
    #: The view keys that differ between seats (K8: a seat sees its own hand and actions).
    PER_SEAT_VIEW_KEYS = frozenset({"seat", "hand", "legal_actions"})
    min_seats = 1
    max_seats = 6
    OPTIONS = OPTIONS

    def __init__(self, options: Mapping[str, Any] | None = None, seats: int = 1) -> None:
        super().__init__(options, seats)
        o = self.options
        mode = o["mode"]
        if mode == "solo" and seats != 1:
            raise OptionError(f"solo Skipper has 1 seat, not {seats}")
        if mode != "solo" and not 2 <= seats <= 6:
            raise OptionError(f"{mode} Skipper takes 2..6 seats, not {seats}")
        if o["first_seat"] >= seats:
            raise OptionError(f"first_seat {o['first_seat']} is not a seat of {seats}")
        self.mode = mode
        self.rules = Rules(o)
        skip = o["skip_draws"]
        self.skip_draws = (mode == "multi") if skip is None else (bool(skip) and mode != "solo")
        self.rng = GameRNG(o["seed"])
        self.players = [_Seat(self.rules.trash) for _ in range(seats)]
        self.current = o["first_seat"] if mode == "multi" else 0
        self.auction: dict[str, Any] | None = None
        self.winner: int | None = None
        self.reason: str | None = None
        self.counters = {"auctions": 0, "sold": 0, "skip_draws": 0, "trashed": 0}
        # Cards that can never come back into play (on a stack, trashed, removed), counted by
        # face per pool. A pool is the cards that may reach one seat: its own deck in solo and
        # race, every deck in multi (auctions move cards between seats).
        self.gone = [[0] * 52 for _ in range(1 if mode == "multi" else seats)]
        # Pools changed since their last unwinnable check (the check is a pure function of
        # the state, so skipping it while nothing left play cannot change any result).
        self._dirty = set(range(len(self.gone)))
        self._views = _ViewCache()
        orders = self._deck_orders(o["deck"])
        for i, p in enumerate(self.players):
            if self.rules.aces_out:
                for s in range(4):
                    ace = C.make(1, s, i)
                    p.stacks[s].append(ace)
                    p.values[s] = 1 << 1
                    self._set_gone(ace)
            else:
                p.values = [1, 1, 1, 1]  # E = {0}: only the ace starts a stack
            stock = orders[i] if orders is not None else self._fresh_stock(i)
            if orders is None:
                self.rng.shuffle(stock)
            if o["remove_four"]:
                for _ in range(4):
                    card = stock.pop(self.rng.randrange(len(stock)))
                    p.removed.append(card)
                    self._set_gone(card)
            p.stock = stock[::-1]  # first drawn = last item
            self._draw_up(i, [])

    # -- setup helpers ------------------------------------------------------------------

    def _fresh_stock(self, deck: int) -> list[int]:
        cards = C.full_deck(deck)
        if self.rules.aces_out:
            cards = [c for c in cards if _RANK[c] != 1]
        return cards

    def _deck_orders(self, deck: Any) -> list[list[int]] | None:
        if deck is None:
            return None
        lists = deck if deck and isinstance(deck[0], list) else [deck] * self.seats
        if len(lists) != self.seats:
            raise OptionError(f"deck: {len(lists)} lists for {self.seats} seats")
        orders = []
        for i, codes in enumerate(lists):
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
            want = self._fresh_stock(i)
            if sorted(order) != want:
                missing = sorted(set(want) - set(order))
                extra = sorted(set(order) - set(want))
                dupes = len(order) - len(set(order))
                raise OptionError(
                    f"deck for seat {i} must hold exactly the {len(want)} cards of a deck"
                    f"{' without aces' if self.rules.aces_out else ''}: missing "
                    f"{C.codes(missing)}, unexpected {C.codes(extra)}, duplicates {dupes}")
            orders.append(order)
        return orders

    # -- rules: stacks (K1-K4) ----------------------------------------------------------

    def _result(self, card: int, p: _Seat, s: int) -> int | None:
        """New ``E`` of stack ``s`` after ``card`` is played on it, or None if illegal.

        Implements K1 (naturals and skips), K2 (skip amounts), K3 (complete stacks take
        nothing), K4 (a skipper must leave some e <= 12) and the variants' limits.
        """
        if p.complete[s]:
            return None
        e = p.values[s]
        r = _RANK[card]
        own = _SUIT[card] == s
        if own and e >> (r - 1) & 1:
            return 1 << r  # natural (an own-suit face card is played as a natural when it can)
        skips = self.rules.skips.get(r)
        if skips is None or e == 1 or (self.rules.own_suit_only and not own):
            return None  # e == 1: E = {0}, an unstarted stack takes only its ace
        new = 0
        for k in skips:
            new |= e << k
        return new if new & _CAP else None

    def _why_not(self, card: int, p: _Seat, s: int) -> str:
        code, stack = _CODE[card], SUIT_LETTERS[s]
        if p.complete[s]:
            return f"the {stack} stack is complete and takes no more cards (K3)"
        e = p.values[s]
        r = _RANK[card]
        needs = ", ".join(str(v + 1) for v in _values(e))
        if e == 1:
            return f"the {stack} stack has not been started: only its ace can start it"
        if r in self.rules.skips:
            if self.rules.own_suit_only and _SUIT[card] != s:
                return f"{code} is a skipper that may only go on its own suit's stack"
            return f"{code} would skip the {stack} stack past 12 (K4)"
        if _SUIT[card] != s:
            return f"{code} is not a {stack} card and not a skipper (K1)"
        return f"{code} cannot go on the {stack} stack: it takes rank {needs} next (K1)"

    def _is_finished(self, p: _Seat, s: int) -> bool:
        """K3: top card a finishing card of the stack's own suit, E holding the value."""
        stack = p.stacks[s]
        if not stack:
            return False
        top = stack[-1]
        return (_SUIT[top] == s and _RANK[top] in self.rules.finishing
                and p.values[s] >> self.rules.finish_value != 0)

    def _alive_on(self, card: int, p: _Seat, s: int) -> bool:
        """Could ``card`` ever be played on stack ``s`` of ``p`` (K6 "dead" test)?

        E only grows, so a natural rank ``r`` needs ``r - 1 >= min(E)``, and a skipper needs
        ``min(E) + smallest skip <= 12`` (K4).
        """
        if p.complete[s]:
            return False
        lo = _min_value(p.values[s])
        r = _RANK[card]
        own = _SUIT[card] == s
        if own and r - 1 >= lo:
            return True
        ms = self.rules.min_skip.get(r)
        if ms is None or (self.rules.own_suit_only and not own):
            return False
        return max(lo, 1) + ms <= 12

    def _dead_for(self, card: int, p: _Seat) -> bool:
        """K6: the card can never be played by ``p`` (its stacks only move upwards)."""
        if _RANK[card] in self.rules.skips and not self.rules.own_suit_only:
            return not any(self._alive_on(card, p, s) for s in range(4))
        return not self._alive_on(card, p, _SUIT[card])

    def _dead(self, card: int, p: _Seat) -> bool:
        """Is ``card``, drawn by ``p``, dead (may it be trashed)?

        Solo and race: K6, judged for ``p`` alone (nobody else can ever hold the card).
        Multi: RULINGS K6m, dead only when no active seat could ever play it: auctions move
        cards between seats, so a card its holder cannot use may still be needed by another
        seat (its owner, say: each face exists once per deck).
        """
        if self.mode != "multi":
            return self._dead_for(card, p)
        return all(self._dead_for(card, q) for q in self.players
                   if q.status == ACTIVE or q is p)

    def _set_gone(self, card: int) -> None:
        pool = 0 if self.mode == "multi" else C.deck_of(card)
        self.gone[pool][C.face(card)] += 1
        self._dirty.add(pool)

    def _unwinnable(self, i: int) -> dict[str, Any] | None:
        """K7: can seat ``i`` provably never finish some incomplete stack? If so, why: the
        keys its ``unwinnable`` event carries besides ``seat``: ``{"why", "stack"}``, where
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
        """
        pool = 0 if self.mode == "multi" else i
        left = self.gone[pool]
        copies = self.seats if self.mode == "multi" else 1
        rules = self.rules
        skips = rules.skips
        any_skipper = any(left[s * 13 + r - 1] < copies for r in skips for s in range(4))
        big = max(max(k) for k in skips.values())
        small = min(rules.min_skip.values())
        p = self.players[i]
        if not rules.recycle:
            # Auctions only swap cards, so the cards seat i will ever play come from its hand,
            # draw pile and discard pile; each play raises a stack by at most ``big``.
            need = sum(max(1, -(-(rules.finish_value - p.values[s].bit_length() + 1) // big))
                       for s in range(4) if not p.complete[s])
            if need > len(p.hand) + len(p.stock) + len(p.discard):
                first = next(s for s in range(4) if not p.complete[s])
                return {"why": "cards", "stack": SUIT_LETTERS[first]}
        for s in range(4):
            if p.complete[s]:
                continue
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
            for r in rules.finishing:
                if left[base + r] >= copies:
                    continue  # every copy is gone
                gone = False
                if reach >> (r - 1) & 1:
                    break  # reachable as a natural
                if r in skips and not rules.recycle and any(
                        reach >> v & 1 and v + rules.min_skip[r] <= 12
                        and v + max(skips[r]) >= rules.finish_value for v in range(1, 13)):
                    break  # reachable as its own skipper
            else:
                return {"why": "gone" if gone else "unreachable", "stack": SUIT_LETTERS[s]}
        return None

    # -- rules: drawing (K6, K11) -------------------------------------------------------

    def _draw_one(self, i: int, ev: list[Event]) -> bool:
        """Draw one card into seat ``i``'s hand; while the seat's ``auto_trash`` preference
        is on, a dead card (K6; in multi RULINGS K6m: dead for every active seat) is trashed
        and another drawn.

        Returns False when both piles are empty.
        """
        p = self.players[i]
        while True:
            if not p.stock:
                if not p.discard:
                    return False
                if self.options["shuffle_on_flip"]:
                    p.stock = p.discard
                    self.rng.shuffle(p.stock)
                else:
                    p.stock = p.discard[::-1]  # turned over: the first discarded is on top
                p.discard = []
                ev.append({"type": "flip", "seat": i})
            card = p.stock.pop()
            if p.auto_trash and self._dead(card, p):
                p.trash.append(card)
                self._set_gone(card)
                self.counters["trashed"] += 1
                ev.append({"type": "trash", "seat": i})  # dead, but never named: K8
                continue
            bisect.insort(p.hand, card)
            return True

    def _draw_up(self, i: int, ev: list[Event]) -> None:
        p = self.players[i]
        n = 0
        while len(p.hand) < self.rules.hand_size and self._draw_one(i, ev):
            n += 1
        if n:
            ev.append({"type": "draw", "seat": i, "count": n})

    # -- the contract -------------------------------------------------------------------

    def to_act(self) -> list[int]:
        """Seats that may act now: the bidder during an auction, the seat whose turn it is,
        or (race) every active seat."""
        if self.winner is not None or self.reason is not None:
            return []
        if self.auction is not None:
            return [self.auction["bidders"][len(self.auction["bids"])]]
        if self.mode == "race":
            return [i for i, p in enumerate(self.players) if p.status == ACTIVE]
        return [self.current]

    @property
    def over(self) -> bool:
        """True once the game has ended (a win, resignation, unwinnable, or turn limit)."""
        return self.reason is not None

    def _playable(self, p: _Seat) -> list[tuple[int, int]]:
        """(card, stack) pairs playable from the hand (K1-K4), hand order then stack order."""
        out = []
        result = self._result
        skips = self.rules.skips
        for card in p.hand:
            if _RANK[card] in skips:
                for s in range(4):
                    if result(card, p, s) is not None:
                        out.append((card, s))
            elif result(card, p, _SUIT[card]) is not None:  # a plain card: own stack only
                out.append((card, _SUIT[card]))
        return out

    @property
    def bidding(self) -> bool:
        """True during an auction (K9, K10): the seat to act is bidding."""
        return self.auction is not None

    def legal_actions(self, seat: int) -> list[Action]:
        """Every action ``seat`` may take now, in a fixed order: plays (hand order, then
        the discard top), auctions, discards, end, then bids/pass or resign (K5, K9, K10)."""
        if seat not in self.to_act():
            return []
        a = self.auction
        p = self.players[seat]
        if a is not None:
            high = a["high"]
            acts: list[Action] = [("bid", _CODE[c]) for c in p.hand if _RANK[c] > high]
            acts.append(("pass",))
            acts.append(("resign",))
            return acts
        phase = p.phase
        acts = []
        stuck_rule = self.rules.discard_only_when_stuck
        plays = self._playable(p) if phase != DISCARDED or stuck_rule else []
        if phase in (START, PLAYED):
            acts = [("play", _CODE[c], SUIT_LETTERS[s]) for c, s in plays]
            if self.rules.play_from_discard and p.discard:
                top = p.discard[-1]
                acts.extend(("play", _CODE[top], SUIT_LETTERS[s]) for s in range(4)
                            if self._result(top, p, s) is not None)
        if phase == START and self.mode == "multi" and self._bidders(seat):
            acts.extend(("auction", _CODE[c]) for c in p.hand)
        if phase != PLAYED and not (stuck_rule and plays):
            acts.extend(("discard", _CODE[c]) for c in p.hand)
        if phase in (PLAYED, DISCARDED) or plays or not p.hand:
            acts.append(("end",))
        acts.append(("resign",))
        return acts

    def apply(self, seat: int, action: Sequence[Any]) -> list[Event]:
        """Apply ``action`` for ``seat`` (see the module docstring for the verbs).

        Returns:
            The public events the action caused, in order.

        Raises:
            UnknownAction: not a Skipper action (verb, arity or card code).
            GameOver: the game has ended.
            NotYourTurn: ``seat`` may not act now.
            IllegalAction: the rules forbid it; the message gives the rule.
        """
        if not isinstance(action, (list, tuple)) or not action:
            raise UnknownAction(f"an action is a non-empty list, not {action!r}")
        verb = action[0]
        spec = _ARITY.get(verb) if isinstance(verb, str) else None
        if spec is None:
            raise UnknownAction(f"unknown Skipper action {verb!r}")
        if len(action) != spec:
            raise UnknownAction(f"{verb!r} takes {spec - 1} argument(s), got {len(action) - 1}")
        if verb == "auto_trash":
            return self._set_auto_trash(seat, action[1])
        args = [C.parse(x) for x in action[1:2]]
        if verb == "play":
            if not isinstance(action[2], str) or action[2] not in _STACK_INDEX:
                raise UnknownAction(f"not a stack: {action[2]!r} (use C, D, H or S)")
            args.append(_STACK_INDEX[action[2]])
        if self.over:
            raise GameOver("the game is over")
        if not isinstance(seat, int) or not 0 <= seat < self.seats:
            raise NotYourTurn(f"no seat {seat!r} in this game")
        if seat not in self.to_act():
            if self.auction is not None and verb in ("bid", "pass"):
                raise NotYourTurn(f"seat {self.to_act()[0]} bids now, not seat {seat}")
            raise NotYourTurn(f"it is not seat {seat}'s turn")
        ev: list[Event] = []
        getattr(self, "_do_" + verb)(seat, *args, ev)
        self.state_id += 1
        return ev

    def _set_auto_trash(self, seat: Any, value: Any) -> list[Event]:
        """``("auto_trash", "on"|"off")``: set the seat's own K6 preference (RULINGS K6m).

        Not a move: any active seat may send it at any time, and it is never listed in
        ``legal_actions`` (a bot choosing among moves never flips it). It takes effect at
        the seat's next draw. Bumps ``state_id`` (the room log replays it like any action).

        Raises:
            UnknownAction: ``value`` is not ``"on"`` or ``"off"``.
            GameOver: the game has ended.
            NotYourTurn: ``seat`` is no seat of this game.
            IllegalAction: the seat is no longer in the game.
        """
        on = _SWITCH.get(value) if isinstance(value, str) else None
        if on is None:
            raise UnknownAction(f"auto_trash takes \"on\" or \"off\", not {value!r}")
        if self.over:
            raise GameOver("the game is over")
        if not isinstance(seat, int) or not 0 <= seat < self.seats:
            raise NotYourTurn(f"no seat {seat!r} in this game")
        p = self.players[seat]
        if p.status != ACTIVE:
            raise IllegalAction(f"seat {seat} is no longer in the game")
        p.auto_trash = on
        self.state_id += 1
        return [{"type": "auto_trash", "seat": seat, "on": on}]

    # -- handlers: each checks everything before it changes anything --------------------

    def _need_phase(self, seat: int, verb: str, *phases: str) -> _Seat:
        p = self.players[seat]
        if self.auction is not None:
            raise IllegalAction(f"an auction is running: bid or pass, not {verb} (K10)")
        if p.phase not in phases:
            why = {PLAYED: "you have played this turn: play more or end (K5)",
                   DISCARDED: "you have discarded this turn: discard more or end (K5)",
                   AUCTIONED: "after a failed auction you may only discard or end (K9)",
                   START: f"{verb} is not possible at the start of a turn"}[p.phase]
            raise IllegalAction(why)
        return p

    def _do_play(self, seat: int, card: int, s: int, ev: list[Event]) -> None:
        p = self._need_phase(seat, "play", START, PLAYED)
        from_discard = False
        if card not in p.hand:
            if self.rules.play_from_discard and p.discard and p.discard[-1] == card:
                from_discard = True
            else:
                raise IllegalAction(f"{_CODE[card]} is not in your hand")
        new = self._result(card, p, s)
        if new is None:
            raise IllegalAction(self._why_not(card, p, s))
        if from_discard:
            p.discard.pop()
        else:
            p.hand.remove(card)
        r = _RANK[card]
        skipper = r in self.rules.skips
        natural = new == 1 << r and _SUIT[card] == s and p.values[s] >> (r - 1) & 1
        p.values[s] = new
        if skipper and self.rules.recycle and not natural:
            p.discard.append(card)
        else:
            p.stacks[s].append(card)
            self._set_gone(card)
        p.phase = PLAYED
        ev.append({"type": "play", "seat": seat, "card": _CODE[card],
                   "stack": SUIT_LETTERS[s], "values": _values(new)})
        if self._is_finished(p, s):
            p.complete[s] = True
            ev.append({"type": "complete", "seat": seat, "stack": SUIT_LETTERS[s]})
            if all(p.complete):
                p.status = WON
                p.turns += 1  # the winning turn counts (K7: score = turns taken)
                self._finish(seat, "completed" if self.mode != "solo" else "won", ev)
                return
        if skipper and self.skip_draws:  # K11: every other seat draws one card at once
            self.counters["skip_draws"] += 1
            for j, q in enumerate(self.players):
                if j != seat and q.status == ACTIVE and self._draw_one(j, ev):
                    ev.append({"type": "draw", "seat": j, "count": 1, "skip_draw": True})
        if self.mode != "multi":
            self._check_unwinnable(seat, ev)

    def _do_discard(self, seat: int, card: int, ev: list[Event]) -> None:
        p = self._need_phase(seat, "discard", START, DISCARDED, AUCTIONED)
        if card not in p.hand:
            raise IllegalAction(f"{_CODE[card]} is not in your hand")
        if self.rules.discard_only_when_stuck and self._playable(p):
            raise IllegalAction("you may discard only when no card in your hand is playable "
                                "(discard_only_when_stuck)")
        p.hand.remove(card)
        p.discard.append(card)
        p.phase = DISCARDED
        ev.append({"type": "discard", "seat": seat, "card": _CODE[card]})

    def _do_end(self, seat: int, ev: list[Event]) -> None:
        p = self._need_phase(seat, "end", START, PLAYED, DISCARDED, AUCTIONED)
        if p.phase in (START, AUCTIONED) and p.hand and not self._playable(p):
            raise IllegalAction("no card in your hand is playable, so you must discard at "
                                "least one (K5)")
        self._end_turn(seat, ev)

    def _bidders(self, seat: int) -> list[int]:
        n = self.seats
        return [j for j in ((seat + k) % n for k in range(1, n))
                if self.players[j].status == ACTIVE]

    def _do_auction(self, seat: int, card: int, ev: list[Event]) -> None:
        if self.mode != "multi":
            raise IllegalAction(f"there are no auctions in {self.mode} Skipper (K9, K14)")
        p = self._need_phase(seat, "auction", START)
        if card not in p.hand:
            raise IllegalAction(f"{_CODE[card]} is not in your hand")
        bidders = self._bidders(seat)
        if not bidders:
            raise IllegalAction("nobody is left to bid")
        p.hand.remove(card)
        self.auction = {"seller": seat, "card": card, "bidders": bidders, "bids": [],
                        "high": 0}
        self.counters["auctions"] += 1
        ev.append({"type": "auction", "seat": seat, "card": _CODE[card]})

    def _do_bid(self, seat: int, card: int, ev: list[Event]) -> None:
        a = self.auction
        if a is None:
            raise IllegalAction("there is no auction to bid in")
        p = self.players[seat]
        if card not in p.hand:
            raise IllegalAction(f"{_CODE[card]} is not in your hand")
        if _RANK[card] <= a["high"]:
            raise IllegalAction(f"a bid must beat the high bid by rank (K10): "
                                f"{_CODE[card]} does not beat rank {a['high']}")
        p.hand.remove(card)
        a["bids"].append([seat, card])
        a["high"] = _RANK[card]
        ev.append({"type": "bid", "seat": seat, "card": _CODE[card]})
        self._next_bidder(ev)

    def _do_pass(self, seat: int, ev: list[Event]) -> None:
        if self.auction is None:
            raise IllegalAction("there is no auction to pass in (to pass a turn, use end)")
        self.auction["bids"].append([seat, None])
        ev.append({"type": "pass", "seat": seat})
        self._next_bidder(ev)

    def _next_bidder(self, ev: list[Event]) -> None:
        a = self.auction
        assert a is not None
        if len(a["bids"]) < len(a["bidders"]):
            return
        self.auction = None
        seller = a["seller"]
        sp = self.players[seller]
        offers = [(s, c) for s, c in a["bids"] if c is not None]
        if not offers:  # K9: a failed auction leaves the seller free to discard
            bisect.insort(sp.hand, a["card"])
            sp.phase = AUCTIONED
            ev.append({"type": "unsold", "seat": seller, "card": _CODE[a["card"]]})
            return
        buyer, price = offers[-1]  # every bid beat the one before: the last is highest
        for s, c in offers[:-1]:
            bisect.insort(self.players[s].hand, c)
        bisect.insort(self.players[buyer].hand, a["card"])
        bisect.insort(sp.hand, price)
        self.counters["sold"] += 1
        ev.append({"type": "sold", "seat": seller, "buyer": buyer,
                   "card": _CODE[a["card"]], "price": _CODE[price]})
        self._end_turn(seller, ev)  # K9: a successful auction ends the turn

    def _do_resign(self, seat: int, ev: list[Event]) -> None:
        self._retire(seat, "resigned", ev)

    def forfeit(self, seat: int) -> list[Event]:
        """Take ``seat`` out of the game (it abandoned its seat): like ``("resign",)`` but
        allowed at any time, whoever's turn it is.

        Returns:
            The events caused (``state_id`` is incremented).

        Raises:
            GameOver: the game has already ended.
            IllegalAction: ``seat`` is not an active seat.
        """
        if self.over:
            raise GameOver("the game is over")
        if not 0 <= seat < self.seats or self.players[seat].status != ACTIVE:
            raise IllegalAction(f"seat {seat} is not in the game")
        ev: list[Event] = []
        self._retire(seat, "forfeit", ev)
        self.state_id += 1
        return ev

    # -- turn and game flow -------------------------------------------------------------

    def _retire(self, seat: int, why: str, ev: list[Event],
                detail: dict[str, Any] | None = None) -> None:
        p = self.players[seat]
        p.status = OUT
        ev.append({"type": why, "seat": seat, **(detail or {})})
        a = self.auction
        if a is not None:
            if a["seller"] == seat:  # the auction is called off; bids go back
                self.auction = None
                for s, c in a["bids"]:
                    if c is not None:
                        bisect.insort(self.players[s].hand, c)
                bisect.insort(p.hand, a["card"])
            elif seat in a["bidders"][len(a["bids"]):]:
                a["bidders"].remove(seat)
                self._next_bidder(ev)
        if self.over:
            return
        active = [i for i, q in enumerate(self.players) if q.status == ACTIVE]
        if self.mode == "solo":
            self._finish(None, why if why != "forfeit" else "resigned", ev)
        elif not active:
            self._finish(None, "all_out", ev)
        elif len(active) == 1 and self.mode == "multi":
            self._finish(active[0], "last_standing", ev)
        elif self.mode == "multi" and self.current == seat and self.auction is None:
            self._advance(seat)

    def _end_turn(self, seat: int, ev: list[Event]) -> None:
        p = self.players[seat]
        self._draw_up(seat, ev)
        p.turns += 1
        p.phase = START
        ev.append({"type": "end", "seat": seat, "turns": p.turns})
        if self.mode != "multi" and self._check_unwinnable(seat, ev):
            return
        limit = self.options["turn_limit"]
        if self.mode == "solo":
            if p.turns >= limit:
                self._finish(None, "turn_limit", ev)
            return
        if self.mode == "race":
            if p.turns >= limit:
                self._retire(seat, "turn_limit", ev)
            return
        self._advance(seat)
        if all(q.turns >= limit for q in self.players if q.status == ACTIVE):
            self._finish(None, "turn_limit", ev)
        elif 0 in self._dirty:
            self._dirty.discard(0)
            if not any(self.players[j].status == ACTIVE and self._unwinnable(j) is None
                       for j in range(self.seats)):
                self._finish(None, "unwinnable", ev)  # K7 applied to every seat at once

    def _advance(self, seat: int) -> None:
        n = self.seats
        for k in range(1, n + 1):
            j = (seat + k) % n
            if self.players[j].status == ACTIVE:
                self.current = j
                self.players[j].phase = START
                return

    def _check_unwinnable(self, seat: int, ev: list[Event]) -> bool:
        """K7 (solo) / K14 (race): a seat that can no longer finish is out."""
        if seat not in self._dirty:
            return False
        self._dirty.discard(seat)
        lost = self._unwinnable(seat) if self.players[seat].status == ACTIVE else None
        if lost is None:
            return False
        self._retire(seat, "unwinnable", ev, lost)
        return True

    def _finish(self, winner: int | None, reason: str, ev: list[Event]) -> None:
        self.winner = winner
        self.reason = reason
        self.auction = None
        ev.append({"type": "game_over", "winner": winner, "reason": reason})

    def outcome(self) -> dict[str, Any] | None:
        """``None`` while running; else ``{"winner", "reason", "scores"}``.

        ``reason``: solo ``won``, ``resigned``, ``unwinnable`` or ``turn_limit``; multi and
        race ``completed``, ``last_standing``, ``all_out`` or ``turn_limit``. ``scores``:
        solo, the turns taken (K7, fewer is better); multi/race, each seat's complete stacks.
        """
        if self.reason is None:
            return None
        if self.mode == "solo":
            scores = [self.players[0].turns]
        else:
            scores = [sum(p.complete) for p in self.players]
        return {"winner": self.winner, "reason": self.reason, "scores": scores}

    def stats(self) -> dict[str, Any]:
        """Public counters: ``turns`` (all seats), ``auctions`` held, auctions ``sold``,
        ``skip_draws`` (skippers that made others draw) and cards ``trashed``."""
        out = dict(self.counters)
        out["turns"] = sum(p.turns for p in self.players)
        return out

    def default_action(self, seat: int) -> Action | None:
        """The timer default: pass a bid; otherwise end the turn when that is allowed (a
        pass), else discard the lowest card of the hand. ``None`` if ``seat`` cannot act."""
        if seat not in self.to_act():
            return None
        if self.auction is not None:
            return ("pass",)
        legal = self.legal_actions(seat)
        if ("end",) in legal:
            return ("end",)
        discards = [a for a in legal if a[0] == "discard"]
        return discards[0] if discards else legal[0]

    # -- views ----------------------------------------------------------------------------

    def _public_seat(self, i: int) -> dict[str, Any]:
        """Seat ``i`` as everyone sees it (K8).

        The same dict object comes back while nothing it shows has changed, and the same
        ``stacks`` list while the stacks did not change: views then share them, and the
        room's delta diff skips them by identity. Callers must not mutate them. A stack is
        known by its length, values and completion: cards are only ever added to stacks.

        Keys: ``stacks``, ``discard_top``, ``discard``, ``stock``, ``hand``, ``trash`` (counts),
        ``turns``, ``phase``, ``status`` and ``auto_trash`` (the seat's K6 preference,
        RULINGS K6m).
        """
        p = self.players[i]
        st, va, co = p.stacks, p.values, p.complete
        stacks_key = (len(st[0]), len(st[1]), len(st[2]), len(st[3]), va[0], va[1], va[2],
                      va[3], co[0], co[1], co[2], co[3])
        key = (stacks_key, p.discard[-1] if p.discard else -1, len(p.discard), len(p.stock),
               len(p.hand), len(p.trash), p.turns, p.phase, p.status, p.auto_trash)
        cache = self._views.seats
        hit = cache.get(i)
        if hit is not None and hit[0] == key:
            return hit[1]
        if hit is not None and hit[0][0] == stacks_key:
            stacks = hit[1]["stacks"]  # most moves leave the stacks be: the same list
        else:
            stacks = [{"suit": SUIT_LETTERS[s], "cards": [_CODE[c] for c in st[s]],
                       "values": _values(va[s]), "complete": co[s]} for s in range(4)]
        view = {
            "stacks": stacks,
            "discard_top": _CODE[p.discard[-1]] if p.discard else None,
            "discard": len(p.discard), "stock": len(p.stock), "hand": len(p.hand),
            "trash": len(p.trash), "turns": p.turns, "phase": p.phase, "status": p.status,
            "auto_trash": p.auto_trash,
        }
        cache[i] = (key, view)
        return view

    def _reuse(self, key: str, value: Any) -> Any:
        """``value``, or the equal object this returned last time for ``key``: views then
        share it and the room's delta diff skips it by identity. Callers must not mutate it."""
        cache = self._views.reused
        last = cache.get(key, _NOTHING)
        if last == value:
            return last
        cache[key] = value
        return value

    def _public_options(self) -> dict[str, Any]:
        """The options every seat may see (all but ``seed`` and ``deck``); built once, the
        same object every time (options never change during a game)."""
        cache = self._views
        if cache.options is None:
            cache.options = {k: v for k, v in self.options.items() if k not in ("seed", "deck")}
        return cache.options

    def _public_seats(self) -> list[dict[str, Any]]:
        """Every seat's :meth:`_public_seat`; the same list object while none changed."""
        seats = [self._public_seat(i) for i in range(self.seats)]
        last = self._views.all_seats
        if last is not None and all(a is b for a, b in zip(last, seats)):
            return last
        self._views.all_seats = seats
        return seats

    def view(self, seat: int | None) -> dict[str, Any]:
        """What ``seat`` may see (K8): its own hand; every seat's stacks (cards and possible
        values), discard top, pile and hand sizes; the auction with its bids; whose turn;
        the seat's legal actions; ``state_id``. ``None``: a spectator (no hand, no actions).
        Never another hand, any pile's order, the deck option or the seed.

        Keys: ``game, mode, options, state_id, to_act, over, outcome, seat, turn, seats,
        auction, hand, legal_actions``.
        """
        return {key: part(self, seat) for key, part in _VIEW_PARTS.items()}

    def views(self, seats: Iterable[int | None]) -> dict[int | None, dict[str, Any]]:
        """:meth:`view` of several seats, the public part built once per state and shared
        (also between calls: a room builds its acting seat's view before the others')."""
        own = self.PER_SEAT_VIEW_KEYS
        cache = self._views
        hit = cache.shared
        if hit is not None and hit[0] == self.state_id:
            shared = hit[1]
        else:  # every change of state goes through apply or forfeit, which bump state_id
            shared = {key: (None if key in own else part(self, None))
                      for key, part in _VIEW_PARTS.items()}
            cache.shared = (self.state_id, shared)
        out: dict[int | None, dict[str, Any]] = {}
        for seat in seats:
            v = dict(shared)
            for key in own:
                v[key] = _VIEW_PARTS[key](self, seat)
            out[seat] = v
        return out

    def _hand_view(self, seat: int) -> list[str]:
        """``seat``'s hand as card codes; the same list object while the hand is unchanged
        (do not mutate it)."""
        hand = tuple(self.players[seat].hand)
        hit = self._views.hands.get(seat)
        if hit is not None and hit[0] == hand:
            return hit[1]
        view = [_CODE[c] for c in hand]
        self._views.hands[seat] = (hand, view)
        return view

    def deltas(self, seats: Iterable[int | None]) -> Mapping[int | None, dict[str, Any]] | None:
        """What changed in each of ``seats``' views (K8) since the state before this one
        (see :meth:`Game.deltas`): a shared part, computed at once, plus each seat's own,
        computed when its delta is first read (:class:`_SeatDeltas`).

        Compares part by part against the parts this method saw last time instead of
        building views and diffing them: the public parts that come back as the same
        object while unchanged (``to_act``, ``auction``, each seat of ``seats`` and its
        ``stacks``: see :meth:`_public_seat`) by identity first; a public seat that
        changed goes as pointers to its changed fields (``"/seats/2/hand"``), a changed
        stack whole (``"/seats/2/stacks/1"``); a seat's ``hand`` and ``legal_actions``
        whole when they changed. ``game``, ``mode``, ``options`` and ``seat`` never change
        during a game. Seats whose own parts did not change get the very same dict. None
        also when the last call did not read the delta of one of ``seats`` (its own part
        at that state is unknown).
        """
        cache = self._views
        before = cache.mark
        if before is not None and before[0] == self.state_id:
            return None  # this state was reported already
        parts = _VIEW_PARTS
        shared_now = tuple(parts[key](self, None) for key in _CHANGING_SHARED)
        seats_now = self._public_seats()
        own_now: list[tuple[list[str], list[Any]] | None] = [None] * self.seats
        cache.mark = (self.state_id, shared_now, seats_now, own_now)
        wanted = dict.fromkeys(seats)
        if (before is None or before[0] != self.state_id - 1
                or any(s is not None and before[3][s] is None for s in wanted)):
            for i in range(self.seats):  # seen now, so that the next call can tell
                own_now[i] = self._own_part(i, shared_now[0])
            return None
        _, shared_before, seats_before, own_before = before
        shared: dict[str, Any] = {"state_id": self.state_id}
        for key, value, old in zip(_CHANGING_SHARED, shared_now, shared_before):
            if value is not old and value != old:
                shared[key] = value
        if seats_now is not seats_before:
            for j, (now, was) in enumerate(zip(seats_now, seats_before)):
                if now is was:
                    continue
                for field, value in now.items():
                    old = was[field]
                    if value is old or value == old:
                        continue
                    if field == "stacks":
                        for k in range(4):
                            if value[k] is not old[k] and value[k] != old[k]:
                                shared[f"/seats/{j}/stacks/{k}"] = value[k]
                    else:
                        shared[f"/seats/{j}/{field}"] = value
        return _SeatDeltas(self, wanted, shared_now[0], shared, own_now, own_before)

    def _own_part(self, seat: int, acting: Sequence[int]) -> tuple[list[str], list[Any]]:
        """``seat``'s own view parts for :meth:`deltas`: (hand, legal actions); the legal
        actions only when ``seat`` is one of ``acting`` (the seats to act), else
        :data:`_NO_ACTIONS`."""
        return (self._hand_view(seat),
                self.legal_actions(seat) if seat in acting else _NO_ACTIONS)

    def bot_view(self, seat: int) -> Mapping[str, Any]:
        """:meth:`view` computed lazily, key by key (for offline bots)."""
        return _LazyView(self, seat)

    def card_locations(self) -> dict[str, list[int]]:
        """Every card by zone: ``hand:i``, ``stock:i``, ``discard:i``, ``trash:i``,
        ``removed:i``, ``stack:i:S``, ``auction``, ``bid:i``."""
        out: dict[str, list[int]] = {}
        for i, p in enumerate(self.players):
            out[f"hand:{i}"] = list(p.hand)
            out[f"stock:{i}"] = list(p.stock)
            out[f"discard:{i}"] = list(p.discard)
            out[f"trash:{i}"] = list(p.trash)
            out[f"removed:{i}"] = list(p.removed)
            for s in range(4):
                out[f"stack:{i}:{SUIT_LETTERS[s]}"] = list(p.stacks[s])
        if self.auction is not None:
            out["auction"] = [self.auction["card"]]
            for s, c in self.auction["bids"]:
                if c is not None:
                    out.setdefault(f"bid:{s}", []).append(c)
        return out

    # -- snapshot -------------------------------------------------------------------------

    _SEAT_FIELDS = ("hand", "stock", "discard", "trash", "removed", "values", "stacks",
                    "complete", "turns", "phase", "status", "auto_trash")

    def snapshot(self) -> dict[str, Any]:
        """Plain msgpack-able state: options, seats, auction, counters and the RNG state."""
        return {
            "game": "skipper", "v": 1, "options": dict(self.options), "seats": self.seats,
            "state_id": self.state_id, "current": self.current, "winner": self.winner,
            "reason": self.reason, "counters": dict(self.counters), "rng": self.rng.snapshot(),
            "auction": None if self.auction is None else {
                k: (list(map(list, v)) if k == "bids" else list(v) if k == "bidders" else v)
                for k, v in self.auction.items()},
            "players": [{f: (
                [list(x) for x in getattr(p, f)] if f == "stacks"
                else list(getattr(p, f)) if isinstance(getattr(p, f), list)
                else getattr(p, f)) for f in self._SEAT_FIELDS}
                for p in self.players],
            "gone": [list(g) for g in self.gone],
        }

    @classmethod
    def restore(cls, data: Mapping[str, Any]) -> Skipper:
        """Rebuild a game from :meth:`snapshot` data.

        Raises:
            SnapshotError: ``data`` is not a Skipper snapshot.
        """
        if not isinstance(data, Mapping) or data.get("game") != "skipper" or data.get("v") != 1:
            raise SnapshotError("not a Skipper snapshot (version 1)")
        try:
            g = cls.__new__(cls)
            g.options = dict(data["options"])
            g.seats = data["seats"]
            g.mode = g.options["mode"]
            g.rules = Rules(g.options)
            skip = g.options["skip_draws"]
            g.skip_draws = (g.mode == "multi") if skip is None else (bool(skip)
                                                                    and g.mode != "solo")
            g.state_id = data["state_id"]
            g.current = data["current"]
            g.winner = data["winner"]
            g.reason = data["reason"]
            g.counters = dict(data["counters"])
            g.rng = GameRNG.restore(data["rng"])
            a = data["auction"]
            g.auction = None if a is None else {
                "seller": a["seller"], "card": a["card"], "bidders": list(a["bidders"]),
                "bids": [list(b) for b in a["bids"]], "high": a["high"]}
            g.gone = [list(x) for x in data["gone"]]
            g._dirty = set(range(len(g.gone)))
            g._views = _ViewCache()
            g.players = []
            for pd in data["players"]:
                p = _Seat()
                for f in cls._SEAT_FIELDS:
                    val: Any
                    if f == "auto_trash" and f not in pd:  # a snapshot from before K6m
                        val = g.rules.trash
                    else:
                        val = pd[f]
                    if f == "stacks":
                        val = [list(x) for x in val]
                    elif isinstance(val, list):
                        val = list(val)
                    setattr(p, f, val)
                g.players.append(p)
        except (KeyError, TypeError, ValueError, OptionError) as exc:
            raise SnapshotError(f"bad Skipper snapshot: {exc!r}") from None
        return g


def _view_auction(g: Skipper, seat: int | None) -> dict[str, Any] | None:
    a = g.auction
    if a is None:
        return None
    return {"seller": a["seller"], "card": _CODE[a["card"]],
            "bids": [[s, None if c is None else _CODE[c]] for s, c in a["bids"]],
            "bidder": a["bidders"][len(a["bids"])]}


# The view, one entry per key, in order: the whitelist of what a seat may see.
_VIEW_PARTS: dict[str, Any] = {
    "game": lambda g, seat: "skipper",
    "mode": lambda g, seat: g.mode,
    "options": lambda g, seat: g._public_options(),
    "state_id": lambda g, seat: g.state_id,
    "to_act": lambda g, seat: g._reuse("to_act", g.to_act()),
    "over": lambda g, seat: g.over,
    "outcome": lambda g, seat: g.outcome(),
    "seat": lambda g, seat: seat,
    "turn": lambda g, seat: None if g.mode == "race" or g.over else g.current,
    "seats": lambda g, seat: g._public_seats(),
    "auction": lambda g, seat: g._reuse("auction", _view_auction(g, seat)),
    "hand": lambda g, seat: None if seat is None else g._hand_view(seat),
    "legal_actions": lambda g, seat: [] if seat is None else g.legal_actions(seat),
}


#: How Skipper.deltas goes through the view's keys. Fixed for the whole game: ``game``,
#: ``mode``, ``options``, ``seat``. Always changed: ``state_id``. Compared seat by seat:
#: ``seats``. The rest: every seat sees them alike (shared), or only its own (own).
_FIXED_PARTS = ("game", "mode", "options", "seat")
_CHANGING_SHARED = ("to_act", "over", "outcome", "turn", "auction")
_OWN_PARTS = ("hand", "legal_actions")

_STACK_INDEX = {letter: i for i, letter in enumerate(SUIT_LETTERS)}
_ARITY = {"play": 3, "discard": 2, "end": 1, "auction": 2, "bid": 2, "pass": 1, "resign": 1,
          "auto_trash": 2}
#: The values of the ``auto_trash`` preference action (RULINGS K6m).
_SWITCH = {"on": True, "off": False}

GAME = Skipper


# -- bots -----------------------------------------------------------------------------------

def _rank_of(code: str) -> int:
    return C.RANKS.index(code[0]) + 1


def _skip_amounts(options: Mapping[str, Any]) -> dict[int, tuple[int, ...]]:
    """Rank -> skip amounts under the room's options (K1, K2 and the variants)."""
    if options.get("strong_skippers"):
        return {11: (1,), 12: (1, 2), 13: (1, 2, 3)}
    if options.get("weak_skippers"):
        return {13: (1,)}
    return {12: (1,), 13: (1, 2)}


def live_for(code: str, stacks: Sequence[Mapping[str, Any]], options: Mapping[str, Any]) -> bool:
    """Could the seat whose public ``stacks`` these are ever play ``code``? The view-side
    form of the engine's K6 test (RULINGS K6, K6m): a plain card needs its incomplete
    stack to stand at most one below it; a skipper needs an incomplete stack it can still
    skip without passing 12 (K4)."""
    skips = _skip_amounts(options)
    r, s = _rank_of(code), C.SUITS.index(code[1])
    st = stacks[s]
    if not st["complete"] and r - 1 >= st["values"][0]:
        return True
    if r not in skips:
        return False
    own_only = bool(options.get("skippers_own_suit"))
    return any(not t["complete"] and max(t["values"][0], 1) + min(skips[r]) <= 12
               and (not own_only or k == s) for k, t in enumerate(stacks))


def _spare(hand: Sequence[str], stacks: Sequence[Mapping[str, Any]],
           options: Mapping[str, Any]) -> set[str]:
    """Hand cards the seat can give away without loss: dead for it (:func:`live_for`), or a
    second copy of a plain face it holds (only one copy can go on its stack)."""
    skips = _skip_amounts(options)
    out: set[str] = set()
    seen: set[str] = set()
    for code in hand:
        if not live_for(code, stacks, options):
            out.add(code)
        elif _rank_of(code) not in skips:
            if code[:2] in seen:
                out.add(code)
            seen.add(code[:2])
    return out


def _greedy(view: Mapping[str, Any], rng: random.Random) -> Action:
    """The ``greedy`` strategy: plays what advances its stacks, auctions cards it cannot use
    to seats that can, bids on cards it needs, and keeps skippers for finishing.

    It never auctions or bids a card still live for itself (only dead cards and second
    copies: RULINGS K6m makes a card it gives away still count for its owner), never
    plays an off-suit skipper that lifts a stack past 10 unless it holds a finisher of that
    suit, and when it cannot use a card another seat can play now, it offers it (that
    breaks the livelocks where every seat waits for a card another holds).

    Works from the view alone (so it plays over the wire as well as offline).

    Raises:
        ValueError: the view lists no legal action.
    """
    legal = view_legal_actions(view)
    me = view["seat"]
    seats = view["seats"]
    options = view["options"]
    stacks = seats[me]["stacks"]
    values = [st["values"] for st in stacks]
    complete = [st["complete"] for st in stacks]
    skipper_ranks = tuple(_skip_amounts(options))
    auction = view["auction"]
    # Cards it may give away: needed only around auctions (the set costs a little).
    spare = (_spare(view["hand"] or [], stacks, options)
             if auction is not None or seats[me]["phase"] == "start" and view["mode"] == "multi"
             else set())

    def distance(code: str) -> int:
        """How far a plain card is from being playable on its own stack (0 = now)."""
        s = C.SUITS.index(code[1])
        if complete[s]:
            return 99
        d = _rank_of(code) - 1 - values[s][-1]
        return d if d >= 0 else (0 if _rank_of(code) - 1 in values[s] else 99)

    def useful(code: str) -> bool:
        return _rank_of(code) in skipper_ranks or distance(code) <= 2

    if auction is not None:
        bids = [a for a in legal if a[0] == "bid"]
        want = distance(auction["card"])
        if bids and want <= 1:
            # Pay only with a card I can spare (dead for me, or a second copy), cheapest first.
            pay = [a for a in bids if a[1] in spare]
            if pay:
                return min(pay, key=lambda a: _rank_of(a[1]))
        return ("pass",)

    hand = view["hand"] or []

    def rash(a: Action) -> bool:
        """An off-suit skipper lifting its stack past 10 with no finisher of that suit in
        hand (the jack can no longer finish it: only that suit's Q or K can)."""
        code, stack = a[1], C.SUITS.index(a[2])
        r = _rank_of(code)
        if C.SUITS.index(code[1]) == stack or r not in skipper_ranks:
            return False
        low = values[stack][0] + min(_skip_amounts(options)[r])
        return low > 10 and not _holds_finisher(hand, stack, code)

    best, best_score = None, 0
    for a in legal:
        if a[0] != "play":
            continue
        code, stack = a[1], C.SUITS.index(a[2])
        r, own = _rank_of(code), C.SUITS.index(code[1]) == stack
        top = values[stack][-1]
        if own and r - 1 in values[stack]:
            score = 100 if r >= 11 else 60 - r  # finishing, or a natural (lowest first)
        elif r in skipper_ranks:
            reach = {v + k for v in values[stack] for k in ((1, 2) if r == 13 else (1,))}
            if own and r >= 11 and max(reach) >= 11:
                score = 100
            elif not own and min(reach) > 10 and not _holds_finisher(hand, stack, code):
                score = 0  # past 10 the jack can no longer finish: keep a finisher in hand
            elif any(C.SUITS.index(h[1]) == stack and _rank_of(h) not in skipper_ranks
                     and _rank_of(h) - 1 in reach and _rank_of(h) - 1 > top for h in hand):
                score = 30 - (5 if own else 0)
            else:
                score = 0
        else:
            score = 0
        if score > best_score:
            best, best_score = a, score
    if best is not None:
        return best
    if ("end",) in legal and seats[me]["phase"] == "played":
        return ("end",)
    discards = [a for a in legal if a[0] == "discard"]
    junk = [a for a in discards if not useful(a[1])]
    # Auction a card I can spare that another seat can play now (the price may be what I
    # need; and the card goes where it is useful instead of round my piles for ever).
    for a in legal:
        if a[0] == "auction" and _rank_of(a[1]) not in skipper_ranks and a[1] in spare:
            s, need = C.SUITS.index(a[1][1]), _rank_of(a[1]) - 1
            if any(not o["stacks"][s]["complete"] and need in o["stacks"][s]["values"]
                   for i, o in enumerate(seats) if i != me and o["status"] == "active"):
                return a
    if junk:
        return max(junk, key=lambda a: distance(a[1]))
    phase = seats[me]["phase"]
    if phase == "start" and discards:
        # A pass leaves the hand as it is: cycle the card furthest from use instead, and
        # when only skippers are left, spend one rather than wait for ever.
        plain = [a for a in discards if _rank_of(a[1]) not in skipper_ranks]
        skips = [a for a in legal if a[0] == "play" and not rash(a)]
        if skips and seats[me]["stock"] + seats[me]["discard"] == 0:
            # Cycling would only draw the same cards back: spend a skipper on the stack
            # that is furthest along, where a skip is most likely to bridge the gap.
            return max(skips, key=lambda a: values[C.SUITS.index(a[2])][-1])
        if plain:
            return max(plain, key=lambda a: distance(a[1]))
        if skips:
            return skips[rng.randrange(len(skips))]
        return discards[0]
    if ("end",) in legal:
        return ("end",)
    return discards[0] if discards else legal[0]


def _holds_finisher(hand: Sequence[str], stack: int, besides: str) -> bool:
    """Does ``hand`` (leaving out ``besides``) hold a queen or king of suit ``stack``?"""
    return any(h != besides and C.SUITS.index(h[1]) == stack and _rank_of(h) >= 12
               for h in hand)


def _random(view: Mapping[str, Any], rng: random.Random) -> Action:
    """Skipper's ``random`` strategy: a random legal move with sensible turn ends.

    While a card can be played it plays one (chosen at random, never ending the turn
    early); with nothing to play it discards a random card (or auctions one, at random)
    and then ends the turn; in an auction it bids or passes at random. Never resigns.

    Raises:
        ValueError: the view lists no legal action.
    """
    legal = [a for a in view_legal_actions(view) if a[0] != "resign"]
    if not legal:
        return ("resign",)
    plays = [a for a in legal if a[0] == "play"]
    if plays:
        return plays[rng.randrange(len(plays))]
    if ("end",) in legal and view["seats"][view["seat"]]["phase"] != "start":
        return ("end",)
    return legal[rng.randrange(len(legal))]


def _expert(view: Mapping[str, Any], rng: random.Random) -> Action:
    """The ``expert`` strategy (see :mod:`cardhall.games.skipper_expert`)."""
    from .skipper_expert import expert

    return expert(view, rng)


STRATEGIES = {"greedy": _greedy, "random": _random, "expert": _expert}
