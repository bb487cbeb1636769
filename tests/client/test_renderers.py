"""Terminal renderers: the Skipper renderer's drawing and phrases, and a smoke test that every
renderer module renders real views of its engine (seat and spectator) and describes every
legal action."""

from __future__ import annotations

import ast
import importlib
import pkgutil
import random
import re
from pathlib import Path
from typing import Any

import pytest
from cardhall.client import renderers
from cardhall.client.renderers import skipper as sk
from cardhall.games import create, names
from cardhall.games.bots import strategy

ANSI = re.compile(r"\x1b\[[0-9;]*m")
RED = "\x1b[31m"
RENDERER_MODULES = sorted(m.name for m in pkgutil.iter_modules(renderers.__path__))


def _stack(suit: str, cards: list[str], values: list[int], complete: bool = False
           ) -> dict[str, Any]:
    return {"suit": suit, "cards": cards, "values": values, "complete": complete}


def _seat(stacks: list[dict[str, Any]], **kw: Any) -> dict[str, Any]:
    base = {"stacks": stacks, "discard_top": None, "discard": 0, "stock": 43, "hand": 5,
            "trash": 0, "turns": 0, "phase": "start", "status": "active"}
    base.update(kw)
    return base


def _multi_view() -> dict[str, Any]:
    """A hand-made multi view: seat 0 (the viewer) sells nothing; seat 1 auctions 5♦ and
    seat 2 has bid J♣; seat 0 is to bid. Seat 1's spades are complete."""
    plain = [_stack(s, [f"A{s}"], [1]) for s in "CDHS"]
    seat1 = [_stack("C", ["AC1", "KH1"], [2, 3]), _stack("D", ["AD1"], [1]),
             _stack("H", ["AH1", "2H1"], [2]), _stack("S", ["AS1", "QS1", "JS1"], [11], True)]
    return {
        "game": "skipper", "mode": "multi", "options": {}, "state_id": 41, "to_act": [0],
        "over": False, "outcome": None, "seat": 0, "turn": 1,
        "seats": [_seat(plain), _seat(seat1, discard_top="9H1", discard=3, turns=4),
                  _seat([_stack(s, [f"A{s}2"], [1]) for s in "CDHS"], status="out")],
        "auction": {"seller": 1, "card": "5D1", "bids": [[2, "JC2"]], "bidder": 0},
        "hand": ["TD", "QH", "3S", "7C"],
        "legal_actions": [["bid", "QH"], ["pass"], ["resign"]],
        "room": {"id": "r1", "status": "playing", "deadlines": [[0, 1e10]],
                 "players": [{"seat": 0, "name": "alice", "connected": True, "bot": False},
                             {"seat": 1, "name": "bob", "connected": False, "bot": False},
                             {"seat": 2, "name": "bot-2", "connected": True, "bot": True}]},
    }


# -- Skipper ------------------------------------------------------------------------------

def test_skipper_draws_stacks_values_and_complete_marks() -> None:
    text = sk.render(_multi_view(), color=False)
    assert "\x1b" not in text
    lines = text.splitlines()
    assert lines[0] == "Skipper multi  state 41  your bid"
    assert "auction: seat 1 bob [away] sells 5\u2666; bids: seat 2 bot-2 [bot] J\u2663; " \
           "seat 0 alice (you) to bid" in lines
    assert "> seat 0 alice (you)  turns 0  phase start" in lines
    # seat 1: top card with the values it stands for, a check mark on the complete stack
    assert "\u2663 K\u2665 (2,3)" in text
    assert "\u2660 J\u2660 (11) \u2713" in text
    assert "\u2665 2\u2665 (2)" in text
    assert "stock 43  discard 3 (top 9\u2665)  hand 5  trash 0" in text
    assert "out of the game" in text
    assert lines[-1] == "your hand: 10\u2666 Q\u2665 3\u2660 7\u2663"


def test_skipper_colours_red_suits_only_when_asked() -> None:
    text = sk.render(_multi_view(), color=True)
    assert f"{RED}10\u2666" in text and f"{RED}Q\u2665" in text
    assert f"{RED}3\u2660" not in text and f"{RED}7\u2663" not in text
    assert ANSI.sub("", text) == sk.render(_multi_view(), color=False)


def test_skipper_stack_columns_line_up_with_colours() -> None:
    view = _multi_view()
    plain = sk.render(view, color=False).splitlines()
    painted = [ANSI.sub("", line) for line in sk.render(view, color=True).splitlines()]
    assert plain == painted


def test_skipper_turn_marker_and_spectator() -> None:
    view = _multi_view()
    view.update(seat=None, hand=None, legal_actions=[], auction=None, to_act=[1])
    text = sk.render(view, color=False)
    assert "turn: seat 1 bob [away]" in text.splitlines()[0]
    assert "> seat 1 bob [away]" in text
    assert "(spectating: no hand)" in text
    assert "(you)" not in text


