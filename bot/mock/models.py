"""The values of a mock exam: its questions as drawn, the learner's answers, its status."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from enum import StrEnum

TOKEN_CHARS = "abcdefghijklmnopqrstuvwxyz0123456789"


class ExamStatus(StrEnum):
    RUNNING = "running"
    FINISHED = "finished"  # submitted by the learner
    EXPIRED = "expired"  # submitted automatically at the deadline
    ABANDONED = "abandoned"  # stopped by the learner: no score

    @property
    def scored(self) -> bool:
        """Whether an exam in this state has a score."""
        return self in (ExamStatus.FINISHED, ExamStatus.EXPIRED)


class ExamKind(StrEnum):
    FULL = "full"  # the bank's mock_exam size and time
    SHORT = "short"  # a quarter of it
    REDUCED = "reduced"  # all a bank smaller than its exam can give


@dataclass(frozen=True, slots=True)
class TopicWeight:
    """A blueprint topic as it was when the exam started."""

    id: str
    name: str
    weight: float


@dataclass(frozen=True, slots=True)
class ExamPlan:
    """How many questions and how much time an exam gets."""

    kind: ExamKind
    questions: int
    seconds: int


@dataclass(frozen=True, slots=True)
class MockItem:
    """One question of an exam. Option indices are FILE indices; `order` maps display to file."""

    question_id: str
    topic: str
    order: tuple[int, ...]  # order[display position] = file index
    correct: frozenset[int]
    chosen: frozenset[int] = frozenset()
    flagged: bool = False
    answered_at: float | None = None  # last change of the choice

    @property
    def select_count(self) -> int:
        """How many options this question asks for."""
        return len(self.correct)

    @property
    def answered(self) -> bool:
        """A choice counts only with exactly as many options as the question asks for."""
        return len(self.chosen) == self.select_count

    @property
    def is_correct(self) -> bool:
        """All and only the correct options chosen (all or nothing, as exams score)."""
        return self.chosen == self.correct

    def file_index(self, display: int) -> int:
        """The file index of the option shown at a display position."""
        return self.order[display]

    def display_index(self, file_index: int) -> int:
        """Where an option (by file index) is shown."""
        return self.order.index(file_index)

    @property
    def chosen_display(self) -> frozenset[int]:
        """The chosen options as display positions (what the keyboard marks)."""
        return frozenset(self.display_index(i) for i in self.chosen)


@dataclass(frozen=True, slots=True)
class Exam:
    """A mock exam: its drawn questions, the learner's answers and where they are."""

    id: int  # 0 until stored
    user_id: int
    bank_id: str
    kind: ExamKind
    seed: int
    started_at: float
    deadline: float
    passing_score: float
    topics: tuple[TopicWeight, ...]
    items: tuple[MockItem, ...]
    current: int = 0
    status: ExamStatus = ExamStatus.RUNNING
    finished_at: float | None = None
    chat_id: int | None = None  # where the exam's one message is shown, once sent
    message_id: int | None = None
    rev: int = 0  # the stored revision this value was read as or written to
    paused_at: float | None = None  # its clock stopped then (None: not paused)
    paused_s: float = 0.0  # time spent paused before the current pause

    @property
    def paused(self) -> bool:
        return self.status is ExamStatus.RUNNING and self.paused_at is not None

    @property
    def size(self) -> int:
        return len(self.items)

    @property
    def token(self) -> str:
        """Four characters that tell this exam from another with the same id (ids are handed
        out again after a restore from a backup): its buttons carry them."""
        digest = hashlib.blake2s(f"{self.id}:{self.seed}:{self.started_at!r}".encode()).digest()
        n = int.from_bytes(digest[:8], "big")
        return "".join(TOKEN_CHARS[(n // 36**i) % 36] for i in range(4))

    @property
    def answered_count(self) -> int:
        return sum(item.answered for item in self.items)

    @property
    def unanswered(self) -> tuple[int, ...]:
        """Positions of questions without a complete answer."""
        return tuple(i for i, item in enumerate(self.items) if not item.answered)

    @property
    def flagged(self) -> tuple[int, ...]:
        """Positions of flagged questions."""
        return tuple(i for i, item in enumerate(self.items) if item.flagged)

    def clock(self, now: float) -> float:
        """The time on the exam's clock: `now`, or the moment it was paused."""
        return self.paused_at if self.paused_at is not None else now

    def time_left(self, now: float) -> float:
        """Seconds until the deadline (0 when past); a paused exam's stay as they were."""
        return max(0.0, self.deadline - self.clock(now))

    @property
    def time_allowed_s(self) -> float:
        """The exam's time (the deadline moves on by each pause, the allowance does not)."""
        return self.deadline - self.started_at - self.paused_s

    def is_due(self, now: float) -> bool:
        """Running (not paused) past its deadline: to be submitted automatically."""
        return self.status is ExamStatus.RUNNING and not self.paused and now >= self.deadline


@dataclass(frozen=True, slots=True)
class MockSummary:
    """One past or running exam, as `/stats` lists them."""

    exam_id: int
    bank_id: str
    kind: ExamKind
    status: ExamStatus
    size: int
    started_at: float
    finished_at: float | None
    correct: int | None
    percent: float | None
    passed: bool | None
