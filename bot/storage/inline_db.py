"""A Database that runs each transaction on the caller's own thread, for a program with one
client and nothing else on its event loop (`quizbot play --jsonl`).

The bot's Database hands every transaction to a database thread so the event loop keeps
serving other chats meanwhile; each hand-off costs two thread wake-ups, which is most of the
cost of a cheap request when the caller has nothing else to do while it waits. Here the
transaction runs at once instead: the same connection settings, the same BEGIN IMMEDIATE ...
COMMIT, and `write` still returns only once its transaction is committed.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from typing import TypeVar

from bot.storage.db import Database, DatabaseBusy, _busy, run_transaction

T = TypeVar("T")


class InlineDatabase(Database):
    """Database whose call/write/read block the calling thread (no database thread hop)."""

    def _connection(self) -> sqlite3.Connection:
        if self._conn is None:
            raise RuntimeError("database is not open")
        return self._conn

    async def call(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        """Run fn(conn) now, outside any explicit transaction."""
        return fn(self._connection())

    async def write(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        """Run fn(conn) in a write transaction; returns once that transaction is committed."""
        try:
            return run_transaction(self._connection(), fn)
        except sqlite3.OperationalError as err:
            if _busy(err) and not isinstance(err, DatabaseBusy):
                raise DatabaseBusy(f"write lock held elsewhere: {err}") from err
            raise

    async def read(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        """Run a read-only fn(conn) in one read transaction on the same connection (no write
        is ever in progress between two calls, so it sees everything committed)."""
        conn = self._connection()
        conn.execute("BEGIN")
        try:
            return fn(conn)
        finally:
            conn.execute("COMMIT")
