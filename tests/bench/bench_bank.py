"""Load and validate a generated bank of 10,000 questions: time, traced peak and max RSS."""

from __future__ import annotations

import gc
import resource
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

from bot.bank.loader import load_banks

QUESTIONS = 10_000
TARGET_SECONDS = 2.0
TOPICS = ("fine-tuning", "data-preparation", "deployment", "evaluation", "safety", "prompting")

BANK_YAML = """\
id: bench
title: Benchmark bank
exam_code: BENCH-1
passing_score: 70
mock_exam: {questions: 60, minutes: 90}
topics:
""" + "".join(
    f"  - {{id: {t}, name: {t.title()}, weight: {100 / len(TOPICS)!r}}}\n" for t in TOPICS
)


def question_yaml(n: int) -> str:
    """A realistic question file: four options with rationales, explanation, trap, metadata."""
    multiple = n % 7 == 0
    correct = {n % 4, (n + 1) % 4} if multiple else {n % 4}
    options = "".join(
        f"""  - text: Option {i} of question {n}, phrased like a real answer choice would be.
    correct: {str(i in correct).lower()}
    rationale: >-
      Rationale {i} for question {n}: why learners pick this option and why it is or is not
      right here, long enough to look like the rationales written for the bundled bank.
"""
        for i in range(4)
    )
    return f"""# yaml-language-server: $schema=../../bot/bank/question.schema.json
id: bench-{n:05d}
topic: {TOPICS[n % len(TOPICS)]}
difficulty: {("easy", "medium", "hard")[n % 3]}
kind: {"multiple" if multiple else "single"}
stem: >-
  Question {n}: a team fine-tunes a model and sees something happen during training. Which
  change is most likely to help, given the constraints described in this stem?
options:
{options}explanation: >-
  The explanation of question {n}, a paragraph that says why the right answer is right and
  what the learner should remember for the exam.
trap: >-
  The common exam trap of question {n}.
tags: [bench, generated]
author: bench generator
reviewed: 2026-11-15
"""


def generate(folder: Path, count: int = QUESTIONS) -> Path:
    """Write a bank of `count` questions into `folder/bench`, 100 per sub-folder."""
    bank = folder / "bench"
    bank.mkdir(parents=True)
    (bank / "bank.yaml").write_text(BANK_YAML, encoding="utf-8")
    for n in range(count):
        sub = bank / f"part-{n // 100:03d}"
        if n % 100 == 0:
            sub.mkdir()
        (sub / f"q{n:05d}.yaml").write_text(question_yaml(n), encoding="utf-8")
    return bank


def main() -> None:
    """Generate the bank, time a cold-ish load, then a traced load for peak memory."""
    with tempfile.TemporaryDirectory(prefix="quizbot-bench-") as tmp:
        bank = generate(Path(tmp))
        gc.collect()
        started = time.perf_counter()
        result = load_banks([bank])
        elapsed = time.perf_counter() - started
        if result.problems:
            print("\n".join(str(p) for p in result.problems[:10]), file=sys.stderr)
            raise SystemExit("bench bank did not validate")
        loaded = len(result.banks["bench"].questions)
        del result
        gc.collect()
        tracemalloc.start()
        load_banks([bank])
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    # ru_maxrss is KiB on Linux (bytes on macOS; this bench runs on Linux CI).
    max_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    verdict = "OK" if elapsed < TARGET_SECONDS else "SLOW"
    print(
        f"bank: {loaded} questions loaded+validated in {elapsed:.2f} s, "
        f"peak traced {peak / 2**20:.0f} MB, max RSS {max_rss:.0f} MB "
        f"(target < {TARGET_SECONDS:g} s: {verdict})"
    )


if __name__ == "__main__":
    main()
