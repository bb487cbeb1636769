"""What accounts cost (issue #29): a password login's CPU, the event loop while logins
arrive, a ``restore``'s server time (a sign-in with a kept access token), and the memory an
account takes in each store.

    python benchmarks/auth.py
    python benchmarks/auth.py --logins 200 --rate 20 --accounts 5000 --redis

Prints:

1. **Login CPU**: CPU seconds of the hashing thread per argon2id verify with the server's
   parameters (``Settings.auth_hash``), over ``--hashes`` verifies: the target is 20-100 ms.
2. **Event loop under logins**: a server in this process, ``--rate`` password logins a second
   for ``--logins`` logins from a client in a child process (each a new connection: hello,
   ``login``, close); the server's loop is probed every 2 ms (how late a timer fires): p50,
   p99 and max of that lag, and the login round trips; and the same probe for as long with no
   login first (the machine's own baseline: compare the two). The target is a p99 under
   5 ms at 20 logins a second (the hashing runs in threads; argon2 releases the GIL).
3. **Sign-in by restore**: server time of ``restore`` (the access token looked up, the account
   read, the connection signed in: :meth:`Auth.restore` and :meth:`Auth.bind`), median and
   p99 over ``--resumes`` resumes, for the memory store and (``--redis``) the Redis store
   (a round trip to Redis on loopback included). The target is at most 1 ms.
4. **Memory per account**: ``--accounts`` guest accounts made through the auth service, each
   with a display name and a sign-in (an access and refresh token pair): bytes per account
   this process holds (memory store: ``tracemalloc``), bytes of SQLite database (the SQLite
   account store, a WAL file of its own), and bytes per account Redis holds (``INFO memory``
   ``used_memory``; ``--redis``). The resume time is measured on each store too.

``--redis`` starts a ``redis-server`` of its own on a free port (it must be installed). Compare
figures of one run with each other, not across machines.
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import shutil
import statistics
import subprocess
import tempfile
import time
import tracemalloc
from typing import Any

from cardhall.server.accounts.account_memory import MemoryAccounts
from cardhall.server.app import Server
from cardhall.server.accounts.auth import Auth
from cardhall.server.config import Settings

PASSWORD = "correct horse battery staple"


def pct(values: list[float], q: float) -> float:
    """The ``q`` quantile (0..1) of ``values`` (nearest rank)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


class Member:
    """A stand-in connection for the auth service (what :class:`~.auth.Member` reads)."""

    def __init__(self, n: int) -> None:
        self.session_id, self.addr = f"bench{n:010d}", "127.0.0.1"
        self.account = self.name = self.login = ""
        self.guest = True

    def send(self, msg: Any) -> None:
        """Dropped."""

    def send_error(self, code: str, message: str, re: Any = None) -> None:
        """Dropped."""

    def close_with(self, code: int, reason: str) -> None:
        """Nothing to close."""


def login_cpu(settings: Settings, hashes: int) -> None:
    """Print the CPU seconds of one verify with the server's argon2id parameters."""
    auth = Auth(settings, MemoryAccounts(), "bench", publish=_nowhere)
    hashed = auth.hasher.hash(PASSWORD)
    times = []
    for _ in range(hashes):
        t0 = time.thread_time()
        auth.hasher.verify(hashed, PASSWORD)
        times.append(time.thread_time() - t0)
    t, m, par = settings.auth_hash
    print(f"login CPU (argon2id t={t} m={m} KiB p={par}): median "
          f"{statistics.median(times) * 1000:.1f} ms, p90 {pct(times, 0.9) * 1000:.1f} ms of "
          f"one thread per verify ({hashes} verifies)")


async def _nowhere(process: str, payload: bytes) -> int:
    return 0


