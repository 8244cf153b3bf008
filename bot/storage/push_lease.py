"""SQL of push claim leases: recovering `sending` rows whose lease expired or whose owner is
dead, and renewing a live owner's leases (see push_log for the life of a row)."""

from __future__ import annotations

from collections.abc import Sequence

from bot.domain.push_retry import MAX_ATTEMPTS, retry_delay
from bot.storage.port import Connection


def recover_expired(
    conn: Connection,
    now: float,
    grace_s: float,
    dead_owners: Sequence[str] = (),
) -> int:
    """`sending` rows whose lease expired (or whose owner is dead) go back to pending after
    the backoff for their attempts, or fail when that retry would come past the grace (or
    after MAX_ATTEMPTS); a live owner's rows stay. Returns how many were put back or failed."""
    marks = ",".join("?" * len(dead_owners))
    dead = f" OR owner IN ({marks})" if dead_owners else ""
    rows = conn.execute(
        "SELECT id, attempts, due_at FROM push_log WHERE state = 'sending'"
        f" AND (lease_until IS NULL OR lease_until < ?{dead})",
        (now, *dead_owners),
    ).fetchall()
    finals: list[tuple[float, int]] = []
    retries: list[tuple[float, float, int]] = []
    for log_id, attempts, due_at in rows:
        retry_at = now + retry_delay(attempts)
        if retry_at > due_at + grace_s or attempts >= MAX_ATTEMPTS:
            finals.append((now, log_id))
        else:
            retries.append((retry_at, now, log_id))
    conn.executemany(
        "UPDATE push_log SET state = 'failed', finished_at = ?, owner = NULL, lease_until = NULL,"
        " error = 'gave up: cut off while sending (outcome unknown)' WHERE id = ?",
        finals,
    )
    conn.executemany(
        "UPDATE push_log SET state = 'pending', not_before = ?, finished_at = ?, owner = NULL,"
        " lease_until = NULL, error = 'cut off while sending (maybe delivered)' WHERE id = ?",
        retries,
    )
    return len(rows)


def sending_owners(conn: Connection) -> list[str]:
    """Owners of rows in flight (a handful: the claim windows of the running processes)."""
    rows = conn.execute(
        "SELECT DISTINCT owner FROM push_log WHERE state = 'sending' AND lease_until IS NOT NULL"
    ).fetchall()
    return [str(r[0]) for r in rows if r[0] is not None]


def renew(conn: Connection, owner: str, lease_until: float) -> int:
    """Extend the lease of every row `owner` has in flight; returns how many."""
    return conn.execute(
        "UPDATE push_log SET lease_until = ? WHERE state = 'sending' AND owner = ?"
        " AND lease_until IS NOT NULL",
        (lease_until, owner),
    ).rowcount
