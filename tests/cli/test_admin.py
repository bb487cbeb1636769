"""Tests of ``cardhall admin`` (``cardhall.cli.admin``) in-process, its HTTP calls answered by
a stand-in for ``urllib.request.urlopen``: URLs and tokens refused before any request, the
requests it makes (bearer, quoted paths, pages followed), and each failure as one line.
(tests/server/test_admin.py drives the command against a live server.)"""

from __future__ import annotations

import io
import json
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from cardhall.cli.admin import admin
from click.testing import CliRunner

URL = "http://127.0.0.1:8765"


class Answer(io.BytesIO):
    """What urlopen returns: a readable body usable as a context manager."""


def _serve(monkeypatch: pytest.MonkeyPatch,
           answer: Callable[[urllib.request.Request], Any]) -> list[urllib.request.Request]:
    seen: list[urllib.request.Request] = []

    def urlopen(request: urllib.request.Request, timeout: float) -> Answer:
        seen.append(request)
        body = answer(request)
        if isinstance(body, Exception):
            raise body
        return Answer(body if isinstance(body, bytes) else json.dumps(body).encode())

    monkeypatch.setattr(urllib.request, "urlopen", urlopen)
    return seen


@pytest.mark.parametrize("url", ["ws://h:1", "http://h:1/admin", "http://h:1?x=1", "h:1",
                                 "http://h:99999"])
def test_a_url_that_is_not_a_servers_base_is_a_usage_error(url: str) -> None:
    """Exit 2 naming the URL; nothing is requested."""
    result = CliRunner().invoke(admin, ["rooms", "--url", url, "--token", "t"])
    assert result.exit_code == 2 and "is not a server URL like http://HOST:PORT" in result.output


def test_no_token_is_a_usage_error(monkeypatch: pytest.MonkeyPatch) -> None:
    """Neither --token, --token-file nor the variable: exit 2 before any request."""
    seen = _serve(monkeypatch, lambda r: {})
    monkeypatch.delenv("CARDHALL_ADMIN_TOKEN", raising=False)
    result = CliRunner().invoke(admin, ["close", "r1", "--url", URL])
    assert result.exit_code == 2 and "give --token, --token-file" in result.output
    assert seen == []


def test_the_token_files_first_line_is_the_bearer_and_paths_are_quoted(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A room id with a slash stays one path segment; POSTs carry an empty body."""
    seen = _serve(monkeypatch, lambda r: {"closed": True})
    token = tmp_path / "token"
    token.write_text("s3cret\nsecond line\n")
    result = CliRunner().invoke(admin, ["close", "a/b c", "--url", URL + "/",
                                        "--token-file", str(token)])
    assert result.exit_code == 0, result.output
    (request,) = seen
    assert request.full_url == f"{URL}/admin/rooms/a%2Fb%20c/close"
    assert request.get_method() == "POST" and request.get_header("Content-length") == "0"
    assert request.get_header("Authorization") == "Bearer s3cret"


def test_rooms_follows_every_page(monkeypatch: pytest.MonkeyPatch) -> None:
    """The cursor of each page asks for the next; all rooms are listed."""
    def pages(request: urllib.request.Request) -> dict[str, Any]:
        room = {"game": "shop", "status": "waiting", "name": "n", "seats": 1, "taken": 0,
                "owner": None}
        if "cursor=" not in request.full_url:
            return {"rooms": [{**room, "room": "r1"}], "cursor": "r1"}
        return {"rooms": [{**room, "room": "r2"}]}

    seen = _serve(monkeypatch, pages)
    result = CliRunner().invoke(admin, ["rooms", "--url", URL, "--token", "t", "--json"])
    assert result.exit_code == 0, result.output
    assert [r["room"] for r in json.loads(result.stdout)] == ["r1", "r2"]
    assert [r.full_url.split("?")[1] for r in seen] == ["limit=500", "limit=500&cursor=r1"]


@pytest.mark.parametrize("answer, needle", [
    (urllib.error.HTTPError(URL, 403, "Forbidden", {}, io.BytesIO(b'{"error": "bad token"}')),
     "Error: POST /admin/accounts/zoe/ban: 403 bad token"),
    (urllib.error.HTTPError(URL, 404, "Not Found", {}, io.BytesIO(b"<html>")),
     "Error: POST /admin/accounts/zoe/ban: 404 Not Found"),
    (urllib.error.URLError(ConnectionRefusedError(111, "Connection refused")),
     f"Error: cannot reach {URL}: [Errno 111] Connection refused"),
    (b"<html>hello</html>", "answered no JSON: is it a Cardhall server?"),
    (b"[1, 2]", "answered no JSON object"),
])
def test_each_failure_is_one_error_line(monkeypatch: pytest.MonkeyPatch, answer: Any,
                                        needle: str) -> None:
    """Exit 1, the server's own reason when it gave one, no traceback."""
    _serve(monkeypatch, lambda r: answer)
    result = CliRunner().invoke(admin, ["ban", "zoe", "--url", URL, "--token", "t"])
    assert result.exit_code == 1 and needle in result.output, result.output
    assert "Traceback" not in result.output and len(result.output.splitlines()) == 1
