"""The one adapter over aiosqlite's private names: a whole transaction on a connection's thread.

A transaction here is a plain function of several statements (`fn(conn)`: read, grade, insert,
count) that must run without another interleaving, and a read is one that must see a single
snapshot. aiosqlite's public calls run one statement per round trip to its thread and cannot
hold Python code between statements on it, so the function is handed to the thread whole
through `aiosqlite.Connection._execute`, with the sqlite3 connection it wraps (`_conn`). These
names are used here and nowhere else; tests/test_db_readers.py fails loudly if a release of
aiosqlite changes them.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import aiosqlite

T = TypeVar("T")


async def connect(
    path: Path, configure: Callable[[sqlite3.Connection], None]
) -> aiosqlite.Connection:
    """An aiosqlite connection to `path` (autocommit: transactions are explicit), set up by
    `configure` on its own thread."""
    conn = await aiosqlite.connect(path, isolation_level=None)
    try:
        await run(conn, configure)
    except BaseException:
        await conn.close()
        raise
    return conn


async def run(conn: aiosqlite.Connection, fn: Callable[..., T], *args: Any) -> T:
    """fn(sqlite3 connection, *args) on the connection's thread, in one round trip."""
    raw: sqlite3.Connection = conn._conn
    result: T = await conn._execute(fn, raw, *args)  # type: ignore[no-untyped-call]
    return result
