"""Known-value tests of cardhall.protocol: round trips, every error, handshake, tables, spec."""

from __future__ import annotations

import ast
import dataclasses
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import msgpack
import pytest
from cardhall import protocol as p

PROTOCOL_DIR = Path(p.__file__).parent
README = (PROTOCOL_DIR / "README.md").read_text(encoding="utf-8")

SUMMARY = p.RoomSummary(room="r1", name="Friday game", game="skipper", mode=None, seats=4,
                        taken=2, status="waiting", private=False, spectators=1)

# One (or more) valid sample of every message type, each field present at least once.
SAMPLES: list[p.Message] = [
    p.Games(games=[{"game": "skipper", "title": "Skipper", "min_seats": 1, "max_seats": 6,
                    "modes": ["solo", "multi"], "options": [
                        {"name": "seed", "kind": "int", "default": None, "doc": "the deal"}]}],
            room_options=[{"name": "turn_seconds", "kind": "float", "default": None,
                           "doc": "seconds per turn", "min": 0.05}], re=9),
    p.Hello(v=1, client="cardhall-py/0.1", id=1),
    p.Hello(v=1, client="x"),
    p.ListGames(id=9),
    p.ListGames(),
    p.ListRooms(id="abc", game="skipper"),
    p.ListRooms(),
    p.CreateRoom(id=2, game="skipper", mode="classic", seats=4, options={"seed": 5},
                 private=True, name="Friday"),
    p.CreateRoom(game="shop", seats=1),
    p.Join(id=3, room="r1", seat=2),
    p.Join(code="KQ7X"),
    p.QuickJoin(id=4, game="skipper", mode="classic", seats=4),
    p.QuickJoin(game="skipper"),
    p.Spectate(id=5, room="r1"),
    p.Leave(id=6, room="r1"),
    p.Start(id=7, room="r1"),
    p.Resume(id=8, room="r1", token="t0k3n"),
    p.Act(id=9, room="r1", state_id=41, action=["play", "5D", "D"]),
    p.Act(room="r1", state_id=0, action=["pass"]),
    p.GetView(id=10, room="r1"),
    p.GetLog(id=12, room="r1", first=1000),
    p.GetLog(room="r1"),
    p.GetLeaderboard(id=13, game="skipper", mode="solo", limit=100, around="bob"),
    p.GetLeaderboard(game="thirtysix"),
    p.Ping(id=11),
    p.Ping(),
    p.Chat(id=14, room="r1", text="good luck ♣"),
    p.Chat(room="r1", emote="well_played"),
    p.GetReplay(id=15, room="r1", state_id=12, seat=1),
    p.GetReplay(room="r1", state_id=0),
    p.Welcome(v=1, server="cardhall/0.1", session="s-1", max_frame=65536, re=1),
    p.Rooms(re="abc", rooms=(SUMMARY,)),
    p.Rooms(rooms=()),
    p.RoomCreated(re=2, room="r1", code="KQ7X"),
    p.RoomCreated(room="r2"),
    p.Joined(re=3, room="r1", seat=2, token="t0k3n", view={"state_id": 0, "hand": ["AS"]}),
    p.Joined(room="r1", seat=None, view={"scores": {0: 3, 1: 5}}),
    p.Left(re=6, room="r1"),
    p.Started(re=7, room="r1", commitment="0f" * 32),
    p.Started(room="r1"),
    p.Update(room="r1", state_id=42, delta={"to_act": [1]},
             events=[{"type": "play", "seat": 0, "card": "5D"}]),
    p.Update(re=10, room="r1", state_id=42, view={"state_id": 42}, events=[]),
    p.SeatEvent(room="r1", seat=1, event="dropped"),
    p.GameOver(room="r1", state_id=99, outcome={"winners": [0], "scores": [10, 3]}),
    p.GameOver(room="r1", state_id=2, outcome={}, seed=2**63 - 1, salt="a1" * 16),
    p.Log(re=12, room="r1", game="skipper", seats=2, options={"mode": "multi", "seed": 7},
          salt="a1" * 16, commitment="0f" * 32, state_id=2, outcome={"winner": 1},
          first=0, entries=[["a", 0, ["end"]], ["f", 1, None]], more=False),
    p.Leaderboard(re=13, game="skipper", mode="solo", order="asc",
                  entries=[{"rank": 1, "name": "bob", "score": 21}], total=1,
                  you={"rank": 1, "score": 21}),
    p.Leaderboard(game="thirtysix", mode="standard", order="desc"),
    p.ChatLines(room="r1", lines=[{"n": 1, "seat": 0, "name": "Ann", "at": 1.5,
                                   "text": "hi"},
                                  {"n": 2, "seat": None, "name": "Kib", "at": 2,
                                   "emote": "hello"}], history=True),
    p.ChatLines(room="r1", lines=[]),
    p.Replay(re=15, room="r1", state_id=12, final=40, seat=1, view={"state_id": 12},
             events=[{"type": "end", "seat": 0}]),
    p.Replay(room="r1", state_id=0, final=0, seat=None, view={}, events=[]),
    p.Ok(re=9),
    p.Pong(re=11),
    p.Error(re=9, code="action/stale_state", message="state_id 41 is not 42"),
    p.Error(code="server/internal", message=""),
    # Accounts (protocol/accounts.py).
    p.Resume(room="r1"),
    p.Guest(id=20, secret="s" * 22),
    p.Register(id=21, username="alice", password="correct horse"),
    p.Login(id=22, username="alice", password="correct horse"),
    p.Login(jwt="eyJhbGciOiJSUzI1NiJ9.e30.c2ln"),
    p.Login(username="alice", password="correct horse",
            device="chd1.0123456789abcdef." + "d" * 43),
    p.Restore(id=23, token="chs1.0123456789abcdef." + "x" * 43),
    p.Refresh(token="chr1.0123456789abcdef." + "y" * 43),
    p.Logout(id=24, everywhere=True),
    p.Logout(),
    p.SetName(id=25, name="Alice"),
    p.GetMyGames(id=26, cursor="20", limit=50),
    p.GetMyGames(),
    p.Account(re=20, account="0123456789abcdef", username="guest-7qf3k2", name="Guest-7QF3K2",
              guest=True, token="chs1.a.b", refresh="chr1.a.b", expires=1_800_000_000),
    p.Account(account="0123456789abcdef", username="alice", name="Alice"),
    p.Account(account="0123456789abcdef", username="alice", name="Alice", token="chs1.a.b",
              refresh="chr1.a.b", expires=1_800_000_000, device="chd1.a.b"),
    p.SignedOut(re=24),
    p.MyGames(re=26, running=[{"room": "r1", "seat": 0, "name": "Skipper r1",
                               "game": "skipper", "mode": "multi", "status": "playing",
                               "since": 1_800_000_000}],
              finished=[{"room": "r0", "seat": 1, "seats": 4, "name": "Friday",
                         "game": "skipper", "mode": "multi", "finished": 1_800_000_000,
                         "result": "won", "score": None}], total=21, cursor="1"),
    p.MyGames(),
    # Rated play's queue (protocol/queue.py).
    p.QueueJoin(id=27, game="skipper", mode="multi", seats=[2, 3, 4]),
    p.QueueJoin(game="skipper", mode="race", seats=[4]),
    p.QueueLeave(id=28, game="skipper"),
    p.QueueLeave(),
    p.Queued(re=27, game="skipper", mode="multi", seats=[2, 3, 4], rating=1500,
             provisional=True, waiting=3),
    p.Matched(room="r9", game="skipper", mode="multi", seats=4, bots=1, host=True,
              spread=40),
]


