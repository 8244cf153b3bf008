"""Streaks of consecutive local days with at least one answer."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
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
