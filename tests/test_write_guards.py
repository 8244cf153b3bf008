"""Writes that depend on what was read check it when they write (compare and set), so that
two writers at once (two processes, or a database without SQLite's single write lock) end
where one writer would have.

Each test opens two real connections, A and B, to one SQLite file and interleaves them: read
on A, read on B, write on A, write on B. The reads autocommit and each write is a
transaction of its own, so B writes after A's write committed but from what it read before,
which is what a second process sees under PostgreSQL's default isolation.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypeVar

import pytest

from bot.domain.kinds import ChatKind, Source
from bot.domain.models import Learner
from bot.mock import exam as moves
from bot.mock.models import ExamStatus
from bot.practice.catalog import Catalog
from bot.practice.clock import FakeClock
from bot.practice.mock_models import MockStatus
from bot.practice.mock_service import MockService
from bot.storage import mock_sql, practice_sql, push_log
from bot.storage.factory import connect_blocking, open_database, prepare_database
from bot.storage.port import Connection
from tests.backend import database
from tests.mock_bank import three_topics

NOW = 1_800_000_000.0
ANN = 11
T = TypeVar("T")


@pytest.fixture
def path(tmp_path: Path) -> Path:
    db = tmp_path / "guards.sqlite3"
    prepare_database(database(db))
    return db


@pytest.fixture
def a(path: Path) -> Iterator[Connection]:
    conn = connect_blocking(database(path))
    yield conn
    conn.close()


@pytest.fixture
def b(path: Path) -> Iterator[Connection]:
    conn = connect_blocking(database(path))
    yield conn
    conn.close()


def rows(conn: Connection, sql: str) -> list[tuple[object, ...]]:
    return [tuple(r) for r in conn.execute(sql)]


def write(conn: Connection, fn: Callable[[Connection], T]) -> T:
    """`fn` in a write transaction of its own on `conn`."""
    conn.execute("BEGIN")
    try:
        result = fn(conn)
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")
    return result


# ---------------------------------------------------------------- the push claim
def pick_q1(c: Connection, row: push_log.DueRow, now: float) -> tuple[int, str, str]:
    """A picker: records the delivery of question q1 for the due chat."""
    did = practice_sql.insert_delivery(
        c, chat_id=row.chat_id, user_id=row.user_id, bank_id="b", question_id="q1",
        source=Source.DAILY, now=now,
    )  # fmt: skip
    return did, "b", "q1"


def test_a_push_row_claimed_by_a_is_left_alone_by_b(a: Connection, b: Connection) -> None:
    push_log.upsert_subscription(
        a,
        chat_id=ANN,
        user_id=ANN,
        kind=ChatKind.PRIVATE,
        local_time="07:00",
        timezone="UTC",
        now=NOW,
    )
    later = NOW + 86400
    assert push_log.materialize_due(a, later, 7200, 10) == 1
    picked: list[str] = []

    def picker(name: str) -> push_log.Picker:
        def pick(c: Connection, row: push_log.DueRow, now: float) -> tuple[int, str, str]:
            picked.append(name)
            return pick_q1(c, row, now)

        return pick

    seen_a = push_log.ready_rows(a, later, 10)
    seen_b = push_log.ready_rows(b, later, 10)
    assert len(seen_a) == len(seen_b) == 1

    def claim(who: str, conn: Connection, seen: list[push_log.ReadyRow]) -> int:
        return len(
            write(
                conn,
                lambda c: push_log.claim_rows(
                    c, seen, later, picker(who), owner=who, lease_until=later + 60
                ),
            )
        )

    assert claim("A", a, seen_a) == 1
    assert claim("B", b, seen_b) == 0  # taken since B read it: B sends nothing
    assert picked == ["A"]  # and chose no question for it
    assert rows(a, "SELECT state, attempts, owner, delivery_id FROM push_log") == [
        ("sending", 1, "A", 1)
    ]
    assert rows(a, "SELECT COUNT(*) FROM deliveries") == [(1,)]


def test_a_skip_read_by_b_does_not_undo_a_claim_by_a(a: Connection, b: Connection) -> None:
    def subscribe() -> None:
        push_log.upsert_subscription(
            a, chat_id=ANN, user_id=ANN, kind=ChatKind.PRIVATE, local_time="07:00", timezone="UTC",
            now=NOW,
        )  # fmt: skip

    subscribe()
    later = NOW + 86400
    push_log.materialize_due(a, later, 7200, 10)
    push_log.deactivate(a, ANN, NOW)
    seen_b = push_log.ready_rows(b, later, 10)  # B reads while the chat is unsubscribed
    subscribe()  # back again before A reads
    seen_a = push_log.ready_rows(a, later, 10)
    write(a, lambda c: push_log.claim_rows(c, seen_a, later, pick_q1, owner="A"))
    # B would skip the row as unsubscribed: A's claim came first and stands.
    assert write(b, lambda c: push_log.claim_rows(c, seen_b, later, pick_q1)) == []
    assert rows(a, "SELECT state, owner, error FROM push_log") == [("sending", "A", None)]


# ---------------------------------------------------------------- mock exams
@pytest.fixture
async def exam_path(path: Path) -> Path:
    """A running exam of ANN's in the file, started through the service."""
    async with open_database(database(path)) as db:
        catalog = Catalog({"mockbank": three_topics()})
        svc = MockService(db, catalog, clock=FakeClock(NOW), rng=random.Random(3))
        assert (await svc.start(ANN, chat_id=ANN)).status is MockStatus.STARTED
    return path


