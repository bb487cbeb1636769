"""The room as one I/O-free object (``server/room/table.py``): every input of a
:class:`Table` in every phase, driven with plain calls (no event loop, no store, no
sockets): what it changes and what it asks its driver to do (:mod:`.outputs`)."""

from __future__ import annotations

import ast
import dataclasses
import time
from pathlib import Path
from typing import Any

import pytest
from cardhall import protocol as p
from cardhall.games import LogEntry
from cardhall.games.skipper import Skipper
from cardhall.server.phases import Phase, RoomError
from cardhall.server.room import rules
from cardhall.server.room.chat import ChatRefused
from cardhall.server.room.outputs import (Append, Bots, Fanout, Notice, Output, Result, Save,
                                          Send, Timer)
from cardhall.server.room import table as table_module
from cardhall.server.room.table import Table

ROOT = Path(__file__).resolve().parents[2]
W, P, F = Phase.WAITING, Phase.PLAYING, Phase.FINISHED
SETTINGS = {"turn_seconds": None, "bid_seconds": None, "grace_seconds": 60.0,
            "on_abandon": "bot", "bot_seconds": None}


class Conn:
    """A stand-in member: the table only reads its identity and keeps its ``rooms``."""

    def __init__(self, name: str, account: str = "", act_reply: str = "ok") -> None:
        self.session_id = self.name = name
        self.process, self.account, self.act_reply = "test", account, act_reply
        self.rooms: dict[str, Any] = {}
        self.remote_rooms: set[str] = set()


def table(seats: int = 3, host: str = "", **settings: Any) -> Table:
    return Table("r1", "r1", "skipper", {**SETTINGS, **settings}, game_cls=Skipper,
                 options=Skipper({"mode": "multi", "seed": 3}, seats).options,
                 seat_count=seats, host=host, owner="the driver")


def kinds(outs: list[Output]) -> list[str]:
    return [type(o).__name__ for o in outs]


def sent(outs: list[Output]) -> list[tuple[str | None, str]]:
    """``(to, message type)`` of the :class:`Send` outputs (None: every member)."""
    return [(None if o.to is None else o.to.name, type(o.msg).__name__
             if not isinstance(o.msg, bytes) else "frame") for o in outs if isinstance(o, Send)]


def notices(outs: list[Output]) -> list[tuple[str, tuple[Any, ...]]]:
    return [(o.what, o.args) for o in outs if isinstance(o, Notice)]


def playing(seats: int = 2, **settings: Any) -> tuple[Table, list[Conn]]:
    t = table(seats, **settings)
    conns = [Conn(f"c{i}") for i in range(seats)]
    for i, conn in enumerate(conns):
        t.join(conn, i, reply=False)  # type: ignore[arg-type]
    t.start(None)
    return t, conns


def act_of(t: Table, conn: Conn) -> Append:
    game = t.dealt()
    seat = t.members[conn].seat  # type: ignore[index]
    assert seat in game.to_act()
    action = game.view(seat)["legal_actions"][0]
    outs = t.act(conn, p.Act(room="r1", state_id=game.state_id, action=action, id=7))  # type: ignore[arg-type]
    assert kinds(outs) == ["Append"]
    out = outs[0]
    assert isinstance(out, Append)
    return out


# -- the shape --------------------------------------------------------------------------


def test_the_table_modules_import_no_io() -> None:
    """Issue #42: the table's modules import no asyncio, websockets, redis, sqlite3, socket
    (nor tenacity), so every rule of a room runs in a plain call (import-linter says the
    same, tests/test_layers.py)."""
    forbidden = {"asyncio", "websockets", "redis", "sqlite3", "socket", "tenacity"}
    for name in ("table", "state", "seats", "outputs", "rules", "play", "chat"):
        tree = ast.parse((ROOT / "server" / "room" / f"{name}.py").read_text())
        imported = {a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import)
                    for a in n.names}
        imported |= {(n.module or "").split(".")[0] for n in ast.walk(tree)
                     if isinstance(n, ast.ImportFrom) and not n.level}
        assert not imported & forbidden, (name, imported & forbidden)