def test_skipper_outcomes() -> None:
    view = _multi_view()
    view.update(over=True, to_act=[], auction=None,
                outcome={"winner": 1, "reason": "completed", "scores": [0, 4, 1]})
    text = sk.render(view, color=False)
    assert text.splitlines()[0].endswith("game over")
    assert text.splitlines()[-1] == ("game over: seat 1 bob [away] won (completed); "
                                     "complete stacks seat 0: 0, seat 1: 4, seat 2: 1")
    solo = create("skipper", {"seed": 3, "turn_limit": 1}, 1)
    solo.apply(0, ("end",) if ["end"] in solo.view(0)["legal_actions"]
               else ("discard", solo.view(0)["hand"][0]))
    if not solo.over:
        solo.apply(0, ("end",))
    assert solo.over
    assert sk.render(solo.view(0), color=False).splitlines()[-1] == \
        "game over: lost (turn_limit) after 1 turns"


@pytest.mark.parametrize(("action", "text"), [
    (["play", "5D", "D"], "play 5\u2666 on the \u2666 stack"),
    (["play", "KS2", "H"], "play K\u2660 on the \u2665 stack"),
    (["play", "TC", "C"], "play 10\u2663 on the \u2663 stack"),
    (["discard", "QS"], "discard Q\u2660"),
    (["end"], "end turn"),
    (["auction", "5D"], "auction 5\u2666"),
    (["bid", "JC"], "bid J\u2663"),
    (["pass"], "pass"),
    (["resign"], "resign"),
    (["mystery", "AH", 3], "mystery A\u2665 3"),
])
def test_skipper_describe(action: list[Any], text: str) -> None:
    assert sk.describe(action) == text
    assert "\x1b" not in sk.describe(action)


def test_skipper_renders_a_whole_multi_game() -> None:
    """Every view of a 3-seat greedy game (every seat's and a spectator's) renders, and every
    legal action has a phrase; auctions are drawn when they happen."""
    game = create("skipper", {"mode": "multi", "seed": 11, "turn_limit": 30}, 3)
    choose, rng = strategy("skipper", "greedy"), random.Random(1)
    auctions = 0
    while not game.over:
        for seat in (0, 1, 2, None):
            view = game.view(seat)
            text = sk.render(view, color=bool(seat))
            assert text.count("\n") >= 10
            if view["auction"]:
                assert "auction:" in text
            for action in view["legal_actions"]:
                assert sk.describe(action)
        auctions += bool(game.view(None)["auction"])
        seat = game.to_act()[0]
        game.apply(seat, choose(game.view(seat), rng))
    assert "game over" in sk.render(game.view(0), color=False)
    assert auctions > 0


# -- every renderer -------------------------------------------------------------------------

def test_renderer_modules_exist_for_skipper() -> None:
    assert "skipper" in RENDERER_MODULES
    assert renderers.renderer("skipper") == (sk.render, sk.describe)


@pytest.mark.parametrize("module", RENDERER_MODULES)
def test_renderers_never_import_the_engines(module: str) -> None:
    path = Path(renderers.__file__).parent / f"{module}.py"
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            assert node.level <= 1 and "server" not in (node.module or ""), module
        elif isinstance(node, ast.Import):
            assert all("server" not in alias.name for alias in node.names), module


@pytest.mark.parametrize("module", RENDERER_MODULES)
def test_every_renderer_draws_real_views(module: str) -> None:
    """Smoke: the renderer of each game with an engine draws 60 states of a greedy game (the
    seat's view in colour and without, and the spectator's) and describes every action."""
    if module not in names():
        pytest.skip(f"no engine named {module}")
    mod = importlib.import_module(f"cardhall.client.renderers.{module}")
    options = {"seed": 5} if module != "skipper" else {"seed": 5, "mode": "solo"}
    game = create(module, options, 1)
    choose, rng = strategy(module, "greedy"), random.Random(2)
    for _ in range(60):
        for seat, color in ((0, True), (0, False), (None, False)):
            text = mod.render(game.view(seat), color=color)
            assert isinstance(text, str) and text.strip()
            if not color:
                assert "\x1b" not in text
        for action in game.view(0)["legal_actions"]:
            phrase = mod.describe(action)
            assert isinstance(phrase, str) and phrase.strip()
        if game.over:
            break
        game.apply(0, choose(game.view(0), rng))


