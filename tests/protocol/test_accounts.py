"""Tests of the account messages' own checks (``cardhall.protocol.accounts``): one way into
``login``, tokens that come together, and the shape of ``my_games`` entries."""

from __future__ import annotations

from typing import Any

import msgpack
import pytest
from cardhall import protocol as p
from cardhall.protocol import accounts as A

RUNNING = {"room": "r1", "seat": 0, "name": "Skipper r1", "game": "skipper", "mode": None,
           "status": "waiting", "since": 1_800_000_000}
FINISHED = {"room": "r0", "seat": 1, "seats": 4, "name": "", "game": "skipper",
            "mode": "multi", "finished": 1_800_000_000, "result": "abandoned", "score": -3}


@pytest.mark.parametrize("fields", [
    {}, {"username": "alice"}, {"password": "pw"},
    {"username": "alice", "password": "pw", "jwt": "a.b.c"}, {"jwt": "a.b.c", "password": "pw"},
    {"jwt": "a.b.c", "device": "chd1.a.b"}, {"device": "chd1.a.b"},
])
def test_login_takes_exactly_one_way_in(fields: dict[str, str]) -> None:
    """Username with password (and a remembered-device token, or none), or a JWT alone;
    anything else is BadValue, built or decoded."""
    with pytest.raises(p.BadValue):
        p.Login(**fields)
    with pytest.raises(p.BadValue):
        p.decode(msgpack.packb({"t": "login", "id": 4, **fields}), side="client")


def test_account_tokens_come_together() -> None:
    """``token``, ``refresh`` and ``expires`` are all given or none is."""
    assert p.Account(account="", username="", name="Zoe", guest=True).token is None
    with pytest.raises(p.BadValue, match="come together"):
        p.Account(account="a1", username="alice", name="Alice", token="t", refresh="r")
    with pytest.raises(p.BadValue, match="come together"):
        p.Account(account="a1", username="alice", name="Alice", expires=5)


@pytest.mark.parametrize("secret, ok", [
    ("s" * (A.MIN_SECRET_LEN - 1), False), ("s" * A.MIN_SECRET_LEN, True),
    ("s" * A.MAX_SECRET_LEN, True), ("s" * (A.MAX_SECRET_LEN + 1), False),
])
def test_a_guest_secret_has_the_documented_length(secret: str, ok: bool) -> None:
    """22..256 characters (128 random bits at least, written out)."""
    if ok:
        assert p.Guest(secret=secret).secret == secret
    else:
        with pytest.raises(p.BadValue):
            p.Guest(secret=secret)


def test_get_my_games_limit_is_bounded() -> None:
    """1..MY_GAMES_LIMIT_MAX finished games a page."""
    assert p.GetMyGames(limit=A.MY_GAMES_LIMIT_MAX).limit == 50
    for bad in (0, A.MY_GAMES_LIMIT_MAX + 1):
        with pytest.raises(p.BadValue):
            p.GetMyGames(limit=bad)


def test_my_games_entries_round_trip() -> None:
    """A null mode and score, an empty room name and each result are valid."""
    for result in A.RESULTS:
        msg = p.MyGames(running=[RUNNING], finished=[{**FINISHED, "result": result}], total=1)
        assert p.decode(p.encode(msg), side="server") == msg


@pytest.mark.parametrize("running, finished, cls", [
    ([{**RUNNING, "extra": 1}], [], p.BadValue),
    ([{k: v for k, v in RUNNING.items() if k != "since"}], [], p.BadValue),
    ([RUNNING], [{**FINISHED, "result": "draw"}], p.BadValue),
    ([], [{**FINISHED, "seats": 0}], p.BadValue),
    ([{**RUNNING, "seat": "0"}], [], p.BadType),
    ([["r1", 0]], [], p.BadType),
    ({"room": "r1"}, [], p.BadType),
    ([{**RUNNING, "status": ""}], [], p.BadValue),
])
def test_my_games_entries_are_checked(running: Any, finished: Any,
                                      cls: type[p.ProtocolError]) -> None:
    """Exactly the documented keys, each of its kind: a bad entry is the server's bug and
    the client refuses it with the error naming the entry."""
    with pytest.raises(cls):
        p.MyGames(running=running, finished=finished)
