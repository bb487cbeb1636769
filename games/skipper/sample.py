"""Skipper games consistent with one seat's view (``Game.resample``; OpenSpiel's
``resample_from_infostate``): what search bots play their rollouts in, knowing only what
the seat may see (RULINGS K8).

The visible cards stay where the view shows them (the seat's hand, every stack, every
discard top, the auction and its bids); every hidden card is dealt at random into the hidden
places (other hands, draw piles, discard piles under their tops), its own deck's places
first (cards leave their deck only by auction); as many cards as the view's ``trash`` counts
go to each trash, dead cards first (RULINGS K6, K6m: that is what the engine trashes); what
is left over (``remove_four``) is set aside as removed.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any, TypeVar

from .. import cards as C
from .rules import SkipperRules
from .stacks import bits_of

G = TypeVar("G", bound=SkipperRules)


def resample(cls: type[G], view: Mapping[str, Any], rng: random.Random) -> G:
    """A whole game consistent with ``view`` (see the module docstring).

    Args:
        cls: The engine class to make (:class:`cardhall.games.skipper.Skipper`).
        view: The seat's view (``view`` or ``bot_view``), not a spectator's.
        rng: Where the deal's randomness comes from (also the sample's seed).

    Returns:
        A new game at the view's ``state_id`` whose seat ``view["seat"]`` sees exactly
        ``view``'s hand and table.
    """
    me = view["seat"]
    seats_view = view["seats"]
    n = len(seats_view)
    g = cls({**view["options"], "seed": rng.getrandbits(62)}, n)
    g.state_id = int(view["state_id"])
    hands: list[list[int]] = [[] for _ in range(n)]
    hands[me] = [C.parse(c) for c in view["hand"] or []]
    seen = set(hands[me]) | _set_visible(g, view)
    pool = [c for c in range(52 * n) if c not in seen]
    rng.shuffle(pool)
    rest = _deal_trash(g, [sv["trash"] for sv in seats_view], pool, view["mode"])
    overflow = _deal_hidden(g, view, hands, rest)
    for i in range(n):
        g.players[i].hand = sorted(hands[i])
        g.players[i].removed = []
    if overflow:
        g.players[me].removed = overflow
    g.current = view["turn"] if view["turn"] is not None else 0
    auction = view["auction"]
    if auction is not None:
        bids = [[s, None if c is None else C.parse(c)] for s, c in auction["bids"]]
        high = max([C.rank(C.parse(c)) for _, c in auction["bids"] if c is not None] or [0])
        g.auction = {"seller": auction["seller"], "card": C.parse(auction["card"]),
                     "bidders": g.bidders(auction["seller"]), "bids": bids, "high": high}
    g.recount()
    return g


def _set_visible(g: SkipperRules, view: Mapping[str, Any]) -> set[int]:
    """Put every public seat's stacks, discard top, turns, phase, status and preference of
    ``view`` into ``g``; returns the cards placed and those of the auction."""
    seen: set[int] = set()
    auction = view["auction"]
    if auction is not None:
        seen.add(C.parse(auction["card"]))
        seen.update(C.parse(c) for _, c in auction["bids"] if c is not None)
    for i, sv in enumerate(view["seats"]):
        p = g.players[i]
        p.stacks = [[C.parse(c) for c in st["cards"]] for st in sv["stacks"]]
        p.values = [bits_of(st["values"]) for st in sv["stacks"]]
        p.complete = [bool(st["complete"]) for st in sv["stacks"]]
        p.turns, p.phase, p.status = sv["turns"], sv["phase"], sv["status"]
        p.auto_trash = bool(sv.get("auto_trash", True))
        p.trash = []
        for st in p.stacks:
            seen.update(st)
        p.discard = [] if sv["discard_top"] is None else [C.parse(sv["discard_top"])]
        seen.update(p.discard)
    return seen


def _deal_trash(g: SkipperRules, want: list[int], pool: list[int], mode: str) -> list[int]:
    """Fill each seat's trash with ``want[i]`` cards of ``pool``, dead ones first (K6;
    K6m in multi, where a card may be trashed by any seat with room); returns the rest."""
    n = len(want)
    rest = []
    for c in pool:
        owner = C.deck_of(c) if mode != "multi" else _owner_with_room(want, c, n)
        if owner is not None and want[owner] > 0 and g.dead(c, g.players[owner]):
            g.players[owner].trash.append(c)
            want[owner] -= 1
        else:
            rest.append(c)
    for i in range(n):
        while want[i] > 0 and rest:
            g.players[i].trash.append(rest.pop())
            want[i] -= 1
    return rest


def _owner_with_room(want: list[int], card: int, n: int) -> int | None:
    """Multi: the seat whose trash ``card`` should fill (its deck's seat when that still
    has room, else any seat with room)."""
    d = C.deck_of(card)
    if d < n and want[d] > 0:
        return d
    return next((i for i in range(n) if want[i] > 0), None)


def _deal_hidden(g: SkipperRules, view: Mapping[str, Any], hands: list[list[int]],
                 rest: list[int]) -> list[int]:
    """Deal ``rest`` into the hidden places the view counts (other hands, discard piles
    under their tops, draw piles), each seat's own deck first, then what other decks have
    left over; returns the cards no place took."""
    me = view["seat"]
    seats_view = view["seats"]
    by_deck: list[list[int]] = [[] for _ in seats_view]
    for c in rest:
        by_deck[C.deck_of(c)].append(c)
    slots: list[tuple[int, str, int]] = []
    for i, sv in enumerate(seats_view):
        if i != me:
            slots.append((i, "hand", sv["hand"]))
        slots.append((i, "discard", max(0, sv["discard"] - len(g.players[i].discard))))
        slots.append((i, "stock", sv["stock"]))
    for i, kind, count in slots:
        own = by_deck[i]
        take = own[:count]
        del own[:count]
        _place(g, hands, i, kind, take)
    overflow = [c for own in by_deck for c in own]
    for i, kind, count in slots:  # shortfalls (cards bought from other decks)
        short = count - _placed(g, hands, seats_view, i, kind)
        if short > 0 and overflow:
            take = overflow[-short:][::-1]
            del overflow[-short:]
            _place(g, hands, i, kind, take, short=True)
    return overflow


def _place(g: SkipperRules, hands: list[list[int]], i: int, kind: str, cards: list[int],
           short: bool = False) -> None:
    """Put ``cards`` in seat ``i``'s hidden place ``kind`` (a first deal, or with ``short``
    a top-up: onto the hand, under the discard pile, onto the draw pile)."""
    p = g.players[i]
    if kind == "hand":
        hands[i].extend(cards)
    elif kind == "discard":
        p.discard[:0] = cards[::-1] if short else cards  # under the visible top
    elif short:
        p.stock.extend(cards)
    else:
        p.stock = cards


def _placed(g: SkipperRules, hands: list[list[int]], seats_view: Sequence[Any], i: int,
            kind: str) -> int:
    """How many hidden cards seat ``i``'s place ``kind`` holds now."""
    p = g.players[i]
    if kind == "hand":
        return len(hands[i])
    if kind == "discard":
        return len(p.discard) - (1 if seats_view[i]["discard_top"] is not None else 0)
    return len(p.stock)
