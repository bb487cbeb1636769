"""Skipper's ``expert`` bot: determinized rollouts over greedy play, and auction rules that
keep the tempo from the other seats (solo, multi, race).

At each decision with more than one sensible choice the bot samples ``samples`` deals
consistent with its view (its own hidden piles and, in multi, the other seats' hands and
piles: Perfect Information Monte Carlo, with ``Skipper.resample``), plays each candidate
action in a copy of every sample (``clone``) and lets the ``greedy`` strategy play its own
game on to the end (:func:`own_game`, ``Skipper.solitaire``), and picks
the candidate that finished in the fewest turns on average. Every candidate meets the same
samples and the same rollout generator (common random numbers), so differences come from
the choice, not from luck; and it leaves greedy's choice only for a clear gain, confirmed
in more samples (a candidate that was lucky in the first ones must prove itself).

Fewest turns is what wins in every mode: solo scores turns (K7); a race is won by the first
to finish (K14); in multi the first to complete four books wins at once (K13), and turns go
round. In multi a sample of the seat's own game keeps what the other seats do to it: RULINGS
K6m's dead test (a card the seat has passed but another seat needs stays in its hand) and
the skip-draws their skippers give it (K11, at the rate they have played skippers so far).

Rules it relies on: K1-K4 (what a stack takes), K5 (play or discard, never both), K6/K6m
(what is trashed when drawn), K8 (it reads only its view), K9-K10 (auctions: one bid each,
the highest rank wins, a sale ends the seller's turn), K11 (skip-draws), K13 (first to four
books wins). Auctions are decided without search, because they hand cards between seats:

- as a bidder (:func:`bid`) it bids for every card that advances it, paying with its
  highest spare card the seller cannot play now (greedy pays with its lowest one, and bids
  only for the next two ranks), so it wins the contested cards;
- where greedy would sell a spare card to a seat that can play it now, it discards instead
  (:func:`no_auction`): a sale hands that seat a tempo.

Measured (``benchmarks/skipper_bots.py --only h2h --expert-games 150``, benchmarks/RESULTS.md
"Session 9"): one expert seat against greedy ones won 88/150 games at 2 seats (0.587, Wilson
95% 0.507-0.662; chance 0.5), 63/150 at 3 (0.420, 0.344-0.500; chance 0.333), 64/150 at 4
(0.427, 0.350-0.507; chance 0.25); solo, 21.02 mean turns against greedy's 23.27 on the same
100 deals. The auction rules carry most of the edge at 3 and 4 seats; at 2 seats, where
auctions are rare, the edge is narrow.

Deterministic given the bot's generator: the samples and rollouts draw only from seeds
taken from it. The search budget is a count: ``samples`` deals and at most ``rollouts``
rollouts per decision. ``budget_ms`` (off by default) also caps the time per decision; with
it set the number of rollouts done depends on the machine's speed, so results are no longer
reproducible.

Like every strategy it works from the view alone (RULINGS K8: no hidden card is read from
the engine) and never auctions or bids a card still live for itself (RULINGS K6m). It uses
the engine only through its public contract: ``resample``, ``clone``, ``solitaire``,
``apply`` and ``bot_view``.
"""

from __future__ import annotations

import random
import time
from collections.abc import Mapping, Sequence
from typing import Any

from ... import cards as C
from ...base import Action
from ...bots import view_legal_actions
from ...errors import GameError
from ..game import Skipper
from ..stacks import ACTIVE, skip_amounts
from .greedy import greedy, live_for, rank_of, spare

#: Deals sampled per decision (first round).
SAMPLES = 4
#: Most rollouts per decision (the search budget as a count).
ROLLOUTS = 64
#: Own turns after which a solo or race rollout gives up (scored as a loss).
ROLLOUT_TURNS = 80
#: Mean gain over greedy's choice, in turns, the search needs before it plays something else.
MARGIN_TURNS = 0.25
_LOSS = -1_000.0


def skip_rate(view: Mapping[str, Any]) -> float:
    """Skip-draws (RULINGS K11) the viewing seat can expect per own turn: for each other
    active seat, the skippers it has played onto its stacks per turn so far (a prior of
    0.35 a turn, worth four turns, keeps early estimates sane). 0 outside multi or with
    ``skip_draws`` off. Only public information (stacks, turns) is used (K8).
    """
    if view["mode"] != "multi" or view["options"].get("skip_draws") is False:
        return 0.0
    me = view["seat"]
    skips = skip_amounts(view["options"])
    total = 0.0
    for i, sv in enumerate(view["seats"]):
        if i == me or sv["status"] != ACTIVE:
            continue
        played = sum(1 for st in sv["stacks"] for k, c in enumerate(st["cards"])
                     if k > 0 and rank_of(c) in skips)
        total += (played + 0.35 * 4) / (sv["turns"] + 4)
    return total


