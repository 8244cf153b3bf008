"""The PostgreSQL store against a real server: the port's Connection shape, errors, conflicts
retried, and SQL modules giving the same results as on SQLite."""

from __future__ import annotations

import asyncio
import datetime as dt
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from bot.cli import main
from bot.config import load_settings
from bot.learning.memory import Answer, review
from bot.storage import learning_sql, practice_sql
from bot.storage.factory import connect_blocking, open_database, prepare_database
from bot.storage.port import Connection, DatabaseUnavailable, StorageError, Store
from bot.storage.postgres.database import PgDatabase
from bot.storage.postgres.sql_text import to_psycopg

T0 = 1_800_000_000.0
BIG_ID = 7_000_000_001  # Telegram ids exceed 32 bits


def test_placeholders_outside_literals_become_psycopg_style() -> None:
    sql = (
        "SELECT '?', \"a?\" FROM t WHERE a = ? AND b LIKE 'x%' AND c = :bank -- ? %\n"
        " AND d::int = ?"
    )
    assert to_psycopg(sql) == (
        "SELECT '?', \"a?\" FROM t WHERE a = %s AND b LIKE 'x%%' AND c = %(bank)s -- ? %%\n"
        " AND d::int = %s"
    )


@pytest.fixture
async def pg(pg_url: str) -> AsyncIterator[Store]:
    async with open_database(pg_url) as db:
        yield db


@pytest.fixture
async def lite(tmp_path: Path) -> AsyncIterator[Store]:
    async with open_database(f"sqlite:///{tmp_path / 'q.sqlite3'}") as db:
        yield db


async def test_factory_selects_postgres_by_url(pg: Store) -> None:
    assert isinstance(pg, PgDatabase)


async def test_rows_by_position_and_name_and_plain_tuples(pg: Store) -> None:
    def work(conn: Connection) -> tuple[Any, ...]:
        cur = conn.executemany(
            "INSERT INTO bot_status (key, value, updated_at) VALUES (?, ?, ?)",
            [("a", "1", T0), ("b", "2", T0)],
        )
        changed = conn.execute("UPDATE bot_status SET value = value || '!'").rowcount
        row = conn.execute("SELECT key, value FROM bot_status WHERE key = ?", ("a",)).fetchone()
        plain = conn.cursor()
        plain.row_factory = None
        tuples = plain.execute("SELECT key, value FROM bot_status ORDER BY key").fetchall()
        return cur.rowcount, changed, row[0], row["value"], row.keys(), tuples

    many, changed, key, value, keys, tuples = await pg.write(work)
    assert (many, changed, key, value, keys) == (2, 2, "a", "1!", ["key", "value"])
    assert tuples == [("a", "1!"), ("b", "2!")] and type(tuples[0]) is tuple
    assert await pg.fetchone("SELECT value FROM bot_status WHERE key = ?", ("x",)) is None


async def test_sums_and_flags_come_back_as_sqlite_gives_them(pg: Store, lite: Store) -> None:
    sql = "SELECT SUM(x), AVG(x), ? FROM (SELECT 1 AS x UNION ALL SELECT 2) t"
    assert tuple(await pg.fetchone(sql, (True,))) == tuple(await lite.fetchone(sql, (True,)))
    assert tuple(await pg.fetchone(sql, (True,))) == (3, 1.5, 1)


async def test_a_failed_statement_is_a_storage_error_and_saves_nothing(pg: Store) -> None:
    def twice(conn: Connection) -> None:
        conn.execute("INSERT INTO bot_status VALUES ('k', 'v', 0)")
        conn.execute("INSERT INTO bot_status VALUES ('k', 'v', 0)")

    with pytest.raises(StorageError, match="duplicate key"):
        await pg.write(twice)
    assert await pg.fetchall("SELECT * FROM bot_status") == []


async def test_conflicting_read_then_write_transactions_all_count(pg_url: str) -> None:
    # Each reads the counter and writes it back plus one: SQLite's single writer makes that
    # safe, and PostgreSQL's SERIALIZABLE with a rerun of the loser keeps it so.
    async with PgDatabase(pg_url, pool_size=4) as db:
        await db.write(lambda c: c.execute("INSERT INTO bot_status VALUES ('n', '0', 0)"))

        def bump(conn: Connection) -> None:
            (n,) = conn.execute("SELECT value FROM bot_status WHERE key = 'n'").fetchone()
            conn.execute("UPDATE bot_status SET value = ? WHERE key = 'n'", (str(int(n) + 1),))

        await asyncio.gather(*(db.write(bump) for _ in range(12)))
        assert (await db.fetchone("SELECT value FROM bot_status"))[0] == "12"


def test_a_server_that_is_not_there_is_unavailable(pg_url: str) -> None:
    url = pg_url.rsplit("/", 1)[0] + "/no_such_database"
    with pytest.raises(DatabaseUnavailable, match="no_such_database"):
        prepare_database(url)


