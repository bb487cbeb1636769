"""The data file of the embedded store: its lock, settings, schema versions and writes.

One SQLite file (``cardhall serve --data PATH``) holds what
:class:`~cardhall.server.store.sqlite_store.SQLiteStore` keeps. :func:`open_file`:

1. takes an exclusive lock on ``PATH.lock`` (``filelock``: flock(2), which the kernel drops
   when the process dies, ``kill -9`` included), so a second process pointed at the same
   file is refused with :class:`DataFileLocked` instead of writing beside the first;
2. creates the file ``0600`` (its folder ``0700``) when it is missing;
3. sets WAL mode (readers, ``cardhall backup`` too, never block the writer), ``synchronous``
   NORMAL (``kill -9`` loses nothing committed; a power loss may lose the last transactions)
   or FULL (``--fsync always``), incremental auto-vacuum (:meth:`DataFile.vacuum`);
4. checks the file (:mod:`.sqlite_checks`: not empty unless new, no bytes appended, not
   another program's; ``PRAGMA quick_check``) and its ``user_version``, and runs the
   migrations it lacks (:mod:`.sqlite_schema`), each in one transaction with the version
   it reaches.

Writes (:meth:`DataFile.write`) are functions of the connection, and nobody is told of an
action before its entry is committed. How they commit (:data:`COMMITS`):

* ``"tick"``: the writes made in one event-loop tick share one transaction, committed by a
  callback the loop runs next (a plain callback, no task), and each caller waits for that
  commit (as the Redis store sends one pipeline per tick): one disk sync per tick, what
  ``--fsync always`` needs;
* ``"each"``: every write commits at once, and nothing waits;
* ``"adaptive"``: the first write of a tick commits at once (it has nothing to share its
  commit with yet, and an action alone in its tick is answered without waiting), and the
  writes that follow it in the same tick share one commit at the tick's end (under load,
  the system calls of a commit are paid once for many actions). The default with
  ``--fsync normal`` (benchmarks/RESULTS.md, "SQLite store").

A room's log append of one entry (the common case: :meth:`DataFile.append_alone`) commits
by itself: with ``--fsync normal``, as one ``write(2)`` to the append journal
(``PATH.appends``, sqlite_journal.py), folded into the ``log`` table by the file's next
transaction, or :data:`~.sqlite_journal.FOLD_SECONDS` after the answer by a fold made of
a few short transactions, one per turn of the event loop (:meth:`DataFile.fold`); with
``--fsync always``, as one ``INSERT`` in SQLite's autocommit (the same locks, write-ahead
log frames and sync as a transaction, without the ``BEGIN`` and ``COMMIT`` statements).

The schema and its migrations: :mod:`.sqlite_schema`.

Exception tree::

    StoreError (store/ports.py)
    └── DataFileError       the file cannot be used; the message says why and what to do
        │                   (sqlite_schema.py; re-exported here)
        └── DataFileLocked  another process holds the file
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

from filelock import FileLock, Timeout

from . import sqlite_checks as checks
from .sqlite_checkpoint import Checkpointer
from .sqlite_journal import (APPEND, FOLD_SECONDS, LIMIT, AppendJournal, Row, journal_path,
                             recover)
from .ports import StoreError
from .sqlite_schema import DataFileError as DataFileError  # the file's errors, re-exported
from .sqlite_schema import check, migrate, refuse, say

log = logging.getLogger("cardhall.sqlite")

T = TypeVar("T")
#: A write: a function of the connection, run inside a transaction (see DataFile.write).
Work = Callable[[sqlite3.Connection], Any]

#: How writes commit (see the module docstring).
COMMITS = ("tick", "each", "adaptive")
#: ``--fsync`` choices -> ``PRAGMA synchronous``.
SYNCHRONOUS = {"normal": "NORMAL", "always": "FULL"}
#: Bytes the write-ahead log is cut back to after a checkpoint (it only grows past this
#: between two checkpoints, i.e. by about 1,000 pages).
WAL_LIMIT = 32 * 1024 * 1024
#: Pages of write-ahead log after which a commit checkpoints by itself, should the
#: checkpointer thread lag (SQLite's own automatic checkpoint; its default is 1,000).
AUTO_CHECKPOINT_PAGES = 20_000
#: Free pages the file may hold before :meth:`DataFile.vacuum` gives them back to the disk.
FREE_PAGES_KEPT = 1024


class DataFileLocked(DataFileError):
    """Another process holds the data file's lock."""


