"""Operator mistakes on the command line get one clear error line and a non-zero exit
(issue #21): never a traceback. Every case runs the real CLI in a child process."""

from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path

import pytest
from cardhall.bench.load import free_port

from .conftest import ROOT, assert_one_error, run_cli

BENCHMARKS = sorted((ROOT / "benchmarks").glob("*.py"))


def test_rooms_url_without_scheme() -> None:
    line = assert_one_error(run_cli("rooms", "--url", f"127.0.0.1:{free_port()}"),
                            "--url", "ws://")
    assert "127.0.0.1" in line


def test_bots_unknown_game_names_the_game_not_the_strategy() -> None:
    line = assert_one_error(run_cli("bots", "--url", "ws://127.0.0.1:9", "--game", "poker"),
                            "--game", "poker", "skipper")
    assert "strategy" not in line


def test_bots_and_simulate_unknown_strategy() -> None:
    assert_one_error(run_cli("bots", "--url", "ws://127.0.0.1:9", "--strategy", "smart"),
                     "--strategy", "smart", "greedy")
    assert_one_error(run_cli("simulate", "--game", "shop", "--strategy", "smart"),
                     "--strategy", "smart", "greedy")


def test_serve_port_in_use() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert_one_error(run_cli("serve", "--port", str(port)),
                         "cannot listen", str(port), "in use")


def test_serve_redis_down() -> None:
    port = free_port()  # nothing listens there
    proc = run_cli("serve", "--port", "0", "--redis-url", f"redis://127.0.0.1:{port}/0",
                   timeout=120)
    assert_one_error(proc, "cannot reach Redis", str(port))
    assert proc.stderr.strip().count("\n") == 0  # nothing else: it never started listening


def test_serve_redis_url_not_a_url() -> None:
    assert_one_error(run_cli("serve", "--port", "0", "--redis-url", "notaurl"),
                     "--redis-url", "notaurl", "redis://")


def test_serve_certfile_not_a_certificate() -> None:
    assert_one_error(run_cli("serve", "--port", "0", "--certfile", "README.md"),
                     "--certfile", "PEM")


def test_serve_keyfile_without_certfile() -> None:
    assert_one_error(run_cli("serve", "--port", "0", "--keyfile", "README.md"),
                     "--keyfile", "--certfile")


@pytest.mark.parametrize("origin", ["notaurl", "cards.example", "ftp://cards.example",
                                    "https://cards.example/", "https://cards.example:x"])
def test_serve_refuses_an_origin_that_is_not_one(origin: str) -> None:
    assert_one_error(run_cli("serve", "--port", "0", "--origin", origin), "--origin", origin)


def test_serve_origin_check_accepts_real_origins() -> None:
    from cardhall.server.cli import _origins

    ok = ("https://cards.example", "http://127.0.0.1:8080", "https://[::1]:443")
    assert _origins(None, None, ok) == ok  # type: ignore[arg-type]


@pytest.mark.parametrize("script", BENCHMARKS, ids=[p.name for p in BENCHMARKS])
def test_every_benchmark_has_help(script: Path) -> None:
    proc = subprocess.run([sys.executable, str(script), "--help"], capture_output=True,
                          check=False, text=True, timeout=60, cwd=ROOT,
                          stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("usage:"), proc.stdout
    assert "Traceback" not in proc.stderr


def test_benchmark_bad_argument_is_one_line() -> None:
    proc = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "bots_shop_shah.py"),
                           "many"], capture_output=True, check=False, text=True,
                          timeout=60, cwd=ROOT, stdin=subprocess.DEVNULL)
    assert proc.returncode != 0
    assert "Traceback" not in proc.stderr
    assert proc.stderr.strip().splitlines()[-1].startswith("bots_shop_shah.py: error:")


def test_bench_peers_folder_without_the_harness(tmp_path: Path) -> None:
    assert_one_error(run_cli("bench", "--peers", str(tmp_path / "missing")), "--peers")
    assert_one_error(run_cli("bench", "--peers", str(tmp_path)), "--peers", "loadgen.js")
