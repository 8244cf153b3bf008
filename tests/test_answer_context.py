"""The one read an answer starts with: the delivery, and its learner's setting, zone and memory."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bot.domain.models import Learner
from bot.learning.memory import DEFAULT_WEIGHTS, Answer
from bot.practice import memory_updates
from bot.storage import answer_sql, learning_sql, practice_sql
from bot.storage.port import Connection
from tests import factories

NOW = 1_780_000_000.0


@pytest.fixture
def conn(tmp_path: Path) -> Connection:
    return factories.migrated(tmp_path / "a.sqlite3")


def _delivery(c: Connection, user: int, question: str) -> int:
    return practice_sql.insert_delivery(
        c, chat_id=user, user_id=user, bank_id="b", question_id=question, source="quiz", now=NOW
    )


def test_it_reads_what_the_separate_queries_read(conn: Connection) -> None:
    for uid in (1, 2):
        practice_sql.upsert_user(conn, Learner(uid, f"U{uid}"), NOW)
    learning_sql.set_confidence(conn, 1, True, NOW)
    conn.execute("UPDATE users SET timezone = 'Europe/Paris' WHERE id = 1")
    at = dt.datetime.fromtimestamp(NOW, dt.UTC)
    w = DEFAULT_WEIGHTS
    mine = memory_updates.take_stored(conn, 1, "b", Answer("q1", at, True), w)
    memory_updates.take_stored(conn, 2, "b", Answer("q1", at, False), w)  # someone else's
    memory_updates.take_stored(conn, 1, "b", Answer("q2", at, False), w)  # another question
    did = _delivery(conn, 1, "q1")

    context = answer_sql.answer_context(conn, did, 1)

    assert context is not None
    assert context.delivery == practice_sql.delivery_record(conn, did)
    assert context.confidence is learning_sql.learning_prefs(conn, 1).confidence is True
    assert context.timezone == "Europe/Paris"
    assert context.memory == mine == learning_sql.memory_state(conn, 1, "b", "q1")


def test_a_stranger_and_a_first_answer(conn: Connection) -> None:
    did = _delivery(conn, 3, "q9")
    context = answer_sql.answer_context(conn, did, 3)
    assert context is not None
    assert (context.confidence, context.timezone, context.memory) == (False, None, None)
    assert context.delivery.question_id == "q9"


def test_no_such_delivery(conn: Connection) -> None:
    assert answer_sql.answer_context(conn, 12345, 1) is None
