"""The one place a database is chosen and opened: from the settings' `QUIZBOT_DB` (a file path
or `sqlite:///path`), for the bot and every CLI command alike."""

from __future__ import annotations

from pathlib import Path

from bot.storage.port import Connection, Store
from bot.storage.sqlite.database import Database, connect_sync, prepare

SQLITE_PREFIX = "sqlite:///"


def sqlite_path(target: str | Path) -> Path:
    """The file a SQLite target names (`sqlite:///relative.db`, `sqlite:////abs.db`, or a path)."""
    text = str(target)
    return Path(text.removeprefix(SQLITE_PREFIX)) if text.startswith(SQLITE_PREFIX) else Path(text)


def open_database(
    target: str | Path, *, default_timezone: str = "UTC", durability: str = "normal"
) -> Store:
    """The database `target` names, not yet open: `async with open_database(...) as db`.
    `durability`: "full" makes every commit survive a power cut too (QUIZBOT_DURABILITY)."""
    return Database(sqlite_path(target), default_timezone=default_timezone, durability=durability)


def prepare_database(target: str | Path, default_timezone: str = "UTC") -> list[str]:
    """Open, migrate and close the database (a start-up check); the migrations it applied.
    Raises DatabaseUnavailable when it cannot be used."""
    return prepare(sqlite_path(target), default_timezone)


def connect_blocking(target: str | Path) -> Connection:
    """A blocking connection with the bot's settings, outside any Store (a CLI tool, a test
    that checks rows); the caller closes it. Rows are read by position or column name."""
    return connect_sync(sqlite_path(target))
