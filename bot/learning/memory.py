"""Memory of one learner for one question, scheduled with FSRS-6 (the `fsrs` package)."""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from functools import lru_cache, partial
from itertools import compress
from operator import is_not
from typing import Any, TypeVar

from fsrs import Card, Rating, Scheduler, State

UTC = dt.UTC
DAY_SECONDS = 86_400.0

# No same-day learning steps: in a chat a question cannot come back "in 10 minutes" reliably,
# so every answer schedules whole days. Fuzzing off so the same history gives the same state.
_new_scheduler = partial(
    Scheduler, desired_retention=0.9, learning_steps=(), relearning_steps=(), enable_fuzzing=False
)
SCHEDULER = _new_scheduler()
# FSRS-6's 21 weights; the last is the forgetting curve's decay. A state scheduled under
# fitted weights (bot.learning.fit) keeps its decay, so its recall follows the same curve.
Weights = tuple[float, ...]
DEFAULT_WEIGHTS: Weights = tuple(SCHEDULER.parameters)
DEFAULT_DECAY = DEFAULT_WEIGHTS[20]
# Answers closer together than this belong to one sitting.
SITTING_GAP = dt.timedelta(hours=3)


def curve_factor(decay: float) -> float:
    """FSRS-6's factor that puts recall at 90% after one stability, for a curve's decay."""
    return float(0.9 ** (-1 / decay) - 1)


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
    # Over the answers after the first that came at least SITTING_GAP after the one before: the
    # recall FSRS predicted just before each, summed, and how many were right. They tell how far
    # this learner's forgetting departs from the model; an answer minutes after the last one
    # tells nothing of forgetting, and one slip there would count as a steep forgetting curve.
    predicted_recall: float = 0.0
    review_right: int = 0
    spaced_reviews: int = 0
    # The same over the spaced answers that followed a wrong one. A miss is followed by its
    # feedback, and FSRS counts the question recalled minutes later; how such questions go at
    # the next sitting tells how much of that feedback this learner keeps.
    miss_predicted: float = 0.0
    miss_right: int = 0
    miss_reviews: int = 0
    decay: float = DEFAULT_DECAY  # of the weights that scheduled it (FSRS-6's last weight)
    # `last_review` as whole microseconds since the Unix epoch, derived once: the study queue
    # takes every met question's age on each pick, and integer microseconds give the very
    # float that timedelta.total_seconds() gives, without a datetime and a timedelta a question.
    last_us: int = field(init=False, repr=False, compare=False)
    factor: float = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "last_us", micros(self.last_review))
        object.__setattr__(self, "factor", _factor(self.decay))

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
            "spaced_reviews": self.spaced_reviews,
            "miss_predicted": self.miss_predicted,
            "miss_right": self.miss_right,
            "miss_reviews": self.miss_reviews,
            "decay": self.decay,
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
            spaced_reviews=int(row["spaced_reviews"]),
            # Absent from rows of a schema before them (a migration's replay): none yet.
            miss_predicted=float(row.get("miss_predicted") or 0.0),
            miss_right=int(row.get("miss_right") or 0),
            miss_reviews=int(row.get("miss_reviews") or 0),
            decay=DEFAULT_DECAY if row.get("decay") is None else float(row["decay"]),
        )


_UNIX_EPOCH = dt.datetime(1970, 1, 1, tzinfo=UTC)
_MICROSECOND = dt.timedelta(microseconds=1)


T = TypeVar("T")


def replaced(
    items: Iterable[T], states: Sequence[MemoryState], before: Sequence[MemoryState]
) -> Iterator[T]:
    """The items at the positions where `states` holds another object than `before` (a state
    is immutable: the same object is the same state), for memos that take in only what changed
    between two reads of one learner's states, key for key."""
    return compress(items, map(is_not, states, before))


def micros(at: dt.datetime) -> int:
    """An aware time as whole microseconds since the Unix epoch (exact, unlike timestamp())."""
    return (at - _UNIX_EPOCH) // _MICROSECOND


# A pure function (an immutable datetime out): a pick and its answer on a simulated clock that
# did not move, or the requests of one batch, ask it of the same time.
@lru_cache(maxsize=256)
def from_timestamp(seconds: float) -> dt.datetime:
    """An aware UTC datetime from Unix seconds."""
    return dt.datetime.fromtimestamp(seconds, UTC)