def side_of(msg: p.Message) -> p.Side:
    return "client" if msg.TYPE in p.CLIENT_MESSAGES else "server"


def frame(**fields: Any) -> bytes:
    data: bytes = msgpack.packb(fields)
    return data


# --------------------------------------------------------------------------------------------
# Round trips


def test_samples_cover_every_message_type() -> None:
    assert {m.TYPE for m in SAMPLES} == set(p.MESSAGE_TYPES)
    assert set(p.MESSAGE_TYPES) == set(p.CLIENT_MESSAGES) | set(p.SERVER_MESSAGES)
    assert not set(p.CLIENT_MESSAGES) & set(p.SERVER_MESSAGES)


@pytest.mark.parametrize("msg", SAMPLES, ids=lambda m: m.TYPE)
def test_round_trip(msg: p.Message) -> None:
    data = p.encode(msg)
    assert isinstance(data, bytes)
    back = p.decode(data, side=side_of(msg))
    assert back == msg
    assert type(back) is type(msg)
    raw = msgpack.unpackb(data, strict_map_key=False)
    assert next(iter(raw)) == "t"
    assert raw["t"] == msg.TYPE
    assert None not in [v for k, v in raw.items() if k not in ("seat", "mode")]


def test_wrong_side_is_unknown_type() -> None:
    with pytest.raises(p.UnknownType, match="not a message a client may send"):
        p.decode(p.encode(p.Pong()), side="client")
    with pytest.raises(p.UnknownType):
        p.decode(p.encode(p.Ping()), side="server")


