"""The room's rules without I/O (server/room/rules.py): phases, the one transition table, and
the seat rules, tested with plain function calls (no event loop, no store, no sockets)."""

from __future__ import annotations

from dataclasses import replace

import ast
import re
from pathlib import Path

import pytest
from cardhall.server.room import rules as table
from cardhall.server.room.seats import Seat
from cardhall.server.room.rules import (Event, HostMove, Leaving, Phase, RoomError, TransitionError,
                                   TRANSITIONS)

ROOT = Path(__file__).resolve().parents[2]
W, P, F, C = Phase.WAITING, Phase.PLAYING, Phase.FINISHED, Phase.CLOSED


class Conn:
    """A stand-in connection: only its identity matters to the rules."""

    def __init__(self, session: str = "s", account: str = "") -> None:
        self.session_id, self.account = session, account


def seat(conn: Conn | None = None, *, host: bool = False, bot: bool = False, since: float = 0.0,
         account: str = "", token: str = "tok") -> Seat:
    return Seat(token=token, conn=conn, name="x", bot=bot,  # type: ignore[arg-type]
                host=host, since=since, account=account)


# -- phases --------------------------------------------------------------------------


def test_the_transition_table_moves_a_room_through_its_life() -> None:
    assert table.step(W, Event.JOIN) is W
    assert table.step(W, Event.START) is P
    assert table.step(P, Event.ACT) is P
    assert table.step(P, Event.FINISH) is F
    assert table.step(F, Event.REVEAL) is F
    for phase in (W, P, F, C):
        assert table.step(phase, Event.CLOSE) is C
        assert table.allows(phase, Event.CLOSE)


@pytest.mark.parametrize(("phase", "event", "code"), [
    (P, Event.JOIN, "room/already_started"),
    (F, Event.JOIN, "room/already_started"),
    (P, Event.START, "room/already_started"),
    (F, Event.START, "room/already_started"),
    (W, Event.ACT, "room/not_started"),
    (F, Event.ACT, "action/game_over"),
    (W, Event.FINISH, "room/not_started"),
    (W, Event.REVEAL, "room/not_finished"),
    (P, Event.REVEAL, "room/not_finished"),
    (P, Event.REPLAY, "room/not_finished"),
    (C, Event.ACT, "server/unavailable"),
    (C, Event.JOIN, "server/unavailable"),
    (C, Event.LEAVE, "server/unavailable"),
])
def test_an_event_its_phase_does_not_allow_is_refused_with_the_rooms_error_code(
        phase: Phase, event: Event, code: str) -> None:
    assert not table.allows(phase, event)
    with pytest.raises(TransitionError) as caught:
        table.step(phase, event)
    assert caught.value.code == code and caught.value.message
    assert isinstance(caught.value, RoomError)  # answered as every refusal is


def test_every_refusal_the_table_knows_is_of_an_event_its_phase_does_not_allow() -> None:
    for event, phase in table.REFUSALS:
        assert event not in TRANSITIONS[phase], (event, phase)
    for phase, row in TRANSITIONS.items():  # every phase after an event is a phase
        assert all(after is None or isinstance(after, Phase) for after in row.values()), phase


def test_no_room_status_is_compared_as_a_string_in_the_server() -> None:
    """The room's status is a typed phase: no server module compares it with a string."""
    pattern = re.compile(r"""status["'\]\)]*\s*[!=]=\s*["']|["']\s*[!=]=\s*\S*status\b""")
    hits = []
    for path in sorted((ROOT / "server").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Compare):
                text = ast.unparse(node)
                if pattern.search(text) and "BANNED" not in text:
                    hits.append(f"{path.name}:{node.lineno}: {text}")
    assert not hits, hits


# -- seats ---------------------------------------------------------------------------


def test_a_join_takes_the_wanted_seat_or_the_first_free_one() -> None:
    ann = Conn("a", "acc-a")
    seats = [seat(Conn("x")), None, None]
    assert table.choose_seat(W, seats, ann, ann.account, None, False) == 1
    assert table.choose_seat(W, seats, ann, ann.account, 2, False) == 2


@pytest.mark.parametrize(("phase", "wanted", "code"), [
    (P, None, "room/already_started"),
    (F, 1, "room/already_started"),
    (W, 0, "room/full"),   # taken
    (W, 3, "room/full"),   # out of range
    (W, -1, "room/full"),
])
def test_a_join_is_refused(phase: Phase, wanted: int | None, code: str) -> None:
    seats = [seat(Conn("x")), None, None]
    with pytest.raises(RoomError) as caught:
        table.choose_seat(phase, seats, Conn("a"), "", wanted, False)
    assert caught.value.code == code


