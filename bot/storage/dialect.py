"""Where the SQL of the storage modules depends on the database: the helpers for what differs
between SQLite and PostgreSQL, and the list of what is still SQLite-only.

The statements of the SQL modules are written to run on both: upserts name their conflict
target (`ON CONFLICT (...) DO NOTHING / DO UPDATE`), refer to the stored row as
`table.column` and to the proposed one as `excluded.column`; new ids come back with
`RETURNING id`; times are Unix seconds computed in Python and bound as parameters; a write
that depends on what was read checks it in its WHERE clause (compare and set) instead of
relying on one writer at a time; a column named like a word PostgreSQL reserves (`right`)
is quoted. What cannot be written once for both goes through a helper here.

Still SQLite-only, and why:

- The engine (bot/storage/sqlite/): PRAGMAs (journal_mode, synchronous, foreign_keys,
  busy_timeout, query_only, page_size, wal_autocheckpoint, journal_size_limit, user_version,
  wal_checkpoint, integrity_check), `BEGIN IMMEDIATE` and the savepoint replay of a group
  commit, read-only `mode=ro` connections, the backup API, `sqlite_master` in
  migrations.pending, and the `datetime('now')` default of `schema_migrations.applied_at`.
  A PostgreSQL backend brings its own engine.
- The catalog: `sqlite_master` and `PRAGMA table_info` (abuse_sql's reset finds its tables by
  their columns, bot_status checks and counts tables, memory_backfill reads the columns an
  early migration left). PostgreSQL: information_schema.
- Planner hints: `NOT INDEXED` (summaries.backfill, migration 0010; SQLite history only).
  PostgreSQL has no such syntax.
- `group_concat(x, sep)` (item_sql): PostgreSQL's `string_agg(x::text, sep)`, with one
  ORDER BY in each aggregate so the lists stay aligned.
- Triggers (migration 0012: learner_days keeps learner_runs), written in SQLite's trigger
  syntax with its `date(..., '+1 day')` and scalar MAX; PostgreSQL needs a trigger function.
- The migrations in bot/storage/sqlite/schema/ (history, applied as they are): `julianday`
  in 0012's backfill, `WITHOUT ROWID`, `INTEGER PRIMARY KEY AUTOINCREMENT`, `executescript`.
  Their Python steps only replay SQLite history: `summaries.backfill` (NOT INDEXED, `CAST(x AS
  INTEGER)` truncating where PostgreSQL rounds, an integer read as a boolean in CASE WHEN)
  and `forgetting_sql.backfill` (`TOTAL()`). A PostgreSQL schema starts from a baseline of
  its own and needs none of them.
- Flags are 0/1 integers (`active = 1`, `exam_offered = 0`, `correct`): a PostgreSQL baseline
  keeps them as integers (smallint) so that the statements stay as they are.
- The driver: placeholders are sqlite3's `?` and `:name` (a PostgreSQL adapter translates
  them once per statement); rows are `sqlite3.Row`, or plain tuples where a hot read sets
  `cursor.row_factory = None` (learning_sql, item_sql); `rowcount` tells a compare and set
  whether it won, as a PostgreSQL cursor's does.
"""

from __future__ import annotations

from bot.storage.port import Connection


def greatest(a: str, b: str) -> str:
    """The larger of two SQL values, in the CASE form both backends run (SQLite's scalar
    MAX(a, b) is an aggregate's name on PostgreSQL, whose GREATEST SQLite lacks).

    Only for values that are never NULL, or wrapped in COALESCE by the caller: the backends'
    own functions disagree on a NULL, and so would this with either."""
    return f"CASE WHEN {a} >= {b} THEN {a} ELSE {b} END"


def least(a: str, b: str) -> str:
    """The smaller of two SQL values (the CASE form; NULLs as for `greatest`)."""
    return f"CASE WHEN {a} <= {b} THEN {a} ELSE {b} END"


def skip_locked(conn: Connection) -> str:
    """The suffix of a SELECT that claims rows among several processes: PostgreSQL's
    `FOR UPDATE SKIP LOCKED` (rows another transaction is claiming are passed over instead of
    waited for); nothing on SQLite, whose one writer at a time claims alone."""
    return " FOR UPDATE SKIP LOCKED" if backend(conn) == "postgresql" else ""


def backend(conn: Connection) -> str:
    """ "postgresql" for the PostgreSQL adapter (it says so), "sqlite" for sqlite3's own
    connection (which has no such attribute)."""
    return str(getattr(conn, "dialect", "sqlite"))
