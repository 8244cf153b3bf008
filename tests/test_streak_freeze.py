"""A kinder streak: one missed day a week is forgiven (a freeze). The rule over the days, the
same result from the stored run of days, and /stats saying how many freezes are left."""

from __future__ import annotations

import datetime as dt
import itertools
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.domain.models import Stats
from bot.domain.streaks import Streak, freeze_streak
from bot.storage import summaries
from bot.telegram.views.render import stats_text
from tests.test_streak_runs import BASE, T_BASE, UPSERT, ZONES, days_of, db

UTC = ZoneInfo("UTC")
# Wednesday 2026-05-27, noon UTC; its ISO week runs Monday 25 to Sunday 31.
WEDNESDAY = dt.datetime(2026, 5, 27, 12, tzinfo=dt.UTC).timestamp()


def keys(*days: str) -> list[str]:
    return [f"2026-05-{d}" for d in days]


def test_one_missed_day_a_week_is_forgiven() -> None:
    # Tuesday 26 missed, this week's freeze bridges it.
    assert freeze_streak(keys("27", "25", "24"), WEDNESDAY, UTC) == Streak(3, 0)
    # Today not answered yet is no missed day; yesterday missed is bridged, the streak lives.
    assert freeze_streak(keys("25", "24"), WEDNESDAY, UTC) == Streak(2, 0)
    # Two days in a row end it, whatever the freezes.
    assert freeze_streak(keys("27", "24", "23"), WEDNESDAY, UTC) == Streak(1, 1)
    # Last week's missed Thursday used last week's freeze: this week's is still there.
    assert freeze_streak(keys("27", "26", "25", "24", "23", "22", "20"), WEDNESDAY, UTC) == (
        Streak(7, 1)
    )
    # Missed Tuesday 26 and Sunday 24 lie in two ISO weeks: each week's freeze bridges one.
    assert freeze_streak(keys("27", "25", "23"), WEDNESDAY, UTC) == Streak(3, 0)
    # A second missed day in one ISO week ends the streak at it (Saturday 23, Thursday 21).
    sunday = WEDNESDAY - 3 * 86400
    assert freeze_streak(keys("24", "22", "20"), sunday, UTC) == Streak(2, 0)
    assert freeze_streak(keys("24", "23"), WEDNESDAY, UTC) == Streak(0, 1)
    assert freeze_streak([], WEDNESDAY, UTC) == Streak(0, 1)


@st.composite
def histories(draw: st.DrawFn) -> list[int]:
    """Day offsets from BASE, each answered: runs with gaps of one, two or more days."""
    offsets: list[int] = []
    day = 0
    for _ in range(draw(st.integers(0, 30))):
        day += draw(st.sampled_from([1, 1, 1, 2, 2, 3, 5]))
        offsets.append(day)
    return offsets


_learners = itertools.count(1)


@settings(max_examples=100, deadline=None)
@given(histories(), st.data())
def test_the_stored_run_gives_the_walked_freeze_streak(
    tmp_path_factory: pytest.TempPathFactory, offsets: list[int], data: st.DataObject
) -> None:
    # Read from a little before the newest day to a few days after it, where freezes matter.
    newest = offsets[-1] if offsets else 0
    hours = st.integers(newest * 24 - 48, newest * 24 + 5 * 24)
    nows = data.draw(st.lists(st.tuples(hours, st.sampled_from(ZONES)), min_size=1, max_size=6))
    # One database for every example (a PostgreSQL one costs a CREATE DATABASE), and a
    # learner of its own for each.
    uid = next(_learners)
    conn = db(tmp_path_factory.getbasetemp() / "freeze.sqlite3")
    try:
        for offset in offsets:
            day = (BASE + dt.timedelta(days=offset)).isoformat()
            conn.execute(UPSERT, (uid, day))
        days = days_of(conn, uid)
        for hour, zone_name in nows:
            zone = ZoneInfo(zone_name)
            now = T_BASE + hour * 3600
            stored = summaries.streak_with_freezes(conn, uid, now, zone)
            assert stored == freeze_streak(days, now, zone)
    finally:
        conn.close()


def test_stats_show_the_freeze() -> None:
    stats = Stats("Demo", answered=5, correct=4, streak_days=12, streak_freezes_left=1)
    assert "Streak: <b>12</b> days 🔥 · 1 freeze left this week" in stats_text(stats)
    used = Stats("Demo", answered=5, correct=4, streak_days=1, streak_freezes_left=0)
    assert "Streak: <b>1</b> day 🔥 · this week's freeze used" in stats_text(used)
    none = Stats("Demo", answered=5, correct=4, streak_days=0)
    assert "Streak: <b>0</b> days 🔥\n" in stats_text(none)
