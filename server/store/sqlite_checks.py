"""Checks of a data file's bytes that SQLite does not make, run before it opens the file
(``cardhall serve --data PATH``, ``cardhall backup``; :mod:`.sqlite_file` raises their
answers as its ``DataFileError``).

SQLite takes a zero-length file for an empty database and ignores the bytes past the pages
its header counts, and it opens any SQLite file: without these checks a data file emptied
by accident would start as an empty lobby with every account gone, one with bytes appended
would start as if whole, and another program's database would get Cardhall's tables. Each
such file is refused, untouched, with the reason and what to do:

* :func:`kind_problem` (before the file's lock): not a regular file; or bytes that do not
  begin with SQLite's header (a text file, ``/proc/version``);
* :func:`bytes_problem` (under the lock): zero-length, unless this start made it; a page
  size SQLite never writes; bytes past the pages the header counts, when no write-ahead
  log is beside the file (with one, the log may hold pages the file and its header do not
  have yet: SQLite's checkpoint writes them and cuts the file to its size);
* :func:`schema_problem` (once SQLite reads it): schema version 0 with tables, i.e. another
  program's database.

Each returns None when the file passes, else the reason as one sentence (the path included);
:func:`problem` runs the first two as a file's state asks. Nothing here writes.
"""

from __future__ import annotations

import sqlite3
import stat
from pathlib import Path

#: The first 16 bytes of every SQLite 3 file (SQLite's file format, section 1.3).
SQLITE_MAGIC = b"SQLite format 3\x00"
#: The size of SQLite's file header (bytes).
HEADER_BYTES = 100
#: Bytes of a write-ahead log's own header: a longer log holds frames (pages).
WAL_HEADER_BYTES = 32

_RESTORE = "restore a backup (cardhall backup), or move it away to start empty"


def kind_problem(path: Path) -> str | None:
    """Why ``path`` cannot be a data file, judged by its kind and its first bytes, or None
    (also when it is missing: it will be made).

    Raises:
        OSError: it cannot be looked at or read (permissions).
    """
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        return None
    if not stat.S_ISREG(mode):
        what = "a folder" if stat.S_ISDIR(mode) else "not a regular file"
        return f"the data file {path} is not a file ({what}): give a file's path in --data"
    with open(path, "rb") as f:
        head = f.read(HEADER_BYTES)
    if head and (len(head) < HEADER_BYTES or not head.startswith(SQLITE_MAGIC)):
        return (f"the data file {path} is not a Cardhall data file or is damaged (it does not "
                f"begin with SQLite's header): {_RESTORE}, or give another --data")
    return None


def problem(path: Path, created: bool | None) -> str | None:
    """:func:`kind_problem` (``created`` None: before the file's lock), else
    :func:`bytes_problem` (``created``: by this start); a file that cannot be read is a
    problem too (the system's reason)."""
    try:
        return kind_problem(path) if created is None else bytes_problem(path, created)
    except OSError as exc:
        return f"cannot read the data file {path}: {exc}"


def _wal_has_frames(path: Path) -> bool:
    """A write-ahead log with pages in it is beside data file ``path``."""
    try:
        return Path(f"{path}-wal").stat().st_size > WAL_HEADER_BYTES
    except FileNotFoundError:
        return False


def bytes_problem(path: Path, created: bool) -> str | None:
    """Why the existing file ``path`` is not a whole data file, or None.

    Args:
        path: The data file (it exists).
        created: This start made it (a zero-length file is then just new).

    Raises:
        OSError: it cannot be read.
    """
    size = path.stat().st_size
    if size == 0:
        if created or _wal_has_frames(path):
            return None
        return (f"the data file {path} is empty (0 bytes), so not a Cardhall data file: its "
                f"data is not there; {_RESTORE}")
    problem = kind_problem(path)  # the first bytes again, now that the file is locked
    if problem is not None:
        return problem
    with open(path, "rb") as f:
        head = f.read(HEADER_BYTES)
    page = int.from_bytes(head[16:18], "big")
    page = 65536 if page == 1 else page
    if page < 512 or page & (page - 1):
        return (f"the data file {path} is damaged (its header gives a page size of {page} "
                f"bytes): {_RESTORE}")
    if _wal_has_frames(path):
        return None
    pages = int.from_bytes(head[28:32], "big")
    if pages and head[24:28] == head[92:96]:  # the header's page count is valid
        whole = pages * page
    else:  # written by a SQLite before 3.7.0: the file's size counts its pages
        whole = size - size % page
    if size > whole:
        return (f"the data file {path} has {size - whole} bytes more than the {whole} bytes "
                f"of its pages (something was appended to it): {_RESTORE}")
    return None


def schema_problem(db: sqlite3.Connection, path: Path, version: int) -> str | None:
    """Why the SQLite file ``path`` (open as ``db``, of schema ``version``) is not a
    Cardhall data file, or None: a file of version 0 must hold no table (a new file).

    Raises:
        sqlite3.Error: SQLite cannot read its schema.
    """
    if version:
        return None
    tables = [row[0] for row in db.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name LIMIT 4")]
    if not tables:
        return None
    return (f"the data file {path} is the database of another program (tables "
            f"{', '.join(tables)}; no Cardhall schema version): give another --data")
