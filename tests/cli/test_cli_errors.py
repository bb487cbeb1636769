"""Operator mistakes on the command line get one clear error line and a non-zero exit
(issue #21): never a traceback. Every case runs the real CLI in a child process."""

from __future__ import annotations

import http.server
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from cardhall.bench.procs import free_port

from ..conftest import ROOT, ServeProcess, assert_one_error, run_cli

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
        proc = run_cli("serve", "--port", str(port))
        assert_one_error(proc, "cannot listen", str(port), "in use")
        # issue #33: nothing before it (no INFO line of a server that never listened)
        assert proc.stderr.strip().count("\n") == 0, proc.stderr
        assert "open http" not in proc.stdout


def test_serve_prints_the_browser_url_once_it_listens(tmp_path: Path) -> None:
    server = ServeProcess(tmp_path)
    try:
        deadline = time.monotonic() + 10
        while f"open http://127.0.0.1:{server.port}/ in a web browser" not in server.stderr():
            assert time.monotonic() < deadline, server.stderr()
            time.sleep(0.05)
    finally:
        server.stop()


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


def test_the_readme_and_serve_agree_that_an_origin_is_http_or_https() -> None:
    """Issue #41 item 14: the README said ``https://`` only, while ``http://`` is accepted
    (a site served without TLS has an ``http://`` origin): both now say both."""
    from cardhall.cli.serve import origins

    readme = " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())
    assert ("an origin that is not `http://HOST[:PORT]` or `https://HOST[:PORT]`"
            in readme)
    ok = ("http://cards.example", "https://cards.example:8443")
    assert origins(None, None, ok) == ok  # type: ignore[arg-type]
    assert "http(s)://HOST[:PORT]" in " ".join(run_cli("serve", "--help").stdout.split())


def test_serve_origin_check_accepts_real_origins() -> None:
    from cardhall.cli.serve import origins

    ok = ("https://cards.example", "http://127.0.0.1:8080", "https://[::1]:443")
    assert origins(None, None, ok) == ok  # type: ignore[arg-type]


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


# -- issue #33: client commands against servers that cannot serve them ------------------------

class _QuietHandler(http.server.BaseHTTPRequestHandler):
    """An HTTP/1.0 server's answer to any GET: 200 and a line of text; nothing logged."""

    def do_GET(self) -> None:  # noqa: N802 - the name http.server calls
        self.send_response(200)
        self.end_headers()
        self.wfile.write(b"hello\n")

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        pass


@pytest.fixture(scope="module")
def servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    """The addresses a client command meets, by kind: a Cardhall server draining for a
    restart (its upgrades answer 503), a plain HTTP server (HTTP/1.0, not WebSocket), a
    port nothing listens on, and ``wss://`` to a Cardhall server without TLS."""
    logs = tmp_path_factory.mktemp("serve")
    plain = ServeProcess(logs)
    draining = ServeProcess(logs, "--admin-token", "drain-me")
    web = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _QuietHandler)
    thread = threading.Thread(target=web.serve_forever, daemon=True)
    thread.start()
    try:
        request = urllib.request.Request(
            f"http://127.0.0.1:{draining.port}/admin/drain?timeout=1", method="POST",
            headers={"Authorization": "Bearer drain-me", "Content-Length": "0"})
        with urllib.request.urlopen(request, timeout=30):
            pass
        yield {"draining": draining.url, "http": f"ws://127.0.0.1:{web.server_port}",
               "refused": f"ws://127.0.0.1:{free_port()}",
               "wss-to-plain": f"wss://127.0.0.1:{plain.port}"}
    finally:
        web.shutdown()
        web.server_close()
        plain.stop()
        draining.stop()


#: What each kind of address must be called in the error line.
SAID = {"draining": ("503", "draining"), "http": ("no WebSocket server",),
        "refused": ("connection refused", "nothing listens"),
        "wss-to-plain": ("TLS", "ws://")}
COMMANDS = {"bots": ("bots", "--games", "1"), "rooms": ("rooms",), "play": ("play",),
            "verify": ("verify", "--room", "abcd1234")}


@pytest.mark.parametrize("command", sorted(COMMANDS))
@pytest.mark.parametrize("kind", sorted(SAID))
def test_a_client_command_says_in_one_line_why_it_cannot_reach_a_server(
        servers: dict[str, str], kind: str, command: str) -> None:
    url = servers[kind]
    proc = run_cli(*COMMANDS[command], "--url", url, timeout=60)
    line = assert_one_error(proc, f"cannot reach {url}: ", *SAID[kind])
    assert proc.returncode == 1
    assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    assert not line.rstrip().endswith(":")  # never an empty reason


def test_play_refuses_a_url_that_is_not_a_server_url() -> None:
    proc = run_cli("play", "--url", "ftp://x")
    assert_one_error(proc, "--url", "ftp://x", "ws://")
    assert proc.returncode == 2  # a usage error, like every other command's --url


# -- a bad port or host in any URL option (issue #41 item 13) -------------------------------

_BAD_PORTS = ["127.0.0.1:99999", "127.0.0.1:abc", "[::1"]


@pytest.mark.parametrize("bad", _BAD_PORTS)
@pytest.mark.parametrize("command, scheme", [
    (("rooms", "--url"), "ws://"), (("play", "--url"), "ws://"), (("bots", "--url"), "ws://"),
    (("verify", "--room", "r1", "--url"), "ws://"), (("bench", "--url"), "ws://"),
    (("bench", "--redis-url"), "redis://"), (("serve", "--port", "0", "--redis-url"), "redis://"),
    (("admin", "rooms", "--token", "t", "--url"), "http://"),
])
def test_a_bad_port_or_host_in_a_url_is_one_usage_error(
        command: tuple[str, ...], scheme: str, bad: str) -> None:
    """``ws://127.0.0.1:99999``, ``ws://127.0.0.1:abc``, ``ws://[::1`` (and the same in a
    Redis or an HTTP URL): one ``Error:`` line naming the option and the value, exit 2 (a
    usage error, as for a URL without a scheme), never a traceback."""
    url = scheme + bad
    proc = run_cli(*command, url, timeout=60)
    assert_one_error(proc, command[-1], url)
    assert proc.returncode == 2, proc.stderr
