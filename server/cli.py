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
        if not cls.modes():
            raise click.BadParameter(f"{game} has no modes", param_hint="--mode")
        opts["mode"] = mode
    return opts


def _limits(opts: dict[str, Any]) -> dict[str, Any]:
    """Settings from the limit/TLS options of ``serve`` (0 means "no limit")."""
    out = dict(opts)
    for key in ("msg_rate", "max_connections_per_address", "rooms_per_minute", "gc_threshold"):
        if not out[key]:
            out[key] = None
    out["origins"] = tuple(out["origins"]) or None
    return out


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="cardhall")
def main() -> None:
    """Cardhall: an open, authoritative card-game server with Skipper and four solo games."""


@main.command()
@click.option("--host", default="127.0.0.1", show_default=True, help="Interface to listen on.")
@click.option("--port", type=click.IntRange(0, 65535), default=8765, show_default=True,
              help="TCP port (0: any free port).")
@click.option("--max-frame", type=click.IntRange(256), default=64 * 1024, show_default=True,
              help="Largest frame accepted from a client, in bytes.")
@click.option("--log-level", default="INFO", show_default=True,
              type=click.Choice(["DEBUG", "INFO", "WARNING", "ERROR"]))
@click.option("--redis-url", envvar="CARDHALL_REDIS_URL", default=None, metavar="URL",
              help="redis://HOST:PORT/DB: keep rooms in Redis, shared with every server "
                   "using the same URL (env CARDHALL_REDIS_URL). Default: embedded store.")
@click.option("--lease-seconds", type=click.FloatRange(0.1), default=3.0, show_default=True,
              help="With --redis-url: room lease length; a dead server's rooms are taken "
                   "over this long (plus a scan) after its death. Same on every server.")
@click.option("--log-format", type=click.Choice(["kv", "json"]), default="kv",
              show_default=True, help="One line per event: key=value pairs or JSON objects.")
@click.option("--certfile", type=click.Path(exists=True, dir_okay=False), default=None,
              help="PEM certificate chain: serve wss:// (TLS) instead of ws://.")
@click.option("--keyfile", type=click.Path(exists=True, dir_okay=False), default=None,
              help="PEM private key of --certfile (default: inside --certfile).")
@click.option("--origin", "origins", multiple=True, metavar="URL",
              help="Allowed browser origin, e.g. https://cards.example (repeat; default: any). "
                   "Clients sending no Origin header (bots) are always allowed.")
@click.option("--msg-rate", type=click.FloatRange(0), default=100.0, show_default=True,
              help="Messages per second one connection may send, sustained (0: no limit).")
@click.option("--msg-burst", type=click.IntRange(1), default=200, show_default=True,
              help="Messages one connection may send at once (token-bucket size).")
@click.option("--max-connections-per-address", type=click.IntRange(0), default=64,
              show_default=True, help="Open connections per client IP address (0: no limit).")
@click.option("--rooms-per-minute", type=click.IntRange(0), default=10, show_default=True,
              help="Rooms one connection may create per minute (0: no limit).")
@click.option("--max-rooms", type=click.IntRange(1), default=10_000, show_default=True,
              help="Rooms this process hosts at most.")
@click.option("--max-pending-bytes", type=click.IntRange(1024), default=1024 * 1024,
              show_default=True, help="Bytes queued for one client before it is dropped (4009).")
@click.option("--hello-timeout", type=click.FloatRange(0, min_open=True), default=10.0,
              show_default=True, help="Seconds a new connection has to complete the hello.")
@click.option("--finished-ttl", type=click.FloatRange(0), default=300.0, show_default=True,
              help="Seconds a finished room stays listed before it is removed.")
@click.option("--gc-threshold", type=click.IntRange(0), default=50_000, show_default=True,
              help="Allocations between young-generation garbage collections (0: Python's "
                   "default, 700).")
def serve(host: str, port: int, max_frame: int, log_level: str, redis_url: str | None,
          lease_seconds: float, **limits: Any) -> None:
    """Run a Cardhall server until SIGINT/SIGTERM (embedded store unless --redis-url)."""
    from .app import run
    from .config import Settings
    from .logs import configure

    configure(log_level, limits.pop("log_format"))
    store = None
    if redis_url:
        from .redis_store import RedisStore

        store = RedisStore(redis_url, lease_seconds=lease_seconds)
    run(Settings(host=host, port=port, max_frame=max_frame, **_limits(limits)), store)


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


