"""Scoring a submitted exam: all or nothing per question, per-topic scores, mistakes to review."""

from __future__ import annotations

from dataclasses import dataclass

from bot.mock.models import Exam, ExamStatus


@dataclass(frozen=True, slots=True)
class TopicScore:
    """One blueprint topic in an exam: questions asked, right, and the topic's weight."""

    topic: str
    name: str
    weight: float
    correct: int
    total: int

    @property
    def percent(self) -> float:
        return 100 * self.correct / self.total if self.total else 0.0


@dataclass(frozen=True, slots=True)
class Mistake:
    """A question answered wrong or left open, for "Review mistakes" (FILE option indices)."""

    position: int
    question_id: str
    chosen: frozenset[int]  # empty or incomplete when left open
    correct: frozenset[int]
    order: tuple[int, ...]  # the display order the learner saw
    answered: bool


@dataclass(frozen=True, slots=True)
class GradedAnswer:
    """A question the learner answered in the exam, graded: what item statistics and the memory
    model take in (a complete choice only; questions left open were not attempted)."""

    position: int
    question_id: str
    topic: str
    chosen: frozenset[int]
    correct: bool
    answered_at: float


@dataclass(frozen=True, slots=True)
class MockResult:
    """The outcome of a submitted exam."""

    exam_id: int
    bank_id: str
    status: ExamStatus
    correct: int
    total: int
    passing_score: float
    started_at: float
    finished_at: float
    time_allowed_s: float
    topics: tuple[TopicScore, ...]
    mistakes: tuple[Mistake, ...]
    paused_s: float = 0.0  # time the exam spent paused: not time used

    @property
    def percent(self) -> float:
        return 100 * self.correct / self.total if self.total else 0.0

    @property
    def passed(self) -> bool:
        # Compared at the displayed precision, so 69.99...% never shows as "70%, failed".
        return round(self.percent, 6) >= self.passing_score

    @property
    def time_used_s(self) -> float:
        return self.finished_at - self.started_at - self.paused_s


def score(exam: Exam) -> MockResult:
    """The result of a submitted (finished or expired) exam."""
    if not exam.status.scored or exam.finished_at is None:
        raise ValueError(f"exam {exam.id} is {exam.status}, not submitted")
    topics = []
    for t in exam.topics:
        items = [i for i in exam.items if i.topic == t.id]
        if items:
            right = sum(i.is_correct for i in items)
            topics.append(TopicScore(t.id, t.name, t.weight, right, len(items)))
    known = {t.id for t in exam.topics}
    # A topic dropped from the blueprint by a reload still counts, under its id.
    for topic in dict.fromkeys(i.topic for i in exam.items if i.topic not in known):
        items = [i for i in exam.items if i.topic == topic]
        topics.append(TopicScore(topic, topic, 0.0, sum(i.is_correct for i in items), len(items)))
    mistakes = tuple(
        Mistake(pos, i.question_id, i.chosen, i.correct, i.order, i.answered)
        for pos, i in enumerate(exam.items)
        if not i.is_correct
    )
    return MockResult(
        exam_id=exam.id,
        bank_id=exam.bank_id,
        status=exam.status,
        correct=sum(i.is_correct for i in exam.items),
        total=exam.size,
        passing_score=exam.passing_score,
        started_at=exam.started_at,
        finished_at=exam.finished_at,
        time_allowed_s=exam.time_allowed_s,
        topics=tuple(topics),
        mistakes=mistakes,
        paused_s=exam.paused_s,
    )


def graded_answers(exam: Exam) -> tuple[GradedAnswer, ...]:
    """The complete answers of a submitted exam, graded, in exam order."""
    return tuple(
        GradedAnswer(pos, i.question_id, i.topic, i.chosen, i.is_correct, i.answered_at)
        for pos, i in enumerate(exam.items)
        if i.answered and i.answered_at is not None
    )
