"""A learner's answer history in one bank, as the readiness estimate and /stats charts read it."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class AnswerRow:
    """One graded answer (practice, daily, group or mock) of a learner in a bank."""

    answer_id: int
    question_id: str
    topic: str
    correct: bool
    answered_at: float


def answers_in_bank(conn: sqlite3.Connection, user_id: int, bank_id: str) -> list[AnswerRow]:
    """Every answer of a learner in a bank, oldest first."""
    rows = conn.execute(
        "SELECT id, question_id, topic, correct, answered_at FROM answers"
        " WHERE user_id = ? AND bank_id = ? ORDER BY answered_at, id",
        (user_id, bank_id),
    )
    return [AnswerRow(r[0], r[1], r[2], bool(r[3]), r[4]) for r in rows]


def last_answer_id(conn: sqlite3.Connection, user_id: int, bank_id: str) -> int:
    """The id of the learner's latest answer in a bank (0 when none): a cache key for charts."""
    row = conn.execute(
        "SELECT MAX(id) FROM answers WHERE user_id = ? AND bank_id = ?", (user_id, bank_id)
    ).fetchone()
    return int(row[0] or 0)
