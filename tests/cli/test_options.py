"""Tests of what the commands share (``cardhall.cli.options``): each refusal is a click usage
error (exit 2) that names the fault; each accepted value comes back unchanged."""

from __future__ import annotations

from pathlib import Path

import click
import pytest
from cardhall.cli.options import WS_URL, check_strategy, data_option, game_name, http_url_parts
from click.testing import CliRunner


@click.command()
@click.option("--url", type=WS_URL, required=True)
@click.option("--game", default="skipper", callback=game_name)
@data_option("The data file.")
def probe(url: str, game: str, data: Path | None) -> None:
    """Echo what the options gave."""
    click.echo(f"{url} {game} {data!r}")


@pytest.mark.parametrize("args, env, out", [
    (["--url", "ws://127.0.0.1:8765"], {}, "ws://127.0.0.1:8765 skipper None"),
    (["--url", "wss://h.example", "--game", "shop"], {}, "wss://h.example shop None"),
    (["--url", "ws://h:1"], {"CARDHALL_DATA": "/tmp/x.db"}, "ws://h:1 skipper PosixPath("),
])
def test_good_values_pass_unchanged(args: list[str], env: dict[str, str], out: str) -> None:
    """A ws:// or wss:// URL, a registered game; ``--data`` also from CARDHALL_DATA."""
    result = CliRunner().invoke(probe, args, env=env)
    assert result.exit_code == 0, result.output
    assert result.output.startswith(out)
    if env:
        assert "'/tmp/x.db'" in result.output


@pytest.mark.parametrize("args, needle", [
    (["--url", "http://h:1"], "'http://h:1' is not a server URL like ws://HOST:PORT"),
    (["--url", "127.0.0.1:8765"], "is not a server URL"),
    (["--url", "ws://h:1", "--game", "poker"], "poker"),
])
def test_bad_values_are_usage_errors(args: list[str], needle: str) -> None:
    """Exit 2 with click's usage error naming the value, no traceback."""
    result = CliRunner().invoke(probe, args)
    assert result.exit_code == 2 and needle in result.output, result.output
    assert "Traceback" not in result.output


def test_a_strategy_the_game_lacks_is_a_bad_strategy_option() -> None:
    """``--strategy`` is named; a strategy the game has passes."""
    check_strategy("skipper", "random")
    with pytest.raises(click.BadParameter) as err:
        check_strategy("skipper", "no-such-bot")
    assert err.value.param_hint == "--strategy"
    with pytest.raises(click.BadParameter):
        check_strategy("skipper", "no.such.module:play")


@pytest.mark.parametrize("value, parts", [
    ("http://h:8080/metrics", ("http", "h", 8080, "/metrics")),
    ("https://admin.example", ("https", "admin.example", None, "")),
    ("ws://h:1", None), ("http://:80", None), ("http://h:99999", None),
    ("http://h:port", None), ("h:80", None), ("", None),
])
def test_http_url_parts_wants_http_a_host_and_a_valid_port(
        value: str, parts: tuple[object, ...] | None) -> None:
    """None for anything else; the path is left for the caller."""
    got = http_url_parts(value)
    if parts is None:
        assert got is None
    else:
        assert got is not None and (got.scheme, got.hostname, got.port, got.path) == parts
