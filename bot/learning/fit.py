"""FSRS-6 weights fitted to answers (fsrs-rs-python, the optimizer Anki uses): pooled over a
bank's learners, and per learner once they have answered enough. Pure: histories in, weights
out; the scheduled job and `quizbot fit` that store them are `bot.practice.fitting`."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from fsrs_rs_python import DEFAULT_PARAMETERS, FSRS, FSRSItem, FSRSReview

from bot.learning.memory import settle_weights

DAY_SECONDS = 86_400.0
# Spaced reviews (an answer a whole day or more after the one before) a fit needs: below
# this the optimizer has too little to move the defaults on, and its answer is noise. On the
# learner panel a bank's first fit at 50 reviews, made of reviews a day or two after the first
# answer, put forgetting memories' first memory beyond a week and switched them to cover-first
# for days (up to 1.27x the answers); at 200 longer lags are in the data.
MIN_BANK_REVIEWS = 200
MIN_LEARNER_REVIEWS = 400
AGAIN, HARD, GOOD = 1, 2, 3


@dataclass(frozen=True, slots=True)
class Graded:
    """One answer as the fit reads it."""

    question_id: str
    at: float  # Unix seconds
    correct: bool
    unsure: bool = False


@dataclass(frozen=True, slots=True)
class Fitted:
    """Weights and how many spaced reviews they were fitted on."""

    weights: tuple[float, ...]
    reviews: int


def rating(answer: Graded) -> int:
    """The grade the bot gives an answer: wrong Again, right Good, right but unsure Hard."""
    if not answer.correct:
        return AGAIN
    return HARD if answer.unsure else GOOD


def items(answers: Iterable[Graded]) -> list[FSRSItem]:
    """One learner's answers as FSRS training items: each question's history up to each of
    its spaced reviews (the optimizer learns from what came true after a whole-day gap)."""
    by_question: dict[str, list[Graded]] = {}
    for a in answers:
        by_question.setdefault(a.question_id, []).append(a)
    found: list[FSRSItem] = []
    for history in by_question.values():
        history.sort(key=lambda a: a.at)
        reviews: list[FSRSReview] = []
        for i, a in enumerate(history):
            # Whole days since the answer before, as the scheduler counts them.
            days = 0 if i == 0 else int((a.at - history[i - 1].at) // DAY_SECONDS)
            reviews.append(FSRSReview(rating(a), days))
            if i > 0 and days > 0:
                found.append(FSRSItem(list(reviews)))
    return found


def fit(histories: Sequence[Iterable[Graded]], min_reviews: int) -> Fitted | None:
    """Weights fitted on the learners' histories, or None with fewer than `min_reviews`
    spaced reviews among them. The optimizer's errors propagate: the caller keeps what it
    had."""
    found = [item for h in histories for item in items(h)]
    if len(found) < min_reviews:
        return None
    weights = FSRS(list(DEFAULT_PARAMETERS)).compute_parameters(found)
    if len(weights) != 21:
        raise ValueError(f"the optimizer gave {len(weights)} weights, not 21")
    return Fitted(settle_weights(weights), len(found))
