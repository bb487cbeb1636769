"""Players are who they say they are (issue #29): accounts, sign-ins, names nobody else can
take, leaderboards only the server writes, My games; end to end over real servers on both
stores (``make_server`` runs each test with the memory and the Redis store).
"""

from __future__ import annotations

import asyncio
import logging
import random
import secrets
import time
from typing import Any

import pytest

from cardhall import protocol as p
from cardhall.client.bots import play_seat
from cardhall.client.client import Client, ServerError
from cardhall.games.bots import strategy
from cardhall.server.app import Server
from cardhall.server.store.redis_store import RedisStore

from ..conftest import ServerFactory

GAME_SECONDS = 120
PASSWORD = "correct horse battery"
#: Every way "alice" may be written to pass for the account alice.
LOOKALIKES = ["alice", "Alice", "ALICE", "аlice", "ａｌｉｃｅ", "alice\u200b", "a\u00adlice",
              "a1ice", "aIice"]


async def expect_error(code: str, call: Any) -> ServerError:
    """Await ``call`` and check that the server refused it with ``code``."""
    with pytest.raises(ServerError) as err:
        await call
    assert err.value.code == code, err.value
    return err.value


async def solo_game(c: Client, game: str = "thirtysix", seed: int = 1) -> dict[str, Any]:
    """Play a solo game of ``game`` to its end with the greedy bot over ``c``; returns the
    ``game_over`` outcome."""
    created = await c.create_room(game)
    await c.join(created.room)
    result = await asyncio.wait_for(
        play_seat(c, created.room, 0, strategy(game, "greedy"), random.Random(seed)),
        GAME_SECONDS)
    return dict(result.outcome)


async def settled(server: Server) -> None:
    """Wait until every room's queued work (a score's write) and the ledger are done."""
    for room in list(server.lobby.rooms.values()):
        await asyncio.wait_for(room.submit(lambda: None), 30)
    await server.ledger.flush()


# -- names ---------------------------------------------------------------------------------


async def test_a_connection_calling_itself_alice_is_not_alice(make_server: ServerFactory
                                                              ) -> None:
    """Alice registers, plays solo (on the board) and sits at a table; another connection
    calls itself Alice every way it can (its hello's client, display names, usernames that
    look like hers) and is refused each time; its own game lands on a line of its own, its
    seat shows another name, and it cannot resume Alice's seat."""
    server = await make_server()
    async with Client(server.url, username="Alice", password=PASSWORD, register=True) as alice:
        await solo_game(alice)
        table = await alice.create_room("skipper", mode="multi", seats=2)
        await alice.join(table.room)
    await settled(server)
    board = await _board(server)
    assert [(e["rank"], e["name"]) for e in board.entries] == [(1, "Alice")]
    async with Client(server.url, software="Alice", name="Alice") as mallory:
        assert mallory.name != "Alice" and mallory.name.startswith("Guest-")
        for name in LOOKALIKES:
            await expect_error("auth/name_taken", mallory.set_name(name))
            await expect_error("auth/name_taken", mallory.register(name, PASSWORD))
        await expect_error("auth/bad_credentials", mallory.login("alice", "not her password"))
        await mallory.sign_in_guest(secrets.token_urlsafe(16))
        for name in LOOKALIKES:
            await expect_error("auth/name_taken", mallory.set_name(name))
        await mallory.set_name("Mallory")
        await expect_error("room/not_seated", mallory.resume(table.room))
        await expect_error("room/bad_token", mallory.resume(table.room, "x" * 32))
        joined = await mallory.join(table.room)
        players = joined.view["room"]["players"]
        assert [pl["name"] for pl in players] == ["Alice", "Mallory"]
        await solo_game(mallory, seed=2)
    await settled(server)
    board = await _board(server)
    assert sorted(e["name"] for e in board.entries) == ["Alice", "Mallory"]
    assert board.total == 2


