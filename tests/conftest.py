"""Shared fixtures: real servers on 127.0.0.1 with free ports, over every store.

Every test that uses ``server`` or ``make_server`` runs three times: with the in-memory
:class:`MemoryStore`, with a :class:`SQLiteStore` on a fresh data file (``cardhall serve``'s
default store), and with a :class:`RedisStore` on a ``redis-server`` the tests start
themselves (skipped when redis-server is not installed).

``XDG_DATA_HOME`` points into the session's temporary folder, so that nothing a test starts
(``cardhall serve`` without ``--data``) writes to the user's data folder.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import redis

from cardhall.bench.procs import Child, free_port
from cardhall.server.app import Server
from cardhall.server.config import Settings
from cardhall.server.store.redis_store import RedisStore
from cardhall.server.store.sqlite_store import SQLiteStore
from cardhall.server.store.memory_store import MemoryStore

ServerFactory = Callable[..., Awaitable[Server]]
ROOT = Path(__file__).resolve().parent.parent
#: Settings of the test servers (``make_server``, ``server``): no message rate limit; cheap
#: password hashes (argon2id, 1 pass over 8 MiB) and sign-in limits far above what a test
#: does, except where a test sets its own (tests/server/test_auth.py).
TEST_SETTINGS: dict[str, Any] = {"msg_rate": None, "auth_hash": (1, 8192, 1),
                                 "auth_guest_limit": "1000/minute",
                                 "auth_address_limit": "1000/minute"}


def run_cli(*args: str, timeout: float = 120.0, cwd: Path = ROOT,
            env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """``cardhall ARGS`` (this checkout's) in a child process, its output captured as text.

    Args:
        args: The command line after ``cardhall``.
        timeout: Seconds it may run. subprocess.TimeoutExpired after that.
        cwd: Its working folder (default: the checkout).
        env: Variables set on top of this process's environment. None sets none.
    """
    return subprocess.run([sys.executable, "-m", "cardhall.cli", *args],
                          capture_output=True, check=False, text=True, timeout=timeout, cwd=cwd,
                          stdin=subprocess.DEVNULL, env={**os.environ, **(env or {})})


def assert_one_error(proc: subprocess.CompletedProcess[str], *needles: str) -> str:
    """The run failed with exactly one ``Error:`` line on stderr (no traceback), holding
    every one of ``needles``; returns that line."""
    assert proc.returncode != 0, proc
    assert "Traceback" not in proc.stderr, proc.stderr
    errors = [line for line in proc.stderr.splitlines() if line.startswith("Error:")]
    assert len(errors) == 1, proc.stderr
    for needle in needles:
        assert needle in errors[0], errors[0]
    return errors[0]


class RedisProcess:
    """A ``redis-server`` child process on 127.0.0.1 with append-only persistence.

    Args:
        workdir: Folder for its AOF files.
    """

    def __init__(self, workdir: Path) -> None:
        self.workdir = workdir
        self.port = free_port()
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        """``redis://127.0.0.1:PORT/0``."""
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        """Start (or restart) the server and wait until it answers (at most 10 s)."""
        self.proc = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1",
             "--appendonly", "yes", "--appendfsync", "everysec", "--save", "",
             "--dir", str(self.workdir), "--protected-mode", "no"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        client = redis.Redis(port=self.port)
        deadline = time.monotonic() + 10
        while True:
            try:
                client.ping()
                break
            except redis.ConnectionError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)
        client.close()

    def stop(self) -> None:
        """Shut down cleanly (the AOF is flushed)."""
        if self.proc is not None:
            self.proc.terminate()
            self.proc.wait(timeout=10)
            self.proc = None

    def flush(self) -> None:
        """Empty the database (between tests)."""
        client = redis.Redis(port=self.port)
        client.flushall()
        client.close()


