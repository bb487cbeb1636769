"""Skipper's ``expert`` bot: determinized rollouts over greedy play, and auction rules that
keep the tempo from the other seats (solo, multi, race).

At each decision with more than one sensible choice the bot samples ``samples`` deals
consistent with its view (its own hidden piles and, in multi, the other seats' hands and
piles: Perfect Information Monte Carlo), plays each candidate action in every sample and
lets the ``greedy`` strategy play its own game on to the end (:func:`own_game`), and picks
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
the engine) and never auctions or bids a card still live for itself (RULINGS K6m).
"""

from __future__ import annotations

import random
import time
from collections.abc import Mapping, Sequence
from typing import Any, cast

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
    _Seat,
    _spare,
    _ViewCache,
    live_for,
)
from .rng import GameRNG

#: Deals sampled per decision (first round).
SAMPLES = 4
#: Most rollouts per decision (the search budget as a count).
ROLLOUTS = 64
#: Own turns after which a solo or race rollout gives up (scored as a loss).
ROLLOUT_TURNS = 80
#: Mean gain over greedy's choice, in turns, the search needs before it plays something else.
MARGIN_TURNS = 0.25
_LOSS = -1_000.0


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
    c = Skipper.__new__(type(g))
    if isinstance(g, _OwnGame):
        own = cast(_OwnGame, c)  # c is of g's class
        own.others, own.skip_rate = g.others, g.skip_rate
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


class _OwnGame(Skipper):
    """A seat's own game, as a rollout plays it (see :func:`own_game`).

    Attributes:
        others: The other active seats of a multi game, kept (never acting) for the dead
            test: RULINGS K6m trashes a drawn card only when no active seat could ever play
            it, so a card the seat has skipped past but another seat still needs stays in
            its hand (K6, the solo rule, would trash it). Empty outside multi.
        skip_rate: Skip-draws (K11) the seat expects per own turn from the other seats'
            skippers; the rollout draws that many extra cards, on average, after each turn.
    """

    others: list[_Seat]
    skip_rate: float

    def _dead(self, card: int, p: _Seat) -> bool:
        """K6 for the seat; in multi also dead for every other active seat (K6m)."""
        return self._dead_for(card, p) and all(self._dead_for(card, q) for q in self.others)


def skip_rate(view: Mapping[str, Any]) -> float:
    """Skip-draws (RULINGS K11) the viewing seat can expect per own turn: for each other
    active seat, the skippers it has played onto its stacks per turn so far (a prior of
    0.35 a turn, worth four turns, keeps early estimates sane). 0 outside multi or with
    ``skip_draws`` off. Only public information (stacks, turns) is used (K8).
    """
    if view["mode"] != "multi" or view["options"].get("skip_draws") is False:
        return 0.0
    me = view["seat"]
    skips = _skip_amounts(view["options"])
    total = 0.0
    for i, sv in enumerate(view["seats"]):
        if i == me or sv["status"] != ACTIVE:
            continue
        played = sum(1 for st in sv["stacks"] for k, c in enumerate(st["cards"])
                     if k > 0 and _rank_of(c) in skips)
        total += (played + 0.35 * 4) / (sv["turns"] + 4)
    return total