async def test_names_follow_the_account_a_rename_carries_board_entries(
        make_server: ServerFactory) -> None:
    server = await make_server(admin_token="t" * 24)
    async with Client(server.url, guest=secrets.token_urlsafe(16), name="Bob") as bob:
        outcome = await solo_game(bob)
        account = bob.account
    assert account is not None
    await settled(server)
    assert (await _board(server)).entries == [
        {"rank": 1, "name": "Bob", "score": outcome["scores"][0]}]
    await server.auth.rename(account.account, "Robert")
    board = await _board(server)
    assert board.entries == [{"rank": 1, "name": "Robert", "score": outcome["scores"][0]}]
    assert (await _board(server, around="robert")).entries[0]["name"] == "Robert"


# -- ways in -------------------------------------------------------------------------------


async def test_a_guest_secret_is_one_account_across_reconnects_and_processes(
        make_server: ServerFactory) -> None:
    """The same device secret is the same guest account on a new connection, after a
    dropped one, and (Redis) on another process; another secret is another account."""
    a = await make_server()
    secret = secrets.token_urlsafe(16)
    async with Client(a.url, guest=secret) as c:
        assert c.account is not None and c.account.guest
        first = c.account.account
        assert c.account.name.startswith("Guest-") and c.account.username.startswith("guest-")
        await c.drop()
        for _ in range(200):
            if c.reconnects:
                break
            await asyncio.sleep(0.05)
        assert c.reconnects == 1 and c.account.account == first
    async with Client(a.url, guest=secret) as c:
        assert c.account is not None and c.account.account == first
    async with Client(a.url, guest=secrets.token_urlsafe(16)) as c:
        assert c.account is not None and c.account.account != first
    if isinstance(a.store, RedisStore):
        b = await make_server()
        async with Client(b.url, guest=secret) as c:
            assert c.account is not None and c.account.account == first


async def test_tokens_work_on_every_process_until_logout_expiry_or_ban(
        make_server: ServerFactory) -> None:
    """An access token issued by one process signs in on another (Redis: both processes
    share the store; memory: the same process), and is refused after a logout, after it
    expired, and once its account is banned; a refresh token gives a new pair."""
    a = await make_server(auth_access_seconds=1.0)
    b = await make_server(auth_access_seconds=1.0) if isinstance(a.store, RedisStore) else a
    async with Client(a.url, username="carol", password=PASSWORD, register=True) as c:
        assert c.token is not None and c.account is not None
        token, refresh, account = c.token, c.refresh_token, c.account.account
    async with Client(b.url, token=token) as c:
        assert c.account is not None and c.account.account == account
        await c.logout()
    await expect_error("auth/expired", _restore(b, token))
    ended = Client(a.url, token=token, refresh=refresh)  # the logout ended both
    await expect_error("auth/expired", ended.connect())
    await ended.close()
    async with Client(b.url, username="carol", password=PASSWORD) as c:
        token, refresh = c.token, c.refresh_token
    assert token is not None and refresh is not None
    await asyncio.sleep(1.3)  # the access token expires; the refresh token lives on
    await expect_error("auth/expired", _restore(a, token))
    async with Client(a.url, token=token, refresh=refresh) as c:  # refreshed
        assert c.account is not None and c.account.account == account
        assert c.token not in (None, token)
        token = c.token
    await expect_error("auth/expired", _refresh(b, refresh))  # used once: void
    async with Client(b.url, token=token) as watcher:
        await a.auth.ban(account)
        for _ in range(200):
            if watcher.notices:
                break
            await asyncio.sleep(0.05)
        assert [n.code for n in watcher.notices] == ["auth/banned"]
    await expect_error("auth/expired", _restore(a, token))
    await expect_error("auth/banned", _login(b, "carol", PASSWORD))
    await a.auth.ban(account, False)
    async with Client(b.url, username="carol", password=PASSWORD) as c:
        assert c.account is not None and c.account.account == account


