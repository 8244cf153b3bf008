"""SQL of item analysis: learners' first attempts at a bank's questions, read in one pass.

A first attempt is a learner's earliest answer to a question of the bank, whatever sent it
(practice, daily, group, mock): later answers are learning, not measurement. `chosen` is stored
in the question file's option order, so its indices are read as file-order indices.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from bot.analysis.learner_reports import by_question
from bot.analysis.model import DEFAULT_MIN_N, ItemReport
from bot.analysis.report import analyse
from bot.analysis.responses import QuestionResponses, parse_chosen
from bot.bank.models import Bank
from bot.storage.dialect import Statement
from bot.storage.factory import connect_blocking, is_postgres
from bot.storage.port import Connection
from bot.storage.report_sql import bank_reports
from bot.storage.sqlite.database import read_only

# The earliest answer per learner and question (ties: the lower id), as an anti-join: one
# sequential scan of answers, one probe each into answers_by_user (user_id, bank_id,
# question_id, answered_at, and the rowid every index ends with).
_FIRST_ATTEMPTS = (
    "SELECT a.question_id, a.user_id, a.chosen, a.correct, a.time_to_answer_ms FROM answers a"
    " WHERE a.bank_id = :bank AND NOT EXISTS (SELECT 1 FROM answers b"
    "  WHERE b.user_id = a.user_id AND b.bank_id = a.bank_id AND b.question_id = a.question_id"
    "  AND (b.answered_at, b.id) < (a.answered_at, a.id))"
)

_COMMA, _SPACE, _NOTHING = "','", "' '", "''"

# One row per question: its first attempts as aligned lists (group_concat of one GROUP BY
# sees the rows in the same order), so Python splits a thousand strings instead of fetching a
# million rows. `chosen` itself holds commas, hence the space between entries.
# A question's first attempts are one per learner: ordered by user_id on PostgreSQL.
_BY_QUESTION = Statement(
    lambda d: (
        "SELECT question_id,"
        f" {d.group_concat('user_id', _COMMA, 'user_id')},"
        f" {d.group_concat('chosen', _SPACE, 'user_id')},"
        f" {d.group_concat('correct', _NOTHING, 'user_id')},"
        " COALESCE(SUM(time_to_answer_ms), 0), COUNT(time_to_answer_ms)"
        f" FROM ({_FIRST_ATTEMPTS}) AS attempts GROUP BY question_id"
    )
)


class NoDatabase(Exception):
    """The database file does not exist."""


def question_responses(conn: Connection, bank_id: str) -> list[QuestionResponses]:
    """Every question's first attempts at this bank, in question-id order (one query)."""
    parsed: dict[str, tuple[int, ...]] = {}
    out: list[QuestionResponses] = []
    cursor = conn.execute(_BY_QUESTION(conn), {"bank": bank_id})
    cursor.row_factory = None
    for qid, users, chosen, correct, time_total, timed in cursor:
        texts = chosen.split(" ")
        for text in set(texts).difference(parsed):
            parsed[text] = parse_chosen(text)
        out.append(
            QuestionResponses(
                question_id=qid,
                user_ids=tuple(map(int, users.split(","))),
                chosen=tuple(map(parsed.__getitem__, texts)),
                correct=tuple(map("1".__eq__, correct)),
                time_total_ms=int(time_total),
                timed=int(timed),
            )
        )
    return out


def item_report(conn: Connection, bank: Bank, min_n: int = DEFAULT_MIN_N) -> ItemReport:
    """The item analysis of a bank, with its learners' reports: one aggregate query, then one
    pass in Python, then the reports beside the figures."""
    report = analyse(bank, question_responses(conn, bank.id), min_n)
    reported = by_question(bank_reports(conn, bank.id), report.questions)
    return dataclasses.replace(report, reported=reported)


def read_item_report(path: Path | str, bank: Bank, min_n: int = DEFAULT_MIN_N) -> ItemReport:
    """Open the database read-only, analyse one bank, close (blocking: from async code, run it
    in a thread, e.g. `asyncio.to_thread`)."""
    if is_postgres(path):
        conn = connect_blocking(path)
        try:
            return item_report(conn, bank, min_n)
        finally:
            conn.close()
    if not Path(path).is_file():
        raise NoDatabase(f"no database at {path}")
    with read_only(path) as conn:
        return item_report(conn, bank, min_n)
