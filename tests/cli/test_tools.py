"""Tests of the offline and file tools (``cardhall.cli.tools``) run in-process by click's
runner: simulate's output and refusals, backup and migrate on SQLite files.
(tests/cli/test_bot_tools.py runs simulate with users' strategies and the schema command.)"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cardhall.cli.tools import backup, migrate, simulate
from cardhall.server.store.sqlite_file import open_file
from click.testing import CliRunner


def test_simulate_json_is_one_line_per_game_then_the_summary() -> None:
    """Seeds run from --seed up; the same command gives the same lines."""
    args = ["--game", "shop", "--games", "3", "--seed", "7", "--strategy", "random", "--json"]
    first = CliRunner().invoke(simulate, args)
    assert first.exit_code == 0, first.output
    lines = [json.loads(line) for line in first.stdout.splitlines()]
    assert [line["game"] for line in lines[:3]] == ["shop"] * 3
    assert lines[3]["summary"] is True and lines[3]["games"] == 3
    assert CliRunner().invoke(simulate, args).stdout == first.stdout


def test_simulate_plain_summary_names_the_run() -> None:
    """The first line says game, seats, strategy and seeds; figures follow, indented."""
    result = CliRunner().invoke(simulate, ["--game", "shufflejack", "--games", "2"])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0].startswith("shufflejack") and "seats=1 strategy=greedy seeds=1..2" in lines[0]
    assert any(line.startswith("  games") and line.split()[-1] == "2" for line in lines)


@pytest.mark.parametrize("args, needle", [
    (["--game", "shop", "--mode", "multi"], "shop has no modes"),
    (["--game", "shop", "--option", "novalue"], "expected key=value"),
    (["--game", "shop", "--option", "max_moves=lots"], "max_moves"),
    (["--game", "shop", "--strategy", "greedy,,random"], "--strategy"),
])
def test_simulate_refuses_bad_options_as_usage_errors(args: list[str], needle: str) -> None:
    """Exit 2 and click's usage message naming the fault, before any game is played."""
    result = CliRunner().invoke(simulate, [*args, "--games", "1"])
    assert result.exit_code == 2 and needle in result.output, result.output


def test_backup_copies_a_data_file_and_names_a_missing_one(tmp_path: Path) -> None:
    """Exit 0 with the copy's size; a missing source is one error line, exit 1."""
    source = tmp_path / "data.db"
    open_file(source).close()
    done = CliRunner().invoke(backup, [str(tmp_path / "copy.db"), "--data", str(source)])
    assert done.exit_code == 0, done.output
    assert done.stdout.startswith(f"backed up {source} to {tmp_path / 'copy.db'} (")
    missing = CliRunner().invoke(backup, [str(tmp_path / "x.db"), "--data",
                                          str(tmp_path / "none.db")])
    assert missing.exit_code == 1 and "no data file at" in missing.output


def test_migrate_between_sqlite_files(tmp_path: Path) -> None:
    """An empty lobby copies as zero rooms into a new file; a missing source is refused."""
    source = tmp_path / "a.db"
    open_file(source).close()
    done = CliRunner().invoke(migrate, ["--from", str(source), "--to", str(tmp_path / "b.db")])
    assert done.exit_code == 0, done.output
    assert "copied 0 rooms" in done.stdout and (tmp_path / "b.db").is_file()
    missing = CliRunner().invoke(migrate, ["--from", str(tmp_path / "none.db"),
                                           "--to", str(tmp_path / "c.db")])
    assert missing.exit_code == 1 and "no data file at" in missing.output
    assert not (tmp_path / "c.db").exists()