def test_optional_fields_may_be_nil() -> None:
    assert p.decode(frame(t="ping", id=None), side="client") == p.Ping()
    assert p.decode(frame(t="join", room="r", code=None, seat=None), side="client") == \
        p.Join(room="r")


def test_nullable_field_must_be_present() -> None:
    data = frame(t="joined", room="r", view={})
    with pytest.raises(p.MissingField, match="seat"):
        p.decode(data, side="server")
    joined = p.decode(frame(t="joined", room="r", seat=None, view={}), side="server")
    assert isinstance(joined, p.Joined) and joined.seat is None


def test_tuples_encode_as_arrays_and_decode_as_lists() -> None:
    msg = p.Act(room="r", state_id=1, action=("play", "AS", ("x", 1)))
    back = p.decode(p.encode(msg), side="client")
    assert isinstance(back, p.Act)
    assert back.action == ["play", "AS", ["x", 1]]


def test_rooms_accepts_summary_maps() -> None:
    msg = p.Rooms(rooms=[SUMMARY.to_map()])  # type: ignore[list-item]
    assert msg.rooms == (SUMMARY,)
    assert p.decode(p.encode(msg), side="server") == msg


def test_messages_are_frozen_and_slotted() -> None:
    msg = p.Ping(id=1)
    with pytest.raises(dataclasses.FrozenInstanceError):
        msg.id = 2  # type: ignore[misc]
    assert not hasattr(msg, "__dict__")


def test_memoryview_and_bytearray_accepted() -> None:
    data = p.encode(p.Ping(id=1))
    assert p.decode(bytearray(data), side="client") == p.Ping(id=1)
    assert p.decode(memoryview(data), side="client") == p.Ping(id=1)


# --------------------------------------------------------------------------------------------
# Every error class, provoked by a specific bad frame

