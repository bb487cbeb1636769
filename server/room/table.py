"""The room as one object without I/O: :class:`Table` owns everything that changes a room.

Its phase (one field, and a ``closed`` flag), its seats (a tuple of frozen
:class:`~.seats.Seat` values), its members, the host role, the turn deadlines, the chat, the
engine. Every event that changes a room is one method of it (after h11's ``Connection`` and
websockets' ``ServerProtocol``): :meth:`Table.join`, :meth:`~Table.resume`,
:meth:`~Table.spectate`, :meth:`~Table.leave`, :meth:`~Table.drop`, :meth:`~Table.kick`,
:meth:`~Table.start`, :meth:`~Table.act`, :meth:`~Table.say`, :meth:`~Table.mute`,
:meth:`~Table.timer`, :meth:`~Table.bot_turn` / :meth:`~Table.bot_move`, the store's
answers (:meth:`~Table.appended`, :meth:`~Table.failed`, :meth:`~Table.undo`),
:meth:`~Table.reloaded` and :meth:`~Table.close`. Each returns what the driver is to do:
:mod:`.outputs` (sends, fan-outs, store writes, the next deadline, notices). No asyncio, no
sockets, no store: tested with plain calls (tests/server/test_room_table.py).

Every change of what the room's state and facts show bumps :attr:`Table.version`, so the
cached :meth:`Table.state` and :meth:`Table.facts` (keyed by it) are never stale by
construction. The rules are :mod:`.rules` (phases, seat rules) and :mod:`.play` (the
action path as events in, effects out), which this module carries out.
"""

from __future__ import annotations

import random
import secrets
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

import msgpack

from ... import protocol as p
from ...games import GameError, LogEntry, replay
from ..accounts.names import bot_name
from ..phases import Phase, RoomError
from . import chat, play, rules
from .outputs import Append, Bots, Fanout, Notice, Output, Result, Save, Send, Timer
from .play import Broadcast, Effect, EndTurn, Schedule, Stamp, WakeBots
from .seats import Peer, Seat
from .state import TableState

W, P, F, C = Phase.WAITING, Phase.PLAYING, Phase.FINISHED, Phase.CLOSED
SNAPSHOT_EVERY = 64  # log entries between engine snapshots in the store
#: Server bots' seconds per action in real-time games when ``bot_seconds`` is not set.
REAL_TIME_BOT_SECONDS = 1.0
#: Seconds an armed timer may fire after the first deadline and still be kept: the same
#: deadline, converted from wall-clock to loop time again, comes out microseconds apart.
TIMER_SLACK = 0.001
#: Default actions a seat whose turn ran out plays at most (its turn ends before, as a rule).
TIMEOUT_STEPS = 16


class _Default(Effect):
    """Play default action ``n`` of ``seat``, whose turn ran out (due at ``due``)."""

    __slots__ = ("seat", "n", "due")

    def __init__(self, seat: int, n: int, due: float | None) -> None:
        self.seat, self.n, self.due = seat, n, due


