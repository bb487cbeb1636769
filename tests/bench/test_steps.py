"""bench/steps.py: the room's action path step by step (issue #34 item 2), on the build this
interpreter runs."""

from __future__ import annotations

import pytest

from cardhall.bench import steps
from cardhall.server.room import COMPILED


def test_every_step_of_the_action_path_is_timed() -> None:
    """Each step names a callable the room still calls (a renamed method would be timed
    never, not raise), no step reads below zero, and the whole action and the engine alone
    are measured. A compiled room's steps cannot be timed from outside: none are
    reported."""
    run = steps.measure(actions=120, rooms=2)
    if COMPILED:
        assert run["steps"] == run["calls"] == {} and run["rest_us"] is None
        assert run["whole_us"] > 0
        return
    assert set(run["steps"]) == {label for label, _ in steps.STEPS}
    for label, us in run["steps"].items():
        assert run["calls"][label] >= 120, f"{label}: its callables were never called"
        assert us >= 0.0, label
    assert run["whole_us"] > 0 and run["engine_alone_us"] > 0
    assert run["build"] in ("pure", "compiled")


def test_measure_refuses_nothing_to_measure() -> None:
    """No actions or no rooms: a clear ValueError, not a division by zero."""
    with pytest.raises(ValueError):
        steps.measure(actions=0)
    with pytest.raises(ValueError):
        steps.measure(rooms=0)


def test_a_step_cheaper_than_the_timer_reads_zero_not_below() -> None:
    """The timer's cost is taken off each timed call; a step whose time is below that
    (noise: CI once printed ``-0.1`` µs for the metrics step) reads 0.0, and the others
    keep their figure less the timer's cost."""
    clock = steps.Clock()
    for _label, names in steps.STEPS:
        for n in names:
            clock.seconds[n] = 0.0
            clock.calls[n] = 0
    clock.seconds["observe_action"], clock.calls["observe_action"] = 1e-6, 10
    clock.seconds["game.apply_entry"], clock.calls["game.apply_entry"] = 50e-6, 10
    us = steps.step_figures(clock, cost=0.2e-6, actions=10)
    assert us["metrics"] == 0.0
    assert us["engine: apply the action"] == pytest.approx(4.8)
    assert min(us.values()) >= 0.0
