"""The ``cardhall`` command line: ``serve``, ``simulate`` and the client commands.

Built on click. Client commands (``bots``, ``play``, ``rooms``) live in
:mod:`cardhall.client` and are imported only when used.
"""

from __future__ import annotations

import contextlib
import json
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from ..games import OptionError, get
from ..games.options import parse_kv
from .cli_accounts import add_account_commands, auth_options, check_auth_options

if TYPE_CHECKING:
    from urllib.parse import SplitResult

    from .sqlite_store import SQLiteStore
    from .store import Store


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


class WsUrl(click.ParamType[str]):
    """A server URL, ``ws://HOST:PORT`` or ``wss://HOST:PORT`` (checked by websockets' own
    parser); anything else is refused with a usage error (exit 2)."""

    name = "URL"

    def convert(self, value: Any, param: click.Parameter | None,
                ctx: click.Context | None) -> str:
        """The URL unchanged when websockets accepts it.

        Raises:
            click.BadParameter: no ``ws://``/``wss://`` scheme, or no host.
        """
        from websockets.exceptions import InvalidURI
        from websockets.uri import parse_uri

        try:
            parse_uri(str(value))
        except InvalidURI as exc:
            self.fail(f"{value!r} is not a server URL like ws://HOST:PORT ({exc})", param, ctx)
        return str(value)


WS_URL = WsUrl()


@contextlib.contextmanager
def _reaching(url: str) -> Iterator[None]:
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


def _game(ctx: click.Context, param: click.Parameter, value: str) -> str:
    """Click callback: ``value`` is the name of an available game.

    Raises:
        click.BadParameter: no game of that name.
    """
    try:
        get(value)
    except OptionError as exc:
        raise click.BadParameter(exc.message) from None
    return value


def _strategy(game: str, bot: str) -> None:
    """Check that ``game`` has the strategy ``bot`` (a name or ``module:function``).

    Raises:
        click.BadParameter: it has not, or the function cannot be loaded.
    """
    from ..games.bots import strategy

    try:
        strategy(game, bot)
    except OptionError as exc:
        raise click.BadParameter(exc.message, param_hint="--strategy") from None


