"""When a daily push falls due: local time of day + IANA zone -> instants (pure, no I/O).

The DST rule, in one place:
- a local time skipped by a spring-forward change (02:30 in Berlin on 2026-03-29) falls due at
  the shifted instant (03:30 local), as `datetime(fold=0)` maps it;
- a local time that occurs twice (02:30 on 2026-10-25) falls due at its first occurrence only:
  each local date has exactly one instant, and the delivery log's unique (chat, local date) key
  makes any second attempt harmless anyway.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from zoneinfo import ZoneInfo

TIME_PATTERN = re.compile(r"^([01]?\d|2[0-3])[:.hH]([0-5]\d)$")


@dataclass(frozen=True, slots=True)
class Occurrence:
    """One push: the subscriber's local date and the instant (Unix seconds) it falls due."""

    local_date: str  # ISO date, the delivery log's day key
    at: float


def parse_time(text: str) -> str | None:
    """'7:30', '07.30' or '0730h'-like input as canonical 'HH:MM'; None if not a time of day."""
    match = TIME_PATTERN.match(text.strip())
    if match is None:
        return None
    return f"{int(match.group(1)):02d}:{match.group(2)}"


def minutes_of(local_time: str) -> int:
    """'HH:MM' as minutes after midnight."""
    hours, minutes = local_time.split(":")
    return int(hours) * 60 + int(minutes)


def due_at(local_date: dt.date, local_time: str, tz: ZoneInfo) -> float:
    """The instant of local_time on local_date (DST rule: see the module docstring)."""
    minute = minutes_of(local_time)
    wall = dt.datetime.combine(local_date, dt.time(minute // 60, minute % 60), tzinfo=tz)
    # fold=0 on a nonexistent wall time uses the offset from before the change, which lands
    # after the gap (02:30 CET == 03:30 CEST); on a repeated one it picks the first.
    return wall.timestamp()


def local_date_of(instant: float, tz: ZoneInfo) -> dt.date:
    """The date on the subscriber's wall calendar at that instant."""
    return dt.datetime.fromtimestamp(instant, tz).date()


def latest_due(local_time: str, tz: ZoneInfo, now: float) -> Occurrence:
    """The most recent occurrence at or before now."""
    day = local_date_of(now, tz)
    for back in range(3):
        candidate = day - dt.timedelta(days=back)
        at = due_at(candidate, local_time, tz)
        if at <= now:
            return Occurrence(candidate.isoformat(), at)
    raise AssertionError("no occurrence in three days")  # pragma: no cover - zone data broken


def next_due(local_time: str, tz: ZoneInfo, after: float) -> Occurrence:
    """The first occurrence strictly after `after`."""
    day = local_date_of(after, tz) - dt.timedelta(days=1)
    for ahead in range(4):
        candidate = day + dt.timedelta(days=ahead)
        at = due_at(candidate, local_time, tz)
        if at > after:
            return Occurrence(candidate.isoformat(), at)
    raise AssertionError("no occurrence in three days")  # pragma: no cover - zone data broken


def is_late(occurrence: Occurrence, now: float, grace_s: float) -> bool:
    """Too late to send: the push fell due more than the grace ago (e.g. during downtime)."""
    return now - occurrence.at > grace_s
