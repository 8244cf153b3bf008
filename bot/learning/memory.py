"""Memory of one learner for one question, scheduled with FSRS-6 (the `fsrs` package)."""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from fsrs import Card, Rating, Scheduler, State

UTC = dt.UTC
DAY_SECONDS = 86_400.0

# No same-day learning steps: in a chat a question cannot come back "in 10 minutes" reliably,
# so every answer schedules whole days. Fuzzing off so the same history gives the same state.
SCHEDULER = Scheduler(
    desired_retention=0.9, learning_steps=(), relearning_steps=(), enable_fuzzing=False
)
_DECAY = -SCHEDULER.parameters[20]
_FACTOR = 0.9 ** (1 / _DECAY) - 1
# Answers closer together than this count as one sitting ("massed"); farther apart, spaced.
MASSED_HOURS = 4.0
MASSED_GAP = dt.timedelta(hours=MASSED_HOURS)


class Confidence(StrEnum):
    SURE = "sure"
    UNSURE = "unsure"


def rating_for(correct: bool, confidence: Confidence | None = None) -> Rating:
    """FSRS grade of an auto-graded answer: wrong Again, right Good, right but unsure Hard."""
    if not correct:
        return Rating.Again
    return Rating.Hard if confidence is Confidence.UNSURE else Rating.Good


@dataclass(frozen=True, slots=True)
class Answer:
    """One graded answer as the memory model sees it (response time is kept, never graded)."""

    question_id: str
    at: dt.datetime
    correct: bool
    confidence: Confidence | None = None
    seconds: float | None = None


@dataclass(frozen=True, slots=True)
class MemoryState:
    """FSRS state of one learner × question, plus what the study queue needs of the last answer."""

    stability: float  # days until recall probability falls to 90%
    difficulty: float  # FSRS difficulty, 1 (easy) to 10 (hard)
    due: dt.datetime  # when FSRS would ask again at 90% retention
    last_review: dt.datetime
    reps: int
    lapses: int  # answers graded Again
    last_correct: bool
    last_confidence: Confidence | None = None
    first_correct: bool = False  # the very first answer: evidence of ability before any study
    # Over the answers after the first: the recall FSRS predicted just before each, summed, and
    # how many were right. They tell how far this learner's forgetting departs from the model.
    predicted_recall: float = 0.0
    review_right: int = 0
    # Does a re-test in the same sitting strengthen this learner's memory? `massed`: a right
    # answer came within MASSED_HOURS of the one before, before any spaced review. The first
    # spaced review (at least MASSED_HOURS after the answer before it) records FSRS's predicted
    # recall and whether it was right; 0.0 until then.
    massed: bool = False
    spaced_predicted: float = 0.0
    spaced_right: bool = False

    @property
    def confident_error(self) -> bool:
        """The last answer was wrong although the learner said "sure"."""
        return not self.last_correct and self.last_confidence is Confidence.SURE

    def to_row(self) -> dict[str, float | int | str | None]:
        """Plain columns for storage: times as Unix seconds, confidence as text or None."""
        return {
            "stability": self.stability,
            "difficulty": self.difficulty,
            "due": self.due.timestamp(),
            "last_review": self.last_review.timestamp(),
            "reps": self.reps,
            "lapses": self.lapses,
            "last_correct": int(self.last_correct),
            "last_confidence": self.last_confidence.value if self.last_confidence else None,
            "first_correct": int(self.first_correct),
            "predicted_recall": self.predicted_recall,
            "review_right": self.review_right,
            "massed": int(self.massed),
            "spaced_predicted": self.spaced_predicted,
            "spaced_right": int(self.spaced_right),
        }

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> MemoryState:
        """Inverse of `to_row` (accepts any mapping with those keys, e.g. a dict from SQL)."""
        conf = row["last_confidence"]
        return cls(
            stability=float(row["stability"]),
            difficulty=float(row["difficulty"]),
            due=from_timestamp(float(row["due"])),
            last_review=from_timestamp(float(row["last_review"])),
            reps=int(row["reps"]),
            lapses=int(row["lapses"]),
            last_correct=bool(row["last_correct"]),
            last_confidence=Confidence(str(conf)) if conf is not None else None,
            first_correct=bool(row["first_correct"]),
            predicted_recall=float(row["predicted_recall"]),
            review_right=int(row["review_right"]),
            massed=bool(row["massed"]),
            spaced_predicted=float(row["spaced_predicted"]),
            spaced_right=bool(row["spaced_right"]),
        )


def from_timestamp(seconds: float) -> dt.datetime:
    """An aware UTC datetime from Unix seconds."""
    return dt.datetime.fromtimestamp(seconds, UTC)


def _utc(at: dt.datetime) -> dt.datetime:
    if at.tzinfo is None:
        raise ValueError("times must be timezone-aware")
    return at.astimezone(UTC)


