"""Skipper's rules: the deal, the turn table, the actions, drawing and the end of the game.

Rules: the seed's rules text as read by RULINGS K1-K14; our own statement of them is
``docs/rules/skipper.md``. What a stack takes is :mod:`.stacks`' (K1-K4); what the
seats see is :mod:`.observer`'s; the engine class is :class:`cardhall.games.skipper.Skipper`.

Modes (room option ``mode``):
    ``solo``  one seat; score = turns taken (K7).
    ``multi`` 2-6 seats, clockwise turns from ``first_seat`` (K13); play, auction one card or
              discard (K9); auctions bid once round the table (K10); skip-draws (K11).
    ``race``  2-6 seats all acting at once, no turn order, no auctions; skip-draws are the
              option ``skip_draws`` (K14).

Actions (tuples; card codes as in :mod:`cardhall.games.cards`; stack = suit letter)::

    ("play", card, stack)   play a card from the hand (or the discard top, option
                            play_from_discard) onto one of your stacks          K1-K4, K5
    ("discard", card)       discard one card from the hand                      K5
    ("end",)                end the turn: draw up to the hand size (K6); with
                            nothing played or discarded this is a pass          K5, K6
    ("auction", card)       multi only, first thing in a turn: put a card up    K9, K10
    ("bid", card)           the bidding seat offers a card of higher rank       K10
    ("pass",)               the bidding seat declines                           K10
    ("resign",)             concede: solo -> loss; multi/race -> the seat leaves the game

Setting (:meth:`Game.apply_setting`; no action: never in ``legal_actions``, ``state_id``
unchanged)::

    ("auto_trash", "on"|"off")  the seat's own K6 preference (RULINGS K6m): trash dead cards
                            when drawn, or keep them; only the seat sets its own, any time

Options: :data:`~cardhall.games.skipper.stacks.OPTIONS` (each names the rule it selects).
"""

from __future__ import annotations

import bisect
from collections.abc import Mapping, Sequence
from typing import Any, Final, Self

from .. import cards as C
from ..base import Action, Event, Game, GameType, Ranking, Setting, counts_when_won
from ..errors import GameOver, IllegalAction, NotYourTurn, OptionError, UnknownAction
from ..rng import GameRNG
from .stacks import (
    ACTIVE,
    ARITY,
    BIDDING,
    CODE,
    OPTIONS,
    OUT,
    PASSING,
    RANK,
    START,
    SUIT,
    SUIT_LETTERS,
    TURN,
    WHY_NOT,
    WON,
    Rules,
    Seat,
    deck_orders,
    fresh_stock,
    values_of,
)
from .stacks import AUCTION_ACTS, BID_ACTS, DISCARD_ACTS, END_ACT, PASS_ACT, PLAY_ACTS, RESIGN_ACT

_STACK_INDEX: Final = {letter: i for i, letter in enumerate(SUIT_LETTERS)}

#: The ``auto_trash`` setting (RULINGS K6m).
AUTO_TRASH = Setting("auto_trash", ("on", "off"),
                     "Trash dead cards when drawn (on) or keep them in hand (off); each seat's "
                     "own K6 preference (RULINGS K6m); on unless the room has no_trashing.")

GAME_TYPE = GameType(
    real_time_modes=frozenset({"race"}),  # K14: every seat acts at once
    # After these a seat's turn (or its bid) is over: the room restarts its clock.
    turn_end_verbs=frozenset({"end", "auction", "bid", "pass", "resign"}),
    per_seat_view_keys=frozenset({"seat", "hand", "legal_actions"}),  # K8
    settings=(AUTO_TRASH,),
    # Solo: fewer turns is better (K7); only a won game has a score; turn_limit only cuts
    # games short.
    rankings=(Ranking("solo", "asc", "turns", counts_when_won, frozenset({"turn_limit"})),),
)


