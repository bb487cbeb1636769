"""Child processes on 127.0.0.1 for the bench, the drills, the benchmarks and the tests: free
ports, a child that is up once it listens (:class:`Child`), ``cardhall serve`` and
``redis-server`` children (and the command of a Sentinel, :func:`sentinel_command`), CPU
pinning, and the CPU and memory figures of a process.

Nothing here starts anything on import. Every wait is bounded; :class:`Child` stops its
process when it does not come up.
"""

from __future__ import annotations

import contextlib
import os
import random
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

#: The module ``python -m`` runs for the ``cardhall`` command line.
CLI_MODULE = "cardhall.cli"
#: The same in versions of the package from before :mod:`cardhall.cli` (``serve_command``
#: with an exported version, :mod:`.versions`).
OLD_CLI_MODULE = "cardhall.server.cli"


# -- ports -------------------------------------------------------------------------------


def _ephemeral_low() -> int:
    """The first port of the kernel's ephemeral range (32768 when it cannot be read)."""
    try:
        return int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768


def free_port(span: int = 1) -> int:
    """A TCP port ``p`` such that ``p .. p + span - 1`` are free on 127.0.0.1 right now.

    Drawn at random below the ephemeral range: a port that ``bind(0)`` hands out comes from
    that range, and before a child process binds it an outgoing connection (a Redis replica,
    a Sentinel, a client) may be given it and the child fails with "address already in use".
    """
    low = _ephemeral_low()
    for _ in range(1000):
        port = random.randrange(10000, max(10001, low - span))
        if all(_port_free(port + k) for k in range(span)):
            return port
    with socket.socket() as s:  # a crowded host: fall back to whatever the kernel gives
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _port_free(port: int) -> bool:
    """True when 127.0.0.1:``port`` can be bound now."""
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def wait_port(port: int, proc: subprocess.Popen[bytes], what: str, timeout: float = 30) -> None:
    """Wait until 127.0.0.1:``port`` accepts a TCP connection.

    Args:
        port: The port the child listens on.
        proc: The child process.
        what: Its name in the error messages.
        timeout: Seconds to wait at most.

    Raises:
        RuntimeError: ``proc`` exited, or nothing listened within ``timeout`` seconds.
    """
    deadline = time.monotonic() + timeout
    while True:
        if proc.poll() is not None:
            raise RuntimeError(f"{what} exited with code {proc.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            if time.monotonic() > deadline:
                raise RuntimeError(f"{what} did not listen on port {port} in {timeout}s") from None
            time.sleep(0.05)


# -- children ----------------------------------------------------------------------------


class Child:
    """A server child process on 127.0.0.1 (Cardhall, echo or redis-server), started and
    listening.

    Args:
        what: Its name in error messages.
        argv: Its command line.
        port: The port it listens on (:func:`wait_port`, 30 s).
        log: File its stdout and stderr are appended to (None: discarded).
        cpus: CPUs to pin it to (None: wherever the scheduler puts it).
        env: Its environment (None: this process's).

    Raises:
        RuntimeError: it exited or did not listen in time (it is stopped first).
        OSError: the program cannot be started.
    """

    def __init__(self, what: str, argv: list[str], port: int, log: Path | None,
                 cpus: set[int] | None = None, env: dict[str, str] | None = None) -> None:
        self.what = what
        self.port = port
        self.log = log
        with contextlib.ExitStack() as files:  # the child keeps its own copy of the log
            out = (files.enter_context(open(log, "ab")) if log is not None
                   else subprocess.DEVNULL)
            self.proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=out,
                                         stderr=out, env=env)
        try:
            if cpus:
                os.sched_setaffinity(self.proc.pid, cpus)
            wait_port(port, self.proc, what)
        except BaseException:
            self.stop()
            raise

    @property
    def pid(self) -> int:
        """Process id of the child server (for its CPU and RSS figures)."""
        return self.proc.pid

    @property
    def url(self) -> str:
        """``ws://127.0.0.1:PORT`` of the child server."""
        return f"ws://127.0.0.1:{self.port}"

    def stop(self) -> None:
        """Stop the child server (SIGTERM, then SIGKILL after 10 s)."""
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


@contextlib.contextmanager
def children() -> Iterator[list[Child]]:
    """A list to append started children to; each is stopped, last first, when the block
    ends (however it ends)."""
    kids: list[Child] = []
    try:
        yield kids
    finally:
        for k in reversed(kids):
            k.stop()


