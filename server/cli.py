"""The ``cardhall`` command line: ``serve``, ``simulate`` and the client commands.

Built on click. Client commands (``bots``, ``play``, ``rooms``) live in
:mod:`cardhall.client` and are imported only when used.
"""

from __future__ import annotations

import json
import sys
from typing import Any

import click

from .games import OptionError, get
from .games.options import parse_kv


def _options(mode: str | None, pairs: tuple[str, ...], game: str) -> dict[str, Any]:
    """Room options from ``--mode`` and ``--option k=v`` pairs (raises click errors)."""
    try:
        opts: dict[str, Any] = dict(parse_kv(pairs))
        cls = get(game)
    except OptionError as exc:
        raise click.BadParameter(exc.message) from None
    if mode is not None:
        if not any(o.name == "mode" for o in cls.OPTIONS):
            raise click.BadParameter(f"{game} has no modes", param_hint="--mode")
        opts["mode"] = mode
    return opts


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="cardhall")
def main() -> None:
    """Cardhall: an open, authoritative card-game server with Skipper and four solo games."""


@main.command()
@click.option("--game", default="skipper", show_default=True, help="Game name.")
@click.option("--mode", type=click.Choice(["solo", "multi", "race"]), default=None,
              help="Skipper mode (default solo).")
@click.option("--players", type=click.IntRange(1, 6), default=None,
              help="Seats (default: 1 for solo games, 4 for multi and race).")
@click.option("--games", "n_games", type=click.IntRange(1), default=100, show_default=True)
@click.option("--strategy", "bot", default="greedy", show_default=True,
              help="Bot strategy: random or greedy.")
@click.option("--seed", type=click.IntRange(0), default=1, show_default=True,
              help="Seed of the first game; game k uses seed + k.")
@click.option("--option", "pairs", multiple=True, metavar="K=V", help="Room option (repeat).")
@click.option("--json", "as_json", is_flag=True,
              help="One JSON object per game, then the summary object as the last line.")
def simulate(game: str, mode: str | None, players: int | None, n_games: int, bot: str,
             seed: int, pairs: tuple[str, ...], as_json: bool) -> None:
    """Play GAMES games offline between bots and print a summary."""
    from tqdm import tqdm

    from .games import simulate as sim
    from .games.bots import strategy

    opts = _options(mode, pairs, game)
    seats = players or (1 if opts.get("mode", "solo") == "solo" else 4)
    try:
        strategy(game, bot)
        get(game)({**opts, "seed": seed}, seats)  # validate before the progress bar
    except OptionError as exc:
        raise click.UsageError(exc.message) from None
    records = []
    bar = tqdm(sim.run(game, opts, seats, bot, n_games, seed), total=n_games, unit="game",
               file=sys.stderr, disable=None, desc=f"{game} {bot}")
    for rec in bar:
        records.append(rec)
        if as_json:
            click.echo(json.dumps({"game": game, **rec}, sort_keys=True))
    summary = sim.summarize(records)
    if as_json:
        click.echo(json.dumps({"summary": True, **summary}, sort_keys=True))
        return
    click.echo(f"{game} {opts.get('mode', '')} seats={seats} strategy={bot} "
               f"seeds={seed}..{seed + n_games - 1}")
    for key in ("games", "wins", "win_rate", "mean_turns", "mean_score", "wins_by_seat",
                "outcomes"):
        if key in summary:
            value = summary[key]
            if isinstance(value, float):
                value = f"{value:.3f}"
            click.echo(f"  {key:<13} {value}")


if __name__ == "__main__":  # pragma: no cover
    main()