async def test_an_upgraded_guest_keeps_its_board_entries_and_games(
        make_server: ServerFactory) -> None:
    server = await make_server()
    secret = secrets.token_urlsafe(16)
    async with Client(server.url, guest=secret, name="Dee") as c:
        outcome = await solo_game(c)
        assert c.account is not None
        guest = c.account.account
        await settled(server)
        before = await c.my_games()
        assert [(g["game"], g["result"]) for g in before.finished] == [
            ("thirtysix", "won" if outcome.get("winner") == 0 else "lost")]
        upgraded = await c.register("dee", PASSWORD)
        assert upgraded.account == guest and not upgraded.guest
        assert (upgraded.username, upgraded.name) == ("dee", "Dee")  # her chosen name stays
    async with Client(server.url, username="DEE", password=PASSWORD) as c:
        assert c.account is not None and c.account.account == guest
        games = await c.my_games()
        assert games.finished == before.finished and games.total == 1
        board = await c.leaderboard("thirtysix")
        assert board.entries == [{"rank": 1, "name": "Dee", "score": outcome["scores"][0]}]
        assert board.you == {"rank": 1, "score": outcome["scores"][0]}
    async with Client(server.url, guest=secret) as c:  # the device is not dee's way in now
        assert c.account is not None and c.account.account != guest


async def test_the_n_plus_first_wrong_password_is_rate_limited(make_server: ServerFactory
                                                               ) -> None:
    server = await make_server(auth_login_limit="3/minute", auth_address_limit="1000/minute")
    async with Client(server.url, username="erin", password=PASSWORD, register=True):
        pass
    async with Client(server.url) as c:
        for _ in range(3):
            await expect_error("auth/bad_credentials", c.login("erin", "wrong password"))
        await expect_error("auth/rate_limited", c.login("erin", "wrong password"))
        await expect_error("auth/rate_limited", c.login("Erin", PASSWORD))  # even the right one
        await c.register("frank", PASSWORD)  # another account is not limited
    tight = await make_server(auth_address_limit="2/minute")
    async with Client(tight.url) as c:
        for _ in range(2):
            await expect_error("auth/bad_credentials", c.login("nobody", "wrong password"))
        await expect_error("auth/rate_limited", c.login("somebody", "wrong password"))


async def test_password_and_name_rules(make_server: ServerFactory) -> None:
    server = await make_server()
    async with Client(server.url) as c:
        await expect_error("auth/weak_password", c.register("gina", "short"))
        await expect_error("auth/weak_password", c.register("gina", "é" * 513))  # 1026 bytes
        for bad in ("ab", "a b c", "guest-1234", "Gυest-1234", "-gina", "x" * 33):
            await expect_error("auth/bad_name", c.register(bad, PASSWORD))
        await c.register("gina", "é" * 512)  # 1024 bytes
        await expect_error("auth/bad_name", c.set_name("\u200b\u00ad  "))
        await expect_error("auth/bad_name", c.set_name("Guest-ABC123"))


# -- seats ---------------------------------------------------------------------------------


async def test_my_games_and_resuming_a_seat_from_another_device(make_server: ServerFactory
                                                                ) -> None:
    """Hana takes a seat on her phone, leaves; on her desk (another connection, signed in
    with her password) My games lists the running seat, and ``resume`` without a token takes
    it back (the phone's connection is told it left); one account takes one seat of a table,
    unless the host allows more (room option multi_seat)."""
    server = await make_server()
    phone = Client(server.url, username="hana", password=PASSWORD, register=True)
    await phone.connect()
    created = await phone.create_room("skipper", mode="multi", seats=3)
    joined = await phone.join(created.room)
    async with Client(server.url, username="hana", password=PASSWORD) as desk:
        await expect_error("room/already_seated", desk.join(created.room))
        await server.ledger.flush()
        games = await desk.my_games()
        assert [(g["room"], g["seat"], g["status"]) for g in games.running] == [
            (created.room, joined.seat, "waiting")]
        back = await desk.resume(created.room)
        assert back.seat == joined.seat and back.token is None
        for _ in range(100):
            if created.room not in phone.seats:
                break
            await asyncio.sleep(0.05)
        assert created.room not in phone.seats  # the phone got an unsolicited left
        await desk.start(created.room)
    await phone.close()
    secret = secrets.token_urlsafe(16)  # one account, two connections (a hot seat)
    async with Client(server.url, guest=secret) as c1, Client(server.url, guest=secret) as c2:
        room = await c1.create_room("skipper", mode="multi", seats=2,
                                    options={"multi_seat": True})
        await c1.join(room.room)
        assert (await c2.join(room.room)).seat == 1


