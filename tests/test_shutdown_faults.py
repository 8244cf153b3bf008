"""A shutdown that meets a storage fault still closes the database, so SIGTERM ends the process
(its threads would otherwise keep it alive until a supervisor kills it)."""

from __future__ import annotations

import sqlite3
import threading
import time
from pathlib import Path

import pytest

from tests.botharness import running_bot


async def test_a_held_write_lock_at_shutdown_still_closes_the_database(tmp_path: Path) -> None:
    before = set(threading.enumerate())
    async with running_bot(tmp_path) as bot:
        db = bot.services.db
        # Another process holds the write lock while the bot stops: marking it stopped
        # cannot be saved.
        other = sqlite3.connect(bot.db_path, isolation_level=None)
        other.execute("BEGIN IMMEDIATE")
        # The database's own threads (the aiosqlite connections'), started by this bot.
        mine = [t for t in set(threading.enumerate()) - before if "connection" in t.name]
        assert mine
        stopping = time.monotonic()
    took = time.monotonic() - stopping
    # Logged in one line, and `quizbot run` will exit non-zero: the stop was not recorded.
    assert bot.app.bot_data.ops.unsaved_at_stop
    try:
        # The database's own threads are gone: nothing keeps the interpreter from exiting.
        with pytest.raises(RuntimeError, match="not open"):
            await db.write(lambda c: None)
        for thread in mine:
            thread.join(timeout=2)
        assert not [t.name for t in mine if t.is_alive()]
    finally:
        other.execute("ROLLBACK")
        other.close()
    # Within what systemd and Docker wait before they kill (10 s).
    assert took < 10, took
