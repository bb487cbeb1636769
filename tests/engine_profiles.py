"""What the contract suite (``tests/games/test_game_contract.py``) knows of each engine, apart from
the engine itself: which cards a seat may see (the leak check's whitelist, written from the
rules, not from the engine's views), plausible actions to offer it (legal or not), and the
playouts to run (modes, option sets, bots). Every registered engine needs a profile here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from cardhall.games import Game
from cardhall.games import cards as C

from .engine_harness import AllowedCards, Candidates


@dataclass(frozen=True)
class Playout:
    """One checked playout: ``bot`` plays every seat of a game of ``seats`` with ``options``
    (the deal's ``seed`` among them) to its end (:func:`.engine_harness.random_playout`).

    Attributes:
        setup: Turns the dealt game into the one to play (a position set by hand), or None.
        candidates: Whether unlisted candidate actions are tried (costly; off for the many
            quick games).
    """

    bot: str
    options: dict[str, Any] = field(default_factory=dict)
    seats: int = 1
    rng_seed: int = 0
    check_every: int = 1
    max_steps: int = 20_000
    candidates: bool = True
    setup: Callable[[Game], Game] | None = None

    def label(self) -> str:
        opts = ",".join(f"{k}={v}" for k, v in sorted(self.options.items())
                        if k not in ("deck",))
        return f"{self.bot}-{self.seats}-{opts}-r{self.rng_seed}"


@dataclass(frozen=True)
class Profile:
    """An engine's profile (see the module docstring)."""

    allowed: AllowedCards
    candidates: Candidates
    playouts: list[Playout]


# -- Skipper (RULINGS K8: own hand, every stack, discard tops, the auction and bids) ----------

def skipper_allowed(game: Any, seat: int | None) -> set[str]:
    """Cards a seat may see: its hand, every stack, every discard top, the auction and bids."""
    out: set[str] = set()
    for zone, cards in game.card_locations().items():
        if zone.startswith("stack:") or zone in ("auction",) or zone.startswith("bid:"):
            out.update(C.codes(cards))
        elif zone.startswith("discard:") and cards:
            out.add(C.code(cards[-1]))
        elif seat is not None and zone == f"hand:{seat}":
            out.update(C.codes(cards))
    return out


def skipper_candidates(game: Any, seat: int) -> list[tuple[Any, ...]]:
    """Plausible actions, legal or not: every verb with hand cards and a few strangers, and
    the ``auto_trash`` setting (no action: ``apply`` refuses it)."""
    hand = C.codes(game.players[seat].hand)
    other = C.codes(game.players[(seat + 1) % game.seats].hand)[:2]
    out: list[tuple[Any, ...]] = [("end",), ("pass",), ("auto_trash", "off")]
    for card in hand[:3] + other + ["KS", "2C"]:
        out += [("play", card, s) for s in "CDHS"]
        out += [("discard", card), ("auction", card), ("bid", card)]
    return out


def _skipper_playouts() -> list[Playout]:
    checked = [
        ("solo", 1, "random", {}),
        ("solo", 1, "greedy", {}),
        ("solo", 1, "random", {"strong_skippers": True, "play_from_discard": True}),
        ("solo", 1, "greedy", {"weak_skippers": True, "hand_size": 3, "no_trashing": True}),
        ("solo", 1, "random", {"recycle_skippers": True, "king_finishes": True,
                               "shuffle_on_flip": True}),
        ("solo", 1, "random", {"no_aces_out": True, "skippers_own_suit": True,
                               "discard_only_when_stuck": True, "remove_four": True}),
        ("multi", 4, "greedy", {}),
        ("multi", 3, "random", {"hand_size": 4}),
        ("multi", 2, "random", {"play_from_discard": True, "recycle_skippers": True}),
        ("race", 3, "greedy", {"skip_draws": True}),
        ("race", 2, "random", {"strong_skippers": True}),
    ]
    out = [Playout(bot, {"mode": mode, "seed": 11, "turn_limit": 60, **opts}, seats,
                   rng_seed=3, check_every=3, max_steps=6000)
           for mode, seats, bot, opts in checked]
    for mode, seats in (("solo", 1), ("multi", 4), ("race", 3)):  # many quick games
        out += [Playout("random" if seed % 2 else "greedy",
                        {"mode": mode, "seed": seed, "turn_limit": 150}, seats,
                        rng_seed=seed, check_every=50, candidates=False)
                for seed in range(25)]
    return out


# -- Shop Solitaire (the whole table is face up; the stock's order is hidden) ----------------

def shop_allowed(game: Any, seat: int | None) -> set[str]:
    """Every card a seat (or spectator) may see: the whole table; of the stock only the red
    cards while the short-cut lets the player pick them (their order stays hidden)."""
    zones = game.card_locations()
    seen = {C.code(c) for name, cards in zones.items() if name != "stock" for c in cards}
    if game.phase == "shortcut":
        seen |= {C.code(c) for c in zones["stock"] if C.is_red(c)}
    return seen


def shop_candidates(game: Any, seat: int) -> Iterable[Sequence[Any]]:
    """Plausible actions, many of them illegal now."""
    view = game.view(0)
    codes = list(view["in_play"]) + ["AC", "KH", "7S"]
    for stack in view["candles"] + view["trays"]:
        codes.extend(stack[-1:])
    for cd in sorted(set(codes))[:8]:
        for i in (0, 3, 6):
            yield ("candle", cd, i)
        for j in (0, 2, 4, 5):
            yield ("tray", cd, j)
        yield ("ledger", cd)
        yield ("shelve", cd, 0)
        yield ("purchase", cd, 0)
        yield ("purchase", cd, 1)
        yield ("light", cd)
    for i in range(7):
        yield ("trim", i)
    yield from [("draw",), ("recalibrate",), ("scrap",), ("play_shelf", 0), ("play_shelf", 1),
                ("play_purchase", 0), ("no_shortcut",), ("close_shop",), ("bogus",),
                ("trim", "x"), ("candle", "ZZ", 0), ("candle", "QS3", 0), "draw",
                ("tray", "5S", True)]


SHOP_PLAYOUTS = [Playout(bot, {"seed": seed, **opts}, rng_seed=seed) for bot, seed, opts in [
    ("random", 1, {"max_moves": 120}),
    ("random", 2, {"max_moves": 120, "shortcut": False, "shelves": 2, "shelf_suits": True}),
    ("random", 3, {"max_moves": 120, "candles": 5, "lit_needed": 3}),
    ("greedy", 4, {"max_moves": 150}),
    ("greedy", 5, {"max_moves": 150, "shelves": 3, "candles": 6}),
    ("greedy", 6, {"max_moves": 150, "shortcut": False, "shelves": 0}),
]]


# -- The Shah (all but the pack's face-down cards) -------------------------------------------

def shah_allowed(game: Any, seat: int | None) -> set[str]:
    """Every card a seat (or spectator) may see: all but the pack's face-down cards."""
    zones = game.card_locations()
    return {C.code(c) for name, cards in zones.items() if name != "stock" for c in cards}


def shah_candidates(game: Any, seat: int) -> Iterable[Sequence[Any]]:
    """Plausible actions, many of them illegal now."""
    view = game.view(0)
    codes = [a[0] for a in view["available"]]
    for ray in view["star"]:
        for pile in ray:
            codes.extend(pile)
    codes = sorted(set(codes))[:12] + ["2C", "QH1"]
    for cd in codes:
        for f in (0, 3, 5):
            yield ("play", cd, f)
        for r in (0, 4, 7):
            yield ("marry", cd, r)
            yield ("grace", cd, r)
    yield from [("fill", "talon"), ("fill", "pack"), ("turn",), ("deal",), ("resign",),
                ("fill", "hand"), ("play", "ZZ", 0), ("bogus",), ("turn", 1), ("marry", "2C", "x"),
                ("play", "AS", 9), ("play", "2C2", 0)]


SHAH_PLAYOUTS = [Playout(bot, {"seed": seed, **opts}, rng_seed=seed) for bot, seed, opts in [
    ("random", 1, {"max_moves": 150}),
    ("random", 2, {"max_moves": 150}),
    ("greedy", 3, {}),
    ("greedy", 4, {}),
]]


# -- Thirty-Six (all face up but the order of the stacks) ------------------------------------

def thirtysix_allowed(game: Any, seat: int | None) -> set[str]:
    """Card codes anyone may see: face-up ENEMY cards, the row and both collections."""
    zones = game.card_locations()
    visible = zones["enemy"] + zones["row"] + zones["collection"] + zones["enemy_collection"]
    return set(C.codes(visible))


def thirtysix_candidates(game: Any, seat: int) -> Iterator[Sequence[Any]]:
    """Plausible actions that may be illegal now."""
    zones = game.card_locations()
    row = C.codes(zones["row"])
    pair = C.codes(zones["enemy"])
    hidden = C.codes(zones["player_stack"][:2] + zones["enemy_stack:0"][:1])
    yield ("commit", *reversed(row))
    yield ("commit", *row[:1], *row[:1])
    for code in hidden + pair:
        yield ("commit", code)
        yield ("take", code)
        yield ("surrender", code)
    for code in row:
        yield ("take", code)
        yield ("surrender", code)
    yield ("take",)
    yield ("resign", "now")
    yield ("bogus",)
    yield ("commit", "ZZ")
    yield ()
    yield "commit"


THIRTYSIX_OPTIONS: list[dict[str, Any]] = [
    {},
    {"baltimore": True},
    {"short_refill": True, "ace_wins": True},
    {"discard_rightmost": True, "beat_faces": True},
    {"surrender_lowest": True, "hearts_double": True, "two_clubs": True},
    {"short_refill": True, "discard_rightmost": True, "ace_wins": True, "beat_faces": True,
     "baltimore": True},
]
THIRTYSIX_PLAYOUTS = [
    *(Playout(bot, {"seed": seed, **opts}, rng_seed=seed) for opts in THIRTYSIX_OPTIONS
      for bot in ("random", "greedy") for seed in range(4)),
    *(Playout("random", {"seed": seed, "baltimore": seed % 2 == 0}, rng_seed=seed,
              check_every=5, candidates=False) for seed in range(10, 30)),
]


# -- ShuffleJack (only the tableau is face up) -----------------------------------------------

def shufflejack_allowed(game: Any, seat: int | None) -> set[str]:
    """Only the tableau is face up."""
    return set(C.codes(game.card_locations()["tableau"]))


def shufflejack_candidates(game: Any, seat: int) -> Iterator[Sequence[Any]]:
    """Plausible actions that may be illegal now."""
    yield ("hand", 1, 2)
    yield ("hand", 2, 1)
    yield ("hand", 5, 6)
    yield ("hand", 1, 6, 11)
    yield ("hand", 21, 22, 23, 24, 25)
    yield ("hand", 1, 2, 3, 4, 5, 6)
    for p in game.locked[:2]:
        yield ("hand", p, p + 1 if p % 5 else p - 1)
    yield ("hand", 0, 1)
    yield ("hand", "1", 2)
    yield ("hand", 1, True)
    yield ("hand",)
    yield ("deal",)
    yield ("next",)
    yield ("deal", 1)
    yield ("shuffle",)
    yield []


def shufflejack_deck(first: Sequence[str | None] = ()) -> list[str]:
    """A ``deck`` option starting with ``first`` (``None``: any unused card), the rest in
    card order. Index ``i < 25`` lands on tableau position ``i + 1``."""
    codes = C.codes(C.full_deck())
    given = [c for c in first if c is not None]
    assert len(set(given)) == len(given)
    rest = iter(c for c in codes if c not in given)
    deck = [c if c is not None else next(rest) for c in first]
    deck.extend(rest)
    assert sorted(deck) == sorted(codes)
    return deck


#: Row 1: A K ... | row 2: A A 9 ... | row 3: 10 J A ...; the rest in card order.
SHUFFLEJACK_KNOWN = shufflejack_deck([
    "AS", "KS", "2S", "2H", "3S",
    "AH", "AD", "9C", "3H", "4S",
    "TC", "JD", "AC", "4H", "5S",
])


def _locked(game: Game) -> Game:
    """The game with positions 3, 7 and 13 locked (a position of a later round)."""
    snap = game.snapshot()
    snap["locked"] = [3, 7, 13]
    return type(game).restore(snap)


SHUFFLEJACK_PLAYOUTS = [
    *(Playout(bot, {"seed": seed}, rng_seed=seed) for bot in ("random", "greedy")
      for seed in range(6)),
    Playout("greedy", {"seed": 5, "deck": SHUFFLEJACK_KNOWN}, check_every=2, setup=_locked),
]


PROFILES: dict[str, Profile] = {
    "skipper": Profile(skipper_allowed, skipper_candidates, _skipper_playouts()),
    "shop": Profile(shop_allowed, shop_candidates, SHOP_PLAYOUTS),
    "shah": Profile(shah_allowed, shah_candidates, SHAH_PLAYOUTS),
    "thirtysix": Profile(thirtysix_allowed, thirtysix_candidates, THIRTYSIX_PLAYOUTS),
    "shufflejack": Profile(shufflejack_allowed, shufflejack_candidates, SHUFFLEJACK_PLAYOUTS),
}
