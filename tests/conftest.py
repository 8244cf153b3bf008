"""Shared fixtures: the Telegram fakes (see `tests/fakes/__init__.py`), and the backend the
suite runs on (tests/backend.py): the PostgreSQL run deselects the tests about SQLite and says
how many, and why."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.backend import BACKEND, SQLITE_ONLY_FILES, on_postgres
from tests.factories import SQLITE_ENGINE_TESTS
from tests.fakes import FakeBotApi, FakeBotApiServer

# A real PostgreSQL for the tests of the second backend: `pg_url` (tests/pg_fixtures.py).
pytest_plugins = ["tests.pg_fixtures"]

TESTS = Path(__file__).resolve().parent
_DESELECTED = "sqlite_only_deselected"  # the key of a worker's counts in its workeroutput
_STASH = pytest.StashKey[dict[str, int]]()  # reason -> tests deselected for it


def sqlite_only_reason(item: pytest.Item) -> str | None:
    """Why a test cannot run on PostgreSQL, or None when it can."""
    marker = item.get_closest_marker("sqlite_only")
    if marker is not None:
        return str(marker.kwargs.get("reason") or (marker.args[0] if marker.args else "?"))
    path = Path(str(item.fspath)).resolve()
    name = path.relative_to(TESTS).as_posix() if path.is_relative_to(TESTS) else path.name
    if name in SQLITE_ENGINE_TESTS:
        return "about the SQLite engine (uses sqlite3)"
    return SQLITE_ONLY_FILES.get(name)


def pytest_report_header(config: pytest.Config) -> str:
    return f"database backend: {BACKEND} (QUIZBOT_TEST_BACKEND)"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if not on_postgres():
        return
    keep, drop, reasons = [], [], Counter[str]()
    for item in items:
        reason = sqlite_only_reason(item)
        if reason is None:
            keep.append(item)
        else:
            drop.append(item)
            reasons[reason] += 1
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep
    config.stash[_STASH] = dict(reasons)
    if hasattr(config, "workeroutput"):  # an xdist worker: the controller prints the summary
        config.workeroutput[_DESELECTED] = dict(reasons)


def pytest_testnodedown(node: Any, error: Any) -> None:
    """xdist controller: every worker collects (and deselects) the same tests; keep one list."""
    reasons = getattr(node, "workeroutput", {}).get(_DESELECTED)
    if reasons is not None:
        node.config.stash[_STASH] = reasons


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    reasons = config.stash.get(_STASH, None)
    if not on_postgres() or reasons is None:
        return
    total = sum(reasons.values())
    terminalreporter.section(f"PostgreSQL run: {total} tests about SQLite deselected")
    for reason, count in sorted(reasons.items(), key=lambda kv: (-kv[1], kv[0])):
        terminalreporter.write_line(f"{count:4d}  {reason}")


@pytest.fixture
def api() -> FakeBotApi:
    """A fresh in-memory Bot API."""
    return FakeBotApi()


@pytest.fixture
def bot_server(api: FakeBotApi) -> Iterator[FakeBotApiServer]:
    """`api` served over HTTP on 127.0.0.1 (`bot_server.url` is the BOT_API_URL)."""
    with FakeBotApiServer(api) as server:
        yield server
