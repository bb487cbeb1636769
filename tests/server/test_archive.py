"""The games archive (issue #44 item 2, "match history that lasts"): a finished game's record
outlives the lobby's listing (``--finished-ttl``), so its players' ``get_log``,
``get_replay`` and ``cardhall verify`` still answer after the room was removed, and after a
restart (SQLite); ``--history-days`` prunes it, an operator purges it, and a private game
stays private (an outsider is answered as about a missing room).

On the old code every read after the removal answers ``room/not_found``.
"""

from __future__ import annotations

import asyncio
import dataclasses
import time
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from cardhall import protocol as p
from cardhall.cli.play import verify
from cardhall.client.client import Client, ServerError
from cardhall.server import archive
from cardhall.server.app import Server
from cardhall.server.config import Settings
from cardhall.server.store.sqlite_store import SQLiteStore

from ..conftest import TEST_SETTINGS, ServerFactory
from .test_visibility import MISSING, answer, wait_status

A, B, C = "a" * 32, "b" * 32, "c" * 32


async def play_out(server: Server, *, private: bool) -> str:
    """A 2-seat Skipper multi game of guest accounts ``A`` (seat 0) and ``B`` (seat 1),
    resigned by ``A``; returns the room id once the lobby removed it (``finished_ttl``)."""
    async with Client(server.url, guest=A) as host, Client(server.url, guest=B) as guest:
        created = await host.create_room("skipper", mode="multi", seats=2, private=private)
        room = created.room
        if private:
            assert created.code is not None
            await host.join(code=created.code)
            await guest.join(code=created.code)
        else:
            await host.join(room)
            await guest.join(room)
        await wait_status(host, room, "playing")
        await host.act(room, ["resign"])
        await wait_status(guest, room, "finished")
    await removed(server, room)
    return room


async def removed(server: Server, room: str, seconds: float = 10.0) -> None:
    """Wait until ``room`` is neither run by ``server`` nor held by its store."""
    for _ in range(int(seconds / 0.02)):
        if room not in server.lobby.rooms and await server.store.load(room) is None:
            return
        await asyncio.sleep(0.02)
    raise AssertionError(f"room {room} was not removed in {seconds} s")


async def test_a_finished_game_outlives_its_listing(make_server: ServerFactory) -> None:
    """Past ``finished_ttl`` (the room gone from the lobby and the store), its players read
    the log (seed, salt, commitment, every entry) and the replays, public and their own
    seat's, from new connections (``cardhall verify``: the next test)."""
    server = await make_server(finished_ttl=0.05)
    room = await play_out(server, private=False)
    async with Client(server.url, guest=B) as player, Client(server.url) as anyone:
        log = await player.fetch_log(room)
        assert log.room == room and log.game == "skipper" and log.seats == 2
        assert log.commitment and log.salt and log.outcome and log.entries
        final = log.state_id
        assert (await player.replay(room, final, seat=1)).view["room"]["status"] == "finished"
        assert (await anyone.replay(room, 0)).final == final  # a public game: anyone
        with pytest.raises(ServerError) as err:
            await anyone.replay(room, 0, seat=0)
        assert err.value.code == "room/not_seated"
        end = await anyone.replay(room, final)
        assert end.view["room"]["commitment"] == log.commitment


async def test_cardhall_verify_reads_the_archive(make_server: ServerFactory) -> None:
    """``cardhall verify --url --room`` of a game the lobby removed: "deal verified"."""
    server = await make_server(finished_ttl=0.05)
    room = await play_out(server, private=False)
    result = await asyncio.to_thread(CliRunner().invoke, verify,
                                     ["--url", server.url, "--room", room])
    assert result.exit_code == 0, result.output
    assert "deal verified" in result.output