class ServeProcess(Child):
    """A ``cardhall serve`` child process on 127.0.0.1 and a free port, started and
    listening (the bench's :class:`~cardhall.bench.procs.Child`), its output in
    ``logdir/serve-PORT.log``.

    Args:
        logdir: Folder of its log (and of its data file, ``serve-PORT.db``, unless
            ``options`` choose a store or a file: ``--redis-url``, ``--store``, ``--data``).
        options: More ``cardhall serve`` options (e.g. ``--redis-url URL``).
        launcher: A ``python -c`` program that runs the CLI (e.g. after lowering a
            resource limit), or None for ``python -m cardhall.cli``.
        port: The port to listen on (None: a free one), e.g. the port of a server killed
            before and started again on the same file.

    Raises:
        RuntimeError: it exited or did not listen in time.
    """

    def __init__(self, logdir: Path, *options: str, launcher: str | None = None,
                 port: int | None = None) -> None:
        port = port or free_port()
        run = ["-m", "cardhall.cli"] if launcher is None else ["-c", launcher]
        if not {"--redis-url", "--store", "--data"} & set(options):
            options = ("--data", str(logdir / f"serve-{port}.db"), *options)
        super().__init__("cardhall serve", [
            sys.executable, *run, "serve", "--port", str(port), "--log-level", "WARNING",
            *options], port, logdir / f"serve-{port}.log")

    def stderr(self, tail: int = 3000) -> str:
        """The last ``tail`` characters of what the process wrote."""
        assert self.log is not None
        return self.log.read_text(errors="replace")[-tail:]

    def kill9(self) -> None:
        """SIGKILL: no cleanup, leases are left to expire."""
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=10)


@pytest.fixture(scope="session", autouse=True)
def _data_home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """``XDG_DATA_HOME`` in the session's temporary folder (see the module docstring)."""
    before = os.environ.get("XDG_DATA_HOME")
    os.environ["XDG_DATA_HOME"] = str(tmp_path_factory.mktemp("data-home"))
    yield
    if before is None:
        os.environ.pop("XDG_DATA_HOME", None)
    else:
        os.environ["XDG_DATA_HOME"] = before


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisProcess]:
    """One redis-server for the test session (skips when it is not installed)."""
    if shutil.which("redis-server") is None:
        pytest.skip("redis-server is not installed")
    proc = RedisProcess(tmp_path_factory.mktemp("redis"))
    proc.start()
    yield proc
    proc.stop()


@pytest.fixture(params=["memory", "sqlite", "redis"])
def store_kind(request: pytest.FixtureRequest) -> str:
    """Which store the servers of a test use."""
    return str(request.param)


@contextlib.asynccontextmanager
async def serving(store: Callable[[], Any],
                  **defaults: Any) -> AsyncIterator[ServerFactory]:
    """A factory of servers on 127.0.0.1, port 0 (a free port), each with a new store from
    ``store()`` and ``Settings`` from ``defaults`` updated by the factory's keywords; every
    server it started is stopped on exit. Every test client comes from 127.0.0.1: the limit
    of new rooms per address is off unless a test sets it."""
    servers: list[Server] = []
    defaults = {"rooms_per_minute_per_address": None, **defaults}

    async def make(**settings: Any) -> Server:
        server = Server(Settings(host="127.0.0.1", port=0, **{**defaults, **settings}),
                        store())
        await server.start()
        servers.append(server)
        return server

    try:
        yield make
    finally:
        for server in servers:
            await server.stop()


@pytest.fixture
async def make_server(store_kind: str,
                      request: pytest.FixtureRequest) -> AsyncIterator[ServerFactory]:
    """Start servers on 127.0.0.1, port 0 (a free port); all are stopped after the test.

    With the Redis store, every server of the test shares one (flushed) Redis database.
    With the SQLite store, every server gets a data file of its own in the test's
    temporary folder (as with the memory store, servers of a test share nothing), with
    group commit (every write waits for its tick's transaction: the store's way with
    ``--fsync always``; ``cardhall serve``'s default, a commit per write that never waits,
    runs in the tests that start ``cardhall serve``).
    Bots play at loopback speed, far above a public server's message rate, so the rate
    limit is off unless a test sets ``msg_rate`` (the limit has its own tests in
    test_hardening.py); see :data:`TEST_SETTINGS`.
    """
    if store_kind == "redis":
        redis_proc: RedisProcess = request.getfixturevalue("redis_server")
        redis_proc.flush()
        async with serving(lambda: RedisStore(redis_proc.url), **TEST_SETTINGS) as make:
            yield make
    elif store_kind == "sqlite":
        folder = request.getfixturevalue("tmp_path")
        files = iter(folder / f"data-{k}.db" for k in range(1000))
        async with serving(lambda: SQLiteStore(next(files), commit="tick"),
                           msg_rate=None) as make:
            yield make
    else:
        async with serving(MemoryStore, **TEST_SETTINGS) as make:
            yield make


@pytest.fixture
async def server(make_server: ServerFactory) -> Server:
    """One server with default settings."""
    return await make_server()
