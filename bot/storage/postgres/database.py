"""The PostgreSQL store: the port's `write(fn)` / `read(fn)` on a pool of psycopg connections.

Why psycopg 3 and not asyncpg: a transaction here is a plain sync function `fn(conn)` (the SQL
modules are sync code shared with SQLite). psycopg's sync connections run such a function as
it is, on a thread, one round trip per statement; asyncpg is async only, so every SQL module
would have to be rewritten as coroutines (or driven through a blocking bridge that costs what
asyncpg saves). psycopg also has a pool of its own (psycopg-pool) and the libpq URL syntax.

Safe behind PgBouncer in transaction mode: no session state is set after connecting, and
statements are never prepared on the server (`prepare_threshold=None`), since the next
transaction may get another server connection.

Write transactions take turns, as on SQLite: each locks the table `write_gate` first (in
every process on the database), and runs SERIALIZABLE. SQLite runs one writer at a time, and
the SQL modules' read-then-write transactions assume it. SERIALIZABLE alone would give the
same guarantee by failing one of two conflicting transactions, but transactions conflict far
more often than they truly overlap (SSI tracks reads by index page and locks small tables
whole), and under load from several processes writes failed after every retry. A conflict
that still happens (a writer outside the bot) runs the function again after a random pause
that doubles with each run (a transaction function changes nothing but the database, so
running it twice is safe), and DatabaseBusy when it keeps failing; each is logged with the
statement that met it. Reads run beside the writers, on a snapshot.

A write for one learner (`write(fn, learner=id)`, the answer path, the busiest) does not wait
for the gate: it runs READ COMMITTED after taking that learner's lock, so answers of different
learners commit in parallel. It stays correct because of what it does: what it reads and
writes back computed in Python is the learner's own (memory and misconception states, a held
choice), which the learner's lock keeps to one transaction at a time (bot.storage.learner_lock);
what it shares with other learners it changes in one statement, computed in SQL (the answer's
INSERT ... ON CONFLICT DO NOTHING, the summaries' and the bank's forgetting tally's counters as
ON CONFLICT DO UPDATE SET n = n + 1, which READ COMMITTED applies to the latest committed row,
never losing an increment). The lock comes first and the shared rows after the learner's, so
two answers cannot wait for each other in a cycle. Under SERIALIZABLE these transactions failed
each other although they touched different learners' rows: reading learner A's memory state
of a question and inserting learner B's, on the same index page, counts as a dependency.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import random
import time
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import psycopg
import psycopg_pool
from psycopg import errors as pg_errors

from bot.storage.learner_lock import lock_learner
from bot.storage.port import Connection, DatabaseBusy, DatabaseUnavailable, StorageError
from bot.storage.postgres.connection import CONFLICTS, PgConnection, configure
from bot.storage.postgres.migrations import apply_migrations

log = logging.getLogger(__name__)
T = TypeVar("T")
POOL_SIZE = 4  # threads that may hold a connection at once; the rest wait for one
RETRIES = 5  # runs of a write that keeps meeting a conflicting transaction
# The pause before run n+1 is uniform in [0, BACKOFF_S * 2**n], at most BACKOFF_CAP_S: a
# random share, so transactions that failed each other spread out instead of meeting again.
BACKOFF_S = 0.005
BACKOFF_CAP_S = 0.2
CONNECT_TIMEOUT_S = 10.0
_CONFLICTS = CONFLICTS


def safe_url(url: str) -> str:
    """The URL without its password, for messages."""
    info = psycopg.conninfo.conninfo_to_dict(url)
    host, db = info.get("host", "localhost"), info.get("dbname", "")
    return f"postgresql://{info.get('user', '')}@{host}:{info.get('port', 5432)}/{db}"


def storage_error(err: psycopg.Error) -> StorageError:
    """The port's error for a driver's (the driver's error stays its __cause__)."""
    if isinstance(err, (*_CONFLICTS, pg_errors.LockNotAvailable, pg_errors.QueryCanceled)):
        return DatabaseBusy(f"conflicting transactions: {err}")
    return StorageError(str(err).strip() or type(err).__name__)


def connect_kwargs() -> dict[str, Any]:
    """Connection options of every connection (pooled or blocking)."""
    return {"autocommit": True, "prepare_threshold": None}


def connect_blocking(url: str) -> Connection:
    """A configured blocking connection outside any store, autocommit like SQLite's."""
    try:
        conn = psycopg.connect(url, connect_timeout=int(CONNECT_TIMEOUT_S), **connect_kwargs())
    except psycopg.Error as err:
        raise DatabaseUnavailable(f"cannot use the database {safe_url(url)}: {err}") from err
    configure(conn)
    return PgConnection(conn, owned=True)


def prepare(url: str, default_timezone: str = "UTC") -> list[str]:
    """Connect, migrate and close; the migrations applied. DatabaseUnavailable on failure."""
    conn = connect_blocking(url)
    try:
        assert isinstance(conn, PgConnection)
        # A backfill counts a learner without a zone in the bot's default one.
        conn.raw.execute(
            "SELECT set_config('quizbot.default_timezone', %s, false)", (default_timezone,)
        )
        return apply_migrations(conn.raw)
    except psycopg.Error as err:
        raise DatabaseUnavailable(f"cannot use the database {safe_url(url)}: {err}") from err
    finally:
        conn.close()


class PgDatabase:
    """The bot's store on PostgreSQL: open() migrates; write()/read() run a function whole."""

    def __init__(
        self, url: str, *, default_timezone: str = "UTC", pool_size: int = POOL_SIZE
    ) -> None:
        self.url = url
        self.default_timezone = default_timezone
        # The server reports its own faults; a write that fails raises StorageError (health
        # reports what the server says).
        self.fault: str | None = None
        self._pool_size = pool_size
        self._pool: psycopg_pool.ConnectionPool[Any] | None = None

    async def open(self) -> None:
        """Connect and bring the schema up to date; DatabaseUnavailable when it cannot."""
        await asyncio.to_thread(prepare, self.url, self.default_timezone)
        pool: psycopg_pool.ConnectionPool[Any] = psycopg_pool.ConnectionPool(
            self.url,
            min_size=1,
            max_size=self._pool_size,
            kwargs=connect_kwargs(),
            configure=configure,
            open=False,
        )
        try:
            await asyncio.to_thread(pool.open, wait=True, timeout=CONNECT_TIMEOUT_S)
        except psycopg_pool.PoolTimeout as err:
            await asyncio.to_thread(pool.close)
            raise DatabaseUnavailable(f"cannot use the database {safe_url(self.url)}") from err
        self._pool = pool

    async def close(self) -> None:
        """Close the pool (idempotent); a running transaction finishes first."""
        pool, self._pool = self._pool, None
        if pool is not None:
            await asyncio.to_thread(pool.close)

    async def __aenter__(self) -> PgDatabase:
        await self.open()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    def _run(self, fn: Callable[[Connection], T], *, write: bool, learner: int | None) -> T:
        pool = self._pool
        if pool is None:
            raise RuntimeError("database is not open")
        if not write:
            level = "REPEATABLE READ, READ ONLY"
        elif learner is not None:
            level = "READ COMMITTED"  # why it is safe: the module's docstring
        else:
            level = "SERIALIZABLE"
        for attempt in range(RETRIES):
            try:
                with pool.connection() as conn, conn.transaction():
                    conn.execute(f"SET TRANSACTION ISOLATION LEVEL {level}")
                    pg = PgConnection(conn)
                    if learner is not None:
                        lock_learner(pg, learner)
                    elif write:
                        # Writers take turns (see the module docstring); LOCK is no query, so
                        # the snapshot starts after it, with every earlier write in view.
                        conn.execute("LOCK TABLE write_gate IN EXCLUSIVE MODE")
                    return fn(pg)
            except _CONFLICTS as err:
                statement = " ".join(getattr(err, "__notes__", ["?"])[-1:])
                if attempt == RETRIES - 1:
                    log.warning(
                        "transaction conflict (SQLSTATE %s) %d times, last at: %s",
                        err.sqlstate, RETRIES, statement,
                    )  # fmt: skip
                    raise storage_error(err) from err
                log.info(
                    "transaction conflict (SQLSTATE %s) at: %s; run %d again",
                    err.sqlstate, statement, attempt + 2,
                )  # fmt: skip
                time.sleep(random.uniform(0, min(BACKOFF_CAP_S, BACKOFF_S * 2**attempt)))
            except psycopg.Error as err:
                raise storage_error(err) from err
        raise AssertionError("unreachable")

    async def write(self, fn: Callable[[Connection], T], *, learner: int | None = None) -> T:
        """Run fn(conn) in a write transaction; return once it is committed. With `learner`:
        READ COMMITTED, holding that learner's lock (see the module's docstring)."""
        run = functools.partial(self._run, fn, write=True, learner=learner)
        return await asyncio.to_thread(run)

    async def read(self, fn: Callable[[Connection], T]) -> T:
        """Run a read-only fn(conn) on one snapshot."""
        run = functools.partial(self._run, fn, write=False, learner=None)
        return await asyncio.to_thread(run)

    async def fetchall(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        """The rows of one query."""
        return await self.read(lambda c: c.execute(sql, params).fetchall())

    async def fetchone(self, sql: str, params: Sequence[Any] = ()) -> Any:
        """The first row of one query, or None."""
        rows = await self.fetchall(sql, params)
        return rows[0] if rows else None