async def test_cardhall_verify_of_a_private_game_signs_in_as_the_player(
        make_server: ServerFactory, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A private game after its removal: anonymous, ``cardhall verify`` gets
    ``room/not_found``; on the computer whose ``cardhall play`` account held a seat, it asks
    again signed in to that account (its kept sign-in) and verifies the deal."""
    from cardhall.client.account_file import AccountFile

    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    server = await make_server(finished_ttl=0.05, lookup_limit=None)
    room = await play_out(server, private=True)
    args = ["--url", server.url, "--room", room]
    result = await asyncio.to_thread(CliRunner().invoke, verify, args)
    assert result.exit_code == 1 and "room/not_found" in result.output, result.output
    AccountFile().put(server.url, guest=B)
    result = await asyncio.to_thread(CliRunner().invoke, verify, args)
    assert result.exit_code == 0, result.output
    assert "deal verified" in result.output


async def test_a_private_archived_game_stays_private(make_server: ServerFactory) -> None:
    """Past ``finished_ttl``, the seats' accounts read their private game; another account
    and an anonymous connection get word for word the answer about a missing room."""
    server = await make_server(finished_ttl=0.05, lookup_limit=None)
    room = await play_out(server, private=True)
    async with Client(server.url, guest=A) as host, Client(server.url, guest=C) as stranger, \
            Client(server.url) as nobody:
        assert (await host.fetch_log(room)).room == room
        assert (await host.replay(room, 1, seat=0)).seat == 0
        with pytest.raises(ServerError) as err:
            await host.replay(room, 1, seat=1)
        assert err.value.code == "room/not_seated"
        for outsider in (stranger, nobody):
            for request in (p.GetLog(room=room), p.GetReplay(room=room, state_id=0),
                            p.GetReplay(room=room, state_id=0, seat=0)):
                got = await answer(outsider, request)
                assert got == await answer(outsider, dataclasses.replace(request, room=MISSING))
                assert got[0] == "room/not_found"


async def test_the_archive_survives_a_restart(tmp_path: Path) -> None:
    """SQLite: a game finished and removed before a restart is read after it."""
    path = tmp_path / "data.db"
    settings = Settings(host="127.0.0.1", port=0, finished_ttl=0.05, **TEST_SETTINGS)
    first = Server(settings, SQLiteStore(path, commit="tick"))
    await first.start()
    try:
        room = await play_out(first, private=True)
    finally:
        await first.stop()
    second = Server(settings, SQLiteStore(path, commit="tick"))
    await second.start()
    try:
        async with Client(second.url, guest=B) as player:
            log = await player.fetch_log(room)
            assert log.room == room and log.entries
            assert (await player.replay(room, log.state_id, seat=1)).final == log.state_id
    finally:
        await second.stop()


async def test_history_days_prunes_and_an_operator_purges(make_server: ServerFactory) -> None:
    """Games finished more than ``history_days`` ago are pruned (then answered as missing);
    an operator's purge removes one game at once."""
    server = await make_server(finished_ttl=0.05, history_days=1.0)
    old = await play_out(server, private=False)
    kept = await play_out(server, private=False)
    assert await server.store.archived(old) is not None
    assert await archive.prune(server.store, 1.0, now=time.time() + 0.5 * 86_400) == 0
    record = await server.store.archived(old)
    assert record is not None
    # the old game finished two days before "now"
    pruned = await archive.prune(server.store, 1.0, now=record["finished_at"] + 2 * 86_400)
    assert pruned == 2
    async with Client(server.url) as c:
        with pytest.raises(ServerError) as err:
            await c.fetch_log(old)
        assert err.value.code == "room/not_found"
    again = await play_out(server, private=False)
    assert await server.store.purge_archived([again, MISSING]) == 1
    assert await server.store.archived(again) is None
    assert kept != again


async def test_a_game_not_kept_stays_missing(make_server: ServerFactory) -> None:
    """Reading the archive of a room never archived answers ``room/not_found``."""
    server = await make_server()
    async with Client(server.url) as c:
        for request in (p.GetLog(room=MISSING), p.GetReplay(room=MISSING, state_id=0)):
            got: Any = await answer(c, request)
            assert got[0] == "room/not_found"


async def test_the_pruner_runs_at_start_and_then_every_period() -> None:
    """``history_days`` set: the server's pruner forgets the old games at once, then again
    every period; without it, no task runs."""
    from cardhall.server.store.memory_store import MemoryStore

    store = MemoryStore()
    old = {"room": "r1", "finished_at": time.time() - 3 * archive.DAY}
    await store.archive_game("r1", old)
    idle = archive.Pruner(store, None)
    idle.start()
    await idle.close()  # nothing ran
    pruner = archive.Pruner(store, 2.0, every=0.02)
    pruner.start()
    try:
        for _ in range(100):
            if not store.games:
                break
            await asyncio.sleep(0.01)
        assert store.games == {}
        await store.archive_game("r2", {**old, "room": "r2"})
        for _ in range(100):
            if not store.games:
                break
            await asyncio.sleep(0.01)
        assert store.games == {}
    finally:
        await pruner.close()