@pytest.mark.parametrize(("game", "action", "text"), [
    ("shah", ["marry", "7S", 3], "marry 7\u2660 onto the outer card of ray 4"),  # 1-8
    ("shah", ["marry", "7S"], "marry 7S"),  # arguments that do not fit: the words
    ("shah", ["shuffle", 1], "shuffle 1"),  # unknown verb: the words
    ("shah", [], "?"),
    ("shop", ["tray", "7H", 2], "put 7\u2665 on tray 2"),
    ("shop", ["tray"], "tray"),
    ("shop", ["light"], "light a candle with ? (short-cut)"),
    ("shop", [["tray"], 1], "['tray'] 1"),  # a verb that is not a string
])
def test_solo_describe_shares_the_fallbacks(game: str, action: list[Any], text: str) -> None:
    """Shah and Shop phrase actions through one helper (renderers.describe_verb): an action
    that does not fit its phrase, or has an unknown verb, is shown as its words."""
    assert importlib.import_module(f"cardhall.client.renderers.{game}").describe(action) == text


@pytest.mark.parametrize(("game", "word"), [("shah", "built"), ("shop", "score")])
def test_solo_outcome_line(game: str, word: str) -> None:
    """The last line of a finished Shah or Shop table (renderers.outcome_line)."""
    render = importlib.import_module(f"cardhall.client.renderers.{game}").render
    won = render({"outcome": {"winner": 0, "reason": "cleared", "scores": [52]}}, color=False)
    lost = render({"outcome": {"winner": None, "reason": "gave up", "scores": [3]}},
                  color=False)
    assert won.splitlines()[-1] == f"Game over: WON (cleared), {word} [52]"
    assert lost.splitlines()[-1] == f"Game over: lost (gave up), {word} [3]"


# -- issue #33: people's numbers and words ----------------------------------------------------

def test_shah_numbers_rays_and_foundations_1_to_8_as_the_web_does() -> None:
    from cardhall.client.renderers import shah

    game = create("shah", {"seed": 5}, 1)
    while ["deal"] in game.view(0)["legal_actions"]:  # deal the circles: eight rays drawn
        game.apply(0, ["deal"])
    lines = shah.render(game.view(0), color=False).splitlines()
    rays = [int(line.split()[0]) for line in lines if re.match(r" \d +\S", line)]
    assert rays == list(range(1, 9))
    assert re.search(r"foundations: 1:\S+\(1\) .* 8:\S+\(1\)", "\n".join(lines))
    assert shah.describe(["play", "QH1", 0]) == "play Q\u2665 to foundation 1"
    assert shah.describe(["grace", "7S", 7]) == "grace: move 7\u2660 into the empty ray 8"
    assert shah.describe_event({"type": "marry", "card": "7S0", "ray": 0, "from": "up"}) == \
        "married 7\u2660 onto ray 1 (from the turned card)"
    for action in game.view(0)["legal_actions"]:  # no ray or foundation 0 is ever offered
        assert not re.search(r"(ray|foundation) 0\b", shah.describe(action))


@pytest.mark.parametrize(("event", "text"), [
    ({"type": "draw", "seat": 1, "count": 3}, "drew 3 cards"),
    ({"type": "draw", "seat": 1, "count": 1}, "drew a card"),
    ({"type": "draw", "seat": 1, "count": 1, "skip_draw": True}, "drew a card (skip-draw)"),
    ({"type": "end", "seat": 2, "turns": 1}, "ended turn 1"),
    ({"type": "play", "seat": 0, "card": "5D1", "stack": "D", "values": [5]},
     "played 5\u2666 on the \u2666 stack (now 5)"),
    ({"type": "sold", "seat": 1, "buyer": 2, "card": "5D", "price": "JC"},
     "sold 5\u2666 to seat 2 for J\u2663"),
    ({"type": "unsold", "seat": 1, "card": "5D"}, "took 5\u2666 back: nobody bid"),
    ({"type": "flip", "seat": 0}, "turned the discard pile over as the new stock"),
    ({"type": "game_over", "winner": None, "reason": "turn_limit"}, "game over (turn limit)"),
])
def test_skipper_events_in_plain_words(event: dict[str, Any], text: str) -> None:
    assert sk.describe_event(event) == text
    assert sk.describe_event({"type": "shuffle"}) is None  # the caller spells it out


def test_every_skipper_event_of_a_game_has_words() -> None:
    game = create("skipper", {"mode": "multi", "seed": 3}, 3)
    choose, rng = strategy("skipper", "greedy"), random.Random(1)
    kinds: set[str] = set()
    while not game.over:
        seat = game.to_act()[0]
        for event in game.apply(seat, choose(game.view(seat), rng)):
            kinds.add(event["type"])
            phrase = sk.describe_event(event)
            assert phrase and not re.search(r"\b(count|turns|skip_draw)\b", phrase), event
    assert {"draw", "end", "play", "discard"} <= kinds
