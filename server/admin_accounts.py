"""The operators' admin API for accounts (issue #29), beside the rooms' (:mod:`.admin`, which
routes ``/admin/accounts...`` here, behind the same bearer token)::

    GET  /admin/accounts?find=PREFIX&after=USERNAME&limit=N   accounts by username (a page)
    GET  /admin/accounts/ACCOUNT                              one account
    POST /admin/accounts/ACCOUNT/ban                          ban: sign-ins dropped, its
                                                              connections closed everywhere
    POST /admin/accounts/ACCOUNT/unban                        lift the ban
    POST /admin/accounts/ACCOUNT/revoke                       end every sign-in, close its
                                                              connections
    POST /admin/accounts/ACCOUNT/rename?name=NEW              a new display name

``ACCOUNT`` is an account id or a username. An account is shown as ``{account, username,
name, created, status, guest, external}`` (never a password hash or a digest). Errors are
``{"error": MESSAGE}``: 400 (a bad name or limit), 404 (no such account), 409 (the name is
taken), 503 (the store is unavailable).
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import unquote

from .accounts import names
from .accounts.auth import Auth
from .accounts.identity import Account, AuthError
from .store.ports import StoreError

__all__ = ["AccountsAdmin", "MAX_PAGE", "page_limit"]

#: Most accounts on one page of ``GET /admin/accounts``.
MAX_PAGE = 500
_ONE = re.compile(r"/admin/accounts/(?P<who>[^/]{1,96})(?:/(?P<op>ban|unban|revoke|rename))?")

Result = tuple[int, dict[str, Any]]
"""An HTTP status and the JSON object answered."""


def page_limit(query: dict[str, str], most: int) -> int | None:
    """The ``limit`` of a page request's ``query`` (100 when absent), or None when it is not
    an integer from 1 to ``most``."""
    try:
        limit = int(query.get("limit", 100))
    except ValueError:
        return None
    return limit if 1 <= limit <= most else None


class AccountsAdmin:
    """The account endpoints of one server process's admin API.

    Args:
        auth: The process's auth service (its account store, bans and renames).
    """

    def __init__(self, auth: Auth) -> None:
        self.auth = auth

    async def route(self, method: str, path: str, query: dict[str, str]) -> Result | None:
        """Answer a request for ``/admin/accounts`` or below; None for another path.

        Args:
            method: The HTTP method.
            path: The URL path (decoded: ``%XX`` escapes resolved).
            query: The query's last value of each key.
        """
        path = unquote(path)
        try:
            if path == "/admin/accounts":
                if method != "GET":
                    return 405, {"error": "method not allowed here (allowed: GET)"}
                return await self.page(query)
            match = _ONE.fullmatch(path)
            if match is None:
                return None if not path.startswith("/admin/accounts/") else (
                    404, {"error": f"no admin endpoint {path}"})
            op = match["op"]
            if method != ("GET" if op is None else "POST"):
                allowed = "GET" if op is None else "POST"
                return 405, {"error": f"method not allowed here (allowed: {allowed})"}
            account = await self.find(match["who"])
            if account is None:
                return 404, {"error": f"no account {match['who']!r}"}
            return await self.run(op, account, query)
        except StoreError as exc:
            return 503, {"error": f"store unavailable: {exc}"}

    async def find(self, who: str) -> Account | None:
        """The account whose id, or whose username, is ``who``.

        Raises:
            StoreError: the store is unavailable.
        """
        accounts = self.auth.accounts
        found = await accounts.get(who)
        if found is None:
            try:
                account_id = await accounts.lookup("user", names.username(who))
            except names.BadName:
                account_id = None
            found = await accounts.get(account_id) if account_id else None
        return found

    async def page(self, query: dict[str, str]) -> Result:
        """``{"accounts": [...], "after": USERNAME_OR_NULL}``: up to ``limit`` (1..500,
        default 100) accounts whose usernames begin with ``find`` (normalised as a
        username is) and sort after ``after``; ``after`` is the cursor of the next page.

        Raises:
            StoreError: the store is unavailable.
        """
        limit = page_limit(query, MAX_PAGE)
        if limit is None:
            return 400, {"error": f"limit: 1 to {MAX_PAGE}"}
        prefix = names.username_prefix(query.get("find", ""))
        found = await self.auth.accounts.page(query.get("after", ""), limit, prefix)
        after = found[-1].username if len(found) == limit else None
        return 200, {"accounts": [a.public() for a in found], "after": after}

    async def run(self, op: str | None, account: Account, query: dict[str, str]) -> Result:
        """Show (``op`` None), ban, unban, revoke or rename ``account``.

        Raises:
            StoreError: the store is unavailable.
        """
        auth = self.auth
        try:
            if op == "ban" or op == "unban":
                account = await auth.ban(account.id, op == "ban")
            elif op == "revoke":
                dropped = await auth.revoke(account.id)
                return 200, {**account.public(), "tokens_dropped": dropped}
            elif op == "rename":
                account = await auth.rename(account.id, query.get("name", ""))
        except AuthError as exc:
            status = {"auth/name_taken": 409, "auth/bad_credentials": 404}.get(exc.code, 400)
            return status, {"error": exc.message, "code": exc.code}
        return 200, {**account.public(), "online_here": len(auth.online.get(account.id, ()))}
