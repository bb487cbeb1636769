"""JSON Schemas of every game's view and events, for bot programmers (``cardhall schema``).

The schemas are generated from the engines themselves: a fixed set of seeded playouts per
game (every mode and option set listed in :data:`CONFIGS`, random and greedy bots) is played
offline, and every seat's view, the spectator's view and every event seen is fed to
`GenSON <https://pypi.org/project/genson/>`_, which writes the JSON Schema (draft 2020-12
keywords) that all of them satisfy. The same seeds give the same schemas, so a test can
check that the files in ``docs/schemas/`` are up to date.

Views and events are JSON-normalised first (tuples become arrays; map keys become strings:
over MessagePack a table by seat number may have ``int`` keys, see protocol/README.md "Game
data"). Files, per game ``G``: ``G.view.json`` (one seat's view, as in an ``update``'s
``view``) and ``G.event.json`` (one element of an ``update``'s ``events``; one branch per
event ``type``).
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from ..games import create, names
from ..games.bots import strategy

DRAFT = "https://json-schema.org/draft/2020-12/schema"
#: Playouts per configuration and strategy.
GAMES = 4
#: Views are sampled after every VIEW_EVERY-th action (events: after every action).
VIEW_EVERY = 3
#: Actions per playout at most (a random Shop bot plays to the 2000-move limit).
MAX_STEPS = 600
#: ``(game, seats, options)`` played for the schemas: every mode and every option that adds
#: keys to a view. Seeds are 1..GAMES (tests validate playouts of other seeds).
CONFIGS: tuple[tuple[str, int, dict[str, Any]], ...] = (
    ("skipper", 1, {"mode": "solo"}),
    ("skipper", 1, {"mode": "solo", "turn_limit": 10}),
    ("skipper", 3, {"mode": "multi"}),
    ("skipper", 4, {"mode": "multi", "skip_draws": True}),
    ("skipper", 2, {"mode": "race"}),
    ("skipper", 3, {"mode": "race", "skip_draws": True}),
    ("shop", 1, {}),
    ("shop", 1, {"shortcut": False, "shelves": 2}),
    ("shop", 1, {"max_moves": 60}),  # reaches the move limit
    ("shah", 1, {}),
    ("shah", 1, {"max_moves": 60}),
    ("thirtysix", 1, {}),
    ("thirtysix", 1, {"baltimore": True}),
    ("thirtysix", 1, {"row_of_four": True, "surrender_lowest": True}),
    ("shufflejack", 1, {}),
)


def to_json(value: Any) -> Any:
    """``value`` as it reads after a JSON round trip (tuples -> lists, keys -> strings).

    Raises:
        TypeError: a value JSON cannot hold (bytes, say).
    """
    return json.loads(json.dumps(value))


def playout(game: str, seats: int, options: Mapping[str, Any], bot: str,
            seed: int) -> Iterator[tuple[str, Any]]:
    """Play one game offline (at most ``MAX_STEPS`` actions) and yield ``("event", e)`` for
    every event and ``("view", v)`` for every seat's view and the spectator's view at the
    start, after each of the first ``VIEW_EVERY`` actions, after every ``VIEW_EVERY``-th and
    at the end, JSON-normalised.

    Raises:
        OptionError: unknown game, option or strategy.
    """
    g = create(game, {**options, "seed": seed}, seats)
    choose = strategy(game, bot)
    rng = random.Random(seed)
    audience: list[int | None] = [*range(seats), None]
    for view in g.views(audience).values():
        yield "view", to_json(view)
    steps = 0
    while not g.over and steps < MAX_STEPS:
        acting = g.to_act()
        seat = acting[rng.randrange(len(acting))]
        for event in g.apply(seat, choose(g.bot_view(seat), rng)):
            yield "event", to_json(event)
        steps += 1
        if g.over or steps % VIEW_EVERY == 0 or steps < VIEW_EVERY:
            for view in g.views(audience).values():
                yield "view", to_json(view)


def samples(game: str, seeds: range, configs: tuple[tuple[str, int, dict[str, Any]], ...]
            = CONFIGS) -> Iterator[tuple[str, Any]]:
    """Every view and event of the playouts of ``game`` in ``configs`` with ``seeds``,
    random and greedy bots (see :func:`playout`)."""
    for name, seats, options in configs:
        if name != game:
            continue
        for bot in ("random", "greedy"):
            for seed in seeds:
                yield from playout(game, seats, options, bot, seed)


def generate(game: str) -> dict[str, dict[str, Any]]:
    """The schemas of ``game``: ``{"view": schema, "event": schema}``.

    Raises:
        ImportError: genson is not installed (``pip install -e ".[test]"``).
        OptionError: unknown game.
    """
    from genson import SchemaBuilder

    view = SchemaBuilder(schema_uri=None)
    by_type: dict[str, Any] = {}
    for kind, value in samples(game, range(1, GAMES + 1)):
        if kind == "view":
            view.add_object(value)
        else:
            by_type.setdefault(value["type"], SchemaBuilder(schema_uri=None)).add_object(value)
    branches = []
    for etype in sorted(by_type):
        branch = by_type[etype].to_schema()
        branch["properties"]["type"] = {"const": etype}
        branches.append(branch)
    title = f"Cardhall {game}"
    return {
        "view": {"$schema": DRAFT, "title": f"{title}: one seat's view", **view.to_schema()},
        "event": {"$schema": DRAFT, "title": f"{title}: one event of an update",
                  "type": "object", "required": ["type"], "oneOf": branches},
    }


def render(schema: Mapping[str, Any]) -> str:
    """The file text of ``schema``: sorted keys, one-space indent, a final newline."""
    return json.dumps(schema, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def write_all(out: Path, check: bool = False) -> list[str]:
    """Write (or, with ``check``, compare) ``out/<game>.view.json`` and
    ``out/<game>.event.json`` for every game.

    Returns:
        The file names that were written, or that differ from what would be written.

    Raises:
        ImportError: genson is not installed.
        OSError: a file cannot be written.
    """
    changed = []
    for game in names():
        for kind, schema in generate(game).items():
            path = out / f"{game}.{kind}.json"
            text = render(schema)
            old = path.read_text(encoding="utf-8") if path.is_file() else None
            if old != text:
                changed.append(path.name)
                if not check:
                    out.mkdir(parents=True, exist_ok=True)
                    path.write_text(text, encoding="utf-8")
    return changed
