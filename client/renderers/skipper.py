"""Terminal renderer for Skipper views (see ``cardhall.client.renderers``).

Draws a header (mode, state, whose turn), the auction with its bids, then one block per seat:
its four suit stacks (top card, the values the top stands for, ``✓`` when complete), its
discard top and the sizes of its stock, discard pile, hand and trash; then the viewer's own
hand, and the outcome once the game is over. Works from the view dict only (the keys of
``games/skipper/observer.py``'s ``VIEW_PARTS``, plus the server's ``room`` facts when present).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from . import describe_by_type, event_card, pretty_card

_SUIT_SYMBOLS = {"C": "\u2663", "D": "\u2666", "H": "\u2665", "S": "\u2660"}
_RED = "\x1b[31m"
_GREEN = "\x1b[32m"
_BOLD = "\x1b[1m"
_RESET = "\x1b[0m"
_CHECK = "\u2713"
_STACK_WIDTH = 15  # visible characters per stack cell
_STATUS_TEXT = {"active": "", "won": "  WON", "out": "  out of the game"}


def _suit(letter: str, color: bool) -> str:
    """The suit symbol of ``letter`` (``"D"`` -> ``"♦"``), red for ♦♥ when ``color``."""
    symbol = _SUIT_SYMBOLS.get(letter, letter)
    if color and letter in "DH":
        return f"{_RED}{symbol}{_RESET}"
    return symbol


def _paint(text: str, code: str, color: bool) -> str:
    return f"{code}{text}{_RESET}" if color else text


def _seat_name(view: dict[str, Any], seat: int) -> str:
    """``"seat 1 bob"``; the name comes from the server's ``room.players`` when present."""
    players = (view.get("room") or {}).get("players") or []
    player = players[seat] if seat < len(players) else None
    label = f"seat {seat}"
    if isinstance(player, dict) and player.get("name"):
        label += f" {player['name']}"
        if player.get("bot"):
            label += " [bot]"
        elif not player.get("connected", True):
            label += " [away]"
    if seat == view.get("seat"):
        label += " (you)"
    return label


def _stack_cell(stack: dict[str, Any], color: bool) -> str:
    """One stack as ``"♦ 5♦ (5)"``, ``"♥ K♥ (2,3)"`` or ``"♠ J♠ (11) ✓"``, padded to
    :data:`_STACK_WIDTH` visible characters (ANSI codes do not count)."""
    letter = stack.get("suit", "?")
    cards = stack.get("cards") or []
    values = ",".join(str(v) for v in stack.get("values") or [])
    top = cards[-1] if cards else None
    plain = f"{_SUIT_SYMBOLS.get(letter, letter)} {pretty_card(top, color=False) if top else '-'}"
    shown = f"{_suit(letter, color)} {pretty_card(top, color=color) if top else '-'}"
    if top:
        plain += f" ({values})"
        shown += f" ({values})"
    if stack.get("complete"):
        plain += f" {_CHECK}"
        shown += " " + _paint(_CHECK, _GREEN, color)
    return shown + " " * max(1, _STACK_WIDTH - len(plain))


def _seat_lines(view: dict[str, Any], i: int, seat: dict[str, Any], color: bool) -> list[str]:
    """The block of lines of seat ``i``: name and turn facts, stacks, piles."""
    acting = i in (view.get("to_act") or []) and not view.get("over")
    marker = ">" if acting else " "
    name = _seat_name(view, i)
    if i == view.get("seat"):
        name = _paint(name, _BOLD, color)
    head = (f"{marker} {name}  turns {seat.get('turns', 0)}  phase {seat.get('phase', '-')}"
            f"{_STATUS_TEXT.get(seat.get('status', 'active'), '  ' + str(seat.get('status')))}")
    stacks = "".join(_stack_cell(s, color) for s in seat.get("stacks") or []).rstrip()
    top = seat.get("discard_top")
    piles = (f"stock {seat.get('stock', 0)}  discard {seat.get('discard', 0)}"
             f" (top {pretty_card(top, color=color) if top else '-'})"
             f"  hand {seat.get('hand', 0)}  trash {seat.get('trash', 0)}")
    if "auto_trash" in seat:  # RULINGS K6m: each seat's own preference
        piles += f"  auto-trash {'on' if seat['auto_trash'] else 'off'}"
    return [head, f"    {stacks}", f"    {piles}"]


def _turn_text(view: dict[str, Any]) -> str:
    """Whose move it is: ``"your turn"``, ``"turn: seat 2 bob"``, ``"to act: seats 0, 1"``."""
    if view.get("over"):
        return "game over"
    if (view.get("room") or {}).get("status") == "waiting":
        return "waiting for players"
    to_act = list(view.get("to_act") or [])
    if not to_act:
        return "waiting"
    auction = view.get("auction")
    if auction and auction.get("bidder") is not None:
        bidder = auction["bidder"]
        return "your bid" if bidder == view.get("seat") else f"bidding: {_seat_name(view, bidder)}"
    if view.get("seat") in to_act and len(to_act) == 1:
        return "your turn"
    if len(to_act) == 1:
        return f"turn: {_seat_name(view, to_act[0])}"
    return "to act: " + ", ".join(_seat_name(view, s) for s in to_act)


def _auction_line(view: dict[str, Any], color: bool) -> str | None:
    """``"auction: seat 1 sells 5♦; bids: seat 2 J♣, seat 3 pass; seat 0 (you) to bid"``."""
    auction = view.get("auction")
    if not auction:
        return None
    line = (f"auction: {_seat_name(view, auction.get('seller', 0))} sells "
            f"{pretty_card(auction.get('card', '?'), color=color)}")
    bids = [f"{_seat_name(view, s)} {pretty_card(c, color=color) if c else 'pass'}"
            for s, c in auction.get("bids") or []]
    line += "; bids: " + (", ".join(bids) if bids else "none yet")
    if auction.get("bidder") is not None:
        line += f"; {_seat_name(view, auction['bidder'])} to bid"
    return line