def default_path() -> Path:
    """``$XDG_DATA_HOME/cardhall/cardhall.db``, else ``~/.local/share/cardhall/cardhall.db``
    (platformdirs' user data folder on other systems)."""
    from platformdirs import user_data_path
    return user_data_path("cardhall", appauthor=False) / "cardhall.db"


def _connect(path: Path, *, create: bool) -> sqlite3.Connection:
    """A connection in autocommit mode (transactions are explicit), the file made ``0600``
    (its folder ``0700``) when ``create`` and missing.

    Raises:
        DataFileError: the folder or the file cannot be made or opened.
    """
    try:
        if create and not path.exists():
            path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            os.close(os.open(path, os.O_CREAT | os.O_RDWR, 0o600))
        uri = path.resolve().as_uri() + ("" if create else "?mode=ro")
        return sqlite3.connect(uri, uri=True, isolation_level=None, check_same_thread=False)
    except (OSError, sqlite3.Error) as exc:
        raise DataFileError(f"cannot open the data file {path}: {exc}") from None


class DataFile:
    """An open data file, locked for this process (made by :func:`open_file`).

    Args:
        path: The file.
        db: Its connection (autocommit mode, WAL, migrated).
        lock: The held lock on ``PATH.lock`` (released by :meth:`close`).
        checkpointer: The thread that checkpoints the log (stopped by :meth:`close`).
        commit: How writes commit, one of :data:`COMMITS` (see the module docstring).
        journal: The append journal lone log appends go to (``--fsync normal``), or None
            (they commit in SQLite).

    Attributes:
        errors: Writes and reads the file refused (disk full, I/O errors) so far.
        failing: True from a refused write until a write succeeds (``/healthz`` says 503).
        commits: Transactions committed (the group commit's batches count once, as does
            a fold of the journal).
        writes: Writes committed (``writes / commits``: writes per transaction); a log
            append written to the journal counts as one.
    """

    def __init__(self, path: Path, db: sqlite3.Connection, lock: FileLock | None,
                 commit: str, checkpointer: Checkpointer | None = None,
                 journal: AppendJournal | None = None) -> None:
        self.path = path
        self.db = db
        self.lock = lock
        self.commit = commit
        self.checkpointer = checkpointer
        self.journal = journal
        self._fold_due = False
        self.errors = 0
        self.failing = False
        self.commits = 0
        self.writes = 0
        self._pending: list[tuple[Work, asyncio.Future[Any]]] = []
        self._flush_due = False
        self._tick_wrote = False  # "adaptive": a write of this tick committed already

    @contextlib.contextmanager
    def reading(self, *, fold: bool = True) -> Iterator[sqlite3.Connection]:
        """The connection, for reads: a SQLite error becomes a :class:`StoreError`.

        Args:
            fold: Fold the journal first (one transaction on the loop, of every room with
                rows waiting), so that the rooms' logs, states and snapshots are whole: the
                journal's rows change nothing else. False for a read of what only
                transactions write (lobby entries, join codes, accounts, ratings,
                leaderboards, the archive): such a read never waits for a fold, nor makes
                one (a lobby listed or a login every few milliseconds would otherwise fold
                as often).

        Raises:
            StoreError: the file refused the read (damaged, I/O error), or the fold of the
                journal before it (a full disk: what the journal holds is safe in it).
        """
        if fold and self.journal is not None and self.journal.waiting:
            self._commit([])
        try:
            yield self.db
        except sqlite3.Error as exc:
            self.errors += 1
            raise StoreError(f"the data file refused a read: {say(exc)}") from None

    async def write(self, work: Callable[[sqlite3.Connection], T]) -> T:
        """Run ``work(connection)`` in a committed transaction and return its result.

        It commits at once (the call never waits), or joins the transaction of this loop
        tick's writes and returns once that is committed, as :attr:`commit` says (see the
        module docstring). Should ``work`` raise (a fencing refusal: nothing may be written
        then), only its own writes are undone.

        Raises:
            StoreError: the file refused the transaction (disk full, I/O error): nothing of
                it was written. Whatever ``work`` raised, for its own write.
        """
        if self.commit == "each":
            return self.write_now(work)
        loop = asyncio.get_running_loop()
        if self.commit == "adaptive" and not self._tick_wrote:
            self._tick_wrote = True
            loop.call_soon(self._next_tick)
            return self.write_now(work)
        fut: asyncio.Future[T] = loop.create_future()
        self._pending.append((work, fut))
        if not self._flush_due:
            self._flush_due = True
            loop.call_soon(self.flush)
        return await fut

    def append_alone(self, row: Row, state: Row | None = None) -> bool:
        """Append the log row ``row`` (``(room, seq, packed entry)``; or, with a journal, a
        snapshot's record: :func:`~.sqlite_journal.snapshot_row`), and replace its room's
        state with ``state`` (``(room, STATE, packed state)``) when given, as a write of its
        own, committed before this returns, when one may commit by itself
        now; else write nothing and return False (the caller writes through :meth:`write`).

        With a journal (``--fsync normal``), both are written to it (one ``write(2)``,
        safe from a ``kill -9`` once this returns), folded into the file by a loop
        callback :data:`~.sqlite_journal.FOLD_SECONDS` later or any transaction or read
        first (sqlite_journal.py); not while the file refuses writes (:attr:`failing`) or
        the journal holds :data:`~.sqlite_journal.LIMIT` bytes. Without one, a lone
        ``row`` is one autocommit ``INSERT`` when a write commits at once by itself
        (:attr:`commit` ``"each"``, or ``"adaptive"`` and no write of this tick yet;
        benchmarks/RESULTS.md, sessions 15 and 17).

        Returns:
            True when ``row`` is written and committed.

        Raises:
            StoreError: the journal or the file refused it (disk full, I/O error) or it
                broke a constraint: nothing of it was written.
        """
        journal = self.journal
        if journal is not None:
            if self.failing or journal.size > LIMIT:
                return False
            try:
                journal.append(row, state)
            except OSError as exc:
                raise self._refused(exc) from None
            self.writes += 1
            if not self._fold_due:
                self._fold_due = True
                asyncio.get_running_loop().call_later(FOLD_SECONDS, self.fold)
            return True
        if state is not None or row[1] < 0:  # two statements, or not a log row
            return False
        if self.commit != "each":
            if self.commit != "adaptive" or self._tick_wrote:
                return False
            self._tick_wrote = True
            asyncio.get_running_loop().call_soon(self._next_tick)
        try:
            self.db.execute(APPEND, row)
        except sqlite3.IntegrityError as exc:  # as _run: its rows clash, nothing written
            raise StoreError(f"the data file refused a write: {exc}") from None
        except sqlite3.Error as exc:
            self._roll_back()  # never seen open: SQLite ends a failed autocommit
            raise self._refused(exc) from None
        self._committed(1)
        return True

    def fold(self) -> None:
        """Fold the journal's waiting rows into the file: a loop callback
        :data:`~.sqlite_journal.FOLD_SECONDS` after an append, which makes the first pass
        (one transaction folding a few rooms' rows) and leaves the next ones to the next
        turns of the loop (:meth:`_fold_pass`; sqlite_journal.py). Never raises: a refusal
        is counted and logged, and the rows stay in the journal for the next fold,
        transaction or open."""
        journal = self.journal
        if journal is None or journal.due:  # closed, or a fold under way
            return
        if not journal.waiting:
            self._fold_due = False
            return
        journal.begin_fold()
        self._fold_pass()

    def _fold_pass(self) -> None:
        """One pass of the fold under way (a loop callback): fold the next rooms' rows in
        one transaction, then call itself on the next turn of the loop until no room is
        due. The last pass empties or rewrites the journal
        (:meth:`~.sqlite_journal.AppendJournal.compact`) and, when rows were appended
        meanwhile, sets the next fold."""
        journal = self.journal
        if journal is None:  # closed meanwhile (it folded everything)
            return
        rows, rooms = journal.next_pass()
        try:
            if rows:
                self._commit([], (rows, rooms))
        except StoreError:  # counted and logged: the next fold tries again
            journal.due.clear()
        except BaseException:  # a bug: the next append sets a fold again
            journal.due.clear()
            self._fold_due = False
            raise
        loop = asyncio.get_running_loop()
        if journal.due:
            loop.call_soon(self._fold_pass)
            return
        journal.compact()
        self._fold_due = bool(journal.waiting)
        if self._fold_due:
            loop.call_later(FOLD_SECONDS, self.fold)

    def _fold_all(self) -> None:
        """Fold every waiting row of the journal now, in one transaction (at close).
        Never raises (see :meth:`fold`)."""
        if self.journal is not None and self.journal.waiting:
            with contextlib.suppress(StoreError):
                self._commit([])

    def _next_tick(self) -> None:
        """A loop callback: the tick of the last write that committed at once is over."""
        self._tick_wrote = False

    def write_now(self, work: Callable[[sqlite3.Connection], T]) -> T:
        """Run ``work(connection)`` in a transaction of its own, committed before this
        returns (no event loop needed).

        Raises:
            StoreError: the file refused the transaction. Whatever ``work`` raised.
        """
        ((result, error),) = self._commit([work])
        if error is not None:
            raise error
        return result  # type: ignore[no-any-return]

    def flush(self) -> None:
        """Commit the writes waiting for this tick's transaction (a loop callback; never
        raises: each caller gets its result or error)."""
        pending, self._pending, self._flush_due = self._pending, [], False
        if not pending:
            return
        try:
            done = self._commit([work for work, _ in pending])
        except Exception as exc:  # refused, or a bug in the fold: every caller is told
            for _, fut in pending:
                if not fut.done():
                    fut.set_exception(StoreError(str(exc)) if isinstance(exc, StoreError)
                                      else exc)
            return
        for (_, fut), (result, error) in zip(pending, done):
            if fut.done():  # its caller was cancelled
                continue
            if error is not None:
                fut.set_exception(error)
            else:
                fut.set_result(result)

    def _commit(self, works: list[Work], fold: tuple[list[Row], list[str]] | None = None
                ) -> list[tuple[Any, Exception | None]]:
        """Run ``works`` in one transaction and commit, after the journal's waiting rows
        (folded by it; or, given ``fold``, a pass of a fold: ``(rows, their rooms)``,
        :meth:`~.sqlite_journal.AppendJournal.next_pass`). When there are several works, or
        rows to fold, each work runs inside a savepoint, so that one that raises is undone
        alone; a lone work that raises undoes the transaction.

        Returns:
            Per work, ``(result, None)``, or ``(None, error)`` when it raised.

        Raises:
            StoreError: the transaction failed (nothing of it was written).
            Exception: any other error of the fold (a bug), raised once the transaction is
                rolled back (nothing of it written, the file's write lock released).
        """
        db = self.db
        committed = False
        journal = self.journal
        folding = None if journal is None else journal.rows() if fold is None else fold[0]
        try:
            db.execute("BEGIN IMMEDIATE")
            if folding and journal is not None:
                journal.fold_into(db, folding)
            nested = len(works) > 1 or bool(folding)
            done = [self._run(work, nested) for work in works]
            if db.in_transaction:  # a lone work that raised rolled it back
                db.execute("COMMIT")
                committed = True
        except sqlite3.Error as exc:
            self._roll_back()
            raise self._refused(exc) from None
        except BaseException:  # a bug (in a fold): undone, and the write lock let go
            self._roll_back()
            raise
        if committed:  # the works that raised were undone: they are no committed writes
            if folding and journal is not None:
                journal.folded(None if fold is None else fold[1])
            self._committed(sum(1 for _, error in done if error is None))
        return done

    def _roll_back(self) -> None:
        """Roll back the open transaction, if any (a failure to do so is the next
        transaction's to report)."""
        with contextlib.suppress(sqlite3.Error):
            if self.db.in_transaction:
                self.db.execute("ROLLBACK")

    def _refused(self, exc: sqlite3.Error | OSError) -> StoreError:
        """Count a write the file refused (``exc``), say so once, and return the error."""
        self.errors += 1
        if not self.failing:
            log.error("the data file %s refused a write: %s", self.path, say(exc))
        self.failing = True
        return StoreError(f"the data file refused the write: {say(exc)}")

    def _committed(self, writes: int) -> None:
        """Count a committed transaction of ``writes`` writes; the file takes writes again."""
        self.commits += 1
        self.writes += writes
        if self.failing:
            log.warning("the data file %s takes writes again", self.path)
            self.failing = False

    def _run(self, work: Work, nested: bool) -> tuple[Any, Exception | None]:
        """Run one ``work`` of the open transaction (inside a savepoint when ``nested``).
        Its own refusal (any exception but a SQLite error) or a constraint it breaks undo
        its writes (the savepoint, or the whole transaction) and is returned.

        Raises:
            sqlite3.Error: the file refused the work (disk full, I/O error): the
                transaction must be rolled back.
        """
        db = self.db
        if nested:
            db.execute("SAVEPOINT w")
        try:
            result = work(db)
        except sqlite3.IntegrityError as exc:  # its rows clash with others: a refusal
            error: Exception = StoreError(f"the data file refused a write: {exc}")
        except sqlite3.Error:
            raise
        except Exception as exc:  # the work's own refusal (fencing, log length)
            error = exc
        else:
            if nested:
                db.execute("RELEASE w")
            return result, None
        db.execute("ROLLBACK TO w" if nested else "ROLLBACK")
        if nested:
            db.execute("RELEASE w")
        return None, error

    def vacuum(self) -> int:
        """Give free pages back to the disk when more than :data:`FREE_PAGES_KEPT` are free
        (incremental vacuum: the file never holds more than that many unused pages after a
        deletion). Returns the pages given back. Errors are logged, not raised (a full disk
        may refuse it; the pages stay free for reuse)."""
        try:
            free = int(self.db.execute("PRAGMA freelist_count").fetchone()[0])
            if free <= FREE_PAGES_KEPT:
                return 0
            # executescript steps it to its end (each step frees one page; execute() would
            # step it once: the pragma has no result columns).
            self.db.executescript(f"PRAGMA incremental_vacuum({free - FREE_PAGES_KEPT // 2})")
        except sqlite3.Error as exc:
            log.warning("incremental vacuum of %s failed: %s", self.path, say(exc))
            return 0
        return free - FREE_PAGES_KEPT // 2

    def close(self) -> None:
        """Commit what waits, fold the journal, checkpoint the write-ahead log into the
        file, close, and release the lock. A refused fold is logged; the journal keeps its
        rows for the next open."""
        self.flush()
        if self.journal is not None:
            self._fold_all()
            self.journal.close()
            self.journal = None
        log.debug("data file %s closed: %d writes in %d transactions", self.path, self.writes,
                  self.commits)
        if self.checkpointer is not None:
            self.checkpointer.stop()
            self.checkpointer = None
        with contextlib.suppress(sqlite3.Error):
            self.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        self.db.close()
        if self.lock is not None:
            self.lock.release()
            self.lock = None


