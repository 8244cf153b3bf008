"""Read-side summaries (migration 0010): kept in the answer transaction, backfilled for old
answers, and always equal to what the answers themselves say."""

from __future__ import annotations

import datetime as dt
import random
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from bot.domain.groups import week_key, week_start
from bot.domain.streaks import current_streak, streak_of_days
from bot.storage import practice_sql, summaries
from bot.storage.chat_migration import migrate_chat
from bot.storage.port import Connection
from bot.storage.sqlite.database import connect_sync
from bot.storage.sqlite.migrations import apply_migrations
from tests import factories
from tests.bench.gen_history import migrate_up_to

T0 = 1_780_000_000.0  # 2026-05-28
GROUP, OTHER_GROUP = -1001, -1002
ZONES = ["Asia/Kolkata", "America/New_York", None]
SUMMARY_TABLES = ("learner_topics", "learner_days", "learner_bank_days", "member_totals")


def people(conn: Connection) -> None:
    for uid in range(1, 9):
        tz = ZONES[uid % len(ZONES)]
        conn.execute(
            "INSERT INTO users (id, first_name, timezone, created_at, seen_at)"
            " VALUES (?, ?, ?, 0, 0)",
            (uid, f"U{uid}", tz),
        )
    conn.execute(
        "INSERT INTO chats (id, type, tz, created_at, updated_at)"
        " VALUES (?, 'supergroup', 'Pacific/Chatham', 0, 0)",
        (GROUP,),
    )


def answers(seed: int, n: int = 600) -> list[tuple[int, int, str, bool, float]]:
    """(user, chat, topic, correct, time) over ~40 days, around midnights in several zones."""
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        uid = rng.randint(1, 8)
        chat = rng.choice([uid, uid, GROUP, OTHER_GROUP])
        out.append((uid, chat, rng.choice("abc"), rng.random() < 0.6, T0 + rng.random() * 40e5))
    return sorted(out, key=lambda a: a[4])


def record(conn: Connection, rows: list[tuple[int, int, str, bool, float]]) -> None:
    """Answers as the bot records them (through insert_answer)."""
    conn.execute("BEGIN")
    for uid, chat, topic, correct, t in rows:
        did = practice_sql.insert_delivery(
            conn, chat_id=chat, user_id=uid if chat == uid else None, bank_id="b",
            question_id=f"q{topic}", source="quiz", now=t - 5,
        )  # fmt: skip
        delivery = practice_sql.delivery_record(conn, did)
        assert delivery is not None
        assert practice_sql.insert_answer(
            conn, delivery=delivery, user_id=uid, topic=topic, chosen="0", correct=correct,
            now=t, default_timezone="Asia/Tokyo",
        )  # fmt: skip
    conn.execute("COMMIT")


def table(conn: Connection, name: str) -> list[tuple[object, ...]]:
    return sorted((tuple(r) for r in conn.execute(f"SELECT * FROM {name}")), key=repr)


@pytest.fixture
def conn(tmp_path: Path) -> Connection:
    return factories.migrated(tmp_path / "s.sqlite3")


def test_backfill_of_old_answers_equals_what_the_answer_transaction_keeps(
    tmp_path: Path, conn: Connection
) -> None:
    rows = answers(1)
    people(conn)
    record(conn, rows)
    # An older bot's SQLite file, whatever the backend `conn` is on.
    old = connect_sync(tmp_path / "old.sqlite3")
    old.row_factory = None
    migrate_up_to(old, "0009")
    people(old)
    old.execute("BEGIN")
    for uid, chat, topic, correct, t in rows:  # as an older bot wrote them: no summaries
        old.execute(
            "INSERT INTO deliveries (chat_id, user_id, bank_id, question_id, sent_at)"
            " VALUES (?, ?, 'b', ?, ?)",
            (chat, uid if chat == uid else None, f"q{topic}", t - 5),
        )
        old.execute(
            "INSERT INTO answers (delivery_id, user_id, chat_id, bank_id, question_id, topic,"
            " chosen, correct, answered_at) VALUES (last_insert_rowid(), ?, ?, 'b', ?, ?, '0',"
            " ?, ?)",
            (uid, chat, f"q{topic}", topic, int(correct), t),
        )
    old.execute("COMMIT")
    new = apply_migrations(old, default_timezone="Asia/Tokyo")
    assert "0010_summaries" in new and "0023_bank_days" in new
    for name in SUMMARY_TABLES:
        assert table(old, name) == table(conn, name), name
    assert len(table(conn, "member_totals")) > 10