def _logins(url: str, logins: int, rate: float, out: Any) -> None:
    """Child process: ``logins`` logins at ``rate`` a second, each on a new connection;
    sends the round trips (s) to ``out``."""
    from cardhall.client.client import Client

    async def one(rtts: list[float]) -> None:
        t0 = time.perf_counter()
        async with Client(url, username="benchuser", password=PASSWORD, reconnect=False):
            pass
        rtts.append(time.perf_counter() - t0)

    async def run() -> list[float]:
        rtts: list[float] = []
        tasks = []
        start = time.perf_counter()
        for i in range(logins):
            await asyncio.sleep(max(0.0, start + i / rate - time.perf_counter()))
            tasks.append(asyncio.create_task(one(rtts)))
        await asyncio.gather(*tasks)
        return rtts

    out.send(asyncio.run(run()))


async def _probe(lags: list[float], stop: asyncio.Event) -> None:
    """How late a 2 ms timer fires, again and again until ``stop``: ``lags`` (s)."""
    while not stop.is_set():
        t0 = time.perf_counter()
        await asyncio.sleep(0.002)
        lags.append(time.perf_counter() - t0 - 0.002)


def _lag(label: str, lags: list[float]) -> str:
    ms = [x * 1000 for x in lags]
    return (f"{label}: lag p50 {pct(ms, 0.5):.2f} ms, p99 {pct(ms, 0.99):.2f} ms, "
            f"max {max(ms):.1f} ms")


async def loop_under_logins(settings: Settings, logins: int, rate: float) -> None:
    """Print the server loop's lag while logins arrive at ``rate`` a second, and while none
    do for as long (the baseline of this machine now: compare the two)."""
    async with Server(settings) as server:
        async with _client(server.url) as c:
            await c.register("benchuser", PASSWORD)
        idle: list[float] = []
        stop = asyncio.Event()
        probing = asyncio.create_task(_probe(idle, stop))
        await asyncio.sleep(logins / rate)
        stop.set()
        await probing
        print(_lag(f"event loop, no login ({logins / rate:g} s)", idle))
        lags: list[float] = []
        stop = asyncio.Event()
        probing = asyncio.create_task(_probe(lags, stop))
        ours, theirs = multiprocessing.Pipe(duplex=False)
        child = multiprocessing.Process(target=_logins, args=(server.url, logins, rate, theirs))
        child.start()
        while not ours.poll():
            await asyncio.sleep(0.05)
        rtts = ours.recv()
        child.join()
        stop.set()
        await probing
    print(_lag(f"event loop, {rate:g} logins/s ({logins} logins)", lags)
          + f"; login round trip p50 {pct(rtts, 0.5) * 1000:.0f} ms, "
          f"p99 {pct(rtts, 0.99) * 1000:.0f} ms")


def _client(url: str) -> Any:
    from cardhall.client.client import Client

    return Client(url, reconnect=False)


async def resume_time(server: Server, resumes: int, label: str) -> None:
    """Print the server time of ``restore`` (Auth.restore + Auth.bind)."""
    auth = server.auth
    grant = await auth.guest("bench-device-secret-0000000000", "127.0.0.1")
    assert grant.token is not None
    member = Member(0)
    times = []
    for _ in range(resumes):
        t0 = time.perf_counter()
        again = await auth.restore(grant.token)
        await auth.bind(member, again)
        times.append(time.perf_counter() - t0)
    ms = [x * 1000 for x in times]
    print(f"restore sign-in ({label}): median {statistics.median(ms):.3f} ms, p99 "
          f"{pct(ms, 0.99):.3f} ms of server time ({resumes} resumes)")


async def make_accounts(auth: Auth, n: int) -> None:
    """``n`` guest accounts, each named and holding a sign-in (a token pair)."""
    for i in range(n):
        member = Member(i)
        grant = await auth.guest(f"bench-device-{i:012d}-xxxxxxxxxx", "127.0.0.1")
        await auth.bind(member, grant)
        await auth.set_name(member, f"Player {i}")
        auth.unbind(member)


async def memory_per_account(settings: Settings, n: int) -> None:
    """Print the bytes per account of the memory store (this process's heap)."""
    server = Server(settings)
    await make_accounts(server.auth, 10)  # warm: caches, the skeleton table
    tracemalloc.start()
    before = tracemalloc.take_snapshot()
    await make_accounts(server.auth, n)
    after = tracemalloc.take_snapshot()
    tracemalloc.stop()
    grown = sum(s.size_diff for s in after.compare_to(before, "filename"))
    print(f"memory store: {grown / n:.0f} bytes per account ({n} guest accounts with a name "
          "and a sign-in)")


