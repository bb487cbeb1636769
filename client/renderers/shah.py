"""Terminal renderer for The Shah views (see ``cardhall.games.shah``).

Draws the Shah with its eight foundations, the star as eight rays (inner, middle and outer
circle; married piles show their cards bottom first), the turned card, the talon and the pack.
Works from the view dict only; it never imports the engine. Rays and foundations are
numbered 1 to 8 for people, as the web client numbers them (the protocol's actions and
events count from 0).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from . import describe_by_type, describe_verb, event_card, outcome_line, plain_cards, pretty_card

_CIRCLES = ("inner", "middle", "outer")


def _pile(codes: Sequence[str], color: bool, width: int = 6) -> str:
    if not codes:
        return "  .".ljust(width)
    text = "+".join(pretty_card(c, color=color) for c in codes)
    visible = plain_cards(codes, "+")
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
    row = "  ".join(f"{i + 1}:{pretty_card(c, color=color)}"
                    f"({sizes[i] if i < len(sizes) else '?'})" for i, c in enumerate(founds))
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
        lines.append(f" {r + 1}    " + " ".join(cells))
    up = view.get("up")
    talon = view.get("talon", [])
    top = pretty_card(talon[-1], color=color) if talon else "-"
    lines.append(f"Turned card: {pretty_card(up, color=color) if up else '-'}   "
                 f"talon: {top} ({len(talon)} cards)")
    if view.get("phase") == "deal":
        lines.append(f"Dealing: circle {view.get('circle')} ({_CIRCLES[view.get('circle', 0)]}) "
                     "is open")
    if nv:
        lines.append(f"Next place to refill: ray {nv[0] + 1}, {_CIRCLES[nv[1]]} circle")
    over = outcome_line(view, "built")
    if over:
        lines.append(over)
    return "\n".join(lines)


def _card(args: list[Any], i: int) -> str:
    return pretty_card(args[i], color=False)


def _number(index: Any) -> str:
    """A ray's or foundation's index (0-7 on the wire) as people count it (1-8)."""
    return str(index + 1) if isinstance(index, int) else str(index)


_PHRASES: dict[str, Callable[[list[Any]], str]] = {
    "deal": lambda args: "deal the next circle",
    "play": lambda args: f"play {_card(args, 0)} to foundation {_number(args[1])}",
    "marry": lambda args: (f"marry {_card(args, 0)} onto the outer card of ray "
                           f"{_number(args[1])}"),
    "grace": lambda args: f"grace: move {_card(args, 0)} into the empty ray {_number(args[1])}",
    "fill": lambda args: f"refill the next place from the {args[0]}",
    "turn": lambda args: "turn the next card of the pack",
    "resign": lambda args: "resign (give up)",
}


def describe(action: Sequence[Any]) -> str:
    """A short phrase for a Shah action, e.g. ``"marry 7\u2660 onto ray 3"``.

    Unknown verbs are shown as their words.
    """
    return describe_verb(action, _PHRASES)


_FROM = {"up": "the turned card", "talon": "the talon", "star": "the star", "pack": "the pack"}


def _circle(number: Any) -> str:
    return _CIRCLES[number] if isinstance(number, int) and 0 <= number < 3 else str(number)


def _source(event: Mapping[str, Any]) -> str:
    return _FROM.get(str(event.get("from")), str(event.get("from")))


_EVENT_PHRASES: dict[str, Callable[[Mapping[str, Any]], str]] = {
    "deal": lambda e: (f"dealt the {_circle(e.get('circle'))} circle: "
                       f"{plain_cards(e.get('cards')) or '-'}"),
    "play": lambda e: (f"played {event_card(e)} to foundation {_number(e.get('foundation'))} "
                       f"(from {_source(e)})"),
    "marry": lambda e: (f"married {event_card(e)} onto ray {_number(e.get('ray'))} "
                        f"(from {_source(e)})"),
    "grace": lambda e: (f"grace: moved {event_card(e)} into the empty ray "
                        f"{_number(e.get('ray'))} (from {_source(e)})"),
    "fill": lambda e: (f"refilled ray {_number(e.get('ray'))}, {_circle(e.get('circle'))} "
                       f"circle, with {event_card(e)} from {_source(e)}"),
    "turn": lambda e: f"turned {event_card(e)}" if e.get("card") else "turned the pack over",
    "over": lambda e: f"game over: {e.get('reason')}; built {e.get('scores')}",
}


def describe_event(event: dict[str, Any]) -> str | None:
    """One Shah event in words, e.g. ``"played Q\u2665 to foundation 4 (from the talon)"``
    (rays and foundations numbered from 1, as drawn by :func:`render`).

    Args:
        event: An event map of the engine (``type`` ``deal``, ``play``, ``marry``,
            ``grace``, ``fill``, ``turn`` or ``over``, see docs/schemas/shah.event.json).

    Returns:
        The phrase (card names without colour), or None for an unknown event type.
    """
    return describe_by_type(event, _EVENT_PHRASES)
