"""SQLite's side of a whole-database copy (bot/storage/db_copy.py): its catalog, its id
high-water marks, one snapshot to read from, rows streamed in batches."""

from __future__ import annotations

import itertools
import sqlite3
from collections.abc import Iterator, Sequence
from typing import Any

from bot.storage.port import Connection
from bot.storage.sqlite.migrations import available

DRIVER_ERROR = sqlite3.Error


def quoted(name: str) -> str:
    """An identifier quoted for both backends."""
    return '"' + name.replace('"', '""') + '"'


class SqliteCatalog:
    """The tables of one SQLite database and how to read and write them whole."""

    def __init__(self, conn: Connection) -> None:
        self.conn = conn

    def tables(self) -> list[str]:
        """Every table but SQLite's own (sqlite_sequence, sqlite_stat1 ...)."""
        rows = self.conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table'"
            " AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name"
        ).fetchall()
        return [r[0] for r in rows]

    def _info(self, table: str) -> list[Any]:
        return self.conn.execute(f"PRAGMA table_info({quoted(table)})").fetchall()

    def columns(self, table: str) -> list[str]:
        """The table's columns, in order."""
        return [r[1] for r in self._info(table)]

    def primary_key(self, table: str) -> list[str]:
        """The primary key's columns in key order (empty when it has none)."""
        return [
            r[1] for r in sorted((r for r in self._info(table) if r[5] > 0), key=lambda r: r[5])
        ]

    def order_term(self, table: str, column: str) -> str:
        """A column in ORDER BY: text compares by bytes already (BINARY)."""
        return quoted(column)

    def references(self, table: str) -> set[str]:
        """The tables this one's foreign keys point to."""
        return {r[2] for r in self.conn.execute(f"PRAGMA foreign_key_list({quoted(table)})")}

    def identity(self, table: str) -> str | None:
        """The INTEGER PRIMARY KEY column (the rowid SQLite assigns), if any."""
        keys = [r for r in self._info(table) if r[5] > 0]
        if len(keys) == 1 and str(keys[0][2]).upper() == "INTEGER":
            return str(keys[0][1])
        return None

    def _autoincrement(self, table: str) -> bool:
        row = self.conn.execute(
            "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?", (table,)
        ).fetchone()
        return row is not None and "AUTOINCREMENT" in str(row[0]).upper()

    def issued(self, table: str, column: str) -> int:
        """The largest id handed out, deleted rows included where SQLite remembers them
        (AUTOINCREMENT tables keep it in sqlite_sequence)."""
        top = self.conn.execute(f"SELECT MAX({quoted(column)}) FROM {quoted(table)}").fetchone()
        found = int(top[0] or 0)
        if self._autoincrement(table):
            row = self.conn.execute(
                "SELECT seq FROM sqlite_sequence WHERE name = ?", (table,)
            ).fetchone()
            found = max(found, int(row[0]) if row is not None else 0)
        return found

    def continue_after(self, table: str, column: str, issued: int) -> None:
        """The next generated id is above `issued`: AUTOINCREMENT tables remember it; the others
        give MAX(id) + 1, which the copied rows already set."""
        if self._autoincrement(table):
            self.conn.execute("DELETE FROM sqlite_sequence WHERE name = ?", (table,))
            self.conn.execute(
                "INSERT INTO sqlite_sequence (name, seq) VALUES (?, ?)", (table, issued)
            )

    def pending_migrations(self) -> list[str]:
        """This backend's migrations the database lacks (read only: nothing is created)."""
        exists = self.conn.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'"
        ).fetchone()
        done: set[str] = set()
        if exists is not None:
            done = {r[0] for r in self.conn.execute("SELECT name FROM schema_migrations")}
        return [name for name, _ in available() if name not in done]

    def begin(self, *, write: bool) -> None:
        """One transaction: the write lock at once for the target, a snapshot for the source."""
        self.conn.execute("BEGIN IMMEDIATE" if write else "BEGIN")

    def end(self, *, commit: bool) -> None:
        """Commit or roll back."""
        self.conn.execute("COMMIT" if commit else "ROLLBACK")

    def insert(self, table: str, columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> None:
        """Add rows, one prepared statement run for each."""
        names = ", ".join(map(quoted, columns))
        marks = ", ".join("?" for _ in columns)
        self.conn.executemany(f"INSERT INTO {quoted(table)} ({names}) VALUES ({marks})", rows)

    def batches(self, select: str, size: int) -> Iterator[list[Any]]:
        """The rows of one SELECT as plain tuples, `size` at a time, read as they are needed."""
        cursor = self.conn.cursor()
        cursor.row_factory = None
        rows = iter(cursor.execute(select))
        while batch := list(itertools.islice(rows, size)):
            yield batch