def review(state: MemoryState | None, answer: Answer) -> MemoryState:
    """The state after one answer (None: the first time the learner meets the question)."""
    at = _utc(answer.at)
    rating = rating_for(answer.correct, answer.confidence)
    if state is None:
        card = Card(card_id=1, state=State.Learning, due=at)
        reps, lapses, predicted, right = 0, 0, 0.0, 0
        massed, spaced_predicted, spaced_right = False, 0.0, False
    else:
        card = Card(
            card_id=1,
            state=State.Review,
            step=None,
            stability=state.stability,
            difficulty=state.difficulty,
            due=state.due,
            last_review=state.last_review,
        )
        reps, lapses = state.reps, state.lapses
        # An answer stamped before the last review (clock skew, replay out of order) must not
        # make FSRS see negative elapsed time.
        at = max(at, state.last_review)
        now_recall = recall_probability(state, at)
        predicted = state.predicted_recall + now_recall
        right = state.review_right + answer.correct
        massed, spaced_predicted, spaced_right = (
            state.massed,
            state.spaced_predicted,
            state.spaced_right,
        )
        if spaced_predicted == 0.0:
            if at - state.last_review < MASSED_GAP:
                massed = massed or answer.correct
            else:
                spaced_predicted, spaced_right = max(now_recall, 1e-6), answer.correct
    card, _ = SCHEDULER.review_card(card, rating, review_datetime=at)
    assert card.stability is not None and card.difficulty is not None
    return MemoryState(
        stability=card.stability,
        difficulty=card.difficulty,
        due=card.due,
        last_review=at,
        reps=reps + 1,
        lapses=lapses + (rating is Rating.Again),
        last_correct=answer.correct,
        last_confidence=answer.confidence,
        first_correct=answer.correct if state is None else state.first_correct,
        predicted_recall=predicted,
        review_right=right,
        massed=massed,
        spaced_predicted=spaced_predicted,
        spaced_right=spaced_right,
    )


def replay(history: Iterable[Answer]) -> MemoryState | None:
    """Rebuild one question's state from its past answers (sorted by time here)."""
    state: MemoryState | None = None
    for answer in sorted(history, key=lambda a: a.at):
        state = review(state, answer)
    return state


def replay_all(history: Iterable[Answer]) -> dict[str, MemoryState]:
    """States by question id from a learner's answers to many questions (migration backfill)."""
    by_question: dict[str, list[Answer]] = {}
    for answer in history:
        by_question.setdefault(answer.question_id, []).append(answer)
    states = {qid: replay(answers) for qid, answers in by_question.items()}
    return {qid: s for qid, s in states.items() if s is not None}


def recall_probability(state: MemoryState | None, at: dt.datetime) -> float:
    """FSRS-6 retrievability at `at` with fractional days (0 for a question never answered)."""
    if state is None:
        return 0.0
    elapsed = max(0.0, (at - state.last_review).total_seconds() / DAY_SECONDS)
    return float((1 + _FACTOR * elapsed / state.stability) ** _DECAY)


def recall_after_days(stability: float, days: float) -> float:
    """Retrievability `days` after the last review for a given stability."""
    return float((1 + _FACTOR * max(0.0, days) / stability) ** _DECAY)


# How many review answers it takes before the learner's own forgetting rate outweighs FSRS's
# population default (the calibration is shrunk toward "no correction" below that).
CALIBRATION_PSEUDO = 40.0


def forgetting_exponent(memory: Iterable[MemoryState], chance: float = 0.25) -> float:
    """Exponent g so that recall ** g matches this learner's right answers on reviews.

    Right answers include lucky guesses, so the observed recall is corrected for `chance` (the
    bank's mean probability of a blind guess) before it is compared with FSRS's prediction.
    g > 1: the learner forgets faster than the default model; g < 1: slower.
    """
    n = predicted = right = 0.0
    for state in memory:
        n += state.reps - 1
        predicted += state.predicted_recall
        right += state.review_right
    if n < 1:
        return 1.0
    expected = min(max(predicted / n, 0.05), 0.995)
    observed = min(max((right / n - chance) / (1 - chance), 0.05), 0.995)
    raw = math.log(observed) / math.log(expected)
    weight = n / (n + CALIBRATION_PSEUDO)
    return min(4.0, max(0.5, 1.0 + (raw - 1.0) * weight))


# Binomial variance of one review outcome assumed when weighing the massing evidence.
_OUTCOME_VARIANCE = 0.2


@dataclass(frozen=True, slots=True)
class MassingEvidence:
    """First spaced reviews of questions re-tested right in their first sitting vs the rest."""

    massed: int  # questions with a first spaced review after a same-sitting right re-test
    unmassed: int  # questions with a first spaced review and no such re-test
    gain: float  # difference in mean (right - predicted) between the two groups
    z: float  # that difference in standard errors (0 while a group is empty)


def massing_evidence(memory: Iterable[MemoryState]) -> MassingEvidence:
    """How much better re-tested-in-the-sitting questions did at their first spaced review."""
    n = [0, 0]
    excess = [0.0, 0.0]
    for state in memory:
        if state.spaced_predicted > 0.0:
            i = 0 if state.massed else 1
            n[i] += 1
            excess[i] += state.spaced_right - state.spaced_predicted
    if not n[0] or not n[1]:
        return MassingEvidence(n[0], n[1], 0.0, 0.0)
    gain = excess[0] / n[0] - excess[1] / n[1]
    error = math.sqrt(_OUTCOME_VARIANCE * (1 / n[0] + 1 / n[1]))
    return MassingEvidence(n[0], n[1], gain, gain / error)