def _outcome_line(view: dict[str, Any]) -> str | None:
    """The result once the game is over, e.g. ``"game over: seat 0 won (completed)"``."""
    outcome = view.get("outcome")
    if not outcome:
        return None
    winner, reason = outcome.get("winner"), outcome.get("reason")
    scores = outcome.get("scores") or []
    if view.get("mode") == "solo":
        turns = scores[0] if scores else "?"
        verdict = "WON" if winner == 0 else "lost"
        return f"game over: {verdict} ({reason}) after {turns} turns"
    who = "nobody won" if winner is None else f"{_seat_name(view, winner)} won"
    stacks = ", ".join(f"seat {i}: {n}" for i, n in enumerate(scores))
    return f"game over: {who} ({reason}); complete stacks {stacks}"


def render(view: dict[str, Any], *, color: bool = True) -> str:
    """Draw a Skipper table as text lines.

    Args:
        view: A Skipper view dict (a seat's or a spectator's), optionally with the server's
            ``room`` facts (player names).
        color: Red ♦♥ cards and suits, a green ``✓`` and the own seat in bold, as ANSI codes.

    Returns:
        Lines joined by ``"\\n"``: header, auction (if any), three lines per seat, the own
        hand (or a spectator note), and the outcome when the game is over.
    """
    mode = view.get("mode") or "solo"
    lines = [f"Skipper {mode}  state {view.get('state_id')}  {_turn_text(view)}"]
    auction = _auction_line(view, color)
    if auction:
        lines.append(auction)
    for i, seat in enumerate(view.get("seats") or []):
        lines.extend(_seat_lines(view, i, seat, color))
    hand = view.get("hand")
    if hand is None:
        lines.append("(spectating: no hand)")
    else:
        lines.append("your hand: " + (" ".join(pretty_card(c, color=color) for c in hand) or "-"))
    outcome = _outcome_line(view)
    if outcome:
        lines.append(outcome)
    return "\n".join(lines)


def _cards(count: Any) -> str:
    return "a card" if count == 1 else f"{count} cards"


def _stack_suit(event: Mapping[str, Any]) -> str:
    """The suit symbol of an event's ``stack`` letter (``"?"`` without one)."""
    return _SUIT_SYMBOLS.get(str(event.get("stack")), "?")


_EVENT_PHRASES: dict[str, Callable[[Mapping[str, Any]], str]] = {
    "play": lambda e: (f"played {event_card(e)} on the {_stack_suit(e)} stack (now "
                       f"{' or '.join(str(v) for v in e.get('values') or [])})"),
    "complete": lambda e: f"completed the {_stack_suit(e)} stack",
    "discard": lambda e: f"discarded {event_card(e)}",
    "draw": lambda e: ("drew a card (skip-draw)" if e.get("skip_draw")
                       else f"drew {_cards(e.get('count'))}"),
    "flip": lambda e: "turned the discard pile over as the new stock",
    "trash": lambda e: "trashed a dead card",
    "auto_trash": lambda e: f"auto-trash {'on' if e.get('on') else 'off'}",
    "auction": lambda e: f"put {event_card(e)} up for auction",
    "bid": lambda e: f"bid {event_card(e)}",
    "pass": lambda e: "passed (no bid)",
    "sold": lambda e: (f"sold {event_card(e)} to seat {e.get('buyer')} for "
                       f"{pretty_card(str(e.get('price')), color=False)}"),
    "unsold": lambda e: f"took {event_card(e)} back: nobody bid",
    "end": lambda e: f"ended turn {e.get('turns')}",
    "unwinnable": lambda e: "can no longer finish: out of the game",
    "resigned": lambda e: "resigned",
    "forfeit": lambda e: "forfeited",
    "game_over": lambda e: f"game over ({str(e.get('reason')).replace('_', ' ')})",
}


def describe_event(event: dict[str, Any]) -> str | None:
    """One Skipper event in words, e.g. ``"drew 3 cards"``, ``"ended turn 4"`` or
    ``"played 5♦ on the ♦ stack (now 5)"`` (docs/schemas/skipper.event.json).

    Args:
        event: An event map of the engine (``type`` and its fields).

    Returns:
        The phrase (card names without colour), or None for an unknown event type.
    """
    return describe_by_type(event, _EVENT_PHRASES)


def describe(action: Sequence[Any]) -> str:
    """A short phrase for a Skipper action, e.g. ``"play 5♦ on the ♦ stack"``.

    Args:
        action: ``(verb, args...)`` from a view's ``legal_actions``: ``play card stack``,
            ``discard card``, ``end``, ``auction card``, ``bid card``, ``pass``, ``resign``.

    Returns:
        Plain text (no colour); an unknown verb is spelled out word by word.
    """
    verb, args = action[0], list(action[1:])
    card = pretty_card(args[0], color=False) if args else ""
    if verb == "play" and len(args) == 2:
        return f"play {card} on the {_SUIT_SYMBOLS.get(args[1], args[1])} stack"
    if verb in ("discard", "auction", "bid") and args:
        return f"{verb} {card}"
    if verb == "end":
        return "end turn"
    if verb in ("pass", "resign"):
        return str(verb)
    return " ".join(pretty_card(a, color=False) if isinstance(a, str) else str(a)
                    for a in action)
