"""``cardhall admin``: operate a running server through its admin HTTP API (the server runs
with ``--admin-token``): rooms (list, close, kick or mute a seat), draining for a rolling
restart, and accounts (list, find, show, ban, unban, rename, revoke their sign-ins; the API's
account endpoints, :mod:`cardhall.server.admin_accounts`). Every command takes ``--url``,
``--token`` and ``--token-file`` (:func:`_admin_options`); a refusal or an unreachable server
is one ``Error:`` line.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import quote, urlencode

import click

from .options import http_url_parts
from .play import echo_rooms, seats_taken


class HttpUrl(click.ParamType[str]):
    """A server's HTTP base URL, ``http(s)://HOST:PORT`` (the admin API is on the WebSocket
    port); anything else is refused with a usage error (exit 2)."""

    name = "URL"

    def convert(self, value: Any, param: click.Parameter | None,
                ctx: click.Context | None) -> str:
        """The URL without a trailing slash.

        Raises:
            click.BadParameter: no ``http://``/``https://`` scheme, no host, or a path.
        """
        parts = http_url_parts(str(value))
        if parts is None or parts.path.strip("/") or parts.query:
            self.fail(f"{value!r} is not a server URL like http://HOST:PORT", param, ctx)
        return str(value).rstrip("/")


def _admin_options(fn: Any) -> Any:
    """The ``--url``, ``--token`` and ``--token-file`` options of every admin command."""
    fn = click.option("--token-file", type=click.File("r"), default=None,
                      help="Read the token from this file (first line).")(fn)
    fn = click.option("--token", envvar="CARDHALL_ADMIN_TOKEN", default=None, metavar="TOKEN",
                      help="The server's admin token (env CARDHALL_ADMIN_TOKEN).")(fn)
    return click.option("--url", required=True, type=HttpUrl(),
                        help="The server, http(s)://HOST:PORT (its WebSocket port).")(fn)


def _admin_token(token: str | None, token_file: Any) -> str:
    """The admin token from ``--token-file`` (first line) or ``--token``.

    Raises:
        click.UsageError: no token given.
    """
    if token_file is not None:
        token = (token_file.readline() or "").strip()
    if not token:
        raise click.UsageError("give --token, --token-file or CARDHALL_ADMIN_TOKEN")
    return token


def _admin_call(url: str, token: str, method: str, path: str) -> dict[str, Any]:
    """One admin API request with the bearer ``token``; returns its JSON answer.

    Raises:
        click.ClickException: the server cannot be reached or answered an error (one line).
    """
    import urllib.error
    import urllib.request

    request = urllib.request.Request(url + path, method=method, data=None,
                                     headers={"Authorization": f"Bearer {token}"})
    if method == "POST":
        request.add_header("Content-Length", "0")
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            body = response.read()
    except urllib.error.HTTPError as exc:
        try:
            reason = json.loads(exc.read()).get("error", exc.reason)
        except (ValueError, AttributeError, OSError):
            reason = exc.reason
        raise click.ClickException(f"{method} {path}: {exc.code} {reason}") from None
    except (OSError, ValueError) as exc:  # URLError, timeouts, resets are OSErrors
        raise click.ClickException(f"cannot reach {url}: "
                                   f"{getattr(exc, 'reason', None) or exc}") from None
    try:
        answer = json.loads(body)
    except ValueError:
        raise click.ClickException(f"{url} answered no JSON: is it a Cardhall "
                                   "server?") from None
    if not isinstance(answer, dict):
        raise click.ClickException(f"{url} answered no JSON object")
    return answer


@click.group()
def admin() -> None:
    """Operate a running server through its admin HTTP API (the server runs with
    --admin-token): list and close rooms, kick or mute a seat, drain for a rolling restart;
    list, find, ban, unban, rename accounts and revoke their sign-ins."""


@admin.command("rooms")
@_admin_options
@click.option("--json", "as_json", is_flag=True, help="The room list as one JSON array.")
def admin_rooms(url: str, token: str | None, token_file: Any, as_json: bool) -> None:
    """List the rooms of every server process sharing the store, with their owners."""
    secret = _admin_token(token, token_file)
    listing: list[dict[str, Any]] = []
    cursor = None
    for _ in range(100_000):  # bounded: at most this many pages
        query = "?limit=500" + (f"&cursor={quote(cursor)}" if cursor else "")
        page = _admin_call(url, secret, "GET", "/admin/rooms" + query)
        listing.extend(page.get("rooms", []))
        cursor = page.get("cursor")
        if not cursor:
            break

    def row(r: dict[str, Any]) -> str:
        return (f"{r['room']:<10} {r['game']:<12} {seats_taken(r):>7} {r['status']:<9} "
                f"{str(r.get('owner') or '-'):<28} {r['name']}")

    echo_rooms(listing, as_json,
               f"{'room':<10} {'game':<12} {'seats':>7} {'status':<9} {'owner':<28} name", row)


@admin.command("close")
@_admin_options
@click.argument("room")
def admin_close(url: str, token: str | None, token_file: Any, room: str) -> None:
    """Close ROOM (on whichever process runs it): its members are told and it is removed."""
    answer = _admin_call(url, _admin_token(token, token_file), "POST",
                         f"/admin/rooms/{quote(room, safe='')}/close")
    click.echo(f"room {room} closed ({answer.get('members_told', 0)} members told)")


@admin.command("purge-games")
@_admin_options
@click.argument("rooms", nargs=-1, required=True)
def admin_purge_games(url: str, token: str | None, token_file: Any,
                      rooms: tuple[str, ...]) -> None:
    """Forget the archived records of the finished games of ROOMS (their replays, logs and
    `cardhall verify` answer room/not_found from then on)."""
    secret = _admin_token(token, token_file)
    for room in rooms:
        _admin_call(url, secret, "POST", f"/admin/games/{quote(room, safe='')}/purge")
        click.echo(f"game {room} purged from the archive")


@admin.command("prune-games")
@_admin_options
@click.option("--days", type=click.FloatRange(0), required=True,
              help="Forget the games finished more than this many days ago.")
def admin_prune_games(url: str, token: str | None, token_file: Any, days: float) -> None:
    """Forget the archived games finished more than --days days ago (what --history-days
    does every hour)."""
    answer = _admin_call(url, _admin_token(token, token_file), "POST",
                         f"/admin/games/prune?days={days:g}")
    click.echo(f"{answer.get('pruned', 0)} games finished more than {days:g} days ago "
               "forgotten")


@admin.command("kick")
@_admin_options
@click.argument("room")
@click.argument("seat", type=click.IntRange(0, 99))
def admin_kick(url: str, token: str | None, token_file: Any, room: str, seat: int) -> None:
    """Remove the player of SEAT from ROOM: told and detached, its token voided; the seat is
    freed (waiting room) or follows the room's on_abandon (bot or forfeit)."""
    answer = _admin_call(url, _admin_token(token, token_file), "POST",
                         f"/admin/rooms/{quote(room, safe='')}/seats/{seat}/kick")
    click.echo(f"seat {seat} of room {room} kicked: {answer.get('seat_now')}")


