"""Terminal renderer for Shop Solitaire views (see ``cardhall.games.shop``).

Draws the candles (a flame mark on lit ones), the two sides of the scales with their suits and
weights, the ledger, the shelves with their purchases and the card(s) in play. Works from the
view dict only; it never imports the engine.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from . import describe_verb, outcome_line, pretty_card

_SUIT_NAMES = {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"}


def _cards(codes: Sequence[str], color: bool) -> str:
    return " ".join(pretty_card(c, color=color) for c in codes) if codes else "-"


def render(view: dict[str, Any], *, color: bool = True) -> str:
    """Draw a Shop Solitaire table as text.

    Args:
        view: A view from ``ShopSolitaire.view`` (a seat's or a spectator's).
        color: Wrap red cards in ANSI red.

    Returns:
        Several lines joined by newlines (no trailing newline).
    """
    lines: list[str] = []
    lit = view.get("lit", [])
    n_lit = sum(1 for x in lit if x)
    lines.append(f"SHOP SOLITAIRE   move {view.get('moves')}/{view.get('max_moves')}   "
                 f"stock {view.get('stock_count')} cards   phase {view.get('phase')}")
    lines.append(f"Candles ({n_lit} lit, {view.get('lit_needed')} needed):")
    for i, stack in enumerate(view.get("candles", [])):
        mark = "*" if i < len(lit) and lit[i] else ("." if stack else " ")
        tall = f"{len(stack)}/5"
        lines.append(f"  {i} {mark} [{tall}] {_cards(stack, color)}")
    sides = view.get("sides", [None, None])
    weights = view.get("weights", [0, 0])
    trays = view.get("trays", [[]] * 6)
    state = "BALANCED" if view.get("balanced") else "not balanced"
    lines.append(f"Scales: {state}")
    for k, label in ((0, "left "), (1, "right")):
        suit = sides[k]
        name = _SUIT_NAMES.get(suit, "unset") if suit else "unset"
        tops = []
        for j in range(3 * k, 3 * k + 3):
            t = trays[j]
            top = pretty_card(t[-1], color=color) if t else "--"
            tops.append(f"tray {j}: {top} ({len(t)})")
        lines.append(f"  {label} [{name:8}] weight {weights[k]:3}   " + "   ".join(tops))
    ls = view.get("ledger_suit")
    ledger = view.get("ledger", [])
    lines.append(f"Ledger ({_SUIT_NAMES.get(ls, 'suit not yet set') if ls else 'suit not yet set'}"
                 f", {len(ledger)}/12): {_cards(ledger, color)}")
    for k, shelf in enumerate(view.get("shelves", [])):
        sc = shelf.get("shelf")
        lines.append(f"Shelf {k}: {pretty_card(sc, color=color) if sc else '-'}   "
                     f"purchase: {_cards(shelf.get('purchase', []), color)}")
    in_play = view.get("in_play", [])
    if in_play:
        lines.append(f"In play (from the {view.get('in_play_from')}): {_cards(in_play, color)}")
    if view.get("shortcut_cards"):
        lines.append("Short-cut: choose red cards to light the candles: "
                     + _cards(view["shortcut_cards"], color))
    over = outcome_line(view, "score")
    if over:
        lines.append(over)
    return "\n".join(lines)


def _card(args: list[Any], i: int) -> str:
    return pretty_card(args[i], color=False) if len(args) > i else "?"


_PHRASES: dict[str, Callable[[list[Any]], str]] = {
    "light": lambda args: f"light a candle with {_card(args, 0)} (short-cut)",
    "no_shortcut": lambda args: "play without the short-cut",
    "draw": lambda args: "draw the next card",
    "candle": lambda args: f"put {_card(args, 0)} on candle {args[1]}",
    "tray": lambda args: f"put {_card(args, 0)} on tray {args[1]}",
    "ledger": lambda args: f"enter {_card(args, 0)} in the ledger",
    "shelve": lambda args: f"shelve {_card(args, 0)} on shelf {args[1]}",
    "purchase": lambda args: f"reserve {_card(args, 0)} in the purchase of shelf {args[1]}",
    "trim": lambda args: f"trim candle {args[0]}",
    "recalibrate": lambda args: "recalibrate the scales (scraps the ledger)",
    "scrap": lambda args: "scrap the ledger",
    "play_shelf": lambda args: f"play the card on shelf {args[0]}",
    "play_purchase": lambda args: f"play the purchase of shelf {args[0]}",
    "close_shop": lambda args: "close shop (give up)",
}


def describe(action: Sequence[Any]) -> str:
    """A short phrase for a Shop Solitaire action, e.g. ``"put 7\u2665 on tray 2"``.

    Unknown verbs are shown as their words.
    """
    return describe_verb(action, _PHRASES)
