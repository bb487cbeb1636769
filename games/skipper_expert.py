"""Skipper's ``expert`` bot: determinized rollouts over greedy play (solo, multi, race).

At each decision with more than one sensible choice the bot samples ``samples`` deals
consistent with its view (its own hidden piles and, in multi, the other seats' hands and
piles: Perfect Information Monte Carlo), plays each candidate action in every sample and
lets the ``greedy`` strategy play its own game on to the end (:func:`own_game`), and picks
the candidate that finished in the fewest turns on average. Every candidate meets the same
samples and the same rollout generator (common random numbers), so differences come from
the choice, not from luck; and it leaves greedy's choice only for a clear gain, confirmed
in more samples (a candidate that was lucky in the first ones must prove itself).

Fewest turns is what wins in every mode: solo scores turns (K7); a race is won by the first
to finish (K14); in multi the first to complete four books wins (K13), and turns go round.
Natural plays are made at once (never worse: a stack only grows, the hand frees), and
auctions and bids are greedy's (a sample of one's own game has no auctions).

Measured (``benchmarks/skipper_bots.py``): solo, 20.96 mean turns against greedy's 23.27 on
the same 100 deals; multi, one expert seat against greedy ones, no edge shown yet (60 games
per table size: 2 seats 0.467, 3 seats 0.383, 4 seats 0.300 of the wins, every Wilson 95%
interval holding the 1/seats share of chance). What a sample of one's own game leaves out
(auctions, skip-draws, RULINGS K6m keeping cards dead for the seat but live for others in
its hand) matters there.

Deterministic given the bot's generator: the samples and rollouts draw only from seeds
taken from it. ``budget_ms`` (off by default) caps the time per decision; with it set the
number of samples done depends on the machine's speed, so results are no longer
reproducible.

Like every strategy it works from the view alone (RULINGS K8: no hidden card is read from
the engine) and never auctions or bids a card still live for itself (RULINGS K6m).
"""

from __future__ import annotations

import random
import time
from collections.abc import Mapping, Sequence
from typing import Any

from . import cards as C
from .base import Action
from .bots import view_legal_actions
from .errors import GameError
from .skipper import (
    ACTIVE,
    OUT,
    Skipper,
    _greedy,
    _rank_of,
    _skip_amounts,
    _spare,
    _Seat,
    _ViewCache,
)
from .rng import GameRNG

#: Deals sampled per decision.
SAMPLES = 4
#: Own turns after which a solo or race rollout gives up (scored as a loss).
ROLLOUT_TURNS = 80
#: Mean gain over greedy's choice, in turns, the search needs before it plays something else.
MARGIN_TURNS = 0.25
_WIN, _LOSS = 1_000.0, -1_000.0


def _bits(values: Sequence[int]) -> int:
    out = 0
    for v in values:
        out |= 1 << v
    return out