@admin.command("mute")
@_admin_options
@click.argument("room")
@click.argument("seat", type=click.IntRange(0, 99))
@click.option("--off", is_flag=True, help="Unmute the seat instead.")
def admin_mute(url: str, token: str | None, token_file: Any, room: str, seat: int,
               off: bool) -> None:
    """Mute the player of SEAT in ROOM's chat (its lines are refused with chat/muted), or
    with --off let it chat again. The mute stays with the seat for the room's life."""
    op = "unmute" if off else "mute"
    _admin_call(url, _admin_token(token, token_file), "POST",
                f"/admin/rooms/{quote(room, safe='')}/seats/{seat}/{op}")
    click.echo(f"seat {seat} of room {room} {op}d")


@admin.command("drain")
@_admin_options
@click.option("--timeout", type=click.FloatRange(0, 3600), default=60.0, show_default=True,
              help="Seconds the server waits for its rooms to be taken over (Redis) or to "
                   "finish (--store memory) before it closes its connections all the same.")
@click.option("--wait/--no-wait", default=True, show_default=True,
              help="Wait until the server reports it is drained.")
def admin_drain(url: str, token: str | None, token_file: Any, timeout: float,
                wait: bool) -> None:
    """Drain a server for a rolling restart: it stops taking connections and rooms (and
    /healthz answers 503), hands its rooms to the other servers, then closes its
    connections with 1012 so that clients reconnect elsewhere. Exit 1 if it does not
    report drained in time."""
    import time

    secret = _admin_token(token, token_file)
    status = _admin_call(url, secret, "POST", f"/admin/drain?timeout={timeout:g}")
    deadline = time.monotonic() + timeout + 30
    while wait and status.get("state") != "drained":
        if time.monotonic() > deadline or "error" in status:
            raise click.ClickException(f"not drained: {json.dumps(status, sort_keys=True)}")
        time.sleep(0.5)
        status = _admin_call(url, secret, "GET", "/admin/drain")
    click.echo(json.dumps(status, sort_keys=True))