def test_seats_are_values_and_members_a_read_only_view() -> None:
    """Nothing outside the table changes who sits where: the seats are a tuple of frozen
    values, the members a mapping the table alone fills."""
    t = table(2)
    t.join(Conn("a"), 0, reply=False)  # type: ignore[arg-type]
    assert isinstance(t.seats, tuple)
    with pytest.raises(dataclasses.FrozenInstanceError):
        t.seats[0].host = False  # type: ignore[misc, union-attr]
    with pytest.raises(TypeError):
        t.seats[1] = None  # type: ignore[index]
    assert not hasattr(t.members, "__setitem__") or type(t.members) is dict


def test_every_change_bumps_the_version_and_the_cached_state_follows() -> None:
    """Issue #42: no ``seats_touched()`` to remember: the cached state and facts are keyed
    by the version every change bumps, so they are never stale."""
    t = table(3)
    state, facts = t.state(), t.facts()
    assert t.state() is state and t.facts() is facts  # cached while nothing changed
    version = t.version
    a = Conn("a")
    t.join(a, 0, reply=False)  # type: ignore[arg-type]
    assert t.version > version
    assert t.state() is not state and t.state()["seats"][0]["name"] == "a"
    assert t.facts()["players"][0]["connected"] is True
    t.drop(a)  # type: ignore[arg-type]
    assert t.facts()["players"][0]["connected"] is False
    assert t.state()["seats"][0]["grace_until"] is not None


# -- waiting: join, the host role, start --------------------------------------------------


def test_a_join_saves_first_then_tells_and_answers() -> None:
    """Seats fill in order; the join's outputs: the save (awaited, with its undo), the seat
    event to every member, the ledger, then ``joined``; refusals change nothing."""
    t = table(3)
    a, b, c, d = (Conn(n) for n in "abcd")
    outs = t.join(a, 2, 5)  # type: ignore[arg-type]
    assert isinstance(outs[0], Save) and outs[0].now and outs[0].undo is not None
    # joined, and host: nobody held the role
    assert sent(outs) == [(None, "SeatEvent"), (None, "SeatEvent"), ("a", "Joined")]
    assert notices(outs) == [("seats", (False,)), ("seated", ("", 2))]
    assert a.rooms == {"r1": "the driver"}
    t.join(b, None)  # type: ignore[arg-type]
    assert t.seats[0] is not None and t.seats[0].conn is b
    for conn, wanted, code in ((c, 2, "room/full"), (a, None, "room/full"),
                               (c, 7, "room/full")):
        before = t.version
        with pytest.raises(RoomError) as err:
            t.join(conn, wanted)  # type: ignore[arg-type]
        assert err.value.code == code and t.version == before


def test_the_join_that_takes_the_last_seat_starts_the_room() -> None:
    """A derived move (:data:`~.rules.DERIVED`): every seat taken, the room plays; the
    joiner's ``joined`` shows the room as it joined it, then ``started`` and the views."""
    t = table(2)
    t.join(Conn("a"), None)  # type: ignore[arg-type]
    outs = t.join(Conn("b"), None)  # type: ignore[arg-type]
    assert t.phase is P and t.game is not None and t.started_at is not None
    assert sent(outs)[:2] == [(None, "SeatEvent"), ("b", "Joined")]
    assert ("a", "Started") in sent(outs) and "Fanout" in kinds(outs)
    joined = next(o.msg for o in outs if isinstance(o, Send) and isinstance(o.msg, p.Joined))
    assert joined.view["room"]["status"] == "waiting"  # type: ignore[union-attr]
    assert rules.derived(W, t.seats, False) is rules.Derived.START
    assert rules.derived(P, t.seats, True) is rules.Derived.FINISH
    assert rules.derived(W, (None, None), False) is rules.Derived.EXPIRE


def test_undo_puts_a_join_and_its_start_back() -> None:
    """The save of a join failed: :meth:`Table.undo` frees the seat, removes the member and
    takes the start back (the deal is kept: the same seed deals it again)."""
    t = table(2, host="h")
    h, g = Conn("h"), Conn("g")
    t.join(h, 0, reply=False)  # type: ignore[arg-type]
    outs = t.join(g, None)  # type: ignore[arg-type]
    assert t.phase is P
    save = next(o for o in outs if isinstance(o, Save))
    t.undo(save.undo)
    assert t.phase is W and t.seats[1] is None and g not in t.members and not g.rooms
    assert t.host == "h" and t.seats[0] is not None and t.seats[0].host