class Table(TableState):
    """One room and its every change, without I/O (see the module docstring; the state
    and its reads: :class:`~.state.TableState`)."""

    def undo(self, mark: Any) -> list[Output]:
        """The state write of an input failed: put the seats, the host, the phase, the
        deadlines and the members back as ``mark`` (:class:`~.outputs.Save`) says (the
        deal of a start is kept: the same seed deals it again). Returns the timer."""
        self.seats, self.host, phase, deadlines, members = mark
        if not self.closed:
            self.phase = phase
        self._deadlines = deadlines
        for conn in set(self._members) - members:
            self._expel(conn)
        self._touch()
        return self._schedule()

    # -- seats: join, resume, spectate ----------------------------------------------------

    def join(self, conn: Peer, seat: int | None, re: Any = None,
             reply: bool = True) -> list[Output]:
        """``conn`` takes ``seat`` (or the first free one: :func:`~.rules.choose_seat`);
        the host role moves as :func:`~.rules.host_on_join` says. Saved before anyone is
        told; then every member gets ``seat_event joined`` and ``conn`` its ``joined``
        (with the seat's token) and view. The join that fills the last seat of a waiting
        room starts it (:func:`~.rules.derived`): the same save holds the start. Without
        ``reply`` (a bare seat: harnesses), nothing is saved, answered or started.

        Raises:
            RoomError: ``room/already_started``, ``room/full``, ``room/already_seated``;
                nothing changed then.
        """
        mark = self._mark()
        seat = rules.choose_seat(C if self.closed else self.phase, self.seats, conn,
                                 conn.account, seat,
                                 bool(self.settings.get("multi_seat")))
        move = rules.host_on_join(self.seats, conn.session_id == self.host, self.host)
        token = secrets.token_urlsafe(24)  # 192 bits
        self._put(seat, Seat(token=token, conn=conn, name=conn.name, since=time.time(),
                             account=conn.account, host=move is rules.HostMove.KEEP,
                             session_id=conn.session_id))
        self._admit(conn, seat)
        told = [(seat, "joined")]
        if move is not rules.HostMove.KEEP and move is not rules.HostMove.NONE:
            told.append(self._make_host(seat, claim=move is not rules.HostMove.LEND))
        joined: dict[str, Any] | None = None
        started: list[tuple[int, str]] | None = None
        outs: list[Output] = []
        if reply and rules.derived(self.phase, self.seats, False) is rules.Derived.START:
            joined = self.view_for(seat)  # the room as it was joined
            started, outs = self._begin_start()
        if reply:
            outs.append(Save(True, mark))
        outs += self._tell(told)
        outs.append(Notice("seated", (conn.account, seat)))
        if reply:
            outs += self._joined(conn, re, token, joined)
        if started is not None:
            outs += self._announce_start(started, None, None)
        return outs

    def _make_host(self, seat: int, claim: bool = True) -> tuple[int, str]:
        """Give the host role to the player of ``seat`` (with ``claim``, its session
        becomes :attr:`host`); returns the seat event every member is to be told."""
        for s, holder in enumerate(self.seats):
            if holder is not None and holder.host != (s == seat):
                self._put(s, replace(holder, host=s == seat))
        holder = self.seats[seat]
        assert holder is not None
        if claim:
            self.host = holder.conn.session_id if holder.conn is not None else ""
            self._touch()
        return seat, "host"

    def resume(self, conn: Peer, token: str | None, re: Any = None) -> list[Output]:
        """Give ``conn`` back the seat with ``token`` (None: the seat its account holds;
        with several, the first not played from ``conn``): the connection that played it
        before gets ``left``, every member ``seat_event resumed``; saved, then ``joined``.

        Raises:
            RoomError: ``room/bad_token`` (no seat has the token, or it was forfeited),
                ``room/not_seated`` (no account, or it holds no seat it may resume).
        """
        if token is not None:
            seat = self.find_token(token)
            if seat is None:
                raise RoomError("room/bad_token", "no seat of this room has that token")
        else:
            held = [s for s, h in enumerate(self.seats) if h is not None and conn.account
                    and h.account == conn.account and h.token]
            if not held:
                raise RoomError("room/not_seated", "your account holds no seat of this room "
                                "(sign in to the account that took it, or resume with its "
                                "token)")
            free = [s for s in held if (h := self.seats[s]) is not None and h.conn is not conn]
            seat = (free or held)[0]
        holder = self.seats[seat]
        assert holder is not None
        outs: list[Output] = []
        old = holder.conn
        if old is not None and old is not conn:
            self._expel(old)
            outs.append(Send(old, p.Left(room=self.id)))
        self._sit(conn, seat)
        outs += self._seat_event(seat, "resumed")
        outs += self._schedule()
        outs.append(Save(True))
        outs += self._joined(conn, re, token, None)
        return outs

    def spectate(self, conn: Peer, re: Any = None) -> list[Output]:
        """Add ``conn`` as a spectator (a seated connection stays seated), then its
        ``joined`` and view."""
        outs: list[Output] = []
        if conn not in self._members:
            self._admit(conn, None)
            outs += [Save(False), Notice("facts")]
        else:
            conn.rooms[self.id] = self.owner
        return outs + self._joined(conn, re, None, None)

    def _joined(self, conn: Peer, re: Any, token: str | None,
                view: dict[str, Any] | None) -> list[Output]:
        """``joined`` with the full view (``view``: built earlier), the ``game_over`` of a
        finished room, then the kept chat lines (:mod:`.chat`)."""
        member = self._members[conn]
        if view is None:
            view = self.view_for(member.seat)
        member.sent(view)
        outs: list[Output] = [Send(conn, p.Joined(room=self.id, seat=member.seat, token=token,
                                                  view=view, re=re))]
        if self.phase is F:
            outs.append(Send(conn, self.game_over()))
        if self.chat:
            outs.append(Send(conn, p.ChatLines(room=self.id, lines=list(self.chat),
                                               history=True)))
        return outs

    def view(self, conn: Peer, re: Any = None) -> list[Output]:
        """``conn``'s full view now (``get_view``)."""
        member = self._members.get(conn)
        if member is None:
            return []
        view = self.view_for(member.seat)
        member.sent(view)
        return [Send(conn, p.Update(room=self.id, state_id=self.state_id, view=view,
                                    events=[], re=re))]

    def resend(self, conn: Peer) -> list[Output]:
        """What member ``conn`` may have missed after frames to it were lost: its full view
        and, once the game is over, the ``game_over`` again."""
        if conn not in self._members:
            return []
        outs = self.view(conn)
        if self.phase is F:
            outs.append(Send(conn, self.game_over()))
        return outs

    def resync(self) -> list[Output]:
        """After a takeover, or once the lease is confirmed again: every member's full view
        (and a finished room's ``game_over``); the timers and bots go on."""
        for member in self._members.values():
            member.sent(None)
        outs = self._schedule()
        outs.append(Fanout([]))
        if self.phase is F:
            outs.append(Send(None, self.game_over(), fenced=True))
        return outs + self._wake()

    # -- seats given up: leave, drop, kick --------------------------------------------------

    def leave(self, conn: Peer) -> list[Output]:
        """``conn`` leaves: a waiting seat is freed, a playing seat abandoned at once, in a
        finished room only the connection goes (:func:`~.play.leave`). A solo game in play
        is kept for its player instead, paused (:func:`~.rules.solo_keep`: held as a drop
        is, for the operator's ``--solo-keep``; issue #44 item 1)."""
        seat, outs = self._detach(conn)
        if seat is None:
            return outs
        keep = rules.solo_keep(self.settings, self.seat_count)
        if keep is not None and self.phase is P:
            return outs + self._do(play.drop(self.phase, seat, keep, time.time()))
        return outs + self._do(play.leave(self.phase, seat))

    def drop(self, conn: Peer) -> list[Output]:
        """``conn`` lost its connection: its seat is held for the grace window
        (:func:`~.play.drop`), a solo game's for its keep window
        (:func:`~.rules.solo_keep`); a spectator is gone (saved soon)."""
        seat, outs = self._detach(conn, save_spectator=True)
        if seat is None:
            return outs
        held = rules.solo_keep(self.settings, self.seat_count)
        return outs + self._do(play.drop(self.phase, seat,
                                         held or self.settings["grace_seconds"], time.time()))

    def _detach(self, conn: Peer,
                save_spectator: bool = False) -> tuple[int | None, list[Output]]:
        """Take ``conn`` out of the members. Returns the seat it played (now without a
        connection), or None (a spectator, not a member, or the seat is played from
        elsewhere), and the outputs of a spectator's going (told soon; with
        ``save_spectator``, saved soon)."""
        member = self._expel(conn)
        if member is None or member.seat is None:
            if member is None:
                return None, []
            return None, [Save(False), Notice("facts")] if save_spectator else [
                Notice("facts")]
        holder = self.seats[member.seat]
        if holder is None or holder.conn is not conn:
            return None, []
        self._put(member.seat, replace(holder, conn=None))
        return member.seat, []

    def kick(self, seat: int) -> list[Output]:
        """An operator removes the player of ``seat``: its connection gets ``error
        room/kicked`` and ``left``; the seat's token is voided; then as a ``leave``.
        Returns (:class:`~.outputs.Result`) ``"freed"``, ``"bot"``, ``"forfeit"`` or
        ``"detached"``.

        Raises:
            RoomError: ``room/not_seated`` (no player holds ``seat``: :func:`~.rules.kickable`).
        """
        holder = self.seats[seat] if 0 <= seat < len(self.seats) else None
        if holder is None or not rules.kickable(holder):
            raise RoomError("room/not_seated", f"no player holds seat {seat}")
        leaving = rules.on_leave(self.phase)
        conn = holder.conn
        self._put(seat, replace(holder, conn=None, token=""))
        outs = self._unseated(holder)
        if conn is not None:
            self._expel(conn)
            outs += [Send(conn, p.Error(code="room/kicked", message="an operator removed "
                                        f"you from seat {seat}")), Send(conn, p.Left(room=self.id))]
        outs += self._do(play.leave(self.phase, seat))
        outs.append(Save(False))
        after = self.seats[seat]
        if leaving is rules.Leaving.ABANDON:
            result = "bot" if after is not None and after.bot else "forfeit"
        else:
            result = "freed" if leaving is rules.Leaving.FREE else "detached"
        return outs + [Result(result)]

    def _free_seat(self, seat: int) -> list[Output]:
        """Free ``seat`` of a waiting room and tell every member; the host role goes to
        :func:`~.rules.heir` when it was the host's."""
        holder = self.seats[seat]
        self._put(seat, None)
        outs = self._seat_event(seat, "left")
        outs.append(Save(False))
        outs += self._unseated(holder)
        if holder is None or not holder.host:
            return outs
        heir = rules.heir(self.seats)
        if heir is not None:
            outs += self._tell([self._make_host(heir)])
        else:
            self.host = ""
            self._touch()
        return outs

    def _unseated(self, holder: Seat | None) -> list[Output]:
        if holder is not None and holder.account:
            return [Notice("unseated", (holder.account,))]
        return []

    def _tell(self, told: list[tuple[int, str]]) -> list[Output]:
        outs: list[Output] = []
        for seat, what in told:
            outs += self._seat_event(seat, what)
        return outs

    def _seat_event(self, seat: int, event: str) -> list[Output]:
        """``seat_event`` to every member; a seat taken or freed in a waiting room is told
        to the lobby too."""
        held = self.seats[seat] if 0 <= seat < len(self.seats) else None
        name = held.name[:64] if held is not None and held.name else None
        outs: list[Output] = [Send(None, p.SeatEvent(room=self.id, seat=seat, event=event,
                                                     name=name))]
        if event in ("joined", "left") and self.phase is W:
            outs.append(Notice("seats", (False,)))
        return outs

    # -- start --------------------------------------------------------------------------

    def start(self, by: Peer | None, re: Any = None) -> list[Output]:
        """Start the game: empty seats to server bots, the deal, phase playing; saved
        before anyone is told, then ``started`` to every member (``by``'s carries ``re``)
        and each member's view. A ``by`` whose seat was dropped while its connection stayed
        open (:func:`~.rules.dropped_seat`: a host whose ``seat_event dropped`` was lost)
        takes it back first, told to every member as ``seat_event resumed``, and is a member
        of the game it started.

        Raises:
            RoomError: ``room/not_host`` (:func:`~.rules.check_starter`),
                ``room/already_started``.
        """
        session = by.session_id if by is not None else ""
        back = rules.dropped_seat(self.seats, session) if by not in self._members else None
        rules.check_starter(self.seats, self.host, by, session, back)
        rules.start_seats(C if self.closed else self.phase, self.seats)  # already started?
        mark = self._mark()
        resumed: list[Output] = []
        if by is not None and back is not None:
            self._sit(by, back)
            resumed = self._seat_event(back, "resumed")
        told, timer = self._begin_start()
        return [*timer, Save(True, mark), *resumed, *self._announce_start(told, by, re)]

    def _begin_start(self) -> tuple[list[tuple[int, str]], list[Output]]:
        """The start's change (nothing sent, nothing saved): bots in the empty seats, the
        deal, phase playing, the first turn's deadlines. Returns the seat events of the
        bots' seats, and the timer.

        Raises:
            TransitionError: ``room/already_started``.
        """
        phase, to_bots = rules.start_seats(C if self.closed else self.phase, self.seats)
        for s in to_bots:
            self._put(s, Seat(token=secrets.token_urlsafe(24), conn=None, name=bot_name(s),
                              bot=True, assisted=True))
        if self.game is None:
            self.game = self.game_cls(self.options, self.seat_count)  # the deal
        self._enter(phase)
        timer = self._schedule()  # the deadlines are part of the state the start saves
        return [(s, "bot") for s in to_bots], timer

    def _announce_start(self, told: list[tuple[int, str]], by: Peer | None,
                        re: Any) -> list[Output]:
        outs = self._tell(told)
        self.started_at = time.time()
        self._touch()
        outs.append(Notice("started"))
        commitment = self.commitment
        for conn in self._members:
            outs.append(Send(conn, p.Started(room=self.id, commitment=commitment,
                                             re=re if conn is by else None)))
        if by is not None and by not in self._members:
            outs.append(Send(by, p.Started(room=self.id, commitment=commitment, re=re)))
        outs.append(Fanout([]))
        return outs + self._wake()

    def _enter(self, phase: Phase) -> None:
        if phase is not self.phase:
            self.phase = phase
            self._touch()

    # -- chat ----------------------------------------------------------------------------

    def say(self, conn: Peer, msg: p.Chat) -> list[Output]:
        """Say ``msg`` from member ``conn`` (:func:`~.chat.line`): ``ok`` to it, the line
        to every member in one ``chat_lines``, kept and saved soon.

        Raises:
            ChatRefused: as :func:`~.chat.line`.
        """
        member = self._members.get(conn)
        seat = None if member is None else member.seat
        holder = self.seats[seat] if seat is not None else None
        line = chat.line(self.chat, self.muted, member is not None, seat,
                         holder.name if holder is not None else conn.name, msg, self.id)
        self.chat = (*self.chat[-(chat.HISTORY_LINES - 1):], line)
        self._touch()
        return [Send(conn, p.Ok(re=msg.id)),
                Send(None, p.encode(p.ChatLines(room=self.id, lines=[line]))), Save(False)]

    def mute(self, seat: int, on: bool) -> list[Output]:
        """Mute (``on``) or unmute ``seat`` in the chat (an operator's); saved soon.
        Returns (:class:`~.outputs.Result`) ``{"seat": seat, "muted": on}``.

        Raises:
            ChatRefused: ``room/not_seated`` when ``seat`` is not a seat of this room.
        """
        self.muted, changed = chat.muting(self.muted, len(self.seats), seat, on)
        outs: list[Output] = []
        if changed:
            self._touch()
            outs.append(Save(False))
        return outs + [Result({"seat": seat, "muted": on})]

    # -- the action path ---------------------------------------------------------------

    def act(self, conn: Peer, msg: p.Act) -> list[Output]:
        """An ``act`` of ``conn`` (:func:`~.play.act`): an :class:`~.outputs.Append` (the
        engine applied it; the sends follow the store's answer: :meth:`appended`), or the
        refusal (nothing changed)."""
        member = self._members.get(conn)
        started = time.perf_counter()
        effect = play.act(C if self.closed else self.phase, self.reloading, self.game,
                          None if member is None else member.seat, msg.action, msg.state_id,
                          self._seat_version)
        if isinstance(effect, play.Append):
            return [Append(effect.entry, effect.events, conn, msg.id, started=started)]
        return self._do([effect], conn, msg.id)

    def appended(self, out: Append, state: dict[str, Any]) -> list[Output]:
        """The store holds ``out.entry`` (written with ``state``): what follows
        (:func:`~.play.appended`), then the steps that waited for it."""
        game = self.dealt()
        self._stored_state = state
        sid = game.log_length
        outs: list[Output] = []
        if sid % SNAPSHOT_EVERY == 0:
            snap = game.snapshot()
            self._saved_snapshot, self._saved_entries = snap, []
            outs.append(Notice("snapshot", (sid, snap)))
        else:
            self._saved_entries.append(out.entry)
        outs += self._do(play.appended(self.phase, game, out.entry, out.events),
                         out.conn, out.re)
        then = out.then
        if not then:
            return outs
        if out.origin == "timeout" and isinstance(then[0], _Default):
            step = then[0]
            if play.turn_ends(game, out.entry) or step.n > TIMEOUT_STEPS:
                then = then[1:]
        return outs + self._do(then)

    def failed(self, out: Append, lost: bool, told: bool = True) -> list[Output]:
        """The store did not confirm ``out.entry`` (:func:`~.play.append_failed`; ``lost``:
        another process owns the room; ``told`` False: the append was cancelled, nobody is
        told): rolled back, reloading. A forfeit's seat is held to be forfeited again
        after the reload; a turn that ran out keeps its deadline."""
        self._stored_state = None
        effects = play.append_failed(lost)
        if not told:
            effects = [play.ROLL_BACK, play.RELOAD]
        outs = self._do(effects, out.conn, out.re)
        if out.origin == "forfeit":
            return outs + self._do(play.forfeit_failed(out.seat, time.time()) + out.then)
        if out.origin == "timeout" and out.then and isinstance(out.then[0], _Default):
            if out.then[0].due is not None:
                self._deadlines[out.seat] = out.then[0].due
                self._touch()
        return outs

    def timer(self, now: float) -> list[Output]:
        """The timer fired at ``now`` (unix time s): grace windows that ended, turns that
        ran out (:func:`~.play.on_timer`)."""
        self._timer_at = None
        return self._do(play.on_timer(self.reloading, self.phase, self.seats, now))

    def bot_turn(self) -> tuple[int, Callable[[], Any]] | None:
        """A bot seat that may act now (several: one drawn at random) and its decision, to
        run away from the room's work (a thread); None when none may."""
        if self.reloading or self.phase is not P or self.dealt().over:
            return None
        ready = [s for s in self.dealt().to_act()
                 if (holder := self.seats[s]) is not None and holder.bot]
        if not ready:
            return None
        if self._bot_rng is None:
            self._bot_rng = random.Random(secrets.randbits(64))
        rng = self._bot_rng
        s = ready[0] if len(ready) == 1 else ready[rng.randrange(len(ready))]
        view = dict(self.dealt().bot_view(s))
        strategy = self._bot
        return s, lambda: strategy(view, rng)

    def bot_move(self, seat: int, action: Any) -> list[Output]:
        """A server bot's ``action`` for ``seat`` (:func:`~.play.bot_move`)."""
        move = play.bot_move(self.reloading, self.dealt(), seat, action)
        return [] if move is None else [Append(move.entry, move.events, origin="bot")]

    def reloaded(self, entries: Sequence[LogEntry],
                 snapshot: dict[str, Any] | None) -> list[Output]:
        """The store's log and snapshot, reloaded after a failed append: the engine rebuilt
        from them, then every member's true view (:func:`~.play.reloaded`).

        Raises:
            GameError: the stored log does not replay (left reloading).
        """
        game = replay(self.game_cls, self.options, self.seat_count, entries, snapshot)
        self.game = game
        self._saved_snapshot, self._saved_entries = snapshot, list(entries)
        self.reloading = False
        return self._do(play.reloaded(self.phase, game))

    def pack(self, snap: dict[str, Any]) -> None:
        """Keep the saved snapshot ``snap`` packed (msgpack: ~8 times smaller)."""
        if self._saved_snapshot is snap:
            self._saved_snapshot = msgpack.packb(snap)

    def close(self) -> None:
        """This copy runs the room no more (:data:`~.rules.TRANSITIONS`: ``close``)."""
        rules.step(C if self.closed else self.phase, rules.Event.CLOSE)
        self.closed = True
        self.owner = None  # no cycle with the driver: a closed room is freed by refcounting

    # -- the rules' effects, carried out ---------------------------------------------------

    def _do(self, effects: list[Effect], conn: Peer | None = None,
            re: Any = None) -> list[Output]:
        """Carry out the rules' ``effects`` (:mod:`.play`) in order: the state changes
        here, the rest as outputs; an append stops it (the steps after it wait for the
        store's answer: :attr:`~.outputs.Append.then`)."""
        outs: list[Output] = []
        todo = effects[::-1]  # a stack: the next effect last
        while todo:
            effect = todo.pop()
            if isinstance(effect, Broadcast):
                if conn is None:
                    outs.append(Fanout(effect.events))
                elif conn.act_reply == "update":  # the update carries the act's id: no ok
                    outs.append(Fanout(effect.events, conn, None, re))
                else:
                    outs.append(Fanout(effect.events, conn, p.ok_frame(re)))
            elif isinstance(effect, Stamp):
                for s in effect.seats:
                    self._seat_version[s] = effect.state_id
            elif isinstance(effect, Schedule):
                outs += self._schedule()
            elif isinstance(effect, EndTurn):
                if self._deadlines.pop(effect.seat, None) is not None:
                    self._clock_touched()
            elif isinstance(effect, WakeBots):
                outs += self._wake()
            elif isinstance(effect, (play.Refuse, play.Tell)):
                if isinstance(effect, play.Refuse):
                    outs.append(Notice("refused"))
                if conn is not None:
                    outs.append(Send(conn, p.error_reply(effect.error, re=re)))
            elif isinstance(effect, (play.Forfeit, _Default)):
                append = self._appending(effect, todo[::-1])
                if append is not None:
                    return outs + [append]
            else:
                todo.extend(reversed(self._step(effect, outs)))
        return outs

    def _appending(self, effect: Effect, todo: list[Effect]) -> Append | None:
        """The append of a forfeit or of a default action (a turn that ran out), with the
        steps after it; None when there is none to make."""
        game = self.dealt()
        if isinstance(effect, play.Forfeit):
            step = play.forfeit(game, effect.seat)
            if step is None:
                return None
            return Append(step.entry, step.events, origin="forfeit", seat=effect.seat,
                          then=list(todo))
        assert isinstance(effect, _Default)
        step = play.timeout_step(game, effect.seat)
        if step is None:
            return None
        return Append(step.entry, step.events, origin="timeout", seat=effect.seat,
                      then=[_Default(effect.seat, effect.n + 1, effect.due), *todo])

    def _step(self, effect: Effect, outs: list[Output]) -> list[Effect]:
        """Carry out one of the rarer effects (into ``outs``); returns the effects that
        follow from it, to carry out next."""
        if isinstance(effect, play.ClearClocks):
            if self._deadlines:
                self._deadlines.clear()
                self._touch()
            self._timer_at = None
            outs.append(Timer(None))
        elif isinstance(effect, play.EnterPhase):
            self._enter(effect.phase)
        elif isinstance(effect, play.Finish):
            return play.finish(self.phase, self.seats, self.chosen_deal)
        elif isinstance(effect, play.RecordEnd):
            self.finished_at = time.time()
            self._touch()
            outs.append(Notice("ended"))
        elif isinstance(effect, play.SendGameOver):
            outs.append(Send(None, self.game_over(), fenced=True))
        elif isinstance(effect, play.SaveState):
            outs.append(Save(False))
        elif isinstance(effect, play.Rank):
            outs.append(Notice("rank", (effect.account,)))
        elif isinstance(effect, play.Released):
            outs.append(Notice("finished"))
        elif isinstance(effect, play.RollBack):
            self._roll_back()
        elif isinstance(effect, (play.Reload, play.Halt)):
            self.reloading = True
            if isinstance(effect, play.Reload):
                outs.append(Notice("reload"))
        elif isinstance(effect, play.GiveUp):
            outs.append(Notice("lost"))
        elif isinstance(effect, play.FreeSeat):
            outs += self._free_seat(effect.seat)
            if effect.expired and self.phase is W:
                outs.append(Notice("seats", (True,)))
        elif isinstance(effect, play.SeatEvent):
            outs += self._seat_event(effect.seat, effect.event)
        elif isinstance(effect, (play.HoldSeat, play.ToBot, play.VoidSeat)):
            outs += self._change_seat(effect)
        elif isinstance(effect, play.Abandon):
            if self.seats[effect.seat] is not None:
                # a kept solo game's window ended: a loss, never a bot's game in its name
                kept = rules.solo_keep(self.settings, self.seat_count) is not None
                return play.abandon(self.phase, self.reloading,
                                    "forfeit" if kept else self.settings["on_abandon"],
                                    effect.seat, time.time())
        elif isinstance(effect, play.TurnsDue):
            return play.turns_due(self.phase, self._deadlines, effect.now)
        elif isinstance(effect, play.PlayDefaults):
            return self._defaults(effect.seats, outs)
        else:
            raise TypeError(f"room {self.id}: no driver for the effect {effect!r}")
        return []

    def _change_seat(self, effect: Effect) -> list[Output]:
        """A seat held for its player, given to a bot, or voided (a forfeit)."""
        seat = getattr(effect, "seat")
        holder = self.seats[seat]
        if holder is None:
            return []
        if isinstance(effect, play.HoldSeat):
            self._put(seat, replace(holder, grace_until=effect.until))
        elif isinstance(effect, play.ToBot):
            self._put(seat, replace(holder, bot=True, assisted=True))
        else:
            self._put(seat, replace(holder, token=""))  # cannot be resumed
            return self._unseated(holder)
        return []

    def _defaults(self, seats: tuple[int, ...], outs: list[Output]) -> list[Effect]:
        """Turns that ran out: each seat told (``seat_event timeout``) as its turn comes,
        its default actions played until its turn ends (:func:`~.play.timeout_step`)."""
        game = self.dealt()
        todo: list[Effect] = []
        for seat in seats:
            due = self._deadlines.pop(seat, None)
            if due is not None:
                self._touch()
            if not game.over and seat in game.to_act():
                outs += self._seat_event(seat, "timeout")
            todo.append(_Default(seat, 1, due))
        todo.append(play.SCHEDULE)
        return todo

    def _roll_back(self) -> None:
        """Put the engine back to the last state the store is known to hold (an append
        failed); left as it is if that cannot be rebuilt (a bug)."""
        game, snap = self.dealt(), self._saved_snapshot
        try:
            if isinstance(snap, bytes):
                snap = msgpack.unpackb(snap, strict_map_key=False)
            saved = replay(type(game), game.options, game.seats, self._saved_entries, snap)
        except GameError:
            return
        if saved.log_length == game.log_length - 1:
            self.game = saved

    def _schedule(self) -> list[Output]:
        """Set the deadlines of the seats to act (a playing room's turn and bid clocks) and
        ask for the timer at the first deadline or grace window's end: a
        :class:`~.outputs.Timer` when that moves earlier than the one asked for, or none is
        left.

        A room without clocks (no turn or bid clock, no deadline, no grace window, no timer
        asked for) returns at once. Else nothing to do, at the cost of a few compares, when
        nothing it reads changed since the last time it ran: the seats to act and whether
        they bid, the table's :attr:`version` (seats, phase: every change bumps it), the
        deadlines (:meth:`_clock_touched` or :meth:`_touch` whenever they change) and the
        timer asked for. That is every move within a turn (Skipper's plays before the move that ends
        it: a turn keeps the one deadline it got when it came; issue #43)."""
        if (self._timer_at is None and not self._deadlines
                and (self.settings["bid_seconds"] or self.settings["turn_seconds"]) is None):
            self._read_seats()
            if self._grace is None:
                return []  # no clocks in this room and none running
        game = self.game
        acting: list[int] | None = None
        bidding = False
        if self.phase is P and game is not None:
            acting = game.to_act()
            bidding = game.bidding
        if (self.version == self._scheduled_version and self._clock == self._scheduled_clock
                and self._timer_at == self._scheduled_timer and bidding == self._scheduled_bid
                and acting == self._scheduled_acting):
            return []
        outs = self._clocks(acting, bidding)
        self._scheduled_version, self._scheduled_clock = self.version, self._clock
        self._scheduled_timer, self._scheduled_bid = self._timer_at, bidding
        # a copy: an engine may hand out a list it changes later
        self._scheduled_acting = None if acting is None else list(acting)
        return outs

    def _clocks(self, acting: list[int] | None, bidding: bool) -> list[Output]:
        """:meth:`_schedule`'s work: the deadlines of the seats ``acting`` (None: the room
        is not playing; ``bidding``: they bid), then the timer."""
        turn = self.settings["turn_seconds"]
        bid = self.settings["bid_seconds"] or turn
        self._read_seats()
        grace = self._grace
        deadlines = self._deadlines
        if acting is not None:
            kept = rules.solo_keep(self.settings, self.seat_count) is not None
            limit = bid if bidding else turn
            changed = False
            if deadlines:
                for s in [s for s in deadlines if s not in acting]:
                    del deadlines[s]
                    changed = True
            now = time.time()
            for s in acting:
                holder = self.seats[s]
                if limit is None or holder is None or holder.bot or (
                        kept and holder.conn is None):  # a kept solo game is paused
                    if deadlines.pop(s, None) is not None:
                        changed = True
                elif s not in deadlines:
                    deadlines[s] = now + limit
                    changed = True
            if changed:
                self._clock_touched()
        at = min(deadlines.values()) if deadlines else grace
        if at is None:  # no deadline, no grace window
            if self._timer_at is None:
                return []
            self._timer_at = None
            return [Timer(None)]
        if grace is not None and grace < at:
            at = grace
        if self._timer_at is not None and self._timer_at <= at + TIMER_SLACK:
            return []  # the timer asked for fires first (or has fired: its input is queued)
        self._timer_at = at
        return [Timer(at)]

    def _wake(self) -> list[Output]:
        """A :class:`~.outputs.Bots` when a bot seat may act: at once, or after
        ``bot_seconds`` (:data:`REAL_TIME_BOT_SECONDS` in real-time games by default)."""
        if self.phase is not P or not self._has_bots():
            return []
        game = self.dealt()
        if game.over:
            return []
        if not any((h := self.seats[s]) is not None and h.bot for s in game.to_act()):
            return []
        delay = self.settings.get("bot_seconds")
        if delay is None:
            delay = REAL_TIME_BOT_SECONDS if game.TYPE.real_time(self.options) else 0.0
        return [Bots(delay)]
