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


async def test_the_aiosqlite_names_the_adapter_relies_on_still_exist(tmp_path: Path) -> None:
    # bot/storage/sqlite/aio.py hands whole transactions to aiosqlite's thread through two
    # private names; an aiosqlite release that renames or changes them must fail here.
    import aiosqlite

    conn = await aiosqlite.connect(tmp_path / "a.sqlite3")
    try:
        assert isinstance(conn._conn, sqlite3.Connection)
        thread_name = await conn._execute(lambda: threading.current_thread().name)
        assert thread_name != threading.current_thread().name
    finally:
        await conn.close()


async def test_a_read_and_a_write_run_off_the_event_loop_thread(tmp_path: Path) -> None:
    here = threading.current_thread().name
    async with Database(tmp_path / "t.sqlite3") as db:
        wrote = await db.write(lambda c: threading.current_thread().name)
        read = await db.read(lambda c: threading.current_thread().name)
    assert here not in (wrote, read) and wrote != read
