"""Shop Solitaire's ``greedy`` strategy (the rules: :mod:`.rules`; RULINGS S1-S13).

It reads only the seat's view (what every strategy sees, over the wire or offline).
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from .. import cards as C
from ..bots import view_legal_actions
from .rules import PLACE_VERBS

#: The greedy bot shelves only a card this high, so the purchase under it has room.
SHELF_MIN = 10

_VAL = {r: i + 1 for i, r in enumerate(C.RANKS)}


#: The greedy bot gives up (closes shop, RULINGS S11) once it has made this many moves plus
#: ``CLOSE_PER_ENTRY`` per ledger entry filled: measured over seeds 0..299 played to the move
#: limit, every won deal was won within 450 moves and never fell behind 370 + 30 per entry
#: (a deal whose scales stay unbalanced that long does not come back), and playing the lost
#: ones on to the move limit took ~3x longer.
CLOSE_AFTER = 500
CLOSE_PER_ENTRY = 30


def _hopeless(view: Mapping[str, Any]) -> bool:
    """True when the greedy bot should close shop: its ledger grows too slowly
    (``CLOSE_AFTER`` + ``CLOSE_PER_ENTRY`` moves per entry filled), or the moves left before
    the room's move limit cannot fill it (each entry takes a draw and a placement)."""
    filled = len(view["ledger"])
    moves = int(view["moves"])
    left = int(view["max_moves"]) - moves
    return moves >= CLOSE_AFTER + CLOSE_PER_ENTRY * filled or left < 2 * (12 - filled)


def _v(cd: str) -> int:
    return _VAL[cd[0]]


def _red(cd: str) -> bool:
    return cd[1] in "DH"


def greedy_strategy(view: Mapping[str, Any], rng: random.Random) -> tuple[Any, ...]:
    """A heuristic Shop Solitaire player working only from the view.

    The plan rests on one fact of the rules: cards on the trays and in the ledger never come
    back (the bot never recalibrates or scraps), so every balance-suit card that reaches a tray
    is one fewer card that can upset the scales, and the cards it still waits for are those
    neither on the table nor in the ledger (the stock's *contents* follow from the view; only
    its order is hidden).

    * Short-cut: light the candles with seven hearts, so few hearts are left to upset the
      scales; while the scales are empty, a diamond is shelved rather than weighed.
    * Trays: the tray that balances the scales; else an empty tray; else the tray after which
      the most unseen or candle cards of the balance suits would balance the scales with one
      more card (:func:`_fixers`), then the one that brings the sides closest.
    * While balanced, a card that would upset the scales is shelved or purchased; while not
      balanced, a ledger card that would put out a candle is purchased instead, and the
      purchase is played back (into the ledger) once the scales balance again. A shelved
      balance card is played when it balances the scales.
    * The cards it *wants*: while balanced, the ledger cards still missing; while not, the
      balance-suit cards that would balance the scales in one move. When none of them is left
      in the stock, it trims (RULINGS S6, S7) the tall candle holding the most of them, so
      they come back from under the stock; a red card that goes on a candle goes on the one
      holding the most wanted cards, so it grows tall enough to trim (4 cards), else on the
      tallest. Black cards go on unlit candles rather than putting one out.
    * Forced trims take the tallest lit candle; shelve only a card worth ``SHELF_MIN`` or
      more, so the purchase under it has room (RULINGS S12).
    * Close shop (RULINGS S11) when the ledger grows too slowly to be filled
      (:func:`_hopeless`): such deals are lost anyway (measured), and playing them out to the
      room's move limit takes several times as long. Otherwise never close shop.

    Deterministic: ``rng`` is not used.

    Args:
        view: The seat's view (see :meth:`ShopSolitaire.view`), with its legal actions.
        rng: Unused (the heuristic is deterministic); kept for the strategy signature.

    Returns:
        One of the view's legal actions, as a tuple.

    Raises:
        ValueError: the view lists no legal action.
    """
    legal = view_legal_actions(view)
    if len(legal) == 1:
        return legal[0]
    if view["phase"] == "shortcut":
        lights = [a for a in legal if a[0] == "light"]
        lights.sort(key=lambda a: (a[1][1] != "H", _v(a[1])))
        return lights[0]
    shop = _Shop(view, legal)
    if view["in_play"]:
        return shop.place()
    return shop.between_draws(view)


