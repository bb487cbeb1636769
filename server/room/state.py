"""What a room is, read and versioned: :class:`TableState`, the base of
:class:`~.table.Table` (which holds what happens to a room: its inputs).

The state (phase, seats, members, host, deadlines, chat, engine), the views and records
built from it (:meth:`TableState.state`, :meth:`~TableState.facts`,
:meth:`~TableState.views_for`...), and the few changes every input makes through
(:meth:`~TableState._put` a seat, :meth:`~TableState._admit` or
:meth:`~TableState._expel` a member), each bumping :attr:`TableState.version`: the cached
state and facts are keyed by it, so they are never stale by construction. No I/O.
"""

from __future__ import annotations

import hmac
import random
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from ... import protocol as p
from ...games import Game, LogEntry, bots
from ...protocol import fairness
from ..phases import Phase
from . import rules
from .seats import Member, Peer, Seat

W, P, F = Phase.WAITING, Phase.PLAYING, Phase.FINISHED
BOT_STRATEGY = "greedy"
#: Spectators named in the room facts (``room.spectators.names``); the count says the rest.
SPECTATOR_NAMES = 20


class TableState:
    """One room's state, its reads and the changes every input makes through.

    Attributes:
        id, name, game_name, private, code, created, salt, chosen_deal: the record (what
            never changes; :meth:`record`).
        settings: Room options (:data:`~.rules.ROOM_OPTIONS`).
        game: The engine (None while the room waits: dealt by :meth:`start`).
        game_cls, options, seat_count: The engine's class, resolved options (seed
            included) and number of seats.
        phase: :class:`~cardhall.server.phases.Phase` (waiting, playing, finished).
        closed: This copy runs the room no more (an input in flight goes on in ``phase``).
        host: Session id holding the host role (``""``: none connected).
        seats: One :class:`~.seats.Seat` or None per seat (a tuple: replaced, never changed).
        chat: The last chat lines, oldest first; muted: seats an operator muted.
        started_at, finished_at: unix time s, or None.
        reloading: An append failed: no view, no action until :meth:`reloaded`.
        version: Bumped by every change of what :meth:`state` and :meth:`facts` show.
        owner: What each member's ``rooms`` maps this room's id to (the driver).
    """

    def __init__(self, id: str, name: str, game_name: str, settings: dict[str, Any], *,
                 private: bool = False, code: str | None = None, host: str = "",
                 phase: Phase = W, game: Game | None = None,
                 game_cls: type[Game] | None = None, options: dict[str, Any] | None = None,
                 seat_count: int = 0, chosen_deal: bool = False, salt: str | None = None,
                 created: float | None = None, owner: Any = None) -> None:
        self.id, self.name, self.game_name, self.settings = id, name, game_name, settings
        self.private, self.code, self.host, self.phase = private, code, host, phase
        self.closed = False
        self.game = game
        if game is not None:
            game_cls, options, seat_count = type(game), game.options, game.seats
        assert game_cls is not None, "a table needs its engine's class"
        self.game_cls: type[Game] = game_cls
        self.options: dict[str, Any] = options if options is not None else {}
        self.seat_count = seat_count
        self.chosen_deal = chosen_deal
        self.salt = fairness.new_salt() if salt is None else salt
        self.created = time.time() if created is None else created
        self.owner = owner
        self.seats: tuple[Seat | None, ...] = (None,) * seat_count
        self.chat: tuple[dict[str, Any], ...] = ()
        self.muted: frozenset[int] = frozenset()
        self.started_at: float | None = None
        self.finished_at: float | None = None
        self.reloading = False
        self.version = 0
        self._members: dict[Peer, Member] = {}
        self._deadlines: dict[int, float] = {}
        self._seat_version = [0] * seat_count
        self._saved_snapshot: dict[str, Any] | bytes | None = None
        self._saved_entries: list[LogEntry] = []
        self._stored_state: dict[str, Any] | None = None
        self._clock = 0  # bumped when the deadlines alone change (_clock_touched)
        self._state_cache: tuple[int, int, dict[str, Any]] | None = None
        self._facts_cache: tuple[int, int, dict[str, Any]] | None = None
        self._commitment: tuple[int, str] | None = None
        self._timer_at: float | None = None
        # what the table's _schedule last saw (its work is skipped while all of it holds)
        self._scheduled_version = -1
        self._scheduled_clock = -1
        self._scheduled_timer: float | None = None
        self._scheduled_bid = False
        self._scheduled_acting: list[int] | None = None
        # what the table's _read_seats found in the seats tuple _read_of
        self._read_of: tuple[Seat | None, ...] | None = None
        self._bots = False
        self._grace: float | None = None
        self._bot_rng: random.Random | None = None
        self._bot: Callable[..., Any] = bots.strategy(
            game_name, settings.get("bot_strategy", BOT_STRATEGY))

    # -- reads ----------------------------------------------------------------------------

    @property
    def members(self) -> Mapping[Peer, Member]:
        """The room's members (seated or watching), each with its fan-out record; read-only:
        members come and go through the table's inputs alone."""
        return self._members

    @property
    def deadlines(self) -> Mapping[int, float]:
        """Turn deadlines by seat (unix time s); read-only."""
        return self._deadlines

    @property
    def state_id(self) -> int:
        """The engine's ``state_id`` (0 while the room waits)."""
        return 0 if self.game is None else self.game.state_id

    @property
    def taken(self) -> int:
        """Number of taken seats."""
        return sum(s is not None for s in self.seats)

    @property
    def startable(self) -> bool:
        """A waiting room someone can start now, or whose next player becomes its host
        (:func:`~.rules.startable`)."""
        return rules.startable(self.seats)

    @property
    def commitment(self) -> str | None:
        """The deal commitment (:func:`~.rules.commitment` of the seed and :attr:`salt`:
        64 hex digits), or None for a room stored without a salt."""
        if not self.salt:
            return None
        seed = self.options["seed"]
        cached = self._commitment
        if cached is None or cached[0] != seed:
            cached = self._commitment = (seed, rules.commitment(seed, self.salt) or "")
        return cached[1]

    def dealt(self) -> Game:
        """The engine of a room whose game was dealt.

        Raises:
            RuntimeError: the room waits and holds no engine (a bug of the caller).
        """
        game = self.game
        if game is None:
            raise RuntimeError(f"room {self.id}: no game dealt yet")
        return game

    def engine(self) -> Game:
        """The engine, or for a waiting room a fresh deal of its options (not kept)."""
        if self.game is not None:
            return self.game
        return self.game_cls(self.options, self.seat_count)

    def find_token(self, token: str) -> int | None:
        """The seat whose token equals ``token`` (compared in constant time), or None."""
        found = None
        for s, holder in enumerate(self.seats):
            if (holder is not None and holder.token
                    and hmac.compare_digest(holder.token.encode(), token.encode())):
                found = s
        return found

    def summary(self) -> dict[str, Any]:
        """The room as the lobby lists it (a ``rooms`` entry of the protocol)."""
        return {"room": self.id, "name": self.name, "game": self.game_name,
                "mode": self.options.get("mode"), "seats": self.seat_count,
                "taken": self.taken, "status": self.phase.stored, "private": self.private,
                "spectators": sum(m.seat is None for m in self._members.values()),
                "created": int(self.created)}

    def record(self) -> dict[str, Any]:
        """The store record: what never changes (engine options with seed, room options)."""
        return {"room": self.id, "name": self.name, "game": self.game_name,
                "seats": self.seat_count, "private": self.private,
                "options": self.options, "settings": self.settings,  # shared: read-only
                "host": self.host, "code": self.code, "created": self.created,
                "salt": self.salt, "chosen_deal": self.chosen_deal}

    def state(self) -> dict[str, Any]:
        """The state the store keeps beside the log: status, seats (with tokens), members
        (``[process, session, seat]``), deadlines (``[[seat, unix time s]]``), start and
        finish times, the host's session, the chat's last lines and the muted seats. The
        same dict object while :attr:`version` stays (do not mutate it); when only the
        deadlines changed since (:meth:`_clock_touched`), a copy of it with the new ones."""
        cached = self._state_cache
        if cached is not None and cached[0] == self.version:
            if cached[1] == self._clock:
                return cached[2]
            state = {**cached[2], "deadlines": self._deadline_pairs(False)}
            self._state_cache = (self.version, self._clock, state)
            return state
        state = {"status": self.phase.stored, "finished_at": self.finished_at,
                 "host": self.host, "chat": list(self.chat), "muted": sorted(self.muted),
                 "started_at": self.started_at,
                 "seats": [None if h is None else h.stored() for h in self.seats],
                 "members": [[c.process, c.session_id, m.seat]
                             for c, m in self._members.items()],
                 "deadlines": self._deadline_pairs(False)}
        self._state_cache = (self.version, self._clock, state)
        return state

    def _deadline_pairs(self, ordered: bool) -> list[list[Any]]:
        """The deadlines as ``[[seat, unix time s], ...]``: by seat when ``ordered`` (the
        facts clients see), else in the order they were set (the stored state)."""
        items = sorted(self._deadlines.items()) if ordered else self._deadlines.items()
        return [[s, t] for s, t in items]

    def facts(self) -> dict[str, Any]:
        """The room facts added to every view under ``"room"``: id, game, mode, status,
        players, deadlines (``[[seat, unix time s], ...]``), the deal ``commitment`` (nil
        until the game starts), ``spectators`` (``{count, names}``), and in a rated room
        only ``rated`` (True) and each player's rating ``key`` (:func:`~.ratings.seat_key`:
        the account id, ``bot:STRATEGY``, or None). The same dict object
        while nothing in it changed (the delta diff skips it by identity; do not mutate);
        when only the deadlines changed (:meth:`_clock_touched`), a copy of it with the new
        ones (its other values the same objects: the diff skips them by identity too)."""
        cached = self._facts_cache
        if cached is not None and cached[0] == self.version:
            if cached[1] == self._clock:
                return cached[2]
            facts = {**cached[2],
                     "deadlines": self._deadline_pairs(True)}
            self._facts_cache = (self.version, self._clock, facts)
            return facts
        watching = [c.name for c, m in self._members.items() if m.seat is None]
        players = [None if h is None else h.public(s) for s, h in enumerate(self.seats)]
        facts = {"id": self.id, "game": self.game_name, "mode": self.options.get("mode"),
                 "status": self.phase.stored, "players": players,
                 "deadlines": self._deadline_pairs(True),
                 "commitment": None if self.phase is W else self.commitment,
                 "spectators": {"count": len(watching),
                                "names": [n[:64] for n in watching[:SPECTATOR_NAMES]]}}
        if self.settings.get("rated"):  # issue #45: clients show the seats' ratings
            facts["rated"] = True
            bot = f"bot:{self.settings.get('bot_strategy') or 'greedy'}"
            for player, holder in zip(players, self.seats):
                if player is not None and holder is not None:
                    player["key"] = bot if holder.bot else (holder.account or None)
        if cached is not None and facts == cached[2]:
            facts = cached[2]
        self._facts_cache = (self.version, self._clock, facts)
        return facts

    def views_for(self, seats: set[int | None],
                  facts: dict[str, Any] | None = None) -> dict[int | None, dict[str, Any]]:
        """The engine views of ``seats`` plus the room facts under ``"room"`` (``facts``:
        :meth:`facts`, when the caller has it); no legal actions before the game starts."""
        views = self.engine().views(seats)
        if facts is None:
            facts = self.facts()
        for view in views.values():
            if self.phase is not P:
                view["legal_actions"] = []
            view["room"] = facts
        return views

    def view_for(self, seat: int | None) -> dict[str, Any]:
        """:meth:`views_for` of one seat."""
        return self.views_for({seat})[seat]

    def game_over(self) -> p.GameOver:
        """The finished game's ``game_over``: ``outcome`` is the view's plus ``stats``
        (:meth:`Game.stats`); the deal's seed and salt revealed (protocol "Fair deals")."""
        game = self.dealt()
        outcome = dict(game.outcome() or {})
        outcome["stats"] = game.stats()
        reveal = {"seed": self.options["seed"], "salt": self.salt} if self.salt else {}
        return p.GameOver(room=self.id, state_id=game.state_id, outcome=outcome, **reveal)

    def unchanged(self, state: dict[str, Any]) -> bool:
        """True when ``state`` is what the store is known to hold (an append then writes
        only its entry). The same dict object (:meth:`state` while nothing changed) is
        known at once, without comparing its values."""
        stored = self._stored_state
        return state is stored or state == stored

    def _read_seats(self) -> None:
        """What the clocks and the bots read of the seats, worked out once per
        :attr:`seats` tuple (replaced at every seat change), not at every action: whether a
        server bot plays any (``_bots``), the first end of a grace window (``_grace``: unix
        time s, or None)."""
        seats = self.seats
        if seats is not self._read_of:
            self._read_of = seats
            self._bots = any(h is not None and h.bot for h in seats)
            graces = [h.grace_until for h in seats if h is not None and h.grace_until is not None]
            self._grace = min(graces) if graces else None

    def _has_bots(self) -> bool:
        """Whether a server bot plays any seat (:meth:`_read_seats`)."""
        self._read_seats()
        return self._bots

    # -- changes (each bumps the version) ---------------------------------------------------

    def _touch(self) -> None:
        self.version += 1

    def _clock_touched(self) -> None:
        """The deadlines changed and nothing else the state or facts show: they are copied
        with the new deadlines instead of rebuilt (a room with a turn clock changes them at
        every action: issue #43)."""
        self._clock += 1

    def _put(self, seat: int, holder: Seat | None) -> None:
        seats = list(self.seats)
        seats[seat] = holder
        self.seats = tuple(seats)
        self._touch()

    def _admit(self, conn: Peer, seat: int | None) -> None:
        self._members[conn] = Member(seat, wire=getattr(conn, "wire", 1))
        conn.rooms[self.id] = self.owner
        self._touch()

    def _sit(self, conn: Peer, seat: int) -> None:
        """``conn`` plays the taken ``seat`` (no longer a bot's; its grace window, if any,
        over) as a member."""
        holder = self.seats[seat]
        assert holder is not None
        self._put(seat, replace(holder, conn=conn, grace_until=None, bot=False,
                                session_id=conn.session_id))
        self._admit(conn, seat)

    def _expel(self, conn: Peer) -> Member | None:
        member = self._members.pop(conn, None)
        conn.rooms.pop(self.id, None)
        self._touch()
        return member

    def stored(self, state: dict[str, Any] | None) -> None:
        """The store confirmed ``state`` (None: what it holds is not known, a write is
        under way or failed)."""
        self._stored_state = state

    def loaded(self, state: Mapping[str, Any], snapshot: dict[str, Any] | None,
               entries: Sequence[LogEntry]) -> None:
        """Take the stored ``state`` (a takeover: seats, times, chat, deadlines) and the
        store's snapshot and log entries (the last state it is known to hold)."""
        self.finished_at = state.get("finished_at")
        self.started_at = state.get("started_at")
        self.chat = tuple(state.get("chat", ()))
        self.muted = frozenset(state.get("muted", ()))
        seats = list(self.seats)
        for s, data in enumerate(state.get("seats", [])):
            if data is not None:
                seats[s] = Seat(token=data["token"], conn=None, name=data["name"],
                                bot=data["bot"], grace_until=data["grace_until"],
                                assisted=data.get("assisted", data["bot"]),
                                host=data.get("host", False), since=data.get("since", 0.0),
                                account=data.get("account", ""))
        self.seats = tuple(seats)
        self._deadlines = {int(s): float(t) for s, t in state.get("deadlines", [])}
        self._seat_version = [self.state_id] * self.seat_count
        self._saved_snapshot, self._saved_entries = snapshot, list(entries)
        self._touch()

    def reattach(self, conn: Peer, seat: int | None) -> None:
        """Put a member recorded in the stored state back (after a takeover)."""
        self._admit(conn, seat)
        holder = self.seats[seat] if seat is not None else None
        if seat is not None and holder is not None:
            self._put(seat, replace(holder, conn=conn, grace_until=None,
                                    session_id=conn.session_id))

    def hold_seats(self, since: float) -> None:
        """After a restart: every seat of a player with no connection now is held for the
        room's ``grace_seconds`` from ``since`` (unix time s), so its client can resume it
        (the timer is armed by :meth:`resync`), or to the end of the window it was held for
        before when that is later (a kept solo game, :func:`~.rules.solo_keep`). Not bots'
        seats, forfeited ones, nor in a finished room."""
        if self.phase is F:
            return
        until = since + self.settings["grace_seconds"]
        for s, holder in enumerate(self.seats):
            if holder is not None and holder.conn is None and not holder.bot and holder.token:
                # a seat held longer before (a kept solo game) keeps its window
                self._put(s, replace(holder, grace_until=max(until, holder.grace_until or 0.0)))

    def _mark(self) -> tuple[Any, ...]:
        """What :meth:`undo` puts back."""
        return (self.seats, self.host, self.phase, dict(self._deadlines),
                set(self._members))
