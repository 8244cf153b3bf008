"""Copy a whole deployment from one database to another (SQLite to PostgreSQL, or back).

The target is migrated first and must hold no rows. Every table is then copied in batches, in
the order its foreign keys need, inside one transaction on each side: the source is read on
one snapshot, and the target commits only after each table's row count and checksum match the
source's, so a failed or mismatched copy leaves the target as empty as it was.

The checksum is computed the same way on both sides: rows read in primary-key order (text
compared by bytes on both backends), each value normalised (integers, floats rounded, text),
hashed with SHA-256.

A table kept by triggers (learner_runs, from learner_days) is copied after the tables whose
triggers write it, and cleared just before: it ends up as the source has it, not as the
triggers would rebuild it.
"""

from __future__ import annotations

import contextlib
import hashlib
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from bot.storage.factory import (
    connect_blocking,
    display_name,
    is_postgres,
    prepare_database,
    sqlite_path,
)
from bot.storage.port import Connection, StorageError
from bot.storage.sqlite import migrations as sqlite_migrations
from bot.storage.sqlite.migrations import too_new

BATCH_ROWS = 2000
FLOAT_DIGITS = 6  # floats are compared to a millionth: both backends store IEEE doubles
# Tables written by triggers on other tables: copied after those, cleared before their copy.
KEPT_BY_TRIGGERS: dict[str, tuple[str, ...]] = {
    "learner_runs": ("learner_days",),
    "memory_versions": ("memory_states",),
}
# Bookkeeping each database keeps for itself (the target's migrations wrote its own).
NOT_COPIED = frozenset({"schema_migrations"})
# The files SQLite keeps beside a database file while it is open or was left mid-write.
SQLITE_SIDE_FILES = ("-wal", "-shm", "-journal")

Progress = Callable[[str, int, int], None]  # table, rows copied so far, rows in the table


class CopyRefused(Exception):
    """The copy cannot start (a target with rows, schemas that differ); nothing was written."""


class CopyMismatch(Exception):
    """The copied rows differ from the source's; the target's transaction was rolled back."""

    def __init__(self, tables: Sequence[str], details: Sequence[str]) -> None:
        super().__init__("; ".join(details))
        self.tables = tuple(tables)


@dataclass(frozen=True)
class TableCopied:
    """One table's copy: its rows and their checksum (the same on both sides)."""

    name: str
    rows: int
    checksum: str


@dataclass(frozen=True)
class CopyReport:
    """What a copy did."""

    source: str
    target: str
    tables: tuple[TableCopied, ...]
    migrations: tuple[str, ...]  # applied to the target before copying
    seconds: float

    @property
    def rows(self) -> int:
        """Rows copied in all."""
        return sum(t.rows for t in self.tables)


def normalised(value: Any) -> str:
    """One value as the checksum sees it, whichever driver read it."""
    if value is None:
        return "N"
    if isinstance(value, bool):
        return f"i{int(value)}"
    if isinstance(value, int):
        return f"i{value}"
    if isinstance(value, float):
        if value.is_integer() and abs(value) < 2**53:
            return f"i{int(value)}"
        return f"f{round(value, FLOAT_DIGITS)!r}"
    if isinstance(value, (bytes, bytearray, memoryview)):
        return f"b{bytes(value).hex()}"
    return f"s{value}"


def row_digest(hasher: Any, rows: Sequence[Sequence[Any]]) -> None:
    """Feed rows to the hash: values separated and rows terminated unambiguously."""
    for row in rows:
        hasher.update(repr(tuple(map(normalised, row))).encode())


class Catalog(Protocol):
    """What a backend tells and does for a copy (bot/storage/{sqlite,postgres}/catalog.py)."""

    conn: Connection

    def tables(self) -> list[str]: ...
    def columns(self, table: str) -> list[str]: ...
    def primary_key(self, table: str) -> list[str]: ...
    def order_term(self, table: str, column: str) -> str: ...
    def references(self, table: str) -> set[str]: ...
    def identity(self, table: str) -> str | None: ...
    def issued(self, table: str, column: str) -> int: ...
    def continue_after(self, table: str, column: str, issued: int) -> None: ...
    def pending_migrations(self) -> list[str]: ...
    def begin(self, *, write: bool) -> None: ...
    def end(self, *, commit: bool) -> None: ...
    def insert(
        self, table: str, columns: Sequence[str], rows: Sequence[Sequence[Any]]
    ) -> None: ...
    def batches(self, select: str, size: int) -> Iterator[list[Any]]: ...


def quoted(name: str) -> str:
    """An identifier quoted for both backends (`right` is reserved in PostgreSQL)."""
    return '"' + name.replace('"', '""') + '"'


def catalog_of(target: str, conn: Connection) -> Catalog:
    """The backend's catalog (PostgreSQL's driver imported only when it is the one)."""
    if is_postgres(target):
        from bot.storage.postgres.catalog import PgCatalog

        return PgCatalog(conn)
    from bot.storage.sqlite.catalog import SqliteCatalog

    return SqliteCatalog(conn)