def test_the_first_to_sit_hosts_and_the_longest_seated_inherits() -> None:
    t = table(3)
    a, b, c = (Conn(n) for n in "abc")
    for conn in (a, b, c):
        t.join(conn, None, reply=False)  # type: ignore[arg-type]
    assert [s for s, h in enumerate(t.seats) if h is not None and h.host] == [0]
    assert t.host == "a"
    outs = t.leave(a)  # type: ignore[arg-type]
    assert t.seats[0] is None and t.host == "b"
    assert [s for s, h in enumerate(t.seats) if h is not None and h.host] == [1]
    assert [o.msg.event for o in outs  # type: ignore[union-attr]
            if isinstance(o, Send) and isinstance(o.msg, p.SeatEvent)] == ["left", "host"]


def test_start_checks_the_host_and_gives_empty_seats_to_bots() -> None:
    t = table(3, host="h")
    h, x = Conn("h"), Conn("x")
    t.join(h, 0, reply=False)  # type: ignore[arg-type]
    t.join(x, 1, reply=False)  # type: ignore[arg-type]
    with pytest.raises(RoomError) as err:
        t.start(x, 1)  # type: ignore[arg-type]
    assert err.value.code == "room/not_host" and t.phase is W
    outs = t.start(h, 9)  # type: ignore[arg-type]
    assert t.phase is P and t.seats[2] is not None and t.seats[2].bot
    assert isinstance(outs[0], Save) and outs[0].now
    assert ("h", "Started") in sent(outs) and notices(outs)[0] == ("started", ())
    with pytest.raises(RoomError) as err:
        t.start(None)
    assert err.value.code == "room/already_started"


# -- resume, spectate, leave, drop, kick ------------------------------------------------------


def test_a_token_resumes_its_seat_on_another_connection() -> None:
    t = table(2)
    a, b = Conn("a"), Conn("b")
    t.join(a, None, reply=False)  # type: ignore[arg-type]
    token = t.seats[0].token  # type: ignore[union-attr]
    outs = t.resume(b, token, 4)  # type: ignore[arg-type]
    assert sent(outs)[:2] == [("a", "Left"), (None, "SeatEvent")]
    assert ("b", "Joined") in sent(outs) and any(isinstance(o, Save) and o.now for o in outs)
    assert t.seats[0].conn is b and a not in t.members and b in t.members  # type: ignore[union-attr]
    with pytest.raises(RoomError) as err:
        t.resume(a, "not-a-token")  # type: ignore[arg-type]
    assert err.value.code == "room/bad_token"
    with pytest.raises(RoomError) as err:
        t.resume(a, None)  # type: ignore[arg-type]
    assert err.value.code == "room/not_seated"  # no account


def test_an_account_resumes_its_seat_without_a_token() -> None:
    t = table(2)
    t.join(Conn("a", account="acc"), 1, reply=False)  # type: ignore[arg-type]
    again = Conn("a2", account="acc")
    t.resume(again, None)  # type: ignore[arg-type]
    assert t.members[again].seat == 1  # type: ignore[index]


def test_a_spectator_comes_and_goes_told_soon() -> None:
    t = table(2)
    w = Conn("w")
    outs = t.spectate(w)  # type: ignore[arg-type]
    assert kinds(outs) == ["Save", "Notice", "Send"] and t.members[w].seat is None  # type: ignore[index]
    assert t.facts()["spectators"] == {"count": 1, "names": ["w"]}
    assert notices(t.drop(w)) == [("facts", ())]  # type: ignore[arg-type]
    assert w not in t.members and t.facts()["spectators"]["count"] == 0


def test_a_dropped_player_keeps_its_seat_for_the_grace_window() -> None:
    t = table(2)
    a = Conn("a")
    t.join(a, None, reply=False)  # type: ignore[arg-type]
    outs = t.drop(a)  # type: ignore[arg-type]
    holder = t.seats[0]
    assert holder is not None and holder.conn is None and holder.grace_until is not None
    assert [o.at for o in outs if isinstance(o, Timer)] == [holder.grace_until]
    t.resume(Conn("b"), holder.token)  # type: ignore[arg-type]
    assert t.seats[0] is not None and t.seats[0].grace_until is None


