"""Terminal renderer for Thirty-Six views (see ``cardhall.client.renderers``).

Draws the two face-up ENEMY cards with the ENEMY total and stack counts, the player's row
(committed cards marked), the PLAYER stack and both collections, the score against the
target, and a line on the last resolved turn. Works from the view dict only.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from . import describe_by_type, event_card, plain_cards, pretty_card

_PHASE_TEXT = {
    "commit": "choose row cards to commit against the ENEMY",
    "take": "turn won: choose the ENEMY card to keep",
    "surrender": "turn lost: choose the row card the ENEMY takes",
    "over": "game over",
}
_RULE_TEXT = {
    "short_refill": "refill 3", "discard_rightmost": "lose right-most",
    "ace_wins": "ENEMY ace wins", "beat_faces": "beat faces", "row_of_four": "row of 4",
    "clubs_double": "clubs x2", "two_clubs": "two clubs raid", "hearts_double": "hearts x2",
    "surrender_lowest": "lose lowest",
}


def _cards(codes: Sequence[str], color: bool) -> str:
    return " ".join(pretty_card(c, color=color) for c in codes) or "-"


def render(view: dict[str, Any], *, color: bool = True) -> str:
    """Draw a Thirty-Six table as text lines.

    Args:
        view: A view dict of the ``thirtysix`` engine (a seat's or a spectator's).
        color: Wrap red suits in ANSI red.

    Returns:
        Several lines joined by ``"\\n"``.
    """
    turns = view.get("turns", 17)
    header = (f"Thirty-Six  turn {view.get('turn')}/{turns}  "
              f"score {view.get('score')} (more than {view.get('target', 36)} wins)")
    lines = [header]
    rules = [t for r, t in _RULE_TEXT.items() if view.get("rules", {}).get(r)]
    if rules:
        lines.append("rules: " + ", ".join(rules))
    stacks = view.get("enemy_stacks", [0, 0])
    total = view.get("enemy_total")
    lines.append(f"ENEMY   [{stacks[0]:2}] {_cards(view.get('enemy', []), color)} [{stacks[1]:2}]"
                 + (f"   total {total}" if total is not None else ""))
    committed = set(view.get("committed", []))
    row = [pretty_card(c, color=color) + ("*" if c in committed else "")
           for c in view.get("row", [])]
    lines.append(f"row     {' '.join(row) or '-'}" + ("   (* committed)" if committed else ""))
    lines.append(f"PLAYER stack {view.get('player_stack')} cards")
    lines.append(f"PLAYER collection ({len(view.get('collection', []))}): "
                 f"{_cards(view.get('collection', []), color)}")
    lines.append(f"ENEMY collection ({len(view.get('enemy_collection', []))}): "
                 f"{_cards(view.get('enemy_collection', []), color)}")
    last = view.get("last")
    if last:
        lines.append(f"last turn {last.get('turn')}: {last.get('total')} against "
                     f"{last.get('enemy_total')}, {last.get('result')}; "
                     f"{last.get('kept', 0)} card(s) kept; ENEMY took "
                     f"{_cards(last.get('to_enemy', []), color)}")
    outcome = view.get("outcome")
    if outcome:
        verdict = "WON" if outcome.get("winner") == 0 else "lost"
        lines.append(f"{verdict}: {outcome.get('reason')}")
    else:
        lines.append(_PHASE_TEXT.get(view.get("phase", ""), ""))
    return "\n".join(lines)


def describe(action: Sequence[Any]) -> str:
    """A short phrase for a Thirty-Six action, e.g. ``"commit 7\u2660 5\u2665"``.

    Args:
        action: ``(verb, args...)`` from a view's ``legal_actions``.

    Returns:
        Plain text (no colour).
    """
    verb, args = action[0], list(action[1:])
    cards = plain_cards(args)
    if verb == "commit":
        return f"commit {cards}" if args else "commit nothing (concede the turn)"
    if verb == "take":
        return f"take {cards} into the PLAYER collection"
    if verb == "surrender":
        return f"give {cards} to the ENEMY"
    if verb == "resign":
        return "resign the game"
    return " ".join(str(a) for a in action)


def _count(event: Mapping[str, Any]) -> str:
    count = event.get("count")
    return f"{count} card{'' if count == 1 else 's'}"


def _took(event: Mapping[str, Any]) -> str:
    taken = plain_cards(event.get("to_enemy"), ", ")
    return f"took {event_card(event)}" + (f"; the ENEMY takes {taken}" if taken else "")


_EVENT_PHRASES: dict[str, Callable[[Mapping[str, Any]], str]] = {
    "reveal": lambda e: (f"turn {e.get('turn')}: the ENEMY shows "
                         f"{plain_cards(e.get('cards'), ' and ') or 'nothing'} "
                         f"(total {e.get('enemy_total')})"),
    "commit": lambda e: (f"committed {plain_cards(e.get('cards'), ' and ') or 'nothing'}: "
                         f"{e.get('total')} against {e.get('enemy_total')}, {e.get('result')}"),
    "take": _took,
    "surrender": lambda e: f"gave {event_card(e)} to the ENEMY",
    "draw": lambda e: f"drew {_count(e)}",
    "reshuffle": lambda e: f"the PLAYER collection ({_count(e)}) is shuffled into the PLAYER stack",
    "two_clubs": lambda e: ("two clubs: the ENEMY takes the pair and the row "
                            f"({plain_cards(e.get('cards')) or 'empty'})"),
    "game_over": lambda e: f"game over: {e.get('reason')}; score {e.get('score')}",
}


def describe_event(event: dict[str, Any]) -> str | None:
    """One Thirty-Six event in words, e.g. ``"turn 3: the ENEMY shows 9\u2660 and K\u2665
    (total 19)"``.

    Args:
        event: An event map of the engine (``type`` ``reveal``, ``commit``, ``take``,
            ``surrender``, ``draw``, ``reshuffle``, ``two_clubs`` or ``game_over``, see
            docs/schemas/thirtysix.event.json).

    Returns:
        The phrase (card names without colour), or None for an unknown event type.
    """
    return describe_by_type(event, _EVENT_PHRASES)
