"""The data file's checkpoints: its write-ahead log copied into it from a thread of its own.

A checkpoint syncs the log and the file (``synchronous`` NORMAL or FULL). Done by a commit
on the event loop, as SQLite does by default every 1,000 pages, those syncs would stall
every room of the process for milliseconds; :class:`Checkpointer` makes them on its own
connection instead (sqlite_file.py opens one per data file).
"""

from __future__ import annotations

import logging
import sqlite3
import threading
from pathlib import Path

log = logging.getLogger("cardhall.sqlite")

#: Seconds between two checkpoints of the write-ahead log into the file (:class:`Checkpointer`).
CHECKPOINT_SECONDS = 1.0


class Checkpointer:
    """Copies the write-ahead log into the data file from a thread of its own, every
    :data:`CHECKPOINT_SECONDS` (``PRAGMA wal_checkpoint(PASSIVE)`` on its own connection:
    it never waits for the writer, nor the writer for it). A checkpoint syncs the log and
    the file (``synchronous`` NORMAL or FULL): done by a commit on the event loop, as
    SQLite does by default every 1,000 pages, those syncs would stall every room of the
    process for milliseconds.

    Args:
        path: The data file.
        synchronous: Its ``PRAGMA synchronous`` value.
    """

    def __init__(self, path: Path, synchronous: str) -> None:
        self.path = path
        self.synchronous = synchronous
        self.checkpoints = 0
        self._stop = threading.Event()
        self._worker = threading.Thread(target=self._run, name="cardhall-checkpoint",
                                        daemon=True)
        self._worker.start()

    def _run(self) -> None:
        try:
            db = sqlite3.connect(self.path, isolation_level=None)
            db.execute(f"PRAGMA synchronous = {self.synchronous}")
        except sqlite3.Error as exc:
            log.error("checkpoints of %s not made in a thread: %s", self.path, exc)
            return
        try:
            while not self._stop.wait(CHECKPOINT_SECONDS):
                try:
                    db.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
                    self.checkpoints += 1
                except sqlite3.Error as exc:  # a full disk, say: the next one may pass
                    log.warning("checkpoint of %s failed: %s", self.path, exc)
        finally:
            db.close()

    def stop(self) -> None:
        """Stop the thread (a checkpoint under way ends first)."""
        self._stop.set()
        self._worker.join()