class SkipperRules(Game):
    """Skipper's rules and state (see the module docstring for modes, actions and rulings);
    the engine, with its views, is :class:`cardhall.games.skipper.Skipper`.

    Args:
        options: Room options (see :data:`OPTIONS`); ``seed`` and ``deck`` fix the deal.
        seats: 1 for ``solo``; 2-6 for ``multi`` and ``race``.

    Raises:
        OptionError: unknown option, bad value, conflicting options, a ``deck`` that is not
            exactly the right cards, or a seat count the mode does not allow.

    Attributes:
        mode: ``"solo"``, ``"multi"`` or ``"race"``.
        rules: The :class:`Rules` of the options.
        skip_draws: Whether skippers make the other seats draw (K11).
        rng: The game's :class:`GameRNG`.
        players: Every seat's :class:`Seat`.
        current: The seat whose turn it is (multi; 0 otherwise).
        auction: The running auction, or None: ``seller``, ``card``, ``bidders`` (in bidding
            order), ``bids`` (``[seat, card or None]``), ``high`` (the high bid's rank).
        winner, reason: The outcome, once over (``reason`` None while the game runs).
        counters: ``auctions``, ``sold``, ``skip_draws``, ``trashed``.
        judges: Seats whose stacks the dead test also consults (a :meth:`solitaire`; else
            empty).
        skip_rate: Skip-draws per own turn a :meth:`solitaire` models (else 0).
    """

    name = "skipper"
    title = "Skipper"
    min_seats = 1
    max_seats = 6
    OPTIONS = OPTIONS
    TYPE = GAME_TYPE

    judges: tuple[int, ...] = ()
    skip_rate: float = 0.0

    def __init__(self, options: Mapping[str, Any] | None = None, seats: int = 1, *,
                 deal: bool = True) -> None:
        """Check the options (OptionError) and deal (K2); ``deal=False``: an empty shell for
        :meth:`clone` to fill (a compiled class is never made without its ``__init__``)."""
        if not deal:
            return
        super().__init__(options, seats)
        o = self.options
        mode = o["mode"]
        if mode == "solo" and seats != 1:
            raise OptionError(f"solo Skipper has 1 seat, not {seats}")
        if mode != "solo" and not 2 <= seats <= 6:
            raise OptionError(f"{mode} Skipper takes 2..6 seats, not {seats}")
        if o["first_seat"] >= seats:
            raise OptionError(f"first_seat {o['first_seat']} is not a seat of {seats}")
        self.mode = mode
        self.rules = Rules(o)
        skip = o["skip_draws"]
        self.skip_draws = (mode == "multi") if skip is None else (bool(skip) and mode != "solo")
        self.rng = GameRNG(o["seed"])
        self.players = [Seat(self.rules.trash) for _ in range(seats)]
        self.current = o["first_seat"] if mode == "multi" else 0
        self.auction: dict[str, Any] | None = None
        self.winner: int | None = None
        self.reason: str | None = None
        self.counters = {"auctions": 0, "sold": 0, "skip_draws": 0, "trashed": 0}
        self._pools()
        orders = deck_orders(o["deck"], seats, self.rules)
        for i, p in enumerate(self.players):
            if self.rules.aces_out:
                for s in range(4):
                    ace = C.make(1, s, i)
                    p.stacks[s].append(ace)
                    p.values[s] = 1 << 1
                    self._set_gone(ace)
            else:
                p.values = [1, 1, 1, 1]  # E = {0}: only the ace starts a stack
            stock = orders[i] if orders is not None else fresh_stock(i, self.rules)
            if orders is None:
                self.rng.shuffle(stock)
            if o["remove_four"]:
                for _ in range(4):
                    card = stock.pop(self.rng.randrange(len(stock)))
                    p.removed.append(card)
                    self._set_gone(card)
            p.stock = stock[::-1]  # first drawn = last item
            self._draw_up(i, [])

    def _pools(self) -> None:
        """Empty the count of cards gone from play. They are counted by face per pool: the
        cards that may reach one seat, its own deck in solo and race, every deck in multi
        (auctions move cards between seats). Every pool is then checked again for K7."""
        self.gone = [[0] * 52 for _ in range(1 if self.mode == "multi" else self.seats)]
        # Pools changed since their last unwinnable check (the check is a pure function of
        # the state, so skipping it while nothing left play cannot change any result).
        self._dirty = set(range(len(self.gone)))

    def recount(self) -> None:
        """Count again the cards gone from play (on stacks, trashed, removed): after a
        state set up from outside the rules."""
        self._pools()
        for p in self.players:
            for c in [*p.trash, *p.removed, *(c for st in p.stacks for c in st)]:
                self._set_gone(c)

    # -- rules: what can be played (K6, K6m, K7) ------------------------------------------

    def dead(self, card: int, p: Seat) -> bool:
        """Is ``card``, drawn by ``p``, dead (may it be trashed)?

        Solo and race: K6, judged for ``p`` alone (nobody else can ever hold the card), and
        for the :attr:`judges` of a :meth:`solitaire`. Multi: RULINGS K6m, dead only when no
        active seat could ever play it: auctions move cards between seats, so a card its
        holder cannot use may still be needed by another seat (its owner, say: each face
        exists once per deck).
        """
        rules = self.rules  # (its method called as one: no bound method made)
        if self.mode != "multi":
            if not self.judges:
                return rules.dead_for(card, p)
            return rules.dead_for(card, p) and all(rules.dead_for(card, self.players[j])
                                                   for j in self.judges)
        return all(rules.dead_for(card, q) for q in self.players if q.status == ACTIVE or q is p)

    def _set_gone(self, card: int) -> None:
        pool = 0 if self.mode == "multi" else C.deck_of(card)
        self.gone[pool][C.face(card)] += 1
        self._dirty.add(pool)

    def _unwinnable(self, i: int) -> dict[str, Any] | None:
        """K7: why seat ``i`` can provably never finish some incomplete stack
        (:meth:`Rules.unwinnable`), or None."""
        multi = self.mode == "multi"
        return self.rules.unwinnable(self.players[i], self.gone[0 if multi else i],
                                     self.seats if multi else 1)

    # -- rules: drawing (K6, K11) -------------------------------------------------------

    def _draw_one(self, i: int, ev: list[Event]) -> bool:
        """Draw one card into seat ``i``'s hand; while the seat's ``auto_trash`` preference
        is on, a dead card (K6; in multi RULINGS K6m: dead for every active seat) is trashed
        and another drawn.

        Returns False when both piles are empty.
        """
        p = self.players[i]
        while True:
            if not p.stock:
                if not p.discard:
                    return False
                if self.options["shuffle_on_flip"]:
                    p.stock = p.discard
                    self.rng.shuffle(p.stock)
                else:
                    p.stock = p.discard[::-1]  # turned over: the first discarded is on top
                p.discard = []
                ev.append({"type": "flip", "seat": i})
            card = p.stock.pop()
            if p.auto_trash and self.dead(card, p):
                p.trash.append(card)
                self._set_gone(card)
                self.counters["trashed"] += 1
                ev.append({"type": "trash", "seat": i})  # dead, but never named: K8
                continue
            bisect.insort(p.hand, card)
            return True

    def _draw_up(self, i: int, ev: list[Event]) -> None:
        p = self.players[i]
        n = 0
        while len(p.hand) < self.rules.hand_size and self._draw_one(i, ev):
            n += 1
        if n:
            ev.append({"type": "draw", "seat": i, "count": n})

    # -- the contract -------------------------------------------------------------------

    def to_act(self) -> list[int]:
        """Seats that may act now: the bidder during an auction, the seat whose turn it is,
        or (race) every active seat."""
        if self.winner is not None or self.reason is not None:
            return []
        if self.auction is not None:
            return [self.auction["bidders"][len(self.auction["bids"])]]
        if self.mode == "race":
            return [i for i, p in enumerate(self.players) if p.status == ACTIVE]
        return [self.current]

    @property
    def over(self) -> bool:
        """True once the game has ended (a win, resignation, unwinnable, or turn limit)."""
        return self.reason is not None

    @property
    def bidding(self) -> bool:
        """True during an auction (K9, K10): the seat to act is bidding."""
        return self.auction is not None

    def legal_actions(self, seat: int) -> list[Action]:
        """Every action ``seat`` may take now, from its phase's row of :data:`TURN` in the
        row's order (plays in hand order, then the discard top; auctions; discards; end),
        then resign; in an auction, the bidder's bids (cards that beat the high bid), pass
        and resign (K5, K9, K10)."""
        if seat not in self.to_act():
            return []
        a = self.auction
        p = self.players[seat]
        if a is not None:
            high = a["high"]
            acts: list[Action] = [BID_ACTS[c] for c in p.hand if RANK[c] > high]
            acts.append(PASS_ACT)
            acts.append(RESIGN_ACT)
            return acts
        row = TURN[p.phase]
        stuck_rule = self.rules.discard_only_when_stuck
        # Needed to play, to pass (K5) and, under discard_only_when_stuck, to discard.
        plays = self.rules.playable(p) if "play" in row or p.phase in PASSING or stuck_rule \
            else []
        acts = []
        if "play" in row:
            acts = [PLAY_ACTS[c][s] for c, s in plays]
            if self.rules.play_from_discard and p.discard:
                top = p.discard[-1]
                acts.extend(PLAY_ACTS[top][s] for s in range(4)
                            if self.rules.result(top, p, s) is not None)
        if "auction" in row and self.mode == "multi" and self.bidders(seat):
            acts.extend(AUCTION_ACTS[c] for c in p.hand)
        if "discard" in row and not (stuck_rule and plays):
            acts.extend(DISCARD_ACTS[c] for c in p.hand)
        if p.phase not in PASSING or plays or not p.hand:
            acts.append(END_ACT)
        acts.append(RESIGN_ACT)
        return acts

    def apply(self, seat: int, action: Sequence[Any]) -> list[Event]:
        """Apply ``action`` for ``seat`` (see the module docstring for the verbs).

        Returns:
            The public events the action caused, in order.

        Raises:
            UnknownAction: not a Skipper action (verb, arity or card code; a setting such as
                ``("auto_trash", "off")`` is none: :meth:`apply_setting` takes it).
            GameOver: the game has ended.
            NotYourTurn: ``seat`` may not act now.
            IllegalAction: the rules forbid it; the message gives the rule.
        """
        if not isinstance(action, (list, tuple)) or not action:
            raise UnknownAction(f"an action is a non-empty list, not {action!r}")
        verb = action[0]
        spec = ARITY.get(verb) if isinstance(verb, str) else None
        if spec is None:
            if self.TYPE.setting(verb) is not None:
                raise UnknownAction(f"{verb!r} is a setting of the seat, not an action")
            raise UnknownAction(f"unknown Skipper action {verb!r}")
        if len(action) != spec:
            raise UnknownAction(f"{verb!r} takes {spec - 1} argument(s), got {len(action) - 1}")
        args = [C.parse(x) for x in action[1:2]]
        if verb == "play":
            if not isinstance(action[2], str) or action[2] not in _STACK_INDEX:
                raise UnknownAction(f"not a stack: {action[2]!r} (use C, D, H or S)")
            args.append(_STACK_INDEX[action[2]])
        if self.over:
            raise GameOver("the game is over")
        if not isinstance(seat, int) or not 0 <= seat < self.seats:
            raise NotYourTurn(f"no seat {seat!r} in this game")
        if seat not in self.to_act():
            if self.auction is not None and verb in BIDDING:
                raise NotYourTurn(f"seat {self.to_act()[0]} bids now, not seat {seat}")
            raise NotYourTurn(f"it is not seat {seat}'s turn")
        ev: list[Event] = []
        if verb == "play":  # the common verbs called directly, the others by name
            self._do_play(seat, args[0], args[1], ev)
        elif verb == "discard":
            self._do_discard(seat, args[0], ev)
        elif verb == "end":
            self._do_end(seat, ev)
        else:
            getattr(self, "_do_" + verb)(seat, *args, ev)
        self.state_id += 1
        return ev

    def _apply_setting(self, seat: int, name: str, value: str) -> list[Event]:
        """``("auto_trash", "on"|"off")``: the seat's own K6 preference (RULINGS K6m); it
        takes effect at the seat's next draw.

        Raises:
            IllegalAction: the seat is no longer in the game.
        """
        p = self.players[seat]
        if p.status != ACTIVE:
            raise IllegalAction(f"seat {seat} is no longer in the game")
        p.auto_trash = value == "on"
        return [{"type": "auto_trash", "seat": seat, "on": p.auto_trash}]

    # -- handlers: each checks everything before it changes anything --------------------

    def _need_phase(self, seat: int, verb: str) -> Seat:
        """The seat, when ``verb`` is in its phase's row of :data:`TURN`.

        Raises:
            IllegalAction: an auction is running, or the row does not take ``verb``.
        """
        p = self.players[seat]
        if self.auction is not None:
            raise IllegalAction(f"an auction is running: bid or pass, not {verb} (K10)")
        if verb not in TURN[p.phase]:
            raise IllegalAction(WHY_NOT[p.phase].format(verb=verb))
        return p

    def _do_play(self, seat: int, card: int, s: int, ev: list[Event]) -> None:
        p = self._need_phase(seat, "play")
        from_discard = False
        if card not in p.hand:
            if self.rules.play_from_discard and p.discard and p.discard[-1] == card:
                from_discard = True
            else:
                raise IllegalAction(f"{CODE[card]} is not in your hand")
        new = self.rules.result(card, p, s)
        if new is None:
            raise IllegalAction(self.rules.why_not(card, p, s))
        if from_discard:
            p.discard.pop()
        else:
            p.hand.remove(card)
        r = RANK[card]
        skipper = r in self.rules.skips
        natural = new == 1 << r and SUIT[card] == s and p.values[s] >> (r - 1) & 1
        p.values[s] = new
        if skipper and self.rules.recycle and not natural:
            p.discard.append(card)
        else:
            p.stacks[s].append(card)
            self._set_gone(card)
        p.phase = TURN[p.phase]["play"]
        ev.append({"type": "play", "seat": seat, "card": CODE[card],
                   "stack": SUIT_LETTERS[s], "values": values_of(new)})
        if self.rules.is_finished(p, s):
            p.complete[s] = True
            ev.append({"type": "complete", "seat": seat, "stack": SUIT_LETTERS[s]})
            if all(p.complete):
                p.status = WON
                p.turns += 1  # the winning turn counts (K7: score = turns taken)
                self._finish(seat, "completed" if self.mode != "solo" else "won", ev)
                return
        if skipper and self.skip_draws:  # K11: every other seat draws one card at once
            self.counters["skip_draws"] += 1
            for j, q in enumerate(self.players):
                if j != seat and q.status == ACTIVE and self._draw_one(j, ev):
                    ev.append({"type": "draw", "seat": j, "count": 1, "skip_draw": True})
        if self.mode != "multi":
            self._check_unwinnable(seat, ev)

    def _do_discard(self, seat: int, card: int, ev: list[Event]) -> None:
        p = self._need_phase(seat, "discard")
        if card not in p.hand:
            raise IllegalAction(f"{CODE[card]} is not in your hand")
        if self.rules.discard_only_when_stuck and self.rules.playable(p):
            raise IllegalAction("you may discard only when no card in your hand is playable "
                                "(discard_only_when_stuck)")
        p.hand.remove(card)
        p.discard.append(card)
        p.phase = TURN[p.phase]["discard"]
        ev.append({"type": "discard", "seat": seat, "card": CODE[card]})

    def _do_end(self, seat: int, ev: list[Event]) -> None:
        p = self._need_phase(seat, "end")
        if p.phase in PASSING and p.hand and not self.rules.playable(p):
            raise IllegalAction("no card in your hand is playable, so you must discard at "
                                "least one (K5)")
        self._end_turn(seat, ev)

    def bidders(self, seat: int) -> list[int]:
        """The seats that bid in an auction of ``seat``: every other active seat, clockwise
        from its left (K10)."""
        n = self.seats
        return [j for j in ((seat + k) % n for k in range(1, n))
                if self.players[j].status == ACTIVE]

    def _do_auction(self, seat: int, card: int, ev: list[Event]) -> None:
        if self.mode != "multi":
            raise IllegalAction(f"there are no auctions in {self.mode} Skipper (K9, K14)")
        p = self._need_phase(seat, "auction")
        if card not in p.hand:
            raise IllegalAction(f"{CODE[card]} is not in your hand")
        bidders = self.bidders(seat)
        if not bidders:
            raise IllegalAction("nobody is left to bid")
        p.hand.remove(card)
        self.auction = {"seller": seat, "card": card, "bidders": bidders, "bids": [],
                        "high": 0}
        self.counters["auctions"] += 1
        ev.append({"type": "auction", "seat": seat, "card": CODE[card]})

    def _do_bid(self, seat: int, card: int, ev: list[Event]) -> None:
        a = self.auction
        if a is None:
            raise IllegalAction("there is no auction to bid in")
        p = self.players[seat]
        if card not in p.hand:
            raise IllegalAction(f"{CODE[card]} is not in your hand")
        if RANK[card] <= a["high"]:
            raise IllegalAction(f"a bid must beat the high bid by rank (K10): "
                                f"{CODE[card]} does not beat rank {a['high']}")
        p.hand.remove(card)
        a["bids"].append([seat, card])
        a["high"] = RANK[card]
        ev.append({"type": "bid", "seat": seat, "card": CODE[card]})
        self._next_bidder(ev)

    def _do_pass(self, seat: int, ev: list[Event]) -> None:
        if self.auction is None:
            raise IllegalAction("there is no auction to pass in (to pass a turn, use end)")
        self.auction["bids"].append([seat, None])
        ev.append({"type": "pass", "seat": seat})
        self._next_bidder(ev)

    def _next_bidder(self, ev: list[Event]) -> None:
        a = self.auction
        assert a is not None
        if len(a["bids"]) < len(a["bidders"]):
            return
        self.auction = None
        seller = a["seller"]
        sp = self.players[seller]
        offers = [(s, c) for s, c in a["bids"] if c is not None]
        if not offers:  # K9: a failed auction leaves the seller free to discard
            bisect.insort(sp.hand, a["card"])
            sp.phase = TURN[sp.phase]["auction"]
            ev.append({"type": "unsold", "seat": seller, "card": CODE[a["card"]]})
            return
        buyer, price = offers[-1]  # every bid beat the one before: the last is highest
        for s, c in offers[:-1]:
            bisect.insort(self.players[s].hand, c)
        bisect.insort(self.players[buyer].hand, a["card"])
        bisect.insort(sp.hand, price)
        self.counters["sold"] += 1
        ev.append({"type": "sold", "seat": seller, "buyer": buyer,
                   "card": CODE[a["card"]], "price": CODE[price]})
        self._end_turn(seller, ev)  # K9: a successful auction ends the turn

    def _do_resign(self, seat: int, ev: list[Event]) -> None:
        self._retire(seat, "resigned", ev)

    def forfeit(self, seat: int) -> list[Event]:
        """Take ``seat`` out of the game (it abandoned its seat): like ``("resign",)`` but
        allowed at any time, whoever's turn it is.

        Returns:
            The events caused (``state_id`` is incremented).

        Raises:
            GameOver: the game has already ended.
            IllegalAction: ``seat`` is not an active seat.
        """
        if self.over:
            raise GameOver("the game is over")
        if not 0 <= seat < self.seats or self.players[seat].status != ACTIVE:
            raise IllegalAction(f"seat {seat} is not in the game")
        ev: list[Event] = []
        self._retire(seat, "forfeit", ev)
        self.state_id += 1
        return ev

    # -- turn and game flow -------------------------------------------------------------

    def _retire(self, seat: int, why: str, ev: list[Event],
                detail: dict[str, Any] | None = None) -> None:
        p = self.players[seat]
        p.status = OUT
        ev.append({"type": why, "seat": seat, **(detail or {})})
        a = self.auction
        if a is not None:
            if a["seller"] == seat:  # the auction is called off; bids go back
                self.auction = None
                for s, c in a["bids"]:
                    if c is not None:
                        bisect.insort(self.players[s].hand, c)
                bisect.insort(p.hand, a["card"])
            elif seat in a["bidders"][len(a["bids"]):]:
                a["bidders"].remove(seat)
                self._next_bidder(ev)
        if self.over:
            return
        active = [i for i, q in enumerate(self.players) if q.status == ACTIVE]
        if self.mode == "solo":
            self._finish(None, why if why != "forfeit" else "resigned", ev)
        elif not active:
            self._finish(None, "all_out", ev)
        elif len(active) == 1 and self.mode == "multi":
            self._finish(active[0], "last_standing", ev)
        elif self.mode == "multi" and self.current == seat and self.auction is None:
            self._advance(seat)

    def _end_turn(self, seat: int, ev: list[Event]) -> None:
        p = self.players[seat]
        self._draw_up(seat, ev)
        p.turns += 1
        p.phase = TURN[p.phase]["end"]
        ev.append({"type": "end", "seat": seat, "turns": p.turns})
        if self.mode != "multi" and self._check_unwinnable(seat, ev):
            return
        limit = self.options["turn_limit"]
        if self.mode == "solo":
            if p.turns >= limit:
                self._finish(None, "turn_limit", ev)
            return
        if self.mode == "race":
            if p.turns >= limit:
                self._retire(seat, "turn_limit", ev)
            elif self.skip_rate:
                self._modelled_skip_draws(seat, ev)
            return
        self._advance(seat)
        if all(q.turns >= limit for q in self.players if q.status == ACTIVE):
            self._finish(None, "turn_limit", ev)
        elif 0 in self._dirty:
            self._dirty.discard(0)
            if not any(self.players[j].status == ACTIVE and self._unwinnable(j) is None
                       for j in range(self.seats)):
                self._finish(None, "unwinnable", ev)  # K7 applied to every seat at once

    def _modelled_skip_draws(self, seat: int, ev: list[Event]) -> None:
        """A :meth:`solitaire`'s stand-in for the other seats' skippers (K11): after each
        own turn the seat draws :attr:`skip_rate` cards on average (the whole part always,
        the fraction with that probability)."""
        x = self.skip_rate
        while x > 0:
            if (x >= 1 or self.rng.random() < x) and self._draw_one(seat, ev):
                ev.append({"type": "draw", "seat": seat, "count": 1, "skip_draw": True})
            x -= 1.0

    def _advance(self, seat: int) -> None:
        n = self.seats
        for k in range(1, n + 1):
            j = (seat + k) % n
            if self.players[j].status == ACTIVE:
                self.current = j
                self.players[j].phase = START
                return

    def _check_unwinnable(self, seat: int, ev: list[Event]) -> bool:
        """K7 (solo) / K14 (race): a seat that can no longer finish is out."""
        if seat not in self._dirty:
            return False
        self._dirty.discard(seat)
        lost = self._unwinnable(seat) if self.players[seat].status == ACTIVE else None
        if lost is None:
            return False
        self._retire(seat, "unwinnable", ev, lost)
        return True

    def _finish(self, winner: int | None, reason: str, ev: list[Event]) -> None:
        self.winner = winner
        self.reason = reason
        self.auction = None
        ev.append({"type": "game_over", "winner": winner, "reason": reason})

    def outcome(self) -> dict[str, Any] | None:
        """``None`` while running; else ``{"winner", "reason", "scores"}``.

        ``reason``: solo ``won``, ``resigned``, ``unwinnable`` or ``turn_limit``; multi and
        race ``completed``, ``last_standing``, ``all_out`` or ``turn_limit``. ``scores``:
        solo, the turns taken (K7, fewer is better); multi/race, each seat's complete stacks.
        """
        if self.reason is None:
            return None
        if self.mode == "solo":
            scores = [self.players[0].turns]
        else:
            scores = [sum(p.complete) for p in self.players]
        return {"winner": self.winner, "reason": self.reason, "scores": scores}

    def stats(self) -> dict[str, Any]:
        """Public counters: ``turns`` (all seats), ``auctions`` held, auctions ``sold``,
        ``skip_draws`` (skippers that made others draw) and cards ``trashed``."""
        out = dict(self.counters)
        out["turns"] = sum(p.turns for p in self.players)
        return out

    def default_action(self, seat: int) -> Action | None:
        """The timer default: pass a bid; otherwise end the turn when that is allowed (a
        pass), else discard the lowest card of the hand. ``None`` if ``seat`` cannot act."""
        if seat not in self.to_act():
            return None
        if self.auction is not None:
            return ("pass",)
        legal = self.legal_actions(seat)
        if ("end",) in legal:
            return ("end",)
        discards = [a for a in legal if a[0] == "discard"]
        return discards[0] if discards else legal[0]

    # -- snapshot, copies and the search model --------------------------------------------

    def _snapshot_state(self) -> dict[str, Any]:
        """``current``, ``winner``, ``reason``, ``counters``, ``rng``, ``auction``,
        ``players`` (every :class:`Seat` field), ``gone``; ``judges`` and ``skip_rate`` of a
        :meth:`solitaire`."""
        a = self.auction
        out = {
            "current": self.current, "winner": self.winner, "reason": self.reason,
            "counters": dict(self.counters), "rng": self.rng.snapshot(),
            "auction": None if a is None else {
                "seller": a["seller"], "card": a["card"], "bidders": list(a["bidders"]),
                "bids": [list(b) for b in a["bids"]], "high": a["high"]},
            "players": [{f: ([list(x) for x in p.stacks] if f == "stacks"
                             else list(v) if isinstance(v := getattr(p, f), list) else v)
                         for f in Seat.FIELDS} for p in self.players],
            "gone": [list(g) for g in self.gone],
        }
        if self.judges or self.skip_rate:
            out.update(mode=self.mode, judges=list(self.judges), skip_rate=self.skip_rate)
        return out

    def _restore_state(self, data: Mapping[str, Any]) -> None:
        """The state of :meth:`_snapshot_state` (a snapshot from before RULINGS K6m holds no
        ``auto_trash``: the room's default)."""
        self.mode = str(data.get("mode", self.options["mode"]))
        self.rules = Rules(self.options)
        skip = self.options["skip_draws"]
        self.skip_draws = False if "mode" in data else (
            (self.mode == "multi") if skip is None else (bool(skip) and self.mode != "solo"))
        self.current, self.winner = data["current"], data["winner"]
        self.reason = data["reason"]
        self.counters = dict(data["counters"])
        self.rng = GameRNG.restore(data["rng"])
        a = data["auction"]
        self.auction = None if a is None else {
            "seller": a["seller"], "card": a["card"], "bidders": list(a["bidders"]),
            "bids": [list(b) for b in a["bids"]], "high": a["high"]}
        self.gone = [list(x) for x in data["gone"]]
        self._dirty = set(range(len(self.gone)))
        self.players = []
        for pd in data["players"]:
            p = Seat(self.rules.trash)
            for f in Seat.FIELDS:
                if f in pd or f != "auto_trash":
                    val = pd[f]
                    setattr(p, f, [list(x) for x in val] if f == "stacks"
                            else list(val) if isinstance(val, list) else val)
            self.players.append(p)
        self.judges = tuple(data.get("judges", ()))
        self.skip_rate = float(data.get("skip_rate", 0.0))

    def clone(self) -> Self:
        """An independent copy (the RNG state included), made field by field: a search
        copies the game for every rollout (bots/expert.py)."""
        c = type(self)(deal=False)
        c.options, c.seats, c.mode, c.rules = self.options, self.seats, self.mode, self.rules
        c.skip_draws, c.state_id, c.current = self.skip_draws, self.state_id, self.current
        c.settings_applied = self.settings_applied
        c.judges, c.skip_rate = self.judges, self.skip_rate
        c.winner, c.reason, c.counters = self.winner, self.reason, dict(self.counters)
        c.rng = self.rng.copy()
        a = self.auction
        c.auction = None if a is None else {
            "seller": a["seller"], "card": a["card"], "bidders": list(a["bidders"]),
            "bids": [list(b) for b in a["bids"]], "high": a["high"]}
        c.gone = [list(x) for x in self.gone]
        c._dirty = set(self._dirty)
        c.players = [p.copy() for p in self.players]
        return c

    def solitaire(self, seat: int, skip_rate: float = 0.0) -> Self:
        """A copy reduced to ``seat``'s own game, for a search's rollouts (bots/expert.py):
        every other seat out of play and the game run as a race of one (no turn order, no
        auctions, no skip-draws), so only the seat's own stacks, hand and piles move.

        Two effects of the other seats stay, in multi: RULINGS K6m's dead test still looks
        at the seats active now (a card the seat has passed but another seat needs stays in
        its hand, where solo's K6 would trash it), and their skippers' skip-draws (K11)
        reach the seat at ``skip_rate`` cards per own turn (drawn with the game's RNG).

        Args:
            seat: The seat whose game it is.
            skip_rate: Skip-draws per own turn to model (0: none).

        Returns:
            The copy; in solo, a plain :meth:`clone`.
        """
        g = self.clone()
        if g.mode == "solo":
            return g
        if g.mode == "multi":
            g.judges = tuple(i for i, q in enumerate(g.players)
                             if i != seat and q.status == ACTIVE)
        g.skip_rate = skip_rate
        g.mode = "race"
        g.skip_draws = False
        g.auction = None
        for i, p in enumerate(g.players):
            if i != seat:
                p.status = OUT
        g.recount()
        return g