BAD_FRAMES: list[tuple[str, Any, type[p.ProtocolError]]] = [
    ("text frame", '{"t": "ping"}', p.BadFrame),
    ("not msgpack (reserved byte 0xc1)", b"\xc1", p.BadFrame),
    ("truncated", b"\x81\xa1t", p.BadFrame),
    ("empty", b"", p.BadFrame),
    ("invalid utf-8", b"\x81\xa1t\xa2\xff\xfe", p.BadFrame),
    ("not a map", msgpack.packb(["ping"]), p.BadFrame),
    ("trailing data", msgpack.packb({"t": "ping"}) + b"\x00", p.BadFrame),
    ("int map key", b"\x81\x01\xa4ping", p.BadFrame),
    ("ext type", b"\x82\xa1t\xa4ping\xa2id\xd4\x05\x00", p.BadFrame),
    ("map too long", msgpack.packb({"t": "ping", **{f"k{i}": 0 for i in range(2000)}}),
     p.BadFrame),
    ("array too long", frame(t="act", room="r", state_id=0, action=["x"] * 5000), p.BadFrame),
    ("deep nesting beyond the unpacker's stack", b"\x91" * 5000, p.BadFrame),
    ("too large", frame(t="hello", v=1, client="x" * 70000), p.TooLarge),
    ("no type", frame(id=1), p.MissingField),
    ("unknown type", frame(t="dance"), p.UnknownType),
    ("server type from client", frame(t="welcome", v=1, server="s", session="x",
                                      max_frame=1), p.UnknownType),
    ("missing field", frame(t="act", room="r", state_id=1), p.MissingField),
    ("unknown field", frame(t="ping", id=1, extra=2), p.UnknownField),
    ("type tag not str", frame(t=1), p.BadType),
    ("bool is not int", frame(t="act", room="r", state_id=True, action=["x"]), p.BadType),
    ("float is not int", frame(t="act", room="r", state_id=1.0, action=["x"]), p.BadType),
    ("str for int", frame(t="hello", v="1", client="x"), p.BadType),
    ("bool id", frame(t="ping", id=False), p.BadType),
    ("bin for str", frame(t="spectate", room=b"r1"), p.BadType),
    ("action not a list", frame(t="act", room="r", state_id=0, action="play"), p.BadType),
    ("action verb not str", frame(t="act", room="r", state_id=0, action=[1]), p.BadType),
    ("options not a map", frame(t="create_room", game="g", seats=2, options=[],
                                private=False), p.BadType),
    ("private not bool", frame(t="create_room", game="g", seats=2, options={}, private=0),
     p.BadType),
    ("nil for required", frame(t="spectate", room=None), p.BadType),
    ("empty action", frame(t="act", room="r", state_id=0, action=[]), p.BadValue),
    ("negative state_id", frame(t="act", room="r", state_id=-1, action=["x"]), p.BadValue),
    ("seats out of range", frame(t="create_room", game="g", seats=7, options={},
                                 private=False), p.BadValue),
    ("seat out of range", frame(t="join", room="r", seat=6), p.BadValue),
    ("id out of range", frame(t="ping", id=2**31), p.BadValue),
    ("id too long", frame(t="ping", id="x" * 65), p.BadValue),
    ("client name too long", frame(t="hello", v=1, client="x" * 65), p.BadValue),
    ("empty room id", frame(t="leave", room=""), p.BadValue),
    ("join with neither room nor code", frame(t="join"), p.BadValue),
    ("join with both room and code", frame(t="join", room="r", code="c"), p.BadValue),
    ("action nested too deep", frame(
        t="act", room="r", state_id=0,
        action=["x", [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[0]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]),
     p.BadValue),
]


@pytest.mark.parametrize(("data", "cls"), [(d, c) for _, d, c in BAD_FRAMES],
                         ids=[name for name, _, _ in BAD_FRAMES])
def test_bad_frames(data: Any, cls: type[p.ProtocolError]) -> None:
    with pytest.raises(cls) as info:
        p.decode(data, side="client")
    err = info.value
    assert type(err) is cls
    assert err.code in p.ERROR_CODES
    assert str(err) == err.message and err.message


SERVER_BAD_FRAMES: list[tuple[str, bytes, type[p.ProtocolError]]] = [
    ("update with both view and delta", frame(t="update", room="r", state_id=1, view={},
                                              delta={}, events=[]), p.BadValue),
    ("update with neither", frame(t="update", room="r", state_id=1, events=[]), p.BadValue),
    ("bad seat event", frame(t="seat_event", room="r", seat=0, event="danced"), p.BadValue),
    ("bad error code", frame(t="error", code="Oops", message=""), p.BadValue),
    ("commitment not hex", frame(t="started", room="r", commitment="G" * 64), p.BadValue),
    ("salt too short", frame(t="game_over", room="r", state_id=1, outcome={}, seed=1,
                             salt="ab"), p.BadValue),
    ("negative seed", frame(t="game_over", room="r", state_id=1, outcome={}, seed=-1),
     p.BadValue),
    ("bad room status", frame(t="rooms", rooms=[{**SUMMARY.to_map(), "status": "x"}]),
     p.BadValue),
    ("taken over seats", frame(t="rooms", rooms=[{**SUMMARY.to_map(), "taken": 5}]),
     p.BadValue),
    ("summary unknown field", frame(t="rooms", rooms=[{**SUMMARY.to_map(), "x": 1}]),
     p.UnknownField),
    ("summary missing field", frame(t="rooms", rooms=[{"room": "r"}]), p.MissingField),
    ("summary not a map", frame(t="rooms", rooms=[1]), p.BadType),
    ("float map key in view", frame(t="joined", room="r", seat=None, view={1.5: 1}),
     p.BadType),
    ("events not an array", frame(t="update", room="r", state_id=1, view={}, events={}),
     p.BadType),
]


@pytest.mark.parametrize(("data", "cls"), [(d, c) for _, d, c in SERVER_BAD_FRAMES],
                         ids=[name for name, _, _ in SERVER_BAD_FRAMES])
def test_bad_server_frames(data: bytes, cls: type[p.ProtocolError]) -> None:
    with pytest.raises(cls):
        p.decode(data, side="server")


def test_int_keys_allowed_in_server_data_only() -> None:
    view = {"scores": {0: 1}}
    back = p.decode(p.encode(p.Joined(room="r", view=view)), side="server")
    assert isinstance(back, p.Joined) and back.view == view
    with pytest.raises(p.BadType, match="map key"):
        p.CreateRoom(game="g", seats=1, options={1: 2})  # type: ignore[dict-item]


def test_every_error_class_is_provoked() -> None:
    provoked = {c for _, _, c in BAD_FRAMES} | {c for _, _, c in SERVER_BAD_FRAMES}
    handshake = {p.HandshakeRequired, p.UnexpectedMessage, p.VersionMismatch}  # tested below
    leaves = {c for c in vars(p).values()
              if isinstance(c, type) and issubclass(c, p.ProtocolError)
              and c is not p.ProtocolError}
    assert leaves == provoked | handshake


def test_error_reply_echoes_salvaged_id() -> None:
    with pytest.raises(p.BadType) as info:
        p.decode(frame(t="act", id="req-1", room="r", state_id="x", action=["a"]),
                 side="client")
    assert info.value.re == "req-1"
    reply = p.error_reply(info.value)
    assert reply == p.Error(code="protocol/bad_type", message=info.value.message, re="req-1")
    with pytest.raises(p.UnknownField) as info2:
        p.decode(frame(t="ping", id=7, x=1), side="client")
    assert info2.value.re == 7
    with pytest.raises(p.UnknownType) as info3:
        p.decode(frame(t="nope", id=True), side="client")  # invalid id: not echoed
    assert info3.value.re is None


def test_decode_max_size_is_configurable() -> None:
    data = p.encode(p.Hello(v=1, client="x" * 60))
    with pytest.raises(p.TooLarge) as info:
        p.decode(data, side="client", max_size=len(data) - 1)
    assert info.value.close_code == 1009
    assert p.decode(data, side="client", max_size=len(data)) == p.Hello(v=1, client="x" * 60)
    big = frame(t="act", room="r", state_id=0, action=["x", "y" * 100_000])
    assert isinstance(p.decode(big, side="client", max_size=None), p.Act)


def test_depth_limit_boundary() -> None:
    def nest(n: int) -> Any:
        v: Any = 0
        for _ in range(n):
            v = [v]
        return v  # n levels of arrays
    ok = p.Act(room="r", state_id=0, action=["x", nest(31)])  # the action is level 1: 32
    assert p.decode(p.encode(ok), side="client") == ok
    with pytest.raises(p.BadValue, match="nested deeper than 32"):
        p.Act(room="r", state_id=0, action=["x", nest(32)])


def test_decode_rejects_bad_side() -> None:
    with pytest.raises(ValueError, match="side"):
        p.decode(p.encode(p.Ping()), side="both")  # type: ignore[call-overload]


# --------------------------------------------------------------------------------------------
# Construction and encoding


def test_construction_validates() -> None:
    with pytest.raises(p.BadType):
        p.Ping(id=True)
    with pytest.raises(p.BadValue):
        p.Update(room="r", state_id=1, events=[])
    with pytest.raises(p.BadType):
        p.Joined(room="r", view={"x": object()})
    with pytest.raises(p.BadValue):
        p.GameOver(room="r", state_id=1, outcome={"big": 2**64})


def test_encode_errors() -> None:
    with pytest.raises(TypeError):
        p.encode({"t": "ping"})  # type: ignore[arg-type]
    with pytest.raises(p.TooLarge):
        p.encode(p.Joined(room="r", view={"x": "y" * 100}), max_size=50)
    with pytest.raises(p.BadValue, match="cannot encode"):
        p.encode(p.Joined(room="r", view={"x": "\udc80"}))


def test_reply_id() -> None:
    assert p.reply_id(p.Act(id=5, room="r", state_id=0, action=["x"])) == 5
    assert p.reply_id(p.Ping()) is None
    assert p.reply_id(p.Ok(re=3)) is None


# --------------------------------------------------------------------------------------------
# Handshake


@pytest.mark.parametrize("v", [1, 2])
def test_handshake(v: int) -> None:
    # the server speaks versions 1 and 2 (PROTOCOL_VERSIONS), and welcome says which
    hs = p.ServerHandshake(server="cardhall/test", session="s1", max_frame=4096)
    with pytest.raises(p.HandshakeRequired) as info:
        hs.receive(p.Ping(id=1))
    assert info.value.re == 1 and info.value.close_code is None
    welcome = hs.receive(p.Hello(v=v, client="c", id="h"))
    assert welcome == p.Welcome(v=v, server="cardhall/test", session="s1", max_frame=4096,
                                re="h")
    assert hs.done and hs.version == v
    assert hs.receive(p.Ping()) is None
    with pytest.raises(p.UnexpectedMessage):
        hs.receive(p.Hello(v=1, client="c"))


def test_handshake_version_mismatch() -> None:
    hs = p.ServerHandshake(server="s", session="x")
    with pytest.raises(p.VersionMismatch) as info:
        hs.receive(p.Hello(v=3, client="c", id=4))
    assert info.value.close_code == 4002 == next(
        c for c, m in p.CLOSE_CODES.items() if "version" in m)
    assert p.error_reply(info.value) == p.Error(code="protocol/version",
                                                message=info.value.message, re=4)
    assert not hs.done


# --------------------------------------------------------------------------------------------
# error_reply and the code tables


def test_error_reply_with_engine_errors() -> None:
    from cardhall.games import errors as ge

    assert p.error_reply(ge.NotYourTurn("seat 2 is to act"), re=3) == p.Error(
        code="action/not_your_turn", message="seat 2 is to act", re=3)
    assert p.error_reply(ge.OptionError("bad seed")).code == "lobby/bad_options"
    snap = p.error_reply(ge.SnapshotError("secret detail"))
    assert snap.code == "server/internal" and "secret" not in snap.message
    for cls in (ge.IllegalAction, ge.UnknownAction, ge.GameOver, ge.NotYourTurn,
                ge.OptionError):
        assert p.ENGINE_CODES.get(cls.code, cls.code) in p.ERROR_CODES


def test_error_reply_other_forms() -> None:
    bug = p.error_reply(KeyError("secret"), re=1)
    assert bug == p.Error(code="server/internal", message="internal server error", re=1)
    assert p.error_reply("room/full").message == p.ERROR_CODES["room/full"]
    assert p.error_reply("room/full", "seat 2 is taken", 5) == p.Error(
        code="room/full", message="seat 2 is taken", re=5)
    long = p.error_reply("action/illegal", "x" * 5000)
    assert len(long.message) == 1024 and long.message.endswith("...")
    with pytest.raises(p.BadType):
        p.error_reply("Not A Code")


def test_error_codes_table() -> None:
    required = {
        "room/not_found", "room/full", "room/not_started", "room/already_started",
        "room/not_host", "room/not_seated", "room/bad_token", "room/limit",
        "lobby/bad_options", "action/illegal", "action/unknown", "action/not_your_turn",
        "action/game_over", "action/stale_state", "rate/limited", "server/unavailable",
        "server/internal",
    }
    assert required <= set(p.ERROR_CODES)
    for code, meaning in p.ERROR_CODES.items():
        p.Error(code=code, message=meaning)  # every code is a valid wire code
        assert meaning
    for cls in vars(p).values():
        if (isinstance(cls, type) and issubclass(cls, p.ProtocolError)
                and cls is not p.ProtocolError):
            assert cls.code in p.ERROR_CODES
    assert {1000, 1001, 1009, 4000, 4001, 4002, 4008} <= set(p.CLOSE_CODES)


# --------------------------------------------------------------------------------------------
# The spec (README.md) documents everything


def test_readme_documents_every_message_field_and_code() -> None:
    for tag, cls in p.MESSAGE_TYPES.items():
        heading = re.search(rf"^###+ `{tag}`", README, re.MULTILINE)
        assert heading, f"no section for {tag}"
        section = README[heading.end():].split("\n### ", 1)[0]
        for f in dataclasses.fields(cls):
            assert f"| `{f.name}`" in section, f"{tag}.{f.name} not in its table"
    for f in dataclasses.fields(p.RoomSummary):
        assert f"| `{f.name}`" in README
    for code in p.ERROR_CODES:
        assert f"`{code}`" in README, code
    for close in p.CLOSE_CODES:
        assert f"{close}" in README, close


def test_readme_hex_example_matches_encoder() -> None:
    m = re.search(r"<!-- hex:hello -->\s*```[a-z]*\n(.*?)```", README, re.DOTALL)
    assert m, "hex dump of hello missing"
    hexdump = "".join(
        line.split("|")[0].split(":", 1)[1] for line in m.group(1).strip().splitlines()
    )
    data = bytes.fromhex(hexdump.replace(" ", ""))
    assert p.decode(data, side="client") == p.Hello(v=1, client="cardhall-py/0.1", id=1)
    assert data == p.encode(p.Hello(v=1, client="cardhall-py/0.1", id=1))


# --------------------------------------------------------------------------------------------
# Layering: the protocol package does no I/O

FORBIDDEN = ("asyncio", "websockets", "redis", "cardhall.server", "socket", "trio")


def test_protocol_imports_nothing_forbidden_ast() -> None:
    for path in PROTOCOL_DIR.glob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module or ""] if node.level == 0 else []
            else:
                continue
            for name in names:
                assert not any(name == f or name.startswith(f + ".") for f in FORBIDDEN), \
                    f"{path.name} imports {name}"