def serve_command(port: int, *options: str, package: Path | None = None) -> list[str]:
    """The command line of a ``cardhall serve`` child on ``port``: this interpreter running
    ``python -m cardhall.cli serve --port PORT OPTIONS``.

    Args:
        port: Its port.
        options: More ``cardhall serve`` options.
        package: The ``PYTHONPATH`` entry of an exported version of the package the child
            runs (:func:`.versions.export`; None: the installed one). A version from before
            :mod:`cardhall.cli` runs its ``python -m cardhall.server.cli``.
    """
    module = CLI_MODULE
    if package is not None and not (package / "cardhall" / "cli").is_dir():
        module = OLD_CLI_MODULE
    return [sys.executable, "-m", module, "serve", "--port", str(port), *options]


def sentinel_command(config: Path | str) -> list[str]:
    """The command that runs a Redis Sentinel with the config file ``config`` (options may
    follow it): ``redis-sentinel CONFIG`` when that program is on ``PATH``, else
    ``redis-server CONFIG --sentinel``, the same server in Sentinel mode (Debian and Ubuntu
    ship ``redis-sentinel`` as a package of its own).

    Raises:
        FileNotFoundError: neither program is on ``PATH``.
    """
    if shutil.which("redis-sentinel") is not None:
        return ["redis-sentinel", str(config)]
    if shutil.which("redis-server") is not None:
        return ["redis-server", str(config), "--sentinel"]
    raise FileNotFoundError("neither redis-sentinel nor redis-server is on PATH "
                            "(Debian and Ubuntu: apt-get install redis-server redis-sentinel)")


def start_redis(workdir: Path, cpus: set[int] | None = None) -> Child:
    """A redis-server with append-only persistence (as the test suite runs it), on ``cpus``
    when given (a child inherits this process's CPUs: a pinned load generator passes every
    CPU it started with, or redis would share the generator's).

    Raises:
        RuntimeError, OSError: see :class:`Child`.
    """
    port = free_port()
    return Child("redis-server", [
        "redis-server", "--port", str(port), "--bind", "127.0.0.1", "--appendonly", "yes",
        "--appendfsync", "everysec", "--save", "", "--dir", str(workdir),
        "--protected-mode", "no"], port, None, cpus)


# -- CPUs --------------------------------------------------------------------------------


def cpu_plan(pin: bool) -> tuple[set[int], set[int]] | None:
    """``(server CPUs, generator CPUs)`` when pinning is asked for and possible (Linux,
    at least 2 CPUs this process may use), else None."""
    if not pin or not hasattr(os, "sched_setaffinity"):
        return None
    cpus = sorted(os.sched_getaffinity(0))
    if len(cpus) < 2:
        return None
    return {cpus[0]}, set(cpus[1:2])


@contextlib.contextmanager
def pinned(pin: bool) -> Iterator[set[int] | None]:
    """With ``pin`` and a :func:`cpu_plan`, this process (the load generator) runs on its
    CPU until the block ends; yields the servers' CPUs (None: no pinning)."""
    plan = cpu_plan(pin)
    own_cpus = os.sched_getaffinity(0) if plan else None
    if plan:
        os.sched_setaffinity(0, plan[1])
    try:
        yield plan[0] if plan else None
    finally:
        if own_cpus is not None:
            os.sched_setaffinity(0, own_cpus)


def raise_fd_limit(want: int) -> int:
    """Raise this process's open-file soft limit to ``want`` (at most the hard limit);
    children started afterwards inherit it. Returns the soft limit now in force."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = want if hard == resource.RLIM_INFINITY else min(want, hard)
    if soft != resource.RLIM_INFINITY and soft < target:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
        soft = target
    return int(soft)


# -- figures of a process ----------------------------------------------------------------


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds used so far by process ``pid``."""
    try:
        import psutil  # type: ignore[import-untyped,unused-ignore]
    except ImportError:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    t = psutil.Process(pid).cpu_times()
    return float(t.user + t.system)


def rss_bytes(pid: int) -> int:
    """Resident set size of process ``pid``, in bytes.

    Raises:
        RuntimeError: without psutil, ``/proc`` gives no ``VmRSS`` for it.
    """
    try:
        import psutil  # type: ignore[import-untyped,unused-ignore]
    except ImportError:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
        raise RuntimeError(f"no VmRSS for process {pid}") from None
    return int(psutil.Process(pid).memory_info().rss)


def rooms_gauge(port: int) -> float:
    """The ``cardhall_rooms`` gauge of the server on 127.0.0.1:``port`` (its ``/metrics``).

    Raises:
        RuntimeError: the page holds no such gauge.
        OSError: the server does not answer (``urllib.error.URLError`` is one).
    """
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as r:
        for line in r.read().decode().splitlines():
            if line.startswith("cardhall_rooms "):
                return float(line.split()[1])
    raise RuntimeError("no cardhall_rooms gauge in /metrics")
