"""The client commands: ``play`` (the terminal client), ``bots`` (bot clients playing games),
``rooms`` (a server's lobby) and ``verify`` (was a finished game dealt fairly, from its record
or fetched from the server). They run :mod:`cardhall.client` against a server; one that
refuses or cannot be reached is one ``Error:`` line (:func:`reaching`).
"""

from __future__ import annotations

import contextlib
import json
import sys
from collections.abc import Callable, Iterator
from typing import Any

import click

from ..games import OptionError
from ..games.options import parse_kv
from .options import LOCAL_URL, WS_URL, check_strategy, game_name


@contextlib.contextmanager
def reaching(url: str) -> Iterator[None]:
    """Run a client command's connection and requests: the one place where a server that
    refuses, or cannot be reached, becomes one ``Error:`` line (exit 1), never a traceback.

    Args:
        url: The server URL the command uses (the first, when it has several).

    Raises:
        click.ClickException: the server refused a request (``server refused: CODE:
            MESSAGE``), the connection could not be opened (``cannot reach URL: WHY``,
            :func:`cardhall.client.reach.explain`) or was lost for good.
    """
    from ..client.client import ConnectionLost, ServerError
    from ..client.reach import CONNECT_ERRORS, explain

    try:
        yield
    except ServerError as exc:
        raise click.ClickException(f"server refused: {exc}") from None
    except ConnectionLost as exc:
        raise click.ClickException(f"lost the connection to {url}: {exc}") from None
    except CONNECT_ERRORS as exc:
        raise click.ClickException(f"cannot reach {url}: {explain(exc, url)}") from None


@click.command()
@click.option("--url", "urls", multiple=True, default=(LOCAL_URL,), show_default=True,
              type=WS_URL, help="Server URL, ws://HOST:PORT (repeat to spread bots over "
              "servers; default: the local server's).")
@click.option("--game", default="skipper", show_default=True, callback=game_name)
@click.option("--mode", type=click.Choice(["solo", "multi", "race"]), default=None)
@click.option("--players", type=click.IntRange(1, 6), default=1, show_default=True)
@click.option("--games", "n_games", type=click.IntRange(1), default=1, show_default=True)
@click.option("--strategy", "bot", default="greedy", show_default=True,
              help="random, greedy, or your own function as module:function or "
                   "path/to/file.py:function (called as function(view, rng)).")
@click.option("--option", "pairs", multiple=True, metavar="K=V", help="Room option (repeat).")
@click.option("--seed", type=int, default=None, help="Seed of the bots' own choices.")
@click.option("--timeout", type=float, default=600.0, show_default=True,
              help="Seconds one game may take.")
@click.option("--json", "as_json", is_flag=True, help="One JSON object per finished game.")
@click.option("--record", "record_dir", type=click.Path(file_okay=False), default=None,
              help="Write each bot's game record to this folder (ROOM-seatK.json), for "
                   "`cardhall verify`.")
@click.option("--join", "room", default=None, metavar="ROOM",
              help="Take PLAYERS free seats in this existing room (its game is looked up in "
                   "the lobby; --game for a private room) instead of creating rooms.")
@click.option("--token", envvar="CARDHALL_TOKEN", default=None, metavar="TOKEN",
              help="Sign every bot in with this access token (env CARDHALL_TOKEN; one "
                   "account holds one seat of a room unless it allows more). Default: a "
                   "guest account per bot.")
@click.option("--rated", is_flag=True, help="Rated games through the server's queue: each "
              "bot a guest account named STRATEGY-SEAT (needs --mode multi or race).")
@click.option("--strategies", default=None, metavar="S1,S2,...",
              help="With --rated: one strategy per seat (default: --strategy for each of "
                   "--players); their count is the table's seat count.")