def test_protocol_imports_nothing_forbidden_runtime() -> None:
    code = (
        "import sys; import cardhall.protocol\n"
        "bad = [m for m in sys.modules\n"
        f"       if any(m == f or m.startswith(f + '.') for f in {FORBIDDEN!r})]\n"
        "print(','.join(sorted(bad)))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, timeout=60)
    assert out.stdout.strip() == ""


def test_update_frame_fast_path_matches_encode() -> None:
    parts = p.update_parts("r1", 7, [{"type": "play", "card": "5D"}])
    for kwargs in ({"view": {"state_id": 7, "hand": ["5D"]}}, {"delta": {"/seats/1/hand": 4}},
                   {"delta": {"to_act": [1]}, "re": 9}):
        fast = p.update_frame(parts, **kwargs)  # type: ignore[arg-type]
        msg = p.Update(room="r1", state_id=7, events=[{"type": "play", "card": "5D"}],
                       **kwargs)  # type: ignore[arg-type]
        assert p.decode(fast, side="server") == msg
        assert len(fast) == len(p.encode(msg))
    with pytest.raises(ValueError):
        p.update_frame(parts)


@pytest.mark.parametrize("re", [None, 0, 7, 2**31 - 1, "req-1", "x" * 64])
def test_ok_frame_is_the_encoded_ok(re: p.RequestId | None) -> None:
    assert p.ok_frame(re) == p.encode(p.Ok(re=re))
