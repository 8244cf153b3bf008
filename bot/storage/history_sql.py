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


def latest_answer_id(conn: Connection, user_id: int, bank_id: str) -> int:
    """The id of the learner's latest answer in a bank (0 before any): one index seek."""
    row = conn.execute(
        "SELECT id FROM answers WHERE user_id = ? AND bank_id = ?"
        " ORDER BY answered_at DESC, id DESC LIMIT 1",
        (user_id, bank_id),
    ).fetchone()
    return 0 if row is None else int(row[0])
