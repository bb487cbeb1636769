"""Terminal renderers, one module per game, looked up by game name.

Each module ``cardhall.client.renderers.<game>`` defines:

* ``render(view: dict, *, color: bool = True) -> str``: the table drawn as text lines (suit
  symbols; ANSI colours when ``color``), from one seat's (or a spectator's) view.
* ``describe(action: Sequence) -> str``: a short human phrase for a legal action, used for
  the numbered action menu (e.g. ``"play 5\u2666 on the \u2666 stack"``).
* optionally ``describe_event(event: dict) -> str | None``: one game event in words (e.g.
  ``"played Q\u2665 to foundation 3 (from the talon)"``), None for an event it does not
  know; see :func:`event_describer`.

:func:`to_ascii` turns any drawing into plain ASCII (suits as letters) for terminals that
cannot show the suit symbols.

Renderers see only views: they never import the engines.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, Sequence
from types import ModuleType
from typing import Any

_ANSI_RED = "\x1b[31m"
_ANSI_RESET = "\x1b[0m"
_RANK_TEXT = {"T": "10"}
_SUIT_SYMBOLS = {"C": "\u2663", "D": "\u2666", "H": "\u2665", "S": "\u2660"}


def pretty_card(code: str, *, color: bool = True) -> str:
    """A card code such as ``"TD"`` or ``"QH3"`` as ``"10\u2666"`` / ``"Q\u2665"``.

    Red suits are wrapped in ANSI red when ``color``. Non-card strings are returned as given.
    """
    if not isinstance(code, str) or len(code) < 2 or code[1] not in _SUIT_SYMBOLS:
        return str(code)
    text = _RANK_TEXT.get(code[0], code[0]) + _SUIT_SYMBOLS[code[1]]
    if color and code[1] in "DH":
        return f"{_ANSI_RED}{text}{_ANSI_RESET}"
    return text


def outcome_line(view: dict[str, Any], result_name: str) -> str | None:
    """A one-seat game's last line, e.g. ``"Game over: WON (cleared), built [52]"``.

    Args:
        view: The game's view; its ``outcome`` (``winner``, ``reason``, ``scores``) is shown.
        result_name: The word before the scores (``"built"``, ``"score"``).

    Returns:
        The line, or None while the game is not over (no ``outcome``).
    """
    out = view.get("outcome")
    if not out:
        return None
    result = "WON" if out.get("winner") == 0 else "lost"
    return f"Game over: {result} ({out.get('reason')}), {result_name} {out.get('scores')}"


def plain_cards(codes: Sequence[Any] | None, sep: str = " ") -> str:
    """Card codes as plain names (no colour) joined by ``sep``; ``""`` for None or none."""
    return sep.join(pretty_card(c, color=False) for c in codes or [])


def event_card(event: Mapping[str, Any]) -> str:
    """An event's ``card`` as a plain name (no colour); ``"None"`` when it has none."""
    return pretty_card(str(event.get("card")), color=False)


def describe_by_type(event: Mapping[str, Any],
                     phrases: Mapping[str, Callable[[Mapping[str, Any]], str]]) -> str | None:
    """One game event in words: ``phrases[event["type"]](event)``, the events' counterpart
    of :func:`describe_verb`.

    Returns:
        The phrase, or None when the event's type has no phrase (or is not a string).
    """
    kind = event.get("type")
    phrase = phrases.get(kind) if isinstance(kind, str) else None
    return None if phrase is None else phrase(event)


def describe_verb(action: Sequence[Any],
                  phrases: Mapping[str, Callable[[list[Any]], str]]) -> str:
    """A short phrase for ``action`` (``[verb, *args]``): ``phrases[verb](args)``.

    Returns ``"?"`` for an empty action, and the action's words when its verb has no phrase
    or its arguments do not fit the phrase (an IndexError or TypeError in it).
    """
    if not action:
        return "?"
    words = " ".join(str(a) for a in action)
    phrase = phrases.get(action[0]) if isinstance(action[0], str) else None
    if phrase is None:
        return words
    try:
        return phrase(list(action[1:]))
    except (IndexError, TypeError):
        return words


#: What :func:`to_ascii` puts for each non-ASCII symbol the renderers draw.
_ASCII = str.maketrans({"\u2663": "C", "\u2666": "D", "\u2665": "H", "\u2660": "S",
                        "\u2713": "+", "\u2014": "-", "\u2013": "-", "\u2026": "..."})


def to_ascii(text: str) -> str:
    """``text`` with the suit symbols as letters (``"10\u2666"`` -> ``"10D"``), ``\u2713`` as
    ``+``, and any other non-ASCII character as ``?``: safe for a terminal whose encoding
    is not UTF-8 (ANSI colour codes are ASCII and stay)."""
    return text.translate(_ASCII).encode("ascii", "replace").decode("ascii")


def _generic_render(view: dict[str, Any], *, color: bool = True) -> str:
    lines = [f"state {view.get('state_id')}  to act: {view.get('to_act')}"]
    for key, value in view.items():
        if key not in ("legal_actions", "state_id", "to_act"):
            lines.append(f"{key}: {value}")
    return "\n".join(lines)


def _generic_describe(action: Sequence[Any]) -> str:
    return " ".join(pretty_card(a, color=False) if isinstance(a, str) else str(a) for a in action)


def event_describer(game: str) -> Callable[[dict[str, Any]], str | None] | None:
    """The ``describe_event`` of ``game``'s renderer module, or None when it has none (or
    the game has no module): the caller then spells the event out key by key."""
    try:
        mod: ModuleType = importlib.import_module(f"{__name__}.{game}")
    except ModuleNotFoundError:
        return None
    found: Callable[[dict[str, Any]], str | None] | None = getattr(mod, "describe_event", None)
    return found


def renderer(game: str) -> tuple[Callable[..., str], Callable[[Sequence[Any]], str]]:
    """``(render, describe)`` for ``game``; a plain generic pair when it has no module."""
    try:
        mod: ModuleType = importlib.import_module(f"{__name__}.{game}")
    except ModuleNotFoundError:
        return _generic_render, _generic_describe
    return mod.render, mod.describe
