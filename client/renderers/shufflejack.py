"""Terminal renderer for ShuffleJack views (see ``cardhall.client.renderers``).

Draws the 5 x 5 tableau with position numbers (locked positions marked ``#`` while locks
are in force), the deck count, the round and its hands against the cards left, and the round
scores. Works from the view dict only.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from . import pretty_card

_SIZE = 5


def _cell(code: str | None, locked: bool, color: bool) -> str:
    mark = "#" if locked else " "
    if code is None:
        return f"{mark}  . "
    text = pretty_card(code, color=False)
    pad = " " * (3 - len(text))
    return f"{mark}{pad}{pretty_card(code, color=color)}"


def render(view: dict[str, Any], *, color: bool = True) -> str:
    """Draw a ShuffleJack table as text lines.

    Args:
        view: A view dict of the ``shufflejack`` engine (a seat's or a spectator's).
        color: Wrap red suits in ANSI red.

    Returns:
        Several lines joined by ``"\\n"``: a header, the tableau as five rows of
        ``position: card`` cells, and the scores.
    """
    tableau = view.get("tableau", [None] * 25)
    locked = set(view.get("locked", [])) if view.get("locks_active") else set()
    header = (f"ShuffleJack  Round {view.get('round')}/{view.get('rounds', 7)}  "
              f"deck {view.get('deck')}  hands {view.get('hands')}  "
              f"cards left {view.get('cards_left')}  score {view.get('score')}")
    lines = [header]
    for r in range(_SIZE):
        cells = []
        for c in range(_SIZE):
            pos = r * _SIZE + c + 1
            cells.append(f"{pos:2}:{_cell(tableau[pos - 1], pos in locked, color)}")
        lines.append("  ".join(cells))
    if view.get("locked"):
        state = "locked" if view.get("locks_active") else "unlocked (deck empty)"
        lines.append(f"positions {', '.join(map(str, view['locked']))} {state}")
    if view.get("round_scores"):
        lines.append("round scores: " + ", ".join(map(str, view["round_scores"])))
    outcome = view.get("outcome")
    if outcome:
        verdict = "WON" if outcome.get("winner") == 0 else "over"
        lines.append(f"{verdict}: {outcome.get('reason')}; score {outcome.get('scores')}")
    else:
        lines.append("make hands of 21 in a row or column; deal refills the tableau")
    return "\n".join(lines)


def describe(action: Sequence[Any]) -> str:
    """A short phrase for a ShuffleJack action, e.g. ``"hand at 1 2"``.

    Args:
        action: ``(verb, args...)`` from a view's ``legal_actions``.

    Returns:
        Plain text.
    """
    verb = action[0]
    if verb == "hand":
        return "hand at " + " ".join(str(p) for p in action[1:])
    if verb == "deal":
        return "deal: consolidate the tableau and fill the gaps"
    if verb == "next":
        return "next: end the round"
    if verb == "resign":
        return "resign the game"
    return " ".join(str(a) for a in action)
