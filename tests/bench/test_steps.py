"""bench/steps.py: the room's action path step by step (issue #34 item 2), on the build this
interpreter runs."""

from __future__ import annotations

import pytest

from cardhall.bench import steps
from cardhall.server.room import COMPILED


def test_every_step_of_the_action_path_is_timed() -> None:
    """Each step names a callable the room still calls (a renamed method would come out as
    exactly 0 µs, not as an error: a step never called has no time and no timer cost taken
    off), and the whole action and the engine alone are measured. A compiled room's steps
    cannot be timed from outside: none are reported."""
    run = steps.measure(actions=120, rooms=2)
    if COMPILED:
        assert run["steps"] == {} and run["rest_us"] is None and run["whole_us"] > 0
        return
    assert set(run["steps"]) == {label for label, _ in steps.STEPS}
    for label, us in run["steps"].items():
        assert us != 0.0, f"{label}: its callables were never called"
    assert run["whole_us"] > 0 and run["engine_alone_us"] > 0
    assert run["build"] in ("pure", "compiled")


def test_measure_refuses_nothing_to_measure() -> None:
    """No actions or no rooms: a clear ValueError, not a division by zero."""
    with pytest.raises(ValueError):
        steps.measure(actions=0)
    with pytest.raises(ValueError):
        steps.measure(rooms=0)
