"""What the commands of :mod:`cardhall.cli` share: parameter types (:data:`WS_URL`), option
callbacks (:func:`game_name`, :func:`redis_url`), option definitions (:func:`data_option`),
the check of a bot strategy and of a URL's parts; each refusal is one of click's usage errors
(exit 2).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import click

from ..games import OptionError, get

if TYPE_CHECKING:
    from urllib.parse import SplitResult


class WsUrl(click.ParamType[str]):
    """A server URL, ``ws://HOST:PORT`` or ``wss://HOST:PORT`` (checked by websockets' own
    parser); anything else is refused with a usage error (exit 2)."""

    name = "URL"

    def convert(self, value: Any, param: click.Parameter | None,
                ctx: click.Context | None) -> str:
        """The URL unchanged when websockets accepts it.

        Raises:
            click.BadParameter: no ``ws://``/``wss://`` scheme, no host, a port that is not
                a number in 0..65535, or an unclosed ``[`` of an IPv6 address.
        """
        from websockets.exceptions import InvalidURI
        from websockets.uri import parse_uri

        try:
            parse_uri(str(value))
        except (InvalidURI, ValueError) as exc:  # ValueError: urllib's, for the port or [
            self.fail(f"{value!r} is not a server URL like ws://HOST:PORT ({exc})", param, ctx)
        return str(value)


WS_URL = WsUrl()
#: The local server's URL (``cardhall serve``'s defaults): the client commands' ``--url``
#: when none is given (issue #44 item 12).
LOCAL_URL = "ws://127.0.0.1:8765"


def redis_url(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """Click callback: ``value`` is a URL redis-py accepts (``redis://``, ``rediss://``,
    ``unix://``) with a valid port, or None.

    Raises:
        click.BadParameter: redis-py's parser refuses it (no such scheme, a port that is not
            a number in 0..65535, an unclosed ``[``).
    """
    if value:
        from redis.connection import parse_url

        try:
            cast(Any, parse_url)(value)  # unannotated in some redis-py versions
        except ValueError as exc:
            raise click.BadParameter(f"{value!r}: {exc}") from None
    return value


def game_name(ctx: click.Context, param: click.Parameter, value: str) -> str:
    """Click callback: ``value`` is the name of an available game.

    Raises:
        click.BadParameter: no game of that name.
    """
    try:
        get(value)
    except OptionError as exc:
        raise click.BadParameter(exc.message) from None
    return value


def check_strategy(game: str, bot: str) -> None:
    """Check that ``game`` has the strategy ``bot`` (a name or ``module:function``).

    Raises:
        click.BadParameter: it has not, or the function cannot be loaded.
    """
    from ..games.bots import strategy

    try:
        strategy(game, bot)
    except OptionError as exc:
        raise click.BadParameter(exc.message, param_hint="--strategy") from None


def http_url_parts(value: str) -> SplitResult | None:
    """``value`` split by :func:`urllib.parse.urlsplit` when it is an ``http://`` or
    ``https://`` URL with a host and a valid port (if any); None otherwise. What may follow
    the host is for the caller to check."""
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(value)
        parts.port  # noqa: B018 - raises ValueError on a bad port
    except ValueError:
        return None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return None
    return parts


def data_option(help: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """The ``--data PATH`` option (the SQLite data file; env ``CARDHALL_DATA``) of ``serve``
    and ``backup``, with its ``help``."""
    return click.option("--data", type=click.Path(dir_okay=False, path_type=Path),
                        envvar="CARDHALL_DATA", default=None, metavar="PATH", help=help)
