"""A compact model of The Shah for search: the planning bot (:func:`.bots.greedy_strategy`)
and the ceiling benchmark (``benchmarks/shah_ceiling.py``) play moves on it, far faster than
on the engine (:class:`.rules.TheShah`), whose rules it follows (RULINGS H1-H10, the engine's
readings, and the forced moves the engine makes itself, see :func:`settle`).

Equal cards of the two packs are one card here, and the two foundations of a suit are
interchangeable in :func:`key`. A pack card nobody has seen is :data:`UNKNOWN`: it can be
turned or filled into the star, but never played or married (a bot's model of the hidden
pack is ``(UNKNOWN,) * stock_count``; the benchmark's is the real order).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .. import cards as C

# -- the compact model ---------------------------------------------------------------------
#
# A card is suit * 16 + rank (rank 2..12); foundations hold the rank of their top (1 = ace).
# A state is the tuple (phase, circle, grace_ray, fnd, star, talon, up, si):
#   phase      "deal", "play", "refill" or "grace" (as the engine's)
#   circle     the circle just laid during the deal
#   grace_ray  the ray being refilled after a grace, or -1
#   fnd        8 foundation top ranks (foundation f is suit f % 4)
#   star       24 piles (tuples, bottom first); place (ray r, circle c) is star[r * 3 + c]
#   talon      tuple, top last
#   up         the turned card, or -1
#   si         index of the next pack card in the (fixed) stock
# A move is ("deal",), ("turn",), ("fill", "talon"|"pack"), ("play", loc, f),
# ("marry", loc, ray) or ("grace", loc, ray), where loc is a ray (0..7), UP or TALON.

UP, TALON = -1, -2
QUEEN = 12
#: A pack card not seen yet (rank 0: it never plays nor marries).
UNKNOWN = 0
WON_FND = (QUEEN,) * 8
FORCED = ("deal", "turn", "fill")
State = tuple[Any, ...]
Move = tuple[Any, ...]


def canon(card: int) -> int:
    """The model card of an engine card: suit * 16 + rank (decks are not told apart)."""
    return C.suit(card) * 16 + C.rank(card)


def initial(stock: Sequence[int]) -> State:
    """The state after the engine lays circle 0 (before settling)."""
    star: list[tuple[int, ...]] = [()] * 24
    for r in range(8):
        star[r * 3] = (stock[r],)
    return ("deal", 0, -1, (1,) * 8, tuple(star), (), -1, 8)


def _outer(star: tuple[tuple[int, ...], ...], r: int) -> int:
    """The circle of ray ``r``'s outermost non-empty place, or -1."""
    for c in (2, 1, 0):
        if star[r * 3 + c]:
            return c
    return -1


def _next_vacancy(state: State) -> int:
    """Index into ``star`` of the place the next fill goes to, or -1."""
    phase, _circle, gray, _fnd, star = state[:5]
    gray_ray: int = gray
    if phase == "grace":
        for c in (1, 2):
            if not star[gray_ray * 3 + c]:
                return gray_ray * 3 + c
        return -1
    for c in range(3):
        for r in range(8):
            if not star[r * 3 + c]:
                return r * 3 + c
    return -1


def _fills(state: State, stock: Sequence[int]) -> list[Move]:
    if _next_vacancy(state) < 0:
        return []
    out: list[Move] = []
    if state[5]:
        out.append(("fill", "talon"))
    if state[6] >= 0 or state[7] < len(stock):
        out.append(("fill", "pack"))
    return out


