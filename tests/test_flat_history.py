"""What a learner's commands read stays flat in their history: /stats and /ready count the
chart's days from the per-day summary (learner_bank_days), and a pick leaves the user's row
alone when nothing in it changed."""

from __future__ import annotations

import datetime as dt
import random
from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path

import pytest

from bot.domain.models import Learner
from bot.learning.memory import Answer, replay_all
from bot.practice.catalog import Catalog
from bot.practice.clock import FakeClock
from bot.practice.readiness_service import ReadinessService
from bot.practice.service import PracticeService
from bot.storage import learning_sql as lsql
from bot.storage import practice_sql
from bot.storage.factory import open_database
from bot.storage.sqlite.database import connect_sync
from bot.storage.sqlite.migrations import apply_migrations
from tests import factories
from tests.backend import database
from tests.learning_support import learning_bank

ANN = Learner(11, "Ann")
START = dt.datetime(2026, 3, 1, 12, tzinfo=dt.UTC).timestamp()


@pytest.fixture
async def services(tmp_path: Path) -> AsyncIterator[tuple[PracticeService, ReadinessService]]:
    db = open_database(database(tmp_path / "q.sqlite3"))
    await db.open()
    catalog = Catalog({"learn": learning_bank()})
    clock = FakeClock(START)
    practice = PracticeService(db, catalog, clock=clock, rng=random.Random(5))
    practice.path = tmp_path / "q.sqlite3"  # type: ignore[attr-defined]  # for tests' reads
    yield practice, ReadinessService(db, catalog, clock=clock)
    await db.close()


async def answer_some(
    practice: PracticeService, days: int, per_day: int
) -> list[tuple[dt.date, bool]]:
    """Answers over `days` days (the first option each time); (UTC day, right) of each."""
    clock = practice.clock
    assert isinstance(clock, FakeClock)
    given = []
    for _ in range(days):
        for _ in range(per_day):
            d = await practice.next_delivery(ANN.id, ANN)
            assert d is not None
            out = await practice.answer(d.id, ANN, ANN.id, frozenset({0}))
            assert out.correct is not None
            given.append((dt.datetime.fromtimestamp(clock.now(), dt.UTC).date(), out.correct))
            clock.advance(60)
        clock.advance(86400 - 60 * per_day)
    return given


async def test_the_report_counts_days_from_the_summary_not_the_answers(
    services: tuple[PracticeService, ReadinessService],
) -> None:
    practice, ready = services
    given = await answer_some(practice, days=3, per_day=4)
    report = await ready.report(ANN.id)
    expected = {}
    for day, right in given:
        n, k = expected.get(day, (0, 0))
        expected[day] = (n + 1, k + right)
    assert {d.day: (d.answered, d.correct) for d in report.days} == expected
    # The raw answers may go (a retention prune keeps the summaries): the days stay.
    path = practice.path  # type: ignore[attr-defined]
    with factories.blocking(path) as conn:
        conn.execute("DELETE FROM answers WHERE id < (SELECT MAX(id) FROM answers)")
    again = await ready.report(ANN.id)
    assert again.days == report.days
    assert again.last_answer_id == report.last_answer_id > 0


async def test_a_new_answer_changes_the_charts_key(
    services: tuple[PracticeService, ReadinessService],
) -> None:
    practice, ready = services
    await answer_some(practice, days=1, per_day=1)
    before = (await ready.report(ANN.id)).last_answer_id
    await answer_some(practice, days=1, per_day=1)
    assert (await ready.report(ANN.id)).last_answer_id > before


async def test_a_pick_leaves_an_unchanged_user_row_alone(
    services: tuple[PracticeService, ReadinessService],
) -> None:
    practice, _ = services
    clock = practice.clock
    assert isinstance(clock, FakeClock)
    path = practice.path  # type: ignore[attr-defined]

    def seen() -> tuple[object, ...]:
        return factories.rows(path, "SELECT first_name, seen_at FROM users WHERE id = 11")[0]

    await practice.next_delivery(ANN.id, ANN)
    first = seen()
    clock.advance(30)
    await practice.next_delivery(ANN.id, ANN)
    assert seen() == first  # nothing changed: no write
    clock.advance(30)
    await practice.next_delivery(ANN.id, replace(ANN, first_name="Anna"))
    assert seen() == ("Anna", START + 60)  # a new name is written, with the time
    clock.advance(practice_sql.SEEN_EVERY_S)
    await practice.next_delivery(ANN.id, replace(ANN, first_name="Anna"))
    assert seen() == ("Anna", START + 60 + practice_sql.SEEN_EVERY_S)  # seen_at kept coarsely


@pytest.mark.sqlite_only("counts the statements SQLite's trace callback sees")
def test_memory_states_are_read_again_only_when_their_version_changed(tmp_path: Path) -> None:
    path = tmp_path / "m.sqlite3"
    conn = connect_sync(path)
    apply_migrations(conn)
    at = dt.datetime(2026, 3, 1, tzinfo=dt.UTC)
    states = replay_all([Answer("q1", at, True), Answer("q2", at, False)])
    for qid, state in states.items():
        lsql.save_memory(conn, 1, "b", qid, state)
    assert set(lsql.memory_states(conn, 1, "b")) == {"q1", "q2"}
    seen: list[str] = []
    conn.set_trace_callback(seen.append)
    again = lsql.memory_states(conn, 1, "b")
    assert again == lsql.memory_states(conn, 1, "b") and set(again) == {"q1", "q2"}
    assert not [s for s in seen if "FROM memory_states" in s]  # one row read, not the states
    # Another process's change is seen (the version is in the database, not in this process).
    with factories.blocking(path) as other:
        other.execute("UPDATE memory_states SET reps = 9 WHERE question_id = 'q1'")
    assert lsql.memory_states(conn, 1, "b")["q1"].reps == 9
    # A change rolled back leaves no version a later read could mistake for its own.
    conn.execute("BEGIN")
    conn.execute("UPDATE memory_states SET reps = 5 WHERE question_id = 'q1'")
    assert lsql.memory_states(conn, 1, "b")["q1"].reps == 5
    conn.execute("ROLLBACK")
    assert lsql.memory_states(conn, 1, "b")["q1"].reps == 9
    conn.execute("DELETE FROM memory_states WHERE question_id = 'q2'")
    assert set(lsql.memory_states(conn, 1, "b")) == {"q1"}
    mutable = lsql.memory_states(conn, 1, "b")
    mutable.clear()  # each caller gets its own dict
    assert set(lsql.memory_states(conn, 1, "b")) == {"q1"}
