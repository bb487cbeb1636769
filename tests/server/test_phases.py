"""A room's phase and its stored form (server/phases.py), with plain function calls."""

from __future__ import annotations

import pytest
from cardhall.server.phases import Phase, is_phase

W, P, F, C = Phase.WAITING, Phase.PLAYING, Phase.FINISHED, Phase.CLOSED


def test_the_stored_status_is_parsed_and_printed_in_one_place() -> None:
    for phase in (W, P, F):
        assert Phase.parse(phase.stored) is phase
        assert is_phase(phase.stored, phase)
    assert [p.stored for p in (W, P, F)] == ["waiting", "playing", "finished"]
    with pytest.raises(ValueError):
        C.stored  # a closed copy prints the phase it was closed in: never "closed"
    for junk in ("closed", "Waiting", "", None, 3, ["waiting"]):
        with pytest.raises(ValueError):
            Phase.parse(junk)
        assert not is_phase(junk, W)
