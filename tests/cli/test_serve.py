"""Tests of ``cardhall serve``'s options (``cardhall.cli.serve``) in-process, with the server's
``run`` stood in for: the Settings and store they make, 0 as "no limit", the refusals before
anything listens, the browser address printed. (tests/cli/test_cli_errors.py runs the
command as a process; tests/e2e/ serve for real.)"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from cardhall.cli.serve import serve
from cardhall.server import app
from cardhall.server.store.sqlite_store import SQLiteStore
from click.testing import CliRunner


@pytest.fixture
def started(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[tuple[Any, Any, str]]]:
    """What ``run`` was given: (settings, store, what its on-listen callback printed); the
    root logger's handlers (``serve`` configures logging) put back afterwards."""
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    calls: list[tuple[Any, Any, str]] = []

    def run(settings: Any, store: Any, on_listen: Any) -> None:
        import click

        runner_out: list[str] = []
        monkeypatch.setattr(click, "echo", lambda m, **_: runner_out.append(str(m)))
        on_listen(SimpleNamespace(port=4321))
        calls.append((settings, store, "".join(runner_out)))
        if isinstance(store, SQLiteStore):
            store.file.close()  # the lock let go, as the real run does at its end

    monkeypatch.setattr(app, "run", run)
    try:
        yield calls
    finally:
        root.handlers[:] = handlers
        root.setLevel(level)


def test_the_options_make_the_settings_and_zero_means_no_limit(
        started: list[tuple[Any, Any, str]]) -> None:
    """--msg-rate 0 and --rooms-per-minute 0 are None (no limit); origins and proxies are
    tuples; the memory store is the app's own (None); a wildcard host is shown as loopback."""
    result = CliRunner().invoke(serve, [
        "--store", "memory", "--host", "0.0.0.0", "--port", "0", "--msg-rate", "0",
        "--rooms-per-minute", "0", "--origin", "https://cards.example",
        "--trusted-proxy", "10.0.0.0/8", "--max-rooms", "7"])
    assert result.exit_code == 0, result.output
    (settings, store, said) = started[0]
    assert (settings.msg_rate, settings.rooms_per_minute, settings.max_rooms) == (None, None, 7)
    assert settings.origins == ("https://cards.example",)
    assert settings.trusted_proxies == ("10.0.0.0/8",)
    assert store is None  # app.run makes its own MemoryStore
    assert "open http://127.0.0.1:4321/ in a web browser" in said


def test_the_default_store_is_the_sqlite_data_file(started: list[tuple[Any, Any, str]],
                                                   tmp_path: Path) -> None:
    """``--data`` names the file; the admin token from its file's first line."""
    token = tmp_path / "admin"
    token.write_text("tok3n\n")
    result = CliRunner().invoke(serve, ["--data", str(tmp_path / "d.db"), "--port", "0",
                                        "--admin-token-file", str(token)])
    assert result.exit_code == 0, result.output
    settings, store, _ = started[0]
    assert isinstance(store, SQLiteStore) and settings.admin_token == "tok3n"


@pytest.mark.parametrize("args, needle", [
    (["--auth-login-limit", "lots"], "is not a rate like 10/5 minutes"),
    (["--origin", "https://cards.example/path"], "is not an origin like"),
    (["--redis-db", "2", "--redis-url", "redis://127.0.0.1:1/0"], "--redis-db goes with"),
    (["--trusted-proxy", "proxy.local"], "is not an IP address or network"),
    (["--ipv6-prefix", "129"], "--ipv6-prefix"),
    (["--lookup-limit", "often"], "is not a rate like 10/5 minutes"),
])
def test_bad_options_are_refused_before_anything_listens(
        started: list[tuple[Any, Any, str]], args: list[str], needle: str) -> None:
    """Exit 2 naming the fault; ``run`` is never reached."""
    result = CliRunner().invoke(serve, ["--store", "memory", *args])
    assert result.exit_code == 2 and needle in result.output, result.output
    assert started == []


def test_an_empty_admin_token_file_is_refused(started: list[tuple[Any, Any, str]],
                                              tmp_path: Path) -> None:
    """An empty file would turn the admin API on with no secret: refused."""
    empty = tmp_path / "admin"
    empty.write_text("\n")
    result = CliRunner().invoke(serve, ["--store", "memory", "--admin-token-file", str(empty)])
    assert result.exit_code == 2 and "the file holds no token" in result.output
    assert started == []


def test_ipv6_prefix_and_lookup_limit_options(started: list[tuple[Any, Any, str]]) -> None:
    """Issue #41: ``--ipv6-prefix`` and ``--lookup-limit`` make their settings (defaults 64
    and 20 a minute; ``--lookup-limit 0``: no limit)."""
    for args, want in (([], (64, "20/minute")),
                       (["--ipv6-prefix", "56", "--lookup-limit", "5/minute"], (56, "5/minute")),
                       (["--ipv6-prefix", "128", "--lookup-limit", "0"], (128, None))):
        started.clear()
        result = CliRunner().invoke(serve, ["--store", "memory", *args])
        assert result.exit_code == 0, result.output
        settings = started[0][0]
        assert (settings.ipv6_prefix, settings.lookup_limit) == want


def test_history_days_and_public_turn_seconds(started: list[tuple[Any, Any, str]]) -> None:
    """Issue #44: finished games are kept by default (``history_days`` None) and public
    tables get a 60 s turn clock; --history-days N and --public-turn-seconds S set them,
    --public-turn-seconds 0 turns the default clock off."""
    assert CliRunner().invoke(serve, ["--store", "memory"]).exit_code == 0
    assert (started[-1][0].history_days, started[-1][0].public_turn_seconds) == (None, 60.0)
    result = CliRunner().invoke(serve, ["--store", "memory", "--history-days", "30",
                                        "--public-turn-seconds", "0"])
    assert result.exit_code == 0, result.output
    assert (started[-1][0].history_days, started[-1][0].public_turn_seconds) == (30.0, None)
    result = CliRunner().invoke(serve, ["--store", "memory", "--history-days", "0"])
    assert result.exit_code == 2 and "--history-days" in result.output
