"""Read-side summaries of the answers (migration 0010): per learner × topic, per learner × local
day, per group member × week and all time. Kept in the answer's own transaction by
`add_answer`, so /stats, streaks and leaderboards never read the answers themselves; the
learner's latest run of days (migration 0012) follows learner_days by triggers.
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from enum import Enum, auto
from functools import lru_cache
from zoneinfo import ZoneInfo

from bot.domain import zones
from bot.domain.groups import Standing, week_key
from bot.domain.streaks import (
    Streak,
    day_key,
    freeze_streak,
    run_freeze_streak,
    streak_of_days,
    streak_of_run,
)
from bot.storage.dialect import Statement, of
from bot.storage.port import Connection

ALL_TIME = ""  # member_totals.week of the all-time rows
# Zone offsets and DST switches fall on quarter hours, so answers in one quarter hour share
# their local day (and week) in every zone: the backfill converts buckets, not answers.
BUCKET_S = 900


def _zone(name: str | None, default: str) -> ZoneInfo:
    return zones.zone(name or default) or zones.zone(default) or ZoneInfo("UTC")


class Unread(Enum):
    """A value the caller has not read: the callee reads it."""

    UNREAD = auto()


UNREAD = Unread.UNREAD
# A pure function of the time and zone: a simulated clock answers many times at one time.
_day_key = lru_cache(maxsize=1024)(day_key)


def add_answer(
    conn: Connection,
    *,
    user_id: int,
    chat_id: int,
    bank_id: str,
    topic: str,
    correct: bool,
    now: float,
    default_timezone: str,
    timezone: str | Unread | None = UNREAD,
) -> None:
    """Count one new answer in every summary (inside the transaction that inserted it).
    `timezone`: the learner's own (None: unset), when the caller has read it already."""
    hit = int(correct)
    conn.execute(
        "INSERT INTO learner_topics (user_id, bank_id, topic, answered, correct)"
        " VALUES (?, ?, ?, 1, ?) ON CONFLICT (user_id, bank_id, topic) DO UPDATE SET"
        " answered = learner_topics.answered + 1,"
        " correct = learner_topics.correct + excluded.correct",
        (user_id, bank_id, topic, hit),
    )
    if timezone is UNREAD:
        row = conn.execute("SELECT timezone FROM users WHERE id = ?", (user_id,)).fetchone()
        timezone = row[0] if row else None
    day = _day_key(now, _zone(timezone, default_timezone))
    conn.execute(
        "INSERT INTO learner_days (user_id, local_date, answered) VALUES (?, ?, 1)"
        " ON CONFLICT (user_id, local_date) DO UPDATE SET answered = learner_days.answered + 1",
        (user_id, day),
    )
    conn.execute(
        "INSERT INTO learner_bank_days (user_id, bank_id, local_date, answered, correct)"
        " VALUES (?, ?, ?, 1, ?) ON CONFLICT (user_id, bank_id, local_date) DO UPDATE SET"
        " answered = learner_bank_days.answered + 1,"
        " correct = learner_bank_days.correct + excluded.correct",
        (user_id, bank_id, day, hit),
    )
    if chat_id == user_id:  # a private chat: no leaderboard
        return
    row = conn.execute("SELECT tz FROM chats WHERE id = ?", (chat_id,)).fetchone()
    week = week_key(now, (row[0] if row else None) or default_timezone)
    last_correct = now if correct else None
    conn.executemany(
        "INSERT INTO member_totals (chat_id, week, user_id, answered, correct, first_at,"
        " last_correct_at) VALUES (?, ?, ?, 1, ?, ?, ?)"
        " ON CONFLICT (chat_id, week, user_id) DO UPDATE SET"
        " answered = member_totals.answered + 1,"
        " correct = member_totals.correct + excluded.correct,"
        " last_correct_at = COALESCE(excluded.last_correct_at, member_totals.last_correct_at)",
        [(chat_id, w, user_id, hit, now, last_correct) for w in (ALL_TIME, week)],
    )


