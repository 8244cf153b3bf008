"""`quizbot play --jsonl` with requests sent together: served in one transaction (group
commit), with the same replies and the same stored rows as one at a time."""

from __future__ import annotations

import io
import json
import random
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from bot.commands.jsonl import JsonlSession
from bot.commands.jsonl_io import answer_batch, play_jsonl, request_batches
from bot.practice.clock import FakeClock
from bot.practice.readiness_service import ReadinessService
from bot.practice.service import PracticeService
from bot.storage.db import connect_sync
from bot.storage.inline_db import BatchFailed, InlineDatabase
from bot.storage.memory_cache import MemoryCache
from tests.test_play_jsonl import START, demo_catalog

ROWS = {
    "answers": "delivery_id, user_id, question_id, chosen, correct, answered_at, confidence",
    "deliveries": "id, user_id, question_id, source, sent_at, option_order, version",
    "memory_states": "*",
    "misconception_states": "*",
    "users": "id, bank_id, topic, seen_at",
    "exam_dates": "*",
}


def conversation() -> list[str]:
    """Requests whose ids are known in advance (deliveries count up from 1 on a fresh file),
    with errors, answers in the same batch as their question, and repeats."""
    rng = random.Random(3)
    lines: list[str] = []
    for i in range(60):
        user = 1 + i % 4
        lines.append(json.dumps({"cmd": "next", "user": user}))
        delivery = i + 1
        chosen = [0] if rng.random() < 0.7 else [0, 1]  # a wrong count leaves it open
        answer = {"cmd": "answer", "user": user, "delivery": delivery, "chosen": chosen}
        lines.append(json.dumps(answer))
        if i % 9 == 0:
            lines.append(json.dumps(answer))  # already answered (or still open)
        if i % 11 == 0:
            lines += ['{"cmd": "advance", "seconds": 86400}', "not json", '{"cmd": "fly"}']
        if i % 13 == 0:
            lines.append(json.dumps({"cmd": "answer", "user": user + 1, "delivery": delivery}))
        if i == 20:
            lines.append('{"cmd": "topic", "user": 2, "topic": "beta"}\r')
            lines.append('{"cmd": "exam_date", "user": 3, "date": "2027-03-01"}')
    lines.append('{"cmd": "stats", "user": 1, "note": "a\u2028line separator inside"}')
    lines.append('{"cmd": "readiness", "user": 2}')
    return lines


def stored(path: Path) -> dict[str, list[tuple[object, ...]]]:
    with sqlite3.connect(path) as conn:
        return {
            t: conn.execute(f"SELECT {c} FROM {t} ORDER BY 1, 2").fetchall()
            for t, c in ROWS.items()
        }


async def test_lines_sent_together_get_what_lines_sent_one_by_one_get(tmp_path: Path) -> None:
    lines = conversation()
    text = "\n".join(lines)  # the last line without a newline
    one_by_one = io.StringIO()  # no file descriptor: a line at a time
    await play_jsonl(
        demo_catalog(), tmp_path / "a.sqlite3", None, 1, START, io.StringIO(text), one_by_one
    )
    (tmp_path / "requests.jsonl").write_text(text, encoding="utf-8")
    with (tmp_path / "requests.jsonl").open(encoding="utf-8") as stdin:
        batches = list(request_batches(stdin))
    # A file: everything is already there; the last line, without a newline, comes at EOF.
    assert [len(b) for b in batches] == [len(lines) - 1, 1]
    together = io.StringIO()
    with (tmp_path / "requests.jsonl").open(encoding="utf-8") as stdin:
        await play_jsonl(demo_catalog(), tmp_path / "b.sqlite3", None, 1, START, stdin, together)
    assert together.getvalue() == one_by_one.getvalue()
    replies = [json.loads(r) for r in together.getvalue().splitlines()]
    assert len(replies) == len(lines)
    kinds = {r["type"] for r in replies}
    assert {"question", "verdict", "error", "clock", "ok", "stats", "readiness"} <= kinds
    assert sum(r.get("already", False) for r in replies) >= 3
    assert stored(tmp_path / "b.sqlite3") == stored(tmp_path / "a.sqlite3")


def insert(n: int, fail: bool = False) -> Callable[[sqlite3.Connection], None]:
    """A write of n into table t that raises after it when `fail`."""

    def go(conn: sqlite3.Connection) -> None:
        conn.execute("INSERT INTO t VALUES (?)", (n,))
        if fail:
            raise ValueError(n)

    return go


