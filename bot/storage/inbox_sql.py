"""The durable inbox of Telegram updates (migration 0019_inbox)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from bot.storage.port import Connection


def receive(conn: Connection, updates: Sequence[tuple[int, str]], now: float) -> list[int]:
    """Store updates (update_id, JSON) not stored before; the ids that were new."""
    fresh: list[int] = []
    for update_id, payload in updates:
        row = conn.execute(
            "INSERT INTO inbox (update_id, payload, received_at) VALUES (?, ?, ?)"
            " ON CONFLICT (update_id) DO NOTHING RETURNING update_id",
            (update_id, payload, now),
        ).fetchone()
        if row is not None:
            fresh.append(update_id)
    return fresh


def mark_done(conn: Connection, update_ids: Iterable[int], now: float) -> None:
    """Handled: not handled again after a restart."""
    conn.executemany(
        "UPDATE inbox SET state = 'done', done_at = ? WHERE update_id = ? AND state = 'new'",
        [(now, update_id) for update_id in update_ids],
    )


def unhandled(conn: Connection) -> list[tuple[int, str]]:
    """Updates stored and not handled (a crash came between), oldest first."""
    rows = conn.execute(
        "SELECT update_id, payload FROM inbox WHERE state = 'new' ORDER BY update_id"
    ).fetchall()
    return [(int(r[0]), str(r[1])) for r in rows]


def prune(conn: Connection, before: float) -> int:
    """Forget handled updates done before `before` (their ids only matter for a while)."""
    return conn.execute(
        "DELETE FROM inbox WHERE state = 'done' AND done_at < ?", (before,)
    ).rowcount
