"""Tests of The Shah's planning bot (``cardhall.games.shah.greedy_strategy``) and of the
ceiling solver (``benchmarks/shah_ceiling.py``), which checks the compact model
(``cardhall.games.shah.model``) against the engine at every step: RULINGS H1-H10,
issue #21."""

from __future__ import annotations

import importlib.util
import random
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from cardhall.games import cards as C
from cardhall.games.shah import TheShah, foundation_ace, greedy_strategy, pack_cards
from cardhall.games.simulate import play_game

from tests.engine_harness import random_playout
from tests.engine_profiles import shah_allowed as allowed
from tests.engine_profiles import shah_candidates as candidates

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "shah_ceiling.py"


def position(foundations: Sequence[str], star: Sequence[Sequence[Sequence[str]]],
             talon: Sequence[str] = (), up: str | None = None,
             stock: Sequence[str] | None = None) -> TheShah:
    """A game in the ``play`` phase at a given table: ``foundations`` are the 8 top codes
    (only rank and suit count: each foundation holds its ace and then one card of every
    rank up to that one, of whichever pack is free), ``star`` 8 rays x 3 piles of codes
    (bottom first); the stock holds ``stock`` or else every pack card not on the table."""
    piles = [[[C.parse(x) for x in pile] for pile in ray] for ray in star]
    table = {c for ray in piles for pile in ray for c in pile}
    table |= {C.parse(x) for x in talon} | ({C.parse(up)} if up else set())
    fnd = [[foundation_ace(f)] for f in range(8)]
    for s in range(4):
        tops = [C.rank(C.parse(foundations[f])) for f in (s, s + 4)]
        for k in range(2, 13):
            free = [C.make(k, s, d) for d in (0, 1) if C.make(k, s, d) not in table]
            for f, top in zip((s, s + 4), tops):
                if top >= k:
                    fnd[f].append(free.pop(0))
    placed = table | {c for pile in fnd for c in pile}
    rest = [c for c in pack_cards() if c not in placed] if stock is None else \
        [C.parse(x) for x in stock]
    snap = TheShah({"seed": 0}).snapshot()
    snap.update({"phase": "play", "circle": 2, "grace_ray": None, "stock": rest,
                 "talon": [C.parse(x) for x in talon],
                 "up": None if up is None else C.parse(up), "foundations": fnd,
                 "star": piles})
    return TheShah.restore(snap)


# -- the bot ---------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", [0, 2, 7])
def test_bot_actions_are_always_legal(seed: int) -> None:
    game = random_playout(TheShah({"seed": seed}), greedy_strategy, allowed=allowed,
                          candidates=candidates, rng_seed=seed)
    assert game.over


def test_bot_is_deterministic() -> None:
    game = TheShah({"seed": 41})
    for _ in range(40):
        view = game.view(0)
        first = greedy_strategy(view, random.Random(1))
        assert greedy_strategy(view, random.Random(2)) == first
        game.apply(0, first)
        if game.over:
            break


def test_bot_wins_a_deal_the_old_bot_lost() -> None:
    # The old greedy bot won none of seeds 0..299; seed 2 ends with all eight queens.
    rec = play_game("shah", {}, 1, "greedy", 2)
    assert rec["winner"] == 0 and rec["scores"] == [88]


def test_bot_uses_the_grace_rather_than_resign() -> None:
    # The pack and the talon are out. JC1 on QC1 blocks JH1; the only moves are graces
    # (H6). Gracing JC1 then QC1 into empty rays frees JH1 and the game is won; the old
    # bot resigned here (a grace that uncovers no playable card looked useless to it).
    empty: list[list[str]] = [[], [], []]
    star = [empty, [["JD1"], ["JH1"], ["QC1", "JC1"]], [["TC1"], ["QH1"], []], empty,
            empty, [["QD1"], [], []], empty, empty]
    game = position(["QC", "QD", "QH", "QS", "9C", "TD", "TH", "QS1"], star, stock=[])
    assert game.legal_actions(0)[0][0] == "grace"
    first = greedy_strategy(game.view(0), random.Random(0))
    assert first[0] == "grace"
    while not game.over:
        game.apply(0, greedy_strategy(game.view(0), random.Random(0)))
    assert game.outcome() == {"winner": 0, "reason": "all foundations reached the queen",
                              "scores": [88]}


def test_bot_keeps_a_late_card_off_a_pile_that_covers_the_next_card() -> None:
    # Clubs wait for 4C1, which lies under TD1 and QS1 on ray 5. Marrying the turned JS1
    # onto QS1 would bury 4C1 one card deeper; the talon is empty, so JS1 (wanted late)
    # costs nothing there. The old bot married every turned card it could.
    star = [[["TC"], ["5H1"], ["QC"]], [["9C"], ["6C1"], ["3S1"]],
            [["9H"], ["6D1"], ["4H", "3H"]], [["TS"], ["QS"], ["8H1"]],
            [["TD"], ["3S"], ["6H1"]], [["4C1"], ["TD1"], ["QS1"]],
            [["6H"], ["4S1"], ["6S1"]], [["9H1"], ["6S"], ["8C1"]]]
    game = position(["3C", "2D", "AH", "AS", "AC1", "2D1", "AH1", "AS1"], star, up="JS1")
    assert ("marry", "JS1", 5) in game.legal_actions(0)
    assert greedy_strategy(game.view(0), random.Random(0)) != ("marry", "JS1", 5)


# -- the ceiling solver ------------------------------------------------------------------


def _ceiling() -> Any:
    spec = importlib.util.spec_from_file_location("shah_ceiling", BENCH)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules["shah_ceiling"] = mod
    spec.loader.exec_module(mod)
    return mod


def test_ceiling_solution_replays_to_a_win() -> None:
    ceiling = _ceiling()
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 20_000))
    for seed in (18, 19):
        stock = ceiling.deal_stock(seed)
        result, path, _n = ceiling.solve(stock, 20_000, 60.0)
        assert result == "won"
        assert ceiling.replay(seed, path, stock)
        # the engine refuses a broken solution: drop the last choice and it is no win
        assert not ceiling.replay(seed, path[:-1], stock)
