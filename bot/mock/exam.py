"""The exam state machine: each move returns a new Exam (values are never changed in place).

Positions and display options come from the learner's buttons; choices are stored as FILE
option indices so grading and item statistics never depend on the shuffled order.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, replace

from bot.bank.models import BankMeta, Option, Question
from bot.domain.display import shuffled_order
from bot.mock.models import Exam, ExamPlan, ExamStatus, MockItem, TopicWeight


class ExamError(ValueError):
    """A move the exam cannot take; `reason` says which kind."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


CLOSED = "closed"  # the exam is over (submitted, abandoned, or past its deadline)
INVALID = "invalid"  # no such question or option


@dataclass(frozen=True, slots=True)
class Pending:
    """Why Finish asks for confirmation: questions still open or flagged."""

    unanswered: tuple[int, ...]
    flagged: tuple[int, ...]


def new_exam(
    *,
    user_id: int,
    meta: BankMeta,
    questions: Sequence[Question],
    exam_plan: ExamPlan,
    seed: int,
    now: float,
) -> Exam:
    """A running exam over these questions, options shuffled with the exam's seed."""
    rng = random.Random(seed)
    items = tuple(
        MockItem(q.id, q.topic, shuffled_order(q, rng), q.correct_indices) for q in questions
    )
    return Exam(
        id=0,
        user_id=user_id,
        bank_id=meta.id,
        kind=exam_plan.kind,
        seed=seed,
        started_at=now,
        deadline=now + exam_plan.seconds,
        passing_score=meta.passing_score,
        topics=tuple(TopicWeight(t.id, t.name, t.weight) for t in meta.topics),
        items=items,
    )


PAUSED = "paused"  # the exam's clock is stopped: resume it first


def _open(exam: Exam, now: float) -> None:
    if exam.status is not ExamStatus.RUNNING or now >= exam.deadline:
        raise ExamError(CLOSED)
    if exam.paused:
        raise ExamError(PAUSED)


def _item(exam: Exam, position: int) -> MockItem:
    if not 0 <= position < exam.size:
        raise ExamError(INVALID)
    return exam.items[position]


def _with_item(exam: Exam, position: int, item: MockItem) -> Exam:
    items = (*exam.items[:position], item, *exam.items[position + 1 :])
    return replace(exam, items=items, current=position)


def choose(exam: Exam, position: int, display: int, now: float, *, on: bool | None = None) -> Exam:
    """Pick (or change) an answer by its display position.

    Single answer: the option replaces the previous choice (on=False clears it). Multiple
    answers: the option is toggled (on=True/False sets it, so a repeated tap is harmless); a
    tick past the number the question asks for changes nothing (untick one first), as exam
    software refuses it.
    """
    _open(exam, now)
    item = _item(exam, position)
    if not 0 <= display < len(item.order):
        raise ExamError(INVALID)
    option = item.file_index(display)
    chosen = set(item.chosen)
    multiple = item.select_count > 1
    want = (option not in chosen) if on is None and multiple else (True if on is None else on)
    if want and multiple and option not in chosen and len(chosen) >= item.select_count:
        return replace(exam, current=position)
    if want:
        chosen = {*chosen, option} if multiple else {option}
    else:
        chosen.discard(option)
    new = frozenset(chosen)
    if new == item.chosen:
        return replace(exam, current=position)
    return _with_item(exam, position, replace(item, chosen=new, answered_at=now))


def flag(exam: Exam, position: int, now: float, *, on: bool | None = None) -> Exam:
    """Flag a question for review (on=None toggles)."""
    _open(exam, now)
    item = _item(exam, position)
    want = not item.flagged if on is None else on
    return _with_item(exam, position, replace(item, flagged=want))


def go(exam: Exam, position: int, now: float) -> Exam:
    """Jump to a question."""
    _open(exam, now)
    _item(exam, position)
    return replace(exam, current=position)


def step(exam: Exam, delta: int, now: float) -> Exam:
    """Previous (-1) or next (+1) question, staying within the exam."""
    return go(exam, min(max(exam.current + delta, 0), exam.size - 1), now)


def pending(exam: Exam) -> Pending | None:
    """What Finish should confirm first, or None when every question is answered, none flagged."""
    unanswered, flagged = exam.unanswered, exam.flagged
    return Pending(unanswered, flagged) if unanswered or flagged else None


def finish(exam: Exam, now: float, *, confirmed: bool = False) -> Exam | Pending:
    """Submit the exam; with open or flagged questions, only once confirmed."""
    _open(exam, now)
    check = pending(exam)
    if check is not None and not confirmed:
        return check
    return replace(exam, status=ExamStatus.FINISHED, finished_at=now)


def expire(exam: Exam) -> Exam:
    """Submit a running exam at its deadline, with the answers given before it."""
    if exam.status is not ExamStatus.RUNNING:
        raise ExamError(CLOSED)
    return replace(exam, status=ExamStatus.EXPIRED, finished_at=exam.deadline)


def abandon(exam: Exam, now: float) -> Exam:
    """Stop a running exam without a score."""
    if exam.status is not ExamStatus.RUNNING:
        raise ExamError(CLOSED)
    at = min(exam.clock(now), exam.deadline)
    return replace(exam, status=ExamStatus.ABANDONED, finished_at=at, paused_at=None)


def pause(exam: Exam, now: float) -> Exam:
    """Stop the exam's clock (a paused exam stays as it is)."""
    if exam.paused:
        return exam
    _open(exam, now)
    return replace(exam, paused_at=now)


def unpause(exam: Exam, now: float) -> Exam:
    """Start the clock again: the deadline moves on by the time spent paused, so the time
    left is what it was at the pause."""
    if exam.status is not ExamStatus.RUNNING:
        raise ExamError(CLOSED)
    if exam.paused_at is None:
        return exam
    pause_s = max(0.0, now - exam.paused_at)
    return replace(
        exam,
        paused_at=None,
        paused_s=exam.paused_s + pause_s,
        deadline=exam.deadline + pause_s,
    )


def shown_options(item: MockItem, question: Question) -> list[Option]:
    """The question's options in the order the learner sees them (letters A, B, ... in turn)."""
    return [question.options[i] for i in item.order]
