"""Fair deals (issue #18, defect 8): rooms of several seats refuse a chosen seed or deck, the
server commits to its seed at start and reveals it at game over, and ``cardhall verify``
checks a player's record of the game (protocol/README.md, "Fair deals")."""

from __future__ import annotations

import asyncio
import json
import random
import sys
from pathlib import Path
from typing import Any

import pytest
from cardhall import protocol as p
from cardhall.client.bots import play_games, play_seat
from cardhall.client.client import Client, ServerError
from cardhall.protocol import fairness
from cardhall.server.app import Server
from cardhall.server.fairness import VerificationFailed, verify_record
from cardhall.games import get
from cardhall.games.bots import strategy
from cardhall.server.room import Room

SHORT = {"turn_limit": 12}  # multi games end within a dozen turns per seat


class Recording(Client):
    """A client that keeps every message the server sent it, in order."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.received: list[p.Message] = []

    def _dispatch(self, msg: p.Message) -> None:
        self.received.append(msg)
        super()._dispatch(msg)


def holds(value: Any, seed: int, salt: str) -> bool:
    """True when ``seed`` (as an int) or ``salt`` (inside a str) appears anywhere in
    ``value``, keys included."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, (list, tuple)):
            stack.extend(item)
        elif isinstance(item, bool):
            continue
        elif isinstance(item, int) and item == seed or isinstance(item, str) and salt in item:
            return True
    return False


# --------------------------------------------------------------------------------------------
# Seeds and decks are refused where they would let the host know the others' cards


async def test_rooms_of_several_seats_refuse_seed_and_deck(server: Server) -> None:
    cards = [f"{r}{s}" for s in "SHDC" for r in ("A", "2", "3", "4", "5", "6", "7", "8", "9",
                                                 "T", "J", "Q")]
    async with Client(server.url) as c:
        for mode in ("multi", "race"):
            for options in ({"seed": 5}, {"deck": cards}, {"seed": 0, "deck": cards}):
                with pytest.raises(ServerError) as info:
                    await c.create_room("skipper", mode=mode, seats=2, options=options)
                assert info.value.code == "lobby/bad_options"
                assert "more than one seat" in info.value.message
                assert all(k in info.value.message for k in options)
        # quick_join and option-less rooms still work; a solo room may choose its deal.
        assert (await c.create_room("skipper", mode="multi", seats=2)).room
        solo = (await c.create_room("skipper", options={"seed": 5})).room
        assert server.lobby.rooms[solo].table.options["seed"] == 5
        assert not [r for r in server.lobby.rooms.values()
                    if r.table.seat_count > 1 and r.table.options["seed"] == 5]


# --------------------------------------------------------------------------------------------
# Commitment at start, reveal at game over, nothing before


async def test_commitment_is_published_at_start_and_revealed_only_at_game_over(
        server: Server) -> None:
    players = [Recording(server.url, name=f"p{i}") for i in range(2)]
    watcher = Recording(server.url, name="watcher")
    for c in [*players, watcher]:
        await c.connect()
    try:
        room = (await players[0].create_room("skipper", mode="multi", seats=2,
                                             options=SHORT)).room
        await watcher.spectate(room)
        joins = [await c.join(room) for c in players]  # full: the room starts
        live = server.lobby.rooms[room]
        seed, salt = live.table.game.options["seed"], live.table.salt
        choose = strategy("skipper", "greedy")
        async with asyncio.timeout(60):
            await asyncio.gather(*(play_seat(c, room, j.seat or 0, choose, random.Random(i))
                                   for i, (c, j) in enumerate(zip(players, joins))))
            while room not in watcher.reveals:
                await asyncio.sleep(0.01)
    finally:
        for c in [*players, watcher]:
            await c.close()

    expected = fairness.commitment(seed, salt)
    for c in [*players, watcher]:
        tags = [m.TYPE for m in c.received]
        assert "started" in tags and "game_over" in tags
        started = next(m for m in c.received if isinstance(m, p.Started))
        assert started.commitment == expected == c.commitments[room]
        before = c.received[:tags.index("game_over")]
        assert before and not any(holds(m.to_map(), seed, salt) for m in before), (
            "a frame before game_over holds the seed or the salt")
        # Before the start the room facts hold no commitment; after it, the same one.
        joined = next(m for m in c.received if isinstance(m, p.Joined))
        assert joined.view["room"]["commitment"] is None
        assert c.views[room]["room"]["commitment"] == expected
        over = c.reveals[room]
        assert (over.seed, over.salt) == (seed, salt)
        assert fairness.matches(over.seed, over.salt, started.commitment)
    # The salt is part of the stored record: a process taking the room over publishes the
    # same commitment.
    loaded = await server.store.load(room)
    assert loaded is not None and loaded.record["salt"] == salt
    again = Room.from_loaded(loaded, server.store, get("skipper"))
    assert again.table.commitment == expected
    assert again.table.game.snapshot() == live.table.game.snapshot()


