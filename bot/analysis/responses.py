"""What item analysis reads: learners' first attempts, grouped by question, and their totals."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import chain, compress


@dataclass(frozen=True, slots=True)
class FirstAttempt:
    """One learner's first answer to one question; `chosen` holds file-order option indices."""

    user_id: int
    question_id: str
    chosen: tuple[int, ...]
    correct: bool
    time_ms: int | None = None


@dataclass(frozen=True, slots=True)
class LearnerTotal:
    """A learner's first attempts over the bank: how many questions met, how many right."""

    met: int
    right: int


@dataclass(frozen=True, slots=True)
class QuestionResponses:
    """Every first attempt at one question, column by column (one entry per learner)."""

    question_id: str
    user_ids: tuple[int, ...]
    chosen: tuple[tuple[int, ...], ...]
    correct: tuple[bool, ...]
    time_total_ms: int = 0  # over the first attempts with a recorded response time
    timed: int = 0


def learner_totals(responses: Sequence[QuestionResponses]) -> dict[int, LearnerTotal]:
    """Per learner: questions met and answered right, over all these first attempts."""
    met = Counter(chain.from_iterable(g.user_ids for g in responses))
    right = Counter(chain.from_iterable(compress(g.user_ids, g.correct) for g in responses))
    return {u: LearnerTotal(m, right[u]) for u, m in met.items()}


def by_question(attempts: Iterable[FirstAttempt]) -> Iterator[QuestionResponses]:
    """Group rows by question (in first-seen order of question ids)."""
    groups: dict[str, list[FirstAttempt]] = defaultdict(list)
    for a in attempts:
        groups[a.question_id].append(a)
    for qid, rows in groups.items():
        times = [r.time_ms for r in rows if r.time_ms is not None]
        yield QuestionResponses(
            question_id=qid,
            user_ids=tuple(r.user_id for r in rows),
            chosen=tuple(r.chosen for r in rows),
            correct=tuple(r.correct for r in rows),
            time_total_ms=sum(times),
            timed=len(times),
        )


def parse_chosen(text: str) -> tuple[int, ...]:
    """'0,2' -> (0, 2); an empty or malformed entry picks nothing."""
    try:
        return tuple(sorted({int(part) for part in text.split(",") if part.strip()}))
    except ValueError:
        return ()
