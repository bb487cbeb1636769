"""Tools for bot programmers and operators (issue #21): what ``cardhall bots`` prints, the
Shop and Shah greedy bots, user strategies (``--strategy module:function``), ``--join``,
the JSON Schemas and the examples/ bots. CLI cases run the real CLI in child processes
against a real ``cardhall serve`` child."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from cardhall.bench.procs import free_port
from cardhall.games.simulate import play_game

from ..conftest import ROOT, ServeProcess, run_cli


@pytest.fixture(scope="module")
def live_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``ws://127.0.0.1:PORT`` of a ``cardhall serve`` child (in-memory store, no rate
    limits), stopped after the module."""
    server = ServeProcess(tmp_path_factory.mktemp("serve"), "--msg-rate", "0",
                          "--rooms-per-minute", "0")
    try:
        yield server.url
    finally:
        server.stop()


# -- what `cardhall bots` prints --------------------------------------------------------------

def test_bots_prints_skipper_counters_only_for_skipper(live_url: str) -> None:
    shop = run_cli("bots", "--url", live_url, "--game", "shop", "--seed", "3")
    assert shop.returncode == 0, shop.stderr
    assert "game 1/1: room" in shop.stdout
    assert "None" not in shop.stdout
    assert "auctions=" not in shop.stdout and "skip_draws=" not in shop.stdout
    skipper = run_cli("bots", "--url", live_url, "--game", "skipper", "--seed", "3")
    assert skipper.returncode == 0, skipper.stderr
    assert "auctions=" in skipper.stdout and "skip_draws=" in skipper.stdout


# -- Shop and Shah greedy bots -----------------------------------------------------------------

@pytest.mark.parametrize("game", ["shop", "shah"])
def test_greedy_games_end_well_before_the_move_limit(game: str) -> None:
    records = [play_game(game, {}, 1, "greedy", seed) for seed in range(1, 31)]
    assert not [r for r in records if r["outcome"] == "move limit"]
    limit = 2000 if game == "shop" else 3000  # the rooms' default move limits
    assert sum(r["steps"] for r in records) / len(records) < limit / 2


def test_greedy_shop_fills_the_ledger_of_a_winnable_deal() -> None:
    # Seed 23 (issue #21: the bot won 2 of seeds 0..99 before it trimmed the candles holding
    # the cards it waited for; seed 31, once won here, is no longer among its wins).
    rec = play_game("shop", {}, 1, "greedy", 23)
    assert (rec["winner"], rec["outcome"], rec["ledger"]) == (0, "ledger filled", 12)


def test_greedy_shop_shelves_only_a_high_card() -> None:
    from cardhall.games import cards as C
    from cardhall.games import shop

    rec_shelved = []
    for seed in range(1, 11):
        g = shop.ShopSolitaire({"seed": seed}, 1)
        import random

        rng = random.Random(seed)
        while not g.over:
            action = shop.greedy_strategy(g.bot_view(0), rng)
            if action[0] == "shelve":
                rec_shelved.append(action[1])
            g.apply(0, action)
    assert rec_shelved
    assert all(shop.value(C.parse(cd)) >= shop.SHELF_MIN for cd in rec_shelved)


# -- JSON Schemas of views and events ---------------------------------------------------------

SCHEMAS = ROOT / "docs" / "schemas"
GAMES = ["shah", "shop", "shufflejack", "skipper", "thirtysix"]


def test_checked_in_schemas_are_up_to_date() -> None:
    pytest.importorskip("genson")
    from cardhall.server.schema import write_all

    assert write_all(SCHEMAS, check=True) == []
    assert sorted(p.name for p in SCHEMAS.glob("*.json")) == sorted(
        f"{g}.{kind}.json" for g in GAMES for kind in ("view", "event"))


def test_schema_check_fails_on_a_stale_file(tmp_path: Path) -> None:
    pytest.importorskip("genson")
    for p in SCHEMAS.glob("*.json"):
        (tmp_path / p.name).write_text(p.read_text(encoding="utf-8"), encoding="utf-8")
    (tmp_path / "shah.view.json").write_text("{}\n", encoding="utf-8")
    proc = run_cli("schema", "--out", str(tmp_path), "--check")
    assert proc.returncode == 1
    assert "shah.view.json" in proc.stderr and "Traceback" not in proc.stderr
    assert (tmp_path / "shah.view.json").read_text() == "{}\n"  # --check writes nothing


@pytest.mark.parametrize("game", GAMES)
def test_views_and_events_of_other_playouts_validate(game: str) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    import json

    from cardhall.server.schema import CONFIGS, samples

    validators = {kind: jsonschema.Draft202012Validator(
        json.loads((SCHEMAS / f"{game}.{kind}.json").read_text(encoding="utf-8")))
        for kind in ("view", "event")}
    counts = {"view": 0, "event": 0}
    for kind, value in samples(game, range(500, 503), CONFIGS):  # seeds the schemas never saw
        validators[kind].validate(value)
        counts[kind] += 1
    assert counts["view"] > 10 and counts["event"] > 10
    # the schemas are not vacuous: a view missing a key every view has, or an event of an
    # unknown type, is refused
    view_schema = validators["view"].schema
    assert view_schema["required"]
    with pytest.raises(jsonschema.ValidationError):
        validators["view"].validate({})
    with pytest.raises(jsonschema.ValidationError):
        validators["event"].validate({"type": "no such event"})


# -- user strategies and --join ---------------------------------------------------------------

