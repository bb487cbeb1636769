"""A room's play without I/O (server/room/play.py): an ``act``, the store's answer, the timer, a
bot's move and a reload as plain calls, and the effects they return, in order (no event
loop, no store, no sockets)."""

from __future__ import annotations

from dataclasses import replace

import ast
from pathlib import Path

import pytest
from cardhall.games import LogEntry
from cardhall.games.base import ACT, act_entry
from cardhall.games.skipper import Skipper
from cardhall.server.room import play
from cardhall.server.room.seats import Seat
from cardhall.server.room.rules import Phase, TransitionError

ROOT = Path(__file__).resolve().parents[2]
W, P, F, C = Phase.WAITING, Phase.PLAYING, Phase.FINISHED, Phase.CLOSED


class Conn:
    """A stand-in connection: only its identity matters to the rules."""

    def __init__(self, session: str = "s", account: str = "") -> None:
        self.session_id, self.account = session, account


def seat(conn: Conn | None = None, *, account: str = "") -> Seat:
    return Seat(token="tok", conn=conn, name="x", account=account)  # type: ignore[arg-type]


def dealt(mode: str = "multi", seats: int = 2) -> Skipper:
    options = {"mode": mode, "seed": 3} | ({"first_seat": 0} if mode == "multi" else {})
    return Skipper(options, seats)


def kinds(effects: list[play.Effect]) -> list[str]:
    return [type(e).__name__ for e in effects]


def refused(effect: play.Effect) -> str:
    assert isinstance(effect, play.Refuse), effect
    return str(effect.error.code)


@pytest.mark.parametrize(("phase", "reloading", "seat", "code"), [
    (P, False, None, "room/not_seated"),
    (P, True, 0, "server/unavailable"),
    (W, False, 0, "room/not_started"),
    (C, False, 0, "server/unavailable"),
    (F, False, 0, "action/game_over"),
])
def test_an_act_the_room_refuses_leaves_the_engine_as_it_was(
        phase: Phase, reloading: bool, seat: int | None, code: str) -> None:
    game = dealt()
    before = game.snapshot()
    action = list(game.legal_actions(0)[0])
    effect = play.act(phase, reloading, game, seat, action, 0, [0, 0])
    assert refused(effect) == code
    assert game.snapshot() == before and game.state_id == 0


def test_a_stale_or_illegal_act_is_refused_and_a_legal_one_applied_not_yet_told() -> None:
    """An accepted act yields one Append and no send: the sends follow the store's
    answer (``appended``), so nobody can be told before the entry is saved."""
    game = dealt()
    before = game.snapshot()
    action = list(game.legal_actions(0)[0])
    assert refused(play.act(P, False, game, 0, action, 1, [0, 0])) \
        == "action/stale_state"
    assert refused(play.act(P, False, game, 1, action, 0, [0, 0])) \
        == "action/not_your_turn"
    assert game.snapshot() == before
    effect = play.act(P, False, game, 0, action, 0, [0, 0])
    assert isinstance(effect, play.Append)
    assert effect.entry == LogEntry.act(0, action) and game.state_id == 1


def test_a_setting_is_accepted_off_turn_against_any_state_and_moves_no_state_id() -> None:
    """Issue #31: Skipper's ``auto_trash`` from a seat not on turn must not make the acting
    seat's chosen action stale."""
    game = dealt()
    effect = play.act(P, False, game, 1, ["auto_trash", "off"], 99, [0, 0])
    assert isinstance(effect, play.Append) and effect.entry.kind == "s"
    assert game.state_id == 0
    after = play.appended(P, game, effect.entry, effect.events)
    assert kinds(after) == ["Broadcast", "WakeBots"]  # no stamp, no clock: no turn ended


def test_a_real_time_seat_may_act_on_a_view_older_than_the_game_but_not_its_own() -> None:
    game = dealt("race")
    a0 = play.act(P, False, game, 0, list(game.legal_actions(0)[0]), 0, [0, 0])
    assert isinstance(a0, play.Append)
    stamp = play.appended(P, game, a0.entry, a0.events)[0]
    assert isinstance(stamp, play.Stamp) and 0 in stamp.seats
    versions = [0, 0]
    for s in stamp.seats:
        versions[s] = stamp.state_id
    action = list(game.legal_actions(1)[0])
    if 1 not in stamp.seats:  # seat 1 untouched: its view at state 0 is still good
        assert isinstance(play.act(P, False, game, 1, action, 0, versions),
                          play.Append)
    action0 = list(game.legal_actions(0)[0])
    assert refused(play.act(P, False, game, 0, action0, 0, versions)) \
        == "action/stale_state"


