"""Write transactions on the writer's connection: one function in BEGIN IMMEDIATE ... COMMIT,
or a batch of them sharing one commit (group commit; see `Database` in db.py)."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")


def run_transaction(conn: sqlite3.Connection, fn: Callable[[sqlite3.Connection], T]) -> T:
    """Run fn inside BEGIN IMMEDIATE ... COMMIT, rolling back if it raises."""
    # IMMEDIATE takes the write lock up front, so a read-then-write transaction never meets
    # SQLITE_BUSY_SNAPSHOT, which busy_timeout cannot wait out.
    conn.execute("BEGIN IMMEDIATE")
    try:
        result = fn(conn)
        conn.execute("COMMIT")
    except BaseException:
        abandon(conn)
        raise
    return result


def abandon(conn: sqlite3.Connection) -> None:
    """Roll back whatever is open: a failed COMMIT (disk full, I/O error, a deferred foreign
    key) leaves the transaction open, and the next BEGIN on this one connection would fail."""
    if conn.in_transaction:
        conn.execute("ROLLBACK")


def run_batch(
    conn: sqlite3.Connection, fns: list[Callable[[sqlite3.Connection], Any]]
) -> list[tuple[bool, Any]]:
    """Run several write functions in one transaction; one raising undoes only its own work,
    the others still commit together. Returns (ok, result-or-exception) per function.

    No savepoint while none raises: a savepoint around each function copies every page it
    changes again into a sub-journal (an answer's summaries share pages with the answers
    before it), which cost a grouped answer more than its statements. When one raises, the
    whole transaction is rolled back and run again with a savepoint for each function, so
    the functions before it run twice: a write function changes nothing but the database
    (what it returns comes from the run that commits).
    """
    if len(fns) == 1:
        # Alone in its transaction, a function's failure can roll back the whole of it.
        try:
            return [(True, run_transaction(conn, fns[0]))]
        except Exception as err:
            return [(False, err)]
    out: list[tuple[bool, Any]] = []
    conn.execute("BEGIN IMMEDIATE")
    try:
        for fn in fns:
            try:
                out.append((True, fn(conn)))
            except Exception as err:  # handed back to its own caller, after the replay
                failed = (len(out), err)
                break
        else:
            conn.execute("COMMIT")
            return out
        conn.execute("ROLLBACK")
    except BaseException:
        abandon(conn)
        raise
    return _run_in_savepoints(conn, fns, failed)


def _run_in_savepoints(
    conn: sqlite3.Connection,
    fns: list[Callable[[sqlite3.Connection], Any]],
    failed: tuple[int, Exception],
) -> list[tuple[bool, Any]]:
    """The batch again, each function in a savepoint; the one that failed (`failed`: its
    index and error) is not run again: its work is what the rollback undid."""
    out: list[tuple[bool, Any]] = []
    conn.execute("BEGIN IMMEDIATE")
    try:
        for i, fn in enumerate(fns):
            if i == failed[0]:
                out.append((False, failed[1]))
                continue
            conn.execute("SAVEPOINT w")
            try:
                out.append((True, fn(conn)))
            except Exception as err:  # handed back to its own caller
                conn.execute("ROLLBACK TO w")
                out.append((False, err))
            conn.execute("RELEASE w")
        conn.execute("COMMIT")
    except BaseException:
        abandon(conn)
        raise
    return out
