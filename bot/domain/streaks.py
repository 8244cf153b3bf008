"""Streaks of consecutive local days with at least one answer."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from dataclasses import dataclass
from zoneinfo import ZoneInfo


def local_date(ts: float, zone: ZoneInfo) -> dt.date:
    """The calendar date of a Unix time in a timezone."""
    return dt.datetime.fromtimestamp(ts, zone).date()


def current_streak(times: Iterable[float], now: float, zone: ZoneInfo) -> int:
    """Consecutive days with an answer, ending today, or yesterday if today has none yet."""
    days = {local_date(t, zone) for t in times}
    today = local_date(now, zone)
    day = today if today in days else today - dt.timedelta(days=1)
    streak = 0
    while day in days:
        streak += 1
        day -= dt.timedelta(days=1)
    return streak


def day_key(ts: float, zone: ZoneInfo) -> str:
    """The ISO calendar date of a Unix time in a zone: how answer days are stored."""
    return local_date(ts, zone).isoformat()


def streak_of_days(days_newest_first: Iterable[str], now: float, zone: ZoneInfo) -> int:
    """`current_streak` over ISO day keys, newest first; stops reading at the first gap, so a
    caller streaming them from an index reads O(days in the streak)."""
    today = local_date(now, zone)
    expected: dt.date | None = None
    streak = 0
    for key in days_newest_first:
        day = dt.date.fromisoformat(key)
        if day > today:  # stored in a zone ahead of today's: it counts as today
            day = today
        if expected is None:
            if day < today - dt.timedelta(days=1):
                return 0
            expected = day
        if day == expected:
            streak += 1
            expected = day - dt.timedelta(days=1)
        elif day < expected:
            break
    return streak


def streak_of_run(first: str, last: str, now: float, zone: ZoneInfo) -> int | None:
    """`streak_of_days` from the learner's latest run of consecutive days alone (ISO keys of
    its first and last day); None when the whole run lies after today (days stored in a zone
    ahead of today's), where the days before it decide and must be read."""
    today = local_date(now, zone)
    end = dt.date.fromisoformat(last)
    start = dt.date.fromisoformat(first)
    if end < today - dt.timedelta(days=1):
        return 0
    if end <= today:
        return (end - start).days + 1
    # Days after today count as today, once: the run from its start up to today.
    return (today - start).days + 1 if start <= today else None


# A missed day a week is forgiven: habit-app learners ask that one busy day not wipe out weeks
# of practice. Two missed days in a row, or a second one in the same ISO week, end the streak.
FREEZES_PER_WEEK = 1


@dataclass(frozen=True, slots=True)
class Streak:
    """Days with an answer in the current streak, and this week's freezes still unused."""

    days: int
    freezes_left: int = FREEZES_PER_WEEK


def _week(day: dt.date) -> tuple[int, int]:
    year, week, _ = day.isocalendar()
    return year, week


def freeze_streak(days_newest_first: Iterable[str], now: float, zone: ZoneInfo) -> Streak:
    """The streak over ISO day keys, newest first, where one missed day per ISO week is
    bridged by a freeze; stops reading at the first gap it cannot bridge."""
    today = local_date(now, zone)
    expected = today  # the newest day the streak may still hold
    frozen: set[tuple[int, int]] = set()
    days = 0
    for key in days_newest_first:
        day = min(dt.date.fromisoformat(key), today)  # a zone ahead of today's: today
        if day > expected:
            continue
        if days == 0 and expected == today and day < today:
            expected = today - dt.timedelta(days=1)  # today is not over: not a missed day
        missed = (expected - day).days
        if missed == 1 and _week(expected) not in frozen:
            frozen.add(_week(expected))
        elif missed != 0:
            break
        days += 1
        expected = day - dt.timedelta(days=1)
    used = 1 if _week(today) in frozen else 0
    return Streak(days, FREEZES_PER_WEEK - used if days else FREEZES_PER_WEEK)


def run_freeze_streak(first: str, last: str, now: float, zone: ZoneInfo) -> Streak | None:
    """`freeze_streak` from the latest run of consecutive days alone, for a learner with no
    answer two days before the run starts (so no freeze can join an earlier run); None when
    the run lies after today, where the days themselves must be read."""
    today = local_date(now, zone)
    start, end = dt.date.fromisoformat(first), dt.date.fromisoformat(last)
    if end > today:
        return None
    length = (end - start).days + 1
    if end >= today - dt.timedelta(days=1):
        return Streak(length)
    if end == today - dt.timedelta(days=2):  # yesterday missed: the freeze keeps the streak
        yesterday = today - dt.timedelta(days=1)
        return Streak(length, FREEZES_PER_WEEK - (_week(yesterday) == _week(today)))
    return Streak(0)
