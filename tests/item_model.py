"""Answers generated from a known model, for item-analysis tests and the `items` benchmark.

Each learner has an ability theta ~ N(0, 1); each question a difficulty b and discrimination a
(two-parameter logistic). A learner who "knows" the question picks the option the model holds
true; otherwise a distractor by its popularity weight. The recorded `correct` compares with the
key in the bank file, so a question whose file key differs from the model's truth is mis-keyed.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from bot.bank.models import Bank, BankMeta, Question
from bot.storage.factory import connect_blocking, prepare_database
from bot.storage.port import Connection
from tests.backend import close_at_end, database


@dataclass(frozen=True)
class Item:
    """The model of one question: what strong learners pick and how the others spread."""

    a: float = 1.5
    b: float = 0.0
    true_key: tuple[int, ...] | None = None  # None: the file's key is the truth
    weights: tuple[float, ...] | None = None  # popularity of each option among guessers


@dataclass
class Row:
    user_id: int
    question_id: str
    topic: str
    chosen: tuple[int, ...]
    correct: bool
    answered_at: float
    time_ms: int | None


@dataclass
class Model:
    bank: Bank
    items: dict[str, Item] = field(default_factory=dict)
    seed: int = 7

    def answer(self, rng: random.Random, theta: float, q: Question) -> tuple[int, ...]:
        """One learner's answer to one question under the model."""
        item = self.items.get(q.id, Item())
        truth = item.true_key or tuple(sorted(q.correct_indices))
        knows = rng.random() < 1 / (1 + math.exp(-item.a * (theta - item.b)))
        if knows:
            return truth
        weights = list(item.weights or [1.0] * len(q.options))
        picked: set[int] = set()
        while len(picked) < len(truth):
            i = rng.choices(range(len(q.options)), weights)[0]
            picked.add(i)
            weights[i] = 0.0
            if not any(weights):
                break
        return tuple(sorted(picked))

    def rows(
        self, learners: int, per_learner: int, repeats: float = 0.0, first_user: int = 1000
    ) -> Iterator[Row]:
        """Each learner meets `per_learner` random questions; a share `repeats` of answers are
        later attempts at a question already met (answered later, so never first)."""
        rng = random.Random(self.seed)
        qs = list(self.bank.questions.values())
        for u in range(first_user, first_user + learners):
            theta = rng.gauss(0, 1)
            met = rng.sample(qs, min(per_learner, len(qs)))
            t = 1_000_000.0 + u
            for q in met:
                t += 60
                chosen = self.answer(rng, theta, q)
                yield Row(
                    u,
                    q.id,
                    q.topic,
                    chosen,
                    set(chosen) == q.correct_indices,
                    t,
                    rng.randint(4000, 40000),
                )
            for q in met:
                if rng.random() < repeats:
                    t += 60
                    # A repeat is answered right: learning, which must not count.
                    key = tuple(sorted(q.correct_indices))
                    yield Row(u, q.id, q.topic, key, True, t, 1000)


def insert_rows(conn: Connection, bank_id: str, rows: Iterable[Row]) -> int:
    """Insert each row as a delivery and its answer (as the bot records them); return count."""
    count = 0
    batch: list[tuple[object, ...]] = []

    def flush() -> None:
        conn.executemany(
            "INSERT INTO deliveries (id, chat_id, user_id, bank_id, question_id, sent_at)"
            " VALUES (?, ?, ?, ?, ?, ?)",
            [(b[0], b[1], b[1], bank_id, b[2], b[5] - 10) for b in batch],
        )
        conn.executemany(
            "INSERT INTO answers (delivery_id, user_id, chat_id, bank_id, question_id, topic,"
            " chosen, correct, answered_at, time_to_answer_ms) VALUES (?,?,?,?,?,?,?,?,?,?)",
            [(b[0], b[1], b[1], bank_id, b[2], b[3], b[4], b[6], b[5], b[7]) for b in batch],
        )
        batch.clear()

    conn.execute("BEGIN")
    first_id = conn.execute("SELECT COALESCE(MAX(id), 0) FROM deliveries").fetchone()[0]
    for r in rows:
        count += 1
        batch.append(
            (
                first_id + count,
                r.user_id,
                r.question_id,
                r.topic,
                ",".join(map(str, r.chosen)),
                r.answered_at,
                int(r.correct),
                r.time_ms,
            )
        )
        if len(batch) >= 20_000:
            flush()
    if batch:
        flush()
    conn.execute("COMMIT")
    return count


def new_database(path: Path) -> Connection:
    """A database with the project's migrations applied (the suite's backend: the path names
    it), closed after the test if the caller does not close it first."""
    target = database(path)
    prepare_database(target)
    return close_at_end(connect_blocking(target))


def question(
    qid: str,
    topic: str,
    n_options: int = 4,
    key: tuple[int, ...] = (0,),
    misconceptions: dict[int, str] | None = None,
    stem: str | None = None,
) -> Question:
    """A valid question with `n_options` options, `key` correct."""
    tags = misconceptions or {}
    return Question.model_validate(
        {
            "id": qid,
            "topic": topic,
            "kind": "multiple" if len(key) > 1 else "single",
            "stem": stem or f"Stem of {qid}: which <option> is right & why?",
            "options": [
                {
                    "text": f"Option {i} of {qid}",
                    "correct": i in key,
                    "rationale": f"Why {i}.",
                    "misconception": tags.get(i),
                }
                for i in range(n_options)
            ],
            "explanation": f"Explanation of {qid}.",
        }
    )


def make_bank(
    questions: list[Question], bank_id: str = "items", misconceptions: tuple[str, ...] = ()
) -> Bank:
    """A bank of these questions, topics taken from them with equal weights."""
    topics = list(dict.fromkeys(q.topic for q in questions))
    meta = BankMeta.model_validate(
        {
            "id": bank_id,
            "title": f"Bank {bank_id}",
            "exam_code": "ITEMS-1",
            "passing_score": 70,
            "mock_exam": {"questions": 10, "minutes": 15},
            "topics": [{"id": t, "name": t.title(), "weight": 100 / len(topics)} for t in topics],
            "misconceptions": [
                {"id": m, "name": m.replace("-", " "), "description": f"{m}."}
                for m in misconceptions
            ],
        }
    )
    return Bank(meta=meta, questions={q.id: q for q in questions})


def write_bank(bank: Bank, folder: Path) -> Path:
    """Write the bank as a bank folder (bank.yaml and one file per question)."""
    folder.mkdir(parents=True, exist_ok=True)
    meta = bank.meta.model_dump(mode="json", exclude_defaults=True)
    (folder / "bank.yaml").write_text(yaml.safe_dump(meta, sort_keys=False))
    for q in bank.questions.values():
        data = q.model_dump(mode="json", exclude_defaults=True)
        (folder / f"{q.id}.yaml").write_text(yaml.safe_dump(data, sort_keys=False))
    return folder
