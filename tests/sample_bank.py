"""A small bank built in code, for tests that need questions but not files."""

from __future__ import annotations

from bot.bank.models import Bank, BankMeta, Question

# The ten NCP-GENL domains and the weights NVIDIA publishes for them.
NCP_GENL_WEIGHTS = {
    "model-optimization": 17,
    "gpu-acceleration": 14,
    "prompt-engineering": 13,
    "fine-tuning": 13,
    "data-preparation": 9,
    "model-deployment": 9,
    "evaluation": 7,
    "production-monitoring": 7,
    "llm-architecture": 6,
    "safety-ethics-compliance": 5,
}


def question(
    qid: str,
    topic: str = "alpha",
    *,
    correct: tuple[int, ...] = (1,),
    n_options: int = 4,
    stem: str | None = None,
    trap: str | None = "Trap text <b>not a tag</b>.",
    shuffle: bool = False,
) -> Question:
    """A valid question whose options and rationales name their letter, so tests can spot them.

    Unshuffled unless asked: most tests tap letters by the file's order (tests of the shuffle
    itself pass shuffle=True)."""
    letters = "ABCDEFGHIJKL"
    return Question.model_validate(
        {
            "id": qid,
            "topic": topic,
            "kind": "multiple" if len(correct) > 1 else "single",
            "shuffle": shuffle,
            "stem": stem or f"Stem of {qid}: which is right & why?",
            "options": [
                {
                    "text": f"Option {letters[i]} of {qid}",
                    "correct": i in correct,
                    "rationale": f"Rationale {letters[i]} of {qid}.",
                }
                for i in range(n_options)
            ],
            "explanation": f"Explanation of {qid}.",
            "trap": trap,
        }
    )


def bank(
    questions: list[Question] | None = None, bank_id: str = "demo", topics: tuple[str, ...] = ()
) -> Bank:
    """A bank with topics alpha and beta (weights 50/50) unless told otherwise."""
    qs = (
        questions
        if questions is not None
        else [
            question("a1", "alpha"),
            question("a2", "alpha", correct=(0,)),
            question("a3", "alpha", correct=(0, 2)),
            question("b1", "beta", correct=(3,)),
            question("b2", "beta", n_options=2, correct=(0,)),
        ]
    )
    names = topics or tuple(dict.fromkeys(q.topic for q in qs)) or ("alpha",)
    weight = 100 / len(names)
    meta = BankMeta.model_validate(
        {
            "id": bank_id,
            "title": f"Bank {bank_id}",
            "exam_code": "DEMO-1",
            "passing_score": 70,
            "mock_exam": {"questions": 10, "minutes": 15},
            "topics": [{"id": t, "name": t.title(), "weight": weight} for t in names],
        }
    )
    return Bank(meta=meta, questions={q.id: q for q in qs})
