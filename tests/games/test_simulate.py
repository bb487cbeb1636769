"""Offline simulation: lineups of strategies per seat, and the summary's figures."""

from __future__ import annotations

import sys

import pexpect
import pytest
from cardhall.games.errors import OptionError
from cardhall.games.simulate import lineup, run, summarize

from ..conftest import assert_one_error, run_cli


def test_lineup_gives_each_strategy_every_seat_in_turn() -> None:
    assert lineup("greedy", 3) == ["greedy"] * 3
    assert lineup("expert,greedy", 3, 0) == ["expert", "greedy", "greedy"]
    assert lineup("expert,greedy", 3, 1) == ["greedy", "greedy", "expert"]
    assert lineup("expert,greedy", 3, 2) == ["greedy", "expert", "greedy"]
    seats_of_expert = {lineup("expert,greedy", 4, k).index("expert") for k in range(4)}
    assert seats_of_expert == {0, 1, 2, 3}


def test_summary_counts_sales_and_wins_by_strategy() -> None:
    records = list(run("skipper", {"mode": "multi"}, 2, "random,greedy", 4, 2))
    assert [r["strategies"] for r in records] == [
        ["random", "greedy"], ["greedy", "random"], ["random", "greedy"], ["greedy", "random"]]
    summary = summarize(records)
    assert summary["seats_by_strategy"] == {"random": 4, "greedy": 4}
    won = summary["wins_by_strategy"]
    assert sum(won.values()) == summary["wins"]
    assert summary["sales_per_game"] == sum(r["sold"] for r in records) / 4
    assert "wins_by_strategy" not in summarize(list(run("skipper", {}, 1, "greedy", 2, 1)))


def test_outcomes_are_counted_by_kind_and_reasons_without_their_numbers() -> None:
    # Thirty-Six's reasons name the points ("scored 52 points, more than 36"): one bucket
    # per score made dozens of outcomes. Outcomes are kinds; reasons drop their numbers.
    records = list(run("thirtysix", {}, 1, "greedy", 30, 1))
    assert len({r["outcome"] for r in records}) > 3  # the engine's words differ by score
    summary = summarize(records)
    assert set(summary["outcomes"]) <= {"won", "lost", "limit", "abandoned"}
    assert sum(summary["outcomes"].values()) == 30
    assert summary["outcomes"].get("won", 0) == summary["wins"]
    assert all(not any(ch.isdigit() for ch in reason) for reason in summary["reasons"])
    assert len(summary["reasons"]) <= 3


# -- issue #33: the command line's simulate ---------------------------------------------------

def test_a_lineup_of_more_strategies_than_seats_is_refused() -> None:
    with pytest.raises(OptionError, match="5 strategies .* for 4 seats"):
        lineup("greedy,random,greedy,random,expert", 4)
    assert_one_error(run_cli("simulate", "--mode", "multi", "--players", "4", "--strategy",
                             "greedy,random,greedy,random,expert"),
                     "--strategy", "5 strategies", "4 seats")


def test_a_summary_leaves_out_the_figures_a_game_does_not_have() -> None:
    records = list(run("shufflejack", {}, 1, "greedy", 2, 1))
    assert "mean_turns" not in summarize(records)  # ShuffleJack counts no turns
    proc = run_cli("simulate", "--game", "shufflejack", "--games", "2")
    assert proc.returncode == 0, proc.stderr
    assert "None" not in proc.stdout and "mean_score" in proc.stdout
    assert "mean_turns" in run_cli("simulate", "--game", "shah", "--games", "1").stdout


def test_simulate_shows_the_actions_of_a_slow_game_while_it_is_played() -> None:
    # An expert Skipper multi game takes many seconds: the bar must move before it ends.
    child = pexpect.spawn(sys.executable, ["-m", "cardhall.cli", "simulate", "--mode",
                                           "multi", "--strategy", "expert", "--games", "1"],
                          encoding="utf-8", timeout=20, dimensions=(24, 120))
    try:
        child.expect(r"game 1: (\d+) actions")
        first = int(child.match.group(1))
        child.expect(r"game 1: (\d+) actions")
        assert int(child.match.group(1)) > first
    finally:
        child.close(force=True)
