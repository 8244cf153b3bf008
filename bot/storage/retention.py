"""Retention: deleting old rows in small batches, each batch its own short write transaction.

What goes (README "Retention"): push log rows finished more than the log's age ago, deliveries
never answered that are as old (and no longer referenced by the push log), and, only when the
operator sets a retention for them, answers older than that. Summaries (/stats, streaks,
leaderboards) are counts kept beside the answers and stay as they are.
"""

from __future__ import annotations

from bot.storage.bot_status import read_status, set_status
from bot.storage.port import Connection

# The deliveries walk resumes where the last batch stopped: answered deliveries stay forever,
# and walking them again from the first id every day would grow with history.
CURSOR_KEY = "retention_deliveries_after"


def prune_push_log(conn: Connection, before: float, limit: int) -> int:
    """Delete up to `limit` finished push log rows due before `before`."""
    cur = conn.execute(
        "DELETE FROM push_log WHERE id IN (SELECT id FROM push_log WHERE due_at < ?"
        " AND state NOT IN ('pending', 'sending') LIMIT ?)",
        (before, limit),
    )
    return cur.rowcount


def prune_unanswered(conn: Connection, before: float, limit: int, now: float) -> int:
    """Walk up to `limit` deliveries older than `before` (by id, from the saved cursor) and
    delete those nobody answered and the push log no longer names; -1 once the walk is done."""
    after = int(read_status(conn).get(CURSOR_KEY, "0"))
    rows = conn.execute(
        "SELECT id, sent_at FROM deliveries WHERE id > ? ORDER BY id LIMIT ?", (after, limit)
    ).fetchall()
    old = [r[0] for r in rows if r[1] < before]
    if not old:
        return -1
    # Ids grow with time: the first delivery at or after the cutoff ends this run's walk.
    done = len(old) < len(rows) or len(rows) < limit
    conn.executemany(
        "DELETE FROM deliveries WHERE id = ?"
        " AND NOT EXISTS (SELECT 1 FROM answers WHERE delivery_id = ?)"
        " AND NOT EXISTS (SELECT 1 FROM push_log WHERE delivery_id = ?)",
        [(i, i, i) for i in old],
    )
    set_status(conn, {CURSOR_KEY: str(old[-1])}, now)
    return -1 if done else len(old)


def prune_answers(conn: Connection, before: float, limit: int) -> int:
    """Delete up to `limit` of the oldest answers given before `before` (in id order, the
    order they were written), and their deliveries once no answer or push names them."""
    rows = conn.execute(
        "SELECT id, delivery_id, answered_at FROM answers ORDER BY id LIMIT ?", (limit,)
    ).fetchall()
    gone: list[tuple[int, int]] = []
    for answer_id, delivery_id, answered_at in rows:
        if answered_at >= before:
            break
        gone.append((answer_id, delivery_id))
    conn.executemany("DELETE FROM answers WHERE id = ?", [(a,) for a, _ in gone])
    conn.executemany(
        "DELETE FROM deliveries WHERE id = ?"
        " AND NOT EXISTS (SELECT 1 FROM answers WHERE delivery_id = ?)"
        " AND NOT EXISTS (SELECT 1 FROM push_log WHERE delivery_id = ?)",
        [(d, d, d) for d in sorted({d for _, d in gone})],
    )
    return len(gone)
