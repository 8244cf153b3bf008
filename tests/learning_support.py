"""A small bank with shuffled questions and tagged misconceptions, for the learning wiring."""

from __future__ import annotations

from bot.bank.models import Bank, BankMeta, Question
from tests import sample_bank


def tagged(qid: str, topic: str, misconception: str, *, correct: int = 1) -> Question:
    """A shuffled 4-option question whose option 0 (wrong) carries `misconception`."""
    base = sample_bank.question(qid, topic, correct=(correct,), shuffle=True)
    options = list(base.options)
    wrong = 0 if correct != 0 else 2
    options[wrong] = options[wrong].model_copy(update={"misconception": misconception})
    return base.model_copy(update={"options": options})


def learning_bank() -> Bank:
    """Two topics, shuffled questions; m1 is carried by three questions, m2 by one."""
    qs = [
        tagged("s1", "alpha", "m1"),
        tagged("s2", "alpha", "m1", correct=2),
        tagged("s3", "beta", "m1", correct=3),
        tagged("s4", "beta", "m2"),
        sample_bank.question("s5", "alpha", correct=(0, 2), shuffle=True),
        sample_bank.question("s6", "beta", correct=(3,), shuffle=True),
    ]
    meta = BankMeta.model_validate(
        {
            "id": "learn",
            "title": "Learning <bank>",
            "exam_code": "LEARN-1",
            "passing_score": 70,
            "mock_exam": {"questions": 4, "minutes": 10},
            "topics": [
                {"id": "alpha", "name": "Alpha", "weight": 60},
                {"id": "beta", "name": "Beta", "weight": 40},
            ],
            "misconceptions": [
                {"id": "m1", "name": "More data always helps", "description": "It does not."},
                {"id": "m2", "name": "Bigger is better", "description": "Not for latency."},
            ],
        }
    )
    return Bank(meta=meta, questions={q.id: q for q in qs})
