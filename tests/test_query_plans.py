"""No full scan of a big table in anything that runs per request or per push.

Every statement the hot storage functions run is captured (with its bound values) and put
through EXPLAIN QUERY PLAN. Without ANALYZE statistics SQLite plans the same on ten rows as on
ten million, so a small database shows the plans a big one gets.
"""

from __future__ import annotations

import datetime as dt
import re
import sqlite3
from collections.abc import Callable
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from bot.domain.models import Learner
from bot.storage import (
    answer_sql,
    chat_migration,
    fit_sql,
    group_sql,
    history_sql,
    learning_sql,
    practice_sql,
    push_lease,
    push_log,
    summaries,
)
from bot.storage.sqlite.database import connect_sync
from bot.storage.sqlite.migrations import apply_migrations

BIG = (
    "answers",
    "deliveries",
    "push_log",
    "subscriptions",
    "users",
    "learner_days",
    "learner_runs",
)
# Partial indexes that only hold rows in flight (a few at any time): walking one whole is fine.
IN_FLIGHT = {
    "push_log_sending",
    "push_log_open",
    "push_log_ready",
    "deliveries_open",
    "deliveries_unrevealed",
}
NOW = 1_780_000_000.0
GROUP = -100


@pytest.fixture
def conn(tmp_path: Path) -> sqlite3.Connection:
    c = connect_sync(tmp_path / "p.sqlite3")
    apply_migrations(c)
    c.execute("BEGIN")
    practice_sql.upsert_user(c, Learner(1, "A"), NOW)
    practice_sql.upsert_chat(c, GROUP, "supergroup", "G", NOW)
    for i in range(5):
        for chat, user in ((1, 1), (GROUP, None)):
            did = practice_sql.insert_delivery(
                c, chat_id=chat, user_id=user, bank_id="b", question_id=f"q{i}",
                source="quiz", now=NOW + i, closes_at=None if user else NOW + 600,
            )  # fmt: skip
            practice_sql.set_delivery_message(c, did, did)
            record = practice_sql.delivery_record(c, did)
            assert record is not None
            practice_sql.insert_answer(
                c, delivery=record, user_id=1, topic="t", chosen="0", correct=True, now=NOW + i
            )
    push_log.upsert_subscription(
        c, chat_id=1, user_id=1, kind="private", local_time="07:00", timezone="UTC", now=NOW
    )
    c.execute("COMMIT")
    return c


def statements(
    conn: sqlite3.Connection, work: Callable[[sqlite3.Connection], object]
) -> list[str]:
    seen: list[str] = []
    conn.set_trace_callback(seen.append)
    try:
        conn.execute("BEGIN")
        work(conn)
        conn.execute("ROLLBACK")
    finally:
        conn.set_trace_callback(None)
    return [s for s in seen if not re.match(r"\s*(BEGIN|COMMIT|ROLLBACK|SAVEPOINT|RELEASE)", s)]


def full_scans(conn: sqlite3.Connection, sql: str) -> list[str]:
    bad = []
    for row in conn.execute("EXPLAIN QUERY PLAN " + sql):
        detail = row[3]
        m = re.match(r"SCAN (\w+)(?: USING (?:COVERING )?INDEX (\w+))?", detail)
        if m and m.group(1) in BIG and m.group(2) not in IN_FLIGHT:
            bad.append(detail)
    return bad


def _picker(c: sqlite3.Connection, row: push_log.DueRow, now: float) -> tuple[int, str, str]:
    did = practice_sql.insert_delivery(
        c, chat_id=row.chat_id, user_id=row.user_id, bank_id="b", question_id="q0",
        source="daily", now=now,
    )  # fmt: skip
    return did, "b", "q0"


def _answer(c: sqlite3.Connection) -> None:
    did = practice_sql.insert_delivery(
        c, chat_id=GROUP, user_id=None, bank_id="b", question_id="q1", source="group", now=NOW
    )
    record = practice_sql.delivery_record(c, did)
    assert record is not None
    practice_sql.insert_answer(
        c, delivery=record, user_id=1, topic="t", chosen="0", correct=False, now=NOW + 9
    )
    practice_sql.existing_answer(c, did, 1)
    practice_sql.answer_count(c, did)
    practice_sql.pending_choice(c, did, 1)
    answer_sql.answer_context(c, did, 1)


HOT: dict[str, Callable[[sqlite3.Connection], object]] = {
    "next question": lambda c: (
        practice_sql.user_prefs(c, 1),
        learning_sql.memory_states(c, 1, "b"),
        fit_sql.params_for(c, 1, "b"),
        learning_sql.last_question(c, 1, "b"),
        learning_sql.exam_date(c, 1, "b"),
    ),
    "answer": _answer,
    "stats": lambda c: (
        practice_sql.topic_totals(c, 1, "b"),
        practice_sql.bank_totals(c, 1),
        summaries.streak(c, 1, NOW, ZoneInfo("UTC")),
        summaries.streak_with_freezes(c, 1, NOW, ZoneInfo("UTC")),
    ),
    "readiness and chart": lambda c: (
        summaries.bank_days(c, 1, "b", dt.date(2026, 5, 1)),
        history_sql.latest_answer_id(c, 1, "b"),
        learning_sql.memory_states(c, 1, "b"),
    ),
    "leaderboard": lambda c: summaries.standings(c, GROUP, summaries.ALL_TIME, 10),
    "group chooser and reveals": lambda c: (
        group_sql.asked_in_chat(c, GROUP, "b"),
        group_sql.unrevealed_in_chat(c, GROUP),
        group_sql.due_for_reveal(c, NOW),
        group_sql.open_windows(c, NOW),
        group_sql.chosen_of_delivery(c, 2),
        group_sql.delivery_by_poll(c, "p"),
    ),
    "push tick": lambda c: (
        push_log.materialize_due(c, NOW + 86400, 7200, 100),
        push_log.skip_late(c, NOW + 86400, 7200),
        push_log.claim(c, NOW + 86400, 100, _picker),
        push_log.next_wake(c),
    ),
    "push start-up and leases": lambda c: (
        push_lease.recover_expired(c, NOW, 7200, ["host:1:x"]),
        push_lease.sending_owners(c),
        push_lease.renew(c, "host:1:x", NOW + 60),
    ),
    "a group's upgrade to a supergroup": lambda c: chat_migration.migrate_chat(
        c, GROUP, GROUP - 1, NOW
    ),
    "/admin": lambda c: (
        push_log.subscriber_counts(c, NOW, 86400),
        push_log.push_counts(c, NOW - 86400),
    ),
}


@pytest.mark.parametrize("name", list(HOT))
def test_hot_queries_scan_no_big_table(conn: sqlite3.Connection, name: str) -> None:
    sqls = statements(conn, HOT[name])
    assert sqls, "nothing ran"
    problems = {sql: bad for sql in sqls if (bad := full_scans(conn, sql))}
    assert problems == {}


def test_the_check_sees_a_full_scan(conn: sqlite3.Connection) -> None:
    assert full_scans(conn, "SELECT COUNT(*) FROM answers WHERE correct = 1")
    assert full_scans(conn, "SELECT * FROM subscriptions WHERE timezone = 'UTC'")


def test_the_chart_reads_one_answer_not_its_days_of_answers(conn: sqlite3.Connection) -> None:
    [sql] = statements(conn, lambda c: history_sql.latest_answer_id(c, 1, "b"))
    plan = " ".join(row[3] for row in conn.execute("EXPLAIN QUERY PLAN " + sql))
    assert "answers_by_user_time" in plan and "TEMP B-TREE" not in plan, plan