async def test_a_failing_write_undoes_only_its_own_work_in_a_batch(tmp_path: Path) -> None:
    async with InlineDatabase(tmp_path / "s.sqlite3") as db:
        await db.call(lambda c: c.execute("CREATE TABLE t (n INTEGER)"))

        with db.batch():
            await db.write(insert(1))
            with pytest.raises(ValueError):
                await db.write(insert(2, fail=True))
            await db.write(insert(3))
            seen = await db.read(lambda c: c.execute("SELECT n FROM t").fetchall())
            assert [n for (n,) in seen] == [1, 3]  # later requests see earlier ones
            other = connect_sync(db.path)
            assert other.execute("SELECT COUNT(*) FROM t").fetchone()[0] == 0  # not yet
        assert [n for (n,) in other.execute("SELECT n FROM t ORDER BY n")] == [1, 3]
        other.close()


async def test_a_batch_that_cannot_start_gets_busy_replies_then_the_program_goes_on(
    tmp_path: Path,
) -> None:
    catalog = demo_catalog()
    async with InlineDatabase(tmp_path / "s.sqlite3") as db:
        await db.call(lambda c: c.execute("PRAGMA busy_timeout=50"))
        clock = FakeClock(START)
        service = PracticeService(
            db, catalog, clock=clock, rng=random.Random(1), memory_cache=MemoryCache()
        )
        session = JsonlSession(
            service, ReadinessService(db, catalog, clock=clock), catalog.bank(None), clock
        )
        lines = ['{"cmd": "next"}', '{"cmd": "answer", "delivery": 1, "chosen": [0]}']
        assert [r["type"] for r in await answer_batch(session, db, lines)] == [
            "question",
            "verdict",
        ]
        other = connect_sync(db.path)
        other.execute("BEGIN IMMEDIATE")  # another process holds the write lock
        lines = ['{"cmd": "next"}', '{"cmd": "advance", "seconds": 60}']
        busy = await answer_batch(session, db, lines)
        assert [r["type"] for r in busy] == ["error", "error"]
        assert "busy" in busy[0]["message"]
        other.execute("ROLLBACK")
        other.close()
        again = await answer_batch(session, db, lines)
        assert [r["type"] for r in again] == ["question", "clock"]
        assert again[0]["delivery"] == 2


async def test_a_write_that_fails_in_a_batch_loses_only_its_own_request(tmp_path: Path) -> None:
    """The batch runs without savepoints until a write raises; then it is served again with
    them, from the same random state and clock, so replies and rows are what lines sent one at
    a time get."""
    lines = conversation()
    text = "\n".join(lines) + "\n"
    (tmp_path / "requests.jsonl").write_text(text, encoding="utf-8")
    outs: list[str] = []
    for name in ("one-by-one", "together"):
        path = tmp_path / f"{name}.sqlite3"
        async with InlineDatabase(path):
            pass  # the schema
        with sqlite3.connect(path) as conn:
            conn.execute(
                "CREATE TRIGGER boom BEFORE INSERT ON answers WHEN NEW.delivery_id IN (5, 6, 31)"
                " BEGIN SELECT RAISE(ABORT, 'boom'); END"
            )
        out = io.StringIO()
        if name == "one-by-one":
            stdin: io.TextIOBase = io.StringIO(text)  # no file descriptor: a line at a time
            await play_jsonl(demo_catalog(), path, None, 1, START, stdin, out)
        else:
            with (tmp_path / "requests.jsonl").open(encoding="utf-8") as stdin:
                await play_jsonl(demo_catalog(), path, None, 1, START, stdin, out)
        outs.append(out.getvalue())
    assert outs[1] == outs[0]
    replies = [json.loads(r) for r in outs[1].splitlines()]
    failed = [r for r in replies if r["type"] == "error" and "boom" in r["message"]]
    assert len(failed) >= 2
    assert sum(r["type"] == "verdict" for r in replies) > 30  # the others were served
    together, one_by_one = (stored(tmp_path / f"{n}.sqlite3") for n in ("together", "one-by-one"))
    assert together == one_by_one
    assert {d for d, *_ in together["answers"]}.isdisjoint({5, 6, 31})


async def test_a_batch_without_savepoints_rolls_back_whole_once_a_write_fails(
    tmp_path: Path,
) -> None:
    async with InlineDatabase(tmp_path / "s.sqlite3") as db:
        await db.call(lambda c: c.execute("CREATE TABLE t (n INTEGER)"))

        with pytest.raises(BatchFailed), db.batch(savepoints=False):
            await db.write(insert(1))
            assert not db.batch_failed
            with pytest.raises(ValueError):
                await db.write(insert(2, fail=True))
            assert db.batch_failed
        assert await db.read(lambda c: c.execute("SELECT COUNT(*) FROM t").fetchone()[0]) == 0
        with db.batch(savepoints=False):  # the next batch starts clean
            await db.write(insert(3))
        assert await db.read(lambda c: [n for (n,) in c.execute("SELECT n FROM t")]) == [3]
