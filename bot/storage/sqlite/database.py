"""The bot's SQLite store: one writer, and read connections beside it (WAL), all aiosqlite.

Writes: one aiosqlite connection, whose thread gets each transaction whole as a plain sync
function (`fn(conn)`, handed over by `aio.run`), so a transaction never interleaves with another
and each costs one round trip to the thread. That round trip dominates the cost of an answer,
hence the group commit below.

Reads never queue behind writes, nor writes behind reads: in WAL mode readers see the last
committed snapshot while the writer works. `read(fn)` runs a multi-statement read (a /stats, a
leaderboard) inside one read transaction on a small pool of reader connections (`readers.py`),
again one round trip; single queries (`fetchall`, `fetchone`) take a reader too.

Checkpoints are SQLite's own: the COMMIT that takes the WAL past `wal_autocheckpoint` pages
copies it into the database file. That commit, and the writes queued behind it, wait for the
checkpoint's syncs, tens of milliseconds at worst: less than a learner can notice beside
Telegram's own round trip, so no checkpoint thread of the bot's own is worth its code.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import os
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import aiosqlite

from bot.storage.port import DatabaseBusy, DatabaseUnavailable, StorageError
from bot.storage.sqlite import aio
from bot.storage.sqlite.migrations import apply_migrations
from bot.storage.sqlite.readers import ReaderPool
from bot.storage.sqlite.transactions import run_batch as run_batch
from bot.storage.sqlite.transactions import run_transaction as run_transaction

log = logging.getLogger(__name__)
T = TypeVar("T")
# Reader threads: enough that a slow read (a heavy /stats) leaves another for the next request;
# more would only contend for the GIL between SQLite calls.
READERS = 2


def _busy(err: BaseException) -> bool:
    text = str(err)
    return isinstance(err, sqlite3.OperationalError) and (
        "database is locked" in text or "database is busy" in text
    )


DISK_FULL = "disk full"
# A disk that ran full counts as full until it has this much room again.
STILL_FULL_BYTES = 1 << 20


def _free_bytes(path: Path) -> int:
    """Room left for the bot on the filesystem that holds `path`; when it cannot be told, a
    commit is taken at its word (room enough)."""
    try:
        stat = os.statvfs(path.parent)
    except OSError:
        return STILL_FULL_BYTES
    return stat.f_bavail * stat.f_frsize


def fault_kind(err: BaseException) -> str | None:
    """What kind of storage fault a failed write shows (None: not one that lasts, such as a
    lock held elsewhere or a constraint a caller broke)."""
    text = str(err).lower()
    for needle, kind in (
        ("disk is full", DISK_FULL),
        ("readonly", "read-only"),
        ("read-only", "read-only"),
        ("disk i/o error", "I/O error"),
        ("malformed", "corrupt"),
        ("not a database", "corrupt"),
        ("replaced or deleted", "file replaced"),
    ):
        if needle in text:
            return kind
    return None


def storage_error(err: sqlite3.Error) -> StorageError:
    """The port's error for a driver's (the driver's error stays its __cause__)."""
    if _busy(err):
        return DatabaseBusy(f"write lock held elsewhere: {err}")
    return StorageError(str(err) or type(err).__name__)


def open_failure(path: Path, err: BaseException) -> DatabaseUnavailable:
    """Name the file and say why it cannot be used, in words an operator can act on."""
    text = str(err)
    if path.is_dir():
        cause = "it is a directory, not a SQLite file"
    elif "not a database" in text:
        cause = "not a SQLite database (corrupt or another kind of file)"
    elif "readonly" in text or "read-only" in text.lower():
        cause = "read-only (file or filesystem): the bot must be able to write it"
    elif "unable to open" in text:
        cause = "cannot open or create the file (does its folder exist, may the bot write there?)"
    elif isinstance(err, OSError):
        cause = f"{err.strerror or text} ({type(err).__name__})"
    else:
        cause = text or type(err).__name__
    return DatabaseUnavailable(f"cannot use the database {path}: {cause}")


def prepare(path: Path | str, default_timezone: str = "UTC") -> list[str]:
    """Open, configure and migrate the database at `path`, then close it; the migrations it
    applied. Raises DatabaseUnavailable (nothing else) when the file cannot be used.
    `default_timezone`: the zone of learners and chats that set none (backfills need it)."""
    path = Path(path)
    conn: sqlite3.Connection | None = None
    try:
        conn = connect_sync(path)
        return apply_migrations(conn, default_timezone)
    except (sqlite3.Error, OSError) as err:
        raise open_failure(path, err) from err
    finally:
        if conn is not None:
            conn.close()


@contextlib.contextmanager
def read_only(path: Path | str, timeout_s: float = 5.0) -> Iterator[sqlite3.Connection]:
    """A read-only connection of its own (a report, a health check), so a long read never
    holds up the bot's writes; StorageError when the file cannot be read. No file is created:
    connecting to a missing path would make an empty database."""
    db = Path(path)
    try:
        conn = sqlite3.connect(
            f"{db.resolve().as_uri()}?mode=ro", uri=True, isolation_level=None, timeout=timeout_s
        )
    except sqlite3.Error as err:
        raise storage_error(err) from err
    try:
        conn.row_factory = sqlite3.Row
        yield conn
    except sqlite3.Error as err:
        raise storage_error(err) from err
    finally:
        conn.close()


def quick_check(conn: sqlite3.Connection) -> list[str]:
    """SQLite's quick_check: ["ok"], or what it found damaged."""
    found: list[str] = []
    try:
        for row in conn.execute("PRAGMA quick_check"):
            found.append(str(row[0]))
    except sqlite3.DatabaseError as err:
        # Some damage (a page header overwritten) stops the check with an error instead of a
        # row: that error is what it found, not a failure of the check.
        code = getattr(err, "sqlite_errorcode", 0) & 0xFF
        if code not in (sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB):
            raise
        found.append(str(err))
    return found


def file_identity(path: Path | str) -> str | None:
    """The file at `path` as "device:inode" (None when there is none): another file put there
    (a restore copied over it) or none at all (deleted) is a different identity."""
    try:
        stat = os.stat(path)
    except OSError:
        return None
    return f"{stat.st_dev}:{stat.st_ino}"


def configure(conn: sqlite3.Connection) -> None:
    """Pragmas every connection gets: WAL, foreign keys, a busy timeout."""
    conn.row_factory = sqlite3.Row
    conn.execute("PRAGMA journal_mode=WAL")
    # NORMAL in WAL mode survives an application crash (kill -9), not a power cut; FULL
    # would double the cost of every commit for the power-cut case only.
    conn.execute("PRAGMA synchronous=NORMAL")
    conn.execute("PRAGMA foreign_keys=ON")
    conn.execute("PRAGMA busy_timeout=5000")


# SQLite's automatic checkpoint at its default size; a WAL started over after one is cut back
# to that size on disk, so a burst (planning a large daily push) leaves no large file behind.
AUTOCHECKPOINT_PAGES = 1_000


def configure_writer(conn: sqlite3.Connection) -> None:
    """The writer's WAL size: checkpointed at AUTOCHECKPOINT_PAGES, kept at most that big."""
    page = int(conn.execute("PRAGMA page_size").fetchone()[0])
    conn.execute(f"PRAGMA wal_autocheckpoint = {AUTOCHECKPOINT_PAGES}")
    conn.execute(f"PRAGMA journal_size_limit = {AUTOCHECKPOINT_PAGES * page}")


def create_private(path: Path) -> None:
    """Create the database file (and its folder) readable by its owner only, when missing: it
    holds learners' names and answers. SQLite gives its -wal and -shm files the database
    file's permissions."""
    if not path.parent.exists():
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    with contextlib.suppress(FileExistsError):
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))


