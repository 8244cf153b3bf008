"""The bundled bank as an exam editor checks it: no item-writing cues, room for two full mocks."""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

from bot.bank.loader import load_bank
from bot.bank.models import Kind
from bot.mock.blueprint import Draw, draw

BANK = Path(__file__).resolve().parent.parent / "questions" / "genai-llm"


def test_bundled_bank_passes_the_strict_lint() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "bot", "validate", "--strict", str(BANK)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_key_is_rarely_the_longest_option() -> None:
    bank = load_bank(BANK)
    single = [q for q in bank.questions.values() if q.kind is Kind.SINGLE]
    longest = ratio = 0
    for q in single:
        key = max(len(o.text) for o in q.options if o.correct)
        wrong = max(len(o.text) for o in q.options if not o.correct)
        longest += key > wrong
        ratio += key >= 1.5 * wrong
    assert longest <= 0.35 * len(single)
    assert ratio <= 0.05 * len(single)


def test_size_mix_and_two_full_mock_exams_without_a_repeat() -> None:
    bank = load_bank(BANK)
    questions = list(bank.questions.values())
    assert len(questions) >= 150
    per_topic = {t.id: sum(q.topic == t.id for q in questions) for t in bank.meta.topics}
    assert min(per_topic.values()) >= 15, per_topic
    assert sum(q.kind is Kind.MULTIPLE for q in questions) >= 0.2 * len(questions)
    tagged = [o.misconception for q in questions for o in q.options if o.misconception]
    assert len(tagged) >= 15 and len(set(tagged)) >= 5

    size = bank.meta.mock_exam.questions
    first = draw(bank, size, set(), random.Random(1))
    assert isinstance(first, Draw) and len(first.question_ids) == size
    second = draw(bank, size, set(first.question_ids), random.Random(2))
    assert isinstance(second, Draw) and len(second.question_ids) == size
    assert not set(first.question_ids) & set(second.question_ids)
