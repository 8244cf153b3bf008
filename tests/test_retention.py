"""Retention: old push log rows and unanswered deliveries go after 90 days, answers only when
the operator sets QUIZBOT_RETENTION_DAYS; totals behind /stats stay."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.domain.models import Learner
from bot.practice.clock import FakeClock
from bot.schedule import retention
from bot.storage import practice_sql
from bot.storage.factory import open_database
from bot.storage.port import Connection, Store
from tests.backend import database

DAY = 86400.0
NOW = 1_800_000_000.0


def seed(conn: Connection) -> None:
    practice_sql.upsert_user(conn, Learner(1, "A"), NOW)
    for age in (200, 120, 100, 95, 30, 1):  # days
        t = NOW - age * DAY
        for answered in (True, False):
            did = practice_sql.insert_delivery(
                conn, chat_id=1, user_id=1, bank_id="b", question_id=f"q{age}",
                source="quiz", now=t,
            )  # fmt: skip
            if answered:
                record = practice_sql.delivery_record(conn, did)
                assert record is not None
                practice_sql.insert_answer(
                    conn, delivery=record, user_id=1, topic="t", chosen="0", correct=True, now=t
                )
        conn.execute(
            "INSERT INTO push_log (chat_id, local_date, due_at, state) VALUES (?, ?, ?, 'sent')",
            (age, f"d{age}", t),
        )
    # An old push still pending that names an old unanswered delivery: both stay.
    did = practice_sql.insert_delivery(
        conn,
        chat_id=7,
        user_id=7,
        bank_id="b",
        question_id="q",
        source="daily",
        now=NOW - 300 * DAY,
    )
    conn.execute(
        "INSERT INTO push_log (chat_id, local_date, due_at, state, delivery_id)"
        " VALUES (7, 'x', ?, 'pending', ?)",
        (NOW - 300 * DAY, did),
    )


async def counts(db: Store) -> tuple[int, int, int, int]:
    def read(c: Connection) -> tuple[int, int, int, int]:
        one = lambda q: int(c.execute(q).fetchone()[0])  # noqa: E731
        return (
            one("SELECT COUNT(*) FROM push_log"),
            one("SELECT COUNT(*) FROM deliveries"),
            one("SELECT COUNT(*) FROM answers"),
            one("SELECT SUM(answered) FROM learner_topics"),
        )

    return await db.read(read)


@pytest.mark.parametrize("batch", [2, 500])
async def test_retention_keeps_answers_unless_told(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, batch: int
) -> None:
    monkeypatch.setattr(retention, "BATCH", batch)
    async with open_database(database(tmp_path / "r.sqlite3")) as db:
        await db.write(seed)
        assert await counts(db) == (7, 13, 6, 6)
        clock = FakeClock(NOW)
        await retention.prune(db, clock, None)
        # push log: 4 old sent rows go, the pending one stays; deliveries: the 4 old
        # unanswered ones go, the one the pending push names stays; answers all stay.
        assert await counts(db) == (3, 9, 6, 6)
        await retention.prune(db, clock, None)  # a second run finds nothing more
        assert await counts(db) == (3, 9, 6, 6)
        await retention.prune(db, clock, 60)
        # answers older than 60 days go with their deliveries; the totals stay.
        assert await counts(db) == (3, 5, 2, 6)
        stats = await db.read(lambda c: practice_sql.topic_totals(c, 1, "b"))
        assert stats[0].answered == 6
