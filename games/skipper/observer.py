"""What Skipper's seats see (RULINGS K8): their views, the deltas between two states' views,
and the caches that let a room build them without rebuilding what did not change.

An :class:`Observer` holds the caches of one game; its methods take the game
(:class:`~cardhall.games.skipper.rules.SkipperRules`) as an argument, so the game keeps its
observer without the two referring to each other (no cycle to leave to the garbage
collector). :class:`cardhall.games.skipper.Skipper` gives the engine contract's ``view``,
``views``, ``deltas`` and ``bot_view`` through it.

Every view part that does not change comes back as the same object (a room's delta diff
then skips it by identity): the public seats while nothing they show changed
(:meth:`Observer.public_seat`), the options, ``to_act`` and ``auction`` while equal
(:meth:`Observer.reuse`), each hand while unchanged. Nothing handed out may be mutated.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any, Final

from ..base import SplitDeltas
from .rules import SkipperRules
from .stacks import CODE, SUIT_LETTERS, Seat, values_of

_NOTHING: Final = object()  # no cached value (see Observer.reuse)
_NO_ACTIONS: Final[list[Any]] = []  # the legal actions of a seat that may not act (never mutated)

#: The view parts at the state :meth:`Observer.deltas` last saw: (state_id, the
#: CHANGING_SHARED values, every public seat, every seat's (hand, legal actions), None for a
#: seat whose delta was not read at that state).
Mark = tuple[int, tuple[Any, ...], list[dict[str, Any]],
             list[tuple[list[str], list[Any]] | None]]


def _view_auction(g: SkipperRules) -> dict[str, Any] | None:
    a = g.auction
    if a is None:
        return None
    return {"seller": a["seller"], "card": CODE[a["card"]],
            "bids": [[s, None if c is None else CODE[c]] for s, c in a["bids"]],
            "bidder": a["bidders"][len(a["bids"])]}


def _stack_view(p: Seat, s: int) -> dict[str, Any]:
    """Stack ``s`` of seat ``p`` as every view shows it (:meth:`Observer.public_seat`)."""
    return {"suit": SUIT_LETTERS[s], "cards": [CODE[c] for c in p.stacks[s]],
            "values": values_of(p.values[s]), "complete": p.complete[s]}


Part = Callable[[SkipperRules, "Observer", "int | None"], Any]

# The view, one entry per key, in order: the whitelist of what a seat may see.
VIEW_PARTS: Final[dict[str, Part]] = {
    "game": lambda g, o, seat: g.name,
    "mode": lambda g, o, seat: g.mode,
    "options": lambda g, o, seat: o.public_options(g),
    "state_id": lambda g, o, seat: g.state_id,
    "to_act": lambda g, o, seat: o.reuse("to_act", g.to_act()),
    "over": lambda g, o, seat: g.over,
    "outcome": lambda g, o, seat: g.outcome(),
    "seat": lambda g, o, seat: seat,
    "turn": lambda g, o, seat: None if g.mode == "race" or g.over else g.current,
    "seats": lambda g, o, seat: o.public_seats(g),
    "auction": lambda g, o, seat: o.reuse("auction", _view_auction(g)),
    "hand": lambda g, o, seat: None if seat is None else o.hand_view(g, seat),
    "legal_actions": lambda g, o, seat: [] if seat is None else g.legal_actions(seat),
}

#: How :meth:`Observer.deltas` goes through the view's keys. Fixed for the whole game:
#: ``game``, ``mode``, ``options``, ``seat``. Always changed: ``state_id``. Compared seat by
#: seat: ``seats``. The rest: every seat sees them alike (shared), or only its own (own).
FIXED_PARTS = ("game", "mode", "options", "seat")
CHANGING_SHARED: Final = ("to_act", "over", "outcome", "turn", "auction")
OWN_PARTS = ("hand", "legal_actions")
#: The fields of a public seat (:meth:`Observer.public_seat`), in order.
SEAT_FIELDS: Final = ("stacks", "discard_top", "discard", "stock", "hand", "trash", "turns",
                      "phase", "status", "auto_trash")
#: The delta pointers of seat ``j``'s fields and stacks, made once (not per delta):
#: ``FIELD_POINTERS[j][field]`` is ``"/seats/j/field"``, ``STACK_POINTERS[j][k]``
#: ``"/seats/j/stacks/k"``.
FIELD_POINTERS: Final = [{f: f"/seats/{j}/{f}" for f in SEAT_FIELDS}
                  for j in range(SkipperRules.max_seats)]
STACK_POINTERS: Final = [[f"/seats/{j}/stacks/{k}" for k in range(4)]
                  for j in range(SkipperRules.max_seats)]


class LazyView(Mapping[str, Any]):
    """A seat's view whose entries are computed on first read (see ``Game.bot_view``).

    Args:
        game: The game.
        observer: Its observer.
        seat: The seat whose view it is.
    """

    __slots__ = ("_game", "_obs", "_seat", "_cache")
    _cache: dict[str, Any]

    def __init__(self, game: SkipperRules, observer: Observer, seat: int) -> None:
        self._game, self._obs, self._seat, self._cache = game, observer, seat, {}

    def __getitem__(self, key: str) -> Any:
        try:
            return self._cache[key]
        except KeyError:
            pass
        part = VIEW_PARTS.get(key)
        if part is None:
            raise KeyError(key)
        value = self._cache[key] = part(self._game, self._obs, self._seat)
        return value

    def __iter__(self) -> Iterator[str]:
        return iter(VIEW_PARTS)

    def __len__(self) -> int:
        return len(VIEW_PARTS)


class SeatDeltas(SplitDeltas):
    """:meth:`Observer.deltas`' answer: seat (None: a spectator) -> its delta. The change
    every seat shares (:attr:`shared`) is computed at once; a seat's own part (hand, legal
    actions: :meth:`own`) when its delta is first read, so that a room writes the acting
    seat's update before it builds the other seats' hands and legal actions. Read it
    before the game changes again.

    Raises:
        KeyError: a seat it was not asked for.
        RuntimeError: a delta first read after the game changed state.
    """

    __slots__ = ("_game", "_obs", "_sid", "_seats", "_acting", "_now", "_before", "_own",
                 "_out")

    def __init__(self, game: SkipperRules, observer: Observer, seats: dict[int | None, None],
                 acting: Sequence[int], shared: dict[str, Any],
                 own_now: list[tuple[list[str], list[Any]] | None],
                 own_before: list[tuple[list[str], list[Any]] | None]) -> None:
        self._game, self._obs, self._sid = game, observer, game.state_id
        self._seats, self._acting = seats, acting
        self.shared, self._now, self._before = shared, own_now, own_before
        # seat -> its own part's change ({} when none: then shared is its delta)
        self._own: dict[int | None, dict[str, Any]] = {}
        self._out: dict[int | None, dict[str, Any]] = {}

    def own(self, seat: int | None) -> dict[str, Any] | None:
        """``seat``'s ``hand`` and ``legal_actions`` that changed, or None (see
        :meth:`SplitDeltas.own`); computed on the first call for the seat."""
        own = self._own.get(seat)
        if own is None:
            if seat not in self._seats:
                raise KeyError(seat)
            own = self._own[seat] = {} if seat is None else self._own_change(seat)
        return own if own else None

    def _own_change(self, seat: int) -> dict[str, Any]:
        """``seat``'s own part's change since the state before ({} when none)."""
        game = self._game
        if game.state_id != self._sid:
            raise RuntimeError(f"delta of seat {seat} read at state {game.state_id}, "
                               f"after the state {self._sid} it was asked at")
        now = self._now[seat]
        if now is None:
            now = self._now[seat] = self._obs.own_part(game, seat, self._acting)
        before = self._before[seat]
        assert before is not None  # Observer.deltas returns None when one is missing
        # (indexed, not unpacked: a compiled unpacking iterates the tuples)
        hand, legal, old_hand, old_legal = now[0], now[1], before[0], before[1]
        own: dict[str, Any] = {}
        if hand is not old_hand and hand != old_hand:
            own["hand"] = hand
        if legal is not old_legal and legal != old_legal:
            own["legal_actions"] = legal
        return own

    def __getitem__(self, seat: int | None) -> dict[str, Any]:
        out = self._out
        delta = out.get(seat)
        if delta is not None:
            return delta
        own = self.own(seat)
        delta = out[seat] = {**self.shared, **own} if own else self.shared
        return delta

    def __iter__(self) -> Iterator[int | None]:
        return iter(self._seats)

    def __len__(self) -> int:
        return len(self._seats)


class Observer:
    """The view caches of one Skipper game and the views built from them (K8).

    Attributes:
        seats: seat -> (its key tuple, its public dict): :meth:`public_seat`.
        all_seats: The last list of every public seat (:meth:`public_seats`).
        options: The public options (they never change), once built.
        shared: (state_id, the public part of every view) of :meth:`views`, or None.
        reused: view key -> the value :meth:`reuse` returned last.
        hands: seat -> (its hand, the hand's view): :meth:`hand_view`.
        mark: The view parts :meth:`deltas` saw last (:data:`Mark`), or None.
    """

    __slots__ = ("seats", "all_seats", "options", "shared", "reused", "hands", "mark")

    def __init__(self) -> None:
        self.seats: dict[int, tuple[Any, dict[str, Any]]] = {}
        self.all_seats: list[dict[str, Any]] | None = None
        self.options: dict[str, Any] | None = None
        self.shared: tuple[int, dict[str, Any]] | None = None
        self.reused: dict[str, Any] = {}
        self.hands: dict[int, tuple[tuple[int, ...], list[str]]] = {}
        self.mark: Mark | None = None

    def invalidate(self) -> None:
        """Forget what was built for the current state: a setting changed the views
        without a new ``state_id`` (the next :meth:`deltas` then answers None once)."""
        self.shared = None
        self.mark = None

    def public_seat(self, g: SkipperRules, i: int) -> dict[str, Any]:
        """Seat ``i`` as everyone sees it (K8).

        The same dict object comes back while nothing it shows has changed, and the same
        ``stacks`` list while the stacks did not change: views then share them, and the
        room's delta diff skips them by identity. Callers must not mutate them. A stack is
        known by its length, values and completion: cards are only ever added to stacks.

        Keys: ``stacks``, ``discard_top``, ``discard``, ``stock``, ``hand``, ``trash`` (counts),
        ``turns``, ``phase``, ``status`` and ``auto_trash`` (the seat's K6 preference,
        RULINGS K6m).
        """
        p = g.players[i]
        st, va, co = p.stacks, p.values, p.complete
        stacks_key = (len(st[0]), len(st[1]), len(st[2]), len(st[3]), va[0], va[1], va[2],
                      va[3], co[0], co[1], co[2], co[3])
        key = (stacks_key, p.discard[-1] if p.discard else -1, len(p.discard), len(p.stock),
               len(p.hand), len(p.trash), p.turns, p.phase, p.status, p.auto_trash)
        hit = self.seats.get(i)
        if hit is not None and hit[0] == key:
            return hit[1]
        if hit is None:
            stacks = [_stack_view(p, s) for s in range(4)]
        elif hit[0][0] == stacks_key:
            stacks = hit[1]["stacks"]  # most moves leave the stacks be: the same list
        else:  # a play changes one stack: the others stay the same objects
            was, old = hit[0][0], hit[1]["stacks"]
            stacks = [old[s] if was[s] == stacks_key[s] and was[4 + s] == va[s]
                      and was[8 + s] == co[s] else _stack_view(p, s) for s in range(4)]
        view = {
            "stacks": stacks,
            "discard_top": CODE[p.discard[-1]] if p.discard else None,
            "discard": len(p.discard), "stock": len(p.stock), "hand": len(p.hand),
            "trash": len(p.trash), "turns": p.turns, "phase": p.phase, "status": p.status,
            "auto_trash": p.auto_trash,
        }
        self.seats[i] = (key, view)
        return view

    def reuse(self, key: str, value: Any) -> Any:
        """``value``, or the equal object this returned last time for ``key``: views then
        share it and the room's delta diff skips it by identity. Callers must not mutate it."""
        last = self.reused.get(key, _NOTHING)
        if last == value:
            return last
        self.reused[key] = value
        return value

    def public_options(self, g: SkipperRules) -> dict[str, Any]:
        """The options every seat may see (all but ``seed`` and ``deck``); built once, the
        same object every time (options never change during a game)."""
        if self.options is None:
            self.options = {k: v for k, v in g.options.items() if k not in ("seed", "deck")}
        return self.options

    def public_seats(self, g: SkipperRules) -> list[dict[str, Any]]:
        """Every seat's :meth:`public_seat`; the same list object while none changed."""
        seats = [self.public_seat(g, i) for i in range(g.seats)]
        last = self.all_seats
        if last is not None and all(a is b for a, b in zip(last, seats)):
            return last
        self.all_seats = seats
        return seats

    def hand_view(self, g: SkipperRules, seat: int) -> list[str]:
        """``seat``'s hand as card codes; the same list object while the hand is unchanged
        (do not mutate it)."""
        hand = tuple(g.players[seat].hand)
        hit = self.hands.get(seat)
        if hit is not None and hit[0] == hand:
            return hit[1]
        view = [CODE[c] for c in hand]
        self.hands[seat] = (hand, view)
        return view

    def view(self, g: SkipperRules, seat: int | None) -> dict[str, Any]:
        """What ``seat`` may see (K8): its own hand; every seat's stacks (cards and possible
        values), discard top, pile and hand sizes; the auction with its bids; whose turn;
        the seat's legal actions; ``state_id``. ``None``: a spectator (no hand, no actions).
        Never another hand, any pile's order, the deck option or the seed.

        Keys: ``game, mode, options, state_id, to_act, over, outcome, seat, turn, seats,
        auction, hand, legal_actions``.
        """
        return {key: part(g, self, seat) for key, part in VIEW_PARTS.items()}

    def views(self, g: SkipperRules, seats: Iterable[int | None]
              ) -> dict[int | None, dict[str, Any]]:
        """:meth:`view` of several seats, the public part built once per state and shared
        (also between calls: a room builds its acting seat's view before the others')."""
        own = g.TYPE.per_seat_view_keys or frozenset()
        hit = self.shared
        if hit is not None and hit[0] == g.state_id:
            shared = hit[1]
        else:  # every move goes through apply or forfeit, which bump state_id; a setting
            # goes through invalidate
            shared = {key: (None if key in own else part(g, self, None))
                      for key, part in VIEW_PARTS.items()}
            self.shared = (g.state_id, shared)
        out: dict[int | None, dict[str, Any]] = {}
        for seat in seats:
            v = dict(shared)
            for key in own:
                v[key] = VIEW_PARTS[key](g, self, seat)
            out[seat] = v
        return out

    def deltas(self, g: SkipperRules, seats: Iterable[int | None]
               ) -> Mapping[int | None, dict[str, Any]] | None:
        """What changed in each of ``seats``' views (K8) since the state before this one
        (see ``Game.deltas``): a shared part, computed at once, plus each seat's own,
        computed when its delta is first read (:class:`SeatDeltas`).

        Compares part by part against the parts this method saw last time instead of
        building views and diffing them: the public parts that come back as the same
        object while unchanged (``to_act``, ``auction``, each seat of ``seats`` and its
        ``stacks``: see :meth:`public_seat`) by identity first; a public seat that
        changed goes as pointers to its changed fields (``"/seats/2/hand"``), a changed
        stack whole (``"/seats/2/stacks/1"``); a seat's ``hand`` and ``legal_actions``
        whole when they changed. ``game``, ``mode``, ``options`` and ``seat`` never change
        during a game. Seats whose own parts did not change get the very same dict. None
        when this state was reported already, when the last call was not at the state
        before (or a setting came since: :meth:`invalidate`), or did not read the delta of
        one of ``seats`` (its own part at that state is unknown).
        """
        before = self.mark
        if before is not None and before[0] == g.state_id:
            return None  # this state was reported already
        shared_now = self.changing_shared(g)
        seats_now = self.public_seats(g)
        own_now: list[tuple[list[str], list[Any]] | None] = [None] * g.seats
        self.mark = (g.state_id, shared_now, seats_now, own_now)
        wanted: dict[int | None, None] = {}
        for seat in seats:
            wanted[seat] = None
        if (before is None or before[0] != g.state_id - 1
                or any(s is not None and before[3][s] is None for s in wanted)):
            for i in range(g.seats):  # seen now, so that the next call can tell
                own_now[i] = self.own_part(g, i, shared_now[0])
            return None
        _, shared_before, seats_before, own_before = before
        shared: dict[str, Any] = {"state_id": g.state_id}
        for key, value, old in zip(CHANGING_SHARED, shared_now, shared_before):
            if value is not old and value != old:
                shared[key] = value
        if seats_now is not seats_before:  # a changed field as a pointer, a stack whole
            for j, (now, was) in enumerate(zip(seats_now, seats_before)):
                if now is was:
                    continue
                pointers = FIELD_POINTERS[j]
                for field, value in now.items():
                    old = was[field]
                    if value is old or value == old:
                        continue
                    if field == "stacks":
                        for k in range(4):
                            if value[k] is not old[k] and value[k] != old[k]:
                                shared[STACK_POINTERS[j][k]] = value[k]
                    else:
                        shared[pointers[field]] = value
        return SeatDeltas(g, self, wanted, shared_now[0], shared, own_now, own_before)

    def changing_shared(self, g: SkipperRules) -> tuple[Any, ...]:
        """The :data:`CHANGING_SHARED` parts of every view, in order, as
        :data:`VIEW_PARTS` gives them (called directly here: :meth:`deltas` runs on every
        action)."""
        return (self.reuse("to_act", g.to_act()), g.over, g.outcome(),
                None if g.mode == "race" or g.over else g.current,
                self.reuse("auction", _view_auction(g)))

    def own_part(self, g: SkipperRules, seat: int, acting: Sequence[int]
                 ) -> tuple[list[str], list[Any]]:
        """``seat``'s own view parts for :meth:`deltas`: (hand, legal actions); the legal
        actions only when ``seat`` is one of ``acting`` (the seats to act), else an empty
        list."""
        return (self.hand_view(g, seat),
                g.legal_actions(seat) if seat in acting else _NO_ACTIONS)

    def bot_view(self, g: SkipperRules, seat: int) -> Mapping[str, Any]:
        """:meth:`view` computed lazily, key by key (for offline bots)."""
        return LazyView(g, self, seat)

