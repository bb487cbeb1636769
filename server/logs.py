"""Structured logs: one line per event, ``key=value`` (logfmt) or JSON.

The server logs through the standard :mod:`logging` module. An event is a short snake_case
name with its facts as fields, given with :func:`event` (or ``extra=``)::

    event(log, logging.WARNING, "conn_closed", session="3f2a…", addr="10.0.0.7",
          code=4008, reason="rate limit")

renders, after :func:`configure`, as one line::

    timestamp=2026-11-01T10:00:00.123Z level=warning logger=cardhall.connection
    event=conn_closed session=3f2a… addr=10.0.0.7 code=4008 reason="rate limit"

Fields in use: ``session`` (connection id), ``addr`` (client address), ``room``, ``seat``,
``code`` (a protocol error code, a WebSocket close code or an HTTP status), ``reason``,
``request`` (the request's type tag). Records of other modules and libraries (websockets) go
through the same formatter, so every line of the process has one shape; a traceback becomes
one escaped field (``exception=...``) of its line.

Secrets: seat tokens are never passed to a logger; as a second line of defence every field
whose name contains ``token`` is replaced by ``[redacted]`` before rendering.

Rendering is done by structlog's ``ProcessorFormatter`` (renderers, timestamps, extra
fields), plugged into stdlib logging, so pytest's ``caplog`` and any handler still see
ordinary ``LogRecord`` objects.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import MutableMapping
from typing import Any, Literal, TextIO

import structlog

__all__ = ["REDACTED", "configure", "event", "formatter"]

Format = Literal["kv", "json"]
REDACTED = "[redacted]"

#: First keys of a logfmt line, in this order; the others follow as given.
_KEY_ORDER = ["timestamp", "level", "logger", "event", "session", "addr", "room", "seat",
              "code"]


def event(logger: logging.Logger, level: int, name: str, **fields: Any) -> None:
    """Log the event ``name`` with ``fields`` as structured fields.

    Args:
        logger: Where to log (``logging.getLogger("cardhall....")``).
        level: A :mod:`logging` level, e.g. ``logging.INFO``.
        name: The event name, snake_case (``rate_limited``, ``conn_closed``).
        **fields: Facts of the event (``session``, ``room``, ``seat``, ``code``, ...). Never a
            seat token. Names of :class:`logging.LogRecord` attributes (``name``, ``msg``,
            ``message``, ``args``, ...) are not allowed.

    Raises:
        KeyError: a field name clashes with a ``LogRecord`` attribute.
    """
    if logger.isEnabledFor(level):
        logger.log(level, name, extra=fields)


def _redact(_: Any, __: str, event_dict: MutableMapping[str, Any]) -> MutableMapping[str, Any]:
    """Replace the value of every field whose name contains ``token``."""
    for key in event_dict:
        if "token" in key.lower():
            event_dict[key] = REDACTED
    return event_dict


def formatter(fmt: Format = "kv") -> logging.Formatter:
    """A :class:`logging.Formatter` rendering each record as one line.

    Args:
        fmt: ``"kv"``: logfmt ``key=value`` pairs (values with spaces quoted, newlines
            escaped); ``"json"``: one JSON object.

    Raises:
        ValueError: ``fmt`` is neither ``"kv"`` nor ``"json"``.
    """
    renderer: Any
    if fmt == "kv":
        renderer = structlog.processors.LogfmtRenderer(key_order=_KEY_ORDER, drop_missing=True,
                                                         bool_as_flag=False)
    elif fmt == "json":
        renderer = structlog.processors.JSONRenderer(sort_keys=False, default=str)
    else:
        raise ValueError(f"log format must be 'kv' or 'json', not {fmt!r}")
    return structlog.stdlib.ProcessorFormatter(
        foreign_pre_chain=[
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.stdlib.add_log_level,
            structlog.stdlib.add_logger_name,
            structlog.stdlib.ExtraAdder(),
            _redact,
        ],
        processors=[
            structlog.stdlib.ProcessorFormatter.remove_processors_meta,
            structlog.processors.format_exc_info,
            renderer,
        ],
    )


def configure(level: int | str = "INFO", fmt: Format = "kv",
              stream: TextIO | None = None) -> logging.Handler:
    """Send every log record of the process to ``stream``, one line per event.

    Replaces the root logger's handlers (call it once, at start-up, as ``cardhall serve``
    does).

    Args:
        level: Lowest level logged (``"DEBUG"``, ``"INFO"``, ``"WARNING"``, ``"ERROR"`` or a
            :mod:`logging` number).
        fmt: ``"kv"`` or ``"json"`` (see :func:`formatter`).
        stream: Where lines go; standard error when None.

    Returns:
        The installed handler.

    Raises:
        ValueError: unknown ``level`` or ``fmt``.
    """
    handler = logging.StreamHandler(stream if stream is not None else sys.stderr)
    handler.setFormatter(formatter(fmt))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)
    return handler
