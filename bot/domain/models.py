"""Domain values passed between the practice service and its callers."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from bot.bank.models import Question
from bot.domain.kinds import Audience, Source


@dataclass(frozen=True, slots=True)
class Learner:
    """Who is answering: enough of a Telegram user to greet and rank them."""

    id: int
    first_name: str = ""
    username: str | None = None
    language: str | None = None


@dataclass(frozen=True, slots=True)
class Delivery:
    """A question sent (or about to be sent) into a chat."""

    id: int
    chat_id: int
    bank_id: str
    question: Question
    source: Source
    audience: Audience
    sent_at: float
    message_id: int | None = None  # None until Telegram accepted the message
    closes_at: float | None = None  # groups and channels: end of the answer window
    # `question` is the question AS SHOWN (options in display order); order[p] is the file
    # index of the option at position p. Answers are stored in file order.
    order: tuple[int, ...] = ()
    token: str | None = None  # in the buttons' callback data; None for older deliveries


class AnswerStatus(StrEnum):
    RECORDED = "recorded"  # a new answer, graded and stored
    ALREADY = "already"  # this user already answered this delivery
    CLOSED = "closed"  # the answer window is over
    REMOVED = "removed"  # the question is no longer in the bank
    UNKNOWN = "unknown"  # no such delivery here, or an option that does not exist
    EMPTY = "empty"  # Submit without exactly the number of options the question asks for
    STALE = "stale"  # a button from another copy of the data (a restored backup)
    REVISED = "revised"  # the question's options or key changed since it was shown
    CONFIRM = "confirm"  # choice held until the learner says how sure they are
    IN_EXAM = "in_exam"  # a question of the learner's running mock exam: answered there only


@dataclass(frozen=True, slots=True)
class AnswerOutcome:
    """What happened to a tap on an answer button."""

    status: AnswerStatus
    delivery: Delivery | None = None
    chosen: frozenset[int] = frozenset()
    correct: bool = False
    answer_count: int = 0  # answers to this delivery so far (groups show it)


def accuracy(correct: int, answered: int) -> float:
    """Share of answers that were right; 0.0 before any answer."""
    return correct / answered if answered else 0.0


@dataclass(frozen=True, slots=True)
class TopicStats:
    topic: str
    name: str
    answered: int
    correct: int

    @property
    def accuracy(self) -> float:
        return accuracy(self.correct, self.answered)


@dataclass(frozen=True, slots=True)
class ExamTotal:
    """A learner's answers in another exam than the current one."""

    bank_title: str
    answered: int
    correct: int

    @property
    def accuracy(self) -> float:
        return accuracy(self.correct, self.answered)


@dataclass(frozen=True, slots=True)
class Stats:
    """A learner's record in one bank, and a line for each other exam answered in."""

    bank_title: str
    answered: int
    correct: int
    streak_days: int
    topics: list[TopicStats] = field(default_factory=list)
    other_exams: list[ExamTotal] = field(default_factory=list)
    streak_freezes_left: int = 1

    @property
    def accuracy(self) -> float:
        return accuracy(self.correct, self.answered)