def bots(urls: tuple[str, ...], game: str, mode: str | None, players: int, n_games: int,
         bot: str, pairs: tuple[str, ...], seed: int | None, timeout: float,
         as_json: bool, record_dir: str | None, room: str | None, token: str | None,
         rated: bool, strategies: str | None) -> None:
    """Play GAMES games with PLAYERS bot clients (each signed in to a guest account of its
    own, or --token) against live servers; exit 0 when all end."""
    import asyncio

    if rated or strategies is not None:
        _rated_bots(urls, game, mode, players, n_games, bot, strategies, seed, timeout,
                    as_json, rated)
        return

    from ..client.bots import play_games
    from ..client.client import Client

    if room is not None:
        if n_games != 1:
            raise click.BadParameter("--join plays exactly one game", param_hint="--games")

        async def lookup() -> str:
            async with Client(list(urls), software="cardhall-bots", reconnect=False) as c:
                listing = await c.list_rooms()
            return next((r["game"] for r in listing if r["room"] == room), game)

        with reaching(urls[0]):
            game = asyncio.run(lookup())

    try:
        opts = dict(parse_kv(pairs))
    except OptionError as exc:
        raise click.BadParameter(exc.message) from None
    check_strategy(game, bot)
    if record_dir is not None:
        import os

        os.makedirs(record_dir, exist_ok=True)

    async def go() -> None:
        from ..client.client import new_device_secret

        guests = [new_device_secret() for _ in range(players)]  # a guest per bot, this run
        for k in range(n_games):
            records = await play_games(list(urls), game, mode, players, 1, bot, opts,
                                       None if seed is None else seed + k, timeout,
                                       record_dir=record_dir, room=room, token=token,
                                       guests=guests)
            rec = {key: v for key, v in records[0].items() if key != "results"}
            if as_json:
                click.echo(json.dumps(rec, sort_keys=True))
            else:
                # only what applies: auctions and skip_draws are Skipper's counters
                counters = "".join(f" {key}={rec[key]}" for key in ("auctions", "skip_draws")
                                   if rec.get(key) is not None)
                winner = "none" if rec["winner"] is None else rec["winner"]
                click.echo(f"game {k + 1}/{n_games}: room {rec['room']} winner={winner} "
                           f"outcome={rec['outcome']} turns={rec['turns']}{counters} "
                           f"state_id={rec['state_id']} {rec['duration_s']}s")

    with reaching(urls[0]):
        asyncio.run(go())


@click.command()
@click.option("--url", default=LOCAL_URL, show_default=True, type=WS_URL,
              help="Server URL, ws://HOST:PORT (default: the local server's).")
@click.option("--name", default=None, help="Your name at the table (default: your account's: "
              "a guest account's is the one the server gives it).")
@click.option("--login", "login", default=None, metavar="USERNAME",
              help="Log in to USERNAME (the password is asked for, or read from "
                   "CARDHALL_PASSWORD); the sign-in is kept for the next time.")
@click.option("--register", default=None, metavar="USERNAME",
              help="Register USERNAME (a guest account you play as is upgraded: it keeps its "
                   "games); the password is asked for twice, or read from CARDHALL_PASSWORD.")
@click.option("--logout", is_flag=True, help="End the kept sign-in (the guest account of "
              "this computer is used next).")
@click.option("--color/--no-color", default=None,
              help="ANSI colours (default: on when the output is a terminal and NO_COLOR is "
                   "not set).")
@click.option("--record", "record_dir", type=click.Path(file_okay=False), default=None,
              help="Write the record of each finished game to this folder (ROOM.json), for "
                   "`cardhall verify`.")
@click.option("--rated", is_flag=True, help="Play rated: wait in the server's queue for a "
              "Skipper multi table first (the lobby's `rated` command).")
@click.option("--ascii/--no-ascii", "ascii_cards", default=None,
              help="Suits as letters (10D) and ASCII only (default: on when the terminal "
                   "cannot print the suit symbols).")
