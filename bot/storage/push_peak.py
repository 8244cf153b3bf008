"""How many subscribers fall due at one instant: what the push rate must serve in its grace."""

from __future__ import annotations

from dataclasses import dataclass

from bot.storage.dialect import of
from bot.storage.port import Connection


@dataclass(frozen=True, slots=True)
class Peak:
    """The busiest due instant among active subscriptions."""

    at: float
    subscribers: int


def peak_due(conn: Connection) -> Peak | None:
    """The instant most active subscriptions fall due at next (None without subscribers).

    Read from the subscriptions_due index alone (a covering scan, no table lookups): run at
    start and for /admin, never per push.
    """
    row = conn.execute(
        "SELECT next_due_at, COUNT(*) AS n FROM subscriptions"
        f"{of(conn).indexed_by('subscriptions_due')}"
        " WHERE active = 1 AND next_due_at IS NOT NULL GROUP BY next_due_at"
        " ORDER BY n DESC, next_due_at LIMIT 1"
    ).fetchone()
    return None if row is None else Peak(float(row[0]), int(row[1]))