def own_game(view: Mapping[str, Any], rng: random.Random) -> Skipper:
    """A sample of the seat's own game: :func:`determinize`, then every other seat out of
    play and the game run as a race of one (no turn order or auctions), so a rollout plays
    only the seat's own stacks, hand and piles.

    In multi two effects of the other seats stay in the sample: K6m's dead test still
    looks at their stacks (a card the seat has passed but another seat needs is not
    trashed), and their skippers' skip-draws (K11) reach the seat at :func:`skip_rate`.

    Returns:
        A game whose seat ``view["seat"]`` alone acts (an :class:`_OwnGame`; solo: the
        determinized game itself).
    """
    g = determinize(view, rng)
    me = view["seat"]
    if g.mode == "solo":
        return g
    multi = g.mode == "multi"
    g.__class__ = _OwnGame
    assert isinstance(g, _OwnGame)
    g.others = [q for i, q in enumerate(g.players) if i != me and q.status == ACTIVE] \
        if multi else []
    g.skip_rate = skip_rate(view)
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
    turns it took to finish, or a loss (below any win) plus its stack progress. After each
    of its turns the seat draws the skip-draws it expects (K11, ``skip_rate``): the whole
    part of the rate always, the fraction with that probability."""
    limit = g.players[me].turns + ROLLOUT_TURNS
    p = g.players[me]
    rate = g.skip_rate if isinstance(g, _OwnGame) else 0.0
    while not g.over and p.status == ACTIVE and p.turns < limit:
        turns = p.turns
        g.apply(me, _greedy(g.bot_view(me), rng))
        if rate and p.turns != turns and not g.over and p.status == ACTIVE:
            x = rate
            while x > 0:
                if x >= 1 or rng.random() < x:
                    g._draw_one(me, [])
                x -= 1.0
    if all(p.complete):
        return -float(p.turns)
    return _LOSS + _progress(g, me)


def _candidates(view: Mapping[str, Any], legal: list[Action]) -> list[Action]:
    """The actions worth a search: plays, discards and end (no resignation; auctions and
    bids are decided by :func:`bid` and :func:`no_auction`, RULINGS K9, K10)."""
    return [a for a in legal if a[0] in ("play", "discard", "end")]


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


def _playable_now(code: str, stacks: Sequence[Mapping[str, Any]],
                  skips: Mapping[int, Any]) -> bool:
    """Is ``code`` a plain card that these public ``stacks`` take now, as a natural (K1)?"""
    r, st = _rank_of(code), stacks[C.SUITS.index(code[1])]
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
    skips = _skip_amounts(options)
    stacks = seats[me]["stacks"]
    spare = _spare(view["hand"] or [], stacks, options)
    bids = [a for a in legal if a[0] == "bid" and a[1] in spare]
    if not bids:
        return ("pass",)
    st = stacks[C.SUITS.index(card[1])]
    r = _rank_of(card)
    if r in skips:
        want = live_for(card, stacks, options)
    else:
        want = not st["complete"] and (0 <= r - 1 - st["values"][-1] <= 2
                                       or r - 1 in st["values"])
    if not want:
        return ("pass",)
    seller = seats[auction["seller"]]["stacks"]
    bids.sort(key=lambda a: (_playable_now(a[1], seller, skips), -_rank_of(a[1]), a[1]))
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
    spare = _spare(view["hand"] or [], view["seats"][view["seat"]]["stacks"], view["options"])
    junk = [a for a in discards if a[1] in spare]
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
    confirmed in more deals.

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
    base = _greedy(view, rng)
    if base[0] == "auction":
        base = no_auction(view, legal)
    natural = _natural(view, legal)
    if natural is not None:
        return natural  # a natural play never hurts: the stack only grows, the hand frees
    cands = _candidates(view, legal)
    if base in cands:
        cands.remove(base)
    cands.insert(0, base)
    if len(cands) == 1:
        return base
    me = view["seat"]
    started = time.perf_counter()
    deadline = None if budget_ms is None else started + budget_ms / 1000.0
    done = 0

    def play(action: Action, det: Skipper, seed: int) -> float:
        nonlocal done
        done += 1
        g = _clone(det, seed)
        try:
            g.apply(me, action)
        except GameError:  # the sample cannot hold the action: a wrong guess
            return _LOSS
        return _rollout(g, me, random.Random(seed))

    def spent() -> bool:
        return deadline is not None and time.perf_counter() >= deadline

    # Round 1: every candidate in ``samples`` deals. Round 2: greedy's choice against the
    # best other in ``3 * samples`` more; leave greedy only for a clear gain (a lucky
    # candidate of round 1 must prove itself: the winner's curse).
    totals = [0.0] * len(cands)
    n = 0
    for _ in range(samples):
        if n and (done + len(cands) > rollouts or spent()):
            break
        det, seed = own_game(view, rng), rng.getrandbits(62)
        for k, action in enumerate(cands):
            totals[k] += play(action, det, seed)
        n += 1
    best = max(range(1, len(cands)), key=lambda k: (totals[k], -k))
    choice = base
    if totals[best] > totals[0]:
        a, b = totals[0], totals[best]
        for _ in range(3 * samples):
            if done + 2 > rollouts or spent():
                break
            det, seed = own_game(view, rng), rng.getrandbits(62)
            a += play(base, det, seed)
            b += play(cands[best], det, seed)
            n += 1
        if (b - a) / n > MARGIN_TURNS:
            choice = cands[best]
    if stats is not None:
        stats["rollouts"] = stats.get("rollouts", 0) + done
    return choice