def _row(a: dict[str, Any]) -> str:
    """One line of the ``admin accounts`` table."""
    kind = "guest" if a.get("guest") else ("external" if a.get("external") else "password")
    return (f"{a['account']:<17} {a['username']:<24} {a['status']:<7} {kind:<9} "
            f"{a['name']}")


def _account_path(who: str, op: str = "") -> str:
    """The admin API path of the account ``who`` (id or username), and of its ``op``."""
    return f"/admin/accounts/{quote(who, safe='')}" + (f"/{op}" if op else "")


@admin.command("accounts")
@_admin_options
@click.option("--find", "prefix", default="", metavar="PREFIX",
              help="Only usernames beginning with PREFIX.")
@click.option("--json", "as_json", is_flag=True, help="One JSON array.")
def accounts(url: str, token: str | None, token_file: Any, prefix: str,
             as_json: bool) -> None:
    """List accounts by username (every page), or find them by a username prefix."""
    secret = _admin_token(token, token_file)
    found: list[dict[str, Any]] = []
    after = ""
    for _ in range(100_000):  # bounded: at most this many pages
        query = urlencode({"limit": 500, "find": prefix, "after": after})
        page = _admin_call(url, secret, "GET", f"/admin/accounts?{query}")
        found.extend(page.get("accounts", []))
        after = page.get("after") or ""
        if not after:
            break
    if as_json:
        click.echo(json.dumps(found, sort_keys=True))
        return
    click.echo(f"{'account':<17} {'username':<24} {'status':<7} {'kind':<9} name")
    for a in found:
        click.echo(_row(a))


@admin.command("account")
@_admin_options
@click.argument("who")
def account(url: str, token: str | None, token_file: Any, who: str) -> None:
    """Show the account WHO (an account id or a username) as JSON."""
    answer = _admin_call(url, _admin_token(token, token_file), "GET", _account_path(who))
    click.echo(json.dumps(answer, sort_keys=True))


def _account_op(op: str, doc: str) -> None:
    """Add the command ``admin OP WHO`` (``ban``, ``unban``, ``revoke``) with the help
    ``doc``: one POST to the account's ``op`` endpoint."""

    @admin.command(op, help=doc)
    @_admin_options
    @click.argument("who")
    def command(url: str, token: str | None, token_file: Any, who: str) -> None:
        answer = _admin_call(url, _admin_token(token, token_file), "POST",
                             _account_path(who, op))
        done = {"ban": "banned", "unban": "unbanned", "revoke": "sign-ins revoked"}[op]
        click.echo(f"account {answer['account']} ({answer['username']}): {done}")


_account_op("ban", "Ban the account WHO (id or username): its sign-ins end, its "
            "connections on every server are closed (auth/banned), and it cannot sign in.")
_account_op("unban", "Lift the ban of the account WHO (id or username).")
_account_op("revoke", "End every sign-in of the account WHO (id or username) and close its "
            "connections; it may sign in again.")


@admin.command("rename")
@_admin_options
@click.argument("who")
@click.argument("name")
def rename(url: str, token: str | None, token_file: Any, who: str, name: str) -> None:
    """Give the account WHO (id or username) the display name NAME."""
    path = _account_path(who, "rename") + "?" + urlencode({"name": name})
    answer = _admin_call(url, _admin_token(token, token_file), "POST", path)
    click.echo(f"account {answer['account']} ({answer['username']}) is now "
               f"{answer['name']!r}")
