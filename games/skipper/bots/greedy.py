"""Skipper's ``greedy`` and ``random`` strategies, and the view-side rule tests bots share.

Like every strategy they work from a seat's view alone (RULINGS K8), so they play over the
wire as well as offline. The view-side tests (:func:`live_for`, :func:`spare`) read the
skip table where the engine does (:func:`cardhall.games.skipper.stacks.skip_amounts`).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from ... import cards as C
from ...base import Action
from ...bots import view_legal_actions
from ..stacks import skip_amounts


def rank_of(code: str) -> int:
    """The rank (A=1 .. K=13) of a card code."""
    return C.RANKS.index(code[0]) + 1


def live_for(code: str, stacks: Sequence[Mapping[str, Any]], options: Mapping[str, Any]) -> bool:
    """Could the seat whose public ``stacks`` these are ever play ``code``? The view-side
    form of the engine's K6 test (RULINGS K6, K6m): a plain card needs its incomplete
    stack to stand at most one below it; a skipper needs an incomplete stack it can still
    skip without passing 12 (K4)."""
    skips = skip_amounts(options)
    r, s = rank_of(code), C.SUITS.index(code[1])
    st = stacks[s]
    if not st["complete"] and r - 1 >= st["values"][0]:
        return True
    if r not in skips:
        return False
    own_only = bool(options.get("skippers_own_suit"))
    return any(not t["complete"] and max(t["values"][0], 1) + min(skips[r]) <= 12
               and (not own_only or k == s) for k, t in enumerate(stacks))


def spare(hand: Sequence[str], stacks: Sequence[Mapping[str, Any]],
          options: Mapping[str, Any]) -> set[str]:
    """Hand cards the seat can give away without loss: dead for it (:func:`live_for`), or a
    second copy of a plain face it holds (only one copy can go on its stack)."""
    skips = skip_amounts(options)
    out: set[str] = set()
    seen: set[str] = set()
    for code in hand:
        if not live_for(code, stacks, options):
            out.add(code)
        elif rank_of(code) not in skips:
            if code[:2] in seen:
                out.add(code)
            seen.add(code[:2])
    return out


def holds_finisher(hand: Sequence[str], stack: int, besides: str) -> bool:
    """Does ``hand`` (leaving out ``besides``) hold a queen or king of suit ``stack``?"""
    return any(h != besides and C.SUITS.index(h[1]) == stack and rank_of(h) >= 12
               for h in hand)


class _Table:
    """What greedy reads of the seat's view, once per decision."""

    def __init__(self, view: Mapping[str, Any]) -> None:
        self.me = view["seat"]
        self.seats = view["seats"]
        self.options = view["options"]
        stacks = self.seats[self.me]["stacks"]
        self.values = [st["values"] for st in stacks]
        self.complete = [st["complete"] for st in stacks]
        self.skips = skip_amounts(self.options)
        self.skipper_ranks = tuple(self.skips)
        self.hand: list[str] = view["hand"] or []
        self.phase = self.seats[self.me]["phase"]
        # Cards it may give away: needed only around auctions (the set costs a little).
        self.spare = (spare(self.hand, stacks, self.options)
                      if view["auction"] is not None
                      or self.phase == "start" and view["mode"] == "multi" else set())

    def distance(self, code: str) -> int:
        """How far a plain card is from being playable on its own stack (0 = now)."""
        s = C.SUITS.index(code[1])
        if self.complete[s]:
            return 99
        d = rank_of(code) - 1 - self.values[s][-1]
        return d if d >= 0 else (0 if rank_of(code) - 1 in self.values[s] else 99)

    def useful(self, code: str) -> bool:
        return rank_of(code) in self.skipper_ranks or self.distance(code) <= 2

    def rash(self, a: Action) -> bool:
        """An off-suit skipper lifting its stack past 10 with no finisher of that suit in
        hand (the jack can no longer finish it: only that suit's Q or K can)."""
        code, stack = a[1], C.SUITS.index(a[2])
        r = rank_of(code)
        if C.SUITS.index(code[1]) == stack or r not in self.skipper_ranks:
            return False
        low = self.values[stack][0] + min(self.skips[r])
        return low > 10 and not holds_finisher(self.hand, stack, code)

    def play_score(self, a: Action) -> int:
        """How much greedy likes play ``a``: finishing 100, a natural 60 - rank (lowest
        first), a skipper that lets a hand card follow 30 (25 on its own suit), else 0."""
        code, stack = a[1], C.SUITS.index(a[2])
        r, own = rank_of(code), C.SUITS.index(code[1]) == stack
        values = self.values[stack]
        if own and r - 1 in values:
            return 100 if r >= 11 else 60 - r
        if r not in self.skipper_ranks:
            return 0
        reach = {v + k for v in values for k in self.skips[r]}
        if own and r >= 11 and max(reach) >= 11:
            return 100
        if not own and min(reach) > 10 and not holds_finisher(self.hand, stack, code):
            return 0  # past 10 the jack can no longer finish: keep a finisher in hand
        top = values[-1]
        if any(C.SUITS.index(h[1]) == stack and rank_of(h) not in self.skipper_ranks
               and rank_of(h) - 1 in reach and rank_of(h) - 1 > top for h in self.hand):
            return 30 - (5 if own else 0)
        return 0