async def test_finished_games_page_newest_first(make_server: ServerFactory) -> None:
    server = await make_server()
    async with Client(server.url) as anonymous:
        await expect_error("auth/required", anonymous.my_games())
    async with Client(server.url, guest=secrets.token_urlsafe(16)) as c:
        for seed in (1, 2, 3):
            await solo_game(c, "shufflejack", seed)
        await settled(server)
        first = await c.my_games(limit=2)
        assert first.total == 3 and len(first.finished) == 2 and first.cursor is not None
        rest = await c.my_games(cursor=first.cursor, limit=2)
        assert len(rest.finished) == 1 and rest.cursor is None and rest.running == []
        ordered = [g["finished"] for g in [*first.finished, *rest.finished]]
        assert ordered == sorted(ordered, reverse=True)
        assert {g["game"] for g in first.finished} == {"shufflejack"}


# -- old clients, required accounts ----------------------------------------------------------


async def test_an_old_client_plays_as_a_guest_unless_accounts_are_required(
        make_server: ServerFactory) -> None:
    open_server = await make_server()
    async with Client(open_server.url, software="rawbot/0.1") as old:
        assert old.account is None
        outcome = await solo_game(old)
        assert outcome["scores"]
    await settled(open_server)
    assert (await _board(open_server)).total == 0  # rawbot/0.1 tops no board
    strict = await make_server(auth="required")
    async with Client(strict.url, software="rawbot/0.1") as old:
        await old.list_games()
        await old.leaderboard("thirtysix")
        await expect_error("auth/required", old.create_room("thirtysix"))
        await expect_error("auth/required", old.quick_join("thirtysix"))
        await expect_error("auth/required", old.set_name("Rawbot"))
        await old.sign_in_guest(secrets.token_urlsafe(16))
        assert (await old.create_room("thirtysix")).room


# -- operators' identity provider ----------------------------------------------------------


def _rsa() -> tuple[Any, bytes]:
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    public = key.public_key().public_bytes(serialization.Encoding.PEM,
                                           serialization.PublicFormat.SubjectPublicKeyInfo)
    return key, public


def _jwt(key: Any, headers: dict[str, Any] | None = None, **claims: Any) -> str:
    """An RS256 JWT signed with ``key``: a valid one of the test's identity provider, with
    ``claims`` changed (a claim given None is left out)."""
    import jwt

    now = int(time.time())
    body = {"iss": "https://id.example", "aud": "cardhall", "sub": "user-42", "iat": now,
            "exp": now + 300, "preferred_username": "ivy", "name": "Ivy", **claims}
    body = {k: v for k, v in body.items() if v is not None}
    return str(jwt.encode(body, key, algorithm="RS256", headers=headers))