def test_the_timer_frees_a_waiting_seat_whose_grace_ended() -> None:
    t = table(2)
    a = Conn("a")
    t.join(a, None, reply=False)  # type: ignore[arg-type]
    t.drop(a)  # type: ignore[arg-type]
    outs = t.timer(time.time() + 61)
    assert t.seats[0] is None and ("seats", (True,)) in notices(outs)


def test_a_kick_in_each_phase() -> None:
    """Waiting: the seat is freed; playing: a bot takes it; the kicked connection gets
    ``room/kicked`` and ``left``; its token resumes nothing; an empty seat cannot be kicked."""
    t = table(2)
    a, b = Conn("a"), Conn("b")
    t.join(a, None, reply=False)  # type: ignore[arg-type]
    t.join(b, None, reply=False)  # type: ignore[arg-type]
    token = t.seats[1].token  # type: ignore[union-attr]
    outs = t.kick(1)
    assert outs[-1] == Result("freed") and ("b", "Error") in sent(outs)
    assert ("b", "Left") in sent(outs) and t.seats[1] is None
    with pytest.raises(RoomError):
        t.resume(b, token)  # type: ignore[arg-type]
    for seat in (1, 5, -1):
        with pytest.raises(RoomError) as err:
            t.kick(seat)
        assert err.value.code == "room/not_seated"
    t2, conns = playing(2)
    outs = t2.kick(0)
    assert outs[-1] == Result("bot") and t2.seats[0] is not None and t2.seats[0].bot
    assert t2.seats[0].token == "" and [o for o in outs if isinstance(o, Bots)]


def test_leaving_a_playing_seat_gives_it_to_a_bot_or_forfeits_it() -> None:
    t, conns = playing(2)
    outs = t.leave(conns[0])  # type: ignore[arg-type]
    assert t.seats[0] is not None and t.seats[0].bot and t.seats[0].assisted
    assert "Bots" in kinds(outs)
    t2, conns2 = playing(3, on_abandon="forfeit")
    seat = t2.dealt().to_act()[0]
    outs = t2.leave(conns2[seat])  # type: ignore[arg-type]
    append = outs[-1]
    assert isinstance(append, Append) and append.origin == "forfeit"
    assert append.entry.kind == LogEntry.forfeit(seat).kind
    assert t2.seats[seat] is not None and t2.seats[seat].token == ""  # type: ignore[union-attr]


# -- playing: act, the store's answer, the timer, bots, reload --------------------------------


def test_an_act_is_appended_before_anyone_is_told() -> None:
    t, conns = playing(2)
    mover = conns[t.dealt().to_act()[0]]
    append = act_of(t, mover)
    assert append.conn is mover and append.re == 7 and append.origin == "act"
    outs = t.appended(append, t.state())
    fan = next(o for o in outs if isinstance(o, Fanout))
    assert fan.first is mover and fan.lead == p.ok_frame(7)
    assert t.unchanged(t.state())


def test_refused_acts_change_nothing() -> None:
    t, conns = playing(2)
    stranger = Conn("x")
    sid = t.state_id
    outs = t.act(stranger, p.Act(room="r1", state_id=sid, action=["pass"], id=1))  # type: ignore[arg-type]
    assert notices(outs) == [("refused", ())] and sent(outs) == [("x", "Error")]
    mover = conns[t.dealt().to_act()[0]]
    outs = t.act(mover, p.Act(room="r1", state_id=sid + 5, action=["pass"], id=1))  # type: ignore[arg-type]
    assert "stale_state" in outs[-1].msg.code and t.state_id == sid  # type: ignore[union-attr]
    t.close()
    outs = t.act(mover, p.Act(room="r1", state_id=sid, action=["pass"], id=1))  # type: ignore[arg-type]
    assert outs[-1].msg.code == "server/unavailable"  # type: ignore[union-attr]
    t.close()  # closing twice is allowed
    assert t.closed and t.owner is None