def _redis_url(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """Click callback: ``value`` is a URL redis-py accepts (``redis://``, ``rediss://``,
    ``unix://``), or None.

    Raises:
        click.BadParameter: redis-py's parser refuses it.
    """
    if value:
        from redis.connection import parse_url

        try:
            parse_url(value)  # type: ignore[no-untyped-call]  # unannotated in redis-py
        except ValueError as exc:
            raise click.BadParameter(f"{value!r}: {exc}") from None
    return value


def _redis_nodes(ctx: click.Context, param: click.Parameter,
                 value: tuple[str, ...]) -> tuple[tuple[str, int], ...]:
    """Click callback: each value is ``HOST:PORT``.

    Raises:
        click.BadParameter: a value is not.
    """
    from .redis_topology import parse_node

    try:
        return tuple(parse_node(v) for v in value)
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from None


def redis_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """The Redis connection options of ``serve`` (gathered by :func:`_redis_target`)."""
    options = [
        click.option("--redis-url", envvar="CARDHALL_REDIS_URL", default=None, metavar="URL",
                     callback=_redis_url,
                     help="redis://HOST:PORT/DB (rediss:// for TLS): keep rooms in this lone "
                          "Redis, shared with every server using it (env CARDHALL_REDIS_URL). "
                          "Default: the --data file (SQLite)."),
        click.option("--redis-sentinel", multiple=True, metavar="HOST:PORT",
                     callback=_redis_nodes, envvar="CARDHALL_REDIS_SENTINEL",
                     help="A Sentinel watching the master (repeat for each): rooms live in "
                          "the master it names, found again after a failover."),
        click.option("--redis-service", default="cardhall", show_default=True,
                     metavar="NAME", help="With --redis-sentinel: the master's name."),
        click.option("--redis-db", type=click.IntRange(0), default=0, show_default=True,
                     help="With --redis-sentinel: the database number."),
        click.option("--redis-cluster", multiple=True, metavar="HOST:PORT",
                     callback=_redis_nodes, envvar="CARDHALL_REDIS_CLUSTER",
                     help="A Redis Cluster node (repeat for more seeds): rooms spread over "
                          "its masters."),
        click.option("--redis-username", default=None, metavar="NAME",
                     help="Redis ACL user (default: the URL's, else 'default')."),
        click.option("--redis-password-file", type=click.File("r"), default=None,
                     help="Read the Redis password from this file (first line); a URL's own "
                          "password wins."),
        click.option("--redis-sentinel-password-file", type=click.File("r"), default=None,
                     help="Read the Sentinels' own password from this file (first line)."),
        click.option("--redis-tls", is_flag=True,
                     help="TLS to the Sentinel or Cluster nodes (a URL: use rediss://)."),
        click.option("--redis-tls-ca-file", type=click.Path(exists=True, dir_okay=False),
                     default=None, help="PEM file of the CAs that sign the Redis nodes' "
                                        "certificates (default: the system's)."),
        click.option("--redis-min-replicas", type=click.IntRange(0), default=None,
                     help="Replicas that must confirm an action (WAIT) before it is "
                          "acknowledged, at least (every replica in sync with the master "
                          "must). Default: 1 with Sentinel or Cluster, 0 with a URL."),
        click.option("--redis-wait-timeout", type=click.FloatRange(0.001, 1.5),
                     default=0.5, show_default=True,
                     help="Seconds WAIT waits for the replicas; fewer in time: the action is "
                          "refused with server/unavailable."),
    ]
    for option in reversed(options):
        command = option(command)
    return command


def _first_line(handle: Any, hint: str) -> str:
    """The first line of an open file, stripped.

    Raises:
        click.BadParameter: it is empty.
    """
    line = (handle.readline() or "").strip()
    if not line:
        raise click.BadParameter("the file holds no password", param_hint=hint)
    return line


def _redis_target(opts: dict[str, Any]) -> Any:
    """Pop the :func:`redis_options` out of ``opts``: a
    :class:`~cardhall.server.redis_topology.RedisTarget`, or None without Redis (the SQLite
    or memory store: ``--store``).

    Raises:
        click.UsageError: more than one form, or options that do not fit the form.
    """
    from .redis_topology import RedisTarget

    url, sentinels = opts.pop("redis_url"), opts.pop("redis_sentinel")
    cluster, service, db = opts.pop("redis_cluster"), opts.pop("redis_service"), opts.pop(
        "redis_db")
    password_file = opts.pop("redis_password_file")
    sentinel_file = opts.pop("redis_sentinel_password_file")
    tls, ca_file = opts.pop("redis_tls"), opts.pop("redis_tls_ca_file")
    username = opts.pop("redis_username")
    if not (url or sentinels or cluster):
        return None
    if db and not sentinels:
        raise click.UsageError("--redis-db goes with --redis-sentinel (a URL names its "
                               "database: redis://HOST:PORT/DB; a Cluster has only 0)")
    try:
        return RedisTarget(
            url=url or None, sentinels=sentinels, service=service, cluster=cluster, db=db,
            username=username,
            password=_first_line(password_file, "--redis-password-file")
            if password_file else None,
            sentinel_password=_first_line(sentinel_file, "--redis-sentinel-password-file")
            if sentinel_file else None,
            tls=tls, tls_ca_file=ca_file)
    except ValueError as exc:
        raise click.UsageError(f"{exc} (--redis-url, --redis-sentinel, --redis-cluster)"
                               ) from None


def _http_url_parts(value: str) -> SplitResult | None:
    """``value`` split by :func:`urllib.parse.urlsplit` when it is an ``http://`` or
    ``https://`` URL with a host and a valid port (if any); None otherwise. What may follow
    the host is for the caller to check."""
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(value)
        parts.port  # noqa: B018 - raises ValueError on a bad port
    except ValueError:
        return None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return None
    return parts


def _origins(ctx: click.Context, param: click.Parameter,
             value: tuple[str, ...]) -> tuple[str, ...]:
    """Click callback: each value is a browser origin, ``http(s)://HOST[:PORT]`` with no
    path, query or fragment (the form browsers send in the ``Origin`` header).

    Raises:
        click.BadParameter: a value is not of that form.
    """
    for origin in value:
        parts = _http_url_parts(origin)
        if parts is None or parts.path or parts.query or parts.fragment or parts.username:
            raise click.BadParameter(
                f"{origin!r} is not an origin like https://cards.example[:PORT]")
    return value


def _sqlite_store(data: Path | None, fsync: str) -> SQLiteStore:
    """The SQLite store on ``data`` (None: the default path), opened (locked, checked,
    migrated) before anything listens.

    Raises:
        click.ClickException: the file is held by another process, unreadable, damaged, or
            of a newer schema (one ``Error:`` line saying what to do).
    """
    from .sqlite_file import default_path
    from .sqlite_store import SQLiteStore
    from .store import StoreError

    try:
        return SQLiteStore(data or default_path(), fsync=fsync)
    except StoreError as exc:
        raise click.ClickException(str(exc)) from None


def _limits(opts: dict[str, Any]) -> dict[str, Any]:
    """Settings from the limit/TLS options of ``serve`` (0 means "no limit")."""
    out = dict(opts)
    for key in ("msg_rate", "max_connections_per_address", "rooms_per_minute", "gc_threshold",
                "max_connections", "rooms_per_minute_per_address", "empty_room_ttl"):
        if not out[key]:
            out[key] = None
    out["origins"] = tuple(out["origins"]) or None
    out["trusted_proxies"] = tuple(out["trusted_proxies"])
    return out


def _version(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    """``--version``: the version and the build (compiled or pure Python; :mod:`.build`)."""
    if not value or ctx.resilient_parsing:
        return
    from importlib.metadata import version

    from . import build

    click.echo(f"cardhall, version {version('cardhall')} ({build.describe()})")
    ctx.exit()


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--version", is_flag=True, expose_value=False, is_eager=True, callback=_version,
              help="Show the version and the build (compiled or pure Python), then exit.")
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
@redis_options
@click.option("--store", "store_kind", type=click.Choice(["sqlite", "memory"]), default=None,
              help="Without Redis: sqlite (the default) keeps rooms, logs and "
                   "leaderboards in the --data file, so a restart loses nothing; memory "
                   "keeps them in this process only (tests, benchmarks).")
@click.option("--data", type=click.Path(dir_okay=False, path_type=Path), envvar="CARDHALL_DATA",
              default=None, metavar="PATH",
              help="The SQLite data file (env CARDHALL_DATA; default: "
                   "$XDG_DATA_HOME/cardhall/cardhall.db, else "
                   "~/.local/share/cardhall/cardhall.db; made 0600). One process at a time.")
@click.option("--fsync", type=click.Choice(["normal", "always"]), default="normal",
              show_default=True,
              help="SQLite store: normal: an answered action survives a crash of the process "
                   "(kill -9); always: a power loss too (every commit waits for the disk).")
@click.option("--lease-seconds", type=click.FloatRange(0.1), default=3.0, show_default=True,
              help="With Redis: room lease length; a dead server's rooms are taken "
                   "over this long (plus a scan) after its death. Same on every server.")
@click.option("--log-format", type=click.Choice(["kv", "json"]), default="kv",
              show_default=True, help="One line per event: key=value pairs or JSON objects.")
@click.option("--certfile", type=click.Path(exists=True, dir_okay=False), default=None,
              help="PEM certificate chain: serve wss:// (TLS) instead of ws://.")
@click.option("--keyfile", type=click.Path(exists=True, dir_okay=False), default=None,
              help="PEM private key of --certfile (default: inside --certfile).")
@click.option("--origin", "origins", multiple=True, metavar="URL", callback=_origins,
              help="Allowed browser origin, e.g. https://cards.example (repeat; default: any). "
                   "Clients sending no Origin header (bots) are always allowed.")
@click.option("--msg-rate", type=click.FloatRange(0), default=100.0, show_default=True,
              help="Messages per second one connection may send, sustained (0: no limit).")
@click.option("--msg-burst", type=click.IntRange(1), default=200, show_default=True,
              help="Messages one connection may send at once (token-bucket size).")
@click.option("--max-connections-per-address", type=click.IntRange(0), default=64,
              show_default=True, help="Open connections per client IP address (0: no limit).")
@click.option("--max-connections", type=click.IntRange(0), default=0,
              help="Open sockets in all, handshakes included (default 0: the soft limit of "
                   "open files, raised to the hard one at start, less 128).")
@click.option("--header-timeout", type=click.FloatRange(0, min_open=True), default=3.0,
              show_default=True, help="Seconds a new socket has to send its whole HTTP request.")
@click.option("--close-grace", type=click.FloatRange(0), default=2.0, show_default=True,
              help="Seconds a closing connection has to finish before its socket is aborted.")
@click.option("--trusted-proxy", "trusted_proxies", multiple=True, metavar="CIDR",
              help="Proxy (e.g. haproxy with send-proxy-v2) whose connections begin with a "
                   "PROXY protocol v1/v2 header naming the client (repeat; default: none).")
@click.option("--rooms-per-minute", type=click.IntRange(0), default=10, show_default=True,
              help="Rooms one connection may create per minute (0: no limit).")
@click.option("--rooms-per-minute-per-address", type=click.IntRange(0), default=30,
              show_default=True, help="Rooms all connections from one client address may "
              "create per minute together (0: no limit).")
@click.option("--empty-room-ttl", type=click.FloatRange(0), default=60.0, show_default=True,
              help="Seconds a waiting room may stay with nobody seated before it is removed "
                   "(0: never).")
@click.option("--max-rooms", type=click.IntRange(1), default=100_000, show_default=True,
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
@click.option("--admin-token", envvar="CARDHALL_ADMIN_TOKEN", default=None, metavar="TOKEN",
              help="Bearer token of the admin HTTP API (/admin/...; env CARDHALL_ADMIN_TOKEN; "
                   "default: the API is off). Prefer the env or --admin-token-file: "
                   "arguments show in ps.")
@click.option("--admin-token-file", type=click.File("r"), default=None,
              help="Read the admin token from this file (first line).")
@auth_options
def serve(host: str, port: int, max_frame: int, log_level: str,
          store_kind: str | None, data: Path | None, fsync: str,
          lease_seconds: float, admin_token: str | None, admin_token_file: Any,
          redis_min_replicas: int | None, redis_wait_timeout: float,
          **limits: Any) -> None:
    """Run a Cardhall server until SIGINT/SIGTERM (the SQLite data file unless
    --redis-url, --redis-sentinel, --redis-cluster or --store memory)."""
    import asyncio
    import ssl

    from .app import run, tls_context
    from .config import Settings
    from .logs import configure
    from .store import StoreError

    if limits["certfile"] is None and limits["keyfile"] is not None:
        raise click.BadParameter("needs --certfile", param_hint="--keyfile")
    if admin_token_file is not None:
        admin_token = (admin_token_file.readline() or "").strip()
        if not admin_token:
            raise click.BadParameter("the file holds no token", param_hint="--admin-token-file")
    if limits["certfile"] is not None:
        try:
            tls_context(limits["certfile"], limits["keyfile"])
        except ssl.SSLError as exc:
            raise click.BadParameter(
                f"not a PEM certificate chain with its private key ({exc.reason or exc})",
                param_hint="--certfile/--keyfile") from None
    check_auth_options(limits)
    target = _redis_target(limits)
    if target is not None:  # before listening: an unreachable Redis is one error line
        import redis

        try:
            asyncio.run(target.probe())
        except (redis.RedisError, OSError, TimeoutError) as exc:
            raise click.ClickException(
                f"cannot reach Redis at {target.describe()}: {str(exc) or 'no answer'}") from None
    if target is not None and store_kind is not None:
        raise click.UsageError("--store is for a server without Redis")
    configure(log_level, limits.pop("log_format"))
    try:
        settings = Settings(host=host, port=port, max_frame=max_frame,
                            admin_token=admin_token or None, **_limits(limits))
    except ValueError as exc:
        raise click.UsageError(str(exc)) from None
    store: Store | None = None
    if target is not None:
        from .redis_store import RedisStore

        store = RedisStore(target, lease_seconds=lease_seconds,
                           min_replicas=redis_min_replicas, wait_seconds=redis_wait_timeout)
    elif store_kind != "memory":
        store = _sqlite_store(data, fsync)
    from . import build

    running = f"Cardhall is running ({build.describe()})"
    try:
        run(settings, store, lambda server: click.echo(
            f"{running}: open {_browser_url(host, server.port, settings.certfile)} "
            "in a web browser (Ctrl-C stops the server)"))
    except StoreError as exc:
        where = (target.describe() if target is not None
                 else f"--data {getattr(store, 'path', '')}")
        raise click.ClickException(f"cannot start: {exc} ({where})") from None
    except OSError as exc:
        raise click.ClickException(
            f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None


def _browser_url(host: str, port: int, certfile: str | None) -> str:
    """The web client's address for a browser on this machine: ``http://HOST:PORT/``
    (``https`` with ``certfile``); a wildcard ``host`` (``0.0.0.0``, ``::``, empty) is
    given as the loopback address, an IPv6 one in brackets."""
    shown = {"": "127.0.0.1", "0.0.0.0": "127.0.0.1", "::": "[::1]"}.get(host, host)
    if ":" in shown and not shown.startswith("["):
        shown = f"[{shown}]"
    return f"{'https' if certfile else 'http'}://{shown}:{port}/"


@main.command()
@click.argument("dest", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--data", type=click.Path(dir_okay=False, path_type=Path), envvar="CARDHALL_DATA",
              default=None, metavar="PATH",
              help="The data file to copy (env CARDHALL_DATA; default: cardhall serve's).")
def backup(dest: Path, data: Path | None) -> None:
    """Copy the SQLite data file to DEST (made 0600; replaced if it exists) with SQLite's
    online backup API: safe while a server runs on the file (the copy is one consistent
    moment of it; the server goes on). Restore: stop the server, put the copy in place of
    the data file (its -wal and -shm files removed), start the server."""
    from .sqlite_file import backup as copy_file
    from .sqlite_file import default_path
    from .store import StoreError

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
    from .store import StoreError

    if spec.startswith(("redis://", "rediss://", "unix://")):
        import redis

        from .redis_store import RedisStore

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
    from .sqlite_store import SQLiteStore

    try:
        return SQLiteStore(path)
    except StoreError as exc:
        raise click.ClickException(str(exc)) from None


@main.command()
@click.option("--from", "source", required=True, metavar="PATH|URL",
              help="The store to copy from: a SQLite data file, or redis://HOST:PORT/DB.")
@click.option("--to", "target", required=True, metavar="PATH|URL",
              help="The store to copy to: a SQLite data file (made if missing), or "
                   "redis://HOST:PORT/DB.")
@click.option("--finished-ttl", type=click.FloatRange(0), default=300.0, show_default=True,
              help="The target servers' --finished-ttl: finished rooms keep what is left "
                   "of it.")
def migrate(source: str, target: str, finished_ttl: float) -> None:
    """Copy a lobby from one store to another: every room (in play, waiting, finished) with
    its record, state, seat tokens, log and snapshot, every account (with its seats and
    games; players sign in again on the target) and every leaderboard. A SQLite file
    onto Redis to grow past one process, or back. Stop the servers of the source first (a
    SQLite file is locked while it is read; rooms a live server runs on Redis are refused);
    rooms the target holds already are skipped. Players resume their seats on the target's
    servers with the tokens they have."""
    import asyncio

    from .app import accounts_for
    from .history import KEEP
    from .store import StoreError
    from .transfer import copy_store

    async def go() -> dict[str, Any]:
        src = _open_store(source, source=True)
        try:
            dst = _open_store(target, source=False)
            try:
                return await copy_store(src, dst, finished_ttl,
                                        lambda line: click.echo(line, err=True),
                                        (accounts_for(src), accounts_for(dst)), KEEP)
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
               f"{done['accounts']} accounts and {done['board_entries']} leaderboard entries "
               f"from {source} to {target}"
               + (f"; {done['skipped']} rooms skipped (in the target already)"
                  if done["skipped"] else ""))


@main.command()
@click.option("--game", default="skipper", show_default=True, callback=_game,
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

    opts = _options(mode, pairs, game)
    seats = players or (1 if opts.get("mode", "solo") == "solo" else 4)
    try:
        names = sim.lineup(bot, seats)
    except OptionError as exc:
        raise click.BadParameter(exc.message, param_hint="--strategy") from None
    for name in set(names):
        _strategy(game, name)
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


@main.command()
@click.option("--url", "urls", multiple=True, required=True, type=WS_URL,
              help="Server URL, ws://HOST:PORT (repeat to spread bots over servers).")
@click.option("--game", default="skipper", show_default=True, callback=_game)
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
              help="Sign every bot in with this session token (env CARDHALL_TOKEN; one "
                   "account holds one seat of a room unless it allows more). Default: a "
                   "guest account per bot.")
def bots(urls: tuple[str, ...], game: str, mode: str | None, players: int, n_games: int,
         bot: str, pairs: tuple[str, ...], seed: int | None, timeout: float,
         as_json: bool, record_dir: str | None, room: str | None, token: str | None) -> None:
    """Play GAMES games with PLAYERS bot clients (each signed in to a guest account of its
    own, or --token) against live servers; exit 0 when all end."""
    import asyncio

    from ..client.bots import play_games
    from ..client.client import Client

    if room is not None:
        if n_games != 1:
            raise click.BadParameter("--join plays exactly one game", param_hint="--games")

        async def lookup() -> str:
            async with Client(list(urls), software="cardhall-bots", reconnect=False) as c:
                listing = await c.list_rooms()
            return next((r["game"] for r in listing if r["room"] == room), game)

        with _reaching(urls[0]):
            game = asyncio.run(lookup())

    try:
        opts = dict(parse_kv(pairs))
    except OptionError as exc:
        raise click.BadParameter(exc.message) from None
    _strategy(game, bot)
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

    with _reaching(urls[0]):
        asyncio.run(go())


@main.command()
@click.option("--url", required=True, type=WS_URL, help="Server URL, ws://HOST:PORT.")
@click.option("--name", default=None, help="Your name at the table (default: your account's; "
              "else your login).")
@click.option("--login", "login", default=None, metavar="USERNAME",
              help="Log in to USERNAME (the password is asked for, or read from "
                   "CARDHALL_PASSWORD); the session is kept for the next time.")
@click.option("--register", default=None, metavar="USERNAME",
              help="Register USERNAME (a guest account you play as is upgraded: it keeps its "
                   "games); the password is asked for twice, or read from CARDHALL_PASSWORD.")
@click.option("--logout", is_flag=True, help="End the kept session (the guest account of "
              "this computer is used next).")
@click.option("--color/--no-color", default=None,
              help="ANSI colours (default: on when the output is a terminal and NO_COLOR is "
                   "not set).")
@click.option("--record", "record_dir", type=click.Path(file_okay=False), default=None,
              help="Write the record of each finished game to this folder (ROOM.json), for "
                   "`cardhall verify`.")
@click.option("--ascii/--no-ascii", "ascii_cards", default=None,
              help="Suits as letters (10D) and ASCII only (default: on when the terminal "
                   "cannot print the suit symbols).")
def play(url: str, name: str | None, color: bool | None, record_dir: str | None,
         ascii_cards: bool | None, login: str | None, register: str | None,
         logout: bool) -> None:
    """Play in a terminal: lobby, create/join rooms, numbered actions, turn clocks; signed in
    as this computer's guest account, or --login / --register; the session and seat tokens
    kept in the user's state folder (lobby command m: my games / resume)."""
    import asyncio
    import getpass
    import os

    from ..client.account_file import sign_in_options
    from ..client.terminal import play as run_terminal

    if (login is not None) + (register is not None) + logout > 1:
        raise click.UsageError("give at most one of --login, --register and --logout")
    password = None
    if login is not None or register is not None:
        password = os.environ.get("CARDHALL_PASSWORD") or click.prompt(
            "Password", hide_input=True, confirmation_prompt=register is not None)
    if name is None and login is None and register is None:
        try:
            name = getpass.getuser() or "player"
        except (OSError, KeyError):
            name = "player"
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
                                  ascii=ascii_cards, **options)

    try:
        with _reaching(url):
            status = asyncio.run(go())
    except KeyboardInterrupt:
        raise SystemExit(130) from None
    raise SystemExit(status)


@main.command()
@click.option("--url", required=True, type=WS_URL, help="Server URL, ws://HOST:PORT.")
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

    with _reaching(url):
        listing = asyncio.run(go())

    def row(r: dict[str, Any]) -> str:
        access = "private" if r["private"] else "public"
        return (f"{r['room']:<10} {r['game']:<12} {str(r['mode'] or '-'):<6} {_seats(r):>7} "
                f"{r['status']:<9} {access:<7} {r['name']}")

    _echo_rooms(listing, as_json, f"{'room':<10} {'game':<12} {'mode':<6} {'seats':>7} "
                f"{'status':<9} {'access':<7} name", row)


def _seats(room: dict[str, Any]) -> str:
    """A room summary's seats as ``taken/total``."""
    return f"{room['taken']}/{room['seats']}"


def _echo_rooms(listing: list[dict[str, Any]], as_json: bool, header: str,
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


class HttpUrl(click.ParamType[str]):
    """A server's HTTP base URL, ``http(s)://HOST:PORT`` (the admin API is on the WebSocket
    port); anything else is refused with a usage error (exit 2)."""

    name = "URL"

    def convert(self, value: Any, param: click.Parameter | None,
                ctx: click.Context | None) -> str:
        """The URL without a trailing slash.

        Raises:
            click.BadParameter: no ``http://``/``https://`` scheme, no host, or a path.
        """
        parts = _http_url_parts(str(value))
        if parts is None or parts.path.strip("/") or parts.query:
            self.fail(f"{value!r} is not a server URL like http://HOST:PORT", param, ctx)
        return str(value).rstrip("/")


def _admin_options(fn: Any) -> Any:
    """The ``--url``, ``--token`` and ``--token-file`` options of every admin command."""
    fn = click.option("--token-file", type=click.File("r"), default=None,
                      help="Read the token from this file (first line).")(fn)
    fn = click.option("--token", envvar="CARDHALL_ADMIN_TOKEN", default=None, metavar="TOKEN",
                      help="The server's admin token (env CARDHALL_ADMIN_TOKEN).")(fn)
    return click.option("--url", required=True, type=HttpUrl(),
                        help="The server, http(s)://HOST:PORT (its WebSocket port).")(fn)


def _admin_token(token: str | None, token_file: Any) -> str:
    """The admin token from ``--token-file`` (first line) or ``--token``.

    Raises:
        click.UsageError: no token given.
    """
    if token_file is not None:
        token = (token_file.readline() or "").strip()
    if not token:
        raise click.UsageError("give --token, --token-file or CARDHALL_ADMIN_TOKEN")
    return token


def _admin_call(url: str, token: str, method: str, path: str) -> dict[str, Any]:
    """One admin API request with the bearer ``token``; returns its JSON answer.

    Raises:
        click.ClickException: the server cannot be reached or answered an error (one line).
    """
    import urllib.error
    import urllib.request

    request = urllib.request.Request(url + path, method=method, data=None,
                                     headers={"Authorization": f"Bearer {token}"})
    if method == "POST":
        request.add_header("Content-Length", "0")
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            body = response.read()
    except urllib.error.HTTPError as exc:
        try:
            reason = json.loads(exc.read()).get("error", exc.reason)
        except (ValueError, AttributeError, OSError):
            reason = exc.reason
        raise click.ClickException(f"{method} {path}: {exc.code} {reason}") from None
    except (OSError, ValueError) as exc:  # URLError, timeouts, resets are OSErrors
        raise click.ClickException(f"cannot reach {url}: "
                                   f"{getattr(exc, 'reason', None) or exc}") from None
    try:
        answer = json.loads(body)
    except ValueError:
        raise click.ClickException(f"{url} answered no JSON: is it a Cardhall "
                                   "server?") from None
    if not isinstance(answer, dict):
        raise click.ClickException(f"{url} answered no JSON object")
    return answer


@main.group()
def admin() -> None:
    """Operate a running server through its admin HTTP API (the server runs with
    --admin-token): list and close rooms, kick or mute a seat, drain for a rolling restart;
    list, find, ban, unban, rename accounts and revoke their sessions."""


@admin.command("rooms")
@_admin_options
@click.option("--json", "as_json", is_flag=True, help="The room list as one JSON array.")
def admin_rooms(url: str, token: str | None, token_file: Any, as_json: bool) -> None:
    """List the rooms of every server process sharing the store, with their owners."""
    from urllib.parse import quote

    secret = _admin_token(token, token_file)
    listing: list[dict[str, Any]] = []
    cursor = None
    for _ in range(100_000):  # bounded: at most this many pages
        query = "?limit=500" + (f"&cursor={quote(cursor)}" if cursor else "")
        page = _admin_call(url, secret, "GET", "/admin/rooms" + query)
        listing.extend(page.get("rooms", []))
        cursor = page.get("cursor")
        if not cursor:
            break

    def row(r: dict[str, Any]) -> str:
        return (f"{r['room']:<10} {r['game']:<12} {_seats(r):>7} {r['status']:<9} "
                f"{str(r.get('owner') or '-'):<28} {r['name']}")

    _echo_rooms(listing, as_json,
                f"{'room':<10} {'game':<12} {'seats':>7} {'status':<9} {'owner':<28} name", row)


@admin.command("close")
@_admin_options
@click.argument("room")
def admin_close(url: str, token: str | None, token_file: Any, room: str) -> None:
    """Close ROOM (on whichever process runs it): its members are told and it is removed."""
    from urllib.parse import quote

    answer = _admin_call(url, _admin_token(token, token_file), "POST",
                         f"/admin/rooms/{quote(room, safe='')}/close")
    click.echo(f"room {room} closed ({answer.get('members_told', 0)} members told)")


@admin.command("kick")
@_admin_options
@click.argument("room")
@click.argument("seat", type=click.IntRange(0, 99))
def admin_kick(url: str, token: str | None, token_file: Any, room: str, seat: int) -> None:
    """Remove the player of SEAT from ROOM: told and detached, its token voided; the seat is
    freed (waiting room) or follows the room's on_abandon (bot or forfeit)."""
    from urllib.parse import quote

    answer = _admin_call(url, _admin_token(token, token_file), "POST",
                         f"/admin/rooms/{quote(room, safe='')}/seats/{seat}/kick")
    click.echo(f"seat {seat} of room {room} kicked: {answer.get('seat_now')}")


@admin.command("mute")
@_admin_options
@click.argument("room")
@click.argument("seat", type=click.IntRange(0, 99))
@click.option("--off", is_flag=True, help="Unmute the seat instead.")
def admin_mute(url: str, token: str | None, token_file: Any, room: str, seat: int,
               off: bool) -> None:
    """Mute the player of SEAT in ROOM's chat (its lines are refused with chat/muted), or
    with --off let it chat again. The mute stays with the seat for the room's life."""
    from urllib.parse import quote

    op = "unmute" if off else "mute"
    _admin_call(url, _admin_token(token, token_file), "POST",
                f"/admin/rooms/{quote(room, safe='')}/seats/{seat}/{op}")
    click.echo(f"seat {seat} of room {room} {op}d")


add_account_commands(admin, _admin_options, _admin_token, _admin_call)


@admin.command("drain")
@_admin_options
@click.option("--timeout", type=click.FloatRange(0, 3600), default=60.0, show_default=True,
              help="Seconds the server waits for its rooms to be taken over (Redis) or to "
                   "finish (--store memory) before it closes its connections all the same.")
@click.option("--wait/--no-wait", default=True, show_default=True,
              help="Wait until the server reports it is drained.")
def admin_drain(url: str, token: str | None, token_file: Any, timeout: float,
                wait: bool) -> None:
    """Drain a server for a rolling restart: it stops taking connections and rooms (and
    /healthz answers 503), hands its rooms to the other servers, then closes its
    connections with 1012 so that clients reconnect elsewhere. Exit 1 if it does not
    report drained in time."""
    import time

    secret = _admin_token(token, token_file)
    status = _admin_call(url, secret, "POST", f"/admin/drain?timeout={timeout:g}")
    deadline = time.monotonic() + timeout + 30
    while wait and status.get("state") != "drained":
        if time.monotonic() > deadline or "error" in status:
            raise click.ClickException(f"not drained: {json.dumps(status, sort_keys=True)}")
        time.sleep(0.5)
        status = _admin_call(url, secret, "GET", "/admin/drain")
    click.echo(json.dumps(status, sort_keys=True))


@main.command()
@click.option("--out", type=click.Path(file_okay=False), default="docs/schemas",
              show_default=True, help="Folder of the schema files.")
@click.option("--check", is_flag=True,
              help="Write nothing; exit 1 listing the files that are out of date.")
def schema(out: str, check: bool) -> None:
    """Write the JSON Schemas of every game's view and events (GAME.view.json,
    GAME.event.json), generated from seeded offline playouts of the engines."""
    from pathlib import Path

    try:
        from .schema import write_all

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


@main.command()
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
    --record DIR`). Exit 0 when the deal is verified, 1 with the reason otherwise."""
    from .fairness import VerificationFailed, verify_record

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
    cards are compared; the commitment is ``commitment`` or the server's)."""
    import asyncio

    from ..client.client import Client

    async def go() -> dict[str, Any]:
        async with Client(url, software="cardhall-verify", reconnect=False) as c:
            log = await c.fetch_log(room)
        return {"format": "cardhall-game-record/1", "url": url, "room": room,
                "game": log.game, "seats": log.seats, "seat": None,
                "commitment": commitment or log.commitment,
                "seed": log.options.get("seed"), "salt": log.salt, "state_id": log.state_id,
                "outcome": dict(log.outcome), "options": dict(log.options),
                "log": list(log.entries), "seen": []}

    with _reaching(url):
        return asyncio.run(go())


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
@click.option("--sqlite/--no-sqlite", default=True, show_default=True,
              help="Also bench the SQLite store (cardhall serve's default) in turns with the "
                   "memory store, and its file growth and restart time.")
@click.option("--sqlite-commit", type=click.Choice(["auto", "tick", "each", "adaptive"]),
              default="auto", show_default=True,
              help="SQLite store: tick: the appends of one loop tick share one transaction; "
                   "each: every append commits at once; adaptive: the first of a tick at once, "
                   "the others together; auto: the store's choice (tick with --sqlite-fsync "
                   "always, else adaptive).")
@click.option("--sqlite-fsync", type=click.Choice(["normal", "always"]), default="normal",
              show_default=True, help="SQLite store: cardhall serve --fsync.")
@click.option("--restart-rooms", type=click.IntRange(0), default=1000, show_default=True,
              help="Rooms in play when the SQLite server is killed with -9 and restarted "
                   "(0: skip the restart figure).")
@click.option("--url", default=None, metavar="URL",
              help="Bench a running Cardhall server (its limits must allow the load).")
@click.option("--server-pid", type=int, default=None,
              help="Process id of the server at --url (for its CPU and RSS figures).")
@click.option("--seed", type=int, default=1, show_default=True)
@click.option("--pin/--no-pin", default=True, show_default=True,
              help="Run the server under test on one CPU and the load generator on another "
                   "(Linux, 2+ CPUs; not with --url).")
@click.option("--peers", "peers_dir", type=click.Path(file_okay=False, exists=True),
              default=None, help="The peers harness folder (loadgen.js): then also run "
              "Cardhall, Colyseus and the protocol floor by turns under its load generator "
              "and print the ratios to Colyseus (benchmarks/README.md, peers.py).")
@click.option("--node-modules", type=click.Path(file_okay=False), default=None,
              help="With --peers: the folder its setup.sh installed node_modules into "
              "(default $PEERS_PREFIX/node, else /tmp/peers/node).")
@click.option("--peer-rounds", type=click.IntRange(1), default=3, show_default=True,
              help="With --peers: rounds of the three servers by turns.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object, no table.")
@click.option("--logdir", type=click.Path(file_okay=False), default=None,
              help="Keep the servers' logs in this folder.")
def bench(rooms: int, rate: float, seconds: float, warmup: float, rounds: int, idle: int,
          redis_mode: str, redis_url: str | None, sqlite: bool, sqlite_commit: str,
          sqlite_fsync: str, restart_rooms: int, url: str | None, server_pid: int | None,
          seed: int,
          pin: bool, peers_dir: str | None, node_modules: str | None, peer_rounds: int,
          as_json: bool, logdir: str | None) -> None:
    """Latency, throughput and memory of a live server, against a raw websockets echo server
    (and with --peers, against Colyseus and Cardhall's protocol floor).

    Starts the servers in their own processes on 127.0.0.1 (memory store, SQLite store,
    Redis store, echo baseline) and drives them from this process; see
    benchmarks/README.md.
    """
    import os
    from pathlib import Path

    from ..bench.load import BenchConfig, render, run, to_json
    from ..bench.peers import PeersConfig, compare
    from ..bench.peers import render as render_peers

    peers = None
    if peers_dir is not None:
        modules = node_modules or str(Path(os.environ.get("PEERS_PREFIX", "/tmp/peers"))
                                      / "node")
        peers = PeersConfig(peers=Path(peers_dir), node_modules=Path(modules),
                            rounds=peer_rounds, rooms=rooms, rate=int(rate),
                            seconds=max(1, round(seconds)), pin=pin)
        try:
            peers.check()
        except ValueError as exc:
            raise click.BadParameter(str(exc), param_hint="--peers") from None

    cfg = BenchConfig(rooms=rooms, rate=rate, warmup=warmup, latency_seconds=seconds,
                      throughput_seconds=seconds, idle=idle, redis=redis_url or redis_mode,
                      url=url, server_pid=server_pid, seed=seed, rounds=rounds, pin=pin,
                      sqlite=sqlite, sqlite_commit=sqlite_commit, sqlite_fsync=sqlite_fsync,
                      restart_rooms=restart_rooms)
    if logdir is not None:
        Path(logdir).mkdir(parents=True, exist_ok=True)
    say = None if as_json else lambda m: click.echo(f".. {m}", err=True)
    try:
        result = run(cfg, say, Path(logdir) if logdir else None)
        if peers is not None:
            result["peers"] = compare(peers, say)
    except (OSError, RuntimeError, TimeoutError) as exc:
        raise click.ClickException(f"{type(exc).__name__}: {exc}") from None
    if as_json:
        click.echo(to_json(result))
        return
    click.echo(render(result))
    if peers is not None:
        click.echo("\nThe peers' load generator (loadgen.js), the servers by turns; ratios: "
                   "median of the per-round ratios to Cardhall:\n")
        click.echo(render_peers(result["peers"]))


@main.command()
@click.option("--kind", "kinds", multiple=True, default=("all",), show_default=True,
              type=click.Choice(["all", "owner-kill", "redis-kill-3s", "redis-kill-12s",
                                 "redis-stop-10s", "sqlite-kill", "ha", "sentinel-kill",
                                 "sentinel-partition", "cluster-kill", "cluster-load"]),
              help="Fault kind to drill (repeat; ha: the replicated-Redis kinds; all: every "
                   "kind in turn).")
@click.option("--rooms", type=click.IntRange(1), default=12, show_default=True,
              help="Tables of bots playing Skipper multi games back to back.")
@click.option("--seats", type=click.IntRange(2, 6), default=4, show_default=True,
              help="Bots per table.")
@click.option("--servers", type=click.IntRange(2, 6), default=3, show_default=True,
              help="cardhall serve processes sharing the Redis (sqlite-kill: one, on the "
                   "default store).")
@click.option("--faults", type=click.IntRange(1), default=None,
              help="Faults per kind (default: owner-kill and sqlite-kill 3, redis-kill-3s 2, "
                   "others 1).")
@click.option("--turn-limit", type=click.IntRange(1), default=30, show_default=True,
              help="Skipper turn_limit (turns per seat) of every game.")
@click.option("--think", type=click.FloatRange(0), default=0.02, show_default=True,
              help="Seconds each bot waits before acting.")
@click.option("--finish-timeout", type=click.FloatRange(1), default=90.0, show_default=True,
              help="Seconds the games may take to finish after the last fault.")
@click.option("--seconds", type=click.FloatRange(10), default=900.0, show_default=True,
              help="Cap on the whole run, in seconds.")
@click.option("--seed", type=int, default=1, show_default=True)
@click.option("--down-after-ms", type=click.IntRange(100), default=2000, show_default=True,
              help="Replicated kinds: Sentinel down-after-milliseconds and Cluster "
                   "node timeout.")
@click.option("--load-seconds", type=click.FloatRange(1), default=20.0, show_default=True,
              help="cluster-load: seconds of play on each topology.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object, no table.")
@click.option("--logdir", type=click.Path(file_okay=False), default=None,
              help="Keep Redis' AOF and the servers' logs in this folder.")
def chaos(kinds: tuple[str, ...], rooms: int, seats: int, servers: int, faults: int | None,
          turn_limit: int, think: float, finish_timeout: float, seconds: float, seed: int,
          down_after_ms: int, load_seconds: float, as_json: bool, logdir: str | None) -> None:
    """Fault drills: bots on several servers and a real redis-server (or a Sentinel-watched
    master with replicas, or a Redis Cluster) while owners are killed and Redis nodes are
    killed or paused, and bots on one server with the default SQLite store while it is
    killed with -9 and restarted on its file; every acknowledged action is checked against
    the stored log. Exits 1 when a target (0 lost, 0 doubled, 100% finished, no seat
    dropped, no view backwards) is missed. See docs/operations.md, "Chaos drills"."""
    import shutil

    from ..bench.chaos import KINDS, LONE, ChaosConfig, render, run
    from ..bench.ha_chaos import HA_KINDS

    groups = {"all": KINDS + HA_KINDS, "ha": HA_KINDS}
    picked = tuple(dict.fromkeys(k for kind in kinds for k in groups.get(kind, (kind,))))
    for tool in ("redis-server", "redis-cli", "redis-sentinel"):
        if shutil.which(tool) is None and ((tool == "redis-server" and set(picked) - LONE)
                                           or set(picked) & set(HA_KINDS)):
            raise click.ClickException(f"{tool} is not on PATH")
    cfg = ChaosConfig(kinds=picked, rooms=rooms, seats=seats, servers=servers, faults=faults,
                      turn_limit=turn_limit, think=think, finish_timeout=finish_timeout,
                      seconds=seconds, seed=seed, down_after_ms=down_after_ms,
                      load_seconds=load_seconds)
    if logdir is not None:
        Path(logdir).mkdir(parents=True, exist_ok=True)
    try:
        result = run(cfg, None if as_json else lambda m: click.echo(f".. {m}", err=True),
                     Path(logdir) if logdir else None)
    except (OSError, RuntimeError) as exc:
        raise click.ClickException(f"{type(exc).__name__}: {exc}") from None
    click.echo(json.dumps(result, sort_keys=True) if as_json else render(result))
    if not result["ok"]:
        sys.exit(1)


if __name__ == "__main__":  # pragma: no cover
    main()
