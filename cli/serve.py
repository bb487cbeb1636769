"""``cardhall serve``: run a server, with its options (listening, limits, TLS, the store:
the SQLite data file, Redis alone, under Sentinel or a Cluster, or memory; accounts) checked
before anything listens: a bad option, an unreadable data file or an unreachable Redis is one
``Error:`` line, never a traceback.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from .options import data_option, http_url_parts, redis_url

if TYPE_CHECKING:
    from ..server.store.sqlite_store import SQLiteStore
    from ..server.store.ports import Store


def _redis_nodes(ctx: click.Context, param: click.Parameter,
                 value: tuple[str, ...]) -> tuple[tuple[str, int], ...]:
    """Click callback: each value is ``HOST:PORT``.

    Raises:
        click.BadParameter: a value is not.
    """
    from ..server.store.redis_topology import parse_node

    try:
        return tuple(parse_node(v) for v in value)
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from None


def redis_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """The Redis connection options of ``serve`` (gathered by :func:`_redis_target`)."""
    options = [
        click.option("--redis-url", envvar="CARDHALL_REDIS_URL", default=None, metavar="URL",
                     callback=redis_url,
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
    :class:`~cardhall.server.store.redis_topology.RedisTarget`, or None without Redis (the SQLite
    or memory store: ``--store``).

    Raises:
        click.UsageError: more than one form, or options that do not fit the form.
    """
    from ..server.store.redis_topology import RedisTarget

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


def _limit(ctx: click.Context, param: click.Parameter, value: str) -> str:
    """Click callback: ``value`` is a rate in ``limits`` notation (``10/5 minutes``).

    Raises:
        click.BadParameter: it is not.
    """
    from limits import parse

    try:
        parse(value)
    except ValueError as exc:
        raise click.BadParameter(f"{value!r} is not a rate like 10/5 minutes ({exc})") from None
    return value


def _limit_or_off(ctx: click.Context, param: click.Parameter, value: str) -> str:
    """Click callback: :func:`_limit`, or ``"0"`` (no limit).

    Raises:
        click.BadParameter: ``value`` is neither.
    """
    return value if value.strip() == "0" else _limit(ctx, param, value)


def auth_options(fn: Any) -> Any:
    """The ``--auth*`` options of ``cardhall serve`` (see
    :class:`~cardhall.server.config.Settings`)."""
    file = click.Path(exists=True, dir_okay=False)
    for option in reversed([
        click.option("--auth", type=click.Choice(["optional", "required"]),
                     default="optional", show_default=True,
                     help="required: connections must sign in (guest, login, register, "
                          "restore) before they play; optional: old clients play as "
                          "anonymous guests."),
        click.option("--auth-jwt-key", type=file, default=None, metavar="FILE",
                     help="Your identity provider's key (a PEM public key, or a file with an "
                          "HMAC secret): its JWTs sign players in (login jwt)."),
        click.option("--auth-jwks", type=file, default=None, metavar="FILE",
                     help="A JSON Web Key Set file instead of --auth-jwt-key."),
        click.option("--auth-issuer", default=None, help="The iss those JWTs must carry."),
        click.option("--auth-audience", default=None, help="The aud those JWTs must hold."),
        click.option("--auth-access-seconds", "--auth-session-seconds", "auth_access_seconds",
                     type=click.FloatRange(1), default=86_400.0, show_default=True,
                     help="Life of an access token (--auth-session-seconds: its old name)."),
        click.option("--auth-refresh-seconds", type=click.FloatRange(1),
                     default=30 * 86_400.0, show_default=True,
                     help="Life of a refresh token."),
        click.option("--auth-login-limit", default="10/5 minutes", show_default=True,
                     callback=_limit, help="Password logins per account from devices it "
                     "does not remember, and per remembered device."),
        click.option("--auth-address-limit", default="30/minute", show_default=True,
                     callback=_limit, help="Password and JWT sign-ins per client address."),
        click.option("--auth-guest-limit", default="30/minute", show_default=True,
                     callback=_limit, help="New guest accounts per client address."),
    ]):
        fn = option(fn)
    return fn


def check_auth_options(opts: dict[str, Any]) -> None:
    """Check the operator JWT options of ``serve`` before the server starts.

    Raises:
        click.BadParameter: a JWT key without an issuer and audience, both key options, or
            a key file that holds no usable key.
    """
    key, jwks = opts.get("auth_jwt_key"), opts.get("auth_jwks")
    if not key and not jwks:
        return
    from ..server.accounts.operator_jwt import OperatorTokens

    try:
        OperatorTokens(opts.get("auth_issuer") or "", opts.get("auth_audience") or "",
                       key_file=key, jwks_file=jwks)
    except (ValueError, OSError) as exc:
        raise click.BadParameter(str(exc), param_hint="--auth-jwt-key/--auth-jwks") from None