def lock_path(path: Path) -> Path:
    """The lock file of data file ``path`` (``PATH.lock``)."""
    return path.with_name(path.name + ".lock")


def take_lock(path: Path) -> FileLock:
    """Lock data file ``path`` for this process (its folder made ``0700`` when missing).

    Raises:
        DataFileLocked: another process holds it.
        DataFileError: the lock file cannot be made.
    """
    lock = FileLock(lock_path(path), mode=0o600, thread_local=False)
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        lock.acquire(timeout=0)
    except Timeout:
        try:  # not taken by another process when it cannot be made at all (/proc/x.lock)
            os.close(os.open(lock_path(path), os.O_RDWR | os.O_CREAT, 0o600))
        except OSError as exc:
            raise DataFileError(f"cannot lock the data file {path}: {exc}") from None
        raise DataFileLocked(f"the data file {path} is in use by another cardhall process "
                             f"(it holds {lock_path(path)}): stop that process, or give "
                             "another --data") from None
    except OSError as exc:
        raise DataFileError(f"cannot lock the data file {path}: {exc}") from None
    return lock


def open_file(path: Path, *, fsync: str = "normal", commit: str = "each",
              journal: bool | None = None) -> DataFile:
    """Open (or create) the data file ``path`` for this process: lock, settings, checks and
    migrations (see the module docstring).

    Args:
        path: The file.
        fsync: ``"normal"`` (``synchronous=NORMAL``) or ``"always"`` (``FULL``).
        commit: One of :data:`COMMITS` (see :class:`DataFile`).
        journal: Lone log appends go to the append journal (:meth:`DataFile.append_alone`);
            None: with ``fsync "normal"``. Never with ``"always"`` (a journal's write is
            not on the disk when it returns). A journal left by a killed process is folded
            into the file either way.

    Raises:
        DataFileLocked: another process holds the file.
        DataFileError: it cannot be opened or created, is not a Cardhall data file, is
            damaged or of a newer schema, or a migration failed.
        ValueError: an unknown ``fsync`` or ``commit``.
    """
    if fsync not in SYNCHRONOUS:
        raise ValueError(f"fsync must be one of {', '.join(SYNCHRONOUS)}, not {fsync!r}")
    if commit not in COMMITS:
        raise ValueError(f"commit must be one of {', '.join(COMMITS)}, not {commit!r}")
    refuse(checks.problem(path, None))
    lock = take_lock(path)
    db: sqlite3.Connection | None = None
    try:
        created = not path.exists()
        db = _connect(path, create=True)
        refuse(checks.problem(path, created))
        found = check(db, path)
        try:
            if found == 0:
                db.execute("PRAGMA auto_vacuum = INCREMENTAL")  # before the first table
            db.execute("PRAGMA journal_mode = WAL")
            db.execute(f"PRAGMA synchronous = {SYNCHRONOUS[fsync]}")
            db.execute(f"PRAGMA journal_size_limit = {WAL_LIMIT}")
            db.execute("PRAGMA cache_size = -16384")  # KiB: 16 MiB of page cache
            db.execute(f"PRAGMA wal_autocheckpoint = {AUTO_CHECKPOINT_PAGES}")
        except sqlite3.Error as exc:
            raise DataFileError(f"cannot set up the data file {path}: {say(exc)}") from None
        migrate(db, path, found)
        _recover(db, path)
        appends = _open_journal(path) if fsync == "normal" and journal is not False else None
    except BaseException:
        if db is not None:
            db.close()
        lock.release()
        raise
    return DataFile(path, db, lock, commit,
                    Checkpointer(path, SYNCHRONOUS[fsync]), appends)


