"""``cardhall ratings``: a rated game type's rating list (issue #45 item 4), or the ratings of
given players whatever their rank (``--key``), read from the server's ``GET /ratings``
(:mod:`cardhall.server.rated`)."""

from __future__ import annotations

import json
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Sequence
from typing import Any

import click

from .options import LOCAL_URL, WS_URL

__all__ = ["ratings", "ratings_url"]


def ratings_url(url: str, game: str, mode: str, limit: int,
                keys: Sequence[str] = ()) -> str:
    """The ``/ratings`` address of the server at WebSocket ``url`` (``ws`` -> ``http``,
    ``wss`` -> ``https``): the list's best ``limit``, or with ``keys`` the entries of those
    rating keys (``key=K`` each; the server takes 1 to 16)."""
    parts = urllib.parse.urlsplit(url)
    scheme = "https" if parts.scheme == "wss" else "http"
    asked: list[tuple[str, str | int]] = [("game", game), ("mode", mode)]
    asked += [("key", k) for k in keys] if keys else [("limit", limit)]
    query = urllib.parse.urlencode(asked)
    return urllib.parse.urlunsplit((scheme, parts.netloc, "/ratings", query, ""))


@click.command()
@click.option("--url", default=LOCAL_URL, show_default=True, type=WS_URL,
              help="Server URL, ws://HOST:PORT (default: the local server's).")
@click.option("--game", default="skipper", show_default=True)
@click.option("--mode", default="multi", show_default=True)
@click.option("--limit", type=click.IntRange(1, 1000), default=100, show_default=True)
@click.option("--key", "keys", multiple=True, metavar="KEY",
              help="Only these players' ratings, whatever their rank (a rating key: an "
                   "account id or bot:STRATEGY; repeatable, 16 at most).")
@click.option("--json", "as_json", is_flag=True, help="The list as one JSON array.")
def ratings(url: str, game: str, mode: str, limit: int, keys: tuple[str, ...],
            as_json: bool) -> None:
    """Print the rating list of a rated game type: name, rating, mu, sigma, games and
    provisional, the highest rating first (with --key: those players', in that order)."""
    address = ratings_url(url, game, mode, limit, keys)
    try:
        with urllib.request.urlopen(address, timeout=30) as answer:
            body: dict[str, Any] = json.loads(answer.read())
    except urllib.error.HTTPError as exc:
        raise click.ClickException(
            f"server refused: {exc.code}: {exc.read().decode(errors='replace').strip()}"
        ) from None
    except (urllib.error.URLError, OSError) as exc:
        raise click.ClickException(f"cannot reach {url}: {exc}") from None
    entries = [{k: e[k] for k in ("name", "rating", "mu", "sigma", "games", "provisional")}
               for e in body["entries"]]
    if as_json:
        click.echo(json.dumps(entries))
        return
    click.echo(f"{'name':<24} {'rating':>6} {'mu':>7} {'sigma':>6} {'games':>5}")
    for e in entries:
        mark = " provisional" if e["provisional"] else ""
        click.echo(f"{e['name'][:24]:<24} {e['rating']:>6} {e['mu']:>7.2f} {e['sigma']:>6.2f}"
                   f" {e['games']:>5}{mark}")
