"""View deltas: diff then apply gives the new view; deltas stay small; the deltas an engine
reports (Game.deltas) give the same views, in the engine and through a room."""

from __future__ import annotations

import asyncio
import copy
import random
from typing import Any

import msgpack
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cardhall.protocol import (Act, Joined, Update, apply_delta, decode, diff, diff_value,
                               encode, top_keys)
from cardhall.games import create
from cardhall.games.bots import strategy
from cardhall.games.skipper import observer as O
from cardhall.games.skipper.observer import Observer
from cardhall.games.skipper import Skipper
from cardhall.server import build
from cardhall.server.room import Room
from cardhall.server.store.memory_store import MemoryStore

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
    # Equal as the wire sees it: 0 == False in Python, but msgpack sends them apart
    # (hypothesis found ``{"": 0}`` -> ``{"": False}``: a change the delta must carry).
    if msgpack.packb(old) == msgpack.packb(new):
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
    assert len(msgpack.packb(delta)) < len(msgpack.packb({"seats": new["seats"]})) / 3


def test_small_entries_that_all_changed_are_replaced_whole() -> None:
    old = {"legal_actions": [["play", "QC", s] for s in "CDHS"]}
    new = {"legal_actions": [["play", "QD", s] for s in "CDHS"]}
    assert diff(old, new) == {"legal_actions": new["legal_actions"]}


def _random_turns(game: Any, seats: int, rng: random.Random, steps: int) -> Any:
    """Play up to ``steps`` random legal actions (auctions and bids included in multi), now
    and then a forfeit; yield after each change of state."""
    for _ in range(steps):
        if game.over:
            return
        active = [i for i in range(seats) if game.view(i)["seats"][i]["status"] == "active"]
        if seats > 1 and len(active) > 1 and rng.random() < 0.01:
            game.forfeit(rng.choice(active))
        else:
            seat = rng.choice(game.to_act())
            legal = game.legal_actions(seat)
            game.apply(seat, rng.choice([a for a in legal if a[0] != "resign"] or legal))
        yield


@pytest.mark.parametrize(("mode", "seats", "seed"), [
    ("multi", 4, 1), ("multi", 2, 2), ("multi", 6, 3), ("race", 3, 4), ("race", 2, 5),
    ("solo", 1, 6),
])
def test_skipper_deltas_turn_the_last_views_into_the_new_ones(
        mode: str, seats: int, seed: int) -> None:
    # Every seat and a spectator, every state, with the deltas asked for before the views
    # are built (as a room does) or after (the engine's view caches already moved on).
    game = create("skipper", {"mode": mode, "seed": seed}, seats)
    rng = random.Random(seed)
    everyone = [*range(seats), None]
    assert game.deltas(everyone) is None  # nothing seen before: it cannot tell
    held = copy.deepcopy(game.views(everyone))
    kinds: set[str] = set()
    for step, _ in enumerate(_random_turns(game, seats, rng, 600)):
        if step % 2:
            deltas = game.deltas(everyone)
            now = game.views(everyone)
        else:
            now = game.views(everyone)
            deltas = game.deltas(everyone)
        assert deltas is not None
        assert game.deltas(everyone) is None  # this state was reported already
        for s in everyone:
            assert apply_delta(held[s], copy.deepcopy(deltas[s])) == now[s]
            kinds |= top_keys(deltas[s])
        assert "hand" not in deltas[None] and "legal_actions" not in deltas[None]
    assert game.over or mode == "race"
    assert {"state_id", "seats", "hand", "legal_actions", "to_act"} <= kinds
    if mode == "multi":
        assert "auction" in kinds


def test_skipper_deltas_cannot_tell_across_a_state_they_did_not_see() -> None:
    game = create("skipper", {"mode": "multi", "seed": 3}, 2)
    rng = random.Random(3)
    assert game.deltas([0, 1]) is None
    turns = _random_turns(game, 2, rng, 50)
    next(turns)
    assert game.deltas([0, 1]) is not None
    next(turns)
    next(turns)  # two actions since the last report: the seats' views are two states old
    assert game.deltas([0, 1]) is None
    next(turns)
    assert game.deltas([0, 1]) is not None


def test_skipper_deltas_read_leader_first_are_those_read_at_once() -> None:
    # A room reads the acting seat's delta first and writes its update before it reads the
    # others: each seat's own part is built when read, and must not depend on the order.
    a = create("skipper", {"mode": "multi", "seed": 8}, 4)
    b = create("skipper", {"mode": "multi", "seed": 8}, 4)
    everyone = [0, 1, 2, 3, None]
    a.deltas(everyone)
    b.deltas(everyone)
    rng_a, rng_b = random.Random(8), random.Random(8)
    steps = 0
    for _ in zip(_random_turns(a, 4, rng_a, 400), _random_turns(b, 4, rng_b, 400)):
        da, db = a.deltas(everyone), b.deltas(everyone)
        assert da is not None and db is not None
        at_once = {s: da[s] for s in everyone}
        leader = b.to_act()[0] if b.to_act() else 0
        by_turns = {leader: db[leader]}
        for s in reversed(everyone):
            by_turns[s] = db[s]
        assert by_turns == at_once and dict(db) == dict(da)
        steps += 1
    assert steps > 100


