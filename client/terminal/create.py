"""The create-room dialogue of the terminal client (lobby command ``c``): the game, its mode
and seats as the server's game listing gives them, the options (listed with their defaults,
limits and what they do, checked one by one as the server will: the good ones are kept,
only a bad one is asked again), privacy and the room's name. ``x`` cancels at any question.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from .core import Terminal
from .text import check_option, option_line

#: Seats offered first for a room of several (as the web client's New-room form does).
DEFAULT_SEATS = 4


@dataclass(frozen=True)
class RoomSpec:
    """A room to create, as the dialogue settled it.

    Attributes:
        game: Game name.
        mode: Game mode, or None (a game without modes).
        seats: Seat count (1 for ``solo`` or a game without modes).
        options: Options by name, values as typed (the server converts them).
        private: A private room (joined by its code).
        name: The room's name, or None (the server names it).
    """

    game: str
    mode: str | None
    seats: int
    options: dict[str, str]
    private: bool
    name: str | None


def option_specs(term: Terminal, info: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The option maps a room of game ``info`` takes, by name: the game's own (without
    ``mode``, asked on its own) and the room options of every game."""
    specs = [o for o in info.get("options") or [] if o.get("name") != "mode"]
    return {str(o["name"]): o for o in specs + list(term.room_options)}


async def choose_game(term: Terminal) -> str | None:
    """Ask for one of the server's games by number or name (Enter: the first, Skipper
    on Cardhall; x: cancel).

    Returns:
        The game's name, or None when cancelled or the server listed none.
    """
    names = [str(g["game"]) for g in term.games]
    names.sort(key=lambda n: n != "skipper")  # the headline game first
    if not names:
        term.error("the server listed no games")
        return None
    term.say("games: " + "  ".join(f"{i}. {g}" for i, g in enumerate(names, 1)))
    while True:
        answer = (await term.ask(f"game [1-{len(names)} or name, Enter = {names[0]}, "
                                 "x = cancel]: ")).lower()
        if answer == "x":
            return None
        if not answer:
            return names[0]
        if answer.isdigit() and 1 <= int(answer) <= len(names):
            return names[int(answer) - 1]
        if answer in names:
            return answer
        term.error(f"no game {answer!r}")


async def _ask_mode(term: Terminal, modes: list[str]) -> str | None:
    """The game's mode (Enter: the first); None when cancelled."""
    while True:
        answer = (await term.ask(f"mode [{'/'.join(modes)}, Enter = {modes[0]}]: ")).lower()
        if answer == "x":
            return None
        if not answer or answer in modes:
            return answer or modes[0]
        term.error(f"no mode {answer!r}")


async def _ask_seats(term: Terminal, low: int, high: int) -> int | None:
    """Seats from ``low`` to ``high`` (Enter: :data:`DEFAULT_SEATS`, within the limits);
    None when cancelled."""
    default = min(max(DEFAULT_SEATS, low), high)
    while True:
        answer = await term.ask(f"seats [{low}-{high}, Enter = {default}]: ")
        if answer == "x":
            return None
        if not answer:
            return default
        if answer.isdigit() and low <= int(answer) <= high:
            return int(answer)
        term.error(f"seats must be a number from {low} to {high}")


async def _ask_name(term: Terminal) -> str | None:
    """The room's name (Enter: the server names it: None)."""
    while True:
        answer = await term.ask("room name [Enter = chosen by the server]: ")
        if not answer:
            return None
        if len(answer) <= 64:
            return answer
        term.error("a room name has at most 64 characters")


async def ask_room(term: Terminal) -> RoomSpec | None:
    """The create-room dialogue (see the module docstring): a ``solo`` mode, or no mode, is
    one seat; other modes ask for the seats.

    Returns:
        The room, or None when cancelled (``x``).
    """
    game = await choose_game(term)
    if game is None:
        return None
    info = next(g for g in term.games if g["game"] == game)
    modes = [str(m) for m in info["modes"]]
    mode = await _ask_mode(term, modes) if modes else None
    if modes and mode is None:
        return None
    seats = 1
    low, high = max(2, int(info["min_seats"])), int(info["max_seats"])
    if mode not in (None, "solo") and high >= low:
        asked = await _ask_seats(term, low, high)
        if asked is None:
            return None
        seats = asked
    options = await ask_options(term, option_specs(term, info), seats)
    if options is None:
        return None
    private = (await term.ask("private room? [y/N]: ")).lower().startswith("y")
    return RoomSpec(game, mode, seats, options, private, await _ask_name(term))


async def ask_options(term: Terminal, specs: dict[str, dict[str, Any]],
                      seats: int) -> dict[str, str] | None:
    """List the options (name, default, limits, what they do), read ``name=value``
    words, and check each against its option map (:func:`~.text.check_option`). The good
    ones are kept; each bad one is asked again on its own (Enter drops it).

    Returns:
        The options by name (values as typed), or None when cancelled (``x``).
    """
    term.say("options (name=default  kind and limits  what it does):")
    for spec in specs.values():
        term.say("  " + option_line(spec))
    answer = await term.ask("options as name=value words [Enter = all defaults, "
                            "x = cancel]: ")
    if answer == "x":
        return None
    options: dict[str, str] = {}
    for word in answer.split():
        if not await fix_option(term, options, specs, word, seats,
                                check_option(specs, word, seats)):
            return None
    return options


async def fix_option(term: Terminal, options: dict[str, str],
                     specs: dict[str, dict[str, Any]], word: str, seats: int,
                     problem: str | None) -> bool:
    """Show ``problem`` with the typed ``name=value`` (None: it is good) and ask again
    for that one until it passes :func:`~.text.check_option`; put the good one in
    ``options`` (nothing when the player left it out with Enter).

    Returns:
        False when cancelled (``x``), else True.
    """
    while problem is not None:
        term.error(problem)
        key = word.partition("=")[0]
        if key in specs:
            value = await term.ask(f"{key} [{option_line(specs[key], short=True)};"
                                   " Enter = leave it out, x = cancel]: ")
            word = f"{key}={value}" if value not in ("", "x") else value
        else:
            word = await term.ask("name=value instead [Enter = leave it out, "
                                  "x = cancel]: ")
        if word == "x":
            return False
        if not word:
            return True
        problem = check_option(specs, word, seats)
    key, _, value = word.partition("=")
    options[key] = value
    return True


async def ask_refused_option(term: Terminal, spec: RoomSpec,
                             refusal: str) -> dict[str, str] | None:
    """After the server refused ``spec.options`` (``lobby/bad_options``: ``refusal``), ask
    again only for the option its message names, keeping the others (every option when it
    names none of them).

    Returns:
        The new options, or None when cancelled (``x``).
    """
    specs = option_specs(term, next(g for g in term.games if g["game"] == spec.game))
    options = spec.options
    bad = next((k for k in options if re.search(rf"\b{re.escape(k)}\b", refusal)), None)
    if bad is None:
        term.error(refusal)
        return await ask_options(term, specs, spec.seats)
    kept = {k: v for k, v in options.items() if k != bad}
    if not await fix_option(term, kept, specs, f"{bad}={options[bad]}", spec.seats, refusal):
        return None
    return kept
