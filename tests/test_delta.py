"""View deltas: diff then apply gives the new view; deltas stay small."""

from __future__ import annotations

import copy
import random
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from cardhall.protocol import apply_delta, diff, top_keys
from cardhall.server.games import create
from cardhall.server.games.bots import strategy

leaves = st.one_of(st.none(), st.booleans(), st.integers(-5, 5), st.text(max_size=3))
trees = st.recursive(leaves, lambda kids: st.one_of(
    st.lists(kids, max_size=4), st.dictionaries(st.text(max_size=3), kids, max_size=4)),
    max_leaves=20)
views = st.dictionaries(st.text(max_size=4), trees, min_size=1, max_size=5)


@settings(max_examples=300, deadline=None)
@given(views, st.data())
def test_apply_of_diff_gives_the_new_view(old: dict[str, Any], data: st.DataObject) -> None:
    new = {k: data.draw(st.one_of(st.just(v), trees)) for k, v in old.items()}
    delta = diff(old, new)
    assert apply_delta(copy.deepcopy(old), delta) == new
    assert top_keys(delta) <= set(new)
    if old == new:
        assert delta == {}


def test_pointer_tokens_are_escaped() -> None:
    old = {"a/b": {"c~d": [1, 2, 3, 4]}, "x": 1}
    new = copy.deepcopy(old)
    new["a/b"]["c~d"][2] = 9
    delta = diff(old, new)
    assert delta == {"/a~1b/c~0d/2": 9}
    assert apply_delta(copy.deepcopy(old), delta) == new
    assert top_keys(delta) == {"a/b"}


def test_skipper_deltas_are_small_and_exact() -> None:
    game = create("skipper", {"mode": "multi", "seed": 4}, 4)
    bot, rng = strategy("skipper", "greedy"), random.Random(1)
    last = [game.view(s) for s in range(4)]
    held = copy.deepcopy(last)
    sizes = []
    import msgpack
    while not game.over:
        seat = game.to_act()[0]
        game.apply(seat, bot(game.bot_view(seat), rng))
        for s in range(4):
            now = game.view(s)
            delta = diff(last[s], now)
            sizes.append(len(msgpack.packb(delta)))
            assert apply_delta(held[s], copy.deepcopy(delta)) == now
            last[s] = now
    sizes.sort()
    full = len(msgpack.packb(game.view(0)))
    assert sizes[len(sizes) // 2] < full / 4


def test_top_level_keys_that_look_like_pointers() -> None:
    old: dict[str, Any] = {"": [], "/": None}
    new: dict[str, Any] = {"": [], "/": []}
    assert apply_delta(copy.deepcopy(old), diff(old, new)) == new
    assert apply_delta({"/": 1}, diff({"/": 1}, {"/": 2})) == {"/": 2}


def test_memo_gives_the_same_deltas() -> None:
    shared_old = {"seats": [{"hand": 5}, {"hand": 5}], "turn": 0}
    shared_new = {"seats": [{"hand": 4}, {"hand": 5}], "turn": 1}
    memo: dict[Any, Any] = {}
    for seat in (0, 1):
        old = {**shared_old, "hand": ["AS"] * (5 - seat)}
        new = {**shared_new, "hand": ["AS"] * (4 - seat)}
        assert diff(old, new, memo) == diff(old, new)
        assert apply_delta(copy.deepcopy(old), diff(old, new, memo)) == new
    assert memo  # the shared values were diffed once and reused


def test_every_seat_changing_a_little_gives_pointers_not_the_whole_list() -> None:
    # A Skipper play makes every other seat draw: all four seats change, each a little.
    seat = {"stacks": [{"suit": s, "cards": ["A" + s], "values": [1], "complete": False}
                       for s in "CDHS"], "discard_top": None, "discard": 0, "stock": 40,
            "hand": 7, "trash": 0, "turns": 3, "phase": "start", "status": "active"}
    old = {"seats": [copy.deepcopy(seat) for _ in range(4)]}
    new = copy.deepcopy(old)
    for i, s in enumerate(new["seats"]):
        s["stock"] -= 1
        s["hand"] += 1 + (i == 0)
    new["seats"][0]["stacks"][2]["cards"].append("QD")
    delta = diff(old, new)
    assert "seats" not in delta and "/seats/0/stacks/2/cards" in delta
    assert delta["/seats/3/stock"] == 39
    assert apply_delta(copy.deepcopy(old), delta) == new
    import msgpack
    assert len(msgpack.packb(delta)) < len(msgpack.packb({"seats": new["seats"]})) / 3


def test_small_entries_that_all_changed_are_replaced_whole() -> None:
    old = {"legal_actions": [["play", "QC", s] for s in "CDHS"]}
    new = {"legal_actions": [["play", "QD", s] for s in "CDHS"]}
    assert diff(old, new) == {"legal_actions": new["legal_actions"]}
