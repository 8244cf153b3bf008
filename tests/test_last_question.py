"""The learner's last question: the newest of their deliveries in that bank, by one index seek."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.domain.kinds import Source
from bot.storage import learning_sql, practice_sql
from tests import factories


def _deliver(conn: object, user_id: int, bank_id: str, question_id: str) -> None:
    practice_sql.insert_delivery(
        conn,  # type: ignore[arg-type]
        chat_id=user_id, user_id=user_id, bank_id=bank_id, question_id=question_id,
        source=Source.QUIZ, now=1.0,
    )  # fmt: skip


def test_last_question_recent_and_far_back(tmp_path: Path) -> None:
    conn = factories.migrated(tmp_path / "l.sqlite3")
    assert learning_sql.last_question(conn, 1, "b") is None
    _deliver(conn, 1, "b", "q-old")
    _deliver(conn, 1, "b", "q-last")
    _deliver(conn, 1, "other", "q-other-bank")
    # Other learners' deliveries come after learner 1's last one.
    for i in range(600):
        _deliver(conn, 2 + i % 3, "b", f"q{i}")
    assert learning_sql.last_question(conn, 1, "b") == "q-last"
    assert learning_sql.last_question(conn, 1, "other") == "q-other-bank"
    last = 599
    assert learning_sql.last_question(conn, 2 + last % 3, "b") == f"q{last}"
    _deliver(conn, 1, "b", "q-new")
    assert learning_sql.last_question(conn, 1, "b") == "q-new"
    conn.close()


@pytest.mark.sqlite_only("reads SQLite's EXPLAIN QUERY PLAN")
def test_last_question_reads_the_latest_delivery_index(tmp_path: Path) -> None:
    conn = factories.migrated(tmp_path / "l.sqlite3")
    for i in range(600):
        _deliver(conn, 1 + i % 3, "b", f"q{i}")
    plan = conn.execute(
        "EXPLAIN QUERY PLAN SELECT question_id FROM deliveries WHERE user_id = ? AND bank_id = ?"
        " ORDER BY id DESC LIMIT 1",
        (1, "b"),
    ).fetchall()
    details = [str(tuple(row)) for row in plan]
    assert any("deliveries_by_user_latest" in d for d in details), details
    assert not any("TEMP B-TREE" in d for d in details), details
    conn.close()
