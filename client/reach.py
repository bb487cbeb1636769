"""Why a Cardhall server could not be reached, in words.

Opening a connection fails in many ways, each with its own exception and most with a
message that means nothing to a person (``InvalidMessage: did not receive a valid HTTP
response``, ``ConnectionResetError:`` and nothing else). :func:`explain` turns any of
:data:`CONNECT_ERRORS` into one line that says what was found at the address and what to
try; every client command of ``cardhall`` (``bots``, ``rooms``, ``play``, ``verify
--url``) reports through it.
"""

from __future__ import annotations

import socket
import ssl
from http import HTTPStatus
from urllib.parse import urlsplit

from websockets.exceptions import (
    ConnectionClosed,
    InvalidHandshake,
    InvalidMessage,
    InvalidStatus,
    WebSocketException,
)

#: What opening a connection (and the hello) may raise when the server is not a reachable
#: Cardhall server: the socket's errors (refused, reset, unknown host, TLS), a timeout, and
#: websockets' handshake and closing errors.
CONNECT_ERRORS: tuple[type[BaseException], ...] = (OSError, TimeoutError, WebSocketException)


def _where(url: str) -> str:
    """``HOST:PORT`` of ``url`` (the scheme's default port when it names none)."""
    try:
        parts = urlsplit(url)
        port = parts.port or (443 if parts.scheme == "wss" else 80)
    except ValueError:
        return url
    return f"{parts.hostname}:{port}"


def _status(exc: InvalidStatus, url: str) -> str:
    """An HTTP answer instead of the WebSocket upgrade."""
    code = exc.response.status_code
    try:
        phrase = HTTPStatus(code).phrase
    except ValueError:
        phrase = exc.response.reason_phrase
    said = f"the server answered HTTP {code} {phrase}"
    if code == HTTPStatus.SERVICE_UNAVAILABLE:
        return (f"{said}: it is draining for a restart, or cannot take players now; try "
                "again in a moment, or another server")
    if code == HTTPStatus.FORBIDDEN:
        return f"{said}: it refuses this client (an origin or address it does not allow)"
    return (f"{said} instead of a WebSocket upgrade: is {_where(url)} a Cardhall server's "
            "WebSocket port?")


def _tls(exc: BaseException, url: str) -> str:
    """A TLS handshake that failed (``wss://``)."""
    if isinstance(exc, ssl.SSLCertVerificationError):
        return (f"its TLS certificate is not trusted ({exc.verify_message}); for a "
                "self-signed certificate, give its CA file in SSL_CERT_FILE")
    detail = getattr(exc, "reason", None) or str(exc) or type(exc).__name__
    return (f"the TLS handshake failed ({detail}): the server does not seem to speak TLS; "
            f"for a plain server use ws://{_where(url)}")


def explain(exc: BaseException, url: str) -> str:
    """Why connecting to ``url`` failed, as one line for a person.

    Args:
        exc: What :meth:`cardhall.client.client.Client.connect` raised: one of
            :data:`CONNECT_ERRORS` (anything else is described by its type and message).
        url: The ``ws://`` or ``wss://`` URL that was tried.

    Returns:
        A phrase without the URL, e.g. ``"connection refused: nothing listens on
        127.0.0.1:1"`` or ``"the server answered HTTP 503 Service Unavailable: it is
        draining ..."``.
    """
    tls = url.lower().startswith("wss:")
    if isinstance(exc, InvalidStatus):
        return _status(exc, url)
    if isinstance(exc, InvalidMessage):
        if isinstance(exc.__cause__, EOFError):
            said = "the server closed the connection without answering"
            if tls:
                return said
            return (f"{said}: a TLS server (then use wss://), or one that expects a PROXY "
                    "header from this address")
        return (f"no WebSocket server answers on {_where(url)}: its reply is not a valid "
                "HTTP/1.1 upgrade (another kind of server on this port?)")
    if isinstance(exc, ConnectionClosed):
        reason = f"{exc.rcvd.code} {exc.rcvd.reason}".strip() if exc.rcvd else "no close frame"
        return f"the server closed the connection during the hello ({reason})"
    if isinstance(exc, InvalidHandshake):
        return f"the WebSocket handshake failed: {exc}"
    if isinstance(exc, ConnectionRefusedError):
        return f"connection refused: nothing listens on {_where(url)}"
    if isinstance(exc, socket.gaierror):
        return f"unknown host {urlsplit(url).hostname!r} ({exc.strerror})"
    if tls and isinstance(exc, (ssl.SSLError, ConnectionResetError, EOFError)):
        return _tls(exc, url)
    if isinstance(exc, ConnectionResetError):
        return ("the connection was reset before any answer: a TLS server (then use "
                "wss://), or a server that refuses this address")
    if isinstance(exc, TimeoutError):
        return "no answer in time (timed out)"
    if isinstance(exc, OSError):
        return exc.strerror or str(exc) or type(exc).__name__
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
