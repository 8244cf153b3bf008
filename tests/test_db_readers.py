"""Reads run on their own WAL connections: a slow read never holds up a write."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from pathlib import Path

from bot.storage.port import StorageError
from bot.storage.sqlite.database import Database


async def test_a_write_commits_while_a_read_is_still_running(tmp_path: Path) -> None:
    async with Database(tmp_path / "r.sqlite3") as db:
        await db.write(lambda c: c.execute("CREATE TABLE t (k INTEGER)"))
        started, release = threading.Event(), threading.Event()

        def slow_read(conn: sqlite3.Connection) -> int:
            before = conn.execute("SELECT COUNT(*) FROM t").fetchone()[0]
            started.set()
            release.wait(10)  # held open until the write below has committed
            # Same snapshot for the whole read: the write that committed meanwhile is unseen.
            assert conn.execute("SELECT COUNT(*) FROM t").fetchone()[0] == before
            return int(before)

        reading = asyncio.create_task(db.read(slow_read))
        # The read has its snapshot before the write starts, however late its thread runs.
        assert await asyncio.to_thread(started.wait, 10)
        await asyncio.wait_for(db.write(lambda c: c.execute("INSERT INTO t VALUES (1)")), 5)
        assert not reading.done()
        release.set()
        assert await reading == 0
        assert await db.read(lambda c: c.execute("SELECT COUNT(*) FROM t").fetchone()[0]) == 1
        assert [tuple(r) for r in await db.fetchall("SELECT k FROM t")] == [(1,)]


async def test_reader_connections_refuse_writes(tmp_path: Path) -> None:
    async with Database(tmp_path / "r.sqlite3") as db:
        try:
            await db.read(lambda c: c.execute("CREATE TABLE x (k)"))
        except StorageError as err:
            assert "readonly" in str(err)
        else:
            raise AssertionError("a read connection wrote")