def _utc(at: dt.datetime) -> dt.datetime:
    if at.tzinfo is None:
        raise ValueError("times must be timezone-aware")
    return at.astimezone(UTC)


def review(
    state: MemoryState | None, answer: Answer, weights: Weights = DEFAULT_WEIGHTS
) -> MemoryState:
    """The state after one answer (None: the first time the learner meets the question),
    scheduled under `weights` (FSRS-6's defaults unless fitted)."""
    at = _utc(answer.at)
    rating = rating_for(answer.correct, answer.confidence)
    if state is None:
        stability, difficulty, interval = _scheduled(weights, None, None, 0, rating)
        reps, lapses, predicted, right, spaced = 0, 0, 0.0, 0, 0
        miss = (0.0, 0, 0)
    else:
        reps, lapses = state.reps, state.lapses
        # An answer stamped before the last review (clock skew, replay out of order) must not
        # make FSRS see negative elapsed time.
        at = max(at, state.last_review)
        recall = recall_probability(state, at)
        gap = at - state.last_review
        stability, difficulty, interval = _scheduled(
            weights, state.stability, state.difficulty, gap.days, rating
        )
        predicted, right, spaced = state.predicted_recall, state.review_right, state.spaced_reviews
        miss = (state.miss_predicted, state.miss_right, state.miss_reviews)
        if gap >= SITTING_GAP:
            predicted, right, spaced = predicted + recall, right + answer.correct, spaced + 1
            if not state.last_correct:
                miss = (miss[0] + recall, miss[1] + answer.correct, miss[2] + 1)
    return MemoryState(
        stability=stability,
        difficulty=difficulty,
        due=at + interval,
        last_review=at,
        reps=reps + 1,
        lapses=lapses + (rating is Rating.Again),
        last_correct=answer.correct,
        last_confidence=answer.confidence,
        first_correct=answer.correct if state is None else state.first_correct,
        predicted_recall=predicted,
        review_right=right,
        spaced_reviews=spaced,
        miss_predicted=miss[0],
        miss_right=miss[1],
        miss_reviews=miss[2],
        decay=weights[20],
    )


_factor = lru_cache(maxsize=64)(curve_factor)  # a state's, derived once per decay


def settle_weights(raw: Iterable[float]) -> Weights:
    """Weights as FSRS-6 schedules with them: the optimizer works in 32-bit floats, so a
    weight it clamped to a bound (0.8) reads a hair above it (0.800000011920929) and py-fsrs
    refuses it; six decimals keep every digit a 32-bit float has."""
    return tuple(round(float(w), 6) for w in raw)


def check_weights(weights: Weights) -> None:
    """Raise ValueError unless FSRS-6 can schedule with `weights` (21, each within its
    bounds): a fit is checked before it is stored, so that no answer meets bad weights."""
    _scheduler(weights)


@lru_cache(maxsize=16)
def _scheduler(weights: Weights) -> Scheduler:
    return SCHEDULER if weights == DEFAULT_WEIGHTS else _new_scheduler(parameters=weights)


_EPOCH = dt.datetime(2000, 1, 1, tzinfo=UTC)


# FSRS reads nothing of a card in review but its stability, difficulty and the whole days since
# its last review, and schedules whole days (no fuzzing, no learning steps): the library's
# answer is memoised on those and the grade. Learners walk the same few paths (a right first
# answer, then a wrong one two days later...), so most answers meet a known case; the library
# builds a Card, copies it and a ReviewLog per call. tests/test_learning_memory.py
# checks the memoised states equal the library's own over thousands of random histories.
@lru_cache(maxsize=1 << 16)
def _scheduled(
    weights: Weights,
    stability: float | None,
    difficulty: float | None,
    days: int,
    rating: Rating,
) -> tuple[float, float, dt.timedelta]:
    """FSRS's new stability, difficulty and interval for a card (None: never reviewed)."""
    if stability is None or difficulty is None:
        card = Card(card_id=1, state=State.Learning, due=_EPOCH)
    else:
        card = Card(
            card_id=1,
            state=State.Review,
            step=None,
            stability=stability,
            difficulty=difficulty,
            due=_EPOCH,
            last_review=_EPOCH,
        )
    at = _EPOCH + dt.timedelta(days=days)
    card, _ = _scheduler(weights).review_card(card, rating, review_datetime=at)
    assert card.stability is not None and card.difficulty is not None
    return card.stability, card.difficulty, card.due - at


