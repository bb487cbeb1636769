"""Pure, deterministic rule engines, one package per game, and the registry of games by name.

The registry is the game packages themselves: every sub-package of ``cardhall.games``
(``games/NAME/``) is the game ``NAME`` (:data:`MODULES`), with its engine class ``GAME`` and
its bots ``STRATEGIES``. Everything else that knows the games takes them from here: the
server's ``list_games``, the wheel's packages (setup.py finds them), the web client's
renderers (``server/static/js/games/NAME.js``, loaded by the names ``list_games`` serves)
and the terminal's (``client/renderers/NAME.py``). README "Add a game" lists the places.

Use :func:`create` to make a game by name and :func:`get` to look up its class. Every engine
implements :class:`cardhall.games.base.Game` and declares its :class:`~.base.GameType`;
:func:`replay` rebuilds a game from its log (:class:`~.base.LogEntry`).
"""

from __future__ import annotations

import functools
import importlib
import pkgutil
from collections.abc import Mapping
from typing import Any

from .base import (
    OUTCOMES,
    STANDARD,
    Action,
    Event,
    Game,
    GameType,
    LogEntry,
    Ranking,
    Setting,
    outcome_kind,
    replay,
)
from .errors import (
    GameError,
    GameOver,
    IllegalAction,
    NotYourTurn,
    OptionError,
    SnapshotError,
    UnknownAction,
)

#: Game name -> the package of ``cardhall.games`` that defines it (the same name), with its
#: ``GAME`` (the engine class) and ``STRATEGIES`` (its bots), imported on first use: every
#: sub-package of this package, in name order. A game's name is its package's, so it
#: matches the protocol's game names (``[a-z0-9_]``, 1..32 characters).
MODULES = {info.name: info.name
           for info in sorted(pkgutil.iter_modules(__path__), key=lambda i: i.name)
           if info.ispkg}
_CLASSES: dict[str, type[Game]] = {}


def get(name: str) -> type[Game]:
    """The engine class registered as ``name``.

    Raises:
        OptionError: no game of that name is available.
    """
    cls = _CLASSES.get(name)
    if cls is None:
        module = MODULES.get(name)
        if module is None:
            raise OptionError(f"unknown game {name!r}; known: {', '.join(names())}")
        try:
            mod = importlib.import_module(f"{__name__}.{module}")
        except ModuleNotFoundError as exc:
            if exc.name != f"{__name__}.{module}":
                raise
            raise OptionError(f"game {name!r} is not available in this build") from None
        cls = getattr(mod, "GAME")
        _CLASSES[name] = cls
    return cls


def names() -> list[str]:
    """Names of all games (:data:`MODULES`), sorted."""
    return sorted(MODULES)


@functools.cache
def catalog() -> tuple[dict[str, Any], ...]:
    """Every available game as a client reads it in a ``games`` reply, by name: ``game``,
    ``title``, ``min_seats``, ``max_seats``, ``modes`` (:meth:`Game.modes`, default first),
    ``real_time_modes`` (:attr:`GameType.real_time_modes`), ``options``
    (:meth:`Option.describe` of each) and ``settings`` (:meth:`Setting.describe` of each).
    Built once; treat it as read-only."""
    out = []
    for name in names():
        cls = get(name)
        out.append({"game": name, "title": cls.title, "min_seats": cls.min_seats,
                    "max_seats": cls.max_seats, "modes": list(cls.modes()),
                    "real_time_modes": sorted(cls.TYPE.real_time_modes),
                    "options": [o.describe() for o in cls.OPTIONS],
                    "settings": [s.describe() for s in cls.TYPE.settings]})
    return tuple(out)


def create(name: str, options: Mapping[str, Any] | None = None, seats: int = 1) -> Game:
    """Make a new game ``name`` with ``options`` for ``seats`` players.

    Raises:
        OptionError: unknown game, unknown option, bad option value or seat count.
    """
    return get(name)(options, seats)


__all__ = [
    "OUTCOMES", "STANDARD", "Action", "Event", "Game", "GameError", "GameOver", "GameType",
    "IllegalAction", "LogEntry", "MODULES", "NotYourTurn", "OptionError", "Ranking", "Setting",
    "SnapshotError", "UnknownAction", "catalog", "create", "get", "names", "outcome_kind",
    "replay",
]
