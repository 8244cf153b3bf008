"""Shared fixtures: the Telegram fakes (see `tests/fakes/__init__.py`)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.fakes import FakeBotApi, FakeBotApiServer

# A real PostgreSQL for the tests of the second backend: `pg_url` (tests/pg_fixtures.py).
pytest_plugins = ["tests.pg_fixtures"]


@pytest.fixture
def api() -> FakeBotApi:
    """A fresh in-memory Bot API."""
    return FakeBotApi()


@pytest.fixture
def bot_server(api: FakeBotApi) -> Iterator[FakeBotApiServer]:
    """`api` served over HTTP on 127.0.0.1 (`bot_server.url` is the BOT_API_URL)."""
    with FakeBotApiServer(api) as server:
        yield server
