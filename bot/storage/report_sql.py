"""SQL of learners' question reports: filed once per learner and question, a comment added by
replying to the prompt, listed per bank for the item report and, once, in the admins' digest.
Plain sync functions run by `Database.write`/`read`."""

from __future__ import annotations

from bot.analysis.learner_reports import REASON_WORDS, LearnerReport
from bot.storage.port import Connection, Row

REASONS = tuple(REASON_WORDS)  # as the schema's CHECK lists them
# In LearnerReport's field order.
_COLUMNS = (
    "id, delivery_id, user_id, bank_id, question_id, option_order, reason, comment, reported_at"
)


def _report(row: Row) -> LearnerReport:
    return LearnerReport(*tuple(row))


def has_report(conn: Connection, user_id: int, bank_id: str, question_id: str) -> bool:
    """Whether this learner already reported this question."""
    row = conn.execute(
        "SELECT 1 FROM question_reports WHERE user_id = ? AND bank_id = ? AND question_id = ?",
        (user_id, bank_id, question_id),
    ).fetchone()
    return row is not None


def file_report(
    conn: Connection, delivery_id: int, user_id: int, reason: str, now: float
) -> int | None:
    """The new report's id, filed under the delivery it was made from (its question, option
    order and version copied); None when the learner already reported that question or the
    delivery is not theirs."""
    row = conn.execute(
        "INSERT INTO question_reports (delivery_id, user_id, bank_id, question_id,"
        " option_order, version, reason, reported_at)"
        " SELECT id, user_id, bank_id, question_id, option_order, version, ?, ?"
        " FROM deliveries WHERE id = ? AND user_id = ?"
        " ON CONFLICT (user_id, bank_id, question_id) DO NOTHING RETURNING id",
        (reason, now, delivery_id, user_id),
    ).fetchone()
    return None if row is None else int(row[0])


def set_prompt(conn: Connection, report_id: int, message_id: int) -> None:
    """Remember the prompt message whose reply is the report's comment."""
    conn.execute(
        "UPDATE question_reports SET prompt_message_id = ? WHERE id = ?", (message_id, report_id)
    )


def awaits_comment(conn: Connection, user_id: int, prompt_message_id: int) -> bool:
    """Whether that message prompted a report of this learner that has no comment yet."""
    row = conn.execute(
        "SELECT 1 FROM question_reports"
        " WHERE user_id = ? AND prompt_message_id = ? AND comment IS NULL",
        (user_id, prompt_message_id),
    ).fetchone()
    return row is not None


def add_comment(conn: Connection, user_id: int, prompt_message_id: int, comment: str) -> bool:
    """Set the comment of the learner's report prompted by that message, once; False when no
    such report waits for one."""
    cur = conn.execute(
        "UPDATE question_reports SET comment = ?"
        " WHERE user_id = ? AND prompt_message_id = ? AND comment IS NULL",
        (comment, user_id, prompt_message_id),
    )
    return cur.rowcount == 1


def bank_reports(conn: Connection, bank_id: str) -> list[LearnerReport]:
    """Every report on a bank's questions, oldest first."""
    rows = conn.execute(
        f"SELECT {_COLUMNS} FROM question_reports WHERE bank_id = ? ORDER BY reported_at, id",
        (bank_id,),
    ).fetchall()
    return [_report(r) for r in rows]


def undigested(conn: Connection, before: float) -> list[LearnerReport]:
    """Reports no digest has listed yet, filed by `before`, oldest first."""
    rows = conn.execute(
        f"SELECT {_COLUMNS} FROM question_reports"
        " WHERE digested_at IS NULL AND reported_at <= ? ORDER BY reported_at, id",
        (before,),
    ).fetchall()
    return [_report(r) for r in rows]


def mark_digested(conn: Connection, ids: list[int], now: float) -> None:
    """These reports were listed in a digest."""
    conn.executemany(
        "UPDATE question_reports SET digested_at = ? WHERE id = ? AND digested_at IS NULL",
        [(now, i) for i in ids],
    )
