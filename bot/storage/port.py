"""The storage port: what services and SQL modules may assume of a database.

A transaction is one plain function `fn(conn)` run by the store in one go (`Store.write` or
`Store.read`); inside it, `conn` offers DB-API statements with `?` placeholders. The SQLite
engine (`bot.storage.sqlite`) passes its `sqlite3.Connection` as it is (it has this shape); a
second backend passes an adapter of the same shape. Nothing above `bot/storage` names a
driver: the errors a caller acts on are the ones below.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Protocol, TypeVar

T = TypeVar("T")


class Row(Protocol):
    """One result row: by column name or position."""

    def __getitem__(self, key: int | str, /) -> Any: ...

    def keys(self) -> list[str]: ...

    def __iter__(self) -> Iterator[Any]: ...


class Cursor(Protocol):
    """The result of one statement. `row_factory = None` before fetching gives plain tuples
    (the hot reads of a pick hash every row)."""

    row_factory: Any

    @property
    def rowcount(self) -> int: ...

    def execute(self, sql: str, parameters: Any = ..., /) -> Cursor: ...

    def fetchone(self) -> Any: ...

    def fetchall(self) -> list[Any]: ...

    def __iter__(self) -> Iterator[Any]: ...


class Connection(Protocol):
    """What a transaction function gets: statements with `?` placeholders."""

    def execute(self, sql: str, parameters: Any = ..., /) -> Cursor: ...

    def executemany(self, sql: str, parameters: Iterable[Any], /) -> Cursor: ...

    def cursor(self) -> Cursor: ...

    def close(self) -> None: ...


class Store(Protocol):
    """A database: transactions in one go, and single queries. `open()` (or `async with`)
    connects and brings the schema up to date."""

    default_timezone: str  # the zone of learners and chats that set none (for backfills)
    # The kind of the last write failure that lasts ("disk full", "read-only", "file
    # replaced"...), None once a write commits again: health reports it.
    fault: str | None

    async def open(self) -> None:
        """Connect and migrate; DatabaseUnavailable when the database cannot be used."""
        ...

    async def __aenter__(self) -> Store: ...

    async def __aexit__(self, *exc: object) -> None: ...

    async def write(self, fn: Callable[[Connection], T], *, learner: int | None = None) -> T:
        """Run fn(conn) in a write transaction; return once it is committed.

        `learner`: fn reads and writes back only that learner's own state, and changes what
        it shares with others in single statements computed in SQL (counters, ON CONFLICT):
        a backend may then run it holding that learner's lock instead of isolating it from
        every other transaction (bot.storage.learner_lock)."""
        ...

    async def read(self, fn: Callable[[Connection], T]) -> T:
        """Run a read-only fn(conn) on one committed snapshot."""
        ...

    async def fetchall(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        """The rows of one query."""
        ...

    async def fetchone(self, sql: str, params: Sequence[Any] = ()) -> Any:
        """The first row of one query, or None."""
        ...

    async def close(self) -> None:
        """Finish queued writes and close (idempotent)."""
        ...


class StorageError(Exception):
    """The database failed a statement or a transaction; nothing of it was saved."""


class DatabaseUnavailable(StorageError):
    """The database cannot be opened or brought up to date; str() is one line for the operator
    naming the database and the cause."""


class DatabaseBusy(StorageError):
    """Another connection held the write lock for longer than the busy timeout: the write did
    not happen. Callers that face a user say "busy, try again"."""
