"""Protocol versions 1 and 2 in one room (protocol/README.md "Version 2"): a version 1
connection gets the frames of version 1, byte for byte; a version 2 connection gets deltas
without ``"state_id"`` and its acts answered by its own update, and the view it keeps equals
the room's view of its seat after every action, in every game."""

from __future__ import annotations

import asyncio
import copy
import hashlib
import random
from typing import Any

import msgpack
import pytest

from cardhall import protocol as p
from cardhall.games import catalog, get
from cardhall.server.room import Room
from cardhall.server.store.memory_store import MemoryStore


class _Keeper:
    """A stand-in connection of protocol version ``wire`` that keeps the view its frames
    describe, as a client of that version does (version 1: the delta alone; version 2: the
    delta, then the update's ``state_id``), and records every frame it is sent."""

    def __init__(self, name: str, wire: int, act_reply: str | None = None) -> None:
        self.name, self.session_id, self.process = name, name, "test"
        self.account = ""
        self.wire = wire
        self.act_reply = act_reply or ("update" if wire >= 2 else "ok")
        self.rooms: dict[str, Any] = {}
        self.view: dict[str, Any] | None = None
        self.frames: list[bytes] = []
        self.writes: list[int] = []  # frames per write
        self.replies: list[tuple[str, Any]] = []  # (type, re) of every frame with a ``re``
        self.deltas_with_state_id = 0

    def send(self, msg: p.Message) -> None:
        self.send_raw(p.encode(msg))

    def send_later(self, frame: bytes) -> None:
        self.send_raw(frame)

    def push(self) -> None:
        """Nothing waits here: every write is kept at once."""

    def send_raw(self, *frames: bytes) -> None:
        self.writes.append(len(frames))
        for frame in frames:
            self.frames.append(frame)
            msg = p.decode(frame, side="server")
            if getattr(msg, "re", None) is not None:
                self.replies.append((msg.TYPE, getattr(msg, "re")))
            if isinstance(msg, p.Joined):
                self.view = copy.deepcopy(msg.view)
            elif isinstance(msg, p.Update):
                if msg.view is not None:
                    self.view = copy.deepcopy(msg.view)
                    continue
                assert self.view is not None and msg.delta is not None
                self.deltas_with_state_id += "state_id" in msg.delta
                if self.wire >= 2:
                    assert "state_id" not in msg.delta, msg.delta
                    p.apply_update(self.view, copy.deepcopy(msg.delta), msg.state_id)
                else:
                    p.apply_delta(self.view, copy.deepcopy(msg.delta))

    def send_error(self, code: str, message: str, re: Any = None) -> None:
        raise AssertionError(f"{self.name} refused: {code}: {message}")


async def _room(game_name: str, options: dict[str, Any], seats: list[_Keeper],
                watchers: list[_Keeper], clocks: bool = True) -> tuple[Room, Any]:
    """A started room ``"r1"`` of ``game_name`` with ``seats`` seated in order and
    ``watchers`` spectating (turn clocks of 600 s, or none)."""
    game = get(game_name)(options, len(seats))
    turn = 600.0 if clocks else None
    room = Room(id="r1", name="r1", game_name=game_name, game=game,
                settings={"turn_seconds": turn, "bid_seconds": turn, "grace_seconds": 60.0,
                          "on_abandon": "bot"}, store=MemoryStore())
    for i, keeper in enumerate(seats):
        await room.apply(room.table.join(keeper, i, reply=False))  # type: ignore[arg-type]
    for keeper in watchers:
        await room.apply(room.table.spectate(keeper))  # type: ignore[arg-type]
    room.start_task()
    await room.apply(room.table.start(None))
    return room, game


async def _play(room: Room, game: Any, seats: list[_Keeper], rng: random.Random,
                actions: int, check: Any = None) -> int:
    """Play up to ``actions`` random legal actions (``resign`` only when nothing else is
    legal); after each, ``check(acting keeper, act id)``. Returns the actions played."""
    n = 0
    while n < actions and not game.over:
        seat = rng.choice(game.to_act())
        legal = [a for a in game.legal_actions(seat) if a[0] != "resign"]
        action = list(rng.choice(legal or game.legal_actions(seat)))
        act = p.Act(room="r1", state_id=game.state_id, action=action, id=n)
        async with asyncio.timeout(10):
            await room.play(seats[seat], act)  # type: ignore[arg-type]
        if check is not None:
            check(seats[seat], n)
        n += 1
    return n


