"""Tests of the client commands' shared parts (``cardhall.cli.play``) in-process: every way a
server fails a command as one ``Error:`` line, ``verify``'s refusals before any check, and
the room list's forms. (tests/cli/test_bot_tools.py and tests/server/test_fairness.py run the
commands against live servers.)"""

from __future__ import annotations

import json
from pathlib import Path

import click
import pytest
from cardhall.cli.play import echo_rooms, reaching, seats_taken, verify
from cardhall.client.client import ConnectionLost, ServerError
from click.testing import CliRunner

URL = "ws://127.0.0.1:1"


@pytest.mark.parametrize("exc, message", [
    (ServerError("room/full", "every seat is taken"), "server refused: room/full: every seat"),
    (ConnectionLost("closed 1001"), f"lost the connection to {URL}: closed 1001"),
    (ConnectionRefusedError(111, "refused"), f"cannot reach {URL}: connection refused: "
                                             "nothing listens on 127.0.0.1:1"),
    (TimeoutError(), f"cannot reach {URL}: no answer in time"),
])
def test_reaching_turns_each_failure_into_one_click_error(exc: Exception, message: str) -> None:
    """A refusal, a lost connection and an unreachable server, each in words."""
    with pytest.raises(click.ClickException) as err:
        with reaching(URL):
            raise exc
    assert err.value.message.startswith(message), err.value.message


def test_reaching_lets_a_bug_through() -> None:
    """What is not a connection's failure is not dressed up as one."""
    with pytest.raises(KeyError):
        with reaching(URL):
            raise KeyError("bug")


@pytest.mark.parametrize("args, needle", [
    ([], "give a RECORD file, or --url and --room"),
    (["--url", URL], "--url needs --room"),
])
def test_verify_needs_one_source(args: list[str], needle: str) -> None:
    """Exit 2 before anything is read or fetched."""
    result = CliRunner().invoke(verify, args)
    assert result.exit_code == 2 and needle in result.output, result.output


@pytest.mark.parametrize("text, needle", [("{not json", "cannot read"),
                                          ("[1, 2]", "holds no game record")])
def test_verify_refuses_a_file_that_is_no_record(tmp_path: Path, text: str,
                                                 needle: str) -> None:
    """One Error line, exit 1."""
    record = tmp_path / "game.json"
    record.write_text(text)
    result = CliRunner().invoke(verify, [str(record)])
    assert result.exit_code == 1 and needle in result.output, result.output


def test_verify_says_why_a_deal_is_not_verified(tmp_path: Path) -> None:
    """A record whose commitment does not match its seed: exit 1, the reason on stderr."""
    record = tmp_path / "game.json"
    record.write_text(json.dumps({
        "format": "cardhall-game-record/1", "room": "r1", "game": "shop", "seats": 1,
        "seat": None, "seed": 1, "salt": "0" * 32, "commitment": "0" * 64, "state_id": 0,
        "outcome": {}, "options": {}, "log": [], "seen": []}))
    result = CliRunner().invoke(verify, [str(record)])
    assert result.exit_code == 1 and result.stdout == ""
    assert result.stderr.startswith("deal NOT verified: tampered seed: sha256 of seed 1")


def test_room_lists_print_json_none_or_a_table() -> None:
    """One JSON array; ``no rooms``; or the header then a row per room."""
    room = {"room": "r1", "taken": 1, "seats": 4}

    @click.command()
    @click.option("--json", "as_json", is_flag=True)
    @click.option("--empty", is_flag=True)
    def listing(as_json: bool, empty: bool) -> None:
        echo_rooms([] if empty else [room], as_json, "room seats",
                   lambda r: f"{r['room']} {seats_taken(r)}")

    assert CliRunner().invoke(listing, ["--json"]).stdout == (
        '[{"room": "r1", "seats": 4, "taken": 1}]\n')
    assert CliRunner().invoke(listing, ["--empty"]).stdout == "no rooms\n"
    assert CliRunner().invoke(listing, []).stdout == "room seats\nr1 1/4\n"


LOCAL = "ws://127.0.0.1:8765"


def test_play_uses_the_servers_guest_name_and_the_local_server(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue #44 item 12: ``cardhall play`` without --name asks for no name (the server's
    guest name stays; before, the Unix user's: "playing as 'root'"), and without --url
    plays on the local server."""
    import getpass

    import cardhall.client.account_file as account_file
    import cardhall.client.terminal as terminal
    from cardhall.cli.play import play

    seen: dict[str, object] = {}

    async def sign_in_options(url: str, **_: object) -> dict[str, object]:
        seen["signed_in_at"] = url
        return {}

    async def run(url: str, **kwargs: object) -> int:
        seen.update(url=url, **kwargs)
        return 0

    monkeypatch.setattr(getpass, "getuser", lambda: "root")
    monkeypatch.setattr(account_file, "sign_in_options", sign_in_options)
    monkeypatch.setattr(terminal, "play", run)
    result = CliRunner().invoke(play, [])
    assert result.exit_code == 0, result.output
    assert seen["url"] == LOCAL and seen["signed_in_at"] == LOCAL
    assert seen["name"] == ""
    result = CliRunner().invoke(play, ["--name", "Alice"])
    assert seen["name"] == "Alice"


def test_the_client_commands_default_to_the_local_server() -> None:
    """``rooms`` and ``bots`` too: --url defaults to ws://127.0.0.1:8765."""
    from cardhall.cli.play import bots, rooms

    for command in (rooms, bots):
        url = next(p for p in command.params if p.name in ("url", "urls"))
        assert not url.required
        default = url.default
        assert (list(default) if isinstance(default, tuple | list) else [default]) == [LOCAL]