def determinize(view: Mapping[str, Any], rng: random.Random) -> Skipper:
    """A complete Skipper game consistent with ``view`` (a seat's view): the visible cards
    where the view shows them, every hidden card dealt at random into the hidden places
    (other hands, draw piles, discard piles under their tops); as many as the view's
    ``trash`` counts go to the trash, dead cards first (RULINGS K6, K6m); what is left
    (e.g. ``remove_four``) is set aside as removed.

    Args:
        view: The seat's view (:meth:`Skipper.view` or :meth:`Skipper.bot_view`).
        rng: Where the deal's randomness comes from.

    Returns:
        A new game whose seat ``view["seat"]`` sees exactly ``view``'s hand and table.
    """
    me = view["seat"]
    mode = view["mode"]
    seats_view = view["seats"]
    n = len(seats_view)
    g = Skipper({**view["options"], "seed": rng.getrandbits(62)}, n)
    seen: set[int] = set()
    hands: list[list[int]] = [[] for _ in range(n)]
    hands[me] = [C.parse(c) for c in view["hand"] or []]
    seen.update(hands[me])
    auction = view["auction"]
    if auction is not None:
        seen.add(C.parse(auction["card"]))
        seen.update(C.parse(c) for _, c in auction["bids"] if c is not None)
    for i, sv in enumerate(seats_view):
        p = g.players[i]
        p.stacks = [[C.parse(c) for c in st["cards"]] for st in sv["stacks"]]
        p.values = [_bits(st["values"]) for st in sv["stacks"]]
        p.complete = [bool(st["complete"]) for st in sv["stacks"]]
        p.turns, p.phase, p.status = sv["turns"], sv["phase"], sv["status"]
        p.auto_trash = bool(sv.get("auto_trash", True))
        for st in p.stacks:
            seen.update(st)
        p.discard = [] if sv["discard_top"] is None else [C.parse(sv["discard_top"])]
        seen.update(p.discard)
    pool = [c for c in range(52 * n) if c not in seen]
    rng.shuffle(pool)
    # Trash: dead cards first (that is what the engine trashes), then any.
    want_trash = [sv["trash"] for sv in seats_view]
    rest = []
    for c in pool:
        owner = C.deck_of(c) if mode != "multi" else _owner_with_room(want_trash, c, n)
        if owner is not None and want_trash[owner] > 0 and g._dead(c, g.players[owner]):
            g.players[owner].trash.append(c)
            want_trash[owner] -= 1
        else:
            rest.append(c)
    for i in range(n):
        while want_trash[i] > 0 and rest:
            g.players[i].trash.append(rest.pop())
            want_trash[i] -= 1
    # Hidden places, own deck's cards first (cards leave their deck only by auction).
    by_deck: list[list[int]] = [[] for _ in range(n)]
    for c in rest:
        by_deck[C.deck_of(c)].append(c)
    slots = []
    for i, sv in enumerate(seats_view):
        if i != me:
            slots.append((i, "hand", sv["hand"]))
        slots.append((i, "discard", max(0, sv["discard"] - len(g.players[i].discard))))
        slots.append((i, "stock", sv["stock"]))
    overflow: list[int] = []
    for i, kind, count in slots:
        own = by_deck[i]
        take = own[:count]
        del own[:count]
        if kind == "hand":
            hands[i] = take
        elif kind == "discard":
            g.players[i].discard[:0] = take  # under the visible top
        else:
            g.players[i].stock = take
    for own in by_deck:
        overflow.extend(own)
    for i, kind, count in slots:  # shortfalls (cards bought from other decks)
        p = g.players[i]
        have = len(hands[i]) if kind == "hand" else (
            len(p.discard) - (1 if seats_view[i]["discard_top"] is not None else 0)
            if kind == "discard" else len(p.stock))
        while have < count and overflow:
            c = overflow.pop()
            if kind == "hand":
                hands[i].append(c)
            elif kind == "discard":
                p.discard.insert(0, c)
            else:
                p.stock.append(c)
            have += 1
    for i in range(n):
        g.players[i].hand = sorted(hands[i])
        g.players[i].removed = []
    if overflow:
        g.players[me].removed = overflow
    g.current = view["turn"] if view["turn"] is not None else 0
    if auction is not None:
        bids = [[s, None if c is None else C.parse(c)] for s, c in auction["bids"]]
        high = max([_rank_of(c) for _, c in auction["bids"] if c is not None] or [0])
        g.auction = {"seller": auction["seller"], "card": C.parse(auction["card"]),
                     "bidders": g._bidders(auction["seller"]), "bids": bids, "high": high}
    g.gone = [[0] * 52 for _ in g.gone]
    for p in g.players:
        for c in [*p.trash, *p.removed, *(c for st in p.stacks for c in st)]:
            g._set_gone(c)
    g._dirty = set(range(len(g.gone)))
    g._views = _ViewCache()
    return g


def _owner_with_room(want: list[int], card: int, n: int) -> int | None:
    """Multi: the seat whose trash ``card`` should fill (its deck's seat when that still
    has room, else any seat with room)."""
    d = C.deck_of(card)
    if d < n and want[d] > 0:
        return d
    return next((i for i in range(n) if want[i] > 0), None)


def _clone(g: Skipper, seed: int) -> Skipper:
    """A copy of ``g`` for one rollout: its own lists, and a fresh RNG seeded ``seed`` (a
    rollout's reshuffles need not repeat the sample's)."""
    c = Skipper.__new__(Skipper)
    c.options, c.seats, c.mode, c.rules = g.options, g.seats, g.mode, g.rules
    c.skip_draws, c.state_id, c.current = g.skip_draws, g.state_id, g.current
    c.winner, c.reason, c.counters = g.winner, g.reason, dict(g.counters)
    c.rng = GameRNG(seed)
    a = g.auction
    c.auction = None if a is None else {
        "seller": a["seller"], "card": a["card"], "bidders": list(a["bidders"]),
        "bids": [list(b) for b in a["bids"]], "high": a["high"]}
    c.gone = [list(x) for x in g.gone]
    c._dirty = set(g._dirty)
    c._views = _ViewCache()
    c.players = []
    for p in g.players:
        q = _Seat.__new__(_Seat)
        q.hand, q.stock, q.discard = list(p.hand), list(p.stock), list(p.discard)
        q.trash, q.removed, q.values = list(p.trash), list(p.removed), list(p.values)
        q.stacks = [list(x) for x in p.stacks]
        q.complete = list(p.complete)
        q.turns, q.phase, q.status, q.auto_trash = p.turns, p.phase, p.status, p.auto_trash
        c.players.append(q)
    return c


def _progress(g: Skipper, i: int) -> float:
    """How far seat ``i``'s stacks are: 12 per complete stack, else its best value."""
    p = g.players[i]
    return float(sum(12 if p.complete[s] else p.values[s].bit_length() - 1
                     for s in range(4)))