def test_quizbot_migrate_on_a_fresh_database_applies_the_baseline(
    pg_url: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    conn = connect_blocking(pg_url)
    try:
        conn.execute("CREATE DATABASE fresh_one")
    finally:
        conn.close()
    # The server trusts every local login: the password is there to be kept out of the output.
    fresh = pg_url.replace("postgres@", "postgres:s3cret@").rsplit("/", 1)[0] + "/fresh_one"
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("QUIZBOT_DB", fresh)
    assert load_settings().db == fresh
    assert main(["migrate"]) == 0
    assert main(["migrate"]) == 0
    out = capsys.readouterr().out
    assert "migrations\n  0000_baseline" in out and "up to date" in out
    assert "s3cret" not in out and "postgresql://postgres@127.0.0.1:" in out


async def both(pg: Store, lite: Store, fn: Callable[[Connection], Any]) -> tuple[Any, Any]:
    """fn's result written on each backend."""
    return await pg.write(fn), await lite.write(fn)


def _delivery(conn: Connection) -> Any:
    did = practice_sql.insert_delivery(
        conn, chat_id=BIG_ID, user_id=BIG_ID, bank_id="b", question_id="q1",
        source=practice_sql.Source.QUIZ, now=T0, option_order="2,0,1",
    )  # fmt: skip
    practice_sql.set_delivery_message(conn, did, 42)
    return practice_sql.delivery_record(conn, did)


async def test_deliveries_read_back_alike(pg: Store, lite: Store) -> None:
    on_pg, on_lite = await both(pg, lite, _delivery)
    assert on_pg == on_lite and on_pg.id == 1 and on_pg.chat_id == BIG_ID


def _chat_and_totals(conn: Connection) -> Any:
    practice_sql.upsert_chat(conn, -BIG_ID, "group", "Team", T0)
    conn.execute("UPDATE chats SET active = 0")
    practice_sql.upsert_chat(conn, -BIG_ID, "supergroup", "Team 2", T0 + 1)
    conn.execute("INSERT INTO learner_topics VALUES (?, 'b', 't1', 3, 2), (?, 'b', 't2', 1, 0)",
                 (BIG_ID, BIG_ID))  # fmt: skip
    chat = tuple(conn.execute("SELECT * FROM chats").fetchone())
    return (
        chat,
        practice_sql.topic_totals(conn, BIG_ID, "b"),
        practice_sql.bank_totals(conn, BIG_ID),
    )


async def test_chats_and_totals_alike(pg: Store, lite: Store) -> None:
    on_pg, on_lite = await both(pg, lite, _chat_and_totals)
    assert on_pg == on_lite
    assert on_pg[0][1:4] == ("supergroup", "Team 2", 1) and len(on_pg[1]) == 2


async def test_memory_states_save_and_load_alike(pg: Store, lite: Store) -> None:
    at = dt.datetime.fromtimestamp(T0, dt.UTC)
    first = review(None, Answer("q1", at, True))
    second = review(first, Answer("q1", at + dt.timedelta(days=3), False))

    def work(conn: Connection) -> Any:
        learning_sql.save_memory(conn, BIG_ID, "b", "q1", first)
        learning_sql.save_memory(conn, BIG_ID, "b", "q2", first)
        saved = learning_sql.save_memory(conn, BIG_ID, "b", "q1", second)
        return saved, learning_sql.memory_states(conn, BIG_ID, "b")

    (pg_saved, pg_all), (lite_saved, lite_all) = await both(pg, lite, work)
    assert pg_saved == lite_saved and pg_all == lite_all
    assert pg_all["q1"] == pg_saved and set(pg_all) == {"q1", "q2"}


async def test_streak_runs_kept_alike_by_the_triggers(pg: Store, lite: Store) -> None:
    days = ["2026-03-01", "2026-03-02", "2026-03-04", "2026-02-27", "2026-03-03", "2026-02-28"]

    def work(conn: Connection) -> list[tuple[Any, ...]]:
        seen = []
        for day in days:
            conn.execute("INSERT INTO learner_days VALUES (?, ?, 1)", (BIG_ID, day))
            seen.append(tuple(conn.execute("SELECT * FROM learner_runs").fetchone()))
        for day in ["2026-03-04", "2026-03-01", "2026-02-27", "2026-02-28", "2026-03-03"]:
            conn.execute("DELETE FROM learner_days WHERE local_date = ?", (day,))
            seen.append(tuple(conn.execute("SELECT * FROM learner_runs").fetchone() or ()))
        return seen

    on_pg, on_lite = await both(pg, lite, work)
    assert on_pg == on_lite
    assert on_pg[4] == (BIG_ID, "2026-03-01", "2026-03-04")
    assert on_pg[5] == (BIG_ID, "2026-02-27", "2026-03-04")


async def test_memory_states_are_read_again_after_any_change_alike(pg: Store, lite: Store) -> None:
    at = dt.datetime.fromtimestamp(T0, dt.UTC)
    first = review(None, Answer("q1", at, True))

    def work(conn: Connection) -> Any:
        learning_sql.save_memory(conn, BIG_ID + 1, "b", "q1", first)
        learning_sql.save_memory(conn, BIG_ID + 1, "b", "q2", first)
        before = learning_sql.memory_states(conn, BIG_ID + 1, "b")
        version = learning_sql.memory_version(conn, BIG_ID + 1, "b")
        conn.execute("UPDATE memory_states SET reps = 7 WHERE user_id = ? AND question_id = 'q1'",
                     (BIG_ID + 1,))  # fmt: skip
        changed = learning_sql.memory_states(conn, BIG_ID + 1, "b")
        conn.execute("DELETE FROM memory_states WHERE user_id = ? AND question_id = 'q2'",
                     (BIG_ID + 1,))  # fmt: skip
        left = learning_sql.memory_states(conn, BIG_ID + 1, "b")
        moved = learning_sql.memory_version(conn, BIG_ID + 1, "b") != version
        return set(before), changed["q1"].reps, set(left), moved

    pg_got, lite_got = await both(pg, lite, work)
    assert pg_got == lite_got == ({"q1", "q2"}, 7, {"q1"}, True)
