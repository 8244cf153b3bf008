"""WAL checkpoints run beside the writer: no write waits for one, and the WAL stays bounded."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from pathlib import Path

import pytest

from bot.storage.sqlite.checkpoints import Checkpointer, WalPolicy
from bot.storage.sqlite.database import Database

PAGE = 4096


def wal_bytes(db: Database) -> int:
    wal = Path(f"{db.path}-wal")
    return wal.stat().st_size if wal.exists() else 0


def frames(pages: int) -> int:
    """Bytes of a WAL holding `pages` frames (a 32-byte header, a 24-byte header per frame)."""
    return 32 + pages * (PAGE + 24)


async def fill(db: Database, rows: int) -> None:
    """One transaction per row, each writing at least one fresh page."""
    for _ in range(rows):
        await db.write(lambda c: c.execute("INSERT INTO t (pad) VALUES (randomblob(3000))"))


async def count(db: Database) -> int:
    return int(await db.read(lambda c: c.execute("SELECT COUNT(*) FROM t").fetchone()[0]))


async def open_db(tmp_path: Path, policy: WalPolicy) -> Database:
    db = Database(tmp_path / "w.sqlite3", wal=policy)
    await db.open()
    await db.write(lambda c: c.execute("CREATE TABLE t (k INTEGER PRIMARY KEY, pad BLOB)"))
    return db


async def test_writes_go_on_beside_a_reader_that_pins_the_wal_which_is_cut_back_after(
    tmp_path: Path,
) -> None:
    # A checkpoint that blocked writers (FULL, RESTART, TRUNCATE) would wait here for the
    # reader while holding the write lock: every write below would fail as busy.
    db = await open_db(tmp_path, WalPolicy(cap_pages=64, kept_pages=16, every=0.0))
    try:
        pin = sqlite3.connect(db.path, isolation_level=None)
        pin.execute("BEGIN")
        assert pin.execute("SELECT COUNT(*) FROM t").fetchone()[0] == 0
        await fill(db, 200)
        assert await count(db) == 200
        # The reader may still need every frame since its snapshot: nothing could start over.
        assert wal_bytes(db) > frames(200)
        pin.execute("COMMIT")
        pin.close()
        sizes = []
        for _ in range(200):
            await fill(db, 1)
            sizes.append(wal_bytes(db))
            if sizes[-1] <= frames(16 + 2):
                break
        assert sizes[-1] <= frames(16 + 2), f"the WAL was never started over: {sizes[-5:]}"
        assert await count(db) == 200 + len(sizes)
    finally:
        await db.close()


async def test_the_writer_bounds_the_wal_without_the_checkpoint_thread(tmp_path: Path) -> None:
    db = await open_db(tmp_path, WalPolicy(cap_pages=64, kept_pages=16, every=0.0))
    try:
        assert db.wal is not None
        db.wal.checkpointer.stop()  # no background pass from here on
        largest = 0
        for _ in range(20):
            await fill(db, 20)
            largest = max(largest, wal_bytes(db))
        assert await count(db) == 400
        # The backstop checkpoints at 64 pages; each row adds a few pages past that.
        assert largest <= frames(64 + 8)
    finally:
        await db.close()


async def test_after_a_pause_the_wal_is_started_over_by_a_write_of_the_bot(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # No backstop in reach (cap far above what is written): only the background pass and
    # the writer's own one-page write can start the WAL over.
    # The passes wait until the writes are done: one that ends between two of them lets the
    # next write start the WAL over before it has grown.
    writes_done = threading.Event()
    run_pass = Checkpointer._pass

    def pass_after_the_writes(self: Checkpointer, conn: sqlite3.Connection) -> None:
        writes_done.wait(30)
        run_pass(self, conn)

    monkeypatch.setattr(Checkpointer, "_pass", pass_after_the_writes)
    db = await open_db(tmp_path, WalPolicy(cap_pages=100_000, kept_pages=16, every=0.0))
    try:
        await fill(db, 60)
        grown = wal_bytes(db)
        writes_done.set()  # the pause
        assert grown > frames(60)
        for _ in range(500):  # the checkpoint thread's pass, then the writer's restart
            if wal_bytes(db) <= frames(16 + 2):
                break
            await asyncio.sleep(0.01)
        assert wal_bytes(db) <= frames(16 + 2) < grown
        assert await count(db) == 60
        version = await db.read(lambda c: c.execute("PRAGMA user_version").fetchone()[0])
        assert version == 0  # the restart write leaves the header's value as it was
    finally:
        writes_done.set()
        await db.close()
    assert wal_bytes(db) == 0  # the last connection closed copies and removes it


def test_a_failed_background_checkpoint_is_one_line_without_a_traceback(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    # What a full disk does to a pass (SQLITE_FULL): the log says it once, in one line.
    class Full:
        def execute(self, sql: str) -> None:
            raise sqlite3.OperationalError("database or disk is full")

    checkpointer = Checkpointer(lambda: sqlite3.connect(tmp_path / "c.sqlite3"), every=1.0)
    with caplog.at_level("WARNING"):
        checkpointer._pass(Full())  # type: ignore[arg-type]
    (record,) = caplog.records
    assert "database or disk is full" in record.getMessage() and record.exc_info is None
    assert checkpointer.last is None
