"""Terminal renderer for Shop Solitaire views (see ``cardhall.server.games.shop``).

Draws the candles (a flame mark on lit ones), the two sides of the scales with their suits and
weights, the ledger, the shelves with their purchases and the card(s) in play. Works from the
view dict only; it never imports the engine.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from . import pretty_card

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
    out = view.get("outcome")
    if out:
        result = "WON" if out.get("winner") == 0 else "lost"
        lines.append(f"Game over: {result} ({out.get('reason')}), score {out.get('scores')}")
    return "\n".join(lines)


def describe(action: Sequence[Any]) -> str:
    """A short phrase for a Shop Solitaire action, e.g. ``"put 7\u2665 on tray 2"``.

    Unknown verbs are shown as their words.
    """
    if not action:
        return "?"
    verb = action[0]
    args = list(action[1:])

    def card(i: int) -> str:
        return pretty_card(args[i], color=False) if len(args) > i else "?"

    table: dict[str, Callable[[], str]] = {
        "light": lambda: f"light a candle with {card(0)} (short-cut)",
        "no_shortcut": lambda: "play without the short-cut",
        "draw": lambda: "draw the next card",
        "candle": lambda: f"put {card(0)} on candle {args[1]}",
        "tray": lambda: f"put {card(0)} on tray {args[1]}",
        "ledger": lambda: f"enter {card(0)} in the ledger",
        "shelve": lambda: f"shelve {card(0)} on shelf {args[1]}",
        "purchase": lambda: f"reserve {card(0)} in the purchase of shelf {args[1]}",
        "trim": lambda: f"trim candle {args[0]}",
        "recalibrate": lambda: "recalibrate the scales (scraps the ledger)",
        "scrap": lambda: "scrap the ledger",
        "play_shelf": lambda: f"play the card on shelf {args[0]}",
        "play_purchase": lambda: f"play the purchase of shelf {args[0]}",
        "close_shop": lambda: "close shop (give up)",
    }
    try:
        return table[verb]() if verb in table else " ".join(str(a) for a in action)
    except (IndexError, TypeError):
        return " ".join(str(a) for a in action)