def _after_one_action(seed: int) -> tuple[Any, Any, Any]:
    """A 4-seat multi game that reported its deltas at the start, one random action later:
    (game, the generator of further actions, the deltas of that action)."""
    game = create("skipper", {"mode": "multi", "seed": seed}, 4)
    game.deltas(range(4))
    turns = _random_turns(game, 4, random.Random(seed), 50)
    next(turns)
    deltas = game.deltas(range(4))
    assert deltas is not None
    return game, turns, deltas


@pytest.mark.skipif(build.kind() == "compiled", reason="patches Observer.hand_view, which a "
                    "compiled class refuses (the whole suite runs on the pure build)")
def test_a_seats_own_part_is_built_when_its_delta_is_read(
        monkeypatch: pytest.MonkeyPatch) -> None:
    game = create("skipper", {"mode": "multi", "seed": 4}, 4)
    assert isinstance(game, Skipper)
    built: list[int] = []
    hand_view = Observer.hand_view

    def counted(self: Observer, g: Skipper, seat: int) -> list[str]:
        built.append(seat)
        return hand_view(self, g, seat)

    monkeypatch.setattr(Observer, "hand_view", counted)
    game.deltas(range(4))
    next(_random_turns(game, 4, random.Random(4), 50))
    built.clear()
    deltas = game.deltas(range(4))
    assert deltas is not None and built == []  # the shared part only, so far
    deltas[2]
    assert built == [2]
    for s in range(4):
        deltas[s]
    assert sorted(built) == [0, 1, 2, 3]  # each hand once: seat 2's was kept


def test_a_delta_first_read_after_the_game_moved_on_is_refused() -> None:
    _, turns, deltas = _after_one_action(6)
    first = deltas[0]
    next(turns)
    assert deltas[0] is first  # read before: kept
    with pytest.raises(RuntimeError, match="after the state"):
        deltas[1]
    with pytest.raises(KeyError):
        deltas[None]  # not asked for


def test_a_seat_not_read_at_one_state_makes_the_next_report_unknown() -> None:
    # Its own part at that state was never built, so its next delta cannot be told; the
    # room then diffs views for that broadcast (a member sent a full view meanwhile).
    game, turns, deltas = _after_one_action(2)
    deltas[0], deltas[1], deltas[2]  # seat 3's never read
    next(turns)
    assert game.deltas([0, 1]) is not None  # seats that were read: told
    next(turns)
    deltas = game.deltas(range(4))  # none was read last time
    assert deltas is None
    next(turns)
    assert game.deltas(range(4)) is not None  # every seat was built when it could not tell


def test_skipper_deltas_go_through_every_key_of_the_view() -> None:
    # A key added to the view but not to one of these lists would never reach a seat that
    # is sent deltas.
    listed = [*O.FIXED_PARTS, "state_id", "seats", *O.CHANGING_SHARED, *O.OWN_PARTS]
    assert sorted(listed) == sorted(O.VIEW_PARTS)