async def test_operator_jwts_are_accepted_when_valid_and_refused_otherwise(
        make_server: ServerFactory, tmp_path: Any) -> None:
    import base64
    import json

    key, public = _rsa()
    other, _ = _rsa()
    (tmp_path / "idp.pem").write_bytes(public)
    server = await make_server(auth_jwt_key=str(tmp_path / "idp.pem"),
                               auth_issuer="https://id.example", auth_audience="cardhall")
    async with Client(server.url, jwt=_jwt(key)) as c:
        assert c.account is not None and (c.account.username, c.account.name) == ("ivy", "Ivy")
        ivy = c.account.account
    async with Client(server.url, jwt=_jwt(key, name="Someone Else")) as c:  # same subject
        assert c.account is not None and c.account.account == ivy

    def unsigned(**claims: Any) -> str:
        def part(obj: dict[str, Any]) -> str:
            return base64.urlsafe_b64encode(json.dumps(obj).encode()).rstrip(b"=").decode()
        now = int(time.time())
        body = {"iss": "https://id.example", "aud": "cardhall", "sub": "user-42", "iat": now,
                "exp": now + 300, **claims}
        return f"{part({'alg': 'none', 'typ': 'JWT'})}.{part(body)}."

    async with Client(server.url) as c:
        tampered = _jwt(key)[:-4] + ("AAAA" if not _jwt(key).endswith("AAAA") else "BBBB")
        for token in (unsigned(), _jwt(other), _jwt(key, iss="https://evil.example"),
                      _jwt(key, aud="another-app"), _jwt(key, sub=None), _jwt(key, exp=None),
                      tampered):
            await expect_error("auth/bad_credentials", c.login_jwt(token))
        expired = _jwt(key, exp=int(time.time()) - 120, iat=int(time.time()) - 600)
        await expect_error("auth/expired", c.login_jwt(expired))
        await expect_error("auth/bad_credentials", c.login_jwt("not.a.jwt"))
    plain = await make_server()  # no operator key: JWTs are refused
    async with Client(plain.url) as c:
        await expect_error("auth/bad_credentials", c.login_jwt(_jwt(key)))


async def test_operator_jwks_picks_the_key_by_kid(make_server: ServerFactory,
                                                  tmp_path: Any) -> None:
    import json

    import jwt

    key, _ = _rsa()
    other, _ = _rsa()
    jwk = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(key.public_key()))
    jwk2 = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(other.public_key()))
    (tmp_path / "jwks.json").write_text(json.dumps(
        {"keys": [{**jwk, "kid": "k1", "use": "sig"}, {**jwk2, "kid": "k2", "use": "sig"}]}))
    server = await make_server(auth_jwks=str(tmp_path / "jwks.json"),
                               auth_issuer="https://id.example", auth_audience="cardhall")
    async with Client(server.url) as c:
        june = await c.login_jwt(_jwt(other, headers={"kid": "k2"}, sub="s2",
                                      preferred_username="june"))
        assert june.username == "june"
        await expect_error("auth/bad_credentials",
                           c.login_jwt(_jwt(key, headers={"kid": "k2"})))  # not k2's
        await expect_error("auth/bad_credentials",
                           c.login_jwt(_jwt(key, headers={"kid": "k9"})))


# -- operators -------------------------------------------------------------------------------


async def test_secrets_never_reach_a_log_line(make_server: ServerFactory,
                                              caplog: pytest.LogCaptureFixture) -> None:
    from cardhall.server.logs import formatter

    caplog.set_level(logging.DEBUG)
    server = await make_server()
    secret = secrets.token_urlsafe(16)
    async with Client(server.url, guest=secret, name="Kay") as c:
        await c.register("kay", PASSWORD)
        token, refresh = c.token, c.refresh_token
        await expect_error("auth/bad_credentials", c.login("kay", "typo" + PASSWORD))
        await c.logout()
    assert token is not None and refresh is not None
    await expect_error("auth/expired", _restore(server, token))
    await expect_error("auth/expired", _refresh(server, refresh))
    await expect_error("auth/bad_credentials", _restore(server, PASSWORD))
    served = [r for r in caplog.records  # the server's (the client library logs its own)
              if r.name.startswith("cardhall.") and not r.name.startswith("cardhall.client")]
    lines = "\n".join(formatter("kv").format(r) for r in served)
    assert "signed_in" in lines and "sign_in_refused" in lines
    for needle in (secret, PASSWORD, token, refresh, "typo"):
        assert needle is not None and needle not in lines
    metrics = server.metrics.render().decode()
    assert 'cardhall_sign_ins_total{result="ok",way="register"}' in metrics
    for needle in (secret, PASSWORD, "kay"):
        assert needle not in metrics


# -- helpers ---------------------------------------------------------------------------------


async def _board(server: Server, **kw: Any) -> p.Leaderboard:
    async with Client(server.url) as c:
        return await c.leaderboard("thirtysix", **kw)


