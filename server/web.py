"""The browser client's files, served over HTTP on the WebSocket port.

``GET /`` answers the web app's ``index.html``; ``GET /<path>`` answers a file of the
package folder ``server/static/`` (ES modules, CSS, the vendored MessagePack library).
Room links answer ``index.html`` too: ``/r/ROOM`` (a room) and ``/join/CODE`` (a private
room's join code), which the app reads from its address (``js/links.js``). ``GET
/rules/GAME.html`` answers the game's rules page, ``docs/rules/GAME.md`` (shipped in the
package as ``server/rules/``, a link to that folder: one text for readers of the repository
and for players), rendered to HTML by markdown-it-py with raw HTML off, for the web app's
"How to play" panel. A
request that asks for a WebSocket upgrade is never answered here: it goes on to the
handshake. Only files of an allow-list of extensions are served, and only from inside the
static folder (no ``..``, no hidden files, no symlinks out of it), so nothing else of the
package or the machine can be read.

Caching: every file carries a strong ``ETag`` (a hash of its bytes) and
``Cache-Control: no-cache`` (browsers revalidate, and get ``304 Not Modified`` while it is
unchanged), except the vendored libraries under ``vendor/``, whose names include nothing
that changes with their version, so they are cached for a day and revalidated after.
"""

from __future__ import annotations

import functools
import hashlib
import http
import re
from importlib import resources
from pathlib import Path

from markdown_it import MarkdownIt

from typing import Protocol

from websockets.datastructures import Headers
from websockets.http11 import Request, Response

#: The package folder the web app ships in.
STATIC = Path(str(resources.files(__package__ or "cardhall.server") / "static"))

#: The rules pages of the games (``docs/rules/*.md``; ``server/rules`` links there).
RULES = Path(str(resources.files(__package__ or "cardhall.server") / "rules"))

#: Paths that name a room (``/r/ROOM``) or a private room's join code (``/join/CODE``):
#: the web app's page, which opens that room.
ROOM_LINK = re.compile(r"/(?:r|join)/[A-Za-z0-9_-]{1,64}/?")
_RULES_PAGE = re.compile(r"/rules/(?P<game>[a-z0-9_]{1,32})\.html")

#: Extensions served, with their ``Content-Type``. Anything else is 404.
CONTENT_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".mjs": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".ico": "image/x-icon",
    ".txt": "text/plain; charset=utf-8",
    ".md": "text/plain; charset=utf-8",
}

#: ``Cache-Control`` of app files (revalidate every time) and of vendored ones (seconds).
NO_CACHE = "no-cache"
VENDOR_CACHE = "public, max-age=86400"

#: Headers on every file response: no MIME sniffing, no framing by other sites.
_SAFE_HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
}


class Responder(Protocol):
    """What answers an HTTP request on the WebSocket port (the socket's driver,
    :class:`~.driver.Socket`): plain-text responses, and the client's address."""

    @property
    def remote_address(self) -> object:
        """The client's ``(host, port)``, or None."""

    def respond(self, status: http.HTTPStatus, text: str) -> Response:
        """A plain-text response with ``status``."""


def is_upgrade(request: Request) -> bool:
    """True when ``request`` asks for a WebSocket upgrade (``Upgrade: websocket``)."""
    return any(v.strip().lower() == "websocket"
               for value in request.headers.get_all("Upgrade") for v in value.split(","))


def resolve(path: str, root: Path = STATIC) -> Path | None:
    """The file under ``root`` that the URL path ``path`` names, or None.

    ``"/"`` (and any path ending in ``/``) names ``index.html`` of that folder; a query
    string is ignored. None when the path leaves ``root`` (``..``, an absolute or hidden
    segment, a backslash, a NUL, a symlink pointing out), names no regular file, or has an
    extension outside :data:`CONTENT_TYPES`.
    """
    path = path.split("?", 1)[0].split("#", 1)[0]
    if not path.startswith("/") or "\\" in path or "\x00" in path or "%" in path:
        return None
    parts = [p for p in path.split("/") if p]
    if any(p.startswith(".") for p in parts):
        return None  # "..", ".", hidden files
    if path.endswith("/"):
        parts.append("index.html")
    target = root.joinpath(*parts)
    try:
        real = target.resolve(strict=True)
        base = root.resolve(strict=True)
    except (OSError, RuntimeError):
        return None
    if not real.is_relative_to(base) or not real.is_file():
        return None
    if real.suffix not in CONTENT_TYPES:
        return None
    return real


@functools.lru_cache(maxsize=256)
def _load(path: Path, mtime_ns: int) -> tuple[bytes, str]:
    """The bytes of ``path`` and their ETag (cached per modification time)."""
    body = path.read_bytes()
    return body, '"' + hashlib.sha256(body).hexdigest()[:32] + '"'


def rules_html(markdown: str) -> str:
    """A rules page in Markdown as an HTML fragment: CommonMark with tables, raw HTML off
    (written out as text), links kept.

    Args:
        markdown: The page's text (``docs/rules/GAME.md``).

    Returns:
        The HTML of the page's body (no ``<html>`` or ``<head>``).
    """
    return str(MarkdownIt("js-default").render(markdown))


@functools.lru_cache(maxsize=16)
def _rules(path: Path, mtime_ns: int) -> tuple[bytes, str]:
    """The rendered rules page of ``path`` and its ETag (cached per modification time)."""
    body = rules_html(path.read_text(encoding="utf-8")).encode()
    return body, '"' + hashlib.sha256(body).hexdigest()[:32] + '"'


def _target(path: str) -> tuple[Path, bool] | None:
    """What a request path names: ``(file, rendered)``, where ``rendered`` says the file is
    a rules page to render; None when nothing is served there."""
    path = path.split("?", 1)[0].split("#", 1)[0]
    if ROOM_LINK.fullmatch(path):
        path = "/"  # the app's index.html
    match = _RULES_PAGE.fullmatch(path)
    if match is not None:
        page = RULES / f"{match['game']}.md"
        return (page, True) if page.is_file() else None
    file = resolve(path)
    return None if file is None else (file, False)


def respond(connection: Responder, request: Request) -> Response | None:
    """Answer a plain HTTP ``GET`` for a web-app file; None for a WebSocket upgrade.

    Args:
        connection: The connection the request came on (builds the response).
        request: The parsed HTTP request (websockets only parses ``GET``).

    Returns:
        None when the request asks for a WebSocket upgrade (the handshake goes on);
        otherwise ``200`` with the file (``index.html`` for a room link, the rendered page
        for ``/rules/GAME.html``), ``304`` when ``If-None-Match`` holds its ETag, or ``404``
        when there is no such file (:func:`resolve`) or game page.
    """
    if is_upgrade(request):
        return None
    target = _target(request.path)
    if target is None:
        return connection.respond(http.HTTPStatus.NOT_FOUND, "Not found.\n")
    file, rendered = target
    body, etag = (_rules if rendered else _load)(file, file.stat().st_mtime_ns)
    vendor = not rendered and file.relative_to(STATIC.resolve()).parts[:1] == ("vendor",)
    headers = Headers(_SAFE_HEADERS)
    headers["Cache-Control"] = VENDOR_CACHE if vendor else NO_CACHE
    headers["ETag"] = etag
    if etag in [t.strip() for v in request.headers.get_all("If-None-Match")
                for t in v.split(",")]:
        return Response(304, "Not Modified", headers, b"")
    headers["Content-Type"] = CONTENT_TYPES[".html" if rendered else file.suffix]
    headers["Content-Length"] = str(len(body))
    return Response(200, "OK", headers, body)