async def test_a_mock_save_from_a_stale_read_is_refused(
    exam_path: Path, a: Connection, b: Connection
) -> None:
    exam_a = mock_sql.running_exam(a, ANN)
    exam_b = mock_sql.running_exam(b, ANN)
    assert exam_a is not None and exam_b is not None
    chose_a = moves.choose(exam_a, 0, 0, NOW + 5)
    chose_b = moves.flag(moves.choose(exam_b, 0, 1, NOW + 6), 3, NOW + 6)
    assert not isinstance(chose_a, moves.Pending) and not isinstance(chose_b, moves.Pending)
    saved = write(a, lambda c: mock_sql.save_exam(c, exam_a, chose_a))
    assert saved is not None and saved.rev == exam_a.rev + 1
    assert write(b, lambda c: mock_sql.save_exam(c, exam_b, chose_b)) is None
    stored = mock_sql.load_exam(b, exam_a.id)
    assert stored == saved  # A's move alone: none of B's choice, nor its flag
    # Read again, B's move applies over A's: the two count one after the other.
    again = moves.choose(stored, 0, 1, NOW + 7)
    assert not isinstance(again, moves.Pending)
    assert write(b, lambda c: mock_sql.save_exam(c, stored, again)) is not None


async def test_a_deadline_is_submitted_once_when_two_jobs_read_it(
    exam_path: Path, a: Connection, b: Connection
) -> None:
    catalog = Catalog({"mockbank": three_topics()})
    at = NOW + 3600
    exam = mock_sql.running_exam(a, ANN)
    assert exam is not None
    answered = exam
    for f in exam.items[0].correct:  # the first question answered right
        chose = moves.choose(answered, 0, answered.items[0].display_index(f), NOW + 5)
        assert not isinstance(chose, moves.Pending)
        answered = chose
    assert mock_sql.save_exam(a, exam, answered) is not None
    jobs = []
    for conn in (a, b):  # two processes' deadline jobs, each reading what is due
        [exam_id] = mock_sql.due_exam_ids(conn, at)
        due = mock_sql.load_exam(conn, exam_id)
        assert due is not None
        jobs.append(
            (
                conn,
                due,
                MockService(open_database(database(exam_path)), catalog, clock=FakeClock(at)),
            )
        )
    (conn_a, due_a, svc_a), (conn_b, due_b, svc_b) = jobs
    first = write(conn_a, lambda c: svc_a.submit_due(c, due_a, at))
    assert first is not None and first.status is MockStatus.EXPIRED and len(first.graded) == 1
    assert write(conn_b, lambda c: svc_b.submit_due(c, due_b, at)) is None
    assert rows(a, "SELECT status, correct FROM mock_exams") == [("expired", 1)]
    assert rows(a, "SELECT COUNT(*) FROM answers") == [(1,)]  # recorded once, by A
    assert mock_sql.due_exam_ids(b, at) == []


async def test_a_lost_deadline_save_is_left_for_the_next_pass(exam_path: Path) -> None:
    async with open_database(database(exam_path)) as db:
        at = NOW + 3600
        svc = MockService(db, Catalog({"mockbank": three_topics()}), clock=FakeClock(at))
        stale = await db.read(lambda c: mock_sql.running_exam(c, ANN))
        assert stale is not None
        await svc.attach_message(stale.id, ANN, 77)  # a write by someone else moved its rev
        assert await db.write(lambda c: svc.submit_due(c, stale, at)) is None
        [expired] = await svc.expire_due()
        assert expired.exam is not None and expired.exam.status is ExamStatus.EXPIRED
        assert expired.exam.message_id == 77


# ---------------------------------------------------------------- multiple-answer toggles
def delivery(conn: Connection) -> int:
    practice_sql.upsert_user(conn, Learner(ANN, "Ann"), NOW)
    return practice_sql.insert_delivery(
        conn, chat_id=ANN, user_id=ANN, bank_id="b", question_id="m1", source=Source.QUIZ, now=NOW
    )


def test_two_toggles_from_one_read_keep_both_options(a: Connection, b: Connection) -> None:
    did = delivery(a)
    seen_a = practice_sql.pending_choice(a, did, ANN)
    seen_b = practice_sql.pending_choice(b, did, ANN)
    assert seen_a == seen_b == ""
    assert write(a, lambda c: practice_sql.swap_pending_choice(c, did, ANN, "", "1"))
    assert not write(b, lambda c: practice_sql.swap_pending_choice(c, did, ANN, seen_b, "2"))
    assert practice_sql.pending_choice(a, did, ANN) == "1"  # B's option did not replace A's
    # B reads again, as the service does after a refused save: both options end up held.
    seen = practice_sql.pending_choice(b, did, ANN)
    assert practice_sql.swap_pending_choice(b, did, ANN, seen, "1,2")
    assert practice_sql.pending_choice(a, did, ANN) == "1,2"


def test_a_toggle_read_before_a_submit_does_not_bring_its_choice_back(
    a: Connection, b: Connection
) -> None:
    did = delivery(a)
    assert practice_sql.swap_pending_choice(a, did, ANN, "", "0")
    seen_b = practice_sql.pending_choice(b, did, ANN)  # a toggle of option 2 reads "0"
    seen_a = practice_sql.pending_choice(a, did, ANN)  # a second tap reads it too
    assert write(a, lambda c: practice_sql.swap_pending_choice(c, did, ANN, seen_a, ""))
    assert not write(b, lambda c: practice_sql.swap_pending_choice(c, did, ANN, seen_b, "0,2"))
    assert practice_sql.pending_choice(a, did, ANN) == ""
    # After a Submit the pending row is gone: a toggle read before it writes nothing back.
    practice_sql.clear_pending_choice(a, did, ANN)
    assert not practice_sql.swap_pending_choice(b, did, ANN, "0", "0,2")
    assert rows(a, "SELECT COUNT(*) FROM pending_choices") == [(0,)]
