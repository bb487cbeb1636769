"""The engine contract (``games/base.py``), checked over every registered engine alike.

Random playouts check it after every step (:func:`.engine_harness.random_playout`: exact
legal actions, no leaks, snapshot, clone, resample and replay round trips, settings that
move no ``state_id``, the declared ``GameType``); the tests below check what a playout does
not reach. What the suite knows of each engine is its profile (:mod:`.engine_profiles`).
"""

from __future__ import annotations

import random

import msgpack
import pytest

from cardhall import games
from cardhall.games import Game, GameOver, LogEntry, NotYourTurn, UnknownAction, replay
from cardhall.games.bots import strategy

from ..engine_harness import ints_in, random_playout
from ..engine_profiles import PROFILES, Playout

PLAYOUTS = [(name, p) for name, profile in PROFILES.items() for p in profile.playouts]


def test_every_registered_engine_has_a_profile() -> None:
    assert sorted(PROFILES) == games.names()


@pytest.mark.parametrize("name, playout", PLAYOUTS,
                         ids=[f"{n}-{p.label()}" for n, p in PLAYOUTS])
def test_random_playouts_keep_the_contract(name: str, playout: Playout) -> None:
    profile = PROFILES[name]
    game = games.create(name, playout.options, playout.seats)
    if playout.setup is not None:
        game = playout.setup(game)
    done = random_playout(game, strategy(name, playout.bot), allowed=profile.allowed,
                          candidates=profile.candidates if playout.candidates else None,
                          rng_seed=playout.rng_seed, max_steps=playout.max_steps,
                          check_every=playout.check_every)
    assert done.over


def _first_playout(name: str) -> Playout:
    return PROFILES[name].playouts[0]


@pytest.mark.parametrize("name", sorted(PROFILES))
def test_no_view_holds_the_seed(name: str) -> None:
    seed = 987_654_321_987
    p = _first_playout(name)
    game = games.create(name, {**p.options, "seed": seed}, p.seats)
    bot = strategy(name, "random")
    rng = random.Random(0)
    for _ in range(40):
        for seat in [None, *range(game.seats)]:
            view = game.view(seat)
            assert seed not in ints_in(view) and "seed" not in repr(view), seat
        if game.over:
            break
        acting = game.to_act()
        seat = acting[rng.randrange(len(acting))]
        game.apply(seat, bot(game.view(seat), rng))


@pytest.mark.parametrize("name", sorted(PROFILES))
def test_the_game_type_is_declared(name: str) -> None:
    cls = games.get(name)
    kind = cls.TYPE
    modes = set(cls.modes())
    assert kind.real_time_modes <= modes
    assert all(r.mode in (modes or {games.STANDARD}) for r in kind.rankings)
    assert len({r.mode for r in kind.rankings}) == len(kind.rankings)
    names = [o.name for o in cls.OPTIONS]
    for setting in kind.settings:
        assert setting.name not in names and setting.choices
    catalog = next(c for c in games.catalog() if c["game"] == name)
    assert catalog["settings"] == [s.describe() for s in kind.settings]
    assert catalog["real_time_modes"] == sorted(kind.real_time_modes)


def _dealt(name: str) -> Game:
    """A new game of the profile's playout with the most seats."""
    p = max(PROFILES[name].playouts, key=lambda p: p.seats)
    return games.create(name, p.options, p.seats)


@pytest.mark.parametrize("name", sorted(PROFILES))
def test_settings_are_no_actions_and_move_no_state(name: str) -> None:
    game = _dealt(name)
    snap = game.snapshot()
    with pytest.raises(UnknownAction):
        game.apply_setting(0, ["no_such_setting", "on"])
    for setting in game.TYPE.settings:
        with pytest.raises(UnknownAction):
            game.apply(0, [setting.name, setting.choices[0]])  # a setting is no action
        with pytest.raises(UnknownAction):
            game.apply_setting(0, [setting.name, "no such value"])
        for seat in (game.seats, -1, True, False, 0.0):  # no seat (a bool is none, either build)
            with pytest.raises(NotYourTurn):
                game.apply_setting(seat, [setting.name, setting.choices[0]])
        assert game.snapshot() == snap
        for seat in range(game.seats):  # any seat, its turn or not
            for value in setting.choices:
                legal = [game.legal_actions(s) for s in range(game.seats)]
                game.apply_setting(seat, [setting.name, value])
                assert game.state_id == 0
                assert [game.legal_actions(s) for s in range(game.seats)] == legal
        assert game.log_length == game.settings_applied == game.seats * len(setting.choices)


@pytest.mark.parametrize("name", sorted(PROFILES))
def test_log_entries_replay_and_malformed_ones_are_refused(name: str) -> None:
    game = _dealt(name)
    seat = game.to_act()[0]
    entries = [LogEntry.act(seat, game.legal_actions(seat)[0])]
    for setting in game.TYPE.settings:
        entries.append(LogEntry.setting(0, [setting.name, setting.choices[-1]]))
    entries.append(LogEntry.forfeit(0))
    for entry in entries:
        game.apply_entry(entry)
    assert game.log_length == len(entries)
    again = replay(type(game), game.options, game.seats,
                   msgpack.unpackb(msgpack.packb(entries)))
    assert again.snapshot() == game.snapshot()
    assert again.log_length == len(entries)
    for bad in ([], ["a", 0], ["x", 0, ["end"]], ["a", "0", ["end"]], ["a", 0, []],
                ["f", 0, ["resign"]], ["s", 0, None], "a0"):
        with pytest.raises(UnknownAction):
            game.apply_entry(bad)


@pytest.mark.parametrize("name", sorted(PROFILES))
def test_snapshots_share_one_header(name: str) -> None:
    game = _dealt(name)
    snap = game.snapshot()
    assert {"game": name, "version": type(game).SNAPSHOT_VERSION, "seats": game.seats,
            "state_id": 0, "settings_applied": 0}.items() <= snap.items()
    assert snap["options"] == game.options
    for bad in ({**snap, "game": "other"}, {**snap, "version": 99}, {"game": name}, [1]):
        with pytest.raises(games.SnapshotError):
            type(game).restore(bad)  # type: ignore[arg-type]


def test_a_finished_game_refuses_settings() -> None:
    game = games.create("skipper", {"mode": "multi", "seed": 1}, 2)
    game.forfeit(1)
    assert game.over
    with pytest.raises(GameOver):
        game.apply_setting(0, ["auto_trash", "off"])


def test_the_engines_stay_small_and_import_no_private_name() -> None:
    """Issue #31 for ``games/``: no module over 800 lines, no function over 80, and no
    import of another module's ``_private`` name (a bot needing one shows a gap in the
    engine's public contract)."""
    from pathlib import Path

    from ..shape import shape_problems

    root = Path(games.__file__).parent
    problems = shape_problems(root.rglob("*.py"), root.parent)
    assert not problems, problems
