"""Which database the suite runs on: `QUIZBOT_TEST_BACKEND=postgres` runs every test that is not
about SQLite on PostgreSQL; unset (or `sqlite`) runs the suite on SQLite files.

A test names its database by a path in its tmp dir, as it would a SQLite file, and passes it
through `database(path)` wherever the database is opened (the harness's Settings, a real bot
process's QUIZBOT_DB, a CLI command's `--db`, `open_database`); the helpers of
tests/factories.py resolve a path the same way. On SQLite the path is the database. On
PostgreSQL the first use of a path creates a database copied from the migrated template of
this process's server (tests/pg_fixtures.py), and every later use of the same path gives the
same database; the databases a test created are dropped after it.

Tests that are about SQLite itself carry the `sqlite_only` marker (with its reason), or are
listed in SQLITE_ONLY_FILES below: the PostgreSQL run deselects them and says how many.
"""

from __future__ import annotations

import itertools
import os
from pathlib import Path

from bot.storage.port import Connection, Store

SQLITE = "sqlite"
POSTGRES = "postgres"
BACKEND = os.environ.get("QUIZBOT_TEST_BACKEND", SQLITE).strip().lower() or SQLITE
if BACKEND not in (SQLITE, POSTGRES):
    raise RuntimeError(f"QUIZBOT_TEST_BACKEND={BACKEND!r}: expected {SQLITE!r} or {POSTGRES!r}")

# Whole files that are about the SQLite engine or its files (paths under tests/): the
# PostgreSQL run deselects them. tests/factories.py's SQLITE_ENGINE_TESTS (files that import
# the driver) are deselected too; these are the ones that reach SQLite through bot.storage.sqlite.
SQLITE_ONLY_FILES: dict[str, str] = {
    "test_db_files.py": "SQLite files: their folder, mode, backup and durability settings",
    "test_wal_pace.py": "the SQLite engine's WAL pacer",
    "test_push_plan_wal.py": "the WAL size while a plan writes to a SQLite file",
    "test_ops_backup_errors.py": "`quizbot backup` copies a SQLite file",
    "test_domain_rebase.py": "replays SQLite migrations on an old SQLite schema",
    "test_faults_storage.py": "a full disk and a replaced file under SQLite",
}


def on_postgres() -> bool:
    """Whether this run is the PostgreSQL one."""
    return BACKEND == POSTGRES


class _Postgres:
    """The databases of this test process on its PostgreSQL server."""

    def __init__(self) -> None:
        self.server_url: str | None = None  # the maintenance database (`postgres`)
        self.template: str | None = None
        self.by_path: dict[str, str] = {}
        self.created: list[str] = []
        self._names = itertools.count()

    def new(self) -> str:
        """A new database from the template; its URL."""
        import psycopg

        if self.server_url is None or self.template is None:
            raise RuntimeError("no PostgreSQL server: tests/pg_fixtures.py starts it")
        name = f"test_{os.getpid()}_{next(self._names)}"
        with psycopg.connect(self.server_url, autocommit=True) as conn:
            conn.execute(f"CREATE DATABASE {name} TEMPLATE {self.template}")
        self.created.append(name)
        return self.server_url.rsplit("/", 1)[0] + "/" + name

    def drop_created(self) -> None:
        """Drop the databases made since the last call (a killed bot may still hold one)."""
        import psycopg

        names, self.created = self.created, []
        self.by_path.clear()
        if not names or self.server_url is None:
            return
        with psycopg.connect(self.server_url, autocommit=True) as conn:
            for name in names:
                conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


POSTGRES_DATABASES = _Postgres()
_OPEN: list[Connection] = []


def close_at_end(conn: Connection) -> Connection:
    """`conn`, closed after the test (before its databases are dropped)."""
    _OPEN.append(conn)
    return conn


def close_all() -> None:
    """Close the connections `close_at_end` was given."""
    while _OPEN:
        _OPEN.pop().close()


def database(path: str | Path) -> str | Path:
    """The database a test names by `path`: the path itself on SQLite, a PostgreSQL URL (the
    same one for the same path) on PostgreSQL. A URL or `sqlite:///` target is kept as is."""
    if isinstance(path, str) and "://" in path:
        return path
    if not on_postgres():
        return path
    key = os.path.abspath(path)
    url = POSTGRES_DATABASES.by_path.get(key)
    if url is None:
        url = POSTGRES_DATABASES.by_path[key] = POSTGRES_DATABASES.new()
    return url


def target_of(store: Store) -> str | Path:
    """The database a store opened (its file, or its URL), for tests/factories.py's helpers."""
    path: Path | None = getattr(store, "path", None)
    return path if path is not None else str(store.url)


def database_env(path: str | Path) -> str:
    """`database(path)` as a QUIZBOT_DB value."""
    return str(database(path))
