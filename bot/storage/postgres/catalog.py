"""PostgreSQL's side of a whole-database copy (bot/storage/db_copy.py): its catalog, identity
sequences, one snapshot to read from, rows streamed in batches from a server-side cursor."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from typing import Any

import psycopg

from bot.storage.port import Connection
from bot.storage.postgres.connection import PgConnection
from bot.storage.postgres.migrations import available

DRIVER_ERROR = psycopg.Error
_IN_SCHEMA = "table_schema = current_schema() AND table_name = ?"


def quoted(name: str) -> str:
    """An identifier quoted for both backends (`right` is reserved here)."""
    return '"' + name.replace('"', '""') + '"'


class PgCatalog:
    """The tables of one PostgreSQL database (its current schema) and how to read and write
    them whole."""

    def __init__(self, conn: Connection) -> None:
        self.conn = conn

    def _names(self, sql: str, params: tuple[Any, ...] = ()) -> list[str]:
        return [str(r[0]) for r in self.conn.execute(sql, params).fetchall()]

    def tables(self) -> list[str]:
        """Every table of the schema."""
        return self._names(
            "SELECT table_name FROM information_schema.tables WHERE table_schema ="
            " current_schema() AND table_type = 'BASE TABLE' ORDER BY table_name"
        )

    def columns(self, table: str) -> list[str]:
        """The table's columns, in order."""
        return self._names(
            f"SELECT column_name FROM information_schema.columns WHERE {_IN_SCHEMA}"
            " ORDER BY ordinal_position",
            (table,),
        )

    def primary_key(self, table: str) -> list[str]:
        """The primary key's columns in key order (empty when it has none)."""
        return self._names(
            "SELECT a.attname FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid"
            " AND a.attnum = ANY (i.indkey) WHERE i.indrelid = ?::regclass AND i.indisprimary"
            " ORDER BY array_position(i.indkey, a.attnum)",
            (quoted(table),),
        )

    def order_term(self, table: str, column: str) -> str:
        """A column in ORDER BY: text by its bytes (collation "C"), as SQLite orders it, so
        both sides read rows in one order whatever the database's locale."""
        text = self._names(
            f"SELECT column_name FROM information_schema.columns WHERE {_IN_SCHEMA}"
            " AND column_name = ? AND data_type IN ('text', 'character varying')",
            (table, column),
        )
        return quoted(column) + (' COLLATE "C"' if text else "")

    def references(self, table: str) -> set[str]:
        """The tables this one's foreign keys point to."""
        return {
            name.strip('"')
            for name in self._names(
                "SELECT DISTINCT confrelid::regclass::text FROM pg_constraint"
                " WHERE conrelid = ?::regclass AND contype = 'f'",
                (quoted(table),),
            )
        }

    def identity(self, table: str) -> str | None:
        """The identity column, if any."""
        found = self._names(
            f"SELECT column_name FROM information_schema.columns WHERE {_IN_SCHEMA}"
            " AND is_identity = 'YES'",
            (table,),
        )
        return found[0] if found else None

    def _sequence(self, table: str, column: str) -> str:
        row = self.conn.execute(
            "SELECT pg_get_serial_sequence(?, ?)", (quoted(table), column)
        ).fetchone()
        return str(row[0])

    def issued(self, table: str, column: str) -> int:
        """The largest id handed out: the sequence's last value, or a larger copied id."""
        top = self.conn.execute(f"SELECT MAX({quoted(column)}) FROM {quoted(table)}").fetchone()
        last = self.conn.execute(
            "SELECT pg_sequence_last_value(?::regclass)", (self._sequence(table, column),)
        ).fetchone()
        return max(int(top[0] or 0), int(last[0] or 0))

    def continue_after(self, table: str, column: str, issued: int) -> None:
        """The identity sequence gives `issued + 1` next (copied ids did not advance it)."""
        self.conn.execute(
            "SELECT setval(?::regclass, ?, false)", (self._sequence(table, column), issued + 1)
        )

    def pending_migrations(self) -> list[str]:
        """This backend's migrations the database lacks (read only: nothing is created)."""
        exists = self._names(
            f"SELECT table_name FROM information_schema.tables WHERE {_IN_SCHEMA}",
            ("schema_migrations",),
        )
        done = set(self._names("SELECT name FROM schema_migrations")) if exists else set()
        return [name for name, _ in available() if name not in done]

    def begin(self, *, write: bool) -> None:
        """One transaction on one snapshot (REPEATABLE READ), read-only for the source."""
        suffix = "" if write else " READ ONLY"
        self.conn.execute("BEGIN ISOLATION LEVEL REPEATABLE READ" + suffix)

    def end(self, *, commit: bool) -> None:
        """Commit or roll back."""
        self.conn.execute("COMMIT" if commit else "ROLLBACK")

    def insert(self, table: str, columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> None:
        """Add rows through COPY FROM STDIN: one stream per batch instead of a statement per
        row; row triggers fire as for INSERT."""
        assert isinstance(self.conn, PgConnection)
        names = ", ".join(map(quoted, columns))
        with self.conn.raw.cursor().copy(f"COPY {quoted(table)} ({names}) FROM STDIN") as copy:
            for row in rows:
                copy.write_row(row)

    def batches(self, select: str, size: int) -> Iterator[list[Any]]:
        """The rows of one SELECT as plain tuples, `size` at a time, from a server-side
        cursor: a big table is never held in memory whole. Inside begin() only."""
        self.conn.execute(f"DECLARE copy_rows NO SCROLL CURSOR FOR {select}")
        try:
            while True:
                cursor = self.conn.cursor()
                cursor.row_factory = None
                batch = cursor.execute(f"FETCH {int(size)} FROM copy_rows").fetchall()
                if not batch:
                    return
                yield batch
        finally:
            # A transaction already failed has dropped the cursor with everything else.
            with contextlib.suppress(psycopg.Error):
                self.conn.execute("CLOSE copy_rows")