@main.command()
@click.option("--url", "urls", multiple=True, required=True,
              help="Server URL, ws://HOST:PORT (repeat to spread bots over servers).")
@click.option("--game", default="skipper", show_default=True)
@click.option("--mode", type=click.Choice(["solo", "multi", "race"]), default=None)
@click.option("--players", type=click.IntRange(1, 6), default=1, show_default=True)
@click.option("--games", "n_games", type=click.IntRange(1), default=1, show_default=True)
@click.option("--strategy", "bot", default="greedy", show_default=True)
@click.option("--option", "pairs", multiple=True, metavar="K=V", help="Room option (repeat).")
@click.option("--seed", type=int, default=None, help="Seed of the bots' own choices.")
@click.option("--timeout", type=float, default=600.0, show_default=True,
              help="Seconds one game may take.")
@click.option("--json", "as_json", is_flag=True, help="One JSON object per finished game.")
def bots(urls: tuple[str, ...], game: str, mode: str | None, players: int, n_games: int,
         bot: str, pairs: tuple[str, ...], seed: int | None, timeout: float,
         as_json: bool) -> None:
    """Play GAMES games with PLAYERS bot clients against live servers; exit 0 when all end."""
    import asyncio

    from ..client.bots import play_games
    from ..client.client import ServerError

    try:
        opts = dict(parse_kv(pairs))
    except OptionError as exc:
        raise click.BadParameter(exc.message) from None

    async def go() -> None:
        for k in range(n_games):
            records = await play_games(list(urls), game, mode, players, 1, bot, opts,
                                       None if seed is None else seed + k, timeout)
            rec = {key: v for key, v in records[0].items() if key != "results"}
            if as_json:
                click.echo(json.dumps(rec, sort_keys=True))
            else:
                click.echo(f"game {k + 1}/{n_games}: room {rec['room']} winner={rec['winner']} "
                           f"outcome={rec['outcome']} turns={rec['turns']} "
                           f"auctions={rec['auctions']} skip_draws={rec['skip_draws']} "
                           f"state_id={rec['state_id']} {rec['duration_s']}s")

    try:
        asyncio.run(go())
    except ServerError as exc:
        raise click.ClickException(f"server refused: {exc}") from None
    except (OSError, TimeoutError) as exc:
        raise click.ClickException(f"{type(exc).__name__}: {exc}") from None


@main.command()
@click.option("--url", required=True, help="Server URL, ws://HOST:PORT.")
@click.option("--name", default=None, help="Your name at the table (default: your login).")
@click.option("--color/--no-color", default=None,
              help="ANSI colours (default: on when the output is a terminal and NO_COLOR is "
                   "not set).")
def play(url: str, name: str | None, color: bool | None) -> None:
    """Play in a terminal: lobby, create/join rooms, numbered actions, turn clocks."""
    import asyncio
    import getpass
    import os

    from websockets.exceptions import WebSocketException

    from ..client.client import ServerError
    from ..client.terminal import play as run_terminal

    if name is None:
        try:
            name = getpass.getuser() or "player"
        except (OSError, KeyError):
            name = "player"
    if not 1 <= len(name) <= 64:
        raise click.BadParameter("1 to 64 characters", param_hint="--name")
    if color is None:
        color = sys.stdout.isatty() and "NO_COLOR" not in os.environ
    try:
        status = asyncio.run(run_terminal(url, name=name, color=color))
    except KeyboardInterrupt:
        raise SystemExit(130) from None
    except ServerError as exc:
        raise click.ClickException(f"server refused: {exc}") from None
    except (OSError, TimeoutError, WebSocketException) as exc:
        raise click.ClickException(f"cannot reach {url}: {exc}") from None
    raise SystemExit(status)


