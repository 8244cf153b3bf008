"""SQL of the `bot_status` key/value table and of the read-only probes behind `quizbot health`."""

from __future__ import annotations

from collections.abc import Mapping

from bot.storage.dialect import of
from bot.storage.port import Connection


def set_status(conn: Connection, values: Mapping[str, str | None], now: float) -> None:
    """Write (or, for None, delete) some keys of bot_status."""
    for key, value in values.items():
        if value is None:
            conn.execute("DELETE FROM bot_status WHERE key = ?", (key,))
        else:
            conn.execute(
                "INSERT INTO bot_status (key, value, updated_at) VALUES (?, ?, ?)"
                " ON CONFLICT (key) DO UPDATE SET value = excluded.value,"
                " updated_at = excluded.updated_at",
                (key, value, now),
            )


BANK_VERSION_KEY = "bank_version"


def bump_bank_version(conn: Connection, now: float) -> int:
    """Count one more reload of the banks; the new count. One statement, so that two processes
    reloading at once on PostgreSQL both count."""
    conn.execute(
        "INSERT INTO bot_status (key, value, updated_at) VALUES (?, '1', ?)"
        " ON CONFLICT (key) DO UPDATE SET"
        " value = CAST(CAST(bot_status.value AS INTEGER) + 1 AS TEXT),"
        " updated_at = excluded.updated_at",
        (BANK_VERSION_KEY, now),
    )
    return bank_version(conn)


def bank_version(conn: Connection) -> int:
    """How many reloads of the banks the processes on this database have made (0: none)."""
    row = conn.execute(
        "SELECT value FROM bot_status WHERE key = ?", (BANK_VERSION_KEY,)
    ).fetchone()
    return int(row[0]) if row is not None else 0


def table_exists(conn: Connection, name: str) -> bool:
    """Whether a table exists (the push log comes from another migration, maybe not yet run).
    Asked of the table itself rather than of a catalog, which each database names its own way;
    only for a connection outside a transaction on PostgreSQL, where a failed statement would
    end the transaction."""
    try:
        conn.execute(f'SELECT 1 FROM "{name}" WHERE 1 = 0').fetchall()
    except Exception as err:
        if _no_such_table(err):
            return False
        # Anything else (a file that is not a database, a broken connection) is the database
        # failing, not a table missing: health must report it rather than an empty database.
        raise
    return True


def _no_such_table(err: Exception) -> bool:
    """Whether a driver's error says the table does not exist: SQLite's message, or
    PostgreSQL's SQLSTATE 42P01 (undefined_table); read without importing either driver."""
    return "no such table" in str(err) or getattr(err, "sqlstate", None) == "42P01"


def read_status(conn: Connection) -> dict[str, str]:
    """Every key of bot_status; empty when the table does not exist yet."""
    if not table_exists(conn, "bot_status"):
        return {}
    return {row[0]: row[1] for row in conn.execute("SELECT key, value FROM bot_status")}


def schema_version(conn: Connection) -> list[str]:
    """Names of the applied migrations, in order."""
    if not table_exists(conn, "schema_migrations"):
        return []
    return [row[0] for row in conn.execute("SELECT name FROM schema_migrations ORDER BY name")]


def push_backlog(conn: Connection, now: float, today: str) -> dict[str, int] | None:
    """Push rows not yet done: all, overdue, and due today; None before the push log exists.

    `health` may read a database an older version created, before migration 0002.
    """
    if not table_exists(conn, "push_log"):
        return None

    def count(extra: str = "", *params: object) -> int:
        sql = f"SELECT COUNT(*) FROM push_log WHERE state IN ('pending', 'sending'){extra}"
        return int(conn.execute(sql, params).fetchone()[0])

    return {
        "pending_total": count(),
        "overdue": count(" AND due_at <= ?", now),
        "pending_today": count(" AND local_date = ?", today),
    }


def table_counts(conn: Connection) -> dict[str, int]:
    """Rows per table (SQLite's own tables left out)."""
    names = [row[0] for row in conn.execute(of(conn).tables())]
    # Names come from the catalog, not from input; quoting still guards odd names.
    return {
        name: int(conn.execute(f'SELECT COUNT(*) FROM "{name}"').fetchone()[0]) for name in names
    }