def test_one_seat_per_connection_and_per_account_unless_the_room_allows_more() -> None:
    ann = Conn("a", "acc-a")
    seats = [seat(ann, account="acc-a"), None, None]
    with pytest.raises(RoomError) as caught:
        table.choose_seat(W, seats, ann, ann.account, None, True)
    assert caught.value.code == "room/full"  # the very connection: never twice
    other_device = Conn("b", "acc-a")
    with pytest.raises(RoomError) as caught:
        table.choose_seat(W, seats, other_device, "acc-a", None, False)
    assert caught.value.code == "room/already_seated"
    assert table.choose_seat(W, seats, other_device, "acc-a", None, True) == 1  # multi_seat
    assert table.choose_seat(W, seats, Conn("c"), "", None, False) == 1  # no account


def test_the_host_role_on_a_join() -> None:
    hosted = [seat(Conn("x"), host=True), None]
    empty: list[Seat | None] = [None, None]
    assert table.host_on_join(hosted, True, "creator") is HostMove.TAKE_BACK
    assert table.host_on_join(empty, True, "creator") is HostMove.KEEP
    assert table.host_on_join(hosted, False, "creator") is HostMove.NONE
    assert table.host_on_join(empty, False, "creator") is HostMove.LEND  # creator away
    assert table.host_on_join(empty, False, "") is HostMove.CLAIM  # nobody holds it


def test_the_host_role_goes_to_the_longest_seated_connected_player() -> None:
    seats = [None, seat(None, since=1.0), seat(Conn("b"), since=5.0),
             seat(Conn("c"), since=3.0), seat(None, bot=True, since=0.5)]
    assert table.heir(seats) == 3  # connected first, then the longest seated; no bot
    assert table.heir([None, seat(None, since=2.0), seat(None, since=1.0)]) == 2
    assert table.heir([None, seat(None, bot=True)]) is None


def test_startable_and_who_may_start() -> None:
    host = Conn("h")
    assert table.startable([None, None])  # the next player becomes the host
    assert table.startable([seat(host, host=True), None])
    assert not table.startable([seat(None, host=True), seat(Conn("g"))])  # host away
    seats = [seat(host, host=True), seat(Conn("g"))]
    table.check_starter(seats, "h", host, "h")
    table.check_starter(seats, "old-session", host, "new-session")  # holds the host's seat
    table.check_starter(seats, "h", None, "")  # the server
    with pytest.raises(RoomError) as caught:
        table.check_starter(seats, "h", seats[1].conn if seats[1] else None, "g")
    assert caught.value.code == "room/not_host"


def test_a_start_gives_the_empty_seats_to_bots_and_the_last_seat_starts_the_room() -> None:
    seats = [seat(Conn("a")), None, seat(Conn("b")), None]
    assert table.start_seats(W, seats) == (P, [1, 3])
    assert not table.full(W, seats)
    assert table.full(W, [seat(Conn("a")), seat(Conn("b"))])
    assert not table.full(P, [seat(Conn("a")), seat(Conn("b"))])
    with pytest.raises(TransitionError) as caught:
        table.start_seats(P, seats)
    assert caught.value.code == "room/already_started"


def test_what_leaving_dropping_and_kicking_do_in_each_phase() -> None:
    assert table.on_leave(W) is Leaving.FREE
    assert table.on_leave(P) is Leaving.ABANDON
    assert table.on_leave(F) is Leaving.DETACH
    with pytest.raises(TransitionError):
        table.on_leave(C)
    assert table.holds_on_drop(W) and table.holds_on_drop(P)
    assert not table.holds_on_drop(F) and not table.holds_on_drop(C)
    assert table.kickable(seat(Conn("a")))
    assert table.kickable(seat(None))  # dropped, held for its player
    assert not table.kickable(None)
    assert not table.kickable(seat(None, bot=True))  # a server bot's
    assert not table.kickable(seat(None, token=""))  # forfeited or kicked already


def test_only_a_solo_game_its_signed_in_person_played_alone_on_a_drawn_deal_is_ranked() -> None:
    assert table.ranked_account([seat(Conn("a"), account="acc")], False) == "acc"
    assert table.ranked_account([seat(Conn("a"), account="acc")], True) is None  # chosen deal
    assert table.ranked_account([seat(Conn("a"))], False) is None  # anonymous
    assert table.ranked_account([seat(None, bot=True, account="acc")], False) is None
    helped = replace(seat(Conn("a"), account="acc"), assisted=True)
    assert table.ranked_account([helped], False) is None
    assert table.ranked_account([seat(Conn("a"), account="acc"), None], False) is None


def test_the_commitment_needs_a_salt() -> None:
    assert table.commitment(7, "") is None
    assert table.commitment(7, "ab" * 16) == table.commitment(7, "ab" * 16)
    assert len(table.commitment(7, "ab" * 16) or "") == 64
