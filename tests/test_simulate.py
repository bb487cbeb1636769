"""Offline simulation: lineups of strategies per seat, and the summary's figures."""

from __future__ import annotations

from cardhall.games.simulate import lineup, run, summarize


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