def play(url: str, name: str | None, color: bool | None, record_dir: str | None,
         ascii_cards: bool | None, login: str | None, register: str | None,
         logout: bool, rated: bool) -> None:
    """Play in a terminal: lobby, create/join rooms, numbered actions, turn clocks; signed in
    as this computer's guest account, or --login / --register; the access and seat tokens
    kept in the user's state folder (lobby command m: my games / resume)."""
    import asyncio
    import os

    from ..client.account_file import sign_in_options
    from ..client.terminal import play as run_terminal

    if (login is not None) + (register is not None) + logout > 1:
        raise click.UsageError("give at most one of --login, --register and --logout")
    password = None
    if login is not None or register is not None:
        password = os.environ.get("CARDHALL_PASSWORD") or click.prompt(
            "Password", hide_input=True, confirmation_prompt=register is not None)
    if name is not None and not 1 <= len(name) <= 64:
        raise click.BadParameter("1 to 64 characters", param_hint="--name")
    if color is None:
        color = sys.stdout.isatty() and "NO_COLOR" not in os.environ
    if record_dir is not None:
        os.makedirs(record_dir, exist_ok=True)

    async def go() -> int:
        options = await sign_in_options(url, login=login, register=register,
                                        password=password, logout=logout)
        if logout:
            click.echo("signed out")
            return 0
        return await run_terminal(url, name=name or "", color=color, record_dir=record_dir,
                                  ascii=ascii_cards, rated=rated, **options)

    try:
        with reaching(url):
            status = asyncio.run(go())
    except KeyboardInterrupt:
        raise SystemExit(130) from None
    raise SystemExit(status)


@click.command()
@click.option("--url", default=LOCAL_URL, show_default=True, type=WS_URL,
              help="Server URL, ws://HOST:PORT (default: the local server's).")
@click.option("--game", default=None, help="Only rooms of this game.")
@click.option("--waiting", is_flag=True, help="Only rooms anyone may join now (public, "
              "waiting for players, a free seat).")
@click.option("--json", "as_json", is_flag=True, help="The room list as one JSON array.")
def rooms(url: str, game: str | None, waiting: bool, as_json: bool) -> None:
    """List the lobby of a server: every room, fetched page by page."""
    import asyncio

    from ..client.client import Client

    async def go() -> list[dict[str, Any]]:
        async with Client(url, software="cardhall-rooms", reconnect=False) as c:
            if game is not None:
                known = [g["game"] for g in (await c.list_games())[0]]
                if game not in known:
                    raise click.ClickException(f"unknown game {game!r}; known: "
                                               f"{', '.join(known)}")
            return await c.list_rooms(game, waiting=waiting)

    with reaching(url):
        listing = asyncio.run(go())

    def row(r: dict[str, Any]) -> str:
        access = "private" if r["private"] else "public"
        return (f"{r['room']:<10} {r['game']:<12} {str(r['mode'] or '-'):<6} {seats_taken(r):>7} "
                f"{r['status']:<9} {access:<7} {r['name']}")

    echo_rooms(listing, as_json, f"{'room':<10} {'game':<12} {'mode':<6} {'seats':>7} "
               f"{'status':<9} {'access':<7} name", row)


def seats_taken(room: dict[str, Any]) -> str:
    """A room summary's seats as ``taken/total``."""
    return f"{room['taken']}/{room['seats']}"


def echo_rooms(listing: list[dict[str, Any]], as_json: bool, header: str,
               row: Callable[[dict[str, Any]], str]) -> None:
    """Print a room list (``rooms``, ``admin rooms``): one JSON array when ``as_json``,
    else ``no rooms`` or a table, ``header`` then ``row(room)`` for each room summary."""
    if as_json:
        click.echo(json.dumps(listing, sort_keys=True))
        return
    if not listing:
        click.echo("no rooms")
        return
    click.echo(header)
    for r in listing:
        click.echo(row(r))


@click.command()
@click.argument("record", type=click.Path(exists=True, dir_okay=False), required=False)
@click.option("--url", default=None, type=WS_URL,
              help="Fetch the finished game from this server, "
              "ws://HOST:PORT (with --room), instead of reading a RECORD file.")
@click.option("--room", default=None, help="Room id of the finished game (with --url).")
@click.option("--commitment", default=None, metavar="HEX",
              help="The commitment you saw at the start (with --url; default: the one the "
                   "server reports now, which proves less).")