def bank_days(
    conn: Connection, user_id: int, bank_id: str, first: dt.date
) -> list[tuple[dt.date, int, int]]:
    """(local day, answered, right) of a learner in a bank from `first` on, oldest first:
    one row a day practised, however many answers the days hold."""
    rows = conn.execute(
        "SELECT local_date, answered, correct FROM learner_bank_days"
        " WHERE user_id = ? AND bank_id = ? AND local_date >= ? ORDER BY local_date",
        (user_id, bank_id, first.isoformat()),
    )
    return [(dt.date.fromisoformat(day), int(n), int(k)) for day, n, k in rows]


def streak(conn: Connection, user_id: int, now: float, zone: ZoneInfo) -> int:
    """The learner's current streak of days: O(1) from their latest run (learner_runs)."""
    row = conn.execute(
        "SELECT run_start, run_end FROM learner_runs WHERE user_id = ?", (user_id,)
    ).fetchone()
    if row is None:
        return 0
    days = streak_of_run(row[0], row[1], now, zone)
    return days if days is not None else walked_streak(conn, user_id, now, zone)


def walked_streak(conn: Connection, user_id: int, now: float, zone: ZoneInfo) -> int:
    """The streak read from the days themselves, newest first up to a gap: O(days in the
    streak). Only for a run that lies wholly after today (a zone that moved back a day)."""
    cursor = conn.execute(
        "SELECT local_date FROM learner_days WHERE user_id = ? ORDER BY local_date DESC",
        (user_id,),
    )
    return streak_of_days((r[0] for r in cursor), now, zone)


def streak_with_freezes(conn: Connection, user_id: int, now: float, zone: ZoneInfo) -> Streak:
    """The /stats streak, a missed day a week forgiven: O(1) from the latest run unless the
    learner answered two days before it starts (a freeze may join the runs), then walked."""
    row = conn.execute(
        "SELECT run_start, run_end FROM learner_runs WHERE user_id = ?", (user_id,)
    ).fetchone()
    if row is None:
        return Streak(0)
    before = (dt.date.fromisoformat(row[0]) - dt.timedelta(days=2)).isoformat()
    joined = conn.execute(
        "SELECT 1 FROM learner_days WHERE user_id = ? AND local_date = ?", (user_id, before)
    ).fetchone()
    if joined is None and (found := run_freeze_streak(row[0], row[1], now, zone)) is not None:
        return found
    cursor = conn.execute(
        "SELECT local_date FROM learner_days WHERE user_id = ? ORDER BY local_date DESC",
        (user_id,),
    )
    return freeze_streak((r[0] for r in cursor), now, zone)


def standings(conn: Connection, chat_id: int, week: str, limit: int) -> list[Standing]:
    """The best `limit` members of a chat in one week (or ALL_TIME): O(members)."""
    rows = conn.execute(
        "SELECT m.user_id, COALESCE(u.first_name, ''), m.answered, m.correct FROM"
        " (SELECT user_id, answered, correct, COALESCE(last_correct_at, first_at) AS reached"
        "  FROM member_totals WHERE chat_id = ? AND week = ?"
        "  ORDER BY correct DESC, reached ASC, user_id ASC LIMIT ?) m"
        " LEFT JOIN users u ON u.id = m.user_id"
        " ORDER BY m.correct DESC, m.reached ASC, m.user_id ASC",
        (chat_id, week, limit),
    )
    return [Standing(uid, name, answered, correct) for uid, name, answered, correct in rows]


_MERGE_TOTALS = Statement(
    lambda d: (
        "INSERT INTO member_totals (chat_id, week, user_id, answered, correct, first_at,"
        " last_correct_at) SELECT ?, week, user_id, answered, correct, first_at,"
        " last_correct_at FROM member_totals WHERE chat_id = ? AND true"
        " ON CONFLICT (chat_id, week, user_id) DO UPDATE SET"
        " answered = member_totals.answered + excluded.answered,"
        " correct = member_totals.correct + excluded.correct,"
        f" first_at = {d.least('member_totals.first_at', 'excluded.first_at')},"
        " last_correct_at = COALESCE("
        f"{d.greatest('member_totals.last_correct_at', 'excluded.last_correct_at')},"
        " member_totals.last_correct_at, excluded.last_correct_at)"
    )
)


def merge_chat(conn: Connection, old_id: int, new_id: int) -> None:
    """A group's totals follow it to its supergroup id, added to any the new id has."""
    conn.execute(_MERGE_TOTALS(conn), (new_id, old_id))
    conn.execute("DELETE FROM member_totals WHERE chat_id = ?", (old_id,))


