"""The offline and file tools: ``simulate`` (games between bots, no server), ``schema`` (the
JSON Schemas of every game's view and events), ``backup`` (a copy of a live SQLite data file)
and ``migrate`` (a lobby from one store to another).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from ..games import OptionError, get
from ..games.options import parse_kv
from .options import check_strategy, data_option, game_name

if TYPE_CHECKING:
    from ..server.store.ports import Store


@click.command()
@click.option("--game", default="skipper", show_default=True, callback=game_name,
              help="Game name.")
@click.option("--mode", type=click.Choice(["solo", "multi", "race"]), default=None,
              help="Skipper mode (default solo).")
@click.option("--players", type=click.IntRange(1, 6), default=None,
              help="Seats (default: 1 for solo games, 4 for multi and race).")
@click.option("--games", "n_games", type=click.IntRange(1), default=100, show_default=True)
@click.option("--strategy", "bot", default="greedy", show_default=True,
              help="Bot strategy: random, greedy, expert, or your own function as "
                   "module:function or path/to/file.py:function (called as function(view, "
                   "rng)); or one per seat separated by commas (expert,greedy: seat 0 expert, "
                   "the rest greedy; the lineup turns one seat per game so each strategy sits "
                   "everywhere).")
@click.option("--seed", type=click.IntRange(0), default=1, show_default=True,
              help="Seed of the first game; game k uses seed + k.")
@click.option("--option", "pairs", multiple=True, metavar="K=V", help="Room option (repeat).")
@click.option("--json", "as_json", is_flag=True,
              help="One JSON object per game, then the summary object as the last line.")
def simulate(game: str, mode: str | None, players: int | None, n_games: int, bot: str,
             seed: int, pairs: tuple[str, ...], as_json: bool) -> None:
    """Play GAMES games offline between bots and print a summary (on a terminal, with a
    progress bar: games, and the actions of the game being played)."""
    import time

    from tqdm import tqdm

    from ..games import simulate as sim

    opts = _room_options(mode, pairs, game)
    seats = players or (1 if opts.get("mode", "solo") == "solo" else 4)
    try:
        names = sim.lineup(bot, seats)
    except OptionError as exc:
        raise click.BadParameter(exc.message, param_hint="--strategy") from None
    for name in set(names):
        check_strategy(game, name)
    try:
        get(game)({**opts, "seed": seed}, seats)  # validate before the progress bar
    except OptionError as exc:
        raise click.UsageError(exc.message) from None
    records = []
    bar = tqdm(total=n_games, unit="game", file=sys.stderr, disable=None,
               desc=f"{game} {bot}")
    shown = [0.0]  # when the postfix was last drawn (time.monotonic())

    def step(k: int, actions: int) -> None:
        """Within a game (an expert one takes seconds to minutes): its actions so far,
        drawn at most twice a second."""
        now = time.monotonic()
        if now - shown[0] >= 0.5:
            shown[0] = now
            bar.set_postfix_str(f"game {k + 1}: {actions} actions")

    for rec in sim.run(game, opts, seats, bot, n_games, seed, on_step=step):
        bar.update()
        records.append(rec)
        if as_json:
            click.echo(json.dumps({"game": game, **rec}, sort_keys=True))
    bar.close()
    summary = sim.summarize(records)
    if as_json:
        click.echo(json.dumps({"summary": True, **summary}, sort_keys=True))
        return
    click.echo(f"{game} {opts.get('mode', '')} seats={seats} strategy={bot} "
               f"seeds={seed}..{seed + n_games - 1}")
    for key in ("games", "wins", "win_rate", "mean_turns", "mean_score", "wins_by_seat",
                "outcomes", "reasons", "sales_per_game", "wins_by_strategy", "seats_by_strategy"):
        if summary.get(key) is not None:  # a figure a game does not have is left out
            value = summary[key]
            if isinstance(value, float):
                value = f"{value:.3f}"
            click.echo(f"  {key:<13} {value}")


def _room_options(mode: str | None, pairs: tuple[str, ...], game: str) -> dict[str, Any]:
    """Room options from ``--mode`` and ``--option k=v`` pairs (raises click errors)."""
    try:
        opts: dict[str, Any] = dict(parse_kv(pairs))
        cls = get(game)
    except OptionError as exc:
        raise click.BadParameter(exc.message) from None
    if mode is not None:
        if not cls.modes():
            raise click.BadParameter(f"{game} has no modes", param_hint="--mode")
        opts["mode"] = mode
    return opts


@click.command()
@click.option("--out", type=click.Path(file_okay=False), default="docs/schemas",
              show_default=True, help="Folder of the schema files.")
@click.option("--check", is_flag=True,
              help="Write nothing; exit 1 listing the files that are out of date.")
def schema(out: str, check: bool) -> None:
    """Write the JSON Schemas of every game's view and events (GAME.view.json,
    GAME.event.json), generated from seeded offline playouts of the engines."""
    try:
        from ..server.schema import write_all

        changed = write_all(Path(out), check=check)
    except ImportError as exc:
        raise click.ClickException(
            f"{exc.name} is not installed: pip install -e \".[test]\"") from None
    except OSError as exc:
        raise click.ClickException(f"cannot write {out}: {exc}") from None
    if check and changed:
        raise click.ClickException(f"out of date in {out}: {', '.join(changed)} "
                                   "(run `cardhall schema`)")
    for name in changed:
        click.echo(f"wrote {Path(out) / name}")


@click.command()
@click.argument("dest", type=click.Path(dir_okay=False, path_type=Path))
@data_option("The data file to copy (env CARDHALL_DATA; default: cardhall serve's).")
def backup(dest: Path, data: Path | None) -> None:
    """Copy the SQLite data file to DEST (made 0600; replaced if it exists) with SQLite's
    online backup API: safe while a server runs on the file (the copy is one consistent
    moment of it; the server goes on). Restore: stop the server, put the copy in place of
    the data file (its -wal and -shm files removed), start the server."""
    from ..server.store.sqlite_file import backup as copy_file
    from ..server.store.sqlite_file import default_path
    from ..server.store.ports import StoreError

    source = data or default_path()
    try:
        size = copy_file(source, dest)
    except StoreError as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(f"backed up {source} to {dest} ({size} bytes)")


def _open_store(spec: str, *, source: bool) -> Store:
    """The store of ``migrate``'s ``--from``/``--to``: ``redis://...`` (also ``rediss://``,
    ``unix://``) or the path of a SQLite data file (a source must exist).

    Raises:
        click.ClickException: Redis does not answer; the file is missing (a source), held
            by a server, damaged or of a newer schema.
    """
    from ..server.store.ports import StoreError

    if spec.startswith(("redis://", "rediss://", "unix://")):
        import redis

        from ..server.store.redis_store import RedisStore

        try:
            with redis.Redis.from_url(spec, socket_connect_timeout=5,
                                      socket_timeout=5) as probe:
                probe.ping()
        except (redis.RedisError, ValueError) as exc:
            raise click.ClickException(f"cannot reach Redis at {spec}: {exc}") from None
        return RedisStore(spec)
    path = Path(spec)
    if source and not path.is_file():
        raise click.ClickException(f"no data file at {path}")
    from ..server.store.sqlite_store import SQLiteStore

    try:
        return SQLiteStore(path)
    except StoreError as exc:
        raise click.ClickException(str(exc)) from None


@click.command()
@click.option("--from", "source", required=True, metavar="PATH|URL",
              help="The store to copy from: a SQLite data file, or redis://HOST:PORT/DB.")
@click.option("--to", "target", required=True, metavar="PATH|URL",
              help="The store to copy to: a SQLite data file (made if missing), or "
                   "redis://HOST:PORT/DB.")
@click.option("--finished-ttl", type=click.FloatRange(0), default=300.0, show_default=True,
              help="The target servers' --finished-ttl: finished rooms keep what is left "
                   "of it.")
def migrate(source: str, target: str, finished_ttl: float) -> None:
    """Copy a lobby from one store to another: every room (in play, waiting, finished) with its
    record, state, seat tokens, log and snapshot, every archived game, every account (with its
    seats and games; players sign in again on the target), every rating of rated play (with its
    history) and every leaderboard. A SQLite file
    onto Redis to grow past one process, or back. Stop the servers of the source first (a SQLite
    file is locked while it is read; rooms a live server runs on Redis are refused); rooms the
    target holds already are skipped. Players resume their seats on the target's servers with
    the tokens they have."""
    import asyncio

    from ..server.app import accounts_for
    from ..server.history import KEEP
    from ..server.rated import ratings_for
    from ..server.store.ports import StoreError
    from ..server.store.transfer import copy_store

    async def go() -> dict[str, Any]:
        src = _open_store(source, source=True)
        try:
            dst = _open_store(target, source=False)
            try:
                return await copy_store(src, dst, finished_ttl,
                                        lambda line: click.echo(line, err=True),
                                        (accounts_for(src), accounts_for(dst)), KEEP,
                                        (ratings_for(src), ratings_for(dst)))
            finally:
                await dst.close()
        finally:
            await src.close()

    try:
        done = asyncio.run(go())
    except StoreError as exc:
        raise click.ClickException(f"not migrated: {exc}") from None
    click.echo(f"copied {done['rooms']} rooms ({done['playing']} in play, {done['waiting']} "
               f"waiting, {done['finished']} finished; {done['entries']} log entries), "
               f"{done['archived']} archived games, {done['accounts']} accounts, "
               f"{done['ratings']} ratings ({done['rated_games']} rated games) and "
               f"{done['board_entries']} leaderboard entries "
               f"from {source} to {target}"
               + (f"; {done['skipped']} rooms skipped (in the target already)"
                  if done["skipped"] else ""))
