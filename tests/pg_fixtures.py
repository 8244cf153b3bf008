"""PostgreSQL fixtures: one throwaway server per test process (each pytest-xdist worker starts
its own, on first use), and a fresh migrated database per test, copied from a template."""

from __future__ import annotations

import itertools
from collections.abc import Iterator

import psycopg
import pytest

from bot.storage.postgres.database import prepare
from tests.pg_server import PgServer, running

TEMPLATE = "quizbot_template"
_names = itertools.count()


@pytest.fixture(scope="session")
def pg_server() -> Iterator[PgServer]:
    """A PostgreSQL server for this test process, with a migrated template database."""
    with running() as server:
        with psycopg.connect(server.url(), autocommit=True) as conn:
            conn.execute(f"CREATE DATABASE {TEMPLATE}")
        prepare(server.url(TEMPLATE))
        yield server


@pytest.fixture
def pg_url(pg_server: PgServer) -> str:
    """The URL of a new database with the current schema, for this test alone."""
    name = f"test_{next(_names)}"
    with psycopg.connect(pg_server.url(), autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name} TEMPLATE {TEMPLATE}")
    return pg_server.url(name)