async def redis_figures(settings: Settings, accounts: int, resumes: int) -> None:
    """Start a redis-server, then print the Redis resume time and bytes per account."""
    import redis.asyncio as aioredis
    from redis.exceptions import ConnectionError as RedisConnectionError

    from cardhall.bench.procs import free_port
    from cardhall.server.store.redis_store import RedisStore

    if shutil.which("redis-server") is None:
        print("redis: redis-server is not installed; skipped")
        return
    port = free_port()
    with tempfile.TemporaryDirectory() as folder:
        proc = subprocess.Popen(["redis-server", "--port", str(port), "--bind", "127.0.0.1",
                                 "--save", "", "--appendonly", "no", "--dir", folder],
                                stdout=subprocess.DEVNULL)
        try:
            url = f"redis://127.0.0.1:{port}/0"
            probe = aioredis.Redis.from_url(url)
            for _ in range(100):
                try:
                    await probe.ping()
                    break
                except (OSError, RedisConnectionError):
                    await asyncio.sleep(0.05)
            server = Server(settings, RedisStore(url))
            await resume_time(server, resumes, "Redis store, loopback")
            await probe.flushall()
            await make_accounts(server.auth, 10)
            before = int((await probe.info("memory"))["used_memory"])
            await make_accounts(server.auth, accounts)
            after = int((await probe.info("memory"))["used_memory"])
            print(f"Redis store: {(after - before) / accounts:.0f} bytes of Redis memory per "
                  f"account ({accounts} guest accounts with a name and a sign-in)")
            await server.store.close()
            await probe.aclose()
        finally:
            proc.terminate()
            proc.wait(timeout=10)


async def sqlite_figures(settings: Settings, accounts: int, resumes: int) -> None:
    """Print the SQLite account store's resume time and bytes of database per account."""
    import sqlite3

    from cardhall.server.accounts.account_sqlite import SQLiteAccounts, create_tables, plain
    from cardhall.server.store.memory_store import MemoryStore

    with tempfile.TemporaryDirectory() as folder:
        db = sqlite3.connect(f"{folder}/accounts.db", isolation_level=None)
        db.execute("PRAGMA journal_mode = WAL")
        db.execute("PRAGMA synchronous = NORMAL")
        create_tables(db)
        server = Server(settings, MemoryStore(), SQLiteAccounts(*plain(db)))
        await resume_time(server, resumes, "SQLite account store")

        def size() -> int:
            pages = db.execute("PRAGMA page_count").fetchone()[0]
            return int(pages) * int(db.execute("PRAGMA page_size").fetchone()[0])

        await make_accounts(server.auth, 10)
        before = size()
        await make_accounts(server.auth, accounts)
        print(f"SQLite account store: {(size() - before) / accounts:.0f} bytes of database "
              f"per account ({accounts} guest accounts with a name and a sign-in)")
        db.close()


async def run(args: argparse.Namespace) -> None:
    """Every figure, in order."""
    settings = Settings(host="127.0.0.1", port=0, msg_rate=None,
                        auth_address_limit="100000/minute", auth_guest_limit="1000000/minute")
    login_cpu(settings, args.hashes)
    await loop_under_logins(settings, args.logins, args.rate)
    server = Server(settings)
    await resume_time(server, args.resumes, "memory store")
    await memory_per_account(settings, args.accounts)
    await sqlite_figures(settings, args.accounts, args.resumes)
    if args.redis:
        await redis_figures(settings, args.accounts, args.resumes)


def main() -> None:
    """Command line."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hashes", type=int, default=20, help="verifies timed for the CPU")
    parser.add_argument("--logins", type=int, default=100, help="logins under the probe")
    parser.add_argument("--rate", type=float, default=20.0, help="logins a second")
    parser.add_argument("--resumes", type=int, default=2000, help="resumes timed")
    parser.add_argument("--accounts", type=int, default=2000, help="accounts for memory")
    parser.add_argument("--redis", action="store_true", help="the Redis store's figures too")
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()