def test_summaries_agree_with_the_answers(conn: Connection) -> None:
    people(conn)
    rows = answers(2)
    record(conn, rows)
    now = rows[-1][4] + 3600
    for uid in range(1, 9):
        tz = conn.execute("SELECT timezone FROM users WHERE id = ?", (uid,)).fetchone()[0]
        zone = ZoneInfo(tz or "Asia/Tokyo")
        times = [t for u, _, _, _, t in rows if u == uid]
        assert summaries.streak(conn, uid, now, zone) == current_streak(times, now, zone)
        per_day: dict[dt.date, tuple[int, int]] = {}
        for u, _, _, c, t in rows:
            if u == uid:
                day = dt.datetime.fromtimestamp(t, zone).date()
                n, k = per_day.get(day, (0, 0))
                per_day[day] = (n + 1, k + c)
        got_days = summaries.bank_days(conn, uid, "b", dt.date(2026, 6, 20))
        assert got_days == sorted(
            (d, n, k) for d, (n, k) in per_day.items() if d >= dt.date(2026, 6, 20)
        )
        assert got_days
        totals = practice_sql.topic_totals(conn, uid, "b")
        for topic in "abc":
            mine = [c for u, _, tp, c, _ in rows if u == uid and tp == topic]
            got = [t for t in totals if t.topic == topic]
            assert (got[0].answered, got[0].correct) == (len(mine), sum(mine))
    for since, week in ((0.0, summaries.ALL_TIME), (week_start(now, "Pacific/Chatham"), None)):
        key = week if week is not None else week_key(now, "Pacific/Chatham")
        expected = conn.execute(
            "SELECT user_id, COUNT(*), SUM(correct),"
            " COALESCE(MAX(CASE WHEN correct = 1 THEN answered_at END), MIN(answered_at)) AS r"
            " FROM answers WHERE chat_id = ? AND answered_at >= ? GROUP BY user_id"
            " ORDER BY SUM(correct) DESC, r, user_id LIMIT 5",
            (GROUP, since),
        ).fetchall()
        got = summaries.standings(conn, GROUP, key, 5)
        assert [(s.user_id, s.answered, s.correct) for s in got] == [e[:3] for e in expected]
        assert got and got[0].first_name.startswith("U")


def test_streak_reads_days_up_to_the_first_gap() -> None:
    zone = ZoneInfo("UTC")
    now = T0  # 2026-05-28 in UTC
    assert streak_of_days(["2026-05-28", "2026-05-27", "2026-05-25"], now, zone) == 2
    assert streak_of_days(["2026-05-27", "2026-05-26"], now, zone) == 2  # today not yet
    assert streak_of_days(["2026-05-26"], now, zone) == 0
    # A day stored in a zone ahead of today's counts as today.
    assert streak_of_days(["2026-05-29", "2026-05-28", "2026-05-27"], now, zone) == 2
    assert streak_of_days(iter([]), now, zone) == 0


def test_a_group_upgrade_adds_its_totals_to_the_new_id(conn: Connection) -> None:
    people(conn)
    rows = [r for r in answers(3) if r[1] in (GROUP, OTHER_GROUP)]
    record(conn, rows)
    migrate_chat(conn, GROUP, OTHER_GROUP, T0)
    left = conn.execute("SELECT COUNT(*) FROM member_totals WHERE chat_id = ?", (GROUP,))
    assert left.fetchone()[0] == 0
    board = summaries.standings(conn, OTHER_GROUP, summaries.ALL_TIME, 10)
    for s in board:
        mine = [c for u, _, _, c, _ in rows if u == s.user_id]
        assert (s.answered, s.correct) == (len(mine), sum(mine))
