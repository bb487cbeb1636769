"""Bot strategies shared by all games, and the registry of each game's strategies.

A strategy is a function ``choose(view, rng) -> action``: it sees only what a seat's
:meth:`Game.view` holds (including ``"legal_actions"``), so the same bot plays offline in
``cardhall simulate`` and over the wire in ``cardhall bots``.

Each game's package (``cardhall.games.MODULES``) defines ``STRATEGIES: dict[str,
Strategy]``; :func:`strategy` looks them up, falling back to :func:`random_strategy` for
``"random"``; ``"module:function"`` loads a user's own strategy (:func:`load_strategy`).
"""

from __future__ import annotations

import importlib
import random
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from .errors import OptionError

#: A bot: ``(view, rng) -> action``. The action is any sequence (a tuple or a list, as the
#: view listed it): a compiled caller checks the declared type of what it is given.
Strategy = Callable[[Mapping[str, Any], random.Random], Sequence[Any]]

#: Verbs a bot never picks at random: they end the game for the bot's own side.
CONCEDE_VERBS = frozenset({"resign", "close_shop", "concede"})


def view_legal_actions(view: Mapping[str, Any]) -> list[tuple[Any, ...]]:
    """The legal actions a seat's view lists, as tuples (what a bot strategy chooses from).

    Args:
        view: A seat's :meth:`Game.view` (or :meth:`Game.bot_view`).

    Returns:
        ``view["legal_actions"]`` with each action as a tuple, in the view's order.

    Raises:
        ValueError: the view lists no legal action (the seat may not act now).
    """
    legal = [tuple(a) for a in view["legal_actions"]]
    if not legal:
        raise ValueError("no legal action to choose from")
    return legal


def random_strategy(view: Mapping[str, Any], rng: random.Random) -> tuple[Any, ...]:
    """Uniform choice over the view's legal actions, leaving out conceding ones.

    Falls back to a conceding action only when nothing else is legal.

    Raises:
        ValueError: the view lists no legal action (the seat may not act now).
    """
    legal = view_legal_actions(view)
    pool = [a for a in legal if a[0] not in CONCEDE_VERBS] or legal
    return pool[rng.randrange(len(pool))]


def load_strategy(spec: str) -> Strategy:
    """A user's strategy function from ``"module:function"`` (an importable module, e.g.
    ``mybots.shop:choose``) or ``"path/to/file.py:function"``.

    The function is called as ``function(view, rng)`` with a seat's view (its
    ``legal_actions`` included) and a :class:`random.Random`, and returns one of the legal
    actions (a list or tuple).

    Raises:
        OptionError: the module or file cannot be loaded, it has no such attribute, or the
            attribute is not callable.
    """
    import importlib.util
    from pathlib import Path

    where, _, attr = spec.rpartition(":")
    if not where or not attr:
        raise OptionError(f"strategy {spec!r}: expected module:function or file.py:function")
    try:
        if where.endswith(".py"):
            path = Path(where)
            loader_spec = importlib.util.spec_from_file_location(path.stem, path)
            if loader_spec is None or loader_spec.loader is None or not path.is_file():
                raise FileNotFoundError(f"no file {where}")
            module = importlib.util.module_from_spec(loader_spec)
            loader_spec.loader.exec_module(module)
        else:
            module = importlib.import_module(where)
    except Exception as exc:  # noqa: BLE001 - any failure of the user's module is reported
        raise OptionError(f"strategy {spec!r}: cannot load {where}: "
                          f"{type(exc).__name__}: {exc}") from None
    func = getattr(module, attr, None)
    if not callable(func):
        raise OptionError(f"strategy {spec!r}: {where} has no function {attr!r}")
    return func  # type: ignore[no-any-return]


def strategy(game: str, name: str) -> Strategy:
    """The strategy ``name`` (e.g. ``"random"``, ``"greedy"``) for game ``game``, or a
    user's function when ``name`` is ``"module:function"`` or ``"file.py:function"``
    (:func:`load_strategy`).

    Raises:
        OptionError: the game has no strategy of that name, or the user's function cannot
            be loaded.
    """
    from . import MODULES

    if ":" in name:
        return load_strategy(name)

    table: dict[str, Strategy] = {"random": random_strategy}
    module = MODULES.get(game)
    if module is not None:
        mod = importlib.import_module(f"{__package__}.{module}")
        table.update(getattr(mod, "STRATEGIES", {}))
    try:
        return table[name]
    except KeyError:
        raise OptionError(
            f"no strategy {name!r} for {game}; known: {', '.join(sorted(table))}"
        ) from None