def test_a_failed_append_rolls_back_and_reloads_or_gives_up() -> None:
    t, conns = playing(2)
    sid = t.state_id
    mover = conns[t.dealt().to_act()[0]]
    outs = t.failed(act_of(t, mover), lost=False)
    assert t.state_id == sid and t.reloading and ("reload", ()) in notices(outs)
    assert sent(outs) == [(mover.name, "Error")]
    outs = t.reloaded([], None)
    assert not t.reloading and "Fanout" in kinds(outs)
    outs = t.failed(act_of(t, mover), lost=True)
    assert ("lost", ()) in notices(outs) and t.state_id == sid


def test_a_game_over_finishes_the_room() -> None:
    """The last action's answer: phase finished (derived), no more clocks, ``game_over``
    (fenced), the state saved, the lobby told."""
    t, conns = playing(2)
    game = t.dealt()
    while len(game.to_act()) and not game.over:
        seat = game.to_act()[0]
        append = Append(*_forfeit(game, seat))
        if game.over:
            outs = t.appended(append, t.state())
            break
    assert t.phase is F and t.finished_at is not None
    assert (None, "GameOver") in sent(outs) and ("finished", ()) in notices(outs)
    assert ("ended", ()) in notices(outs)
    assert t.leave(conns[0]) == []  # type: ignore[arg-type]  # a finished room only detaches


def _forfeit(game: Any, seat: int) -> tuple[LogEntry, list[dict[str, Any]]]:
    entry = LogEntry.forfeit(seat)
    return entry, game.apply_entry(entry)


def test_a_turn_that_runs_out_plays_its_defaults_through_the_store() -> None:
    """The timer: ``seat_event timeout``, then each default action appended, one at a time
    (the next after the store's answer), until the turn ends; then the timer again."""
    t, conns = playing(2, turn_seconds=30.0)
    seat = t.dealt().to_act()[0]
    assert seat in t.deadlines
    outs = t.timer(time.time() + 31)
    assert [o.msg.event for o in outs  # type: ignore[union-attr]
            if isinstance(o, Send) and isinstance(o.msg, p.SeatEvent)] == ["timeout"]
    append = outs[-1]
    steps = 0
    while isinstance(append, Append):
        assert append.origin == "timeout" and append.seat == seat
        steps += 1
        more = t.appended(append, t.state())
        append = more[-1] if more else None
    assert 1 <= steps <= 16 and seat not in t.dealt().to_act()


class CountingClock:
    """``time`` for the table's module that counts its wall-clock reads."""

    perf_counter = staticmethod(time.perf_counter)

    def __init__(self) -> None:
        self.reads = 0

    def time(self) -> float:
        self.reads += 1
        return time.time()


