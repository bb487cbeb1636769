"""Offline play: run whole games between bots with no server (``cardhall simulate``).

Pure and deterministic: the same arguments give the same records.
"""

from __future__ import annotations

import functools
import random
import re
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from . import get
from .base import outcome_kind
from .bots import strategy
from .errors import OptionError

_NUMBER = re.compile(r"\d+")


def lineup(bot: str, seats: int, game_index: int = 0) -> list[str]:
    """The strategy of each seat for ``bot``: one name for every seat, or comma-separated
    names (``"expert,greedy"``) for seats 0, 1, ... (the last one repeated for the seats
    left), rotated by ``game_index`` so that over ``seats`` consecutive games every
    strategy sits in every seat once (seat ``i`` plays entry ``(i + game_index) % seats``).

    Raises:
        OptionError: more names than seats (a strategy would sit nowhere).
    """
    names = [b.strip() for b in bot.split(",")]
    if len(names) > seats:
        raise OptionError(f"{len(names)} strategies ({bot}) for {seats} seat"
                          f"{'s' if seats != 1 else ''}: give at most one per seat")
    if len(names) == 1:
        return names * seats
    names = (names + [names[-1]] * seats)[:seats]
    return [names[(i + game_index) % seats] for i in range(seats)]


def play_game(game: str, options: Mapping[str, Any], seats: int, bot: str,
              seed: int, max_steps: int = 1_000_000, game_index: int = 0,
              on_step: Callable[[int], None] | None = None) -> dict[str, Any]:
    """Play one game of ``game`` between bots.

    Args:
        game: Registry name, e.g. ``"skipper"``.
        options: Room options (``seed`` is set from ``seed``).
        seats: Seat count.
        bot: Strategy name (``"random"``, ``"greedy"``, ``"expert"``), or names per seat
            separated by commas (see :func:`lineup`).
        seed: Deal number; the bots' own choices use a generator seeded from it too. In
            real-time modes the seat that acts next is drawn from that generator as well.
        max_steps: Safety bound on actions; an engine always ends long before it.
        game_index: The game's number in a series (rotates a lineup, see :func:`lineup`).
        on_step: Called after every action with the number of actions so far in this game
            (a progress display for slow strategies); None: nothing is called.

    Returns:
        ``{"seed", "winner", "outcome", "scores", "steps", "strategies"}`` (the strategy of
        each seat) plus the engine's ``stats()`` (for Skipper: ``turns``, ``auctions``,
        ``sold``, ``skip_draws``, ``trashed``).

    Raises:
        OptionError: unknown game, strategy, option or bad seat count.
        RuntimeError: the game did not end within ``max_steps`` actions (an engine bug).
    """
    cls = get(game)
    names = lineup(bot, seats, game_index)
    chooser = {name: strategy(game, name) for name in set(names)}
    choose = [chooser[name] for name in names]
    g = cls({**options, "seed": seed}, seats)
    rng = random.Random(seed)
    steps = 0
    while not g.over:
        acting = g.to_act()
        seat = acting[0] if len(acting) == 1 else acting[rng.randrange(len(acting))]
        g.apply(seat, choose[seat](g.bot_view(seat), rng))
        steps += 1
        if on_step is not None:
            on_step(steps)
        if steps >= max_steps:
            raise RuntimeError(f"{game} seed {seed} did not end in {max_steps} actions")
    out = g.outcome() or {}
    return {"seed": seed, "winner": out.get("winner"), "outcome": out.get("reason"),
            "scores": out.get("scores"), "steps": steps, "strategies": names, **g.stats()}


def run(game: str, options: Mapping[str, Any], seats: int, bot: str, games: int,
        seed: int, on_step: Callable[[int, int], None] | None = None
        ) -> Iterator[dict[str, Any]]:
    """Yield the records of ``games`` games with seeds ``seed, seed + 1, ...``.

    Args:
        on_step: Called after every action as ``on_step(game_index, actions)`` (see
            :func:`play_game`); None: nothing is called.

    Raises:
        OptionError: as :func:`play_game`.
    """
    for k in range(games):
        step = None if on_step is None else functools.partial(on_step, k)
        yield play_game(game, options, seats, bot, seed + k, game_index=k, on_step=step)


def summarize(records: list[dict[str, Any]]) -> dict[str, Any]:
    """Summary of game records: ``games``, ``wins`` (games with a winner), ``win_rate``,
    ``wins_by_seat``, ``mean_turns`` (only when every record counts turns), ``outcomes``
    (games per outcome kind: won, lost, limit, abandoned; see :func:`.base.outcome_kind`),
    ``reasons`` (games per engine reason, numbers written ``N``: "scored N points, more than
    N" is one bucket, not one per score), when every record has one score ``mean_score``,
    when records count auction sales ``sales_per_game``, and when seats played different
    strategies ``wins_by_strategy`` (games won by a seat of each strategy) and
    ``seats_by_strategy`` (seats each strategy held over all games)."""
    n = len(records)
    wins = [r["winner"] for r in records if r["winner"] is not None]
    by_seat: dict[str, int] = {}
    for w in wins:
        by_seat[str(w)] = by_seat.get(str(w), 0) + 1
    outcomes: dict[str, int] = {}
    reasons: dict[str, int] = {}
    for r in records:
        kind = outcome_kind({"winner": r["winner"], "reason": r["outcome"]})
        outcomes[kind] = outcomes.get(kind, 0) + 1
        reason = _NUMBER.sub("N", str(r["outcome"]))
        reasons[reason] = reasons.get(reason, 0) + 1
    turns = [r["turns"] for r in records if isinstance(r.get("turns"), int)]
    summary: dict[str, Any] = {
        "games": n, "wins": len(wins), "win_rate": len(wins) / n if n else 0.0,
        "wins_by_seat": by_seat,
        "outcomes": outcomes,
        "reasons": reasons,
    }
    if turns and len(turns) == n:  # a game without turns (ShuffleJack) has no mean
        summary["mean_turns"] = sum(turns) / n
    sold = [r["sold"] for r in records if "sold" in r]
    if sold and len(sold) == n:
        summary["sales_per_game"] = sum(sold) / n
    if any(len(set(r.get("strategies") or ())) > 1 for r in records):
        won: dict[str, int] = {}
        held: dict[str, int] = {}
        for r in records:
            for name in r["strategies"]:
                held[name] = held.get(name, 0) + 1
                won.setdefault(name, 0)
            if r["winner"] is not None:
                name = r["strategies"][r["winner"]]
                won[name] = won.get(name, 0) + 1
        summary["wins_by_strategy"] = won
        summary["seats_by_strategy"] = held
    scores = [r["scores"][0] for r in records if r.get("scores") and len(r["scores"]) == 1]
    if scores and len(scores) == n:
        summary["mean_score"] = sum(scores) / n
    return summary