async def _restore(server: Server, token: str) -> p.Message:
    async with Client(server.url) as c:
        return await c.request(p.Restore(token=token))


async def _refresh(server: Server, token: str) -> p.Message:
    async with Client(server.url) as c:
        return await c.request(p.Refresh(token=token))


async def _login(server: Server, username: str, password: str,
                 device: str | None = None) -> p.Message:
    async with Client(server.url) as c:
        remembered = {"device": device} if device is not None else {}
        return await c.request(p.Login(username=username, password=password, **remembered))



# -- bots --------------------------------------------------------------------------------------


async def test_bots_sign_in_as_a_guest_each_or_with_a_token(make_server: ServerFactory
                                                            ) -> None:
    from cardhall.client.bots import play_games

    server = await make_server()
    await play_games([server.url], "skipper", "multi", 3, 2, "greedy", seed=1, timeout=120)
    await server.ledger.flush()
    guests = [a for a in await server.accounts.page("", 100) if a.guest]
    assert len(guests) == 3  # one per bot, the same for both games
    for guest in guests:
        assert (await server.accounts.games(guest.id, 0, 10))[1] == 2
    async with Client(server.url, username="owner", password=PASSWORD, register=True) as c:
        token, owner = c.token, c.account
    assert owner is not None
    await play_games([server.url], "skipper", "multi", 2, 1, "greedy", seed=2, timeout=120,
                     token=token, options={"multi_seat": True})
    await server.ledger.flush()
    games, total = await server.accounts.games(owner.account, 0, 10)
    assert total == 2 and sorted(g["seat"] for g in games) == [0, 1]


# -- cardhall play -----------------------------------------------------------------------------


def _play_twice(url: str, state: str) -> None:
    """``cardhall play --register zoe`` then a plain ``cardhall play`` with the same state
    folder (a person in a pty each time)."""
    from ..client.test_terminal import LOBBY, Person

    with Person(url, "Zoe", "--register", "zoe", state_dir=state,
                env={"CARDHALL_PASSWORD": PASSWORD}) as person:
        person.expect(LOBBY)
    with Person(url, "Zoe", state_dir=state) as person:
        person.expect(LOBBY)
        person.say("q")


async def test_cardhall_play_registers_and_keeps_its_session_0600(
        make_server: ServerFactory, tmp_path: Any) -> None:
    """``cardhall play --register`` upgrades the computer's guest to ``zoe`` and keeps the
    session in ``account.json`` (mode 0600) beside the seat tokens; the next ``cardhall
    play`` signs in with it (no password), as zoe."""
    import json
    import stat

    server = await make_server()
    await asyncio.to_thread(_play_twice, server.url, str(tmp_path))
    kept = tmp_path / "cardhall" / "account.json"
    assert stat.S_IMODE(kept.stat().st_mode) == 0o600
    entry = json.loads(kept.read_text())["servers"][server.url]
    assert entry["username"] == "zoe" and entry["token"].startswith("chs1.")
    assert PASSWORD not in kept.read_text()
    found = await server.accounts.lookup("user", "zoe")
    assert found == entry["account"]
    account = await server.accounts.get(found)
    assert account is not None and account.name == "Zoe" and not account.guest
    assert [a.username for a in await server.accounts.page("", 10)] == ["zoe"]  # no guest
    metrics = server.metrics.render().decode()
    assert 'cardhall_sign_ins_total{result="ok",way="guest"} 1.0' in metrics  # once only
    assert 'cardhall_sign_ins_total{result="ok",way="restore"} 2.0' in metrics  # each play


async def test_registered_accounts_have_room_allowances_of_their_own(
        make_server: ServerFactory) -> None:
    """``rooms_per_minute_per_address`` counts per registered account (players behind one
    address, a school's say, each have theirs); guests and anonymous players spend their
    address's."""
    server = await make_server(rooms_per_minute_per_address=2, rooms_per_minute=None)
    for name in ("uma", "vic"):
        async with Client(server.url, username=name, password=PASSWORD, register=True) as c:
            for _ in range(2):
                await c.create_room("shop")
            await expect_error("room/limit", c.create_room("shop"))
    async with Client(server.url, guest=secrets.token_urlsafe(16)) as g, \
            Client(server.url) as anonymous:
        await g.create_room("shop")
        await anonymous.create_room("shop")
        await expect_error("room/limit", g.create_room("shop"))