def test_skipper_deltas_are_about_as_small_as_the_diff() -> None:
    game = create("skipper", {"mode": "multi", "seed": 9}, 4)
    rng = random.Random(9)
    last = game.views(range(4))
    game.deltas(range(4))
    reported: list[int] = []
    diffed: list[int] = []
    for _ in _random_turns(game, 4, rng, 400):
        deltas = game.deltas(range(4))
        assert deltas is not None
        now = game.views(range(4))
        for s in range(4):
            reported.append(len(msgpack.packb(deltas[s])))
            diffed.append(len(msgpack.packb(diff(last[s], now[s]))))
        last = now
    reported.sort()
    diffed.sort()
    assert reported[len(reported) // 2] <= diffed[len(diffed) // 2] * 1.25


def test_skipper_seats_without_own_changes_share_one_delta() -> None:
    # A room packs one frame per distinct delta: most seats' deltas must be the same object.
    game = create("skipper", {"mode": "multi", "seed": 5}, 4)
    rng = random.Random(5)
    game.deltas(range(4))
    distinct = []
    for _ in _random_turns(game, 4, rng, 200):
        deltas = game.deltas(range(4))
        assert deltas is not None
        distinct.append(len({id(d) for d in deltas.values()}))
    assert sum(distinct) / len(distinct) < 3


class _ViewKeeper:
    """A stand-in connection that keeps the view its frames describe, as a client does."""

    def __init__(self, name: str, act_reply: str = "ok") -> None:
        self.name, self.session_id, self.process = name, name, "test"
        self.account = ""  # signed in to no account
        self.act_reply = act_reply
        self.rooms: dict[str, Any] = {}
        self.view: dict[str, Any] | None = None
        self.state_id = -1
        self.replies: list[Any] = []  # (type, re) of every frame that answers a request

    def send(self, msg: Any) -> None:
        self.send_raw(encode(msg))

    def push(self) -> None:
        pass

    def send_raw(self, *frames: bytes) -> None:
        for frame in frames:
            msg = decode(frame, side="server")
            if getattr(msg, "re", None) is not None:
                self.replies.append((msg.TYPE, msg.re))
            if isinstance(msg, Joined):
                self.view = copy.deepcopy(msg.view)
            elif isinstance(msg, Update):
                if msg.view is not None:
                    self.view = copy.deepcopy(msg.view)
                else:
                    assert self.view is not None
                    apply_delta(self.view, copy.deepcopy(msg.delta))
                self.state_id = msg.state_id

    def send_error(self, code: str, message: str, re: Any = None) -> None:
        raise AssertionError(f"{self.name} refused: {code}: {message}")


@pytest.mark.parametrize(("mode", "act_reply"), [("multi", "ok"), ("race", "ok"),
                                                  ("multi", "update")])
async def test_every_member_of_a_room_holds_its_view_after_every_action(
        mode: str, act_reply: str) -> None:
    # Updates come from the engine (Game.deltas); turn clocks move the room facts ("room")
    # too. Each member's view, rebuilt from its frames, must be the room's view of its seat
    # after every action; each act is answered once: by an ok, or (act_reply "update") by
    # the acting seat's update carrying the act's id.
    game = Skipper({"mode": mode, "seed": 11}, 3)
    room = Room(id="r1", name="r1", game_name="skipper", game=game,
                settings={"turn_seconds": 600.0, "bid_seconds": 600.0, "grace_seconds": 60.0,
                          "on_abandon": "bot"}, store=MemoryStore())
    keepers = [_ViewKeeper(f"seat{i}", act_reply) for i in range(3)]
    watcher = _ViewKeeper("spectator")
    for i, keeper in enumerate(keepers):
        await room.apply(room.table.join(keeper, i, reply=False))  # type: ignore[arg-type]
    await room.apply(room.table.spectate(watcher))  # type: ignore[arg-type]
    room.start_task()
    await room.apply(room.table.start(None))
    # Which way each broadcast went is read from the members' bookkeeping, not by patching
    # the engine (a compiled room calls a compiled game's method directly): the engine's
    # deltas leave no member a view to diff against (Member.last None), diffed views do.
    reported = 0
    rng = random.Random(11)
    for n in range(300):
        if game.over:
            break
        seat = rng.choice(game.to_act())
        legal = [a for a in game.legal_actions(seat) if a[0] != "resign"]
        act = Act(room="r1", state_id=game.state_id, action=list(rng.choice(legal)), id=n)
        async with asyncio.timeout(10):
            await room.play(keepers[seat], act)  # type: ignore[arg-type]
        assert keepers[seat].replies.pop() == ("ok" if act_reply == "ok" else "update", n)
        reported += all(m.last is None for m in room.table.members.values())
        for who, keeper in enumerate([*keepers, watcher]):
            assert keeper.state_id == game.state_id
            truth = room.table.view_for(who if who < 3 else None)
            assert keeper.view == msgpack.unpackb(msgpack.packb(truth))  # tuples as lists
    assert reported >= 50
    assert not any(k.replies for k in [*keepers, watcher])  # one reply per act, no more
    await room.close()


_leaf = st.one_of(st.integers(-3, 3), st.floats(allow_nan=False, width=32), st.text(max_size=3),
                  st.none())
_tree = st.recursive(_leaf, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(st.sampled_from(["a", "b/c", "~d", "e"]),
                                                 inner, max_size=4)), max_leaves=12)


@settings(max_examples=500, deadline=None)
@given(base=st.dictionaries(st.sampled_from(["id", "status", "deadlines", "x/y", "~z", "n"]),
                            _tree, max_size=6),
       changes=st.dictionaries(st.sampled_from(["id", "status", "deadlines", "x/y", "~z", "n",
                                                "new"]), _tree, max_size=2),
       drop=st.booleans(), key=st.sampled_from(["room", "/room", "a/b", "t~"]))
def test_diff_value_is_diff_of_the_key(base: dict[str, Any], changes: dict[str, Any],
                                       drop: bool, key: str) -> None:
    # Room facts as a room makes them: a copy sharing every value but the ones replaced
    # (none, one: the fast case, or more), maybe with a key less; any key name.
    new = {**base, **changes}
    if drop and base:
        del new[next(iter(base))]
    assert diff_value(key, base, new) == diff({key: base}, {key: new})
    assert diff_value(key, base, base) == {}
    assert diff_value(key, base, dict(base)) == {}
    assert diff_value(key, [1, base], [1, new]) == diff({key: [1, base]}, {key: [1, new]})


def test_diff_value_walks_only_the_changed_deadlines() -> None:
    # The turn clock's case: facts copied with new deadlines; the one changed time alone.
    facts = {"id": "r1", "players": [{"name": "a"}, {"name": "b"}],
             "deadlines": [[0, 100.0], [1, 130.0]], "status": "playing"}
    later = {**facts, "deadlines": [[0, 100.0], [1, 160.5]]}
    assert diff_value("room", facts, later) == {"/room/deadlines/1/1": 160.5}
    assert diff_value("room", facts, {**facts, "deadlines": [[0, 100.0]]}) == {
        "/room/deadlines": [[0, 100.0]]}
