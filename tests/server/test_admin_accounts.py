"""Operators and accounts (issue #29, item 6): the admin API's account endpoints
(server/admin_accounts.py) and the ``cardhall admin`` commands (cli/admin.py):
list and find accounts, ban (closing the account's connections on every process) and unban,
rename, revoke sign-ins; on both stores."""

from __future__ import annotations

import asyncio
import json
import urllib.error
import urllib.request
from typing import Any

import pytest

from cardhall.client.client import Client, ServerError
from cardhall.server.app import Server
from cardhall.server.store.redis_store import RedisStore

from ..conftest import ServerFactory, run_cli

TOKEN = "admin-token-of-the-tests-0123456789"
PASSWORD = "correct horse battery"


def http(server: Server, method: str, path: str) -> tuple[int, dict[str, Any]]:
    """One admin API request (blocking: run it in a thread)."""
    url = f"http://127.0.0.1:{server.port}{path}"
    request = urllib.request.Request(url, method=method,
                                      headers={"Authorization": f"Bearer {TOKEN}"})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


async def api(server: Server, method: str, path: str) -> tuple[int, dict[str, Any]]:
    return await asyncio.to_thread(http, server, method, path)


async def closed(client: Client) -> list[str]:
    """Wait until ``client`` got an unsolicited error; the codes it got."""
    for _ in range(200):
        if client.notices:
            break
        await asyncio.sleep(0.05)
    return [n.code for n in client.notices]


async def test_list_find_ban_unban_rename_revoke(make_server: ServerFactory) -> None:
    a = await make_server(admin_token=TOKEN)
    b = await make_server(admin_token=TOKEN) if isinstance(a.store, RedisStore) else a
    for name in ("ann", "anna", "bob"):
        async with Client(a.url, username=name, password=PASSWORD, register=True):
            pass
    status, page = await api(a, "GET", "/admin/accounts?find=AN&limit=500")
    assert status == 200 and [x["username"] for x in page["accounts"]] == ["ann", "anna"]
    assert page["after"] is None
    assert set(page["accounts"][0]) == {"account", "username", "name", "created", "status",
                                        "guest", "external"}  # never a hash
    status, page = await api(a, "GET", "/admin/accounts?limit=2")
    assert [x["username"] for x in page["accounts"]] == ["ann", "anna"] and page["after"]
    status, one = await api(a, "GET", "/admin/accounts/bob")
    assert status == 200 and one["username"] == "bob" and one["status"] == "active"
    bob = one["account"]
    assert (await api(a, "GET", f"/admin/accounts/{bob}"))[1]["username"] == "bob"
    assert (await api(a, "GET", "/admin/accounts/nobody"))[0] == 404
    assert (await api(a, "GET", "/admin/accounts/bob/ban"))[0] == 405

    async with Client(b.url, username="bob", password=PASSWORD, reconnect=False) as c:
        status, banned = await api(a, "POST", "/admin/accounts/bob/ban")  # another process
        assert status == 200 and banned["status"] == "banned"
        assert await closed(c) == ["auth/banned"]
    with pytest.raises(ServerError) as err:
        async with Client(b.url, username="bob", password=PASSWORD):
            pass
    assert err.value.code == "auth/banned"
    assert (await api(a, "POST", "/admin/accounts/bob/unban"))[1]["status"] == "active"

    async with Client(b.url, username="bob", password=PASSWORD, reconnect=False) as c:
        status, renamed = await api(a, "POST", "/admin/accounts/bob/rename?name=Robert")
        assert status == 200 and renamed["name"] == "Robert"
        assert (await api(a, "POST", "/admin/accounts/ann/rename?name=ROBERT"))[0] == 409
        assert (await api(a, "POST", "/admin/accounts/ann/rename?name=%20"))[0] == 400
        status, revoked = await api(a, "POST", "/admin/accounts/bob/revoke")
        assert status == 200 and revoked["tokens_dropped"] >= 2
        assert await closed(c) == ["auth/expired"]
    async with Client(a.url, username="bob", password=PASSWORD) as c:  # may sign in again
        assert c.name == "Robert"


async def test_the_cli_commands(make_server: ServerFactory) -> None:
    server = await make_server(admin_token=TOKEN)
    for name in ("cleo", "cora"):
        async with Client(server.url, username=name, password=PASSWORD, register=True):
            pass
    base = f"http://127.0.0.1:{server.port}"

    async def cli(*args: str) -> str:
        done = await asyncio.to_thread(run_cli, "admin", *args, "--url", base,
                                       env={"CARDHALL_ADMIN_TOKEN": TOKEN})
        assert done.returncode == 0, done.stderr
        return done.stdout

    listing = await cli("accounts", "--find", "c")
    assert "cleo" in listing and "cora" in listing and "password" in listing
    found = json.loads(await cli("accounts", "--find", "cle", "--json"))
    assert [a["username"] for a in found] == ["cleo"]
    assert json.loads(await cli("account", "cora"))["username"] == "cora"
    assert "banned" in await cli("ban", "cleo")
    assert json.loads(await cli("account", "cleo"))["status"] == "banned"
    assert "unbanned" in await cli("unban", "cleo")
    assert "'Cleopatra'" in await cli("rename", "cleo", "Cleopatra")
    assert "sign-ins revoked" in await cli("revoke", "cleo")
    missing = await asyncio.to_thread(run_cli, "admin", "ban", "nobody", "--url", base,
                                      env={"CARDHALL_ADMIN_TOKEN": TOKEN})
    assert missing.returncode != 0 and "404" in missing.stderr