async def test_the_sqlite_account_store_serves_a_server(tmp_path: Any) -> None:
    """The SQLite account store (the durable embedded store's tables) behind a server: a
    guest registers, plays, and its session, games and board entry are in the file."""
    import sqlite3

    from cardhall.server.accounts.account_sqlite import SQLiteAccounts, create_tables, plain
    from cardhall.server.config import Settings
    from cardhall.server.store.memory_store import MemoryStore

    from ..conftest import TEST_SETTINGS

    db = sqlite3.connect(tmp_path / "accounts.db", isolation_level=None)
    create_tables(db)
    server = Server(Settings(host="127.0.0.1", port=0, **TEST_SETTINGS), MemoryStore(),
                    SQLiteAccounts(*plain(db)))
    async with server:
        async with Client(server.url, guest=secrets.token_urlsafe(16), name="Quinn") as c:
            await c.register("quinn", PASSWORD)
            outcome = await solo_game(c)
            token = c.token
        await settled(server)
        async with Client(server.url, token=token) as c:
            assert c.account is not None and c.account.username == "quinn"
            assert (await c.my_games()).total == 1
        assert (await _board(server)).entries == [
            {"rank": 1, "name": "Quinn", "score": outcome["scores"][0]}]
    (count,) = db.execute("SELECT count(*) FROM account_tokens").fetchone()
    assert count >= 2
    db.close()


# -- the failed-login limit under concurrency, remembered devices (issue #41) ------------------


def _count_verifications(server: Server) -> list[int]:
    """Wrap the server's password verifier; the list's one item counts its calls."""
    calls = [0]
    verify = server.auth.verify_password

    async def counted(hashed: str, password: str) -> bool:
        calls[0] += 1
        return await verify(hashed, password)

    server.auth.verify_password = counted  # type: ignore[method-assign]
    return calls


async def test_sixty_wrong_logins_at_once_from_sixty_addresses_check_at_most_ten(
        make_server: ServerFactory) -> None:
    """Issue #41, item 2: the account's attempt is reserved before its password is hashed,
    so 60 wrong logins sent at once, each from an address of its own (the per-address limit
    never bites), check at most 10 passwords (``auth_login_limit`` 10/5 minutes); every
    other one is refused as ``auth/rate_limited`` without a hash."""
    from cardhall.server.accounts.identity import AuthError

    server = await make_server()
    async with Client(server.url, username="olga", password=PASSWORD, register=True):
        pass
    calls = _count_verifications(server)

    async def guess(k: int) -> str:
        try:
            await server.auth.login("olga", f"guess number {k}", f"198.51.100.{k + 1}")
        except AuthError as exc:
            return exc.code
        return "ok"

    codes = await asyncio.gather(*(guess(k) for k in range(60)))
    assert calls[0] <= 10, f"{calls[0]} passwords checked"
    assert codes.count("auth/bad_credentials") == calls[0]
    assert codes.count("auth/rate_limited") == 60 - calls[0]


