"""A write lock held by another process longer than the busy timeout: a tap gets an answer
("busy, tap again") instead of a spinner that never stops, nothing is stored, and it is logged;
the next tap once the lock is gone is recorded."""

from __future__ import annotations

import logging
import sqlite3
from pathlib import Path

import pytest

from tests import factories
from tests.botharness import running_bot


async def test_tap_during_a_long_write_lock_is_answered_busy(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    async with running_bot(tmp_path) as h:
        ann = factories.user(42, "Ann")
        chat = factories.private_chat(ann)
        await h.feed(factories.command("/quiz", ann, chat))
        message = h.api.last_message(42)
        assert message is not None
        data = message["reply_markup"]["inline_keyboard"][0][0]["callback_data"]
        # Production waits 5 s for the lock; 100 ms gives the same "database is locked".
        await h.services.db.call(lambda c: c.execute("PRAGMA busy_timeout=100"))
        other = sqlite3.connect(h.db_path, isolation_level=None)
        try:
            other.execute("BEGIN IMMEDIATE")  # another process writing (a backup, a script)
            with caplog.at_level(logging.WARNING):
                await h.feed(factories.callback(data, ann, message))
            (answer,) = h.api.calls_of("answerCallbackQuery")
            assert "tap again" in answer.params["text"]
            assert "database busy" in caplog.text
        finally:
            other.execute("ROLLBACK")
            other.close()
        count = sqlite3.connect(h.db_path)
        assert count.execute("SELECT COUNT(*) FROM answers").fetchone() == (0,)
        await h.feed(factories.callback(data, ann, message))
        assert count.execute("SELECT COUNT(*) FROM answers").fetchone() == (1,)
        count.close()