CLOSER = '''
def close_at_once(view, rng):
    """Close shop at the first chance (a strategy greedy would never play)."""
    for action in view["legal_actions"]:
        if action[0] == "close_shop":
            return action
    return view["legal_actions"][0]
'''


def test_simulate_loads_a_user_strategy_from_a_file_or_module(tmp_path: Path) -> None:
    import json

    (tmp_path / "mybot.py").write_text(CLOSER, encoding="utf-8")
    for spec in (f"{tmp_path / 'mybot.py'}:close_at_once", "mybot:close_at_once"):
        proc = run_cli("simulate", "--game", "shop", "--games", "3", "--strategy", spec,
                       "--json", cwd=tmp_path)
        assert proc.returncode == 0, proc.stderr
        summary = json.loads(proc.stdout.splitlines()[-1])
        assert summary["outcomes"] == {"lost": 3}
        assert summary["reasons"] == {"closed shop": 3}
        assert summary["mean_turns"] == 1


@pytest.mark.parametrize("spec, needle", [
    ("nosuchmodule:f", "cannot load nosuchmodule"),
    ("mybot:missing", "no function 'missing'"),
    ("nofile.py:f", "cannot load nofile.py"),
])
def test_bad_user_strategy_is_one_clear_error(tmp_path: Path, spec: str, needle: str) -> None:
    (tmp_path / "mybot.py").write_text(CLOSER, encoding="utf-8")
    proc = run_cli("simulate", "--game", "shop", "--strategy", spec, cwd=tmp_path)
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert needle in proc.stderr and "--strategy" in proc.stderr


def test_bots_use_a_user_strategy_over_the_wire(live_url: str, tmp_path: Path) -> None:
    (tmp_path / "mybot.py").write_text(CLOSER, encoding="utf-8")
    proc = run_cli("bots", "--url", live_url, "--game", "shop", "--strategy",
                   "mybot:close_at_once", "--json", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert '"outcome": "closed shop"' in proc.stdout and '"turns": 1' in proc.stdout


async def test_bots_join_an_existing_room(live_url: str) -> None:
    import asyncio
    import json

    from cardhall.client.client import Client

    async with Client(live_url, name="host", reconnect=False) as host:
        created = await host.create_room("shop", seats=1)
        # --game is left at its default (skipper): the room's game comes from the lobby
        child = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "cardhall.cli", "bots", "--url", live_url,
            "--join", created.room, "--json", cwd=ROOT, stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        out, err = await asyncio.wait_for(child.communicate(), 120)
        assert child.returncode == 0, err.decode()
        rec = json.loads(out.decode().splitlines()[-1])
        assert (rec["room"], rec["game"]) == (created.room, "shop")
        assert rec["outcome"] in ("closed shop", "ledger filled")
        # the room the bot joined is the one that finished: it is no longer waiting for seats
        listing = {r["room"]: r for r in await host.list_rooms()}
        assert created.room not in listing or listing[created.room]["status"] != "waiting"


def test_bots_join_refuses_several_games() -> None:
    proc = run_cli("bots", "--url", "ws://127.0.0.1:9", "--join", "abc", "--games", "2")
    assert proc.returncode == 2 and "--join plays exactly one game" in proc.stderr


# -- examples/ ---------------------------------------------------------------------------------

EXAMPLES = ROOT / "examples"


def test_python_example_plays_a_game_to_the_end(live_url: str) -> None:
    import json

    proc = subprocess.run([sys.executable, str(EXAMPLES / "python_bot.py"), "--url", live_url,
                           "--game", "thirtysix"], capture_output=True, check=False, text=True,
                          timeout=180, cwd=ROOT, stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, proc.stderr
    outcome = json.loads(proc.stdout.splitlines()[-1])
    assert outcome["stats"]["turns"] == 17  # Thirty-Six always has 17 turns (RULINGS T4)
    assert outcome["state_id"] > 17 and len(outcome["scores"]) == 1


def test_python_example_choose_is_a_strategy() -> None:
    import json

    proc = run_cli("simulate", "--game", "shufflejack", "--games", "2", "--json",
                   "--strategy", f"{EXAMPLES / 'python_bot.py'}:choose")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout.splitlines()[-1])["games"] == 2


def test_js_example_plays_a_game_to_the_end(live_url: str, tmp_path: Path) -> None:
    import json
    import shutil

    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        pytest.skip("node and npm are not installed")
    for name in ("package.json", "js_bot.mjs"):
        shutil.copy(EXAMPLES / name, tmp_path / name)
    try:
        install = subprocess.run([npm, "install", "--no-audit", "--no-fund"], cwd=tmp_path,
                                 capture_output=True, check=False, text=True, timeout=180,
                                 stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        pytest.skip("npm install timed out (no registry?)")
    if install.returncode != 0:
        pytest.skip(f"npm install failed: {install.stderr[-300:]}")
    proc = subprocess.run([node, "js_bot.mjs", "--url", live_url, "--game", "thirtysix"],
                          cwd=tmp_path, capture_output=True, check=False, text=True, timeout=180,
                          stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, proc.stderr
    outcome = json.loads(proc.stdout.splitlines()[-1])
    assert outcome["stats"]["turns"] == 17 and outcome["state_id"] > 17
    bad = subprocess.run([node, "js_bot.mjs", "--url", f"ws://127.0.0.1:{free_port()}"],
                         cwd=tmp_path, capture_output=True, check=False, text=True, timeout=60,
                         stdin=subprocess.DEVNULL)
    assert bad.returncode == 1 and "cannot reach" in bad.stderr
