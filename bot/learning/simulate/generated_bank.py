"""A synthetic bank of any size, for the simulation and tests (no files, deterministic)."""

from __future__ import annotations

import random

from bot.bank.models import Bank, BankMeta, Question

DIFFICULTIES = ("easy", "medium", "hard")


def generate_bank(
    n_questions: int = 300,
    n_topics: int = 8,
    seed: int = 0,
    misconceptions: int = 8,
    bank_id: str = "generated",
) -> Bank:
    """A valid bank: uneven topic weights and sizes drawn independently, a few select-two items.

    Topic sizes are not proportional to weights, as in real banks where authors write what they
    know best; about one question in eight is "select two" and one wrong option in six carries
    one of `misconceptions` tags.
    """
    rng = random.Random(seed)
    raw = [rng.uniform(0.5, 2.0) for _ in range(n_topics)]
    weights = [round(100 * w / sum(raw), 2) for w in raw]
    weights[-1] = round(100 - sum(weights[:-1]), 2)
    topics = [f"topic-{i + 1}" for i in range(n_topics)]
    sizes_raw = [rng.uniform(0.5, 2.0) for _ in range(n_topics)]
    sizes = [max(2, int(n_questions * s / sum(sizes_raw))) for s in sizes_raw]
    sizes[-1] = max(2, n_questions - sum(sizes[:-1]))
    mis_ids = [f"mis-{i + 1}" for i in range(misconceptions)]
    questions: list[Question] = []
    for topic, size in zip(topics, sizes, strict=True):
        for j in range(size):
            multiple = rng.random() < 0.125
            n_options = 5 if multiple else 4
            correct = set(rng.sample(range(n_options), 2 if multiple else 1))
            options = []
            verdict = {True: "right", False: "wrong"}
            for k in range(n_options):
                tag = None
                if k not in correct and mis_ids and rng.random() < 1 / 6:
                    tag = rng.choice(mis_ids)
                options.append(
                    {
                        "text": f"Option {k + 1} of {topic} question {j + 1}",
                        "correct": k in correct,
                        "rationale": f"Why option {k + 1} is {verdict[k in correct]}.",
                        "misconception": tag,
                    }
                )
            questions.append(
                Question.model_validate(
                    {
                        "id": f"{topic}-q{j + 1}",
                        "topic": topic,
                        "difficulty": rng.choice(DIFFICULTIES),
                        "kind": "multiple" if multiple else "single",
                        "stem": f"Generated question {j + 1} of {topic}.",
                        "options": options,
                        "explanation": "Generated explanation.",
                    }
                )
            )
    meta = BankMeta.model_validate(
        {
            "id": bank_id,
            "title": f"Generated bank of {n_questions} questions",
            "exam_code": "GEN-1",
            "passing_score": 70,
            "mock_exam": {"questions": 60, "minutes": 90},
            "topics": [
                {"id": t, "name": t.title(), "weight": w}
                for t, w in zip(topics, weights, strict=True)
            ],
            "misconceptions": [
                {"id": m, "name": m.title(), "description": f"Generated wrong idea {m}."}
                for m in mis_ids
            ],
        }
    )
    return Bank(meta=meta, questions={q.id: q for q in questions})


CSV_TOPICS = (("t1", 30.0), ("t2", 22.0), ("t3", 18.0), ("t4", 14.0), ("t5", 10.0), ("t6", 6.0))


def csv_bank(n_questions: int = 240, seed: int = 0) -> Bank:
    """A bank of six weighted topics written as a CSV spreadsheet and read by the CSV importer
    (`quizbot import csv`), as an author's spreadsheet would be; deterministic."""
    import csv
    import io
    import tempfile
    from pathlib import Path

    from bot.bank.importers.common import question_id, validate
    from bot.bank.importers.csv_import import read_csv_file

    rng = random.Random(seed)
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(
        ["topic", "difficulty", "stem", *(f"option_{k}" for k in range(1, 5)),
         *(f"rationale_{k}" for k in range(1, 5)), "correct", "explanation"]
    )  # fmt: skip
    for j in range(n_questions):
        topic = CSV_TOPICS[j % len(CSV_TOPICS)][0]
        right = rng.randrange(4)
        writer.writerow(
            [topic, rng.choice(DIFFICULTIES), f"Spreadsheet question {j + 1} on {topic}?",
             *(f"Answer {k + 1} to question {j + 1}" for k in range(4)),
             *(f"Why answer {k + 1} is {'right' if k == right else 'wrong'}." for k in range(4)),
             "ABCD"[right], f"Explanation of question {j + 1}."]
        )  # fmt: skip
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bank.csv"
        path.write_text(out.getvalue(), encoding="utf-8")
        drafts, issues = read_csv_file(path)
    assert not issues, issues
    questions = []
    for draft in drafts:
        draft.data.setdefault("id", question_id(draft.data["topic"], draft.data["stem"]))
        question = validate(draft)
        assert isinstance(question, Question), question
        questions.append(question)
    meta = BankMeta.model_validate(
        {
            "id": "csv-240",
            "title": "Six weighted topics from a spreadsheet",
            "exam_code": "CSV-1",
            "passing_score": 70,
            "mock_exam": {"questions": 60, "minutes": 90},
            "topics": [{"id": t, "name": t.upper(), "weight": w} for t, w in CSV_TOPICS],
        }
    )
    return Bank(meta=meta, questions={q.id: q for q in questions})