def connect_sync(path: Path | str) -> sqlite3.Connection:
    """A configured blocking connection (CLI tools, migrations, tests)."""
    create_private(Path(path))
    conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    try:
        configure(conn)
    except BaseException:
        conn.close()  # "file is not a database" shows up here, at the first statement
        raise
    return conn


class Database:
    """The bot's store: open() applies migrations; write()/read() run a function in one go.

    Writes that arrive while another is on its way to SQLite are committed together in the
    next transaction (group commit): under load many answers share one commit and one round
    trip, and none is acknowledged before its transaction is durable.
    """

    def __init__(
        self,
        path: Path | str,
        *,
        default_timezone: str = "UTC",
        durability: str = "normal",
    ) -> None:
        self.path = Path(path)
        # FULL syncs the WAL at every commit: a commit then survives a power cut too.
        self.synchronous = "FULL" if durability == "full" else "NORMAL"
        self.default_timezone = default_timezone  # for backfills of per-zone summaries
        self._writer: aiosqlite.Connection | None = None
        self._queue: list[tuple[Callable[[sqlite3.Connection], Any], asyncio.Future[Any]]] = []
        self._flusher: asyncio.Task[None] | None = None
        self._readers: ReaderPool | None = None
        # The file opened (device, inode): a file deleted or replaced under the bot would
        # otherwise take writes that no restart finds.
        self._identity: tuple[int, int] | None = None
        # The kind of the last write failure that lasts (a full disk, a replaced file), None
        # once a write commits again: health reports it.
        self.fault: str | None = None

    async def open(self) -> None:
        """Connect, set pragmas and bring the schema up to date; DatabaseUnavailable if the
        file cannot be used (the connection and its thread are closed again first)."""
        try:
            create_private(self.path)
            self._writer = await aio.connect(self.path, configure)
            applied = await self.call(
                functools.partial(apply_migrations, default_timezone=self.default_timezone)
            )
        except (sqlite3.Error, OSError) as err:
            # A half-open store must not keep its thread: a process whose start failed has
            # to exit, so that a supervisor's restart-on-failure sees the failure.
            await self.close()
            raise open_failure(self.path, err) from err
        if applied:
            log.info("database %s: applied migrations %s", self.path, ", ".join(applied))
        try:
            await self.call(configure_writer)
            await self.call(lambda c: c.execute(f"PRAGMA synchronous={self.synchronous}"))
            self._readers = await ReaderPool.open(self.path, READERS, configure)
            # On the writer, outside a transaction: in a reader's snapshot SQLite would report
            # the damage again at its COMMIT, as an error instead of a finding.
            found = await self.call(quick_check)
        except BaseException:
            await self.close()  # as above: a store that did not open keeps no thread
            raise
        if found != ["ok"]:
            log.error(
                "database %s: quick_check found damage (restore a backup): %s",
                self.path, "; ".join(found[:5]),
            )  # fmt: skip
        stat = os.stat(self.path)
        self._identity = (stat.st_dev, stat.st_ino)

    async def close(self) -> None:
        """Finish queued writes, then close the connections (idempotent). Every step runs even
        when one before it failed (a full disk, a lock held elsewhere): a connection left open
        keeps its thread, and the process, alive."""
        readers, self._readers = self._readers, None
        writer, self._writer = self._writer, None
        flusher = self._flusher
        steps = [
            flusher if flusher is not None and not flusher.done() else None,
            readers.close() if readers is not None else None,
            writer.close() if writer is not None else None,
        ]
        failures = []
        for step in steps:
            if step is None:
                continue
            try:
                await step
            except Exception as err:
                failures.append(err)
        if failures:
            raise failures[0]

    async def __aenter__(self) -> Database:
        await self.open()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def call(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        """Run fn(conn) on the writer's thread, outside any explicit transaction."""
        if self._writer is None:
            raise RuntimeError("database is not open")
        return await aio.run(self._writer, fn)

    async def write(
        self, fn: Callable[[sqlite3.Connection], T], *, learner: int | None = None
    ) -> T:
        """Run fn(conn) in a write transaction; returns once that transaction is committed.
        `learner` changes nothing here: one writer at a time already serializes a learner's
        transactions."""
        future: asyncio.Future[T] = asyncio.get_running_loop().create_future()
        self._queue.append((fn, future))
        if self._flusher is None or self._flusher.done():
            # A task of its own, so a caller cancelled mid-write cannot strand the others.
            self._flusher = asyncio.create_task(self._flush())
        try:
            return await future
        except sqlite3.Error as err:
            raise storage_error(err) from err

    async def _flush(self) -> None:
        while self._queue:
            batch, self._queue = self._queue, []
            fns = [fn for fn, _ in batch]
            try:
                self._check_identity()
                results, wrote = await self.call(functools.partial(_run_counted, fns=fns))
            except BaseException as err:
                self._note_fault(err)
                for _, future in batch:
                    if not future.done():
                        future.set_exception(err)
                if not isinstance(err, Exception):
                    raise
                continue
            failed = [value for ok, value in results if not ok]
            if failed and len(failed) == len(results):
                self._note_fault(failed[0])
            elif wrote:
                # Only a commit that changed rows shows there is room again: one that changed
                # nothing (a planning run with nothing due) needs no new page.
                self._note_fault(None)
            for (_, future), (ok, value) in zip(batch, results, strict=True):
                if future.done():
                    continue
                if ok:
                    future.set_result(value)
                else:
                    future.set_exception(value)

    def _check_identity(self) -> None:
        try:
            stat = os.stat(self.path)
            same = (stat.st_dev, stat.st_ino) == self._identity
        except OSError:
            same = False
        if self._identity is not None and not same:
            raise sqlite3.OperationalError(
                f"the database file {self.path} was replaced or deleted while the bot ran; "
                "no answer is taken until it is restarted on the right file"
            )

    def _note_fault(self, err: BaseException | None) -> None:
        """A batch committed (None) or failed with `err`: a fault that lasts is kept until a
        commit; one that does not (a lock, a caller's constraint) changes nothing."""
        if err is None:
            if self.fault is None:
                return
            if self.fault == DISK_FULL and _free_bytes(self.path) < STILL_FULL_BYTES:
                # A small write found room in pages the file already had: the disk is still
                # full, and the next write that needs a page will fail again.
                return
            log.warning("database %s: writes succeed again after: %s", self.path, self.fault)
            self.fault = None
            return
        kind = fault_kind(err)
        if kind is not None and kind != self.fault:
            log.error("database %s: %s: %s", self.path, kind, err)
            self.fault = kind

    async def read(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        """Run a read-only fn(conn) on a reader connection; it sees one committed snapshot
        (everything committed before the call, never a write in progress)."""
        readers = self._readers
        if readers is None:
            raise RuntimeError("database is not open")
        try:
            return await readers.run(fn)
        except sqlite3.Error as err:
            raise storage_error(err) from err

    async def fetchall(self, sql: str, params: Any = ()) -> list[sqlite3.Row]:
        """Rows of one query (on a reader connection)."""
        return await self.read(lambda c: list(c.execute(sql, params).fetchall()))

    async def fetchone(self, sql: str, params: Any = ()) -> sqlite3.Row | None:
        """First row of one query, or None."""
        rows = await self.fetchall(sql, params)
        return rows[0] if rows else None


def _run_counted(
    conn: sqlite3.Connection, fns: list[Callable[[sqlite3.Connection], Any]]
) -> tuple[list[tuple[bool, Any]], bool]:
    """`run_batch`, and whether it changed any row."""
    before = conn.total_changes
    results = run_batch(conn, fns)
    return results, conn.total_changes > before
