"""Banks built in code for mock-exam tests: weighted topics, a difficulty mix, an exam size."""

from __future__ import annotations

from bot.bank.models import Bank, BankMeta, Difficulty, Question
from tests import sample_bank


def q(
    qid: str, topic: str, difficulty: str = "medium", *, correct: tuple[int, ...] = (1,)
) -> Question:
    """A sample question with a difficulty."""
    base = sample_bank.question(qid, topic, correct=correct, shuffle=True)
    return base.model_copy(update={"difficulty": Difficulty(difficulty)})


def bank(
    questions: list[Question],
    weights: dict[str, float],
    *,
    exam: tuple[int, int] = (10, 20),
    passing: float = 70,
    bank_id: str = "mockbank",
) -> Bank:
    """A bank with these topics (id: weight) and a mock exam of (questions, minutes)."""
    meta = BankMeta.model_validate(
        {
            "id": bank_id,
            "title": f"Bank {bank_id}",
            "exam_code": "MOCK-1",
            "passing_score": passing,
            "mock_exam": {"questions": exam[0], "minutes": exam[1]},
            "topics": [{"id": t, "name": t.title(), "weight": w} for t, w in weights.items()],
        }
    )
    return Bank(meta=meta, questions={x.id: x for x in questions})


def three_topics(per_topic: int = 10) -> Bank:
    """Topics a/b/c weighted 50/30/20, each with easy:medium:hard as 2:1:1 (rounded)."""
    diffs = ["easy", "easy", "medium", "hard"]
    qs = [
        q(f"{t}{i:02d}", t, diffs[i % 4], correct=(0, 2) if i == 3 else (1,))
        for t in "abc"
        for i in range(per_topic)
    ]
    return bank(qs, {"a": 50, "b": 30, "c": 20})
