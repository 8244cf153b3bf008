"""The one place a database is chosen and opened: from the settings' `QUIZBOT_DB`, for the bot
and every CLI command alike. `postgresql://…` (or `postgres://…`) selects PostgreSQL; a file
path or `sqlite:///path` selects SQLite. PostgreSQL's driver is imported only when selected
(it is the optional `postgres` extra)."""

from __future__ import annotations

import argparse
from pathlib import Path
from urllib.parse import urlsplit

from bot.config import POSTGRES_PREFIXES, SQLITE_PREFIX, database_target
from bot.storage.port import Connection, Store
from bot.storage.sqlite.database import Database, connect_sync, prepare


def is_postgres(target: str | Path) -> bool:
    """Whether `target` names a PostgreSQL database."""
    return isinstance(target, str) and target.startswith(POSTGRES_PREFIXES)


def display_name(target: str | Path) -> str:
    """The database as an operator's message names it (a URL without its password)."""
    if not is_postgres(target):
        return str(target)
    parts = urlsplit(str(target))
    host = f"{parts.hostname or ''}:{parts.port}" if parts.port else parts.hostname or ""
    user = f"{parts.username}@" if parts.username else ""
    return f"{parts.scheme}://{user}{host}{parts.path}"


def sqlite_path(target: str | Path) -> Path:
    """The file a SQLite target names (`sqlite:///relative.db`, `sqlite:////abs.db`, or a path)."""
    text = str(target)
    return Path(text.removeprefix(SQLITE_PREFIX)) if text.startswith(SQLITE_PREFIX) else Path(text)


def target_arg(text: str) -> Path | str:
    """A `--db` argument: a PostgreSQL URL as it is, otherwise the SQLite file it names."""
    try:
        return database_target(text)
    except ValueError as err:
        # argparse's own message would repeat the value, password and all.
        raise argparse.ArgumentTypeError(str(err)) from None


def missing_file(target: str | Path) -> bool:
    """Whether a SQLite target names no file (for a PostgreSQL URL, connecting tells)."""
    return not is_postgres(target) and not sqlite_path(target).is_file()


def open_database(
    target: str | Path, *, default_timezone: str = "UTC", durability: str = "normal"
) -> Store:
    """The database `target` names, not yet open: `async with open_database(...) as db`.
    `durability`: "full" makes every SQLite commit survive a power cut too (QUIZBOT_DURABILITY;
    PostgreSQL's is the server's `synchronous_commit`)."""
    if is_postgres(target):
        from bot.storage.postgres.database import PgDatabase

        return PgDatabase(str(target), default_timezone=default_timezone)
    return Database(sqlite_path(target), default_timezone=default_timezone, durability=durability)


def prepare_database(target: str | Path, default_timezone: str = "UTC") -> list[str]:
    """Open, migrate and close the database (a start-up check); the migrations it applied.
    Raises DatabaseUnavailable when it cannot be used."""
    if is_postgres(target):
        from bot.storage.postgres import database as pg

        return pg.prepare(str(target), default_timezone)
    return prepare(sqlite_path(target), default_timezone)


def connect_blocking(target: str | Path) -> Connection:
    """A blocking connection with the bot's settings, outside any Store (a CLI tool, a test
    that checks rows); the caller closes it. Rows are read by position or column name."""
    if is_postgres(target):
        from bot.storage.postgres import database as pg

        return pg.connect_blocking(str(target))
    return connect_sync(sqlite_path(target))
