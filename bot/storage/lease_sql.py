"""SQL of role leases (migration 0026_leases): one process at a time holds a named role (the
poller of getUpdates), renewing its row; another takes the role once the lease lapsed or the
holder is known dead."""

from __future__ import annotations

from collections.abc import Callable

from bot.storage.port import Connection


def hold(
    conn: Connection,
    name: str,
    owner: str,
    now: float,
    lease_until: float,
    dead_owner: str | None = None,
) -> bool:
    """Take or renew the role `name` for `owner` until `lease_until`: True when `owner` holds
    it now (it was free, lapsed, `dead_owner`'s, or already `owner`'s)."""
    row = conn.execute(
        "INSERT INTO leases (name, owner, lease_until) VALUES (?, ?, ?)"
        " ON CONFLICT (name) DO UPDATE SET owner = excluded.owner,"
        " lease_until = excluded.lease_until"
        " WHERE leases.owner = excluded.owner OR leases.lease_until < ? OR leases.owner = ?"
        " RETURNING owner",
        (name, owner, lease_until, now, dead_owner or ""),
    ).fetchone()
    return row is not None


PROCESS = "process:"  # a row per running bot process: how many share the bot's budgets


def live_processes(
    conn: Connection,
    owner: str,
    now: float,
    lease_until: float,
    dead: Callable[[str], bool] = lambda _owner: False,
) -> int:
    """Keep `owner`'s process row until `lease_until`, drop lapsed ones and those of owners
    known `dead`, count the rest (`owner` among them)."""
    hold(conn, PROCESS + owner, owner, now, lease_until)
    conn.execute("DELETE FROM leases WHERE name LIKE 'process:%' AND lease_until < ?", (now,))
    rows = conn.execute("SELECT owner FROM leases WHERE name LIKE 'process:%'").fetchall()
    gone = [str(r[0]) for r in rows if dead(str(r[0]))]
    conn.executemany("DELETE FROM leases WHERE name = ?", [(PROCESS + o,) for o in gone])
    return len(rows) - len(gone)


def holder(conn: Connection, name: str) -> tuple[str, float] | None:
    """Who holds the role `name` and until when, or None."""
    row = conn.execute("SELECT owner, lease_until FROM leases WHERE name = ?", (name,)).fetchone()
    return (str(row[0]), float(row[1])) if row is not None else None


def release(conn: Connection, name: str, owner: str) -> bool:
    """Give the role up (a clean stop: a standby need not wait for the lease); True if held."""
    return (
        conn.execute("DELETE FROM leases WHERE name = ? AND owner = ?", (name, owner)).rowcount > 0
    )
