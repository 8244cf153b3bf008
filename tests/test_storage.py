"""The store: pragmas, migrations applied once, and group commit that keeps writes apart."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from bot.storage.port import StorageError
from bot.storage.sqlite.database import Database, connect_sync, run_batch
from bot.storage.sqlite.migrations import available


async def test_pragmas_and_migrations_applied_once(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite3"
    async with Database(path) as db:
        assert (await db.fetchone("PRAGMA journal_mode"))[0] == "wal"  # type: ignore[index]
        assert (await db.fetchone("PRAGMA foreign_keys"))[0] == 1  # type: ignore[index]
        names = [r[0] for r in await db.fetchall("SELECT name FROM schema_migrations")]
    assert names == [name for name, _ in available()]
    async with Database(path) as db:  # a second start applies nothing new
        again = [r[0] for r in await db.fetchall("SELECT name FROM schema_migrations")]
    assert again == names


async def test_concurrent_writes_share_commits_but_not_failures(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite3"
    async with Database(path) as db:
        await db.write(lambda c: c.execute("CREATE TABLE t (k INTEGER PRIMARY KEY)"))

        def insert(k: int) -> Callable[[sqlite3.Connection], int]:
            def fn(conn: sqlite3.Connection) -> int:
                conn.execute("INSERT INTO t (k) VALUES (?)", (k,))
                if k % 10 == 0:
                    conn.execute("INSERT INTO t (k) VALUES (?)", (k + 1,))  # then fail
                    raise ValueError(f"refused {k}")
                return k

            return fn

        results = await asyncio.gather(
            *(db.write(insert(k)) for k in range(0, 200, 2)), return_exceptions=True
        )
        failed = [r for r in results if isinstance(r, ValueError)]
        assert sorted(str(e) for e in failed) == sorted(f"refused {k}" for k in range(0, 200, 10))
        rows = {r[0] for r in await db.fetchall("SELECT k FROM t")}
    # A failing write left nothing behind (not even its first insert); the others all landed.
    assert rows == {k for k in range(0, 200, 2) if k % 10 != 0}


def test_a_batch_takes_savepoints_only_to_undo_one_failed_write(tmp_path: Path) -> None:
    conn = connect_sync(tmp_path / "b.sqlite3")
    conn.execute("CREATE TABLE t (k INTEGER PRIMARY KEY)")
    statements: list[str] = []
    conn.set_trace_callback(statements.append)
    runs: list[int] = []

    def insert(k: int) -> Callable[[sqlite3.Connection], int]:
        def fn(c: sqlite3.Connection) -> int:
            runs.append(k)
            c.execute("INSERT INTO t (k) VALUES (?)", (k,))
            if k == 3:
                raise ValueError("refused")
            return c.execute("SELECT COUNT(*) FROM t").fetchone()[0]

        return fn

    assert run_batch(conn, [insert(k) for k in (1, 2)]) == [(True, 1), (True, 2)]
    assert not [s for s in statements if "SAVEPOINT" in s]
    runs.clear()
    out = run_batch(conn, [insert(k) for k in (10, 3, 11)])
    # Rolled back and run again in savepoints: the write before the failed one ran twice,
    # the failed one once; its insert went, the others' results are those committed.
    assert runs == [10, 3, 10, 11]
    assert [ok for ok, _ in out] == [True, False, True] and str(out[1][1]) == "refused"
    assert (out[0][1], out[2][1]) == (3, 4)
    assert [r[0] for r in conn.execute("SELECT k FROM t ORDER BY k")] == [1, 2, 10, 11]
    assert not conn.in_transaction


async def test_a_failed_write_does_not_poison_the_next(tmp_path: Path) -> None:
    async with Database(tmp_path / "s.sqlite3") as db:
        with pytest.raises(StorageError, match="no such table"):
            await db.write(lambda c: c.execute("INSERT INTO nowhere VALUES (1)"))
        assert await db.write(lambda c: c.execute("SELECT 41 + 1").fetchone()[0]) == 42


async def test_a_failed_commit_leaves_no_transaction_open(tmp_path: Path) -> None:
    async with Database(tmp_path / "s.sqlite3") as db:
        await db.call(
            lambda c: c.executescript(
                "CREATE TABLE p (id INTEGER PRIMARY KEY);"
                " CREATE TABLE ch (p INTEGER REFERENCES p (id) DEFERRABLE INITIALLY DEFERRED);"
            )
        )
        # The deferred foreign key is only checked at COMMIT, which therefore fails.
        with pytest.raises(StorageError, match="FOREIGN KEY") as caught:
            await db.write(lambda c: c.execute("INSERT INTO ch (p) VALUES (99)"))
        # The driver's error stays the cause, for the log.
        assert isinstance(caught.value.__cause__, sqlite3.IntegrityError)
        assert await db.write(lambda c: c.execute("INSERT INTO p (id) VALUES (1)").rowcount) == 1
        assert await db.fetchall("SELECT p FROM ch") == []


def test_chat_migration_lists_every_table_keyed_by_chat(tmp_path: Path) -> None:
    """A migration that adds a table with a chat_id column must add it to CHAT_KEYED_TABLES,
    or an upgraded group would leave those rows behind under its old id."""
    from bot.storage.chat_migration import CHAT_KEYED_TABLES, MERGED_WITH_CHAT, MOVED_WITH_CHAT
    from bot.storage.sqlite.database import connect_sync
    from bot.storage.sqlite.migrations import apply_migrations

    conn = connect_sync(tmp_path / "m.sqlite3")
    try:
        apply_migrations(conn)
        tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        keyed = {
            t
            for t in tables
            if "chat_id" in {c[1] for c in conn.execute(f'PRAGMA table_info("{t}")')}
        }
    finally:
        conn.close()
    assert keyed == set(CHAT_KEYED_TABLES) | set(MOVED_WITH_CHAT) | set(MERGED_WITH_CHAT)