def own_game(view: Mapping[str, Any], rng: random.Random) -> Skipper:
    """A sample of the seat's own game: ``Skipper.resample`` of the view, then
    ``Skipper.solitaire`` of the seat (every other seat out of play, the game run as a
    race of one), so a rollout plays only the seat's own stacks, hand and piles.

    In multi two effects of the other seats stay in the sample: K6m's dead test still
    looks at their stacks (a card the seat has passed but another seat needs is not
    trashed), and their skippers' skip-draws (K11) reach the seat at :func:`skip_rate`.
    """
    return Skipper.resample(view, rng).solitaire(view["seat"], skip_rate(view))


def _rollout(g: Skipper, me: int, rng: random.Random) -> float:
    """Play seat ``me``'s own game (:func:`own_game`) on with greedy; score minus the
    turns it took to finish, or a loss (below any win) plus its stack progress (12 per
    complete stack, else its highest value)."""
    view = g.bot_view(me)
    limit = view["seats"][me]["turns"] + ROLLOUT_TURNS
    while not g.over:
        mine = view["seats"][me]
        if mine["status"] != ACTIVE or mine["turns"] >= limit:
            break
        g.apply(me, greedy(view, rng))
        view = g.bot_view(me)
    stacks = view["seats"][me]["stacks"]
    if all(st["complete"] for st in stacks):
        return -float(view["seats"][me]["turns"])
    return _LOSS + float(sum(12 if st["complete"] else st["values"][-1] for st in stacks))


def _candidates(legal: list[Action]) -> list[Action]:
    """The actions worth a search: plays, discards and end (no resignation; auctions and
    bids are decided by :func:`bid` and :func:`no_auction`, RULINGS K9, K10)."""
    return [a for a in legal if a[0] in ("play", "discard", "end")]


def _natural(view: Mapping[str, Any], legal: list[Action]) -> Action | None:
    """A legal natural play (a plain card of the stack's suit, one above a value of it),
    lowest first; None if there is none."""
    stacks = view["seats"][view["seat"]]["stacks"]
    skips = skip_amounts(view["options"])
    best = None
    for a in legal:
        if a[0] != "play" or a[1][1] != a[2]:
            continue
        r = rank_of(a[1])
        if r in skips and r < 11:
            continue
        if r - 1 in stacks[C.SUITS.index(a[2])]["values"]:
            if best is None or r < rank_of(best[1]):
                best = a
    return best


def _playable_now(code: str, stacks: Sequence[Mapping[str, Any]],
                  skips: Mapping[int, Any]) -> bool:
    """Is ``code`` a plain card that these public ``stacks`` take now, as a natural (K1)?"""
    r, st = rank_of(code), stacks[C.SUITS.index(code[1])]
    return not st["complete"] and r - 1 in st["values"] and r not in skips


def bid(view: Mapping[str, Any], legal: list[Action]) -> Action:
    """The expert's bid in an auction (RULINGS K10: one bid each, clockwise; the highest
    rank wins; only cards the seat can spare are offered, K6m).

    It bids for every card that advances it: a plain card its stack takes now or within
    two ranks, or a skipper it can still use (greedy bids only for the next two ranks).
    It pays with a spare card (dead for it, or a second copy of a face) that the seller
    cannot play now (no gift to the seller: deny), the highest rank first (the highest bid
    wins, K10); with no spare card, or for a card it has no use for, it passes.

    Returns:
        ``("bid", card)`` or ``("pass",)``.
    """
    me = view["seat"]
    seats = view["seats"]
    options = view["options"]
    auction = view["auction"]
    card = auction["card"]
    skips = skip_amounts(options)
    stacks = seats[me]["stacks"]
    bids = [a for a in legal if a[0] == "bid" and a[1] in spare(view["hand"] or [], stacks,
                                                                  options)]
    if not bids:
        return ("pass",)
    st = stacks[C.SUITS.index(card[1])]
    r = rank_of(card)
    if r in skips:
        want = live_for(card, stacks, options)
    else:
        want = not st["complete"] and (0 <= r - 1 - st["values"][-1] <= 2
                                       or r - 1 in st["values"])
    if not want:
        return ("pass",)
    seller = seats[auction["seller"]]["stacks"]
    bids.sort(key=lambda a: (_playable_now(a[1], seller, skips), -rank_of(a[1]), a[1]))
    return bids[0]


