"""The terminal client's words: help texts, lobby rows, action menus, event and seat-event
phrases, and the create dialogue's option lines and checks. Pure functions of their
arguments: no I/O, no client."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ...games.errors import OptionError
from ...games.options import Option
from ..renderers import pretty_card

#: What a faulty renderer may raise on an odd view: shown as a line, never a crash.
RENDER_ERRORS = (KeyError, TypeError, IndexError, ValueError, AttributeError)
_SUITS = {"C": "\u2663", "D": "\u2666", "H": "\u2665", "S": "\u2660"}
#: Option kinds of a ``games`` reply, as the types of :class:`~cardhall.games.options.Option`.
_KINDS: dict[str, type] = {"bool": bool, "int": int, "float": float, "str": str, "list": list}
#: ``seat_event`` values (protocol/README.md) as what they say about the seat's player.
SEAT_EVENTS = {"joined": "joined", "left": "left", "dropped": "lost the connection",
               "resumed": "is back", "bot": "is played by a bot now",
               "forfeit": "forfeited", "host": "is the host now",
               "timeout": "ran out of time: the server played for them"}

LOBBY_HELP = """\
lobby commands:
  r               refresh the room list
  c               create a room
  j N | j ID      join room number N (or by id); a bare number N does the same
  p CODE          join a private room by its code
  w N | w ID      watch a room (spectate)
  k [GAME [MODE]] quick-join a waiting room of a game (or a new one)
  m               my games: the seats kept from earlier runs on this server
  m N             resume my game number N (take the seat back)
  b [GAME [MODE]] a game's leaderboard (solo scores: best per player name)
  rated [MODE [SIZES]]  play rated: Skipper multi or race, a table of SIZES seats (2,3,4)
  q               quit"""

ROOM_HELP = """\
room commands:
  NUMBER   play the action with that number (only on your turn)
  v        redraw the table
  s        start the game (host, while the room waits; empty seats get bots)
  t        Skipper: toggle auto-trash (trash dead cards when drawn, or keep them)
  c TEXT   say TEXT in the room's chat (players and spectators see it)
  e [WORD] send a quick emote (e alone lists them: hello, good_luck, ...)
  mute NAME / unmute NAME   hide (or show again) NAME's chat lines, for you only
  l        leave the room and go back to the lobby
  q        leave the room and quit"""


def parse_options(text: str) -> dict[str, str]:
    """Room options typed as ``k=v`` words, e.g. ``"turn_limit=5 seed=7"``.

    Values stay strings: the server converts them to each option's type.

    Raises:
        ValueError: a word has no ``=`` or an empty key.
    """
    out: dict[str, str] = {}
    for word in text.split():
        key, sep, value = word.partition("=")
        if not sep or not key:
            raise ValueError(f"expected key=value, got {word!r}")
        out[key] = value
    return out


def _spelled_out(event: dict[str, Any]) -> str:
    """An event no phrase knows, key by key: card codes as cards, lists item by item."""
    parts = [str(event.get("type", "?"))]
    for key, value in event.items():
        if key in ("type", "seat"):
            continue
        if isinstance(value, str):
            parts.append(_SUITS.get(value) or pretty_card(value, color=False))
        elif isinstance(value, list):
            parts.append(f"{key} " + (" ".join(
                pretty_card(v, color=False) if isinstance(v, str) else str(v) for v in value)
                or "none"))
        elif isinstance(value, bool) and value:
            parts.append(key)
        elif value is not None and not isinstance(value, bool):
            parts.append(f"{key} {value}")
    return " ".join(parts)


def event_text(event: Any, me: int | None,
               describe: Callable[[dict[str, Any]], str | None] | None = None) -> str:
    """One game event as a short phrase, e.g. ``"seat 1: drew 3 cards"``, ``"you: ended
    turn 4"`` or ``"table: played Q♥ to foundation 4 (from the talon)"``.

    Args:
        event: An event map from ``update.events`` (``type`` and, usually, ``seat``).
        me: The viewer's seat (its events say ``you``), or None for a spectator.
        describe: The game renderer's ``describe_event``
            (:func:`~cardhall.client.renderers.event_describer`), or None: the event is
            then spelled out key by key (card codes as cards, lists item by item), as it is
            when the renderer has no phrase for it.
    """
    if not isinstance(event, dict):
        return str(event)
    seat = event.get("seat")
    who = "you" if seat is not None and seat == me else (
        f"seat {seat}" if seat is not None else "table")
    if describe is not None:
        try:
            phrase = describe(event)
        except RENDER_ERRORS:  # an odd event is spelled out below instead
            phrase = None
        if phrase:
            return f"{who}: {phrase}"
    return f"{who}: {_spelled_out(event)}"


def seat_event_text(label: str, event: str) -> str:
    """A ``seat_event`` as a line, e.g. ``"* seat 1 bob: lost the connection"`` (an event
    this client does not know is shown as its word)."""
    return f"* {label}: {SEAT_EVENTS.get(event, event)}"


def option_line(spec: dict[str, Any], *, short: bool = False) -> str:
    """One option of a ``games`` reply as a line: ``"turn_limit=500  int 1..100000  Turns
    per seat..."``; ``short``: only the kind and limits (``"int 1..100000, default 500"``).
    A default of nil shows as ``(not set)``."""
    default = spec.get("default")
    shown = "(not set)" if default is None else str(default).lower() \
        if isinstance(default, bool) else str(default)
    kind = str(spec.get("kind", "?"))
    if spec.get("choices") is not None:
        kind += " one of " + "/".join(str(c) for c in spec["choices"])
    elif spec.get("min") is not None or spec.get("max") is not None:
        low = spec.get("min")
        high = spec.get("max")
        kind += f" {'' if low is None else low}..{'' if high is None else high}"
    elif kind == "bool":
        kind += " true/false"
    elif kind == "list":
        kind += " of card codes, comma-separated"
    if short:
        return f"{kind}, default {shown}"
    return f"{spec.get('name')}={shown}  {kind}  {spec.get('doc', '')}".rstrip()


def check_option(specs: dict[str, dict[str, Any]], word: str, seats: int) -> str | None:
    """Check one typed ``name=value`` against the option maps of a ``games`` reply (as
    the server will: :meth:`cardhall.games.options.Option.coerce`).

    Args:
        specs: Option maps by name (the game's and the room options).
        word: What the player typed, e.g. ``"turn_limit=20"``.
        seats: The room's seat count (``seed`` and ``deck`` fix the deal: one seat only).

    Returns:
        None when the server will take it, else why not (one line).
    """
    key, sep, value = word.partition("=")
    if not sep or not key:
        return f"expected name=value, got {word!r}"
    spec = specs.get(key)
    if spec is None:
        return f"no option {key!r} here; the options are: {', '.join(sorted(specs))}"
    if key in ("seed", "deck") and seats > 1:
        return f"option {key!r} fixes the deal: one-seat rooms only (fair deals)"
    kind = _KINDS.get(str(spec.get("kind")))
    if kind is None:
        return None  # a kind this client does not know: the server decides
    choices = spec.get("choices")
    option = Option(key, kind, spec.get("default"), str(spec.get("doc", "")),
                    tuple(choices) if choices is not None else None,
                    spec.get("min"), spec.get("max"))
    try:
        option.coerce(value)
    except OptionError as exc:
        return str(exc)
    return None


def room_line(number: int, summary: dict[str, Any]) -> str:
    """One lobby row: ``" 1. 3f2a1b9c  skipper multi  2/4  waiting   public  Skipper 3f2a"``."""
    access = "private" if summary.get("private") else "public"
    watchers = summary.get("spectators", 0)
    return (f"{number:>2}. {summary['room']:<10} {summary['game']:<12} "
            f"{summary.get('mode') or '-'!s:<6} {summary['taken']}/{summary['seats']:<3} "
            f"{summary['status']:<9} {access:<8} {summary['name']}"
            + (f"  ({watchers} watching)" if watchers else ""))


def menu_lines(entries: Sequence[str], width: int) -> list[str]:
    """Numbered entries (``"1. play 5♦ on the ♦ stack"``) laid out in columns.

    Args:
        entries: Phrases, numbered from 1 in order.
        width: Terminal width in characters.

    Returns:
        Lines of one or more columns, read down then across; cells separated by at least
        two spaces.
    """
    if not entries:
        return []
    cells = [f"{i:>2}. {text}" for i, text in enumerate(entries, 1)]
    cell_width = max(len(c) for c in cells) + 3
    columns = max(1, min(4, width // cell_width))
    rows = -(-len(cells) // columns)
    lines = []
    for r in range(rows):
        row = [cells[c * rows + r] for c in range(columns) if c * rows + r < len(cells)]
        lines.append("".join(cell.ljust(cell_width) for cell in row).rstrip())
    return lines


def chat_line_text(line: dict[str, Any]) -> str:
    """One chat line of a ``chat_lines`` push as a terminal line: ``"[chat] Bob: gg"``, a
    spectator's as ``"[watching] Cy: nice"``, an emote as ``"[chat] Bob: *well played*"``.

    Whatever the server sent, the text is shown as text: characters that are not printable
    (terminal escapes, controls) become ``?``, so a line cannot move the cursor or recolour
    the screen.
    """
    where = "watching" if line.get("seat") is None else "chat"
    emote = line.get("emote")
    said = f"*{str(emote).replace('_', ' ')}*" if emote is not None else str(line.get("text"))
    name = str(line.get("name"))
    return "".join(c if c.isprintable() else "?" for c in f"[{where}] {name}: {said}")