def test_a_move_that_keeps_the_turn_keeps_its_deadline_without_clock_work(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue #43: a move after which the same seat acts (Skipper's plays before the move
    that ends its turn) leaves the deadline its turn got, reads no clock and asks for no
    timer; a move that ends the turn gives the seats to act then fresh deadlines."""
    t, conns = playing(2, turn_seconds=30.0, bid_seconds=10.0)
    game = t.dealt()
    ends = Skipper.TYPE.turn_end_verbs
    assert ends is not None
    clock = CountingClock()
    monkeypatch.setattr(table_module, "time", clock)
    counted = table_module.__file__.endswith(".py")  # a compiled module keeps its own time
    kept = handed = in_turn = 0
    while not game.over and kept + handed < 120:
        seat = game.to_act()[0]
        due, reads = t.deadlines[seat], clock.reads
        legal = [a for a in game.legal_actions(seat) if a[0] != "resign"]
        moves = [a for a in legal if a[0] not in ends]
        action = moves[0] if moves and in_turn < 3 else legal[-1]
        outs = t.act(conns[seat], p.Act(room="r1", state_id=game.state_id,  # type: ignore[arg-type]
                                        action=list(action), id=1))
        assert kinds(outs) == ["Append"]
        outs = t.appended(outs[0], t.state())  # type: ignore[arg-type]
        if game.over:
            break
        if action[0] not in ends:
            kept, in_turn = kept + 1, in_turn + 1
            assert game.to_act() == [seat] and dict(t.deadlines) == {seat: due}
            assert kept == 1 or not any(isinstance(o, Timer) for o in outs)
            if kept > 1 and counted:  # the start's own changes came after its deadlines
                assert clock.reads == reads
        else:
            handed, in_turn = handed + 1, 0
            assert set(t.deadlines) == set(game.to_act())
            limit = 10.0 if game.bidding else 30.0
            assert all(0 < d - time.time() <= limit for d in t.deadlines.values())
            assert clock.reads > reads or not counted
    assert kept >= 5 and handed >= 5


def test_the_timer_goes_to_the_first_deadline_or_grace_window() -> None:
    """The timer asked for is the first moment anything runs out, a turn's deadline or a
    dropped seat's grace window; it moves only earlier, and once it fires with nothing run
    out it is asked again for the first (the grace windows are read once per seats tuple:
    issue #43)."""
    t, conns = playing(3, turn_seconds=600.0, grace_seconds=60.0)
    seat = t.dealt().to_act()[0]
    other, third = (s for s in range(3) if s != seat)
    outs = t.drop(conns[other])  # type: ignore[arg-type]
    held = t.seats[other]
    assert held is not None and held.grace_until is not None
    assert held.grace_until < t.deadlines[seat]
    assert [o.at for o in outs if isinstance(o, Timer)] == [held.grace_until]
    outs = t.drop(conns[third])  # type: ignore[arg-type]  # a later window: the timer stays
    assert not [o for o in outs if isinstance(o, Timer)]
    outs = t.timer(time.time())  # fired early: nothing ran out
    assert [o.at for o in outs if isinstance(o, Timer)] == [held.grace_until]
    assert t.seats[other] is held and set(t.deadlines) == {seat}
    outs = t.resume(conns[other], held.token)  # type: ignore[arg-type]
    outs += t.resume(conns[third], t.seats[third].token)  # type: ignore[arg-type,union-attr]
    assert t.seats[other].grace_until is None  # type: ignore[union-attr]
    outs = t.timer(time.time())
    assert [o.at for o in outs if isinstance(o, Timer)] == [t.deadlines[seat]]


def test_a_bot_seat_moves_through_bot_turn_and_bot_move() -> None:
    t, conns = playing(2)
    t.leave(conns[0])  # type: ignore[arg-type]
    t.leave(conns[1])  # type: ignore[arg-type]
    turn = t.bot_turn()
    assert turn is not None
    seat, decide = turn
    outs = t.bot_move(seat, decide())
    assert kinds(outs) == ["Append"] and outs[0].origin == "bot"  # type: ignore[attr-defined]
    t.reloading = True
    assert t.bot_turn() is None


def test_chat_and_mutes() -> None:
    t = table(2)
    a, w = Conn("a"), Conn("w")
    t.join(a, 0, reply=False)  # type: ignore[arg-type]
    outs = t.say(a, p.Chat(room="r1", text="hi\tthere", id=3))  # type: ignore[arg-type]
    assert sent(outs) == [("a", "Ok"), (None, "frame")] and kinds(outs)[-1] == "Save"
    assert t.chat[-1]["text"] == "hi there" and t.chat[-1]["n"] == 1
    with pytest.raises(ChatRefused):
        t.say(w, p.Chat(room="r1", text="hi", id=4))  # type: ignore[arg-type]
    assert t.mute(0, True)[-1] == Result({"seat": 0, "muted": True})
    with pytest.raises(ChatRefused) as err:
        t.say(a, p.Chat(room="r1", text="x", id=5))  # type: ignore[arg-type]
    assert err.value.code == "chat/muted"
    assert t.state()["muted"] == [0]


def test_a_takeover_reloads_the_stored_state() -> None:
    t, conns = playing(2, turn_seconds=30.0)
    state = t.state()
    t2 = Table("r1", "r1", "skipper", dict(t.settings), game=t.dealt(), phase=P,
               owner="other")
    t2.loaded(state, None, [])
    assert [h.name if h else None for h in t2.seats] == ["c0", "c1"]
    assert all(h is not None and h.conn is None for h in t2.seats)
    t2.reattach(conns[0], 0)  # type: ignore[arg-type]
    t2.hold_seats(1000.0)
    assert t2.seats[0].conn is conns[0] and t2.seats[1].grace_until == 1060.0  # type: ignore[union-attr]
    outs = t2.resync()
    assert "Fanout" in kinds(outs) and conns[0].rooms["r1"] == "other"
