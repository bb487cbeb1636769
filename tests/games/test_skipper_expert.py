"""The Skipper ``expert`` bot (games/skipper/bots/expert.py): determinism, legality, its search
budget, and what it does differently from greedy in multiplayer (issue #19)."""

from __future__ import annotations

import functools
import random
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from cardhall.games import cards as C
from cardhall.games import create
from cardhall.games.bots import strategy
from cardhall.games.skipper import Skipper, rank_of, spare
from cardhall.games.skipper.bots.expert import expert, own_game

greedy = strategy("skipper", "greedy")


def _positions(seats: int, seeds: range, want: Callable[[Skipper, int], bool],
               mode: str = "multi") -> Iterator[tuple[Skipper, int]]:
    """Positions of greedy self-play games where ``want(game, seat to act)`` holds (the
    game is handed out before the next move, so the caller must look at it at once)."""
    for seed in seeds:
        g = create("skipper", {"mode": mode, "seed": seed}, seats)
        assert isinstance(g, Skipper)
        rng = random.Random(seed)
        while not g.over:
            seat = g.to_act()[0]
            if want(g, seat):
                yield g, seat
            g.apply(seat, greedy(g.bot_view(seat), rng))


def _searched(g: Skipper, seat: int) -> bool:
    """A turn decision with at least three plays, discards or ends to choose from."""
    return g.auction is None and sum(
        a[0] in ("play", "discard", "end") for a in g.legal_actions(seat)) >= 3


def test_expert_is_deterministic_given_a_seed() -> None:
    for mode, seats in (("solo", 1), ("multi", 2), ("multi", 3), ("multi", 4), ("race", 2)):
        found = 0
        for g, seat in _positions(seats, range(3), _searched, mode):
            if g.players[seat].turns < 3:
                continue
            stats1: dict[str, int] = {}
            stats2: dict[str, int] = {}
            first = expert(g.bot_view(seat), random.Random(5), stats=stats1)
            assert first == expert(g.bot_view(seat), random.Random(5), stats=stats2)
            assert stats1 == stats2
            if not stats1["rollouts"]:
                continue  # decided without search (a natural play)
            found += 1
            if found == 3:
                break
        assert found == 3, mode


@pytest.mark.parametrize("seats", [2, 3])
def test_expert_plays_only_legal_actions_through_whole_games(seats: int) -> None:
    cheap = functools.partial(expert, samples=1, rollouts=12)
    for seed in range(2):
        g = create("skipper", {"mode": "multi", "seed": seed}, seats)
        rng = random.Random(seed)
        while not g.over:
            seat = g.to_act()[0]
            view = g.bot_view(seat)
            action = cheap(view, rng) if seat == seed % seats else greedy(view, rng)
            legal = [tuple(a) for a in g.legal_actions(seat)]
            assert action in legal and action[0] != "resign", (action, legal)
            g.apply(seat, action)
        assert g.outcome() is not None


def test_expert_respects_its_rollout_budget() -> None:
    checked = 0
    for g, seat in _positions(3, range(4), _searched):
        view = g.bot_view(seat)
        cands = sum(a[0] in ("play", "discard", "end") for a in g.legal_actions(seat))
        for cap in (cands, cands + 2, 3 * cands, 64):
            stats: dict[str, int] = {}
            action = expert(view, random.Random(1), rollouts=cap, stats=stats)
            assert action in [tuple(a) for a in g.legal_actions(seat)]
            assert stats.get("rollouts", 0) <= cap
        # A spent time cap still plays one deal: every candidate once, no more.
        stats = {}
        expert(view, random.Random(1), budget_ms=0.0, stats=stats)
        assert stats.get("rollouts", 0) <= cands
        checked += 1
        if checked == 6:
            break
    assert checked == 6


def _greedy_sells(g: Skipper, seat: int) -> bool:
    return g.auction is None and greedy(g.bot_view(seat), random.Random(0))[0] == "auction"


@pytest.mark.parametrize("seats", [2, 3, 4])
def test_expert_does_not_sell_a_card_another_seat_can_play_now(seats: int) -> None:
    """Where greedy auctions a spare card to a seat that can play it now (handing it a
    tempo, K9-K10), the expert keeps it from them and discards a spare card instead."""
    seen = 0
    for g, seat in _positions(seats, range(12), _greedy_sells):
        view = g.bot_view(seat)
        action = expert(view, random.Random(3))
        assert action[0] != "auction", action
        assert action in [tuple(a) for a in g.legal_actions(seat)]
        seen += 1
        if seen == 4:
            break
    assert seen == 4


