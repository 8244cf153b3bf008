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