def driver_errors(*targets: str) -> tuple[type[Exception], ...]:
    """The drivers' own errors for these databases."""
    from bot.storage.sqlite.catalog import DRIVER_ERROR

    errors: list[type[Exception]] = [DRIVER_ERROR]
    if any(map(is_postgres, targets)):
        from bot.storage.postgres.catalog import DRIVER_ERROR as PG_ERROR

        errors.append(PG_ERROR)
    return tuple(errors)


class Side:
    """One database of the copy: its catalog, and its rows read and hashed alike."""

    def __init__(self, target: str, conn: Connection) -> None:
        self.name = display_name(target)
        self.conn = conn
        self.catalog = catalog_of(target, conn)
        self.postgres = is_postgres(target)

    def newer_than_code(self) -> str | None:
        """Why this code must not copy the database (migrations it does not know), or None.
        Only once its schema_migrations table is known to exist (no pending migrations)."""
        done = [row[0] for row in self.conn.execute("SELECT name FROM schema_migrations")]
        if self.postgres:
            from bot.storage.postgres.migrations import known

            return too_new(done, known())
        return too_new(done, sqlite_migrations.known())

    def tables(self) -> list[str]:
        """The tables to copy."""
        return [t for t in self.catalog.tables() if t not in NOT_COPIED]

    def columns(self, table: str) -> list[str]:
        """The table's columns, in order."""
        return self.catalog.columns(table)

    def count(self, table: str) -> int:
        """Rows in the table."""
        return int(self.conn.execute(f"SELECT COUNT(*) FROM {quoted(table)}").fetchone()[0])

    def batches(self, table: str, columns: Sequence[str], size: int) -> Iterator[list[Any]]:
        """The table's rows (these columns) in primary-key order, `size` rows at a time."""
        key = self.catalog.primary_key(table) or list(columns)
        order = ", ".join(self.catalog.order_term(table, c) for c in key)
        select = f"SELECT {', '.join(map(quoted, columns))} FROM {quoted(table)} ORDER BY {order}"
        return self.catalog.batches(select, size)

    def checksum(self, table: str, columns: Sequence[str], size: int = BATCH_ROWS) -> str:
        """SHA-256 over the table's normalised rows in primary-key order."""
        hasher = hashlib.sha256()
        for rows in self.batches(table, columns, size):
            row_digest(hasher, rows)
        return hasher.hexdigest()

    def fingerprint(self) -> dict[str, tuple[int, str]]:
        """Every table's row count and checksum, read on one snapshot."""
        self.catalog.begin(write=False)
        try:
            return {t: (self.count(t), self.checksum(t, self.columns(t))) for t in self.tables()}
        finally:
            self.catalog.end(commit=False)


def copy_order(side: Side, tables: Sequence[str]) -> list[str]:
    """The tables in an order where each comes after the tables it refers to (and after the
    tables whose triggers write it); alphabetical where free."""
    needs = {t: side.catalog.references(t) | set(KEPT_BY_TRIGGERS.get(t, ())) for t in tables}
    order: list[str] = []
    left = sorted(tables)
    while left:
        ready = [t for t in left if not (needs[t] - {t}) - set(order)]
        if not ready:
            raise CopyRefused(f"foreign keys form a cycle among: {', '.join(left)}")
        order.append(ready[0])
        left.remove(ready[0])
    return order


def check_schemas(source: Side, target: Side) -> list[str]:
    """The tables to copy; CopyRefused when the two schemas differ or the target has rows."""
    behind = source.catalog.pending_migrations()
    if behind:
        raise CopyRefused(
            f"the source {source.name} lacks migrations {', '.join(behind)}: "
            "run `quizbot migrate` on it first"
        )
    if (why := source.newer_than_code()) is not None:
        # A newer release's data would reach a target this code migrated, without the
        # migrations that made it.
        raise CopyRefused(f"the source {source.name}: {why}")
    tables = target.tables()
    theirs = set(source.tables())
    if theirs != set(tables):
        only_source, only_target = sorted(theirs - set(tables)), sorted(set(tables) - theirs)
        raise CopyRefused(
            f"the schemas differ: only in the source {only_source}, only in the target "
            f"{only_target}"
        )
    for table in tables:
        if set(source.columns(table)) != set(target.columns(table)):
            raise CopyRefused(f"table {table} has different columns on the two sides")
    filled = [(t, n) for t in tables if (n := target.count(t))]
    if filled:
        listed = ", ".join(f"{t} ({n} rows)" for t, n in filled)
        raise CopyRefused(f"the target {target.name} is not empty: {listed}")
    return tables