@main.command()
@click.option("--url", required=True, help="Server URL, ws://HOST:PORT.")
@click.option("--game", default=None, help="Only rooms of this game.")
@click.option("--json", "as_json", is_flag=True, help="The room list as one JSON array.")
def rooms(url: str, game: str | None, as_json: bool) -> None:
    """List the lobby of a server."""
    import asyncio

    from ..client.client import Client

    async def go() -> list[dict[str, Any]]:
        async with Client(url, name="cardhall-rooms", reconnect=False) as c:
            return await c.list_rooms(game)

    try:
        listing = asyncio.run(go())
    except OSError as exc:
        raise click.ClickException(f"cannot reach {url}: {exc}") from None
    if as_json:
        click.echo(json.dumps(listing, sort_keys=True))
        return
    if not listing:
        click.echo("no rooms")
        return
    click.echo(f"{'room':<10} {'game':<12} {'mode':<6} {'seats':>7} {'status':<9} {'access':<7} name")
    for r in listing:
        seats = f"{r['taken']}/{r['seats']}"
        access = "private" if r["private"] else "public"
        click.echo(f"{r['room']:<10} {r['game']:<12} {str(r['mode'] or '-'):<6} {seats:>7} "
                   f"{r['status']:<9} {access:<7} {r['name']}")


@main.command()
@click.option("--rooms", type=click.IntRange(1), default=100, show_default=True,
              help="Active Skipper multi rooms (4 connections each) under load.")
@click.option("--rate", type=click.FloatRange(0, min_open=True), default=200.0,
              show_default=True,
              help="Actions/s over all rooms in the latency phase (paced, same on both servers; "
                   "keep it well below the closed-loop actions/s).")
@click.option("--seconds", type=click.FloatRange(0.5), default=8.0, show_default=True,
              help="Measured seconds of each phase (latency, throughput), per server.")
@click.option("--warmup", type=click.FloatRange(0), default=2.0, show_default=True,
              help="Seconds of load before each measured phase (split over its rounds).")
@click.option("--rounds", type=click.IntRange(1), default=8, show_default=True,
              help="Windows that Cardhall (in memory) and the echo baseline take in turn, "
                   "per phase, so that drift in machine speed touches both alike.")
@click.option("--idle", type=click.IntRange(0), default=2000, show_default=True,
              help="Idle connections for the memory figure (0: skip; 10000 checks the target).")
@click.option("--redis", "redis_mode", type=click.Choice(["auto", "off"]), default="auto",
              show_default=True,
              help="auto: start a redis-server (append-only) when one is on PATH.")
@click.option("--redis-url", default=None, metavar="URL",
              help="Use this running Redis for the Redis mode instead of starting one.")
@click.option("--url", default=None, metavar="URL",
              help="Bench a running Cardhall server (its limits must allow the load).")
@click.option("--server-pid", type=int, default=None,
              help="Process id of the server at --url (for its CPU and RSS figures).")
@click.option("--seed", type=int, default=1, show_default=True)
@click.option("--pin/--no-pin", default=True, show_default=True,
              help="Run the server under test on one CPU and the load generator on another "
                   "(Linux, 2+ CPUs; not with --url).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object, no table.")
@click.option("--logdir", type=click.Path(file_okay=False), default=None,
              help="Keep the servers' logs in this folder.")
def bench(rooms: int, rate: float, seconds: float, warmup: float, rounds: int, idle: int,
          redis_mode: str,
          redis_url: str | None, url: str | None, server_pid: int | None, seed: int,
          pin: bool, as_json: bool, logdir: str | None) -> None:
    """Latency, throughput and memory of a live server, against a raw websockets echo server.

    Starts the servers in their own processes on 127.0.0.1 (in-memory store, Redis store,
    echo baseline) and drives them from this process; see benchmarks/README.md.
    """
    from pathlib import Path

    from .bench import BenchConfig, render, run, to_json

    cfg = BenchConfig(rooms=rooms, rate=rate, warmup=warmup, latency_seconds=seconds,
                      throughput_seconds=seconds, idle=idle, redis=redis_url or redis_mode,
                      url=url, server_pid=server_pid, seed=seed, rounds=rounds, pin=pin)
    if logdir is not None:
        Path(logdir).mkdir(parents=True, exist_ok=True)
    try:
        result = run(cfg, None if as_json else lambda m: click.echo(f".. {m}", err=True),
                     Path(logdir) if logdir else None)
    except (OSError, RuntimeError, TimeoutError) as exc:
        raise click.ClickException(f"{type(exc).__name__}: {exc}") from None
    click.echo(to_json(result) if as_json else render(result))


if __name__ == "__main__":  # pragma: no cover
    main()
