"""Versioned schema migrations: `schema/NNNN_name.sql` beside this module, applied in order, once
each."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from importlib import resources
from pathlib import Path

from bot.storage import forgetting_sql, summaries
from bot.storage.memory_backfill import backfill_memory

SQL_PACKAGE = "bot.storage.sqlite"
SQL_DIR = "schema"


def available() -> list[tuple[str, str]]:
    """(name, sql) of every migration shipped with the package, in order."""
    folder = resources.files(SQL_PACKAGE).joinpath(SQL_DIR)
    files = sorted((f for f in folder.iterdir() if f.name.endswith(".sql")), key=lambda f: f.name)
    return [(f.name.removesuffix(".sql"), f.read_text(encoding="utf-8")) for f in files]


def applied(conn: sqlite3.Connection) -> set[str]:
    """Names of migrations already applied to this database."""
    conn.execute(
        "CREATE TABLE IF NOT EXISTS schema_migrations ("
        " name TEXT PRIMARY KEY, applied_at TEXT NOT NULL DEFAULT (datetime('now')))"
    )
    return {row[0] for row in conn.execute("SELECT name FROM schema_migrations")}


def _python_steps() -> dict[str, Callable[[sqlite3.Connection, str], object]]:
    """Python run after a migration's SQL, in the same transaction (data the SQL cannot
    compute: replaying answers into memory states, local days in each learner's zone), given
    the bot's default timezone."""
    return {
        "0006_learning": lambda conn, _tz: backfill_memory(conn),
        "0010_summaries": summaries.backfill,
        "0017_forgetting_probe": lambda conn, _tz: forgetting_sql.backfill(conn),
        "0023_bank_days": summaries.backfill_bank_days,
    }


def apply_migrations(conn: sqlite3.Connection, default_timezone: str = "UTC") -> list[str]:
    """Apply the pending migrations, each in its own transaction; return their names.

    `default_timezone` is the zone of learners and chats that set none (backfills need it)."""
    done = applied(conn)
    new: list[str] = []
    steps = _python_steps()
    for name, sql in available():
        if name in done:
            continue
        # executescript commits any open transaction first, so the script carries its own
        # BEGIN: a migration (with its Python step) is applied whole or not at all.
        script = f"BEGIN IMMEDIATE;\n{sql}\nINSERT INTO schema_migrations(name) VALUES ('{name}');"
        try:
            conn.executescript(script)
            if (step := steps.get(name)) is not None:
                step(conn, default_timezone)
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
        new.append(name)
    return new


def pending(path: Path) -> list[str]:
    """Names of the migrations the database at `path` still lacks (all when it has no file)."""
    if not path.is_file():
        return [name for name, _ in available()]
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        # Read, not applied(): that creates the bookkeeping table, and this only looks.
        found = conn.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'"
        ).fetchone()
        rows = conn.execute("SELECT name FROM schema_migrations") if found else []
        done = {row[0] for row in rows}
    finally:
        conn.close()
    return [name for name, _ in available() if name not in done]
