"""The command line of accounts (issue #29): the ``cardhall serve`` options of the auth
service (:func:`auth_options`), and the ``cardhall admin`` commands ``accounts``,
``account``, ``ban``, ``unban``, ``rename``, ``revoke``, through the admin API's account
endpoints (:mod:`.admin_accounts`).

The admin commands are added to the ``admin`` group of :mod:`.cli` by
:func:`add_account_commands`, which is handed that group's option decorator and HTTP helpers
(the same ``--url``, ``--token`` and ``--token-file``, the same one-line errors).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any
from urllib.parse import quote, urlencode

import click

__all__ = ["add_account_commands", "auth_options", "check_auth_options"]

Options = Callable[[Any], Any]
Token = Callable[[str | None, Any], str]
Call = Callable[[str, str, str, str], dict[str, Any]]


def _limit(ctx: click.Context, param: click.Parameter, value: str) -> str:
    """Click callback: ``value`` is a rate in ``limits`` notation (``10/5 minutes``).

    Raises:
        click.BadParameter: it is not.
    """
    from limits import parse

    try:
        parse(value)
    except ValueError as exc:
        raise click.BadParameter(f"{value!r} is not a rate like 10/5 minutes ({exc})") from None
    return value


def auth_options(fn: Any) -> Any:
    """The ``--auth*`` options of ``cardhall serve`` (see :class:`~.config.Settings`)."""
    file = click.Path(exists=True, dir_okay=False)
    for option in reversed([
        click.option("--auth", type=click.Choice(["optional", "required"]),
                     default="optional", show_default=True,
                     help="required: connections must sign in (guest, login, register, "
                          "restore) before they play; optional: old clients play as "
                          "anonymous guests."),
        click.option("--auth-jwt-key", type=file, default=None, metavar="FILE",
                     help="Your identity provider's key (a PEM public key, or a file with an "
                          "HMAC secret): its JWTs sign players in (login jwt)."),
        click.option("--auth-jwks", type=file, default=None, metavar="FILE",
                     help="A JSON Web Key Set file instead of --auth-jwt-key."),
        click.option("--auth-issuer", default=None, help="The iss those JWTs must carry."),
        click.option("--auth-audience", default=None, help="The aud those JWTs must hold."),
        click.option("--auth-session-seconds", type=click.FloatRange(1), default=86_400.0,
                     show_default=True, help="Life of a session token."),
        click.option("--auth-refresh-seconds", type=click.FloatRange(1),
                     default=30 * 86_400.0, show_default=True,
                     help="Life of a refresh token."),
        click.option("--auth-login-limit", default="10/5 minutes", show_default=True,
                     callback=_limit, help="Failed password logins per account."),
        click.option("--auth-address-limit", default="30/minute", show_default=True,
                     callback=_limit, help="Password and JWT sign-ins per client address."),
        click.option("--auth-guest-limit", default="30/minute", show_default=True,
                     callback=_limit, help="New guest accounts per client address."),
    ]):
        fn = option(fn)
    return fn


def check_auth_options(opts: dict[str, Any]) -> None:
    """Check the operator JWT options of ``serve`` before the server starts.

    Raises:
        click.BadParameter: a JWT key without an issuer and audience, both key options, or
            a key file that holds no usable key.
    """
    key, jwks = opts.get("auth_jwt_key"), opts.get("auth_jwks")
    if not key and not jwks:
        return
    from .operator_jwt import OperatorTokens

    try:
        OperatorTokens(opts.get("auth_issuer") or "", opts.get("auth_audience") or "",
                       key_file=key, jwks_file=jwks)
    except (ValueError, OSError) as exc:
        raise click.BadParameter(str(exc), param_hint="--auth-jwt-key/--auth-jwks") from None


def _row(a: dict[str, Any]) -> str:
    kind = "guest" if a.get("guest") else ("external" if a.get("external") else "password")
    return (f"{a['account']:<17} {a['username']:<24} {a['status']:<7} {kind:<9} "
            f"{a['name']}")


def add_account_commands(admin: click.Group, options: Options, read_token: Token,
                         call: Call) -> None:
    """Add the account commands to the ``admin`` group.

    Args:
        admin: The ``cardhall admin`` group.
        options: Decorator adding ``--url``, ``--token`` and ``--token-file``.
        read_token: ``(token, token_file) -> token`` (a usage error when neither is given).
        call: ``(url, token, method, path) -> JSON answer`` (a one-line error on failure).
    """

    def account_path(who: str, op: str = "") -> str:
        return f"/admin/accounts/{quote(who, safe='')}" + (f"/{op}" if op else "")

    @admin.command("accounts")
    @options
    @click.option("--find", "prefix", default="", metavar="PREFIX",
                  help="Only usernames beginning with PREFIX.")
    @click.option("--json", "as_json", is_flag=True, help="One JSON array.")
    def accounts(url: str, token: str | None, token_file: Any, prefix: str,
                 as_json: bool) -> None:
        """List accounts by username (every page), or find them by a username prefix."""
        secret = read_token(token, token_file)
        found: list[dict[str, Any]] = []
        after = ""
        for _ in range(100_000):  # bounded: at most this many pages
            query = urlencode({"limit": 500, "find": prefix, "after": after})
            page = call(url, secret, "GET", f"/admin/accounts?{query}")
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
    @options
    @click.argument("who")
    def account(url: str, token: str | None, token_file: Any, who: str) -> None:
        """Show the account WHO (an account id or a username) as JSON."""
        answer = call(url, read_token(token, token_file), "GET", account_path(who))
        click.echo(json.dumps(answer, sort_keys=True))

    def one_op(op: str, doc: str) -> None:
        @admin.command(op, help=doc)
        @options
        @click.argument("who")
        def command(url: str, token: str | None, token_file: Any, who: str) -> None:
            answer = call(url, read_token(token, token_file), "POST", account_path(who, op))
            done = {"ban": "banned", "unban": "unbanned", "revoke": "sessions revoked"}[op]
            click.echo(f"account {answer['account']} ({answer['username']}): {done}")

    one_op("ban", "Ban the account WHO (id or username): its sessions end, its connections "
           "on every server are closed (auth/banned), and it cannot sign in.")
    one_op("unban", "Lift the ban of the account WHO (id or username).")
    one_op("revoke", "End every session of the account WHO (id or username) and close its "
           "connections; it may sign in again.")

    @admin.command("rename")
    @options
    @click.argument("who")
    @click.argument("name")
    def rename(url: str, token: str | None, token_file: Any, who: str, name: str) -> None:
        """Give the account WHO (id or username) the display name NAME."""
        path = account_path(who, "rename") + "?" + urlencode({"name": name})
        answer = call(url, read_token(token, token_file), "POST", path)
        click.echo(f"account {answer['account']} ({answer['username']}) is now "
                   f"{answer['name']!r}")
