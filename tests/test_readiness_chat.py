"""/ready and /stats: the readiness estimate below and above the evidence minimum, the chart."""

from __future__ import annotations

import io
from pathlib import Path

from PIL import Image

from bot.domain.models import Learner
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
