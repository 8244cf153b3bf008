"""The full mock follows NCP-GENL: 70 questions (the exam asks 60-70) in 120 minutes, drawn by the
ten domain weights; the short mock stays a quarter of it. On a generated bank of 350 questions,
independent of the bundled bank's content."""

from __future__ import annotations

import random

import pytest

from bot.bank.models import Bank, BankMeta, Difficulty, MockExam
from bot.mock.blueprint import Draw, apportion, draw, plan
from bot.mock.models import ExamKind
from tests import sample_bank

WEIGHTS = sample_bank.NCP_GENL_WEIGHTS
FULL, MINUTES, MOCKS = 70, 120, 5


def generated_bank(total: int = 350) -> Bank:
    """`total` questions, each domain holding MOCKS times its share of one full mock (what five
    mocks without a repeat need), the rest by weight; difficulties mixed within each domain."""
    per_mock = apportion(WEIGHTS, FULL)
    counts = {t: MOCKS * n for t, n in per_mock.items()}
    extra = apportion(WEIGHTS, total - sum(counts.values()))
    questions = []
    for topic, n in counts.items():
        for i in range(n + extra[topic]):
            q = sample_bank.question(f"{topic}-{i:03d}", topic)
            level = (Difficulty.EASY, Difficulty.MEDIUM, Difficulty.MEDIUM, Difficulty.HARD)[i % 4]
            questions.append(q.model_copy(update={"difficulty": level}))
    meta = BankMeta.model_validate(
        {
            "id": "gen",
            "title": "Generated",
            "exam_code": "NCP-GENL",
            "passing_score": 70,
            "mock_exam": {"questions": FULL, "minutes": MINUTES, "min_questions": 60},
            "topics": [{"id": t, "name": t, "weight": w} for t, w in WEIGHTS.items()],
        }
    )
    return Bank(meta=meta, questions={q.id: q for q in questions})


def test_full_mock_is_the_exam_and_short_mock_a_quarter_at_its_pace() -> None:
    meta = generated_bank().meta
    full = plan(meta, ExamKind.FULL)
    assert (full.questions, full.seconds) == (70, 120 * 60)
    short = plan(meta, ExamKind.SHORT)
    assert (short.questions, short.seconds) == (18, 31 * 60)


def test_five_full_mocks_from_350_questions_never_repeat_and_follow_the_weights() -> None:
    bank = generated_bank(350)
    assert len(bank.questions) == 350
    for topic, weight in WEIGHTS.items():
        share = 100 * len(bank.in_topic(topic)) / 350
        assert abs(share - weight) <= 4, (topic, share)
    seen: set[str] = set()
    rng = random.Random(7)
    for _ in range(MOCKS):
        got = draw(bank, FULL, seen, rng)
        assert isinstance(got, Draw) and len(got.question_ids) == FULL
        assert not seen & set(got.question_ids)
        for topic, n in got.per_topic.items():
            assert abs(100 * n / FULL - WEIGHTS[topic]) < 100 / FULL + 0.01  # within a question
        seen |= set(got.question_ids)
    assert len(seen) == 350


def test_an_exam_range_is_checked() -> None:
    assert MockExam(questions=70, minutes=120, min_questions=60).min_questions == 60
    with pytest.raises(ValueError, match="min_questions"):
        MockExam(questions=60, minutes=120, min_questions=70)