#: The SHA-256 of every frame (each after its length, 4 bytes big-endian) the three version 1
#: seats and the version 1 spectator of a seeded Skipper room were sent over 120 actions
#: after the start, computed with main's server before version 2 existed (the second
#: spectator a version 1 one there: the same room facts).
V1_DIGEST = "8701354e999a545fd84e1344ac8d36caaaab18d7bed6620369b860306ebedfe2"
#: The protocol version of the second spectator (on main, computing the digest: 1).
_OTHER_WIRE = 2


async def test_version_1_frames_are_byte_for_byte_as_before() -> None:
    # The shared peers harness's load generator speaks version 1 and must keep working: a
    # seeded room without clocks (no wall-clock deadlines in the facts) sends its version 1
    # members, after the start, exactly the bytes it sent before version 2 existed, even
    # with version 2 members in the same room sharing the broadcasts.
    seats = [_Keeper(f"seat{i}", 1) for i in range(3)]
    watcher = _Keeper("v1 watcher", 1)
    others = [_Keeper("v2 watcher", _OTHER_WIRE)]
    room, game = await _room("skipper", {"mode": "multi", "seed": 11}, seats,
                             [watcher, *others], clocks=False)
    marks = [len(k.frames) for k in [*seats, watcher]]
    played = await _play(room, game, seats, random.Random(11), 120)
    await room.close()
    assert played == 120
    digest = hashlib.sha256()
    for keeper, mark in zip([*seats, watcher], marks):
        for frame in keeper.frames[mark:]:
            digest.update(len(frame).to_bytes(4, "big") + frame)
    assert digest.hexdigest() == V1_DIGEST


def _configs() -> list[tuple[str, dict[str, Any], int]]:
    """(game, options, seats) for every game: each solo game alone, Skipper's modes of three."""
    out: list[tuple[str, dict[str, Any], int]] = []
    for info in catalog():
        if info["max_seats"] == 1:
            out.append((info["game"], {"seed": 7}, 1))
        else:
            out += [(info["game"], {"mode": mode, "seed": 7}, 3)
                    for mode in info["modes"] if mode != "solo"]
    return out


async def _one_game(game_name: str, options: dict[str, Any], n_seats: int) -> list[_Keeper]:
    """One random game (at most 400 actions) in a room whose seats and two spectators speak
    versions 2 and 1 by turns, checked after every action (see the test below); returns
    the keepers, each holding what it was sent."""
    seats = [_Keeper(f"seat{i}", 2 if i % 2 == 0 else 1) for i in range(n_seats)]
    watchers = [_Keeper("v2 watcher", 2), _Keeper("v1 watcher", 1)]
    room, game = await _room(game_name, options, seats, watchers)
    everyone = [*seats, *watchers]
    views = [*range(n_seats), None, None]

    def check(actor: _Keeper, n: int) -> None:
        if actor.wire >= 2:
            assert actor.replies.pop() == ("update", n)
            assert actor.writes[-1] == 1  # the update alone: no ok ahead of it
        else:
            assert actor.replies.pop() == ("ok", n)
        for keeper, seat in zip(everyone, views):
            truth = msgpack.unpackb(msgpack.packb(room.table.view_for(seat)))
            assert keeper.view == truth, (keeper.name, n)

    await _play(room, game, seats, random.Random(options["seed"]), 400, check)
    await room.close()
    assert not any(k.replies for k in everyone)  # one reply per act, no more
    return everyone


