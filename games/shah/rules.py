"""The Shah: a two-pack patience built as a star around a king (the seed's rules
text as read by RULINGS H1-H10, restated in ``docs/rules/shah.md``).

Setup: from two packs (deck 0 and deck 1) the eight aces become the foundations and the eight
kings come out; seven kings are thrown aside and one, the Shah, sits in the centre. The other
88 cards form the pack (the stock). The star has eight rays of three places each: circle 0
(inner), circle 1 (middle) and circle 2 (outer). Foundations build up in suit from the ace to
the queen; the game is won when all eight reach the queen.

State machine (:data:`PHASES`)::

    deal (circle 0, then circle 1) ──deal──▶ play ◀──▶ refill       (grace ─▶ play)
                                              └──(win, resign, move limit, no move)──▶ over

* ``deal``: a circle of eight has just been dealt; its cards may be played to the foundations
  (optional), each vacancy refilled from the pack at once (H3). ``deal`` lays the next circle;
  laying the third (outer) circle starts ``play``.
* ``play``: the player plays available cards to foundations (H4, H10), marries cards (H1-H2),
  takes the grace (H6), turns the next pack card, or starts refilling the vacancies (H5).
* ``refill``: once a vacancy is refilled the player's moves are over: every vacancy is refilled
  in order (inner circle first, clockwise from ray 0), each from the talon top or the pack.
* ``grace``: right after a grace the emptied ray's middle and outer places are refilled.

Forced moves (the only move besides resigning is ``deal``, ``turn`` or ``fill``) are made by
the engine itself.

Readings beyond the RULINGS (also in ``docs/rules/shah.md``):

* The turned card (``up``) stays face up until it is used or the next ``turn`` moves it onto
  the talon. Refilling "from the pack" takes the turned card when there is one, else the next
  pack card. The player may ``turn`` only when the star has no vacancy.
* During the deal only foundation plays are open (marriages belong to the third circle).
* The grace moves the top card of another ray's outer place into the empty ray's inner place;
  the two places left are refilled at once, each from the talon or the pack (H5's choice).
* Two foundations of one suit are distinct places: a card that fits both has two moves.
* The Shah is the king of spades of deck 0; the other seven kings are aside.
* Score: the cards built on the foundations above the aces (88 on a win).

Actions (card codes are strings such as ``"7S1"``; foundations 0..7 hold the aces
``AC AD AH AS AC1 AD1 AH1 AS1``; rays 0..7 clockwise from the top)::

    ("deal",)                 lay the next circle (during the deal)
    ("play", code, f)         an available card onto foundation f
    ("marry", code, r)        a marriable card onto the outer pile of ray r (H1-H2)
    ("grace", code, r)        an outer card into the inner place of empty ray r (H6)
    ("fill", "talon"|"pack")  refill the next vacancy (H5)
    ("turn",)                 turn the next pack card (the previous one goes to the talon)
    ("resign",)               give up (a loss)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from .. import cards as C
from ..base import Action, Event
from ..errors import UnknownAction
from ..options import SEED, Option
from ..rng import GameRNG
from ..solo import SettlingSoloGame

RAYS = 8
CIRCLES = 3
OUTER = 2
FOUNDATIONS = 8
#: The rank a foundation must reach (seed "PLAY": aces ascend to queens).
TOP_RANK = C.QUEEN
#: The Shah in the centre (a reading: any king would do).
SHAH = C.make(C.KING, C.SPADES, 0)

PHASES: dict[str, frozenset[str]] = {
    "deal": frozenset({"deal", "play", "resign"}),
    "play": frozenset({"play", "marry", "grace", "fill", "turn", "resign"}),
    "refill": frozenset({"fill", "resign"}),
    "grace": frozenset({"fill", "resign"}),
    "over": frozenset(),
}
VERBS: dict[str, tuple[str, ...]] = {
    "deal": (), "play": ("card", "int"), "marry": ("card", "int"), "grace": ("card", "int"),
    "fill": ("source",), "turn": (), "resign": (),
}
FORCED_VERBS = frozenset({"deal", "turn", "fill"})


def pack_cards() -> list[int]:
    """The 88 cards of the pack: ranks 2..Q of every suit of deck 0 and deck 1."""
    return [c for d in (0, 1) for c in C.full_deck(d) if C.rank(c) not in (C.ACE, C.KING)]


def foundation_ace(f: int) -> int:
    """The ace at the base of foundation ``f`` (0..7): suit ``f % 4``, deck ``f // 4``."""
    return C.make(C.ACE, f % 4, f // 4)


class TheShah(SettlingSoloGame):
    """The Shah engine (one seat).

    The game is won (``winner`` 0) when all foundations reach the queen; resigning, the move
    limit, no move left or a forfeit lose (``winner`` ``None``). ``outcome()["scores"]`` is
    ``[cards built on the foundations above the aces]`` (0..88).

    Args:
        options: ``seed``; ``deck`` (explicit pack order: the 88 codes of ranks 2..Q of both
            packs, index 0 dealt first); ``max_moves`` (the room's move limit).
        seats: Must be 1.

    Raises:
        OptionError: unknown option, bad value, a ``deck`` that is not exactly the 88 pack
            cards, or a seat count other than 1.
    """

    name: ClassVar[str] = "shah"
    title: ClassVar[str] = "The Shah"
    VERBS: ClassVar[Mapping[str, tuple[str, ...]]] = VERBS
    FORCED_VERBS: ClassVar[frozenset[str]] = FORCED_VERBS
    #: A dead end loses (H9).
    NO_MOVE_REASON: ClassVar[str] = "no move left"
    OPTIONS: ClassVar[tuple[Option, ...]] = (
        SEED,
        Option("deck", list, None, "Explicit pack order: the 88 codes of ranks 2..Q of both "
               "packs (deck 0 and 1), index 0 dealt first. None: shuffled."),
        Option("max_moves", int, 3000, "Room move limit; reaching it loses (RULINGS H9).",
               min=1, max=1_000_000),
    )

    def __init__(self, options: Mapping[str, Any] | None = None, seats: int = 1) -> None:
        super().__init__(options, seats)
        self.rng = GameRNG(self.options["seed"])
        if self.options["deck"] is not None:
            self.stock: list[int] = _parse_deck(self.options["deck"])
        else:
            self.stock = pack_cards()
            self.rng.shuffle(self.stock)
        self.foundations: list[list[int]] = [[foundation_ace(f)] for f in range(FOUNDATIONS)]
        self.star: list[list[list[int]]] = [[[] for _ in range(CIRCLES)] for _ in range(RAYS)]
        self.talon: list[int] = []
        self.up: int | None = None
        self.phase = "deal"
        self.circle = 0
        self.grace_ray: int | None = None
        self._outcome = None
        self.counters = {"turned": 0, "marriages": 0, "graces": 0, "forced": 0}
        events: list[Event] = []
        self._lay_circle(0, events)
        self._settle(events)

    # -- derived state -----------------------------------------------------------------------

    def available(self) -> list[tuple[int, str, int, int, bool]]:
        """Cards the player may move now, in a fixed order.

        Returns:
            ``(card, where, ray, circle, marriable)`` tuples; ``where`` is ``"star"``,
            ``"up"`` or ``"talon"`` (ray/circle are -1 off the star). During the deal only the
            circle just laid is open (H3); afterwards the outermost card of each ray (H4).
            Only outer-circle tops, the turned card and the talon top marry (H2).
        """
        out: list[tuple[int, str, int, int, bool]] = []
        if self.phase == "deal":
            for r in range(RAYS):
                pile = self.star[r][self.circle]
                if pile:
                    out.append((pile[-1], "star", r, self.circle, False))
            return out
        for r in range(RAYS):
            for c in (2, 1, 0):
                pile = self.star[r][c]
                if pile:
                    out.append((pile[-1], "star", r, c, c == OUTER))
                    break
        if self.up is not None:
            out.append((self.up, "up", -1, -1, True))
        if self.talon:
            out.append((self.talon[-1], "talon", -1, -1, True))
        return out

    def foundation_targets(self, card: int) -> list[int]:
        """Foundations ``card`` may go on: its suit, top one rank lower (H10)."""
        return [f for f in range(FOUNDATIONS)
                if f % 4 == C.suit(card) and C.rank(self.foundations[f][-1]) == C.rank(card) - 1]

    def marriage_targets(self, card: int) -> list[int]:
        """Rays whose outer top is ``card``'s suit and one rank higher (H1)."""
        out = []
        for r in range(RAYS):
            pile = self.star[r][OUTER]
            if pile and pile[-1] != card and C.suit(pile[-1]) == C.suit(card) \
                    and C.rank(pile[-1]) == C.rank(card) + 1:
                out.append(r)
        return out

    def vacancies(self) -> list[tuple[int, int]]:
        """Empty places as ``(ray, circle)`` in refilling order: inner circle first, then
        middle, then outer, clockwise from ray 0 (H5)."""
        return [(r, c) for c in range(CIRCLES) for r in range(RAYS) if not self.star[r][c]]

    def next_vacancy(self) -> tuple[int, int] | None:
        """The place the next ``fill`` goes to, or None."""
        if self.phase == "grace":
            assert self.grace_ray is not None
            for c in (1, 2):
                if not self.star[self.grace_ray][c]:
                    return (self.grace_ray, c)
            return None
        vac = self.vacancies()
        return vac[0] if vac else None

    def _fill_actions(self) -> list[Action]:
        if self.next_vacancy() is None:
            return []
        out: list[Action] = []
        if self.talon:
            out.append(("fill", "talon"))
        if self.up is not None or self.stock:
            out.append(("fill", "pack"))
        return out

    def _moves(self) -> list[Action]:
        """Every legal move except ``resign``, in a fixed order."""
        if self.phase == "deal":
            out: list[Action] = []
            for card, _w, _r, _c, _m in self.available():
                out.extend(("play", C.code(card), f) for f in self.foundation_targets(card))
            out.append(("deal",))
            return out
        if self.phase in ("refill", "grace"):
            return self._fill_actions()
        if self.phase != "play":
            return []
        avail = self.available()
        out = []
        for card, _w, _r, _c, _m in avail:
            out.extend(("play", C.code(card), f) for f in self.foundation_targets(card))
        for card, _w, _r, _c, marriable in avail:
            if marriable:
                out.extend(("marry", C.code(card), r) for r in self.marriage_targets(card))
        empty_rays = [r for r in range(RAYS) if not any(self.star[r])]
        if empty_rays:
            for card, where, _r, c, _m in avail:
                if where == "star" and c == OUTER:
                    out.extend(("grace", C.code(card), r) for r in empty_rays)
        fills = self._fill_actions()
        out.extend(fills)
        if not self.vacancies() and (self.up is not None or self.stock):
            out.append(("turn",))
        return out

    # -- the contract ---------------------------------------------------------------------------

    def built(self) -> int:
        """Cards on the foundations above the aces (0..88)."""
        return sum(len(f) - 1 for f in self.foundations)

    def default_action(self, seat: object) -> Action | None:
        """For a turn timer: a foundation play if any, else fill from the pack, turn or deal,
        else the first legal move; never resign unless nothing else is legal."""
        legal = self.legal_actions(seat)
        if not legal:
            return None
        for verb in ("play", "fill", "turn", "deal"):
            for a in legal:
                if a[0] == verb and (verb != "fill" or a[1] == "pack"):
                    return a
        return legal[0]

    def stats(self) -> dict[str, Any]:
        """Counters: ``turns`` (actions taken), ``built`` (foundation cards above the aces),
        ``turned`` (pack cards turned), ``marriages``, ``graces``, ``forced`` (moves the engine
        made itself), ``stock`` and ``talon`` sizes."""
        out: dict[str, Any] = {"turns": self.state_id, "built": self.built(),
                               "stock": len(self.stock), "talon": len(self.talon)}
        out.update(self.counters)
        return out

    def card_locations(self) -> dict[str, list[int]]:
        """Zones: ``stock``, ``talon``, ``up``, ``foundation:f``, ``star:r:c``, ``shah`` and
        ``aside`` (the seven other kings)."""
        zones: dict[str, list[int]] = {
            "stock": list(self.stock), "talon": list(self.talon),
            "up": [] if self.up is None else [self.up], "shah": [SHAH],
            "aside": [C.make(C.KING, s, d) for d in (0, 1) for s in range(4)
                      if C.make(C.KING, s, d) != SHAH],
        }
        for f, pile in enumerate(self.foundations):
            zones[f"foundation:{f}"] = list(pile)
        for r in range(RAYS):
            for c in range(CIRCLES):
                zones[f"star:{r}:{c}"] = list(self.star[r][c])
        return zones

    def view(self, seat: int | None) -> dict[str, Any]:
        """The public table (all star piles, foundations and the talon are face up; only the
        pack's order is hidden).

        Keys besides the contract's: ``phase``, ``shah``, ``star`` (8 rays x 3 circles, each a
        pile of codes bottom first, circle 0 inner), ``available`` (``[code, ray, circle]``
        for star cards that may move; -1 off the star), ``foundations`` (top codes),
        ``foundation_sizes``, ``talon`` (codes, top last), ``up`` (the turned card or None),
        ``stock_count``, ``circle`` (during the deal), ``next_vacancy`` (``[ray, circle]`` or
        None), ``grace_ray``, ``moves``, ``max_moves``.
        """
        nv = self.next_vacancy() if self.phase in ("play", "refill", "grace") else None
        return {
            **self._contract_view(seat),
            "phase": self.phase,
            "shah": C.code(SHAH),
            "star": [[C.codes(p) for p in ray] for ray in self.star],
            "available": [[C.code(card), r, c] for card, _w, r, c, _m in self.available()],
            "foundations": [C.code(f[-1]) for f in self.foundations],
            "foundation_sizes": [len(f) for f in self.foundations],
            "talon": C.codes(self.talon),
            "up": None if self.up is None else C.code(self.up),
            "stock_count": len(self.stock),
            "circle": self.circle,
            "next_vacancy": None if nv is None else list(nv),
            "grace_ray": self.grace_ray,
            "moves": self.state_id,
            "max_moves": self.options["max_moves"],
        }

    # -- snapshot ---------------------------------------------------------------------------

    def _snapshot_table(self) -> dict[str, Any]:
        """Circle, grace ray, stock, talon, the turned card, foundations and the star."""
        return {
            "circle": self.circle,
            "grace_ray": self.grace_ray,
            "stock": list(self.stock),
            "talon": list(self.talon),
            "up": self.up,
            "foundations": [list(f) for f in self.foundations],
            "star": [[list(p) for p in ray] for ray in self.star],
        }

    def _restore_table(self, data: Mapping[str, Any]) -> None:
        """Set circle, grace ray, stock, talon, turned card, foundations and star from ``data``."""
        self.circle = int(data["circle"])
        self.grace_ray = None if data["grace_ray"] is None else int(data["grace_ray"])
        self.stock = [int(c) for c in data["stock"]]
        self.talon = [int(c) for c in data["talon"]]
        self.up = None if data["up"] is None else int(data["up"])
        self.foundations = [[int(c) for c in f] for f in data["foundations"]]
        self.star = [[[int(c) for c in p] for p in ray] for ray in data["star"]]

    def _consistent(self) -> bool:
        """A known phase, eight rays of three circles and eight foundations."""
        return (self.phase in PHASES and len(self.star) == RAYS
                and all(len(ray) == CIRCLES for ray in self.star) and len(self.foundations) == 8)

    # -- mutation ---------------------------------------------------------------------------

    def _lay_circle(self, c: int, events: list[Event]) -> None:
        """Deal circle ``c``: one pack card on each ray, clockwise from the top (seed "PLAY")."""
        for r in range(RAYS):
            if self.stock:
                self.star[r][c].append(self.stock.pop(0))
        self.circle = c
        events.append({"type": "deal", "circle": c,
                       "cards": [C.code(self.star[r][c][-1]) for r in range(RAYS)
                                 if self.star[r][c]]})
        if c == OUTER:
            self.phase = "play"

    def _take(self, card: int) -> None:
        """Remove an available ``card`` from wherever it lies."""
        if self.up == card:
            self.up = None
            return
        if self.talon and self.talon[-1] == card:
            self.talon.pop()
            return
        for ray in self.star:
            for pile in ray:
                if pile and pile[-1] == card:
                    pile.pop()
                    return
        raise AssertionError(f"card {C.code(card)} is not available")  # pragma: no cover

    def _do(self, act: Action) -> list[Event]:
        """Carry out a legal action; returns its events."""
        verb = act[0]
        events: list[Event] = []
        if verb == "deal":
            self._lay_circle(self.circle + 1, events)
            return events
        if verb == "play":
            card = C.parse(act[1])
            where = self._where(card)
            self._take(card)
            self.foundations[act[2]].append(card)
            events.append({"type": "play", "card": act[1], "foundation": act[2], "from": where})
            if self.phase == "deal":  # H3: a vacancy in the deal is refilled at once
                for r in range(RAYS):
                    pile = self.star[r][self.circle]
                    if not pile and self.stock:
                        pile.append(self.stock.pop(0))
                        events.append({"type": "fill", "ray": r, "circle": self.circle,
                                       "card": C.code(pile[-1]), "from": "pack"})
            return events
        if verb == "marry":
            card = C.parse(act[1])
            where = self._where(card)
            self._take(card)
            self.star[act[2]][OUTER].append(card)
            self.counters["marriages"] += 1
            events.append({"type": "marry", "card": act[1], "ray": act[2], "from": where})
            return events
        if verb == "grace":
            card = C.parse(act[1])
            where = self._where(card)
            self._take(card)
            self.star[act[2]][0].append(card)
            self.phase = "grace"
            self.grace_ray = act[2]
            self.counters["graces"] += 1
            events.append({"type": "grace", "card": act[1], "ray": act[2], "from": where})
            self._end_refill()
            return events
        if verb == "fill":
            spot = self.next_vacancy()
            assert spot is not None
            if act[1] == "talon":
                card = self.talon.pop()
            elif self.up is not None:
                card, self.up = self.up, None
            else:
                card = self.stock.pop(0)
                self.counters["turned"] += 1
            r, c = spot
            self.star[r][c].append(card)
            if self.phase == "play":
                self.phase = "refill"
            events.append({"type": "fill", "ray": r, "circle": c, "card": C.code(card),
                           "from": act[1]})
            self._end_refill()
            return events
        if verb == "turn":
            if self.up is not None:
                self.talon.append(self.up)
                self.up = None
            if self.stock:
                self.up = self.stock.pop(0)
                self.counters["turned"] += 1
            events.append({"type": "turn", "card": None if self.up is None else C.code(self.up)})
            return events
        if verb == "resign":
            self._finish(None, "resigned")
            return events
        raise AssertionError(f"unhandled verb {verb}")  # pragma: no cover

    def _end_refill(self) -> None:
        """Leave the refill / grace phase once nothing is left to refill or nothing to
        refill from."""
        if self.phase in ("refill", "grace") and not self._fill_actions():
            self.phase = "play"
            self.grace_ray = None

    def _where(self, card: int) -> str:
        if card == self.up:
            return "up"
        if self.talon and self.talon[-1] == card:
            return "talon"
        return "star"

    def _finish(self, winner: int | None, reason: str) -> None:
        self.phase = "over"
        self.grace_ray = None
        self._outcome = {"winner": winner, "reason": reason, "scores": [self.built()]}

    def _win_reason(self) -> str | None:
        """``"all foundations reached the queen"`` once they all have (H9)."""
        if all(C.rank(f[-1]) == TOP_RANK for f in self.foundations):
            return "all foundations reached the queen"
        return None

    # -- checks and explanations -------------------------------------------------------------

    @staticmethod
    def _check_arg(kind: str, arg: Any) -> None:
        """A ``"card"`` of deck 0 or 1, or a refill ``"source"``: ``"talon"`` or ``"pack"``.

        Raises:
            UnknownAction: a bad card code, a card of another deck, or another source.
        """
        if kind == "card":
            if C.deck_of(C.parse(arg)) > 1:
                raise UnknownAction(f"The Shah uses decks 0 and 1 only: {arg!r}")
        elif arg not in ("talon", "pack"):
            raise UnknownAction(f"refill source must be 'talon' or 'pack', not {arg!r}")

    def _why_illegal(self, act: Action) -> str:
        """A human reason why a well-formed ``act`` is not legal now (names the rule)."""
        verb = act[0]
        if verb not in PHASES[self.phase]:
            if self.phase == "deal" and verb in ("marry", "grace", "turn", "fill"):
                return (f"{verb!r} is not possible during the deal: only foundation plays of "
                        "the circle just laid, or deal on (H2, H3)")
            if self.phase in ("refill", "grace"):
                return f"{verb!r} is not possible while refilling the star: fill first (H5, H6)"
            return f"{verb!r} is not possible now (phase {self.phase!r})"
        if verb == "deal":
            return "the deal is over"
        if verb == "turn":
            if self.vacancies():
                return "refill the star's vacancies before turning (H5)"
            return "the pack is empty"
        if verb == "fill":
            if self.next_vacancy() is None:
                return "there is no vacancy to refill"
            return f"nothing to refill from the {act[1]}"
        card = C.parse(act[1])
        avail = {a[0]: a for a in self.available()}
        if card not in avail:
            return (f"{act[1]} is not available: only the outermost card of each ray, the "
                    "turned card and the talon top may move (H3, H4)")
        marriable = avail[card][4]
        target = act[2]
        if verb == "play":
            if not 0 <= target < FOUNDATIONS:
                return f"there is no foundation {target}"
            top = self.foundations[target][-1]
            return (f"{act[1]} does not follow {C.code(top)} on foundation {target}: "
                    "foundations build up in suit (seed 'RULES')")
        if verb == "marry":
            if self.phase == "deal":
                return "no marriages during the deal (H2)"
            if not marriable:
                return (f"{act[1]} lies in an inner circle: it may only be played to a "
                        "foundation, never married (H2)")
            if not 0 <= target < RAYS or not self.star[target][OUTER]:
                return f"ray {target} has no outer card to marry onto (H2)"
            top = self.star[target][OUTER][-1]
            return f"{act[1]} cannot marry {C.code(top)}: same suit, one rank higher (H1)"
        # grace
        if not 0 <= target < RAYS:
            return f"there is no ray {target}"
        if any(self.star[target]):
            return f"ray {target} is not fully empty: the grace needs an empty lane (H6)"
        return f"{act[1]} is not an outer-circle card: the grace takes one from the third " \
               "circle (H6)"


def _parse_deck(codes: Sequence[Any]) -> list[int]:
    """Validate the ``deck`` option: the 88 pack cards (2..Q of both packs), each once.

    Raises:
        OptionError: a bad code, a duplicate, a missing card, an ace/king or a wrong count.
    """
    return C.parse_deck(codes, pack_cards(), "the 88 pack cards (2..Q of decks 0 and 1)")