def replay(history: Iterable[Answer], weights: Weights = DEFAULT_WEIGHTS) -> MemoryState | None:
    """Rebuild one question's state from its past answers (sorted by time here)."""
    state: MemoryState | None = None
    for answer in sorted(history, key=lambda a: a.at):
        state = review(state, answer, weights)
    return state


def replay_all(
    history: Iterable[Answer], weights: Weights = DEFAULT_WEIGHTS
) -> dict[str, MemoryState]:
    """States by question id from a learner's answers to many questions (migration backfill,
    or restating them under newly fitted weights)."""
    by_question: dict[str, list[Answer]] = {}
    for answer in history:
        by_question.setdefault(answer.question_id, []).append(answer)
    states = {qid: replay(answers, weights) for qid, answers in by_question.items()}
    return {qid: s for qid, s in states.items() if s is not None}


def recall_probability(state: MemoryState | None, at: dt.datetime) -> float:
    """FSRS-6 retrievability at `at` with fractional days (0 for a question never answered)."""
    if state is None:
        return 0.0
    elapsed = max(0.0, (at - state.last_review).total_seconds() / DAY_SECONDS)
    return float((1 + state.factor * elapsed / state.stability) ** -state.decay)


def recalls(
    memory: Mapping[str, MemoryState], ids: Iterable[str], at: dt.datetime
) -> dict[str, float]:
    """`recall_probability(memory[q], at)` for each of `ids` met in `memory`, the same floats,
    computed in one pass (the study queue asks this of every question on each pick)."""
    out: dict[str, float] = {}
    get = memory.get
    now_us = micros(at)
    for q in ids:
        state = get(q)
        if state is not None:
            # timedelta.total_seconds() is its microseconds / 10**6, an exact int division.
            elapsed = (now_us - state.last_us) / 1_000_000 / DAY_SECONDS
            out[q] = (
                1 + state.factor * (elapsed if elapsed > 0.0 else 0.0) / state.stability
            ) ** -state.decay
    return out


# How many review answers it takes before the learner's own forgetting rate outweighs FSRS's
# population default (the calibration is shrunk toward "no correction" below that).
CALIBRATION_PSEUDO = 40.0
# As CALIBRATION_PSEUDO, for the rarer spaced answers that follow a miss.
AFTER_MISS_PSEUDO = 20.0
AFTER_MISS_PRIOR = 0.5


@dataclass(frozen=True, slots=True)
class Calibration:
    """How a learner's spaced answers went against the recall FSRS predicted for them."""

    g: float = 1.0  # exponent on the recall of a question last answered right
    kept: float = AFTER_MISS_PRIOR  # share of its recall a question last answered wrong keeps


def calibration(memory: Iterable[MemoryState], chance: float = 0.25) -> Calibration:
    """The learner's calibration from their spaced answers, in one pass over their states.

    Right answers include lucky guesses, so the observed recall is corrected for `chance` (the
    bank's mean probability of a blind guess) before it is compared with FSRS's prediction.
    g, from every spaced answer: g > 1, the learner forgets faster than FSRS says; g < 1,
    slower. `kept`, from those that followed a miss: their right answers over FSRS's
    prediction for them, at most 1, shrunk toward AFTER_MISS_PRIOR while there are few.
    """
    n = predicted = right = 0.0
    miss_n = miss_predicted = miss_right = 0.0
    for s in memory:
        n += s.spaced_reviews
        predicted += s.predicted_recall
        right += s.review_right
        miss_n += s.miss_reviews
        miss_predicted += s.miss_predicted
        miss_right += s.miss_right
    g = 1.0
    if n >= 1:
        expected = min(max(predicted / n, 0.05), 0.995)
        observed = min(max((right / n - chance) / (1 - chance), 0.05), 0.995)
        raw = math.log(observed) / math.log(expected)
        g = min(4.0, max(0.5, 1.0 + (raw - 1.0) * n / (n + CALIBRATION_PSEUDO)))
    kept = AFTER_MISS_PRIOR
    if miss_n >= 1:
        observed = max(0.0, (miss_right / miss_n - chance) / (1 - chance))
        raw = min(1.0, observed / max(miss_predicted / miss_n, 1e-6))
        kept += (raw - AFTER_MISS_PRIOR) * miss_n / (miss_n + AFTER_MISS_PSEUDO)
    return Calibration(g, kept)
