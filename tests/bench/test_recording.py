"""Tests of what the drills' bots record (``cardhall.bench.recording``) fed messages by hand,
without a server: state going backwards, seat events, unasked leaves, shared-view digests;
and :func:`audit`'s edges that tests/e2e/test_chaos.py does not reach."""

from __future__ import annotations

from cardhall import protocol as p
from cardhall.bench.recording import Attempt, RecordingClient, audit
from cardhall.bench.views import shared_digest

VIEW = {"state_id": 5, "piles": [1], "hand": ["AS"], "legal_actions": [["draw"]]}


async def test_a_state_going_backwards_is_recorded_with_how_it_came() -> None:
    """A full view behind what the client saw is noted (room, seen, got, what); the same or
    later states are not."""
    bot = RecordingClient("ws://127.0.0.1:1", reconnect=False)
    bot._dispatch(p.Joined(room="r1", seat=0, token="t" * 8, view=VIEW))
    assert bot.seen == {"r1": 5}
    bot._dispatch(p.Update(room="r1", state_id=6, delta={"state_id": 6}))
    bot._dispatch(p.Update(room="r1", state_id=4, view={**VIEW, "state_id": 4}))
    bot._dispatch(p.Update(room="r1", state_id=3, delta={"state_id": 3}))
    assert bot.seen == {"r1": 6}
    assert [b[:3] for b in bot.backwards] == [("r1", 6, 4), ("r1", 6, 3)]
    assert "full view" in bot.backwards[0][3] and "delta" in bot.backwards[1][3]
    assert "ws://127.0.0.1:1" in bot.backwards[0][3]


async def test_seat_events_unasked_leaves_and_view_digests_are_kept() -> None:
    """A ``left`` that answers a request is not unsolicited; each applied view's shared
    part is digested at its state, so seats can be compared afterwards."""
    bot = RecordingClient("ws://127.0.0.1:1", reconnect=False)
    bot._dispatch(p.Joined(room="r1", seat=1, token="t" * 8, view=VIEW))
    bot._dispatch(p.SeatEvent(room="r1", seat=2, event="joined"))
    bot._dispatch(p.Left(room="r1", re=4))
    bot._dispatch(p.Left(room="r2"))
    assert bot.seat_events == [("r1", 2, "joined")]
    assert bot.unsolicited_left == ["r2"]
    other_hand = {**VIEW, "hand": ["KD"], "legal_actions": []}
    assert bot.shared[("r1", 5)] == shared_digest(other_hand, ["hand", "legal_actions"])


def test_audit_of_tuples_and_out_of_range_states() -> None:
    """An action sent as a tuple matches its list in the log; an ack at a state beyond the
    log is lost (the log is shorter) and the details say so; a refused act explains
    nothing that is not in the log."""
    entries = [["a", 0, ["play", "5D"]]]
    attempts = [Attempt("r", 0, 0, ("play", "5D"), "ok"),  # type: ignore[arg-type]
                Attempt("r", 1, 7, ["draw"], "ok"),
                Attempt("r", 0, -1, ["draw"], "error:action/stale_state")]
    result = audit("r", entries, attempts)
    assert (result["acked"], result["lost"], result["doubled"]) == (2, 1, 0)
    assert result["details"] == ["room r: lost: seat 1 ['draw'] acked at state 7; the log "
                                 "has None there (length 1)"]
    assert audit("r", [], [])["acked"] == 0