def _copy_table(
    source: Side, target: Side, table: str, batch: int, progress: Progress | None
) -> TableCopied:
    """Copy one table; its rows and checksum as read from the source."""
    columns = target.columns(table)
    total = source.count(table)
    if table in KEPT_BY_TRIGGERS:
        target.conn.execute(f"DELETE FROM {quoted(table)}")  # the triggers' rows, not the source's
    hasher = hashlib.sha256()
    done = 0
    if progress is not None:
        progress(table, 0, total)
    for rows in source.batches(table, columns, batch):
        target.catalog.insert(table, columns, rows)
        row_digest(hasher, rows)
        done += len(rows)
        if progress is not None:
            progress(table, done, total)
    if (column := target.catalog.identity(table)) is not None:
        # Never an id the source handed out: a stale button must stay stale.
        issued = source.catalog.issued(table, column) if source.catalog.identity(table) else 0
        target.catalog.continue_after(
            table, column, max(issued, target.catalog.issued(table, column))
        )
    return TableCopied(table, done, hasher.hexdigest())


def verify(target: Side, copied: Sequence[TableCopied]) -> None:
    """CopyMismatch unless every table holds the source's row count and checksum."""
    bad: list[str] = []
    details: list[str] = []
    for table in copied:
        rows = target.count(table.name)
        if rows != table.rows:
            bad.append(table.name)
            details.append(f"{table.name}: {table.rows} rows in the source, {rows} in the target")
            continue
        checksum = target.checksum(table.name, target.columns(table.name))
        if checksum != table.checksum:
            bad.append(table.name)
            details.append(
                f"{table.name}: checksum {table.checksum[:12]} in the source,"
                f" {checksum[:12]} in the target"
            )
    if bad:
        raise CopyMismatch(bad, details)


def copy_database(
    source_url: str,
    target_url: str,
    *,
    default_timezone: str = "UTC",
    batch: int = BATCH_ROWS,
    progress: Progress | None = None,
) -> CopyReport:
    """Migrate the target, copy every table into it and verify; CopyRefused before writing
    anything, CopyMismatch (target rolled back) when the copy does not read back the same.
    The source should not change meanwhile (stop the bot): it is read on one snapshot."""
    try:
        return _copy(source_url, target_url, default_timezone, batch, progress)
    except driver_errors(source_url, target_url) as err:
        raise StorageError(str(err).strip() or type(err).__name__) from err


def same_database(a: str, b: str) -> bool:
    """Whether two names are one database (a SQLite file by its resolved path)."""
    if is_postgres(a) or is_postgres(b):
        return display_name(a) == display_name(b)
    return sqlite_path(a).resolve() == sqlite_path(b).resolve()


def open_source(url: str) -> Connection:
    """A connection to the source; CopyRefused for a SQLite source that is no file (connecting
    would create an empty one), StorageError naming the source when it cannot be read."""
    if not is_postgres(url):
        path = sqlite_path(url)
        if path.is_dir():
            raise CopyRefused(f"the source {path} is a directory, not a SQLite file")
        if not path.is_file():
            raise CopyRefused(f"the source {path} does not exist")
    try:
        return connect_blocking(url)
    except driver_errors(url) as err:
        why = str(err).strip() or type(err).__name__
        raise StorageError(f"cannot read the source {display_name(url)}: {why}") from err


@contextlib.contextmanager
def removed_on_failure(target_url: str) -> Iterator[None]:
    """A SQLite target this copy creates is deleted again (with its -wal, -shm and any
    folders made for it) when the copy fails: a migrated empty file left behind looks like a
    copy that worked."""
    if is_postgres(target_url):
        yield  # a PostgreSQL database is never created by the copy; its rollback empties it
        return
    path = sqlite_path(target_url).absolute()
    if path.exists() or path.is_symlink():
        yield
        return
    made = [folder for folder in path.parents if not folder.exists()]  # deepest first
    try:
        yield
    except BaseException:
        for leftover in (path, *(path.with_name(path.name + s) for s in SQLITE_SIDE_FILES)):
            with contextlib.suppress(OSError):
                leftover.unlink(missing_ok=True)
        for folder in made:
            with contextlib.suppress(OSError):
                folder.rmdir()  # only when empty: nothing of anyone else's goes
        raise


def _copy(
    source_url: str, target_url: str, default_timezone: str, batch: int, progress: Progress | None
) -> CopyReport:
    started = time.perf_counter()
    if same_database(source_url, target_url):
        raise CopyRefused("the source and the target are the same database")
    # The source first: one that cannot be read stops the copy before the target is made.
    source = Side(source_url, open_source(source_url))
    try:
        with removed_on_failure(target_url):
            migrations = prepare_database(target_url, default_timezone)
            target = Side(target_url, connect_blocking(target_url))
            try:
                source.catalog.begin(write=False)
                target.catalog.begin(write=True)  # the emptiness checked holds until the commit
                committed = False
                try:
                    order = copy_order(target, check_schemas(source, target))
                    copied = [_copy_table(source, target, t, batch, progress) for t in order]
                    verify(target, copied)
                    target.catalog.end(commit=True)
                    committed = True
                finally:
                    if not committed:
                        target.catalog.end(commit=False)
                    source.catalog.end(commit=False)
            finally:
                target.conn.close()
    finally:
        source.conn.close()
    return CopyReport(
        source.name,
        target.name,
        tuple(copied),
        tuple(migrations),
        time.perf_counter() - started,
    )