def _recover(db: sqlite3.Connection, path: Path) -> None:
    """Fold the append journal that a process killed while serving ``path`` left.

    Raises:
        DataFileError: the journal cannot be read or folded (what it holds stays in it).
    """
    try:
        recover(db, path)
    except (OSError, sqlite3.Error) as exc:
        raise DataFileError(f"cannot fold the append journal of {path} into it: {exc}"
                            " (free some disk space and start again)") from None


def _open_journal(path: Path) -> AppendJournal:
    """The append journal of ``path``, open for appends.

    Raises:
        DataFileError: it cannot be opened.
    """
    try:
        return AppendJournal(path)
    except OSError as exc:
        raise DataFileError(f"cannot open the append journal of {path}: {exc}") from None


def _fold_idle(path: Path) -> None:
    """Fold the append journal of data file ``path`` when no process serves it (a server
    killed with entries in it), so that a copy of the file holds them; a serving process
    folds its own at once (sqlite_journal.py). A file of an older schema is migrated first,
    as a server's start would: the fold writes this version's columns.

    Raises:
        DataFileError: the journal cannot be folded (see :func:`_recover`), the file is
            damaged or of a newer schema, or a migration failed.
    """
    try:
        if not journal_path(path).stat().st_size:
            return
        lock = take_lock(path)
    except (FileNotFoundError, DataFileLocked):
        return
    try:
        db = _connect(path, create=True)  # read-write: the fold writes
        try:
            migrate(db, path, check(db, path))  # the fold writes this version's columns
            _recover(db, path)
        finally:
            db.close()
    finally:
        lock.release()


