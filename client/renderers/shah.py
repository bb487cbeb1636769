"""Terminal renderer for The Shah views (see ``cardhall.server.games.shah``).

Draws the Shah with its eight foundations, the star as eight rays (inner, middle and outer
circle; married piles show their cards bottom first), the turned card, the talon and the pack.
Works from the view dict only; it never imports the engine.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from . import pretty_card

_CIRCLES = ("inner", "middle", "outer")


def _pile(codes: Sequence[str], color: bool, width: int = 6) -> str:
    if not codes:
        return "  .".ljust(width)
    text = "+".join(pretty_card(c, color=color) for c in codes)
    visible = "+".join(pretty_card(c, color=False) for c in codes)
    return text + " " * max(0, width - len(visible))


def render(view: dict[str, Any], *, color: bool = True) -> str:
    """Draw a Shah table as text.

    Args:
        view: A view from ``TheShah.view`` (a seat's or a spectator's).
        color: Wrap red cards in ANSI red.

    Returns:
        Several lines joined by newlines (no trailing newline).
    """
    lines: list[str] = []
    lines.append(f"THE SHAH   move {view.get('moves')}/{view.get('max_moves')}   "
                 f"pack {view.get('stock_count')} cards   phase {view.get('phase')}")
    founds = view.get("foundations", [])
    sizes = view.get("foundation_sizes", [])
    shah = pretty_card(view.get("shah", "KS"), color=color)
    row = "  ".join(f"{pretty_card(c, color=color)}({sizes[i] if i < len(sizes) else '?'})"
                    for i, c in enumerate(founds))
    lines.append(f"Shah {shah}   foundations: {row}")
    avail = {a[0] for a in view.get("available", [])}
    nv = view.get("next_vacancy")
    lines.append("ray   inner      middle     outer")
    for r, ray in enumerate(view.get("star", [])):
        cells = []
        for c, pile in enumerate(ray):
            cell = _pile(pile, color, 9)
            mark = "<" if pile and pile[-1] in avail else " "
            if nv == [r, c]:
                mark = "?"
            cells.append(cell + mark)
        lines.append(f" {r}    " + " ".join(cells))
    up = view.get("up")
    talon = view.get("talon", [])
    top = pretty_card(talon[-1], color=color) if talon else "-"
    lines.append(f"Turned card: {pretty_card(up, color=color) if up else '-'}   "
                 f"talon: {top} ({len(talon)} cards)")
    if view.get("phase") == "deal":
        lines.append(f"Dealing: circle {view.get('circle')} ({_CIRCLES[view.get('circle', 0)]}) "
                     "is open")
    if nv:
        lines.append(f"Next place to refill: ray {nv[0]}, {_CIRCLES[nv[1]]} circle")
    out = view.get("outcome")
    if out:
        result = "WON" if out.get("winner") == 0 else "lost"
        lines.append(f"Game over: {result} ({out.get('reason')}), built {out.get('scores')}")
    return "\n".join(lines)


def describe(action: Sequence[Any]) -> str:
    """A short phrase for a Shah action, e.g. ``"marry 7\u2660 onto ray 3"``.

    Unknown verbs are shown as their words.
    """
    if not action:
        return "?"
    verb = action[0]
    args = list(action[1:])
    try:
        if verb == "deal":
            return "deal the next circle"
        if verb == "play":
            return f"play {pretty_card(args[0], color=False)} to foundation {args[1]}"
        if verb == "marry":
            return f"marry {pretty_card(args[0], color=False)} onto the outer card of ray {args[1]}"
        if verb == "grace":
            return (f"grace: move {pretty_card(args[0], color=False)} into the empty "
                    f"ray {args[1]}")
        if verb == "fill":
            return f"refill the next place from the {args[0]}"
        if verb == "turn":
            return "turn the next card of the pack"
        if verb == "resign":
            return "resign (give up)"
    except (IndexError, TypeError):
        pass
    return " ".join(str(a) for a in action)
