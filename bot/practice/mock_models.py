"""What the mock-exam service hands its callers (the chat, the terminal player, jobs)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from bot.bank.models import Question
from bot.mock.blueprint import TooSmall
from bot.mock.exam import Pending
from bot.mock.models import Exam, ExamPlan
from bot.mock.scoring import GradedAnswer, Mistake, MockResult


class MockStatus(StrEnum):
    STARTED = "started"  # a new exam: show its first question
    SHOWN = "shown"  # a move was applied, or an exam resumed: show `question`
    RUNNING = "running"  # start refused: this learner's running exam is `exam`
    TOO_SMALL = "too_small"  # the bank cannot fill the exam: `offer` is the largest it can
    CONFIRM = "confirm"  # Finish with `pending` questions: ask, then finish(confirmed=True)
    FINISHED = "finished"  # submitted by the learner: `result`
    EXPIRED = "expired"  # the deadline passed: submitted automatically, `result`
    ABANDONED = "abandoned"  # stopped without a score
    PAUSED = "paused"  # its clock is stopped (now, or already): /mock resumes it
    RESUMED = "resumed"  # a paused exam's clock runs again: show `question`
    NONE = "none"  # no running exam
    STALE = "stale"  # a button of an exam that is over, or not this learner's
    INVALID = "invalid"  # no such question or option in this exam


@dataclass(frozen=True, slots=True)
class MockReply:
    """The outcome of one call: a status and what the caller needs to show it."""

    status: MockStatus
    exam: Exam | None = None
    question: Question | None = None  # the question at exam.current (the exam's snapshot)
    time_left_s: float = 0.0
    pending: Pending | None = None  # CONFIRM
    too_small: TooSmall | None = None  # TOO_SMALL
    offer: ExamPlan | None = None  # TOO_SMALL: size and time of the largest possible exam
    result: MockResult | None = None  # FINISHED, EXPIRED
    # FINISHED, EXPIRED: the answers recorded as practice answers in the same transaction.
    graded: tuple[GradedAnswer, ...] = ()


@dataclass(frozen=True, slots=True)
class ReviewEntry:
    """A mistake with its question as the learner saw it (for "Review mistakes")."""

    mistake: Mistake
    question: Question
