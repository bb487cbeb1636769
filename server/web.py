"""The browser client's files, served over HTTP on the WebSocket port.

``GET /`` answers the web app's ``index.html``; ``GET /<path>`` answers a file of the
package folder ``server/static/`` (ES modules, CSS, the vendored MessagePack library). A
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
from importlib import resources
from pathlib import Path

from websockets.asyncio.server import ServerConnection
from websockets.datastructures import Headers
from websockets.http11 import Request, Response

#: The package folder the web app ships in.
STATIC = Path(str(resources.files(__package__ or "cardhall.server") / "static"))

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


def respond(connection: ServerConnection, request: Request) -> Response | None:
    """Answer a plain HTTP ``GET`` for a web-app file; None for a WebSocket upgrade.

    Args:
        connection: The connection the request came on (builds the response).
        request: The parsed HTTP request (websockets only parses ``GET``).

    Returns:
        None when the request asks for a WebSocket upgrade (the handshake goes on);
        otherwise ``200`` with the file, ``304`` when ``If-None-Match`` holds its ETag, or
        ``404`` when :func:`resolve` finds no file to serve.
    """
    if is_upgrade(request):
        return None
    file = resolve(request.path)
    if file is None:
        return connection.respond(http.HTTPStatus.NOT_FOUND, "Not found.\n")
    body, etag = _load(file, file.stat().st_mtime_ns)
    vendor = file.relative_to(STATIC.resolve()).parts[:1] == ("vendor",)
    headers = Headers(_SAFE_HEADERS)
    headers["Cache-Control"] = VENDOR_CACHE if vendor else NO_CACHE
    headers["ETag"] = etag
    if etag in [t.strip() for v in request.headers.get_all("If-None-Match")
                for t in v.split(",")]:
        return Response(304, "Not Modified", headers, b"")
    headers["Content-Type"] = CONTENT_TYPES[file.suffix]
    headers["Content-Length"] = str(len(body))
    return Response(200, "OK", headers, body)
