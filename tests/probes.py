"""Bank-wide forgetting evidence for tests: other learners' probes as the bot writes them."""

from __future__ import annotations

import datetime as dt

from bot.learning.memory import Answer
from bot.practice import memory_updates
from bot.storage.port import Connection


def seed_fast_forgetting(
    conn: Connection, bank_id: str, question_id: str, missed_at: dt.datetime
) -> None:
    """300 other learners (ids 100–399) missed the question, read why, and missed it again two
    days later: the bank's memories fade faster than FSRS predicts."""
    for user in range(100, 400):
        first = memory_updates.take_answer(
            conn, user, bank_id, Answer(question_id, missed_at, False), None
        )
        again = Answer(question_id, missed_at + dt.timedelta(days=2), False)
        memory_updates.take_answer(conn, user, bank_id, again, first)