def test_what_follows_a_stored_action_in_order() -> None:
    game = dealt()
    move = play.act(P, False, game, 0, list(game.legal_actions(0)[0]), 0, [0, 0])
    assert isinstance(move, play.Append)
    effects = play.appended(P, game, move.entry, move.events)
    assert kinds(effects) == ["Schedule", "Broadcast", "WakeBots"]  # a play: the turn goes on
    end = play.act(P, False, game, 0, ["end"], game.state_id, [0, 0])
    assert isinstance(end, play.Append)
    assert kinds(play.appended(P, game, end.entry, end.events)) == [
        "EndTurn", "Schedule", "Broadcast", "WakeBots"]  # turn-based: no stamp (act's floor
    # is the game's state_id)


def test_the_last_action_finishes_the_game_after_its_update() -> None:
    game = dealt()
    while not game.over:  # forfeits end it: every seat but one gives up
        step = play.forfeit(game, game.to_act()[0])
        assert step is not None
    assert play.forfeit(game, 0) is None  # over: nobody forfeits any more
    effects = play.appended(P, game, step.entry, step.events)
    assert kinds(effects) == ["ClearClocks", "EnterPhase", "Broadcast", "Finish"]
    assert effects[1] == play.EnterPhase(F)
    assert kinds(play.finish(F, [seat(), seat()], False)) == [
        "RecordEnd", "ClearClocks", "SendGameOver", "SaveState", "Released"]


def test_a_finish_ranks_a_solo_game_of_a_signed_in_player_and_needs_a_started_room() -> None:
    assert play.Rank("acc") in play.finish(P, [seat(Conn(), account="acc")], False)
    assert kinds(play.finish(P, [seat(Conn(), account="acc")], True))[0] == "EnterPhase"
    with pytest.raises(TransitionError):
        play.finish(W, [seat()], False)


def test_a_failed_append_rolls_back_first_and_tells_the_actor() -> None:
    lost = play.append_failed(lost=True)
    assert kinds(lost) == ["RollBack", "Halt", "Tell", "GiveUp"]
    unknown = play.append_failed(lost=False)
    assert kinds(unknown) == ["RollBack", "Reload", "Tell"]
    assert all(isinstance(e, play.Tell) and e.error.code == "server/unavailable"
               for e in (lost[2], unknown[2]))


def test_the_timer_frees_or_abandons_ended_grace_windows_then_plays_due_turns() -> None:
    held = replace(seat(), grace_until=10.0)  # seats are values: replaced, never changed
    later = replace(seat(), grace_until=30.0)
    seats = [held, later, None]
    assert play.on_timer(True, P, seats, 20.0) == []  # reloading: its reload re-arms
    assert play.on_timer(False, W, seats, 20.0) == [play.FreeSeat(0, expired=True),
                                                   play.TurnsDue(20.0)]
    assert play.on_timer(False, P, seats, 20.0) == [play.Abandon(0), play.TurnsDue(20.0)]
    assert play.turns_due(P, {0: 5.0, 1: 25.0}, 20.0) == [play.PlayDefaults((0,))]
    assert play.turns_due(P, {1: 25.0}, 20.0) == [play.SCHEDULE]
    assert play.turns_due(F, {0: 5.0}, 20.0) == []


def test_a_timed_out_seat_plays_its_default_until_its_turn_ends() -> None:
    game = dealt()
    assert play.timeout_step(game, 1) is None and game.state_id == 0  # not on turn
    default = game.default_action(0)
    step = play.timeout_step(game, 0)
    assert default is not None and step is not None
    assert step.entry == LogEntry.act(0, default) and game.state_id == 1
    assert play.turn_ends(game, step.entry) == (default[0] in game.TYPE.turn_end_verbs)
    assert not play.turn_ends(game, LogEntry.act(0, ["play", "KC", "C"]))
    assert play.turn_ends(game, LogEntry.forfeit(0))


def test_a_bot_move_is_dropped_when_the_room_reloads_or_the_seat_may_not_act() -> None:
    game = dealt()
    action = list(game.legal_actions(0)[0])
    assert play.bot_move(True, game, 0, action) is None
    assert play.bot_move(False, game, 1, action) is None and game.state_id == 0
    move = play.bot_move(False, game, 0, action)
    assert move is not None and game.state_id == 1


