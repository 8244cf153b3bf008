"""A Database that runs each transaction on the caller's own thread, for a program with one
client and nothing else on its event loop (`quizbot play --jsonl`).

The bot's Database hands every transaction to a database thread so the event loop keeps
serving other chats meanwhile; each hand-off costs two thread wake-ups, which is most of the
cost of a cheap request when the caller has nothing else to do while it waits. Here the
transaction runs at once instead: the same connection settings, the same BEGIN IMMEDIATE ...
COMMIT, and `write` still returns only once its transaction is committed.

Checkpoints (copying the write-ahead log into the database file, with two fsyncs) leave the
request path too: SQLite would run one inside the COMMIT that fills the log to 1,000 pages,
every ~70 requests here, and that one request would wait tens of milliseconds for the disk. A
thread of its own runs them instead (PASSIVE: it never blocks the writer). What a commit
guarantees does not change: in WAL mode with synchronous=NORMAL a committed transaction is in
the log, which survives the program being killed; the checkpoint only moves it along.
"""

from __future__ import annotations

import contextlib
import logging
import sqlite3
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypeVar

from bot.storage.db import (
    Database,
    DatabaseBusy,
    _abandon,
    _busy,
    connect_sync,
    run_transaction,
)

log = logging.getLogger(__name__)
T = TypeVar("T")
# Commits between two checkpoints: a next or an answer writes 10-15 pages, so about the
# 1,000 pages at which SQLite would checkpoint by itself.
CHECKPOINT_EVERY = 64


class InlineDatabase(Database):
    """Database whose call/write/read block the calling thread (no database thread hop)."""

    _checkpointer: _Checkpointer | None = None
    _commits = 0
    _in_batch = False

    async def open(self) -> None:
        """As Database.open, then checkpoints move to a thread of their own."""
        await super().open()
        self._connection().execute("PRAGMA wal_autocheckpoint=0")
        self._checkpointer = _Checkpointer(self.path)

    async def close(self) -> None:
        """Stop the checkpoint thread, then close as Database does (the last connection to
        close checkpoints what is left)."""
        checkpointer, self._checkpointer = self._checkpointer, None
        if checkpointer is not None:
            checkpointer.stop()
        await super().close()

    def _connection(self) -> sqlite3.Connection:
        if self._conn is None:
            raise RuntimeError("database is not open")
        return self._conn

    async def call(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        """Run fn(conn) now, outside any explicit transaction."""
        return fn(self._connection())

    async def write(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        """Run fn(conn) in a write transaction; returns once that transaction is committed
        (inside `batch`: once its savepoint is released; the batch commits them all)."""
        conn = self._connection()
        if self._in_batch:
            return _in_savepoint(conn, fn)
        try:
            result = run_transaction(conn, fn)
        except sqlite3.OperationalError as err:
            _raise_if_busy(err)
            raise
        self._committed()
        return result

    @contextlib.contextmanager
    def batch(self) -> Iterator[None]:
        """One transaction for every write and read inside the block (group commit): each
        write in a savepoint of its own, so one that raises undoes only its own work; the
        block's end commits the rest. A caller answers the writes' requests only after it."""
        conn = self._connection()
        try:
            conn.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as err:
            _raise_if_busy(err)
            raise
        self._in_batch = True
        try:
            yield
            conn.execute("COMMIT")
        except BaseException:
            _abandon(conn)
            raise
        finally:
            self._in_batch = False
        self._committed()

    def _committed(self) -> None:
        self._commits += 1
        if self._commits % CHECKPOINT_EVERY == 0 and self._checkpointer is not None:
            self._checkpointer.wake()

    async def read(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        """Run a read-only fn(conn) in one read transaction on the same connection (no write
        is ever in progress between two calls, so it sees everything committed)."""
        conn = self._connection()
        if self._in_batch:
            return fn(conn)  # the batch's writes so far are what a later request must see
        conn.execute("BEGIN")
        try:
            return fn(conn)
        finally:
            conn.execute("COMMIT")


def _raise_if_busy(err: sqlite3.OperationalError) -> None:
    if _busy(err) and not isinstance(err, DatabaseBusy):
        raise DatabaseBusy(f"write lock held elsewhere: {err}") from err


def _in_savepoint(conn: sqlite3.Connection, fn: Callable[[sqlite3.Connection], T]) -> T:
    conn.execute("SAVEPOINT request")
    try:
        result = fn(conn)
    except BaseException:
        conn.execute("ROLLBACK TO request")
        conn.execute("RELEASE request")
        raise
    conn.execute("RELEASE request")
    return result


class _Checkpointer:
    """A thread with its own connection that runs a PASSIVE checkpoint when woken."""

    def __init__(self, path: Path) -> None:
        self._path = path
        self._conn = connect_sync(path)
        self._wanted = threading.Event()
        self._stopping = False
        self._thread = threading.Thread(target=self._run, name="quizbot-checkpoint", daemon=True)
        self._thread.start()

    def wake(self) -> None:
        """Ask for a checkpoint (returns at once)."""
        self._wanted.set()

    def stop(self) -> None:
        """Finish a checkpoint in progress, then end the thread and close its connection."""
        self._stopping = True
        self._wanted.set()
        self._thread.join()
        self._conn.close()

    def _run(self) -> None:
        while True:
            self._wanted.wait()
            self._wanted.clear()
            if self._stopping:
                return
            try:
                self._conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
            except sqlite3.Error as err:  # the log keeps growing until a later one succeeds
                log.warning("checkpoint of %s failed: %s", self._path, err)
