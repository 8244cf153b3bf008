"""What a `QUIZBOT_DB` value (or a `--db`, `--from`, `--to` argument) names: a PostgreSQL URL,
or a SQLite file given as a path or as `sqlite:///relative.db` / `sqlite:////abs.db`."""

from __future__ import annotations

import re
from pathlib import Path

SQLITE_PREFIX = "sqlite:///"
POSTGRES_PREFIXES = ("postgresql://", "postgres://")
_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*)://")


def database_target(text: str) -> Path | str:
    """A PostgreSQL URL as it is, otherwise the SQLite file it names; ValueError for any other
    URL (`mysql://…`, `postgresql+psycopg://…`, `sqlite://x`), which would otherwise become a
    file of that odd name. The message never holds the value: a URL may hold a password."""
    if text.startswith(POSTGRES_PREFIXES):
        return text
    if text.startswith(SQLITE_PREFIX):
        return Path(text.removeprefix(SQLITE_PREFIX))
    scheme = _SCHEME.match(text)
    if scheme is not None:
        raise ValueError(
            f"a database URL of scheme {scheme.group(1)!r} is not one quizbot reads: give a "
            "file path, sqlite:///relative.db, sqlite:////absolute.db or postgresql://..."
        )
    return Path(text)
