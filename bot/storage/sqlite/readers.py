"""The read side: a small pool of aiosqlite connections, each running a whole read (a /stats,
a leaderboard: several statements on one committed snapshot) on its thread (`aio.run`)."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import aiosqlite

from bot.storage.sqlite import aio

T = TypeVar("T")


def _snapshot(conn: sqlite3.Connection, fn: Callable[[sqlite3.Connection], T]) -> T:
    # One read transaction: the statements of fn all see the same snapshot.
    conn.execute("BEGIN")
    try:
        return fn(conn)
    finally:
        conn.execute("COMMIT")


class ReaderPool:
    """`size` read-only connections; a read waits for a free one (never for the writer)."""

    def __init__(self, connections: list[aiosqlite.Connection]) -> None:
        self._all = connections
        self._free: asyncio.Queue[aiosqlite.Connection] = asyncio.Queue()
        for conn in connections:
            self._free.put_nowait(conn)

    @classmethod
    async def open(
        cls, path: Path, size: int, configure: Callable[[sqlite3.Connection], None]
    ) -> ReaderPool:
        """Open `size` connections to `path`, each set up by `configure` and made read-only."""
        opened: list[aiosqlite.Connection] = []
        try:
            for _ in range(size):
                conn = await aio.connect(path, configure)
                opened.append(conn)
                await conn.execute("PRAGMA query_only=ON")
        except BaseException:
            for conn in opened:
                await conn.close()
            raise
        return cls(opened)

    async def run(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        """fn(conn) in one read transaction on a free connection."""
        conn = await self._free.get()
        try:
            return await aio.run(conn, _snapshot, fn)
        finally:
            self._free.put_nowait(conn)

    async def close(self) -> None:
        """Close every connection (reads in flight finish first: each holds its connection)."""
        for _ in self._all:
            await self._free.get()
        for conn in self._all:
            await conn.close()
        self._all = []