async def test_a_remembered_device_signs_its_owner_in_past_a_guessers_lockout(
        make_server: ServerFactory) -> None:
    """Issue #41, item 3 (OWASP's device cookies): ten wrong guesses from elsewhere lock out
    new devices only. The owner's device, given a remembered-device token at its sign-in,
    still signs in with it (a new token replaces it); a login without one is refused; the
    owner's live connection is not kicked, and its refresh token still trades for a pair. A
    device token is no master key: it is the account's only (another account's is ignored),
    and wrong passwords sent with it are limited per device."""
    server = await make_server(auth_login_limit="10/5 minutes",
                               auth_address_limit="1000/minute")
    owner = Client(server.url, username="pia", password=PASSWORD, register=True)
    await owner.connect()
    assert owner.account is not None and owner.account.device is not None
    device, refresh = owner.account.device, owner.refresh_token
    assert device.startswith("chd1.") and refresh is not None
    async with Client(server.url, username="quentin", password=PASSWORD, register=True) as q:
        assert q.account is not None
        other_device = q.account.device
    async with Client(server.url) as guesser:
        for k in range(10):
            await expect_error("auth/bad_credentials", guesser.login("pia", f"guess {k}"))
        await expect_error("auth/rate_limited", guesser.login("pia", "guess 11"))
    await expect_error("auth/rate_limited", _login(server, "pia", PASSWORD))  # a new device
    await expect_error("auth/rate_limited", _login(server, "pia", PASSWORD, other_device))
    async with Client(server.url, username="pia", password=PASSWORD, device=device) as again:
        assert again.account is not None and again.account.username == "pia"
        renewed = again.account.device
    assert renewed is not None and renewed != device
    await expect_error("auth/rate_limited", _login(server, "pia", PASSWORD, device))  # used
    assert (await owner.my_games()).total == 0  # the live sign-in was not kicked
    assert owner.account is not None
    pair = await _refresh(server, refresh)
    assert isinstance(pair, p.Account) and pair.token is not None
    for k in range(10):
        await expect_error("auth/bad_credentials",
                           _login(server, "pia", f"stolen {k}", renewed))
    await expect_error("auth/rate_limited", _login(server, "pia", PASSWORD, renewed))
    await owner.close()


# -- operators' identity provider: names (issue #41) --------------------------------------------


async def test_an_operator_jwt_without_names_is_named_by_the_one_rule(
        make_server: ServerFactory, tmp_path: Any) -> None:
    """Issue #41, item 7: a JWT naming neither ``preferred_username`` nor ``name`` makes an
    account named as every unnamed one is (its generated username ``user-TAG`` is its
    display name), not "x"; a second one follows the same rule, and a claimed name that
    is taken falls back the same way."""
    key, public = _rsa()
    (tmp_path / "idp.pem").write_bytes(public)
    server = await make_server(auth_jwt_key=str(tmp_path / "idp.pem"),
                               auth_issuer="https://id.example", auth_audience="cardhall")
    made = []
    async with Client(server.url) as c:
        for sub, claims in (("s1", {}), ("s2", {}), ("s3", {"name": "Ivy"}),
                            ("s4", {"name": "Ivy"})):
            made.append(await c.login_jwt(_jwt(key, sub=sub, **{
                "preferred_username": None, "name": None, **claims})))
    assert made[2].name == "Ivy"
    for account in (made[0], made[1], made[3]):
        assert account.username.startswith("user-"), account
        assert account.name == account.username, account
    assert len({a.name for a in made}) == 4


async def test_cardhall_play_keeps_its_remembered_device_token_in_its_account_file(
        make_server: ServerFactory, tmp_path: Any) -> None:
    """Issue #41, item 3: ``cardhall play --register`` keeps the remembered-device token in
    ``account.json``; after ten wrong guesses from elsewhere, its ``--login`` (the token
    sent) signs in, where the same login from another computer's file is refused."""
    from cardhall.client.account_file import AccountFile, sign_in_options

    server = await make_server()
    mine, theirs = AccountFile(tmp_path / "mine.json"), AccountFile(tmp_path / "theirs.json")
    await sign_in_options(server.url, register="rae", password=PASSWORD, file=mine)
    assert mine.get(server.url)["device"].startswith("chd1.")
    async with Client(server.url) as guesser:
        for k in range(10):
            await expect_error("auth/bad_credentials", guesser.login("rae", f"guess {k}"))
    await expect_error("auth/rate_limited", sign_in_options(
        server.url, login="rae", password=PASSWORD, file=theirs))
    kept = mine.get(server.url)["device"]
    options = await sign_in_options(server.url, login="Rae", password=PASSWORD, file=mine)
    assert options["token"] and mine.get(server.url)["device"] not in (None, kept)