def no_auction(view: Mapping[str, Any], legal: list[Action]) -> Action:
    """What the expert does where greedy would auction a card (RULINGS K9): greedy offers
    a card it can spare that another seat can play now, which hands that seat a tempo and
    costs the seller its turn (a sale ends it). The expert keeps the tempo from the others
    (deny): it discards a spare card instead (K5), or the first card it may discard.

    Returns:
        A ``("discard", card)`` or ``("end",)`` action from ``legal``.
    """
    discards = [a for a in legal if a[0] == "discard"]
    junk = [a for a in discards
            if a[1] in spare(view["hand"] or [], view["seats"][view["seat"]]["stacks"],
                             view["options"])]
    if junk:
        return junk[0]
    if discards:
        return discards[0]
    return ("end",) if ("end",) in legal else legal[0]


def expert(view: Mapping[str, Any], rng: random.Random, samples: int = SAMPLES,
           budget_ms: float | None = None, rollouts: int = ROLLOUTS,
           stats: dict[str, int] | None = None) -> Action:
    """The ``expert`` strategy: the candidate action with the best mean rollout score.

    Auctions (K9, K10) are decided without search: :func:`bid` as a bidder; and where
    greedy would put a card up for auction, :func:`no_auction`. A natural play is made at
    once. Otherwise every candidate (plays, discards, end) is played in ``samples`` deals
    from :func:`own_game` and rolled out; greedy's choice is left only for a clear gain,
    confirmed in more deals (:class:`_Search`).

    Args:
        view: The seat's view.
        rng: The bot's generator (the only source of randomness).
        samples: Deals sampled per decision in the first round (each candidate is played
            in each).
        budget_ms: Time cap per decision in milliseconds (at least one deal is always
            sampled); ``None``: no cap, fully deterministic given ``rng``.
        rollouts: Most rollouts per decision (the budget as a count: deterministic); the
            first round always plays every candidate once.
        stats: If given, ``stats["rollouts"]`` is increased by the rollouts played (set
            to 0 first when missing).

    Returns:
        One of the view's legal actions; never ``("resign",)`` while another is legal.

    Raises:
        ValueError: the view lists no legal action.
    """
    legal = view_legal_actions(view)
    if stats is not None:
        stats.setdefault("rollouts", 0)
    if view["auction"] is not None:
        return bid(view, legal)
    base = greedy(view, rng)
    if base[0] == "auction":
        base = no_auction(view, legal)
    natural = _natural(view, legal)
    if natural is not None:
        return natural  # a natural play never hurts: the stack only grows, the hand frees
    cands = _candidates(legal)
    if base in cands:
        cands.remove(base)
    cands.insert(0, base)
    if len(cands) == 1:
        return base
    search = _Search(view, rng, rollouts, budget_ms)
    choice = search.choose(cands, samples)
    if stats is not None:
        stats["rollouts"] = stats.get("rollouts", 0) + search.done
    return choice


class _Search:
    """One decision's rollouts (see :func:`expert`): every candidate meets the same samples
    and the same rollout generator (common random numbers)."""

    def __init__(self, view: Mapping[str, Any], rng: random.Random, rollouts: int,
                 budget_ms: float | None) -> None:
        self.view, self.rng, self.rollouts = view, rng, rollouts
        self.me: int = view["seat"]
        self.deadline = None if budget_ms is None else time.perf_counter() + budget_ms / 1e3
        self.done = 0

    def play(self, action: Action, det: Skipper, seed: int) -> float:
        """Roll ``action`` out in a copy of the sample ``det``."""
        self.done += 1
        g = det.clone()
        try:
            g.apply(self.me, action)
        except GameError:  # the sample cannot hold the action: a wrong guess
            return _LOSS
        return _rollout(g, self.me, random.Random(seed))

    def spent(self) -> bool:
        return self.deadline is not None and time.perf_counter() >= self.deadline

    def choose(self, cands: list[Action], samples: int) -> Action:
        """Round 1: every candidate in ``samples`` deals. Round 2: greedy's choice (the
        first candidate) against the best other in ``3 * samples`` more; greedy's is left
        only for a clear gain (a lucky candidate of round 1 must prove itself: the winner's
        curse)."""
        totals = [0.0] * len(cands)
        n = 0
        for _ in range(samples):
            if n and (self.done + len(cands) > self.rollouts or self.spent()):
                break
            det, seed = own_game(self.view, self.rng), self.rng.getrandbits(62)
            for k, action in enumerate(cands):
                totals[k] += self.play(action, det, seed)
            n += 1
        best = max(range(1, len(cands)), key=lambda k: (totals[k], -k))
        if totals[best] <= totals[0]:
            return cands[0]
        a, b = totals[0], totals[best]
        for _ in range(3 * samples):
            if self.done + 2 > self.rollouts or self.spent():
                break
            det, seed = own_game(self.view, self.rng), self.rng.getrandbits(62)
            a += self.play(cands[0], det, seed)
            b += self.play(cands[best], det, seed)
            n += 1
        return cands[best] if (b - a) / n > MARGIN_TURNS else cands[0]