def backup(source: Path, dest: Path) -> int:
    """Copy data file ``source`` to ``dest`` with SQLite's online backup API, safe while a
    server writes to it (the copy is the state of one moment; the server is not stopped,
    nor its lock taken; the log entries of the last milliseconds, in its append journal
    until its next fold, are not in it). When no server holds the file, its journal is
    folded into it first. ``dest`` is made ``0600``; an existing ``dest`` is replaced.

    Returns:
        The size of the copy in bytes.

    Raises:
        DataFileError: ``source`` is missing or unreadable, not a Cardhall data file, or
            ``dest`` cannot be written.
    """
    if not source.is_file():
        raise DataFileError(f"no data file at {source}")
    refuse(checks.problem(source, None))
    _fold_idle(source)
    refuse(checks.problem(source, False))
    src = _connect(source, create=False)
    part = dest.with_name(dest.name + ".part")
    try:
        check(src, source)
        part.unlink(missing_ok=True)
        out = _connect(part, create=True)
        try:
            src.backup(out)  # all pages in one step: one consistent read of the source
            out.execute("PRAGMA journal_mode = DELETE")  # one self-contained file
        finally:
            out.close()
        os.replace(part, dest)
    except (OSError, sqlite3.Error) as exc:
        part.unlink(missing_ok=True)
        raise DataFileError(f"cannot back {source} up to {dest}: {exc}") from None
    finally:
        src.close()
    return dest.stat().st_size