def test_a_reload_stamps_every_seat_then_finishes_or_restarts_clocks_and_bots() -> None:
    game = dealt()
    assert kinds(play.reloaded(P, game)) == ["Stamp", "Broadcast", "Schedule", "WakeBots"]
    assert play.reloaded(P, game)[0] == play.Stamp((0, 1), 0)
    while not game.over:
        play.forfeit(game, game.to_act()[0])
    assert kinds(play.reloaded(P, game)) == ["Stamp", "Broadcast", "Finish"]
    assert kinds(play.reloaded(F, game)) == ["Stamp", "Broadcast"]  # finished already


def test_the_driver_carries_out_every_effect_play_can_return() -> None:
    """Every :class:`~cardhall.server.room.play.Effect` class is matched by an ``isinstance`` in
    the room's table (table.py): an effect nobody carries out would be a rule silently
    dropped (``Table._step`` raises TypeError at run time)."""
    effects = {name for name, value in vars(play).items() if isinstance(value, type)
               and issubclass(value, play.Effect) and value is not play.Effect}
    handled: set[str] = set()
    for module in ("table",):
        tree = ast.parse((ROOT / "server" / "room" / f"{module}.py").read_text())
        for node in ast.walk(tree):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                    and node.func.id == "isinstance"):
                kinds = node.args[1].elts if isinstance(node.args[1], ast.Tuple) else [
                    node.args[1]]
                handled |= {k.attr if isinstance(k, ast.Attribute) else getattr(k, "id", "")
                            for k in kinds}
    assert effects - handled == set()
    assert len(effects) >= 20


def test_a_leave_frees_a_waiting_seat_abandons_a_playing_one_and_ends_in_a_finished_room(
        ) -> None:
    assert play.leave(W, 1) == [play.FreeSeat(1)]
    assert play.leave(P, 1) == [play.SeatEvent(1, "left"), play.Abandon(1)]
    assert play.leave(F, 1) == []
    with pytest.raises(TransitionError):
        play.leave(C, 1)


def test_a_drop_holds_the_seat_for_its_grace_window_and_saves() -> None:
    assert play.drop(P, 2, 120.0, 1000.0) == [
        play.HoldSeat(2, 1120.0), play.SeatEvent(2, "dropped"), play.SCHEDULE,
        play.SAVE_STATE]
    assert play.drop(W, 0, 5.0, 10.0)[0] == play.HoldSeat(0, 15.0)
    assert play.drop(F, 0, 5.0, 10.0) == []  # a finished room's seats no longer matter


def test_an_abandoned_seat_goes_to_a_bot_or_forfeits_as_the_room_says() -> None:
    assert play.abandon(P, False, "bot", 1, 50.0) == [
        play.HoldSeat(1, None), play.ToBot(1), play.SeatEvent(1, "bot"), play.SAVE_STATE,
        play.WAKE_BOTS]
    assert play.abandon(P, False, "forfeit", 1, 50.0) == [
        play.HoldSeat(1, None), play.SeatEvent(1, "forfeit"), play.VoidSeat(1),
        play.Forfeit(1)]
    # Reloading: the window ends again at once; the timer forfeits it after the reload.
    assert play.abandon(P, True, "forfeit", 1, 50.0) == [play.HoldSeat(1, 50.0)]
    assert play.abandon(P, True, "bot", 1, 50.0)[1] == play.ToBot(1)  # a bot appends nothing
    assert play.abandon(W, False, "bot", 1, 50.0) == []
    assert play.abandon(F, False, "forfeit", 1, 50.0) == []
    assert play.forfeit_failed(1, 60.0) == [play.HoldSeat(1, 60.0)]


def test_an_accepted_act_logs_a_log_entry_of_its_own_list() -> None:
    """The entry of an accepted act (made by ``act_entry``, not the classmethod: issue #43)
    is a :class:`LogEntry` (the stores and ``get_log`` read ``kind``/``seat``/``action``
    by name), holding a copy of the action: the message's list may change after."""
    game = dealt()
    action = list(game.legal_actions(0)[0])
    effect = play.act(P, False, game, 0, action, 0, [0, 0])
    assert isinstance(effect, play.Append)
    entry = effect.entry
    assert type(entry) is LogEntry
    assert (entry.kind, entry.seat, entry.action) == (ACT, 0, action)
    assert entry.action is not action
    made = act_entry(1, ("bid", 3))
    assert type(made) is LogEntry and made == LogEntry.act(1, ("bid", 3))
    assert made.action == ["bid", 3]
