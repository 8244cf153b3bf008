"""When pushes fall due, and how many at each instant: what the push rate must serve in its
grace (bot/schedule/capacity.py does the arithmetic)."""

from __future__ import annotations

from bot.storage.port import Connection


def due_profile(conn: Connection, since: float) -> list[tuple[float, int]]:
    """(instant, pushes) oldest first: the backlog not yet sent (pending or in flight, due
    since `since`: older ones are past their grace) and every active subscription's next push.

    Read from two indexes alone (covering range scans, no table lookups): run at start, for
    /admin and when planning added rows, never per push.
    """
    rows = conn.execute(
        "SELECT at, SUM(n) FROM ("
        " SELECT next_due_at AS at, COUNT(*) AS n FROM subscriptions"
        " WHERE active = 1 AND next_due_at IS NOT NULL GROUP BY next_due_at"
        " UNION ALL SELECT due_at AS at, COUNT(*) AS n FROM push_log"
        " WHERE due_at >= ? AND state IN ('pending', 'sending') GROUP BY due_at"
        ") AS due GROUP BY at ORDER BY at",
        (since,),
    ).fetchall()
    return [(float(at), int(n)) for at, n in rows]


def minute_load(conn: Connection, start: float, except_chat: int) -> int:
    """Active subscriptions (but `except_chat`'s) whose next push falls in the minute from
    `start`: a range count on an index."""
    row = conn.execute(
        "SELECT COUNT(*) FROM subscriptions"
        " WHERE active = 1 AND next_due_at >= ? AND next_due_at < ? AND chat_id != ?",
        (start, start + 60.0, except_chat),
    ).fetchone()
    return int(row[0])