def verify(record: str | None, url: str | None, room: str | None,
           commitment: str | None) -> None:
    """Check that a finished game was dealt fairly: the revealed seed matches the commitment
    published at the start, the log replays to the announced end, and the player's cards are
    the seed's. RECORD is a game record file (Client.save_game_record, `cardhall bots
    --record DIR`). With --url, a finished game is read from the server's games archive
    after its room is gone; a private game as this computer's `cardhall play` account.
    Exit 0 when the deal is verified, 1 with the reason otherwise."""
    from ..server.fairness import VerificationFailed, verify_record

    if (record is None) == (url is None):
        raise click.UsageError("give a RECORD file, or --url and --room")
    if record is not None:
        try:
            with open(record, encoding="utf-8") as f:
                data = json.load(f)
        except (OSError, ValueError) as exc:
            raise click.ClickException(f"cannot read {record}: {exc}") from None
        if not isinstance(data, dict):
            raise click.ClickException(f"{record} holds no game record")
    else:
        if room is None:
            raise click.UsageError("--url needs --room")
        data = _fetch_record(url or "", room, commitment)
    try:
        verdict = verify_record(data)
    except VerificationFailed as exc:
        click.echo(f"deal NOT verified: {exc.reason}", err=True)
        raise SystemExit(1) from None
    for line in verdict.lines:
        click.echo(f"ok  {line}")
    click.echo(f"deal verified: room {verdict.room} ({verdict.game}), "
               f"{verdict.state_id} actions")


def _fetch_record(url: str, room: str, commitment: str | None) -> dict[str, Any]:
    """A game record of ``room`` built from the server's ``get_log`` (no views: nobody's
    cards are compared; the commitment is ``commitment`` or the server's). Asked
    anonymously first; a room not found (a private game's log is its players' only) is
    asked again signed in as this computer's ``cardhall play`` account, when it keeps one
    for the server."""
    import asyncio

    from .. import protocol as p
    from ..client.account_file import AccountFile, sign_in_options
    from ..client.client import Client, ServerError

    async def fetch(options: dict[str, Any]) -> p.Log:
        async with Client(url, software="cardhall-verify", reconnect=False, **options) as c:
            return await c.fetch_log(room)

    async def go() -> dict[str, Any]:
        try:
            log = await fetch({})
        except ServerError as exc:
            if exc.code != "room/not_found" or not AccountFile().get(url):
                raise
            log = await fetch(await sign_in_options(url))
        return {"format": "cardhall-game-record/1", "url": url, "room": room,
                "game": log.game, "seats": log.seats, "seat": None,
                "commitment": commitment or log.commitment,
                "seed": log.options.get("seed"), "salt": log.salt, "state_id": log.state_id,
                "outcome": dict(log.outcome), "options": dict(log.options),
                "log": list(log.entries), "seen": []}

    with reaching(url):
        return asyncio.run(go())


def _rated_bots(urls: tuple[str, ...], game: str, mode: str | None, players: int,
                n_games: int, bot: str, strategies: str | None, seed: int | None,
                timeout: float, as_json: bool, rated: bool) -> None:
    """``cardhall bots --rated``: :func:`cardhall.client.rated_bots.play_rated_games`.

    Raises:
        click.BadParameter: --strategies without --rated, no rated --mode, an unknown
            strategy, or 1 or more than 4 seats.
    """
    import asyncio

    from ..client.rated_bots import play_rated_games

    if not rated:
        raise click.BadParameter("needs --rated", param_hint="--strategies")
    if mode not in ("multi", "race"):
        raise click.BadParameter("rated games are multi or race", param_hint="--mode")
    names = ([s.strip() for s in strategies.split(",")] if strategies is not None
             else [bot] * players)
    if not 2 <= len(names) <= 4:
        raise click.BadParameter("2 to 4 seats", param_hint="--strategies")
    for name in names:
        check_strategy(game, name)

    async def go() -> None:
        records = await play_rated_games(list(urls), game, mode, names, n_games, seed,
                                         timeout)
        for k, rec in enumerate(records):
            if as_json:
                click.echo(json.dumps(rec, sort_keys=True))
            else:
                winner = rec["names"].get(rec["winner"], "none")
                click.echo(f"game {k + 1}/{n_games}: room {rec['room']} winner={winner} "
                           f"outcome={rec['outcome']} {rec['duration_s']}s")

    with reaching(urls[0]):
        asyncio.run(go())
