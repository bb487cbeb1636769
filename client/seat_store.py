"""Seat tokens kept on disk, so that ``cardhall play`` can take a seat back after the program
ended (Ctrl-C, a closed terminal) while the server still holds the seat (its grace window).

The store is one small JSON file, ``seats.json`` in the user's state folder
(``platformdirs.user_state_path("cardhall")``: ``$XDG_STATE_HOME/cardhall`` or
``~/.local/state/cardhall`` on Linux), readable by its owner only (mode 0600: a seat token
lets whoever holds it play the seat)::

    {"format": "cardhall-seats/1",
     "seats": {"ws://host:8765 r1a2b3": {"url": "ws://host:8765", "room": "r1a2b3",
                                          "seat": 0, "token": "...", "game": "skipper",
                                          "mode": "multi", "saved": 1767225600.0}}}

Entries are keyed by server URL and room id. A missing or unreadable file is an empty store
(an unreadable one is replaced on the next save); saving writes a new file and renames it
over the old one, so a crash never leaves half a file.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

from .state_file import load_entries, save_entries, state_path

FORMAT = "cardhall-seats/1"


def default_path() -> Path:
    """``seats.json`` in the user's state folder for Cardhall (the folder may not exist)."""
    return state_path("seats.json")


class SeatStore:
    """The seat tokens of ``cardhall play``, by server URL and room id.

    Args:
        path: The JSON file (default :func:`default_path`).
    """

    def __init__(self, path: str | os.PathLike[str] | None = None) -> None:
        self.path = Path(path) if path is not None else default_path()

    def _load(self) -> dict[str, dict[str, Any]]:
        """Every entry by key; ``{}`` when the file is missing, unreadable or not ours."""
        return {k: v for k, v in load_entries(self.path, FORMAT, "seats").items()
                if isinstance(v.get("room"), str) and isinstance(v.get("token"), str)}

    def _save(self, seats: dict[str, dict[str, Any]]) -> None:
        """Write ``seats`` (mode 0600, folder 0700) atomically.

        Raises:
            OSError: the folder or the file cannot be written.
        """
        save_entries(self.path, FORMAT, "seats", seats)

    @staticmethod
    def _key(url: str, room: str) -> str:
        return f"{url} {room}"

    def put(self, url: str, room: str, seat: int, token: str, *, game: str,
            mode: str | None = None) -> None:
        """Keep (or replace) the token of ``seat`` in ``room`` of the server at ``url``.

        Raises:
            OSError: the store cannot be written.
        """
        seats = self._load()
        seats[self._key(url, room)] = {"url": url, "room": room, "seat": seat, "token": token,
                                       "game": game, "mode": mode, "saved": time.time()}
        self._save(seats)

    def forget(self, url: str, room: str) -> None:
        """Drop the token of ``room`` at ``url`` (nothing happens when there is none).

        Raises:
            OSError: the store cannot be written.
        """
        seats = self._load()
        if seats.pop(self._key(url, room), None) is not None:
            self._save(seats)

    def entries(self, url: str) -> list[dict[str, Any]]:
        """The kept seats of the server at ``url``, oldest first: dicts with ``url``,
        ``room``, ``seat``, ``token``, ``game``, ``mode`` and ``saved`` (unix seconds)."""
        found = [e for e in self._load().values() if e.get("url") == url]
        return sorted(found, key=lambda e: float(e.get("saved") or 0))
