"""The learner's latest run of days (migration 0012): kept by triggers on learner_days and
backfilled, it gives exactly the streak the walk over the days gives, whatever order the days
arrive in, whatever zone reads them, after deletions too."""

from __future__ import annotations

import datetime as dt
import itertools
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.domain.streaks import streak_of_days
from bot.storage import summaries
from bot.storage.port import Connection
from bot.storage.sqlite.database import connect_sync
from bot.storage.sqlite.migrations import apply_migrations
from tests import factories
from tests.bench.gen_history import migrate_up_to

BASE = dt.date(2026, 3, 1)
T_BASE = dt.datetime(2026, 3, 1, tzinfo=dt.UTC).timestamp()
# The zones furthest ahead of and behind UTC, a half-hour one, and UTC itself.
ZONES = ["UTC", "Pacific/Kiritimati", "Pacific/Pago_Pago", "Asia/Kolkata", "America/New_York"]
UPSERT = (
    "INSERT INTO learner_days (user_id, local_date, answered) VALUES (?, ?, 1)"
    " ON CONFLICT (user_id, local_date) DO UPDATE SET answered = learner_days.answered + 1"
)


def db(path: Path) -> Connection:
    return factories.migrated(path)


def days_of(conn: Connection, uid: int) -> list[str]:
    rows = conn.execute(
        "SELECT local_date FROM learner_days WHERE user_id = ? ORDER BY local_date DESC", (uid,)
    )
    return [r[0] for r in rows]


def latest_run(days_newest_first: list[str]) -> tuple[str, str] | None:
    """The run holding the newest day, computed the plain way."""
    if not days_newest_first:
        return None
    dates = [dt.date.fromisoformat(d) for d in days_newest_first]
    start = dates[0]
    for day in dates[1:]:
        if day != start - dt.timedelta(days=1):
            break
        start = day
    return start.isoformat(), days_newest_first[0]


def run_row(conn: Connection, uid: int) -> tuple[str, str] | None:
    row = conn.execute(
        "SELECT run_start, run_end FROM learner_runs WHERE user_id = ?", (uid,)
    ).fetchone()
    return None if row is None else (row[0], row[1])


def assert_same_streaks(conn: Connection, uid: int, nows: list[tuple[int, str]]) -> None:
    days = days_of(conn, uid)
    assert run_row(conn, uid) == latest_run(days)
    for hours, zone_name in nows:
        zone = ZoneInfo(zone_name)
        now = T_BASE + hours * 3600
        assert summaries.streak(conn, uid, now, zone) == streak_of_days(days, now, zone)


# Reading times from a few days before the first possible day to a few after the last: today
# before, inside and after the run, and stored days ahead of today (a zone that moved back).
NOWS = st.lists(
    st.tuples(st.integers(-72, 50 * 24), st.sampled_from(ZONES)), min_size=1, max_size=8
)


def test_the_run_gives_the_walked_streak_for_days_in_any_order(tmp_path: Path) -> None:
    conn = db(tmp_path / "runs.sqlite3")
    users = itertools.count(1)

    @settings(max_examples=300, deadline=None)
    @given(
        inserts=st.lists(st.integers(0, 40), max_size=40),
        deletes=st.lists(st.integers(0, 40), max_size=6),
        nows=NOWS,
    )
    def check(inserts: list[int], deletes: list[int], nows: list[tuple[int, str]]) -> None:
        uid = next(users)
        for offset in inserts:  # in any order, a day more than once (the UPSERT counts it)
            conn.execute(UPSERT, (uid, (BASE + dt.timedelta(days=offset)).isoformat()))
        assert_same_streaks(conn, uid, nows)
        for offset in deletes:
            day = (BASE + dt.timedelta(days=offset)).isoformat()
            conn.execute(
                "DELETE FROM learner_days WHERE user_id = ? AND local_date = ?", (uid, day)
            )
            assert run_row(conn, uid) == latest_run(days_of(conn, uid))
        assert_same_streaks(conn, uid, nows)

    check()


def test_answers_out_of_time_order_in_changing_zones(tmp_path: Path) -> None:
    """Through the answer transaction's own summary code: each answer's day in the zone the
    learner had then, the answers not in time order (a zone moved back stores an earlier day
    after a later one)."""
    conn = db(tmp_path / "answers.sqlite3")
    users = itertools.count(1)

    @settings(max_examples=150, deadline=None)
    @given(
        answers=st.lists(
            st.tuples(st.integers(0, 30 * 24 * 4), st.sampled_from(ZONES)), max_size=30
        ),
        nows=NOWS,
    )
    def check(answers: list[tuple[int, str]], nows: list[tuple[int, str]]) -> None:
        uid = next(users)
        for quarter, zone_name in answers:
            summaries.add_answer(
                conn, user_id=uid, chat_id=uid, bank_id="b", topic="t", correct=True,
                now=T_BASE + quarter * 900, default_timezone="UTC", timezone=zone_name,
            )  # fmt: skip
        assert_same_streaks(conn, uid, nows)

    check()


def test_one_answer_a_day_touches_the_run_once(tmp_path: Path) -> None:
    conn = db(tmp_path / "once.sqlite3")
    for hour in range(0, 72, 3):
        summaries.add_answer(
            conn, user_id=7, chat_id=7, bank_id="b", topic="t", correct=False,
            now=T_BASE + hour * 3600, default_timezone="UTC", timezone=None,
        )  # fmt: skip
    assert run_row(conn, 7) == ("2026-03-01", "2026-03-03")
    assert conn.execute("SELECT SUM(answered) FROM learner_days").fetchone()[0] == 24
    # Read on the 4th the run still counts (today not practised yet); on the 5th it is gone.
    assert summaries.streak(conn, 7, T_BASE + 3.5 * 86400, ZoneInfo("UTC")) == 3
    assert summaries.streak(conn, 7, T_BASE + 4.5 * 86400, ZoneInfo("UTC")) == 0


@pytest.mark.sqlite_only("replays SQLite's migration 0012 on an old SQLite schema")
def test_the_migration_backfills_the_runs_the_triggers_keep(tmp_path: Path) -> None:
    old = connect_sync(tmp_path / "old.sqlite3")
    old.row_factory = None
    migrate_up_to(old, "0011_last_question")
    new = db(tmp_path / "new.sqlite3")
    # Users with a gap, out-of-order days, a single day, runs of different lengths.
    plan = {
        1: [0, 1, 2, 5, 6, 7, 8],
        2: [9, 3, 4, 8, 7, 6, 5, 2],
        3: [12],
        4: [20, 18, 16, 17, 19, 1, 2],
        5: list(range(30, 0, -3)),
    }
    for conn in (old, new):
        for uid, offsets in plan.items():
            for offset in offsets:
                conn.execute(UPSERT, (uid, (BASE + dt.timedelta(days=offset)).isoformat()))
    assert old.execute("SELECT COUNT(*) FROM learner_days").fetchone()[0] == 33
    assert apply_migrations(old)[0] == "0012_streak_runs"
    runs = "SELECT * FROM learner_runs ORDER BY user_id"
    assert old.execute(runs).fetchall() == [tuple(r) for r in new.execute(runs)]
    assert old.execute(runs).fetchall() == [
        (1, "2026-03-06", "2026-03-09"),
        (2, "2026-03-03", "2026-03-10"),
        (3, "2026-03-13", "2026-03-13"),
        (4, "2026-03-17", "2026-03-21"),
        (5, "2026-03-31", "2026-03-31"),
    ]