def moves(state: State, stock: Sequence[int]) -> tuple[list[Move], int]:
    """The legal moves (like the engine's ``_moves``) and how many the engine would list
    (it lists a play onto each of two foundations with equal tops; the model keeps one)."""
    phase, circle, _g, fnd, star, talon, up, si = state
    out: list[Move] = []
    count = 0
    if phase == "deal":
        for r in range(8):
            pile = star[r * 3 + circle]
            if pile:
                card = pile[-1]
                s, k = card >> 4, card & 15
                fs = [f for f in (s, s + 4) if fnd[f] == k - 1]
                if fs:
                    out.append(("play", r, fs[0]))
                    count += len(fs)
        out.append(("deal",))
        return out, count + 1
    if phase in ("refill", "grace"):
        out = _fills(state, stock)
        return out, len(out)
    avail: list[tuple[int, int, bool]] = []  # (card, loc, marriable)
    empty_rays = []
    for r in range(8):
        c = _outer(star, r)
        if c < 0:
            empty_rays.append(r)
        else:
            avail.append((star[r * 3 + c][-1], r, c == 2))
    if up >= 0:
        avail.append((up, UP, True))
    if talon:
        avail.append((talon[-1], TALON, True))
    outer_tops = [(r, star[r * 3 + 2][-1]) for r in range(8) if star[r * 3 + 2]]
    for card, loc, marriable in avail:
        s, k = card >> 4, card & 15
        fs = [f for f in (s, s + 4) if fnd[f] == k - 1]
        if fs:
            out.append(("play", loc, fs[0]))
            count += len(fs)
    for card, loc, marriable in avail:
        if marriable:
            for r, top in outer_tops:
                if top == card + 1 and r != loc:
                    out.append(("marry", loc, r))
                    count += 1
    if empty_rays:
        for card, loc, _m in avail:
            if loc >= 0 and star[loc * 3 + 2]:
                for r in empty_rays:
                    out.append(("grace", loc, r))
                    count += 1
    fills = _fills(state, stock)
    out.extend(fills)
    count += len(fills)
    if not fills and _next_vacancy(state) < 0 and (up >= 0 or si < len(stock)):
        out.append(("turn",))
        count += 1
    return out, count


def _take(state: State, loc: int) -> tuple[int, list[tuple[int, ...]], tuple[int, ...], int]:
    """Remove the card at ``loc``: returns (card, star as a list, talon, up)."""
    phase, circle, _g, _fnd, star, talon, up, _si = state
    star_l = list(star)
    if loc == UP:
        return up, star_l, talon, -1
    if loc == TALON:
        return talon[-1], star_l, talon[:-1], up
    c = circle if phase == "deal" else _outer(star, loc)
    pile = star[loc * 3 + c]
    star_l[loc * 3 + c] = pile[:-1]
    return pile[-1], star_l, talon, up


def _end_refill(state: State, stock: Sequence[int]) -> State:
    if state[0] in ("refill", "grace") and not _fills(state, stock):
        return ("play", state[1], -1) + state[3:]
    return state


def apply(state: State, mv: Move, stock: Sequence[int]) -> State:
    """The state after a legal move ``mv`` (no forced moves yet)."""
    phase, circle, gray, fnd, star, talon, up, si = state
    verb = mv[0]
    if verb == "deal":
        c = circle + 1
        star_l = list(star)
        for r in range(8):
            star_l[r * 3 + c] = (stock[si + r],)
        return ("play" if c == 2 else "deal", c, gray, fnd, tuple(star_l), talon, up, si + 8)
    if verb == "turn":
        if up >= 0:
            talon = talon + (up,)
        if si < len(stock):
            return (phase, circle, gray, fnd, star, talon, stock[si], si + 1)
        return (phase, circle, gray, fnd, star, talon, -1, si)
    if verb == "fill":
        spot = _next_vacancy(state)
        if mv[1] == "talon":
            card, talon = talon[-1], talon[:-1]
        elif up >= 0:
            card, up = up, -1
        else:
            card, si = stock[si], si + 1
        star_l = list(star)
        star_l[spot] = (card,)
        if phase == "play":
            phase = "refill"
        return _end_refill((phase, circle, gray, fnd, tuple(star_l), talon, up, si), stock)
    card, star_l, talon, up = _take(state, mv[1])
    if verb == "play":
        f = mv[2]
        fnd = fnd[:f] + (card & 15,) + fnd[f + 1:]
        if phase == "deal":
            for r in range(8):
                if not star_l[r * 3 + circle] and si < len(stock):
                    star_l[r * 3 + circle] = (stock[si],)
                    si += 1
        return (phase, circle, gray, fnd, tuple(star_l), talon, up, si)
    if verb == "marry":
        i = mv[2] * 3 + 2
        star_l[i] = star_l[i] + (card,)
        return (phase, circle, gray, fnd, tuple(star_l), talon, up, si)
    # grace
    star_l[mv[2] * 3] = (card,)
    return _end_refill(("grace", circle, mv[2], fnd, tuple(star_l), talon, up, si), stock)


