"""Small JSON files of the user's state folder, readable by their owner only (the seat
tokens of :mod:`.seat_store`, the account of :mod:`.account_file`): read leniently, written
atomically with mode 0600.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

import platformdirs

__all__ = ["load_entries", "save_entries", "state_path"]


def state_path(name: str) -> Path:
    """``name`` in the user's state folder for Cardhall
    (``platformdirs.user_state_path("cardhall")``: ``$XDG_STATE_HOME/cardhall`` or
    ``~/.local/state/cardhall`` on Linux; the folder may not exist)."""
    return platformdirs.user_state_path("cardhall") / name


def load_entries(path: Path, fmt: str, key: str) -> dict[str, dict[str, Any]]:
    """The map under ``key`` of the file ``path`` whose ``format`` is ``fmt``, its entries
    that are maps; ``{}`` when the file is missing, unreadable or not of that format."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict) or data.get("format") != fmt:
        return {}
    entries = data.get(key)
    if not isinstance(entries, dict):
        return {}
    return {k: v for k, v in entries.items() if isinstance(v, dict)}


def save_entries(path: Path, fmt: str, key: str, entries: dict[str, Any]) -> None:
    """Write ``{"format": fmt, key: entries}`` to ``path`` (mode 0600, its folder 0700):
    a new file renamed over the old one, so a crash never leaves half a file.

    Raises:
        OSError: the folder or the file cannot be written.
    """
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    text = json.dumps({"format": fmt, key: entries}, indent=1, sort_keys=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.stem}-", dir=path.parent)  # mode 0600
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
