"""The bench's server children, each in its own process on 127.0.0.1: a Cardhall server with
the bench's settings (``python -m cardhall.bench.servers serve``, :func:`start_cardhall`) and
the raw websockets echo baseline (``... echo``, :func:`start_echo`), both with the event loop
and websockets settings ``cardhall serve`` uses.

:func:`start_cardhall` starts this tree's module whatever version of the server it runs
(``benchmarks/ab.py`` exports a version with this tree's ``bench``, :mod:`.versions`): only
the version's server is under test.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from websockets.exceptions import ConnectionClosed

from .config import BenchConfig
from .procs import Child, free_port

#: websockets settings shared by both servers and the clients (the Cardhall defaults).
MAX_FRAME = 64 * 1024
PING_INTERVAL = 20.0
PING_TIMEOUT = 20.0


def start_cardhall(redis_url: str | None, log: Path | None,
                   cpus: set[int] | None = None, env: dict[str, str] | None = None,
                   options: tuple[str, ...] = (), port: int | None = None) -> Child:
    """``python -m cardhall.bench.servers serve``: a Cardhall server with the bench's limits
    (pinned to ``cpus`` when given; ``env``: its environment, e.g. a ``PYTHONPATH`` that
    finds another version of the package first, as ``benchmarks/ab.py`` does; ``options``:
    more ``serve`` options, e.g. :func:`sqlite_options`; ``port``: None for a free one)."""
    port = port or free_port()
    argv = [sys.executable, "-m", "cardhall.bench.servers", "serve", "--port", str(port),
            *options]
    if redis_url:
        argv += ["--redis-url", redis_url]
    return Child("cardhall server", argv, port, log, cpus, env)


def sqlite_options(data: Path, cfg: BenchConfig) -> tuple[str, ...]:
    """The bench server's options for the SQLite store on ``data`` as ``cfg`` says."""
    return ("--data", str(data), "--commit", cfg.sqlite_commit, "--fsync", cfg.sqlite_fsync)


def start_echo(log: Path | None, cpus: set[int] | None = None) -> Child:
    """``python -m cardhall.bench.servers echo``: the raw websockets echo baseline (pinned to
    ``cpus`` when given)."""
    port = free_port()
    return Child("echo server", [sys.executable, "-m", "cardhall.bench.servers", "echo",
                                 "--port", str(port)], port, log, cpus)


def bench_settings(port: int) -> Any:
    """Cardhall :class:`Settings` for the bench: the defaults, with the per-client abuse
    limits (message rate, connections per address, rooms per minute) off, since every bench
    client comes from one address at loopback speed, and finished rooms removed after 1 s
    so that they do not pile up in the memory figures. Fields this version of Settings does
    not have are left out."""
    from ..server.config import Settings

    want: dict[str, Any] = {"host": "127.0.0.1", "port": port, "max_frame": MAX_FRAME,
                            "ping_interval": PING_INTERVAL, "ping_timeout": PING_TIMEOUT,
                            "msg_rate": None, "max_connections_per_address": None,
                            "rooms_per_minute": None, "rooms_per_minute_per_address": None,
                            "finished_ttl": 1.0,
                            "max_rooms": 100_000, "compression": False}
    names = {f.name for f in dataclasses.fields(Settings)}
    return Settings(**{k: v for k, v in want.items() if k in names})


def runner() -> Callable[[Any], Any]:
    """``uvloop.run`` when uvloop is installed (as ``cardhall serve``), else asyncio.run."""
    try:
        import uvloop
    except ImportError:
        return asyncio.run
    run: Callable[[Any], Any] = uvloop.run  # Any when uvloop is not installed (no stubs)
    return run


def _serve_main(args: argparse.Namespace) -> None:
    import logging

    from ..server.app import run

    logging.basicConfig(level=logging.WARNING,
                        format="%(asctime)s %(levelname)s %(name)s %(message)s")
    store: Any = None
    if args.redis_url:
        from ..server.store.redis_store import RedisStore

        store = RedisStore(args.redis_url)
    elif args.data:
        from ..server.logs import configure
        from ..server.store.sqlite_store import SQLiteStore

        configure("WARNING")  # key=value lines: bench/durable.py reads ``rooms_restored``
        logging.getLogger("cardhall.cluster").setLevel(logging.INFO)
        store = SQLiteStore(args.data, fsync=args.fsync,
                            commit=None if args.commit == "auto" else args.commit)
    settings = bench_settings(args.port)
    if args.finished_ttl is not None:
        settings = dataclasses.replace(settings, finished_ttl=args.finished_ttl)
    run(settings, store)


def _echo_main(port: int) -> None:
    import signal

    from websockets.asyncio.server import ServerConnection, serve

    from ..server.app import tune_gc
    from ..server.config import Settings

    async def handler(ws: ServerConnection) -> None:
        with contextlib.suppress(ConnectionClosed):
            async for frame in ws:
                await ws.send(frame)

    async def main() -> None:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        async with serve(handler, "127.0.0.1", port, compression=None, max_size=MAX_FRAME,
                         ping_interval=PING_INTERVAL, ping_timeout=PING_TIMEOUT):
            await stop.wait()

    tune_gc(Settings().gc_threshold)  # the same collector settings as the Cardhall server
    runner()(main())


def main(argv: list[str] | None = None) -> None:
    """``python -m cardhall.bench.servers serve|echo``: the bench's server processes."""
    parser = argparse.ArgumentParser(prog="python -m cardhall.bench.servers")
    sub = parser.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("serve", help="a Cardhall server with the bench settings")
    s.add_argument("--port", type=int, required=True)
    s.add_argument("--redis-url", default=None)
    s.add_argument("--data", default=None, help="the SQLite store on this file")
    s.add_argument("--commit", choices=("auto", "tick", "each", "adaptive"), default="auto")
    s.add_argument("--fsync", choices=("normal", "always"), default="normal")
    s.add_argument("--finished-ttl", type=float, default=None)
    e = sub.add_parser("echo", help="the raw websockets echo baseline")
    e.add_argument("--port", type=int, required=True)
    args = parser.parse_args(argv)
    if args.cmd == "serve":
        _serve_main(args)
    else:
        _echo_main(args.port)


if __name__ == "__main__":
    main()
