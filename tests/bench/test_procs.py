"""Tests of the harnesses' process helpers (``cardhall.bench.procs``) with short-lived children
that never listen: free ports, waits that end with the reason, the serve command line,
children stopped however a block ends, figures of a process."""

from __future__ import annotations

import gc
import os
import socket
import subprocess
import sys
import time
import warnings
from pathlib import Path

import pytest
from cardhall.bench import procs


def test_a_free_port_span_is_bindable_and_below_the_ephemeral_range() -> None:
    """Every port of the span binds now; none comes from the range bind(0) hands out."""
    ranges = Path("/proc/sys/net/ipv4/ip_local_port_range")
    low = int(ranges.read_text().split()[0]) if ranges.is_file() else 32768
    for _ in range(5):
        port = procs.free_port(3)
        assert 10000 <= port and port + 2 < low
        for k in range(3):
            with socket.socket() as s:
                s.bind(("127.0.0.1", port + k))


def test_a_child_that_exits_is_reported_with_its_code() -> None:
    """Child() raises RuntimeError naming the child and its exit code (nothing left running)."""
    with pytest.raises(RuntimeError, match="quitter exited with code 3"):
        procs.Child("quitter", [sys.executable, "-c", "raise SystemExit(3)"],
                    procs.free_port(), None)


def test_a_child_that_cannot_start_leaves_no_log_file_open(tmp_path: Path) -> None:
    """A program that cannot be started raises OSError, and the log file Child opened for it
    is closed (a leaked handle fails a later, unrelated test with a ResourceWarning)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(OSError):
            procs.Child("missing", [str(tmp_path / "no-such-program")], procs.free_port(),
                        tmp_path / "child.log")
        gc.collect()
    assert [w for w in caught if issubclass(w.category, ResourceWarning)] == []


def test_a_child_that_never_listens_times_out_and_can_be_stopped() -> None:
    """``wait_port`` gives up after its timeout; ``stop`` ends the child."""
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        start = time.monotonic()
        with pytest.raises(RuntimeError, match=r"sleeper did not listen on port \d+ in 0.3s"):
            procs.wait_port(procs.free_port(), proc, "sleeper", timeout=0.3)
        assert time.monotonic() - start < 3
    finally:
        proc.kill()
        proc.wait()


def test_children_are_stopped_last_first_when_the_block_fails() -> None:
    """An exception in the block still stops every child, in reverse order."""
    stopped: list[str] = []

    class Fake:
        def __init__(self, name: str) -> None:
            self.name = name

        def stop(self) -> None:
            stopped.append(self.name)

    with pytest.raises(KeyError):
        with procs.children() as kids:
            kids += [Fake("redis"), Fake("server")]  # type: ignore[list-item]
            raise KeyError("drill failed")
    assert stopped == ["server", "redis"]


def test_the_serve_command_runs_this_interpreter_or_an_old_versions_module(
        tmp_path: Path) -> None:
    """A version exported without ``cardhall/cli`` runs its ``cardhall.server.cli``."""
    assert procs.serve_command(8765, "--store", "memory") == [
        sys.executable, "-m", procs.CLI_MODULE, "serve", "--port", "8765", "--store", "memory"]
    (tmp_path / "cardhall").mkdir()
    assert procs.serve_command(1, package=tmp_path)[2] == procs.OLD_CLI_MODULE
    (tmp_path / "cardhall" / "cli").mkdir()
    assert procs.serve_command(1, package=tmp_path)[2] == procs.CLI_MODULE


def test_figures_of_this_process() -> None:
    """CPU seconds grow with work; the RSS is that of a Python process (MiB, not KiB)."""
    before = procs.cpu_seconds(os.getpid())
    sum(i * i for i in range(2_000_000))
    assert procs.cpu_seconds(os.getpid()) > before
    assert 5 * 2**20 < procs.rss_bytes(os.getpid()) < 4 * 2**30


def test_no_test_starts_a_bare_cardhall_command() -> None:
    """No test's command line starts with a bare ``cardhall`` (a list literal whose first item
    is ``"cardhall"``): it is on PATH only in an activated venv, and the README's test command
    does not activate one. Tests run this interpreter's ``-m cardhall.cli``
    (:func:`procs.serve_command`)."""
    import ast

    tests = Path(__file__).resolve().parent.parent
    bare = []
    for path in sorted(tests.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.List) and node.elts
                    and isinstance(node.elts[0], ast.Constant)
                    and node.elts[0].value == "cardhall"):
                bare.append(f"{path.relative_to(tests)}:{node.lineno}")
    assert bare == []