class _Shop:
    """What :func:`greedy_strategy` reads of the view once per decision, and its choices."""

    def __init__(self, view: Mapping[str, Any], legal: list[tuple[Any, ...]]) -> None:
        self.legal = legal
        self.legal_set = set(legal)
        self.candles: list[list[str]] = view["candles"]
        self.trays: list[list[str]] = view["trays"]
        self.sides: list[str | None] = view["sides"]
        self.lit: list[bool] = view["lit"]
        self.balanced: bool = view["balanced"]
        self.ledger_suit: str | None = view["ledger_suit"]
        self.ledger = set(view["ledger"])
        self.shelves: list[dict[str, Any]] = view["shelves"]
        self.tops: list[str | None] = [t[-1] if t else None for t in self.trays]
        seen = ({c for stack in self.candles + self.trays for c in stack} | self.ledger
                | set(view["in_play"]))
        for shelf in self.shelves:
            seen.update(shelf["purchase"])
            if shelf["shelf"]:
                seen.add(shelf["shelf"])
        self.stock = sorted(c for c in _ALL if c not in seen)  # its contents, not its order
        self.pool = self.stock + [c for stack in self.candles for c in stack]
        if None in self.sides:
            self.wanted: set[str] = set()
        elif self.balanced:
            self.wanted = {c for c in self.pool if self.needed_ledger(c)}
        else:
            self.wanted = {c for c in self.pool if _fixers(self.tops, self.sides, [c])}

    def needed_ledger(self, cd: str) -> bool:
        """A ledger card the ledger still needs (RULINGS S10: not the ace)."""
        return self.ledger_suit is not None and cd[1] == self.ledger_suit and cd[0] != "A" \
            and cd not in self.ledger

    def trim_choice(self) -> tuple[Any, ...] | None:
        trims = [a for a in self.legal if a[0] == "trim"]
        if not trims:
            return None
        # measured: trimming a lit candle first does better than an unlit one
        trims.sort(key=lambda a: (not self.lit[a[1]], -len(self.candles[a[1]]), a[1]))
        return trims[0]

    def reserve(self) -> tuple[Any, ...] | None:
        res = [a for a in self.legal if a[0] == "purchase"
               or (a[0] == "shelve" and _v(a[1]) >= SHELF_MIN)]
        res.sort(key=lambda a: (a[0] != "purchase", a[2]))
        return res[0] if res else None

    def place(self) -> tuple[Any, ...]:
        """Where the card in play goes: the ledger, the best tray, or a candle."""
        places = [a for a in self.legal if a[0] in PLACE_VERBS]
        if not places:
            return self.trim_choice() or self.reserve() or self.legal[0]
        to_ledger = [a for a in places if a[0] == "ledger"]
        if to_ledger:
            return to_ledger[0]
        tray_moves = [a for a in places if a[0] == "tray"]
        if tray_moves:
            return self._tray(tray_moves)
        cd = places[0][1]
        candle_moves = [a for a in places if a[0] == "candle"]
        puts_out = not _red(cd) and all(self.lit[a[2]] for a in candle_moves)
        reserved = self.reserve()
        if puts_out and reserved is not None and cd[1] == self.ledger_suit:
            return reserved

        def candle_key(a: tuple[Any, ...]) -> tuple[bool, int, int, int]:
            stack = self.candles[a[2]]
            holds = sum(1 for c in stack if c in self.wanted)
            return (self.lit[a[2]] and not _red(cd), -holds, -len(stack), a[2])

        return min(candle_moves, key=candle_key)

    def _tray(self, tray_moves: list[tuple[Any, ...]]) -> tuple[Any, ...]:
        cd = tray_moves[0][1]
        scored: list[tuple[tuple[bool, bool, int, int, int], tuple[Any, ...]]] = []
        for a in tray_moves:
            after = list(self.tops)
            after[a[2]] = cd
            sums = _weights(after)
            scored.append(((not _balanced(after), bool(self.trays[a[2]]),
                            -_fixers(after, self.sides, self.pool), abs(sums[0] - sums[1]),
                            a[2]), a))
        scored.sort()
        if scored[0][0][0] is False:
            return scored[0][1]  # this card balances the scales
        reserved = self.reserve()
        if (self.balanced or (self.sides == [None, None] and cd[1] == "D")) \
                and reserved is not None:
            return reserved
        return scored[0][1]

    def between_draws(self, view: Mapping[str, Any]) -> tuple[Any, ...]:
        """No card in play: close shop, play a shelf or purchase, trim, or draw."""
        legal_set = self.legal_set
        if ("close_shop",) in legal_set and _hopeless(view):
            return ("close_shop",)
        shelf_play = self._shelf_play()
        if shelf_play is not None:
            return shelf_play
        trims = [a for a in self.legal if a[0] == "trim"]
        if trims and all(self.lit) and None not in self.sides \
                and not any(c in self.wanted for c in self.stock):
            # what the scales or the ledger wait for lies only in the candles: trim the tall
            # candle holding most of it, so it comes back from under the stock (RULINGS S7)
            holding = [(-sum(1 for c in self.candles[a[1]] if c in self.wanted), a[1], a)
                       for a in trims]
            best = min(holding)
            if best[0] < 0:
                return best[2]
        if ("draw",) in legal_set:
            return ("draw",)
        trim = self.trim_choice()
        if trim is not None:
            return trim
        for verb in ("play_purchase", "play_shelf", "scrap", "recalibrate"):
            for a in self.legal:
                if a[0] == verb:
                    return a
        return self.legal[0]

    def _shelf_play(self) -> tuple[Any, ...] | None:
        """A shelf or purchase worth playing now, or None."""
        legal_set, balanced, sides = self.legal_set, self.balanced, self.sides
        for k, shelf in enumerate(self.shelves):
            p = shelf["purchase"]
            if balanced and ("play_purchase", k) in legal_set \
                    and all(self.needed_ledger(c) for c in p):
                return ("play_purchase", k)
            sc = shelf["shelf"]
            if ("play_shelf", k) not in legal_set or not sc:
                continue
            if balanced and self.needed_ledger(sc) and not p:
                return ("play_shelf", k)
            if sc[1] not in sides and sc[1] != self.ledger_suit and None not in sides:
                return ("play_shelf", k)  # the other red suit: no use on the shelf
            if not balanced and sc[1] in sides and not p and _fixers(self.tops, sides, [sc]):
                return ("play_shelf", k)
        return None


def _weights(tops: list[str | None]) -> list[int]:
    """``[left, right]`` sums of the tray tops ``tops`` (six codes or None; seed "Scales")."""
    return [sum(_v(c) for c in tops[k * 3:k * 3 + 3] if c) for k in (0, 1)]


def _balanced(tops: list[str | None]) -> bool:
    """True when the six tray tops ``tops`` balance (RULINGS S5)."""
    left, right = _weights(tops)
    return all(tops) and left == right


def _fixers(tops: list[str | None], sides: list[str | None], cards: list[str]) -> int:
    """How many of ``cards`` would balance the scales with tray tops ``tops`` if placed on
    some tray of their side (cards of other suits count 0; 0 while a tray is empty)."""
    if not all(tops):
        return 0
    n = 0
    for cd in cards:
        if cd[1] not in sides:
            continue
        k = sides.index(cd[1])
        for j in range(3 * k, 3 * k + 3):
            after = list(tops)
            after[j] = cd
            if _balanced(after):
                n += 1
                break
    return n


_ALL = frozenset(C.code(c) for c in C.full_deck())
