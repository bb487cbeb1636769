"""Tests of the structured logs (``cardhall.server.logs``): what tests/server/test_hardening.py
does not cover (levels, clashing fields, the handler ``configure`` installs)."""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Iterator

import pytest
from cardhall.server.logs import configure, event, formatter


@pytest.fixture
def root() -> Iterator[logging.Logger]:
    """The root logger, its handlers and level put back afterwards."""
    logger = logging.getLogger()
    handlers, level = logger.handlers[:], logger.level
    try:
        yield logger
    finally:
        logger.handlers[:] = handlers
        logger.setLevel(level)


def test_configure_replaces_the_handlers_and_filters_by_level(root: logging.Logger) -> None:
    """One handler is left, the one returned; lines below the level are not written."""
    out = io.StringIO()
    handler = configure("WARNING", "json", stream=out)
    assert root.handlers == [handler]
    log = logging.getLogger("cardhall.test_logs_module")
    event(log, logging.INFO, "quiet", room="r1")
    event(log, logging.ERROR, "loud", room="r1", seat=0, session_token="s3cret")
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    assert [line["event"] for line in lines] == ["loud"]
    assert lines[0]["level"] == "error" and lines[0]["seat"] == 0
    assert lines[0]["session_token"] == "[redacted]"


def test_configure_refuses_an_unknown_level_or_format(root: logging.Logger) -> None:
    """ValueError, as the docstring says."""
    with pytest.raises(ValueError):
        configure("LOUD", stream=io.StringIO())
    with pytest.raises(ValueError, match="'kv' or 'json'"):
        configure("INFO", "yaml", stream=io.StringIO())  # type: ignore[arg-type]


def test_a_field_named_like_a_record_attribute_is_a_key_error() -> None:
    """``message`` or ``name`` would overwrite the record's own: refused, not mixed up."""
    log = logging.getLogger("cardhall.test_logs_clash")
    log.setLevel(logging.INFO)
    with pytest.raises(KeyError):
        event(log, logging.INFO, "clash", message="x")


def test_kv_lines_quote_spaces_and_escape_newlines() -> None:
    """A value with spaces or a newline stays inside one ``key=value`` of one line."""
    record = logging.LogRecord("cardhall.x", logging.INFO, __file__, 1, "said", None, None)
    record.reason = 'two words\nand "more"'
    line = formatter("kv").format(record)
    assert "\n" not in line
    assert line.split(" ")[1:4] == ["level=info", "logger=cardhall.x", "event=said"]
    assert 'reason="two words\\nand \\"more\\""' in line
