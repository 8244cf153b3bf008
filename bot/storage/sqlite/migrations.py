"""Versioned schema migrations: `schema/NNNN_name.sql` beside this module, applied in order, once
each."""

from __future__ import annotations

import functools
import sqlite3
from collections.abc import Callable, Collection, Iterable
from importlib import resources
from pathlib import Path

from bot.storage import summaries
from bot.storage.memory_backfill import backfill_after_miss, backfill_memory, backfill_reviews

SQL_PACKAGE = "bot.storage.sqlite"
SQL_DIR = "schema"


def available() -> list[tuple[str, str]]:
    """(name, sql) of every migration shipped with the package, in order."""
    folder = resources.files(SQL_PACKAGE).joinpath(SQL_DIR)
    files = sorted((f for f in folder.iterdir() if f.name.endswith(".sql")), key=lambda f: f.name)
    return [(f.name.removesuffix(".sql"), f.read_text(encoding="utf-8")) for f in files]


@functools.cache  # the files shipped with this code do not change under it
def known() -> frozenset[str]:
    """Names of every migration this code ships."""
    return frozenset(name for name, _ in available())


def too_new(done: Iterable[str], shipped: Collection[str]) -> str | None:
    """Why a database must not be used by this code: migrations recorded in it that this code
    does not ship, so a newer release changed its schema (None: there are none). Shared by
    both backends and by `quizbot health`."""
    unknown = sorted(set(done) - set(shipped))
    if not unknown:
        return None
    return (
        f"the database is newer than this quizbot: migrations {', '.join(unknown)} it does "
        "not know; run the newer release"
    )


class NewerDatabase(sqlite3.DatabaseError):
    """The database carries migrations this code does not know. A driver error on purpose:
    whoever opens the database (prepare, Database.open) then closes its connection and
    reports the file as it reports any it cannot use, in one line."""


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
        "0017_forgetting_probe": lambda conn, _tz: backfill_reviews(conn),
        "0023_bank_days": summaries.backfill_bank_days,
        "0028_after_miss": lambda conn, _tz: backfill_after_miss(conn),
    }


def apply_migrations(conn: sqlite3.Connection, default_timezone: str = "UTC") -> list[str]:
    """Apply the pending migrations, each in its own transaction; return their names.

    `default_timezone` is the zone of learners and chats that set none (backfills need it)."""
    done = applied(conn)
    shipped = available()
    # Code older than the schema would write rows the newer one no longer expects, or miss
    # tables it relies on: it must stop rather than run on.
    if (why := too_new(done, [name for name, _ in shipped])) is not None:
        raise NewerDatabase(why)
    new: list[str] = []
    steps = _python_steps()
    for name, sql in shipped:
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