def own_game(view: Mapping[str, Any], rng: random.Random) -> Skipper:
    """A sample of the seat's own game alone: :func:`determinize`, then every other seat
    out of play and the game run as a race of one (no turn order, auctions or skip-draws),
    so a rollout plays only the seat's own stacks, hand and piles.

    The rollouts then measure what wins Skipper in every mode, the turns the seat needs to
    finish its four books (K7, K13, K14); what the others do to it (auctions, skip-draws)
    is left out of the sample, and auction decisions are left to greedy.
    """
    g = determinize(view, rng)
    me = view["seat"]
    if g.mode == "solo":
        return g
    g.mode = "race"
    g.skip_draws = False
    g.auction = None
    for i, p in enumerate(g.players):
        if i != me:
            p.status = OUT
    g.gone = [[0] * 52 for _ in range(g.seats)]
    for p in g.players:
        for c in [*p.trash, *p.removed, *(c for st in p.stacks for c in st)]:
            g._set_gone(c)
    g._dirty = set(range(g.seats))
    return g


def _rollout(g: Skipper, me: int, rng: random.Random) -> float:
    """Play seat ``me``'s own game (:func:`own_game`) on with greedy; score minus the
    turns it took to finish, or a loss (below any win) plus its stack progress."""
    limit = g.players[me].turns + ROLLOUT_TURNS
    p = g.players[me]
    while not g.over and p.status == ACTIVE and p.turns < limit:
        g.apply(me, _greedy(g.bot_view(me), rng))
    if all(p.complete):
        return -float(p.turns)
    return _LOSS + _progress(g, me)


def _candidates(view: Mapping[str, Any], legal: list[Action]) -> list[Action]:
    """The actions worth a search: no resignation, and no auction or bid of a card still
    live for the seat (RULINGS K6m: give away only dead cards and second copies)."""
    me = view["seat"]
    spare = _spare(view["hand"] or [], view["seats"][me]["stacks"], view["options"])
    out = [a for a in legal if a[0] != "resign"
           and (a[0] not in ("auction", "bid") or a[1] in spare)]
    return out or legal


def _natural(view: Mapping[str, Any], legal: list[Action]) -> Action | None:
    """A legal natural play (a plain card of the stack's suit, one above a value of it),
    lowest first; None if there is none."""
    stacks = view["seats"][view["seat"]]["stacks"]
    skips = _skip_amounts(view["options"])
    best = None
    for a in legal:
        if a[0] != "play" or a[1][1] != a[2]:
            continue
        r = _rank_of(a[1])
        if r in skips and r < 11:
            continue
        if r - 1 in stacks[C.SUITS.index(a[2])]["values"]:
            if best is None or r < _rank_of(best[1]):
                best = a
    return best


def expert(view: Mapping[str, Any], rng: random.Random, samples: int = SAMPLES,
           budget_ms: float | None = None) -> Action:
    """The ``expert`` strategy: the candidate action with the best mean rollout score.

    Args:
        view: The seat's view.
        rng: The bot's generator (the only source of randomness).
        samples: Deals sampled per decision (each candidate is played in each).
        budget_ms: Time cap per decision in milliseconds (at least one sample is always
            done); ``None``: no cap, fully deterministic.

    Returns:
        One of the view's legal actions; greedy's choice when nothing scores better.

    Raises:
        ValueError: the view lists no legal action.
    """
    legal = view_legal_actions(view)
    base = _greedy(view, rng)
    if view["auction"] is not None or base[0] in ("auction", "bid", "pass"):
        return base  # auctions are greedy's: a sample of one's own game has none
    natural = _natural(view, legal)
    if natural is not None:
        return natural  # a natural play never hurts: the stack only grows, the hand frees
    cands = [a for a in _candidates(view, legal) if a[0] not in ("auction", "bid")]
    if base not in cands:
        cands.insert(0, base)
    else:
        cands.remove(base)
        cands.insert(0, base)
    if len(cands) == 1:
        return base
    me = view["seat"]
    started = time.perf_counter()
    deadline = None if budget_ms is None else started + budget_ms / 1000.0

    def play(action: Action, det: Skipper, seed: int) -> float:
        g = _clone(det, seed)
        try:
            g.apply(me, action)
        except GameError:  # the sample cannot hold the action: a wrong guess
            return _LOSS
        return _rollout(g, me, random.Random(seed))

    # Round 1: every candidate in ``samples`` deals. Round 2: greedy's choice against the
    # best other in ``3 * samples`` more; leave greedy only for a clear gain (a lucky
    # candidate of round 1 must prove itself: the winner's curse).
    totals = [0.0] * len(cands)
    rounds = 0
    for _ in range(samples):
        det, seed = own_game(view, rng), rng.getrandbits(62)
        for k, action in enumerate(cands):
            totals[k] += play(action, det, seed)
        rounds += 1
        if deadline is not None and time.perf_counter() >= deadline:
            break
    best = max(range(1, len(cands)), key=lambda k: (totals[k], -k))
    if totals[best] <= totals[0]:
        return base
    a, b, n = totals[0], totals[best], rounds
    for _ in range(3 * samples):
        if deadline is not None and time.perf_counter() >= deadline:
            break
        det, seed = own_game(view, rng), rng.getrandbits(62)
        a += play(base, det, seed)
        b += play(cands[best], det, seed)
        n += 1
    return cands[best] if (b - a) / n > MARGIN_TURNS else base
