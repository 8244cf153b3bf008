"""Mock exams on a real SQLite file: start, resume, moves, finish, deadline across a restart."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.mock.models import Exam, ExamKind, ExamStatus
from bot.practice.catalog import Catalog
from bot.practice.clock import FakeClock
from bot.practice.mock_models import MockReply, MockStatus
from bot.practice.mock_service import MockService
from bot.storage import mock_sql
from bot.storage.factory import open_database
from bot.storage.port import Store
from tests import factories
from tests.backend import database, target_of
from tests.mock_bank import three_topics

ANN, BOB = 11, 12


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(1_800_000_000.0)


@pytest.fixture
def catalog() -> Catalog:
    return Catalog({"mockbank": three_topics()})  # 30 questions, exam of 10 in 20 minutes


@pytest.fixture
async def db(tmp_path: Path) -> AsyncIterator[Store]:
    async with open_database(database(tmp_path / "m.sqlite3")) as store:
        yield store


@pytest.fixture
def service(db: Store, catalog: Catalog, clock: FakeClock) -> MockService:
    return MockService(db, catalog, clock=clock, rng=random.Random(1))


def rows(path: Path, sql: str) -> list[tuple[object, ...]]:
    return factories.rows(path, sql)


def exam_of(reply: MockReply) -> Exam:
    assert reply.exam is not None
    return reply.exam


async def answer_all_right(service: MockService, exam: Exam, upto: int | None = None) -> Exam:
    for pos, item in enumerate(exam.items[:upto]):
        for f in item.correct:
            reply = await service.choose(exam.user_id, exam.id, pos, item.display_index(f))
            assert reply.status is MockStatus.SHOWN
    return exam_of(await service.resume(exam.user_id))


async def test_start_shows_the_first_question_and_a_second_start_resumes(
    service: MockService, clock: FakeClock
) -> None:
    first = await service.start(ANN, chat_id=ANN)
    assert first.status is MockStatus.STARTED
    exam = exam_of(first)
    assert exam.size == 10 and exam.deadline == clock.now() + 20 * 60
    assert first.question is not None and first.question.id == exam.items[0].question_id
    clock.advance(60)
    again = await service.start(ANN)
    assert again.status is MockStatus.RUNNING and exam_of(again).id == exam.id
    assert again.time_left_s == 19 * 60
    other = await service.start(BOB)
    assert other.status is MockStatus.STARTED and exam_of(other).id != exam.id


def test_the_store_refuses_two_running_exams_for_one_learner(tmp_path: Path) -> None:
    import asyncio

    async def setup() -> Exam:
        async with open_database(database(tmp_path / "x.sqlite3")) as db:
            svc = MockService(db, Catalog({"mockbank": three_topics()}), clock=FakeClock())
            return exam_of(await svc.start(ANN))

    exam = asyncio.run(setup())
    with factories.blocking(tmp_path / "x.sqlite3") as conn:
        snaps = {i.question_id: "{}" for i in exam.items}
        assert mock_sql.insert_exam(conn, exam, snaps) is None  # the partial unique index
        assert mock_sql.running_exam(conn, ANN) is not None


async def test_moves_persist_and_resume_where_the_learner_left(
    service: MockService, db: Store, catalog: Catalog, clock: FakeClock
) -> None:
    exam = exam_of(await service.start(ANN))
    item = exam.items[2]
    wrong = next(d for d in range(len(item.order)) if item.file_index(d) not in item.correct)
    assert (await service.go(ANN, exam.id, 2)).question.id == item.question_id  # type: ignore[union-attr]
    await service.choose(ANN, exam.id, 2, wrong)
    twice = await service.choose(ANN, exam.id, 2, wrong)  # double tap
    assert twice.status is MockStatus.SHOWN and exam_of(twice).items[2].chosen == {
        item.file_index(wrong)
    }
    await service.flag(ANN, exam.id, 2)
    nxt = await service.step(ANN, exam.id, +1)
    assert exam_of(nxt).current == 3
    # A new service on the same file (a restart) sees the same exam.
    later = MockService(db, catalog, clock=clock)
    resumed = await later.resume(ANN)
    assert resumed.status is MockStatus.SHOWN
    got = exam_of(resumed)
    assert got.current == 3 and got.items[2].flagged and got.items[2].answered
    assert resumed.question is not None and resumed.question.id == got.items[3].question_id
    bad = await service.choose(ANN, exam.id, 99, 0)
    assert bad.status is MockStatus.INVALID and exam_of(bad).current == 3
    assert (await service.resume(BOB)).status is MockStatus.NONE


async def test_finish_confirms_then_scores_and_records_answers(
    service: MockService, db: Store
) -> None:
    exam = exam_of(await service.start(ANN))
    exam = await answer_all_right(service, exam, upto=8)
    ask = await service.finish(ANN, exam.id)
    assert ask.status is MockStatus.CONFIRM
    assert ask.pending is not None and ask.pending.unanswered == (8, 9)
    done = await service.finish(ANN, exam.id, confirmed=True)
    assert done.status is MockStatus.FINISHED and done.result is not None
    assert (done.result.correct, done.result.percent, done.result.passed) == (8, 80.0, True)
    assert len(done.graded) == 8
    recorded = rows(
        target_of(db),
        "SELECT d.source, a.correct FROM answers a JOIN deliveries d ON d.id = a.delivery_id",
    )
    assert recorded == [("mock", 1)] * 8
    assert (await service.choose(ANN, exam.id, 0, 0)).status is MockStatus.STALE
    assert (await service.finish(ANN, exam.id, confirmed=True)).status is MockStatus.STALE
    review = await service.review(ANN, exam.id)
    assert review is not None
    assert [e.mistake.position for e in review] == [8, 9]
    assert review[0].question.id == exam.items[8].question_id
    summary = await service.last_results(ANN)
    assert [(s.exam_id, s.status, s.percent, s.passed) for s in summary] == [
        (exam.id, ExamStatus.FINISHED, 80.0, True)
    ]


async def test_deadline_submits_automatically_across_a_restart(
    tmp_path: Path, catalog: Catalog, clock: FakeClock
) -> None:
    path = tmp_path / "restart.sqlite3"
    async with open_database(database(path)) as db:
        svc = MockService(db, catalog, clock=clock)
        exam = exam_of(await svc.start(ANN, chat_id=ANN))
        await svc.attach_message(exam.id, ANN, 501)
        await answer_all_right(svc, exam, upto=3)
        assert await svc.next_deadline() == exam.deadline
    clock.advance(21 * 60)  # the bot was down when the deadline passed
    async with open_database(database(path)) as db:
        svc = MockService(db, catalog, clock=clock)
        assert await svc.expire_due() != []
        assert await svc.expire_due() == []  # submitted once
        assert await svc.next_deadline() is None
    async with open_database(database(path)) as db:
        svc = MockService(db, catalog, clock=clock)
        result = await svc.result(ANN, exam.id)
        assert result is not None and result.status is ExamStatus.EXPIRED
        assert (result.correct, result.time_used_s) == (3, 20 * 60)
        late = await svc.choose(ANN, exam.id, 4, 0)
        assert late.status is MockStatus.STALE
    assert rows(path, "SELECT status, correct, percent, chat_id, message_id FROM mock_exams") == [
        ("expired", 3, 30.0, ANN, 501)
    ]
    assert rows(path, "SELECT COUNT(*) FROM answers") == [(3,)]


async def test_a_tap_after_the_deadline_submits_before_the_job_does(
    service: MockService, clock: FakeClock
) -> None:
    exam = exam_of(await service.start(ANN))
    await service.choose(ANN, exam.id, 0, 0)
    clock.advance(20 * 60)
    late = await service.choose(ANN, exam.id, 1, 0)
    assert late.status is MockStatus.EXPIRED and late.result is not None
    assert late.result.total == 10 and exam_of(late).items[1].chosen == frozenset()
    assert await service.expire_due() == []
    fresh = await service.start(ANN)  # the learner can start again at once
    assert fresh.status is MockStatus.STARTED


async def test_start_after_an_unnoticed_deadline_reports_that_result_first(
    service: MockService, clock: FakeClock
) -> None:
    exam = exam_of(await service.start(ANN))
    clock.advance(3600)
    reply = await service.start(ANN)
    assert reply.status is MockStatus.EXPIRED and exam_of(reply).id == exam.id
    assert (await service.start(ANN)).status is MockStatus.STARTED


async def test_abandon_leaves_no_score_and_frees_the_learner(service: MockService) -> None:
    exam = exam_of(await service.start(ANN))
    assert (await service.abandon(BOB, exam.id)).status is MockStatus.STALE
    gone = await service.abandon(ANN)
    assert gone.status is MockStatus.ABANDONED
    assert (await service.resume(ANN)).status is MockStatus.NONE
    assert (await service.abandon(ANN)).status is MockStatus.NONE
    assert await service.result(ANN, exam.id) is None
    [summary] = await service.last_results(ANN)
    assert summary.status is ExamStatus.ABANDONED and summary.percent is None


async def test_another_learners_exam_is_stale(service: MockService) -> None:
    exam = exam_of(await service.start(ANN))
    assert (await service.choose(BOB, exam.id, 0, 0)).status is MockStatus.STALE
    assert (await service.choose(ANN, exam.id + 1000, 0, 0)).status is MockStatus.STALE


async def test_later_mocks_prefer_questions_not_met_before(service: MockService) -> None:
    seen: list[set[str]] = []
    for _ in range(3):
        exam = exam_of(await service.start(ANN))
        seen.append({i.question_id for i in exam.items})
        await service.abandon(ANN)
    # 30 questions, 10 a time with weights 50/30/20 against 10 per topic: topic a (5 a time)
    # is exhausted after two exams, b and c never repeat.
    assert not seen[0] & seen[1]
    assert not {q for q in seen[2] if not q.startswith("a")} & (seen[0] | seen[1])


async def test_a_bank_too_small_offers_the_largest_exam_and_short_exams(
    db: Store, clock: FakeClock
) -> None:
    small = MockService(db, Catalog({"mockbank": three_topics(per_topic=2)}), clock=clock)
    reply = await small.start(ANN)
    assert reply.status is MockStatus.TOO_SMALL and reply.too_small is not None
    assert reply.too_small.available == 6 and reply.offer is not None
    assert (reply.offer.questions, reply.offer.seconds) == (6, 12 * 60)
    started = await small.start(ANN, kind=ExamKind.REDUCED, questions=reply.offer.questions)
    assert exam_of(started).size == 6
    await small.abandon(ANN)
    short = exam_of(await small.start(ANN, kind=ExamKind.SHORT))
    assert (short.size, short.deadline - short.started_at) == (
        3,
        6 * 60,
    )  # 2.5 questions round up, at the full exam's pace


async def test_a_question_removed_mid_exam_keeps_its_snapshot_and_its_score(
    service: MockService, catalog: Catalog, db: Store
) -> None:
    exam = exam_of(await service.start(ANN))
    gone_id = exam.items[1].question_id
    bank = catalog.bank("mockbank")
    kept = {k: v for k, v in bank.questions.items() if k != gone_id}
    catalog.replace({"mockbank": bank.model_copy(update={"questions": kept})})
    shown = await service.go(ANN, exam.id, 1)
    assert shown.question is not None and shown.question.id == gone_id
    exam = await answer_all_right(service, exam)
    done = await service.finish(ANN, exam.id)
    assert done.status is MockStatus.FINISHED and done.result is not None
    assert done.result.correct == 10  # the removed question still counts
    # ... but it is not fed to item statistics or the memory model: the bank no longer has it.
    assert gone_id not in {g.question_id for g in done.graded} and len(done.graded) == 9
    assert rows(
        target_of(db), f"SELECT COUNT(*) FROM answers WHERE question_id = '{gone_id}'"
    ) == [(0,)]


async def test_a_cached_exam_never_hides_a_change_made_elsewhere(
    service: MockService, db: Store, catalog: Catalog, clock: FakeClock
) -> None:
    exam = exam_of(await service.start(ANN))
    await service.choose(ANN, exam.id, 0, 0)  # this service now holds the exam in its cache
    other = MockService(db, catalog, clock=clock)  # e.g. `quizbot play --mock` beside the bot
    await other.choose(ANN, exam.id, 0, 1)
    await other.flag(ANN, exam.id, 5)
    seen = exam_of(await service.step(ANN, exam.id, +1))
    assert seen.items[0].chosen == {exam.items[0].file_index(1)} and seen.items[5].flagged
    await other.abandon(ANN)
    assert (await service.choose(ANN, exam.id, 1, 0)).status is MockStatus.STALE


async def test_mock_answers_count_on_the_learners_day_in_the_default_zone(
    tmp_path: Path, catalog: Catalog, clock: FakeClock
) -> None:
    # 08:00 UTC on 15 January 2027 is still 14 January in Anchorage (UTC-9).
    async with open_database(
        database(tmp_path / "z.sqlite3"), default_timezone="America/Anchorage"
    ) as db:
        service = MockService(db, catalog, clock=clock, rng=random.Random(1))
        exam = exam_of(await service.start(ANN))
        exam = await answer_all_right(service, exam)
        done = await service.finish(ANN, exam.id, confirmed=True)
        assert done.status is MockStatus.FINISHED
        days = rows(
            target_of(db), f"SELECT local_date, answered FROM learner_days WHERE user_id={ANN}"
        )
    assert days == [("2027-01-14", 10)]
