"""Where the SQL of the storage modules depends on the database: the helpers for what differs
between SQLite and PostgreSQL, and the list of what is still SQLite-only.

The statements of the SQL modules are written to run on both: upserts name their conflict
target (`ON CONFLICT (...) DO NOTHING / DO UPDATE`), refer to the stored row as
`table.column` and to the proposed one as `excluded.column`; new ids come back with
`RETURNING id`; times are Unix seconds computed in Python and bound as parameters; a write
that depends on what was read checks it in its WHERE clause (compare and set) instead of
relying on one writer at a time; a column named like a word PostgreSQL reserves (`right`)
is quoted; a flag is compared as an integer (`correct = 1`: PostgreSQL's CASE WHEN wants a
boolean). What cannot be written once for both goes through `of(conn)`, the `Dialect` of a
connection, and a `Statement`, a statement's text for each database built at import: the
scalar MAX/MIN (GREATEST/LEAST), the planner hints `INDEXED BY` and `NOT INDEXED` (dropped on
PostgreSQL), `group_concat` (`string_agg` with one ORDER BY in each aggregate so that the lists
stay aligned), `TOTAL()`, a number's integer part (PostgreSQL's CAST rounds) and the catalog
(`sqlite_master` and `PRAGMA table_info`, information_schema on PostgreSQL).

Still SQLite-only, and why:

- The engine (bot/storage/sqlite/): PRAGMAs (journal_mode, synchronous, foreign_keys,
  busy_timeout, query_only, page_size, wal_autocheckpoint, journal_size_limit, user_version,
  wal_checkpoint, integrity_check), `BEGIN IMMEDIATE` and the savepoint replay of a group
  commit, read-only `mode=ro` connections, the backup API, `sqlite_master` in
  migrations.pending, and the `datetime('now')` default of `schema_migrations.applied_at`.
  A PostgreSQL backend brings its own engine.
- Triggers (migration 0012: learner_days keeps learner_runs), written in SQLite's trigger
  syntax with its `date(..., '+1 day')` and scalar MAX; PostgreSQL needs a trigger function.
- The migrations in bot/storage/sqlite/schema/ (history, applied as they are): `julianday`
  in 0012's backfill, `WITHOUT ROWID`, `INTEGER PRIMARY KEY AUTOINCREMENT`, `executescript`.
  Their Python steps replay SQLite history (`summaries.backfill`, `memory_backfill`'s
  `backfill_memory` and `backfill_reviews`): written through the helpers here, they run on
  PostgreSQL too, though a PostgreSQL schema starts from a baseline of its own and needs none
  of them. A step of a migration after that baseline (`backfill_after_miss`) runs on both.
- Flags are 0/1 integers (`active = 1`, `exam_offered = 0`, `correct`): a PostgreSQL baseline
  keeps them as integers (smallint) so that the statements stay as they are.
- The driver: placeholders are sqlite3's `?` and `:name` (a PostgreSQL adapter translates
  them once per statement); rows are `sqlite3.Row`, or plain tuples where a hot read sets
  `cursor.row_factory = None` (learning_sql, item_sql); `rowcount` tells a compare and set
  whether it won, as a PostgreSQL cursor's does.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

SQLITE = "sqlite"
POSTGRESQL = "postgresql"


@dataclass(frozen=True)
class Dialect:
    """The SQL text that differs between the two databases, for one of them."""

    name: str

    @property
    def postgres(self) -> bool:
        """Whether this is PostgreSQL's."""
        return self.name == POSTGRESQL

    def greatest(self, a: str, b: str) -> str:
        """The larger of two SQL values: SQLite's scalar MAX(a, b), PostgreSQL's GREATEST.

        Only for values that are never NULL, or wrapped in COALESCE by the caller: SQLite's
        answer is NULL when either is NULL, PostgreSQL's ignores a NULL."""
        return f"GREATEST({a}, {b})" if self.postgres else f"MAX({a}, {b})"

    def least(self, a: str, b: str) -> str:
        """The smaller of two SQL values: SQLite's scalar MIN(a, b), PostgreSQL's LEAST
        (NULLs as for `greatest`)."""
        return f"LEAST({a}, {b})" if self.postgres else f"MIN({a}, {b})"

    def indexed_by(self, index: str) -> str:
        """SQLite's planner hint to read through `index` (PostgreSQL has none: its planner
        picks the index by itself)."""
        return "" if self.postgres else f" INDEXED BY {index}"

    def skip_locked(self) -> str:
        """The suffix of a SELECT that claims rows among several processes: PostgreSQL's
        `FOR UPDATE SKIP LOCKED` (rows another transaction is claiming are passed over
        instead of waited for); nothing on SQLite, whose one writer at a time claims alone."""
        return " FOR UPDATE SKIP LOCKED" if self.postgres else ""

    def not_indexed(self) -> str:
        """SQLite's hint to scan the table rather than an index."""
        return "" if self.postgres else " NOT INDEXED"

    def group_concat(self, expr: str, sep: str, order_by: str) -> str:
        """The values of `expr` in a group as one text, `sep` between them, in `order_by`
        order (the same order in every aggregate of one query keeps lists aligned). `sep`
        is a SQL string literal."""
        if self.postgres:
            return f"string_agg(({expr})::text, {sep} ORDER BY {order_by})"
        # SQLite's group_concat follows the order of the rows it is fed: one GROUP BY feeds
        # every aggregate of the query the same rows in the same order.
        return f"group_concat({expr}, {sep})"

    def truncate(self, expr: str) -> str:
        """A number's integer part (toward zero): SQLite's CAST(x AS INTEGER); PostgreSQL's
        CAST rounds instead."""
        return f"trunc({expr})::bigint" if self.postgres else f"CAST({expr} AS INTEGER)"

    def total(self, expr: str) -> str:
        """SQLite's TOTAL(x): the sum as a float, 0.0 for no rows (never NULL)."""
        return f"COALESCE(SUM({expr}), 0)::double precision" if self.postgres else f"TOTAL({expr})"

    def tables(self) -> str:
        """A query for the names of the schema's own tables (`name` column), by name."""
        if self.postgres:
            return (
                "SELECT table_name AS name FROM information_schema.tables"
                " WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'"
                " ORDER BY table_name"
            )
        return (
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
            " ORDER BY name"
        )

    def columns(self, conn: Any, table: str) -> list[str]:
        """The column names of `table`, in order."""
        if self.postgres:
            rows = conn.execute(
                "SELECT column_name FROM information_schema.columns"
                " WHERE table_schema = current_schema() AND table_name = ?"
                " ORDER BY ordinal_position",
                (table,),
            )
            return [str(r[0]) for r in rows]
        return [str(r[1]) for r in conn.execute(f'PRAGMA table_info("{table}")')]


SQLITE_DIALECT = Dialect(SQLITE)
POSTGRESQL_DIALECT = Dialect(POSTGRESQL)


def of(conn: Any) -> Dialect:
    """The dialect of a port connection: a PostgreSQL adapter says `dialect = "postgresql"`;
    sqlite3's connection says nothing."""
    return POSTGRESQL_DIALECT if getattr(conn, "dialect", SQLITE) == POSTGRESQL else SQLITE_DIALECT


class Statement:
    """One statement written once per dialect (built at import): `stmt(conn)` is its text for
    that connection's database."""

    __slots__ = ("_postgres", "_sqlite")

    def __init__(self, build: Callable[[Dialect], str]) -> None:
        self._sqlite = build(SQLITE_DIALECT)
        self._postgres = build(POSTGRESQL_DIALECT)

    def __call__(self, conn: Any) -> str:
        return self._postgres if getattr(conn, "dialect", SQLITE) == POSTGRESQL else self._sqlite