async def test_get_log_is_refused_until_the_game_is_over(server: Server) -> None:
    async with Client(server.url) as c:
        room = (await c.create_room("skipper", mode="multi", seats=2, options=SHORT)).room
        with pytest.raises(ServerError) as info:
            await c.fetch_log(room)
        assert info.value.code == "room/not_finished"
        await c.join(room)
        await c.start(room)
        with pytest.raises(ServerError) as info:
            await c.fetch_log(room)
        assert info.value.code == "room/not_finished"
        with pytest.raises(ServerError) as info:
            await c.fetch_log("nosuchroom")
        assert info.value.code == "room/not_found"


# --------------------------------------------------------------------------------------------
# cardhall verify


async def cli(*args: str) -> tuple[int, str, str]:
    """Run ``cardhall`` (this checkout's) in a child process; (exit code, stdout, stderr)."""
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "cardhall.cli", *args,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    out, err = await asyncio.wait_for(proc.communicate(), 120)
    assert proc.returncode is not None
    return proc.returncode, out.decode(), err.decode()


def write(path: Path, record: dict[str, Any]) -> str:
    path.write_text(json.dumps(record), encoding="utf-8")
    return str(path)


async def test_cardhall_verify_accepts_a_bot_game_and_rejects_tampered_records(
        server: Server, tmp_path: Path) -> None:
    records = await play_games([server.url], "skipper", "multi", 2, 1, "greedy", SHORT,
                               seed=3, timeout=60, record_dir=str(tmp_path))
    room = records[0]["room"]
    files = sorted(tmp_path.glob(f"{room}-seat*.json"))
    assert [f.name for f in files] == [f"{room}-seat0.json", f"{room}-seat1.json"]
    for f in files:
        code, out, err = await cli("verify", str(f))
        assert code == 0, err
        assert "deal verified" in out and f"{records[0]['state_id']} actions" in out
    record = json.loads(files[0].read_text(encoding="utf-8"))
    assert record["seen"] and len(record["log"]) == record["state_id"] > 0
    assert verify_record(record).views_checked > 0

    # Another seed (the options follow it, so only the commitment can tell).
    forged = {**record, "seed": record["seed"] + 1,
              "options": {**record["options"], "seed": record["seed"] + 1}}
    code, _, err = await cli("verify", write(tmp_path / "seed.json", forged))
    assert code == 1 and "tampered seed" in err
    # A log with an action taken out.
    forged = {**record, "log": record["log"][:-1]}
    code, _, err = await cli("verify", write(tmp_path / "log.json", forged))
    assert code == 1 and "tampered log" in err
    kind, seat, action = record["log"][0]
    forged = {**record, "log": [[kind, 1 - seat, action], *record["log"][1:]]}
    code, _, err = await cli("verify", write(tmp_path / "seat.json", forged))
    assert code == 1 and "tampered log" in err
    # Two actions swapped: whatever the engine makes of it, this seat's cards no longer
    # follow (or the log no longer applies).
    forged = {**record, "log": [record["log"][1], record["log"][0], *record["log"][2:]]}
    code, _, err = await cli("verify", write(tmp_path / "order.json", forged))
    assert code == 1 and "deal NOT verified" in err
    # A hand that is not the one the seed deals (the server showed other cards than it
    # played by).
    seen = json.loads(json.dumps(record["seen"]))
    first = next(item for item in seen if item[1] == "view" and item[2].get("hand"))
    hand = first[2]["hand"]
    hand[0] = next(c for c in ("AS", "2H", "3D", "4C", "5S") if c not in hand)
    code, _, err = await cli("verify", write(tmp_path / "hand.json", {**record, "seen": seen}))
    assert code == 1 and "hand mismatch" in err
    # No commitment recorded: nothing to verify against.
    code, _, err = await cli("verify", write(tmp_path / "none.json",
                                             {**record, "commitment": None}))
    assert code == 1 and "no deal commitment" in err

    # From the live server after the game: the log and reveal are fetched (no views).
    code, out, err = await cli("verify", "--url", server.url, "--room", room,
                               "--commitment", record["commitment"])
    assert code == 0 and "deal verified" in out, err
    code, _, err = await cli("verify", "--url", server.url, "--room", room,
                             "--commitment", "0" * 64)
    assert code == 1 and "tampered seed" in err