def _seller_takes(code: str, seller: Any) -> bool:
    """Could the seller play ``code`` on its stacks now (a natural, K1)?"""
    s = seller[C.SUITS.index(code[1])]
    return not s["complete"] and rank_of(code) - 1 in s["values"]


def _contested(g: Skipper, seat: int) -> bool:
    """The seat bids in an auction of a card its stack takes now, holding two spare cards
    of different ranks that beat the high bid and that the seller cannot play now."""
    a = g.auction
    if a is None:
        return False
    view = g.bot_view(seat)
    me = view["seats"][seat]["stacks"]
    card = C.code(a["card"])
    st = me[C.SUITS.index(card[1])]
    if st["complete"] or rank_of(card) - 1 not in st["values"] or rank_of(card) >= 12:
        return False
    seller = view["seats"][a["seller"]]["stacks"]
    spares = spare(view["hand"], me, view["options"])
    ranks = {rank_of(b[1]) for b in view["legal_actions"]
             if b[0] == "bid" and b[1] in spares and not _seller_takes(b[1], seller)}
    return len(ranks) >= 2


def test_expert_outbids_with_its_highest_spare_card() -> None:
    """K10: the highest bid wins. For a card it can play now the expert bids its highest
    spare card that the seller cannot play now (greedy bids its lowest, and loses the card
    to a later, higher bid)."""
    seen = 0
    for g, seat in _positions(4, range(40), _contested):
        view = g.bot_view(seat)
        action = expert(view, random.Random(0))
        spares = spare(view["hand"], view["seats"][seat]["stacks"], view["options"])
        seller = view["seats"][view["auction"]["seller"]]["stacks"]
        bids = [a[1] for a in view["legal_actions"] if a[0] == "bid" and a[1] in spares
                and not _seller_takes(a[1], seller)]
        assert action[0] == "bid"
        assert rank_of(action[1]) == max(rank_of(b) for b in bids), (action, bids)
        assert greedy(view, random.Random(0)) != action
        seen += 1
        if seen == 3:
            break
    assert seen == 3


def _holds_passed_card(g: Skipper, seat: int) -> bool:
    """Multi: the seat's draw pile holds a card dead for the seat but live for another
    active seat (RULINGS K6m: it is not trashed when drawn)."""
    if seat != 0 or g.players[0].turns < 8:
        return False
    return any(g.rules.dead_for(c, g.players[0])
               and not all(g.rules.dead_for(c, q) for q in g.players[1:])
               for c in g.players[0].stock)


def test_expert_samples_keep_multiplayer_dead_test() -> None:
    """A rollout sample of the seat's own game (own_game) must not trash a card the seat
    has passed while another seat can still play it (RULINGS K6m, not solo's K6): in the
    real game that card comes back into the hand."""
    g, seat = next(_positions(2, range(10), _holds_passed_card))
    sample = own_game(g.bot_view(seat), random.Random(0))
    me = sample.players[seat]
    other = sample.players[1 - seat]
    passed = [c for c in range(52 * 2)
              if sample.rules.dead_for(c, me) and not sample.rules.dead_for(c, other)]
    assert passed
    assert not any(sample.dead(c, me) for c in passed)
    dead_for_both = [c for c in range(52 * 2)
                     if sample.rules.dead_for(c, me) and sample.rules.dead_for(c, other)]
    assert all(sample.dead(c, me) for c in dead_for_both)


def test_expert_samples_receive_skip_draws() -> None:
    """RULINGS K11: in multi the other seats' skippers make the seat draw; the sample of
    its own game expects them at the rate the others have played skippers so far."""
    g, seat = next(_positions(3, range(5), lambda g, s: g.players[s].turns >= 6))
    view: Any = g.bot_view(seat)
    sample = own_game(view, random.Random(0))
    assert getattr(sample, "skip_rate", 0.0) > 0.0
    g2 = create("skipper", {"mode": "multi", "seed": 1, "skip_draws": False}, 3)
    assert getattr(own_game(g2.bot_view(0), random.Random(0)), "skip_rate", 0.0) == 0.0
