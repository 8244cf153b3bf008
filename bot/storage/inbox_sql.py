"""The durable inbox of Telegram updates (migration 0019_inbox).

Several bot processes share it: a row in state 'new' belongs to the process named in `owner`
until `lease_until` (Unix seconds), which that process renews while the update waits or is
handled. A row whose lease lapsed, or whose owner is known dead, is claimed by another process
and handled there: each update is handled by one process at a time, and by another only when
its owner stopped renewing.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from bot.storage.dialect import of
from bot.storage.port import Connection

CLAIM_BATCH = 100  # rows one claim takes at most (the rest wait for the next sweep)


def receive(
    conn: Connection,
    updates: Sequence[tuple[int, str]],
    now: float,
    owner: str | None = None,
    lease_until: float | None = None,
) -> list[int]:
    """Store updates (update_id, JSON) not stored before, claimed by `owner` until
    `lease_until`; the ids that were new (an id stored before stays its first owner's)."""
    fresh: list[int] = []
    for update_id, payload in updates:
        row = conn.execute(
            "INSERT INTO inbox (update_id, payload, received_at, owner, lease_until)"
            " VALUES (?, ?, ?, ?, ?) ON CONFLICT (update_id) DO NOTHING RETURNING update_id",
            (update_id, payload, now, owner, lease_until),
        ).fetchone()
        if row is not None:
            fresh.append(update_id)
    return fresh


def _claimable(dead_owners: Sequence[str]) -> str:
    dead = f" OR owner IN ({','.join('?' * len(dead_owners))})" if dead_owners else ""
    return f"state = 'new' AND (lease_until IS NULL OR lease_until < ?{dead})"


def claim(
    conn: Connection,
    owner: str,
    now: float,
    lease_until: float,
    dead_owners: Sequence[str] = (),
    limit: int = CLAIM_BATCH,
) -> list[tuple[int, str]]:
    """Take over unhandled updates nobody holds (lease lapsed, none, or a dead owner's), oldest
    first: (update_id, JSON) of those now `owner`'s until `lease_until`.

    The UPDATE repeats the condition, so that of two processes claiming at once only one
    gets a row (on SQLite the writers take turns; on PostgreSQL SKIP LOCKED passes over rows
    another claim has locked, and the repeated condition is checked on the latest row)."""
    cond = _claimable(dead_owners)
    rows = conn.execute(
        f"UPDATE inbox SET owner = ?, lease_until = ? WHERE {cond} AND update_id IN"
        f" (SELECT update_id FROM inbox WHERE {cond} ORDER BY update_id LIMIT ?"
        f"{of(conn).skip_locked()}) RETURNING update_id, payload",
        (owner, lease_until, now, *dead_owners, now, *dead_owners, limit),
    ).fetchall()
    return sorted((int(r[0]), str(r[1])) for r in rows)


def open_owners(conn: Connection, now: float) -> list[str]:
    """Owners whose leases on unhandled updates still run (a handful: the live processes,
    and the ones that died within a lease)."""
    rows = conn.execute(
        "SELECT DISTINCT owner FROM inbox WHERE state = 'new' AND lease_until >= ?", (now,)
    ).fetchall()
    return [str(r[0]) for r in rows if r[0] is not None]


def renew(conn: Connection, owner: str, lease_until: float) -> int:
    """Extend the lease of every unhandled update `owner` holds (queued, being handled, or
    handled and its done mark not yet written); returns how many."""
    return conn.execute(
        "UPDATE inbox SET lease_until = ? WHERE owner = ? AND state = 'new'",
        (lease_until, owner),
    ).rowcount


def mark_done(conn: Connection, update_ids: Iterable[int], now: float) -> None:
    """Handled: not handled again after a restart, nor by another process."""
    conn.executemany(
        "UPDATE inbox SET state = 'done', done_at = ?, lease_until = NULL"
        " WHERE update_id = ? AND state = 'new'",
        [(now, update_id) for update_id in update_ids],
    )


def prune(conn: Connection, before: float) -> int:
    """Forget handled updates done before `before` (their ids only matter for a while)."""
    return conn.execute(
        "DELETE FROM inbox WHERE state = 'done' AND done_at < ?", (before,)
    ).rowcount
