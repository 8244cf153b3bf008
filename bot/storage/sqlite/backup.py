"""Online backup of the live database: SQLite's backup API, then an integrity check of the copy.

Safe while the bot runs: in WAL mode the backup reads one consistent snapshot while the bot keeps
writing (readers never block the writer). Copying the file by hand could miss what still sits in
the -wal file or tear a page; `Connection.backup` cannot.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import time
from dataclasses import dataclass, field
from pathlib import Path

from bot.storage.bot_status import table_counts


class BackupError(Exception):
    """The backup could not be made or did not verify; the message is for the operator."""


@dataclass
class BackupReport:
    """What was written: rows per table, the integrity verdict and how long it took."""

    path: Path
    tables: dict[str, int] = field(default_factory=dict)
    integrity: str = ""
    seconds: float = 0.0
    size_bytes: int = 0


def _open_source(source: Path) -> sqlite3.Connection:
    if not source.is_file():
        # sqlite3.connect would create an empty database and "back it up" successfully.
        raise BackupError(f"no database at {source}")
    conn = sqlite3.connect(source, isolation_level=None)
    conn.execute("PRAGMA busy_timeout=5000")
    conn.execute("PRAGMA query_only=1")
    return conn


def _check_destination(source: Path, dest: Path) -> None:
    if dest == source.resolve():
        raise BackupError("the backup path is the database itself")
    if dest.is_dir():
        raise BackupError(
            f"{dest} is a directory; give the backup file's path, "
            f"e.g. {dest / 'quizbot-backup.sqlite3'}"
        )
    if not dest.parent.exists():
        raise BackupError(f"no such directory: {dest.parent}")
    if not dest.parent.is_dir():
        raise BackupError(f"{dest.parent} is not a directory")


def _remove_partial(partial: Path) -> None:
    # SQLite's own files too: a copy that failed part-way may leave its rollback journal.
    for suffix in ("", "-journal", "-wal", "-shm"):
        with contextlib.suppress(OSError):
            Path(f"{partial}{suffix}").unlink(missing_ok=True)


def _copy(source: Path, partial: Path) -> tuple[list[str], dict[str, int]]:
    """Back up into `partial`; the copy's integrity_check verdict and its rows per table."""
    src = _open_source(source)
    try:
        copy = sqlite3.connect(partial, isolation_level=None)
        try:
            # pages=-1: one step, so the copy is one snapshot; a stepped backup restarts
            # whenever the bot commits and could chase a busy database for a long time.
            src.backup(copy, pages=-1)
            # A single self-contained file: no -wal beside it to forget when copying it off.
            copy.execute("PRAGMA journal_mode=DELETE")
            verdict = [row[0] for row in copy.execute("PRAGMA integrity_check")]
            return verdict, table_counts(copy)
        finally:
            copy.close()
    finally:
        src.close()


def backup_database(source: Path, dest: Path) -> BackupReport:
    """Copy `source` to `dest` (replaced atomically), verify it and count its rows."""
    started = time.monotonic()
    dest = dest.resolve()
    _check_destination(source, dest)
    # Written beside the target and renamed only once verified: a failed or interrupted backup
    # never replaces a good older one of the same name, and leaves nothing behind.
    partial = dest.with_name(f".{dest.name}.partial")
    _remove_partial(partial)
    try:
        # Created here rather than by SQLite, which says only "unable to open database file"
        # where the OS says "Permission denied" or "Read-only file system"; readable by its
        # owner only, as it holds what the database holds.
        os.close(os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    except OSError as err:
        raise BackupError(f"cannot write in {dest.parent}: {err.strerror or err}") from None
    try:
        verdict, tables = _copy(source, partial)
        if verdict != ["ok"]:
            raise BackupError("integrity_check failed on the copy: " + "; ".join(verdict[:5]))
        os.replace(partial, dest)
    except sqlite3.Error as err:
        raise BackupError(f"backup to {dest} failed: {err}") from None
    except OSError as err:
        raise BackupError(f"backup to {dest} failed: {err.strerror or err}") from None
    finally:
        _remove_partial(partial)
    return BackupReport(
        path=dest,
        tables=tables,
        integrity="ok",
        seconds=time.monotonic() - started,
        size_bytes=dest.stat().st_size,
    )