def greedy(view: Mapping[str, Any], rng: random.Random) -> Action:
    """The ``greedy`` strategy: plays what advances its stacks, auctions cards it cannot use
    to seats that can, bids on cards it needs, and keeps skippers for finishing.

    It never auctions or bids a card still live for itself (only dead cards and second
    copies: RULINGS K6m makes a card it gives away still count for its owner), never
    plays an off-suit skipper that lifts a stack past 10 unless it holds a finisher of that
    suit, and when it cannot use a card another seat can play now, it offers it (that
    breaks the livelocks where every seat waits for a card another holds).

    Raises:
        ValueError: the view lists no legal action.
    """
    legal = view_legal_actions(view)
    t = _Table(view)
    auction = view["auction"]
    if auction is not None:
        bids = [a for a in legal if a[0] == "bid"]
        if bids and t.distance(auction["card"]) <= 1:
            # Pay only with a card I can spare (dead for me, or a second copy), cheapest first.
            pay = [a for a in bids if a[1] in t.spare]
            if pay:
                return min(pay, key=lambda a: rank_of(a[1]))
        return ("pass",)
    best, best_score = None, 0
    for a in legal:
        if a[0] == "play":
            score = t.play_score(a)
            if score > best_score:
                best, best_score = a, score
    if best is not None:
        return best
    if ("end",) in legal and t.phase == "played":
        return ("end",)
    return _without_a_play(t, legal, rng)


def _without_a_play(t: _Table, legal: list[Action], rng: random.Random) -> Action:
    """Greedy's choice when no play is worth making: auction a spare card another seat can
    play now, discard junk, cycle a card, or spend a skipper."""
    discards = [a for a in legal if a[0] == "discard"]
    junk = [a for a in discards if not t.useful(a[1])]
    # Auction a card I can spare that another seat can play now (the price may be what I
    # need; and the card goes where it is useful instead of round my piles for ever).
    for a in legal:
        if a[0] == "auction" and rank_of(a[1]) not in t.skipper_ranks and a[1] in t.spare:
            s, need = C.SUITS.index(a[1][1]), rank_of(a[1]) - 1
            if any(not o["stacks"][s]["complete"] and need in o["stacks"][s]["values"]
                   for i, o in enumerate(t.seats) if i != t.me and o["status"] == "active"):
                return a
    if junk:
        return max(junk, key=lambda a: t.distance(a[1]))
    if t.phase == "start" and discards:
        # A pass leaves the hand as it is: cycle the card furthest from use instead, and
        # when only skippers are left, spend one rather than wait for ever.
        plain = [a for a in discards if rank_of(a[1]) not in t.skipper_ranks]
        skips = [a for a in legal if a[0] == "play" and not t.rash(a)]
        me = t.seats[t.me]
        if skips and me["stock"] + me["discard"] == 0:
            # Cycling would only draw the same cards back: spend a skipper on the stack
            # that is furthest along, where a skip is most likely to bridge the gap.
            return max(skips, key=lambda a: t.values[C.SUITS.index(a[2])][-1])
        if plain:
            return max(plain, key=lambda a: t.distance(a[1]))
        if skips:
            return skips[rng.randrange(len(skips))]
        return discards[0]
    if ("end",) in legal:
        return ("end",)
    return discards[0] if discards else legal[0]


def random_choice(view: Mapping[str, Any], rng: random.Random) -> Action:
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