def backfill_bank_days(conn: Connection, default_timezone: str) -> None:
    """Fill learner_bank_days from existing answers (migration 0021), as `backfill` fills
    learner_days: quarter hours counted in SQL, each turned into a local day in Python."""
    user_zones = dict(conn.execute("SELECT id, timezone FROM users WHERE timezone IS NOT NULL"))
    keys: dict[tuple[str, int], str] = {}
    days: defaultdict[tuple[int, str, str], list[int]] = defaultdict(lambda: [0, 0])
    d = of(conn)
    rows = conn.execute(
        f"SELECT user_id, bank_id, {d.truncate(f'answered_at / {BUCKET_S}')} AS q, COUNT(*),"
        f" SUM(correct) FROM answers{d.not_indexed()} GROUP BY user_id, bank_id, q"
    )
    for user_id, bank_id, q, n, hits in rows:
        name = user_zones.get(user_id) or default_timezone
        key = keys.get((name, q))
        if key is None:
            key = keys[(name, q)] = day_key(q * BUCKET_S, _zone(name, default_timezone))
        acc = days[(user_id, bank_id, key)]
        acc[0] += n
        acc[1] += hits
    conn.executemany(
        "INSERT INTO learner_bank_days (user_id, bank_id, local_date, answered, correct)"
        " VALUES (?, ?, ?, ?, ?)",
        [(u, b, d, n, k) for (u, b, d), (n, k) in days.items()],
    )


def backfill(conn: Connection, default_timezone: str) -> None:
    """Fill learner_days and the weekly member_totals from existing answers (migration 0010).

    Answers are grouped by quarter hour in SQL; Python turns each bucket into a local day or
    week in the learner's (or chat's) zone, as `add_answer` would have at the time.
    """
    user_zones = dict(conn.execute("SELECT id, timezone FROM users WHERE timezone IS NOT NULL"))
    keys: dict[tuple[str, int], str] = {}
    days: defaultdict[tuple[int, str], int] = defaultdict(int)
    rows = conn.execute(
        f"SELECT user_id, {of(conn).truncate(f'answered_at / {BUCKET_S}')} AS q, COUNT(*)"
        " FROM answers"
        " GROUP BY user_id, q"
    )
    for user_id, q, n in rows:
        name = user_zones.get(user_id) or default_timezone
        key = keys.get((name, q))
        if key is None:
            key = keys[(name, q)] = day_key(q * BUCKET_S, _zone(name, default_timezone))
        days[(user_id, key)] += n
    conn.executemany(
        "INSERT INTO learner_days (user_id, local_date, answered) VALUES (?, ?, ?)",
        [(u, d, n) for (u, d), n in days.items()],
    )
    chat_zones = dict(conn.execute("SELECT id, tz FROM chats WHERE tz IS NOT NULL"))
    weeks: dict[tuple[int, str, int], list[float]] = {}
    rows = conn.execute(
        f"SELECT chat_id, user_id, {of(conn).truncate(f'answered_at / {BUCKET_S}')} AS q,"
        " COUNT(*), SUM(correct), MIN(answered_at),"
        " MAX(CASE WHEN correct = 1 THEN answered_at END)"
        f" FROM answers{of(conn).not_indexed()} WHERE chat_id != user_id"
        " GROUP BY chat_id, user_id, q"
    )
    for chat_id, user_id, q, n, hits, first, last in rows:
        name = chat_zones.get(chat_id) or default_timezone
        key = keys.get((f"w:{name}", q))
        if key is None:
            key = keys[(f"w:{name}", q)] = week_key(q * BUCKET_S, name)
        acc = weeks.get((chat_id, key, user_id))
        if acc is None:
            weeks[(chat_id, key, user_id)] = [n, hits, first, last if last is not None else -1]
        else:
            acc[0] += n
            acc[1] += hits
            acc[2] = min(acc[2], first)
            acc[3] = max(acc[3], last if last is not None else -1)
    conn.executemany(
        "INSERT INTO member_totals (chat_id, week, user_id, answered, correct, first_at,"
        " last_correct_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
        [
            (c, w, u, n, hits, first, None if last < 0 else last)
            for (c, w, u), (n, hits, first, last) in weeks.items()
        ],
    )
