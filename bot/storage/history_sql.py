"""A learner's answer history in one bank, as the readiness estimate and /stats charts read it."""

from __future__ import annotations

from dataclasses import dataclass

from bot.storage.port import Connection


@dataclass(frozen=True, slots=True)
class AnswerRow:
    """One graded answer (practice, daily, group or mock) of a learner in a bank."""

    answer_id: int
    question_id: str
    topic: str
    correct: bool
    answered_at: float


def answers_in_bank(conn: Connection, user_id: int, bank_id: str) -> list[AnswerRow]:
    """Every answer of a learner in a bank, oldest first."""
    rows = conn.execute(
        "SELECT id, question_id, topic, correct, answered_at FROM answers"
        " WHERE user_id = ? AND bank_id = ? ORDER BY answered_at, id",
        (user_id, bank_id),
    )
    return [AnswerRow(r[0], r[1], r[2], bool(r[3]), r[4]) for r in rows]


def answers_since(conn: Connection, user_id: int, bank_id: str, since: float) -> list[AnswerRow]:
    """A learner's answers in a bank at or after `since` (epoch seconds), oldest first."""
    rows = conn.execute(
        "SELECT id, question_id, topic, correct, answered_at FROM answers"
        " WHERE user_id = ? AND bank_id = ? AND answered_at >= ? ORDER BY answered_at, id",
        (user_id, bank_id, since),
    )
    return [AnswerRow(r[0], r[1], r[2], bool(r[3]), r[4]) for r in rows]
