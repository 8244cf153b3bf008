"""/ready and /stats: the readiness estimate below and above the evidence minimum, the chart."""

from __future__ import annotations

import datetime as dt
import io
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from PIL import Image

from bot.domain.models import Learner
from bot.learning.memory import from_timestamp
from bot.learning.readiness import readiness
from bot.practice.readiness_service import exam_moment
from tests import factories, mock_bank
from tests.botharness import Harness, running_bot

ANN = factories.user(701, "Ann")
ANN_CHAT = factories.private_chat(ANN)


async def practise(h: Harness, count: int, *, right_every: int = 4) -> None:
    """Answer `count` practice questions, three in four right, a minute apart."""
    learner = Learner(ANN["id"], "Ann")
    for i in range(count):
        delivery = await h.services.practice.next_delivery(ANN["id"], learner)
        assert delivery is not None
        q = delivery.question
        right = i % right_every != 0
        wrong = next(j for j in range(len(q.options)) if j not in q.correct_indices)
        # Wrong: one distractor in place of one key (select-two stays two options).
        chosen = q.correct_indices if right else frozenset({*sorted(q.correct_indices)[1:], wrong})
        outcome = await h.services.practice.answer(delivery.id, learner, ANN["id"], chosen)
        assert outcome.correct is right
        h.clock.advance(60)


async def test_ready_says_what_is_missing_below_the_evidence_minimum(tmp_path: Path) -> None:
    async with running_bot(tmp_path, mock_bank.three_topics()) as h:
        await practise(h, 5)
        await h.feed(factories.command("/ready", ANN, ANN_CHAT))
        text = h.api.last_text(ANN["id"]) or ""
        assert "Not enough evidence for a prediction yet (5 answers so far)" in text
        assert "35 more answers" in text
        assert "Predicted exam score" not in text


async def test_ready_and_stats_above_the_minimum_with_a_cached_chart(tmp_path: Path) -> None:
    async with running_bot(tmp_path, mock_bank.three_topics(per_topic=20)) as h:
        await practise(h, 48)
        await h.feed(factories.command("/ready", ANN, ANN_CHAT))
        text = h.api.last_text(ANN["id"]) or ""
        assert "Predicted exam score:" in text and "likely" in text
        assert "Chance of passing at 70%:" in text
        assert "• A (50%):" in text and "met" in text
        await h.feed(factories.command("/stats", ANN, ANN_CHAT))
        stats = h.api.last_text(ANN["id"]) or ""
        assert stats.startswith("🎯 Readiness") and "Answered: 48" in stats
        ((_, png),) = h.api.photos_to(ANN["id"])
        width, height = Image.open(io.BytesIO(png)).size
        assert width == 1000 and 600 < height < 1200 and len(png) < 150_000
        # The same chart until the next answer: no second render.
        await h.feed(factories.command("/stats", ANN, ANN_CHAT))
        assert h.services.readiness.charts_cached == 1
        assert h.api.photos_to(ANN["id"])[1][1] == png
        await practise(h, 1)
        await h.feed(factories.command("/stats", ANN, ANN_CHAT))
        assert h.services.readiness.charts_cached == 2


async def test_stats_lists_the_last_mock_exams(tmp_path: Path) -> None:
    async with running_bot(tmp_path, mock_bank.three_topics()) as h:
        await h.feed(factories.command("/mock", ANN, ANN_CHAT))
        await h.feed(factories.command("/mock stop", ANN, ANN_CHAT))
        ask = h.api.last_message(ANN["id"]) or {}
        data = ask["reply_markup"]["inline_keyboard"][0][0]["callback_data"]
        await h.feed(factories.callback(data, ANN, ask))
        await h.feed(factories.command("/stats", ANN, ANN_CHAT))
        stats = h.api.last_text(ANN["id"]) or ""
        assert "Last mock exams" in stats and "abandoned (10 questions)" in stats
        assert not h.api.photos_to(ANN["id"])  # nothing answered yet: no chart


async def test_readiness_reads_the_stored_memory_and_replays_only_without_it(
    tmp_path: Path,
) -> None:
    async with running_bot(tmp_path, mock_bank.three_topics()) as h:
        await practise(h, 12)
        service, bank = h.services.readiness, "mockbank"
        stored = await h.services.practice.learning.memory(ANN["id"], bank)
        assert len(stored) == 12 and await service.memory_states(ANN["id"], bank) == stored
        # What the answer transaction stored is what counts, not a replay of the answers.
        factories.execute(h.db_path, "UPDATE memory_states SET stability = 999.0, reps = 7")
        changed = await service.memory_states(ANN["id"], bank)
        assert {s.stability for s in changed.values()} == {999.0}
        report = await service.report(ANN["id"])
        assert report.readiness.answers == 12 * 7
        # Answers without stored states (recorded before the memory model): replayed.
        factories.execute(h.db_path, "DELETE FROM memory_states")
        assert await service.memory_states(ANN["id"], bank) == stored


async def test_ready_and_stats_forecast_the_exam_date(tmp_path: Path) -> None:
    async with running_bot(tmp_path, mock_bank.three_topics(per_topic=20)) as h:
        await practise(h, 48)
        info = await h.services.practice.learning.set_exam_in(ANN["id"], 30)
        report = await h.services.readiness.report(ANN["id"])
        assert report.exam_date == info.date and report.days_to_exam == 30
        now, later = report.readiness, report.at_exam
        assert later is not None and later.score is not None and now.score is not None
        # Memory fades over 30 days without practice: a lower forecast than today's.
        assert later.score < now.score - 1
        memory = await h.services.readiness.memory_states(ANN["id"], "mockbank")
        plan = h.services.readiness.blueprint(h.services.catalog.bank("mockbank"))
        moment = exam_moment(report.exam_date, ZoneInfo("UTC"))
        assert moment.hour == 9 and moment.date() == info.date
        expected = readiness(plan, memory, from_timestamp(h.clock.now()), at=moment)
        assert later.score == pytest.approx(expected.score)
        for command in ("/ready", "/stats"):
            await h.feed(factories.command(command, ANN, ANN_CHAT))
            text = h.api.last_text(ANN["id"]) or ""
            assert "If you sat the exam now:\nPredicted exam score:" in text
            date = (info.date or dt.date.min).strftime("%d %b %Y")
            assert f"📅 On your exam date, {date} (in 30 days), without more practice:" in text
            assert f"{later.score:.0f}% (likely" in text.split("📅", 1)[1]


async def test_an_exam_date_without_enough_evidence_is_shown_without_a_forecast(
    tmp_path: Path,
) -> None:
    async with running_bot(tmp_path, mock_bank.three_topics()) as h:
        await practise(h, 5)
        await h.services.practice.learning.set_exam_in(ANN["id"], 10)
        await h.feed(factories.command("/ready", ANN, ANN_CHAT))
        text = h.api.last_text(ANN["id"]) or ""
        assert "Not enough evidence" in text and "(in 10 days)." in text
        assert "without more practice" not in text and "If you sat" not in text
