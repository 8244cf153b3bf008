"""A Database that runs each transaction on the caller's own thread, for a program with one
client and nothing else on its event loop (`quizbot play --jsonl`).

The bot's Database hands every transaction to a database thread so the event loop keeps
serving other chats meanwhile; each hand-off costs two thread wake-ups, which is most of the
cost of a cheap request when the caller has nothing else to do while it waits. Here the
transaction runs at once instead: the same connection settings, the same BEGIN IMMEDIATE ...
COMMIT, and `write` still returns only once its transaction is committed.

Checkpoints stay off the request path as in the bot (bot/storage/checkpoints.py): every
commit here is reported to the Database's WAL keeper, whose thread copies the log into the
database file (PASSIVE: it never blocks the writer). What a commit guarantees does not change:
in WAL mode with synchronous=NORMAL a committed transaction is in the log, which survives the
program being killed; the checkpoint only moves it along.
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Callable, Iterator
from typing import TypeVar

from bot.storage.db import (
    Database,
    DatabaseBusy,
    _busy,
    run_transaction,
)
from bot.storage.transactions import abandon

T = TypeVar("T")


class BatchFailed(Exception):
    """A write raised inside a batch run without savepoints: the whole batch was rolled back."""


class InlineDatabase(Database):
    """Database whose call/write/read block the calling thread (no database thread hop)."""

    _in_batch = False
    _savepoints = True
    batch_failed = False  # a write raised in the current batch run without savepoints

    def _connection(self) -> sqlite3.Connection:
        if self._conn is None:
            raise RuntimeError("database is not open")
        return self._conn

    async def call(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        """Run fn(conn) now, outside any explicit transaction."""
        return fn(self._connection())

    async def write(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        """Run fn(conn) in a write transaction; returns once that transaction is committed
        (inside `batch`: once it ran; the batch commits them all)."""
        conn = self._connection()
        if self._in_batch:
            if self._savepoints:
                return _in_savepoint(conn, fn)
            try:
                return fn(conn)
            except BaseException:
                self.batch_failed = True  # its partial work is in the batch: all must go
                raise
        try:
            result = run_transaction(conn, fn)
        except sqlite3.OperationalError as err:
            _raise_if_busy(err)
            raise
        self._committed()
        return result

    @contextlib.contextmanager
    def batch(self, *, savepoints: bool = True) -> Iterator[None]:
        """One transaction for every write and read inside the block (group commit). A caller
        answers the writes' requests only after the block.

        With `savepoints` each write runs in a savepoint of its own, so one that raises undoes
        only its own work and the block's end commits the rest. Without, the writes run bare
        (a savepoint copies every page its write changes into a sub-journal, a sixth of a
        cheap request's cost): once one raises, `batch_failed` is set, and the block's end
        rolls everything back and raises BatchFailed, for the caller to run the batch again
        with savepoints."""
        conn = self._connection()
        try:
            conn.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as err:
            _raise_if_busy(err)
            raise
        self._in_batch, self._savepoints, self.batch_failed = True, savepoints, False
        try:
            yield
            if self.batch_failed:
                raise BatchFailed("a write raised in a batch without savepoints")
            conn.execute("COMMIT")
        except BaseException:
            abandon(conn)
            raise
        finally:
            self._in_batch, self._savepoints, self.batch_failed = False, True, False
        self._committed()

    def _committed(self) -> None:
        if self.wal is not None:  # the checkpoint thread copies what was committed
            self.wal.committed()

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
