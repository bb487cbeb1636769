"""Property and fuzz tests of cardhall.protocol.

* hypothesis: arbitrary bytes and arbitrary msgpack values (including message-shaped maps)
  never make ``decode`` raise anything but ``ProtocolError``; valid messages round-trip.
* atheris (coverage-guided, if installed): a short bounded run in a subprocess.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import msgpack
import pytest
from cardhall import protocol as p
from cardhall.protocol import codec
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

SETTINGS = settings(max_examples=200, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])
SIDES: list[p.Side] = ["client", "server"]

# --------------------------------------------------------------------------------------------
# Strategies

text = st.text(st.characters(exclude_categories=["Cs"]), max_size=20)


def s(lo: int, hi: int) -> st.SearchStrategy[str]:
    return st.text(st.characters(exclude_categories=["Cs"]), min_size=lo, max_size=hi)


ints64 = st.integers(-(2**63), 2**64 - 1)
scalars = st.one_of(st.none(), st.booleans(), ints64, st.floats(allow_nan=False), text,
                    st.binary(max_size=20))


def data(int_keys: bool) -> st.SearchStrategy[Any]:
    keys = st.one_of(text, ints64) if int_keys else text
    return st.recursive(
        scalars,
        lambda inner: st.lists(inner, max_size=4) | st.dictionaries(keys, inner, max_size=4),
        max_leaves=15,
    )


def maps(int_keys: bool) -> st.SearchStrategy[dict[Any, Any]]:
    keys = st.one_of(text, ints64) if int_keys else text
    return st.dictionaries(keys, data(int_keys), max_size=4)


rid = st.one_of(st.none(), st.integers(0, p.MAX_ID), s(0, 64))
room, game, mode = s(1, 64), s(1, 32), s(1, 32)
seat, seats = st.integers(0, 5), st.integers(1, 6)
sizes = st.lists(st.sampled_from(p.TABLE_SIZES), min_size=1, max_size=3, unique=True)
state_id = st.integers(0, p.MAX_STATE_ID)
action = st.builds(lambda verb, rest: [verb, *rest], text, st.lists(data(False), max_size=4))
summary = st.builds(
    lambda seats, taken, **kw: p.RoomSummary(seats=seats, taken=min(taken, seats), **kw),
    seats=seats, taken=st.integers(0, 6), room=room, name=s(0, 64), game=game,
    mode=st.none() | mode, status=st.sampled_from(p.ROOM_STATUSES), private=st.booleans(),
    spectators=st.integers(0, p.MAX_ID),
)
hex32 = st.from_regex(r"[0-9a-f]{32}", fullmatch=True)
hex64 = st.from_regex(r"[0-9a-f]{64}", fullmatch=True)
codes = st.sampled_from(sorted(p.ERROR_CODES)) | st.from_regex(
    r"[a-z][a-z0-9_]{0,20}/[a-z][a-z0-9_]{0,20}", fullmatch=True)

STRATEGIES: dict[str, st.SearchStrategy[Any]] = {
    "hello": st.builds(p.Hello, v=st.integers(0, 65535), client=s(1, 64), id=rid),
    "list_games": st.builds(p.ListGames, id=rid),
    "list_rooms": st.builds(p.ListRooms, game=st.none() | game, mode=st.none() | mode,
                            waiting=st.none() | st.booleans(), cursor=st.none() | s(1, 64),
                            limit=st.none() | st.integers(1, p.LIST_LIMIT_MAX), id=rid),
    "create_room": st.builds(p.CreateRoom, game=game, mode=st.none() | mode, seats=seats,
                             options=maps(False), private=st.booleans(),
                             name=st.none() | s(1, 64), id=rid),
    "join": st.one_of(st.builds(p.Join, room=room, seat=st.none() | seat, id=rid),
                      st.builds(p.Join, code=room, seat=st.none() | seat, id=rid)),
    "quick_join": st.builds(p.QuickJoin, game=game, mode=st.none() | mode,
                            seats=st.none() | seats, id=rid),
    "spectate": st.builds(p.Spectate, room=room, id=rid),
    "leave": st.builds(p.Leave, room=room, id=rid),
    "start": st.builds(p.Start, room=room, id=rid),
    "resume": st.builds(p.Resume, room=room, token=st.none() | s(1, 256), id=rid),
    "act": st.builds(p.Act, room=room, state_id=state_id, action=action, id=rid),
    "get_view": st.builds(p.GetView, room=room, id=rid),
    "get_log": st.builds(p.GetLog, room=room, first=st.none() | state_id, id=rid),
    "get_leaderboard": st.builds(p.GetLeaderboard, game=game, mode=st.none() | mode,
                                 limit=st.none() | st.integers(1, p.LEADERBOARD_LIMIT_MAX),
                                 around=st.none() | s(1, 64), id=rid),
    "ping": st.builds(p.Ping, id=rid),
    "chat": st.one_of(st.builds(p.Chat, room=room, text=s(1, p.MAX_CHAT_LEN), id=rid),
                      st.builds(p.Chat, room=room, emote=st.sampled_from(p.EMOTES), id=rid)),
    "get_replay": st.builds(p.GetReplay, room=room, state_id=state_id, seat=st.none() | seat,
                            id=rid),
    "chat_lines": st.builds(p.ChatLines, room=room, lines=st.lists(st.builds(
        lambda n, seat, name, at, said: {"n": n, "seat": seat, "name": name, "at": at, **said},
        st.integers(1, 2**53 - 1), st.none() | seat, s(1, 64),
        st.floats(0, 2e9) | st.integers(0, 2**31),
        st.builds(lambda t: {"text": t}, s(1, p.MAX_CHAT_LEN))
        | st.builds(lambda e: {"emote": e}, st.sampled_from(p.EMOTES))), max_size=3),
        history=st.none() | st.just(True)),
    "replay": st.builds(p.Replay, room=room, state_id=state_id, final=state_id,
                        seat=st.none() | seat, view=maps(True),
                        events=st.lists(maps(True), max_size=3), re=rid),
    "welcome": st.builds(p.Welcome, v=st.integers(0, 65535), server=s(1, 64),
                         session=s(1, 128), max_frame=st.integers(1, p.MAX_ID), re=rid),
    "games": st.builds(p.Games, games=st.lists(maps(False), max_size=3),
                       room_options=st.lists(maps(False), max_size=3), re=rid),
    "rooms": st.one_of(
        st.builds(p.Rooms, rooms=st.lists(summary, max_size=3).map(tuple), re=rid),
        st.builds(p.Rooms, rooms=st.lists(summary, max_size=3).map(tuple), more=st.just(True),
                  cursor=s(1, 64), re=rid)),
    "room_created": st.builds(p.RoomCreated, room=room, code=st.none() | room, re=rid),
    "joined": st.builds(p.Joined, room=room, seat=st.none() | seat,
                        token=st.none() | s(1, 256), view=maps(True), re=rid),
    "left": st.builds(p.Left, room=room, re=rid),
    "started": st.builds(p.Started, room=room, commitment=st.none() | hex64, re=rid),
    "update": st.one_of(
        st.builds(p.Update, room=room, state_id=state_id, view=maps(True),
                  events=st.lists(data(True), max_size=3), re=rid),
        st.builds(p.Update, room=room, state_id=state_id, delta=maps(True),
                  events=st.lists(data(True), max_size=3), re=rid),
    ),
    "seat_event": st.builds(p.SeatEvent, room=room, seat=seat,
                            event=st.sampled_from(p.SEAT_EVENTS)),
    "game_over": st.builds(p.GameOver, room=room, state_id=state_id, outcome=maps(True),
                           seed=st.none() | st.integers(0, 2**63 - 1),
                           salt=st.none() | hex32),
    "log": st.builds(p.Log, room=room, game=game, seats=seats, options=maps(False),
                     salt=st.none() | hex32, commitment=st.none() | hex64, state_id=state_id,
                     outcome=maps(True), first=state_id,
                     entries=st.lists(data(False), max_size=3), more=st.booleans(), re=rid),
    "leaderboard": st.builds(
        p.Leaderboard, game=game, mode=mode, order=st.sampled_from(p.BOARD_ORDERS),
        entries=st.lists(st.fixed_dictionaries({
            "rank": st.integers(1, p.MAX_ID), "name": s(1, 64),
            "score": st.integers(-2**63, 2**64 - 1)}), max_size=3),
        total=st.integers(0, p.MAX_ID),
        you=st.none() | st.fixed_dictionaries({"rank": st.integers(1, p.MAX_ID),
                                               "score": st.integers(-2**63, 2**64 - 1)}),
        re=rid),
    "ok": st.builds(p.Ok, re=rid),
    "pong": st.builds(p.Pong, re=rid),
    "error": st.builds(p.Error, code=codes, message=s(0, 100), re=rid),
    # Accounts (protocol/accounts.py).
    "guest": st.builds(p.Guest, secret=s(22, 256), id=rid),
    "register": st.builds(p.Register, username=s(1, 64), password=s(1, 1024), id=rid),
    "login": st.one_of(st.builds(p.Login, username=s(1, 64), password=s(1, 1024),
                                 device=st.none() | s(1, 512), id=rid),
                       st.builds(p.Login, jwt=s(1, 8192), id=rid)),
    "restore": st.builds(p.Restore, token=s(1, 512), id=rid),
    "refresh": st.builds(p.Refresh, token=s(1, 512), id=rid),
    "logout": st.builds(p.Logout, everywhere=st.none() | st.booleans(), id=rid),
    "set_name": st.builds(p.SetName, name=s(1, 64), id=rid),
    "get_my_games": st.builds(p.GetMyGames, cursor=st.none() | s(1, 64),
                              limit=st.none() | st.integers(1, p.MY_GAMES_LIMIT_MAX), id=rid),
    "account": st.one_of(
        st.builds(p.Account, account=s(0, 64), username=s(0, 64), name=s(1, 64),
                  guest=st.booleans(), re=rid),
        st.builds(p.Account, account=s(1, 64), username=s(1, 64), name=s(1, 64),
                  guest=st.booleans(), token=s(1, 512), refresh=s(1, 512),
                  expires=state_id, device=st.none() | s(1, 512), re=rid)),
    "signed_out": st.builds(p.SignedOut, re=rid),
    "my_games": st.builds(
        p.MyGames,
        running=st.lists(st.fixed_dictionaries({
            "room": room, "seat": seat, "name": s(0, 64), "game": game,
            "mode": st.none() | mode, "status": st.sampled_from(["waiting", "playing"]),
            "since": state_id}), max_size=2),
        finished=st.lists(st.fixed_dictionaries({
            "room": room, "seat": seat, "seats": seats, "name": s(0, 64), "game": game,
            "mode": st.none() | mode, "finished": state_id,
            "result": st.sampled_from(["won", "lost", "limit", "abandoned"]),
            "score": st.none() | st.integers(-1000, 1000)}), max_size=2),
        total=st.integers(0, p.MAX_ID), cursor=st.none() | s(1, 64), re=rid),
    # Rated play's queue (protocol/queue.py).
    "queue_join": st.builds(p.QueueJoin, game=game, mode=mode, seats=sizes, id=rid),
    "queue_leave": st.builds(p.QueueLeave, game=st.none() | game, id=rid),
    "queued": st.builds(p.Queued, game=game, mode=mode, seats=sizes,
                        rating=st.integers(-(2**31), 2**31 - 1), provisional=st.booleans(),
                        waiting=st.integers(0, p.MAX_ID), re=rid),
    "matched": st.builds(p.Matched, room=room, game=game, mode=mode,
                         seats=st.integers(2, 4), bots=st.integers(0, 3),
                         host=st.booleans(), spread=st.integers(0, 2**31 - 1)),
}
messages = st.one_of(*STRATEGIES.values())

# Message-shaped maps: a real tag, real field names, random values (reaches the validators).
FIELD_NAMES = sorted({f for cls in p.MESSAGE_TYPES.values() for f in cls._allowed} | {"x"})
shaped = st.builds(
    lambda tag, fields: {"t": tag, **fields},
    st.sampled_from(sorted(p.MESSAGE_TYPES)) | scalars,
    st.dictionaries(st.sampled_from(FIELD_NAMES), data(True), max_size=6),
)


def only_protocol_errors(raw: bytes) -> None:
    for side in SIDES:
        try:
            msg = p.decode(raw, side=side)
        except p.ProtocolError as exc:
            assert exc.code in p.ERROR_CODES
            assert isinstance(exc.message, str)
            p.error_reply(exc)  # an error can always be answered
        else:
            # Compare bytes, not values: NaN is a valid msgpack float and NaN != NaN.
            once = p.encode(msg)
            assert p.encode(p.decode(once, side=side)) == once  # whatever decodes re-encodes


# --------------------------------------------------------------------------------------------
# hypothesis


def test_strategies_cover_every_type() -> None:
    assert set(STRATEGIES) == set(p.MESSAGE_TYPES)


@SETTINGS
@given(messages)
def test_valid_messages_round_trip(msg: p.Message) -> None:
    side: p.Side = "client" if msg.TYPE in p.CLIENT_MESSAGES else "server"
    assert p.decode(p.encode(msg), side=side) == msg


@SETTINGS
@given(st.binary(max_size=300))
def test_arbitrary_bytes_raise_only_protocol_errors(raw: bytes) -> None:
    only_protocol_errors(raw)


@SETTINGS
@given(data(True))
def test_arbitrary_msgpack_values_raise_only_protocol_errors(value: Any) -> None:
    only_protocol_errors(msgpack.packb(value))


@SETTINGS
@given(shaped)
def test_message_shaped_maps_raise_only_protocol_errors(value: dict[str, Any]) -> None:
    only_protocol_errors(msgpack.packb(value))


@SETTINGS
@given(messages, st.integers(0, 200), st.integers(0, 255))
def test_mutated_valid_frames_raise_only_protocol_errors(msg: p.Message, pos: int,
                                                         byte: int) -> None:
    raw = bytearray(p.encode(msg))
    raw[pos % len(raw)] = byte
    only_protocol_errors(bytes(raw))
    only_protocol_errors(bytes(raw[: pos % len(raw)]))


# act maps near the edges of every check: a valid plain act with one field (or one action
# item) swapped for a value at or past the edge of its check.
EDGE_VALUES: list[Any] = [
    0, 1, -1, 64, 65, p.MAX_ID, p.MAX_ID + 1, p.MAX_STATE_ID, p.MAX_STATE_ID + 1,
    -(2**63), 2**64 - 1, True, False, None, 0.5, "", "r", "x" * 64,
    "x" * 65, b"", b"r", [], ["play"], [1, 2], {}, {"a": 1}, [[[[[[[[[[1]]]]]]]]]],
]
PLACES = ["room", "state_id", "id", "action", "verb", "item"]


def act_map(place: str, value: Any) -> dict[str, Any]:
    m: dict[str, Any] = {"t": "act", "room": "r1", "state_id": 3,
                         "action": ["play", "5D", 2], "id": 9}
    if place == "verb":
        m["action"][0] = value
    elif place == "item":
        m["action"][2] = value
    else:
        m[place] = value
    return m


def assert_decodes_as_the_checks_say(value: dict[str, Any]) -> None:
    """decode's quick path for ``act`` (codec._plain_act, no checks) gives exactly what the
    full checks give: the same message when they accept the map, their error when not."""
    fields = {k: v for k, v in value.items() if k != "t"}
    try:
        expected: Any = p.Act(**fields)
    except p.ProtocolError as exc:
        expected = (type(exc), exc.message)
    trusted = codec._plain_act(dict(fields))
    if trusted is not None:
        assert not isinstance(expected, tuple), f"trusted {fields!r}: {expected}"
        assert trusted == expected
    try:
        got: Any = p.decode(msgpack.packb(value), side="client")
    except p.ProtocolError as exc:
        got = (type(exc), exc.message.removeprefix("act: "))
    assert got == expected


@pytest.mark.parametrize("place", PLACES)
def test_decode_trusts_only_act_maps_the_checks_accept(place: str) -> None:
    for value in EDGE_VALUES:
        assert_decodes_as_the_checks_say(act_map(place, value))


@SETTINGS
@given(st.sampled_from(PLACES), data(False))
def test_decode_trusts_only_act_maps_the_checks_accept_fuzzed(place: str, value: Any) -> None:
    assert_decodes_as_the_checks_say(act_map(place, value))


@pytest.mark.parametrize("keys", [
    {"drop": "room"}, {"drop": "state_id"}, {"drop": "action"}, {"drop": "id"},
    {"add": "token"}, {"add": "seat"}, {"drop": "id", "add": "token"},
    {"drop": "action", "add": "id2"}])
def test_decode_trusts_only_act_maps_with_exactly_its_fields(keys: dict[str, str]) -> None:
    """The quick path looks at the keys itself (it runs before the generic key checks): a
    missing field or an unknown one is the same error as the full checks give."""
    m: dict[str, Any] = {"t": "act", "room": "r1", "state_id": 3, "action": ["play", "5D"],
                         "id": 9}
    m.pop(keys.get("drop", ""), None)
    if "add" in keys:
        m[keys["add"]] = 1
    fields = {k: v for k, v in m.items() if k != "t"}
    plain = codec._plain_act(dict(fields))
    if "add" in keys or keys.get("drop", "id") != "id":
        assert plain is None
        with pytest.raises((p.UnknownField, p.MissingField)):
            p.decode(msgpack.packb(m), side="client")
    else:
        assert plain == p.Act(**fields) == p.decode(msgpack.packb(m), side="client")


def test_decode_builds_a_plain_act_without_the_generic_checks(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The usual ``act`` frame skips the per-field checks (that is the point of the quick
    path); a frame outside the plain shape still runs them."""
    def refuse(self: Any) -> None:
        raise AssertionError("generic checks ran")

    monkeypatch.setattr(p.Act, "__post_init__", refuse)
    msg = p.decode(msgpack.packb({"t": "act", "room": "r1", "state_id": 7,
                                  "action": ["play", "5D", 2], "id": 9}), side="client")
    assert (msg.room, msg.state_id, msg.action, msg.id) == ("r1", 7, ["play", "5D", 2], 9)
    with pytest.raises(AttributeError):
        msg.room = "r2"  # type: ignore[misc]  # still a frozen message
    with pytest.raises(AssertionError, match="generic checks ran"):
        p.decode(msgpack.packb({"t": "act", "room": "r1", "state_id": 7,
                                "action": ["bid", {"n": 1}]}), side="client")


