"""Tests of ``cardhall.client.reach``: each way opening a connection fails is told in words
that say what was found at the address and what to try."""

from __future__ import annotations

import socket
import ssl

import pytest
from cardhall.client.reach import CONNECT_ERRORS, explain
from websockets.datastructures import Headers
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidMessage, InvalidStatus
from websockets.frames import Close
from websockets.http11 import Response

WS = "ws://127.0.0.1:8765"


def _status(code: int, phrase: str = "") -> InvalidStatus:
    return InvalidStatus(Response(code, phrase, Headers()))


@pytest.mark.parametrize("code, needles", [
    (503, ["HTTP 503 Service Unavailable", "draining"]),
    (403, ["HTTP 403 Forbidden", "refuses this client"]),
    (404, ["HTTP 404 Not Found", "is 127.0.0.1:8765 a Cardhall server"]),
])
def test_an_http_answer_names_its_status_and_what_it_means(code: int,
                                                           needles: list[str]) -> None:
    """503 is a draining server, 403 a refusal, anything else the wrong port."""
    said = explain(_status(code), WS)
    assert all(n in said for n in needles), said


def test_an_unknown_status_keeps_the_servers_own_phrase() -> None:
    """A code ``http.HTTPStatus`` does not know is shown with the reason the server gave."""
    assert "HTTP 599 Odd Thing" in explain(_status(599, "Odd Thing"), WS)


def test_a_silent_close_points_at_tls_on_ws_only() -> None:
    """No answer at all over ws:// suggests wss://; over wss:// it is just said."""
    silent = InvalidMessage("did not receive a valid HTTP response")
    silent.__cause__ = EOFError("stream ends")
    assert "then use wss://" in explain(silent, WS)
    assert explain(silent, "wss://h:1") == "the server closed the connection without answering"
    assert "not a valid HTTP/1.1 upgrade" in explain(InvalidMessage("garbage"), WS)


@pytest.mark.parametrize("exc, url, needle", [
    (ConnectionRefusedError(111, "Connection refused"), "ws://localhost",
     "nothing listens on localhost:80"),
    (ConnectionRefusedError(111, "Connection refused"), "wss://h.example",
     "nothing listens on h.example:443"),
    (socket.gaierror(-2, "Name or service not known"), "ws://nohost.invalid:1",
     "unknown host 'nohost.invalid' (Name or service not known)"),
    (ConnectionResetError(104, "reset"), WS, "reset before any answer"),
    (ConnectionResetError(104, "reset"), "wss://h:1", "for a plain server use ws://h:1"),
    (ssl.SSLError(1, "wrong version number"), "wss://h:1", "the TLS handshake failed"),
    (TimeoutError(), WS, "no answer in time"),
    (OSError(101, "Network is unreachable"), WS, "Network is unreachable"),
    (InvalidHandshake("bad upgrade"), WS, "the WebSocket handshake failed: bad upgrade"),
    (ConnectionClosed(Close(4002, "version"), None), WS, "during the hello (4002 version)"),
    (ConnectionClosed(None, None), WS, "during the hello (no close frame)"),
    (ValueError("odd"), WS, "ValueError: odd"),
])
def test_each_failure_is_one_line_of_words(exc: BaseException, url: str, needle: str) -> None:
    """The socket's, TLS's and websockets' errors, each in words, never a bare class name."""
    said = explain(exc, url)
    assert needle in said and "\n" not in said, said


def test_an_untrusted_certificate_says_how_to_trust_it() -> None:
    """The verify message and SSL_CERT_FILE, for a self-signed certificate."""
    exc = ssl.SSLCertVerificationError(1, "certificate verify failed")
    exc.verify_message = "self-signed certificate"
    said = explain(exc, "wss://h:1")
    assert "(self-signed certificate)" in said and "SSL_CERT_FILE" in said


def test_connect_errors_cover_what_explain_words() -> None:
    """The commands catch CONNECT_ERRORS: each failure above is one of them."""
    for exc in (_status(503), InvalidMessage("x"), ConnectionRefusedError(), TimeoutError(),
                socket.gaierror(), ssl.SSLError(), ConnectionClosed(None, None)):
        assert isinstance(exc, CONNECT_ERRORS)