@pytest.mark.parametrize(("game_name", "options", "n_seats"), _configs())
async def test_version_2_views_equal_the_rooms_after_every_action(
        game_name: str, options: dict[str, Any], n_seats: int) -> None:
    # Seats and spectators of both versions share one room through random games (more
    # than one when they are short: 300 actions at least): after every action each keeps
    # the room's view of its seat; version 2 deltas carry no state_id and a version 2 act
    # is answered by the actor's update alone (one frame, with re); version 1 keeps its ok
    # and its deltas' state_id.
    totals = {1: [0, 0], 2: [0, 0]}  # wire -> [deltas, deltas with state_id]
    seed = 7
    while totals[2][0] < 300 * (1 + n_seats // 2):
        for keeper in await _one_game(game_name, {**options, "seed": seed}, n_seats):
            deltas = sum(1 for f in keeper.frames if b"\xa5delta" in f)
            totals[keeper.wire][0] += deltas
            totals[keeper.wire][1] += keeper.deltas_with_state_id
        seed += 1
    assert totals[2][1] == 0
    assert totals[1][1] >= totals[1][0] // 2  # most version 1 deltas are an action's


#: ``update_frame`` of room "r1", state 7, one pass event, delta ``{"state_id": 7, "to_act":
#: [1]}``: version 1 without ``re`` (as before version 2), version 2 with ``re`` 3.
V1_FRAME = ("85a174a6757064617465a4726f6f6da27231a873746174655f696407a564656c746182a8737461"
            "74655f696407a6746f5f6163749101a66576656e74739182a474797065a470617373a4736561"
            "7400")
V2_FRAME = ("86a174a6757064617465a4726f6f6da27231a873746174655f696407a564656c746181a6746f"
            "5f6163749101a66576656e74739182a474797065a470617373a47365617400a2726503")


def test_update_frames_of_both_versions_pinned() -> None:
    # update_frame's bytes: version 1 as before (state_id inside the delta), version 2 the
    # same map without it; the delta given is not changed (broadcasts share it).
    parts = p.update_parts("r1", 7, [{"type": "pass", "seat": 0}])
    delta = {"state_id": 7, "to_act": [1]}
    v1 = p.update_frame(parts, delta=delta)
    assert v1.hex() == V1_FRAME
    assert p.update_frame(parts, delta=delta, v=1) == v1
    assert p.update_frame(parts, delta=delta, re=3, v=2).hex() == V2_FRAME
    assert delta == {"state_id": 7, "to_act": [1]}
    assert p.decode(bytes.fromhex(V2_FRAME), side="server") == p.Update(
        room="r1", state_id=7, delta={"to_act": [1]}, events=[{"type": "pass", "seat": 0}],
        re=3)


def test_json_schemas_of_hello_welcome_and_the_version_2_update() -> None:
    # docs/schemas/protocol/{hello,welcome,update}.json accept what the server and its
    # clients send in version 2 (update.json: a version 2 update; a version 1 delta, with
    # its state_id, is refused) and refuse what the protocol refuses.
    import json

    import jsonschema

    from ..conftest import ROOT

    def schema(name: str) -> Any:
        return json.loads((ROOT / "docs" / "schemas" / "protocol" / f"{name}.json").read_text())

    def wire(msg: p.Message) -> Any:
        return msgpack.unpackb(p.encode(msg))

    for v in (1, 2):
        jsonschema.validate(wire(p.Hello(v=v, client="cardhall-py/0.1", id=0)), schema("hello"))
        jsonschema.validate(wire(p.Welcome(v=v, server="s", session="x", max_frame=65536)),
                            schema("welcome"))
    jsonschema.validate(wire(p.Hello(v=2, client="c", act_reply="ok")), schema("hello"))
    parts = p.update_parts("r1", 7, [{"type": "pass", "seat": 0}])
    delta = {"state_id": 7, "to_act": [1]}
    update = schema("update")
    jsonschema.validate(msgpack.unpackb(p.update_frame(parts, delta=delta, re=3, v=2)), update)
    jsonschema.validate(wire(p.Update(room="r1", state_id=7, view={"state_id": 7})), update)
    bad = [("hello", {"t": "hello", "v": 2}),
           ("hello", {"t": "hello", "v": 2, "client": "c", "act_reply": "never"}),
           ("welcome", {"t": "welcome", "v": 2, "server": "s", "session": "x"}),
           ("update", msgpack.unpackb(p.update_frame(parts, delta=delta))),  # version 1's
           ("update", {"t": "update", "room": "r1", "state_id": 7, "events": []}),
           ("update", {"t": "update", "room": "r1", "state_id": 7, "events": [],
                       "view": {"state_id": 7}, "delta": {}})]
    for name, sample in bad:
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(sample, schema(name))