def test_verify_record_names_what_failed() -> None:
    """Pure checks, no server: a record made by replaying an engine game by hand."""
    game = get("skipper")({"mode": "multi", "turn_limit": 3}, 2)
    choose, rng = strategy("skipper", "greedy"), random.Random(1)
    log, seen = [], [[0, "view", {**game.view(1), "room": {"status": "playing"}}]]
    while not game.over:
        seat = game.to_act()[0]
        action = list(choose(game.bot_view(seat), rng))
        game.apply(seat, action)
        log.append(["a", seat, action])
        seen.append([game.state_id, "view", {**game.view(1), "room": {"status": "playing"}}])
    salt = fairness.new_salt()
    record = {"format": "cardhall-game-record/1", "room": "r1", "game": "skipper", "seats": 2,
              "seat": 1, "commitment": fairness.commitment(game.options["seed"], salt),
              "seed": game.options["seed"], "salt": salt, "state_id": game.state_id,
              "outcome": game.outcome(), "options": game.options, "log": log, "seen": seen}
    verdict = verify_record(record)
    assert verdict.views_checked == len(seen) and verdict.state_id == len(log)
    with pytest.raises(VerificationFailed, match="tampered log"):
        verify_record({**record, "state_id": game.state_id + 1})
    with pytest.raises(VerificationFailed, match="outcome mismatch"):
        verify_record({**record, "outcome": {**record["outcome"], "winner": 7}})
    with pytest.raises(VerificationFailed, match="view mismatch|hand mismatch"):
        verify_record({**record, "seat": 0})  # seat 1's views are not seat 0's
    with pytest.raises(VerificationFailed, match="bad record"):
        verify_record({**record, "format": "other"})


def test_commitment_is_sha256_of_the_documented_string() -> None:
    """The spec's example (protocol/README.md "Fair deals"), so that other clients agree."""
    import hashlib

    text = "cardhall-deal/1:7:" + "0" * 32
    assert len(text) == 50
    assert fairness.commitment(7, "0" * 32) == hashlib.sha256(text.encode()).hexdigest()
    assert fairness.matches(7, "0" * 32, fairness.commitment(7, "0" * 32))
    assert not fairness.matches(8, "0" * 32, fairness.commitment(7, "0" * 32))
    assert not fairness.matches(7, "bad", "0" * 64)
    for seed, salt in ((-1, "0" * 32), (True, "0" * 32), (1, "A" * 32), (1, "0" * 31)):
        with pytest.raises(ValueError):
            fairness.commitment(seed, salt)  # type: ignore[arg-type]
