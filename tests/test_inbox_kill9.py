"""kill -9 loses no acknowledged update: an update is stored before the next getUpdates can
confirm it, and what was stored and not handled is handled after the restart."""

from __future__ import annotations

import signal
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from tests import factories
from tests.botprocess import BotProcess
from tests.fakes import FakeBotApiServer

pytestmark = pytest.mark.slow
LEARNERS = 6


def answers(db: Path) -> list[tuple[int, int]]:
    with sqlite3.connect(db) as conn:
        return conn.execute("SELECT user_id, delivery_id FROM answers ORDER BY user_id").fetchall()


def test_taps_fetched_while_nothing_can_be_stored_survive_kill_9(tmp_path: Path) -> None:
    users = [factories.user(8100 + i, f"Learner {i}") for i in range(LEARNERS)]
    with FakeBotApiServer() as server:
        api = server.api
        first = BotProcess(server, tmp_path)
        first.start()
        try:
            server.wait_for(lambda a: a.count("getUpdates") >= 1, timeout=60)
            questions: dict[int, dict[str, Any]] = {}
            for u in users:
                api.push_update(factories.command("/quiz", u, factories.private_chat(u)))
            for u in users:
                questions[u["id"]] = server.wait_for(
                    lambda a, uid=u["id"]: (
                        (m := a.last_message(uid)) and m.get("reply_markup") and m
                    ),
                    timeout=60,
                )
            # Another process holds the write lock (a long script, a restore) while learners
            # tap: the bot fetches the taps and cannot store them.
            lock = sqlite3.connect(first.db, isolation_level=None)
            lock.execute("BEGIN IMMEDIATE")
            polls = api.count("getUpdates")
            tapped = []
            for u in users:
                message = questions[u["id"]]
                buttons = [b["callback_data"] for row in message["reply_markup"]["inline_keyboard"]
                           for b in row]  # fmt: skip
                letter = next((d for d in buttons if d.startswith("a:")), None)
                if letter is None:
                    continue  # a "select two" question: a tap only toggles
                tapped.append(u["id"])
                api.push_update(factories.callback(letter, u, message))
            assert tapped
            server.wait_for(lambda a: a.count("getUpdates") >= polls + 2, timeout=90)
            first.stop(signal.SIGKILL)
            lock.execute("ROLLBACK")
            lock.close()
        finally:
            first.stop(signal.SIGKILL)
        assert answers(first.db) == []
        with BotProcess(server, tmp_path, db=first.db):
            server.wait_for(lambda a: len(answers(first.db)) >= len(tapped), timeout=90)
            recorded = answers(first.db)
        # Every tap once: none lost, none counted twice.
        assert sorted(uid for uid, _ in recorded) == tapped