def origins(ctx: click.Context, param: click.Parameter,
            value: tuple[str, ...]) -> tuple[str, ...]:
    """Click callback: each value is a browser origin, ``http(s)://HOST[:PORT]`` with no
    path, query or fragment (the form browsers send in the ``Origin`` header).

    Raises:
        click.BadParameter: a value is not of that form.
    """
    for origin in value:
        parts = http_url_parts(origin)
        if parts is None or parts.path or parts.query or parts.fragment or parts.username:
            raise click.BadParameter(
                f"{origin!r} is not an origin like https://cards.example[:PORT] "
                "(http:// or https://, a host, no path)")
    return value


def _sqlite_store(data: Path | None, fsync: str) -> SQLiteStore:
    """The SQLite store on ``data`` (None: the default path), opened (locked, checked,
    migrated) before anything listens.

    Raises:
        click.ClickException: the file is held by another process, unreadable, damaged, or
            of a newer schema (one ``Error:`` line saying what to do).
    """
    from ..server.store.sqlite_file import default_path
    from ..server.store.sqlite_store import SQLiteStore
    from ..server.store.ports import StoreError

    try:
        return SQLiteStore(data or default_path(), fsync=fsync)
    except StoreError as exc:
        raise click.ClickException(str(exc)) from None


def _limits(opts: dict[str, Any]) -> dict[str, Any]:
    """Settings from the limit/TLS options of ``serve`` (0 means "no limit")."""
    out = dict(opts)
    for key in ("msg_rate", "max_connections_per_address", "rooms_per_minute", "gc_threshold",
                "max_connections", "rooms_per_minute_per_address", "empty_room_ttl",
                "public_turn_seconds", "solo_keep_days"):
        if not out[key]:
            out[key] = None
    out["origins"] = tuple(out["origins"]) or None
    out["trusted_proxies"] = tuple(out["trusted_proxies"])
    if out["lookup_limit"].strip() == "0":
        out["lookup_limit"] = None
    return out


@click.command()
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
@data_option("The SQLite data file (env CARDHALL_DATA; default: "
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
@click.option("--origin", "origins", multiple=True, metavar="URL", callback=origins,
              help="Allowed browser origin, http(s)://HOST[:PORT], e.g. https://cards.example "
                   "(repeat; default: any). "
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
@click.option("--ipv6-prefix", type=click.IntRange(0, 128), default=64, show_default=True,
              help="Leading bits of a client's IPv6 address that count as one address in "
                   "every per-address limit (64: a /64 network; 128: each address).")
@click.option("--lookup-limit", default="20/minute", show_default=True, callback=_limit_or_off,
              help="Failed look-ups of rooms or join codes per client address and per "
                   "account ('0' for none); beyond, look-ups get rate/limited.")
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
              help="Seconds a finished room stays listed before it is removed (its game "
                   "stays in the games archive: --history-days).")
@click.option("--history-days", type=click.FloatRange(0, min_open=True), default=None,
              help="Days a finished game's record (log, seeds, result, players) is kept in "
                   "the games archive for My games, replays and `cardhall verify` "
                   "(default: kept until purged: `cardhall admin purge-games`).")
@click.option("--rated-boards", type=click.Choice(["all", "registered"]), default="all",
              show_default=True, help="Who the rating lists of rated play show: every "
              "account (guests too) and bot, or registered accounts only.")
@click.option("--queue-bot-after", type=click.FloatRange(0), default=None, metavar="SECONDS",
              help="Rated play's queue: seconds a player waits before bots fill the empty "
              "seats of its table (default: never).")
@click.option("--queue-wave-seconds", type=click.FloatRange(0.05), default=3.0,
              show_default=True, help="Rated play's queue: seconds between two waves.")
@click.option("--solo-keep", "solo_keep_days", type=click.FloatRange(0), default=30.0,
              show_default=True, metavar="DAYS",
              help="Days a solo game its player left is kept for them, paused (resumed from "
                   "My games on any device of the account); then it ends as a loss. "
                   "0: kept until resigned or finished.")
@click.option("--public-turn-seconds", type=click.FloatRange(0), default=60.0,
              show_default=True, help="Turn clock (seconds) of a public room of several seats "
              "whose creator set none (0: none); private and solo rooms choose.")
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

    from ..server.app import run, tls_context
    from ..server.config import Settings
    from ..server.logs import configure
    from ..server.store.ports import StoreError

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
        from ..server.store.redis_store import RedisStore

        store = RedisStore(target, lease_seconds=lease_seconds,
                           min_replicas=redis_min_replicas, wait_seconds=redis_wait_timeout)
    elif store_kind != "memory":
        store = _sqlite_store(data, fsync)
    from ..server import build

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
