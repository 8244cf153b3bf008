"""A psycopg connection in the port's shape (`bot.storage.port.Connection`): `?` statements,
rows by position or column name, `cursor()` whose `row_factory = None` gives plain tuples.

Types come back as SQLite's would for the same schema: PostgreSQL's `numeric` (what SUM and
AVG of integers return) loads as int or float, and a Python bool is sent as an integer (the
schema keeps SQLite's 0/1 flags in integer columns).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import psycopg
from psycopg.adapt import Dumper, Loader
from psycopg.pq import Format
from psycopg.rows import RowMaker, tuple_row

from bot.storage.postgres.sql_text import to_psycopg

# What a concurrent transaction makes a statement fail with (SQLSTATE 40001, 40P01): the
# transaction may be run again.
CONFLICTS = (psycopg.errors.SerializationFailure, psycopg.errors.DeadlockDetected)


class PgRow(tuple[Any, ...]):
    """One row, like sqlite3.Row: by position, by column name, iterable over its values."""

    _index: dict[str, int]

    def __getitem__(self, key: Any) -> Any:
        if isinstance(key, str):
            return tuple.__getitem__(self, self._index[key])
        return tuple.__getitem__(self, key)

    def keys(self) -> list[str]:
        """The column names, in order."""
        return list(self._index)


def named_rows(cursor: psycopg.Cursor[Any]) -> RowMaker[PgRow]:
    """psycopg row factory for PgRow (one subclass per result shape, made once)."""
    description = cursor.description
    if description is None:
        return tuple_row(cursor)  # type: ignore[return-value]  # no rows to make
    row_type = type("PgRow", (PgRow,), {"_index": {c.name: i for i, c in enumerate(description)}})

    def make(values: Sequence[Any]) -> PgRow:
        return row_type(values)  # type: ignore[no-any-return]

    return make


class NumericLoader(Loader):
    """`numeric` as int when whole-valued in its text, float otherwise (SQLite's types)."""

    def load(self, data: Any) -> int | float:
        text = bytes(data).decode()
        try:
            return int(text)
        except ValueError:  # a fraction, NaN or Infinity
            return float(text)


class BoolAsInt(Dumper):
    """True/False as the integers 1/0."""

    format = Format.TEXT
    oid = 20  # int8

    def dump(self, obj: Any) -> bytes:
        return b"1" if obj else b"0"


def configure(conn: psycopg.Connection[Any]) -> None:
    """Adapters every connection gets (a pool's `configure` hook, or a blocking connection)."""
    conn.adapters.register_loader("numeric", NumericLoader)
    conn.adapters.register_dumper(bool, BoolAsInt)


def _params(parameters: Any) -> Any:
    return parameters if isinstance(parameters, dict) else tuple(parameters)


class PgCursor:
    """A psycopg cursor taking `?` statements; `row_factory = None` gives plain tuples."""

    def __init__(self, cursor: psycopg.Cursor[Any]) -> None:
        self._cursor = cursor
        self._cursor.row_factory = named_rows

    @property
    def row_factory(self) -> Any:
        """named rows unless set to None (plain tuples)."""
        return None if self._cursor.row_factory is tuple_row else named_rows

    @row_factory.setter
    def row_factory(self, factory: Any) -> None:
        self._cursor.row_factory = tuple_row if factory is None else named_rows

    @property
    def rowcount(self) -> int:
        """Rows the last statement changed (or returned)."""
        return self._cursor.rowcount

    def execute(self, sql: str, parameters: Any = (), /) -> PgCursor:
        """Run one statement."""
        try:
            self._cursor.execute(to_psycopg(sql), _params(parameters))
        except CONFLICTS as err:
            # The store logs which statement met the conflicting transaction.
            err.add_note(sql)
            raise
        return self

    def executemany(self, sql: str, parameters: Iterable[Any], /) -> PgCursor:
        """Run one statement for each parameter set."""
        self._cursor.executemany(to_psycopg(sql), [_params(p) for p in parameters])
        return self

    def fetchone(self) -> Any:
        """The next row, or None."""
        return self._cursor.fetchone() if self._cursor.description is not None else None

    def fetchall(self) -> list[Any]:
        """The remaining rows."""
        return self._cursor.fetchall() if self._cursor.description is not None else []

    def __iter__(self) -> Iterator[Any]:
        return iter(self.fetchall())


class PgConnection:
    """The port's Connection over one psycopg connection (the store owns its transaction)."""

    dialect = "postgresql"  # read by bot.storage.dialect.of

    def __init__(self, conn: psycopg.Connection[Any], *, owned: bool = False) -> None:
        self.raw = conn
        self._owned = owned  # a blocking connection of its own, not one lent by the pool

    def cursor(self) -> PgCursor:
        """A new cursor."""
        return PgCursor(self.raw.cursor())

    def execute(self, sql: str, parameters: Any = (), /) -> PgCursor:
        """Run one statement on a new cursor."""
        return self.cursor().execute(sql, parameters)

    def executemany(self, sql: str, parameters: Iterable[Any], /) -> PgCursor:
        """Run one statement for each parameter set."""
        return self.cursor().executemany(sql, parameters)

    def close(self) -> None:
        """Close a blocking connection; one lent by the pool goes back to it instead."""
        if self._owned:
            self.raw.close()
