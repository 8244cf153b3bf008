"""PostgreSQL's schema migrations: `schema/NNNN_name.sql` beside this module, applied in order,
once each, recorded in `schema_migrations` as on SQLite.

PostgreSQL starts from its own baseline (`0000_baseline`), equal to SQLite's schema after the
migrations in COVERED; a fresh database records those names as applied with it. Every later
migration exists for both backends under the same name (a test checks it).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from importlib import resources
from typing import Any

import psycopg

from bot.storage.memory_backfill import backfill_after_miss
from bot.storage.postgres.connection import PgConnection
from bot.storage.sqlite.migrations import too_new

SQL_PACKAGE = "bot.storage.postgres"
SQL_DIR = "schema"
BASELINE = "0000_baseline"
# SQLite's migrations whose result the baseline already is.
COVERED = (
    "0001_init", "0002_daily", "0003_ops", "0004_groups", "0005_push_backoff", "0006_learning",
    "0007_mock", "0008_push_lease", "0009_abuse", "0010_summaries", "0011_last_question",
    "0012_streak_runs", "0016_answers_by_time", "0017_forgetting_probe",
    "0018_ncp_genl_domains",
)  # fmt: skip
# Python run after a migration's SQL, in its transaction (data the SQL cannot compute).
STEPS: dict[str, Callable[[PgConnection], object]] = {"0028_after_miss": backfill_after_miss}
# Two processes migrating at once: the second waits, then finds the work done.
_LOCK_KEY = 0x7175697A  # any constant, the same in every process


def available() -> list[tuple[str, str]]:
    """(name, sql) of every PostgreSQL migration shipped with the package, in order."""
    folder = resources.files(SQL_PACKAGE).joinpath(SQL_DIR)
    files = sorted((f for f in folder.iterdir() if f.name.endswith(".sql")), key=lambda f: f.name)
    return [(f.name.removesuffix(".sql"), f.read_text(encoding="utf-8")) for f in files]


@functools.cache  # the files shipped with this code do not change under it
def known() -> frozenset[str]:
    """Names of every migration this code knows on PostgreSQL (SQLite's that the baseline
    covers included)."""
    return frozenset(name for name, _ in available()) | frozenset(COVERED)


class NewerDatabase(psycopg.DatabaseError):
    """The database carries migrations this code does not know. A driver error on purpose:
    `prepare` reports it as it reports any database it cannot use, naming it without its
    password."""


def applied(conn: psycopg.Connection[Any]) -> set[str]:
    """Names of migrations already applied (SQLite's names included)."""
    conn.execute(
        "CREATE TABLE IF NOT EXISTS schema_migrations (name TEXT PRIMARY KEY, applied_at TEXT"
        " NOT NULL DEFAULT (to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS')))"
    )
    return {row[0] for row in conn.execute("SELECT name FROM schema_migrations")}


def apply_migrations(conn: psycopg.Connection[Any]) -> list[str]:
    """Apply the pending migrations on an autocommit connection, each in its own
    transaction; return their names."""
    new: list[str] = []
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (_LOCK_KEY,))
        done = applied(conn)
    # Code older than the schema must stop rather than run on (see SQLite's twin).
    if (why := too_new(done, known())) is not None:
        raise NewerDatabase(why)
    for name, sql in available():
        if name in done:
            continue
        with conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (_LOCK_KEY,))
            if name in applied(conn):
                continue
            conn.execute(sql.encode())  # no parameters: one script, many statements
            if (step := STEPS.get(name)) is not None:
                step(PgConnection(conn))
            names = [name, *COVERED] if name == BASELINE else [name]
            conn.cursor().executemany(
                "INSERT INTO schema_migrations (name) VALUES (%s) ON CONFLICT DO NOTHING",
                [(n,) for n in names],
            )
        new.append(name)
    return new