# --------------------------------------------------------------------------------------------
# atheris (coverage-guided fuzzing), bounded

ATHERIS_SCRIPT = textwrap.dedent(
    """
    import sys
    import atheris

    with atheris.instrument_imports():
        from cardhall import protocol as p

    def test_one_input(raw: bytes) -> None:
        for side in ("client", "server"):
            try:
                msg = p.decode(raw, side=side)
            except p.ProtocolError:
                continue
            # Compare bytes, not values: NaN is a valid msgpack float and NaN != NaN.
            once = p.encode(msg)
            assert p.encode(p.decode(once, side=side)) == once

    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()
    """
)


@pytest.mark.skipif(importlib.util.find_spec("atheris") is None, reason="atheris not installed")
def test_atheris_bounded_run(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    seeds: list[p.Message] = [
        p.Hello(v=1, client="c", id=1), p.Act(id="a", room="r", state_id=3, action=["x", 1]),
        p.CreateRoom(game="g", seats=2, options={"k": [1, 2.5, None]}, private=True),
        p.Join(room="r", seat=1), p.Update(room="r", state_id=1, delta={"k": {0: "AS"}},
                                           events=[{"type": "e"}]),
        p.Rooms(rooms=[p.RoomSummary(room="r", name="n", game="g", seats=2, taken=1,
                                     status="waiting")]),
        p.Error(code="room/full", message="full", re=2),
    ]
    for i, msg in enumerate(seeds):
        (corpus / f"seed{i}").write_bytes(p.encode(msg))
    script = tmp_path / "fuzz_decode.py"
    script.write_text(ATHERIS_SCRIPT)
    proc = subprocess.run(
        [sys.executable, str(script), "-seed=1", "-runs=200000", "-max_total_time=8",
         "-max_len=512",
         f"-artifact_prefix={tmp_path}/", str(corpus)],
        check=False, capture_output=True, text=True, timeout=120, cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
