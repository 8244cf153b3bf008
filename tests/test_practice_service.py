"""The practice engine on a real SQLite file: selection, grading, double taps, stats."""

from __future__ import annotations

import datetime as dt
import random
from collections.abc import AsyncIterator
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from bot.domain.models import AnswerStatus, Learner
from bot.practice.catalog import Catalog
from bot.practice.clock import FakeClock
from bot.practice.service import PracticeService
from bot.storage.factory import open_database
from tests import factories, sample_bank
from tests.backend import database

ANN = Learner(11, "Ann")


@pytest.fixture
async def service(tmp_path: Path) -> AsyncIterator[PracticeService]:
    db = open_database(database(tmp_path / "q.sqlite3"))
    await db.open()
    clock = FakeClock(dt.datetime(2026, 3, 1, 12, tzinfo=dt.UTC))
    yield PracticeService(
        db, Catalog({"demo": sample_bank.bank()}), clock=clock, rng=random.Random(7)
    )
    await db.close()


def rows(path: Path, sql: str) -> list[tuple[object, ...]]:
    return factories.rows(path, sql)


async def answer_right(service: PracticeService, chat_id: int, learner: Learner) -> str:
    d = await service.next_delivery(chat_id, learner)
    assert d is not None
    out = await service.answer(d.id, learner, chat_id, d.question.correct_indices)
    assert out.status is AnswerStatus.RECORDED
    return d.question.id


async def test_no_repeat_until_topic_seen_and_wrong_ones_come_back(
    service: PracticeService,
) -> None:
    assert await service.choose_topic(ANN.id, "demo", "alpha")
    seen = []
    wrong_qid = None
    for i in range(3):
        d = await service.next_delivery(ANN.id, ANN)
        assert d is not None and d.question.topic == "alpha"
        seen.append(d.question.id)
        chosen = d.question.correct_indices
        if i == 0:  # answer the first one wrong
            chosen = frozenset({next(j for j in range(4) if j not in chosen)})
            wrong_qid = d.question.id
        out = await service.answer(d.id, ANN, ANN.id, chosen)
        assert out.status is AnswerStatus.RECORDED
        assert out.correct is (i != 0)
        service.clock.advance(60)  # type: ignore[attr-defined]
    assert sorted(seen) == ["a1", "a2", "a3"]
    d = await service.next_delivery(ANN.id, ANN)
    assert d is not None and d.question.id == wrong_qid


async def test_double_tap_is_recorded_once(service: PracticeService, tmp_path: Path) -> None:
    d = await service.next_delivery(ANN.id, ANN)
    assert d is not None
    first = await service.answer(d.id, ANN, ANN.id, frozenset({0}))
    again = await service.answer(d.id, ANN, ANN.id, frozenset({1}))
    assert first.status is AnswerStatus.RECORDED
    assert again.status is AnswerStatus.ALREADY
    assert again.chosen == frozenset({0})  # the first choice stands
    assert rows(tmp_path / "q.sqlite3", "SELECT COUNT(*) FROM answers") == [(1,)]


async def test_forged_and_stale_presses(service: PracticeService) -> None:
    d = await service.next_delivery(ANN.id, ANN)
    assert d is not None
    assert (await service.answer(9999, ANN, ANN.id, frozenset({0}))).status is AnswerStatus.UNKNOWN
    # a delivery of another chat
    assert (await service.answer(d.id, ANN, 4242, frozenset({0}))).status is AnswerStatus.UNKNOWN
    # an option that does not exist
    assert (await service.answer(d.id, ANN, ANN.id, frozenset({9}))).status is AnswerStatus.UNKNOWN
    # the question was removed from the bank
    service.catalog.replace({"demo": sample_bank.bank([sample_bank.question("zz")])})
    out = await service.answer(d.id, ANN, ANN.id, frozenset({0}))
    assert out.status is AnswerStatus.REMOVED


async def test_multiple_answer_toggle_and_submit(service: PracticeService) -> None:
    await service.choose_topic(ANN.id, "demo", "alpha")
    for _ in range(3):
        d = await service.next_delivery(ANN.id, ANN)
        assert d is not None
        if d.question.id == "a3":
            break
        await service.answer(d.id, ANN, ANN.id, d.question.correct_indices)
    assert d.question.id == "a3"
    assert (await service.toggle(d.id, ANN, ANN.id, 0)).chosen == {0}
    assert (await service.toggle(d.id, ANN, ANN.id, 1)).chosen == {0, 1}
    assert (await service.toggle(d.id, ANN, ANN.id, 1)).chosen == {0}
    assert (await service.toggle(d.id, ANN, ANN.id, 2)).chosen == {0, 2}
    out = await service.submit(d.id, ANN, ANN.id)
    assert out.status is AnswerStatus.RECORDED and out.correct
    assert await service.pending(d.id, ANN.id) == frozenset()


async def test_stats_accuracy_per_topic_and_streak(service: PracticeService) -> None:
    clock = service.clock
    assert isinstance(clock, FakeClock)
    for _ in range(3):  # three days in a row, one right answer each
        await answer_right(service, ANN.id, ANN)
        clock.advance(86400)
    d = await service.next_delivery(ANN.id, ANN)
    assert d is not None
    wrong = frozenset(
        {next(i for i in range(len(d.question.options)) if i not in d.question.correct_indices)}
    )
    await service.answer(d.id, ANN, ANN.id, wrong)
    stats = await service.stats(ANN.id)
    assert (stats.answered, stats.correct) == (4, 3)
    assert stats.accuracy == pytest.approx(0.75)
    assert stats.streak_days == 4
    assert sum(t.answered for t in stats.topics) == 4
    clock.advance(3 * 86400)
    assert (await service.stats(ANN.id)).streak_days == 0


def test_streak_uses_local_days() -> None:
    from bot.domain.streaks import current_streak

    tokyo = ZoneInfo("Asia/Tokyo")
    # 23:30 UTC on Mar 1 is Mar 2 in Tokyo; 00:30 UTC Mar 3 is Mar 3 in Tokyo
    t1 = dt.datetime(2026, 3, 1, 23, 30, tzinfo=dt.UTC).timestamp()
    t2 = dt.datetime(2026, 3, 3, 0, 30, tzinfo=dt.UTC).timestamp()
    assert current_streak([t1, t2], t2, tokyo) == 2
    assert current_streak([t1, t2], t2, ZoneInfo("UTC")) == 1