def settle(state: State, stock: Sequence[int],
           forced: list[Move]) -> tuple[State, str | None]:
    """Make the engine's forced moves (appended to ``forced``); returns the state and
    ``"won"``, ``"lost"`` (no move left) or None."""
    while True:
        if state[3] == WON_FND:
            return state, "won"
        out, count = moves(state, stock)
        if not out:
            return state, "lost"
        if count == 1 and out[0][0] in FORCED:
            forced.append(out[0])
            state = apply(state, out[0], stock)
            continue
        return state, None


def key(state: State) -> State:
    """The memo key: the two foundations of a suit are interchangeable."""
    fnd = state[3]
    pairs = tuple(min(fnd[s], fnd[s + 4]) * 16 + max(fnd[s], fnd[s + 4]) for s in range(4))
    return (state[0], state[1], state[2], pairs) + state[4:]


def from_game(game: Any) -> State:
    """The first seven fields of an engine's (:class:`.shah.TheShah`) state in the model's
    form (the pack index is the caller's): to compare the two after each action."""
    fnd = tuple(C.rank(f[-1]) for f in game.foundations)
    star = tuple(tuple(canon(x) for x in game.star[r][c]) for r in range(8) for c in range(3))
    return (game.phase, game.circle, -1 if game.grace_ray is None else game.grace_ray, fnd,
            star, tuple(canon(x) for x in game.talon),
            -1 if game.up is None else canon(game.up))


def engine_action(game: Any, mv: Move) -> tuple[Any, ...]:
    """The engine action for model move ``mv`` in ``game``'s current state."""
    verb = mv[0]
    if verb in ("deal", "turn", "fill"):
        return mv
    loc = mv[1]
    if loc == UP:
        card = game.up
    elif loc == TALON:
        card = game.talon[-1]
    elif game.phase == "deal":
        card = game.star[loc][game.circle][-1]
    else:
        card = next(game.star[loc][c][-1] for c in (2, 1, 0) if game.star[loc][c])
    assert card is not None
    return (verb, C.code(card), mv[2])


def from_view(view: Mapping[str, Any]) -> tuple[State, tuple[int, ...]]:
    """The model of a seat's view: ``(state, stock)``, the hidden pack as
    ``stock_count`` :data:`UNKNOWN` cards.

    Raises:
        KeyError: ``view`` is not a Shah view.
    """
    def cd(code: str) -> int:
        return canon(C.parse(code))

    fnd = tuple(C.rank(C.parse(f)) for f in view["foundations"])
    star = tuple(tuple(cd(x) for x in view["star"][r][c]) for r in range(8) for c in range(3))
    gray = view["grace_ray"]
    state = (view["phase"], view["circle"], -1 if gray is None else gray, fnd, star,
             tuple(cd(x) for x in view["talon"]), -1 if view["up"] is None else cd(view["up"]),
             0)
    return state, (UNKNOWN,) * view["stock_count"]


def view_action(view: Mapping[str, Any], mv: Move) -> tuple[Any, ...]:
    """The engine action for model move ``mv`` in the position a seat's ``view`` shows."""
    verb = mv[0]
    if verb in ("deal", "turn", "fill"):
        return tuple(mv)
    loc = mv[1]
    if loc == UP:
        code = view["up"]
    elif loc == TALON:
        code = view["talon"][-1]
    else:
        ray = view["star"][loc]
        if view["phase"] == "deal":
            code = ray[view["circle"]][-1]
        else:
            code = next(ray[c][-1] for c in (2, 1, 0) if ray[c])
    return (verb, code, mv[2])
