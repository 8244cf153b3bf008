"""PostgreSQL fixtures: one throwaway server per test process (each pytest-xdist worker starts
its own, on first use), and a fresh migrated database per test, copied from a template.

On the PostgreSQL run of the suite (`QUIZBOT_TEST_BACKEND=postgres`, tests/backend.py) every
test gets the server, and the databases it made are dropped after it."""

from __future__ import annotations

from collections.abc import Iterator

import psycopg
import pytest

from bot.storage.postgres.database import prepare
from tests.backend import POSTGRES_DATABASES, close_all, on_postgres
from tests.pg_server import PgServer, running

TEMPLATE = "quizbot_template"


@pytest.fixture(scope="session")
def pg_server() -> Iterator[PgServer]:
    """A PostgreSQL server for this test process, with a migrated template database."""
    with running() as server:
        with psycopg.connect(server.url(), autocommit=True) as conn:
            conn.execute(f"CREATE DATABASE {TEMPLATE}")
        prepare(server.url(TEMPLATE))
        POSTGRES_DATABASES.server_url, POSTGRES_DATABASES.template = server.url(), TEMPLATE
        yield server
        POSTGRES_DATABASES.server_url = POSTGRES_DATABASES.template = None


@pytest.fixture(autouse=True)
def _postgres_databases(request: pytest.FixtureRequest) -> Iterator[None]:
    """On the PostgreSQL run: the server for `tests.backend.database`, and each test's
    databases dropped after it (a whole suite's would fill the disk)."""
    if on_postgres():
        request.getfixturevalue("pg_server")
    yield
    close_all()
    POSTGRES_DATABASES.drop_created()  # also those of `pg_url` on the SQLite run


@pytest.fixture
def pg_url(pg_server: PgServer) -> str:
    """The URL of a new database with the current schema, for this test alone."""
    return POSTGRES_DATABASES.new()
